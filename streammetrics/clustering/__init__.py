"""Clustering indices on a mergeable contingency table and per-cluster moments (issue 5)."""

__all__: list[str] = []
