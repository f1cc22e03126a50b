"""Metric collections and windows: MetricCollection, Rolling, Decayed (issue 6)."""

__all__: list[str] = []
