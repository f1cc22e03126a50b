"""Internals of the command line: chunked table readers and the ``evaluate`` engine."""
