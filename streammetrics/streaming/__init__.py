"""Metric collections and windows: MetricCollection, Rolling, Decayed (issue 6)."""

from .collection import MetricCollection
from .tracking import MetricTracker, MinMax, TrackerBest
from .windows import Decayed, Rolling

__all__: list[str] = ["MetricCollection", "Rolling", "Decayed", "MetricTracker", "MinMax", "TrackerBest"]
