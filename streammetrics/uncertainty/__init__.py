"""Confidence intervals and significance tests for streaming metrics (issue 9)."""

__all__: list[str] = []
