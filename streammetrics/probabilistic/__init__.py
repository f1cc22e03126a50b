"""Probabilistic and decision-theoretic metrics: log loss, Brier, calibration, expected cost (issue 3)."""

__all__: list[str] = []
