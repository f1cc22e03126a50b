"""Regression metrics on mergeable co-moments (issue 4)."""

__all__: list[str] = []
