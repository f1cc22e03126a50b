"""Metric collections and windows: MetricCollection, Rolling, Decayed (issue 6)."""

from .collection import MetricCollection
from .windows import Decayed, Rolling

__all__: list[str] = ["MetricCollection", "Rolling", "Decayed"]
