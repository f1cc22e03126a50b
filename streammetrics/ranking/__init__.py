"""Ranking metrics (ROC/PR/AUC/AP) on a mergeable score sketch (issue 3)."""

__all__: list[str] = []
