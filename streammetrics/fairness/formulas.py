"""Group rates from confusion counts, and the gaps between groups (fairlearn's semantics)."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..classification.counts import ConfusionCounts

METHODS = ("between_groups", "to_overall")
AGGREGATES = ("worst_case", "mean")


def _positive(state: ConfusionCounts, pos_label: Any) -> int | None:
    if not len(state.labels):
        return None
    return state.labels.index_of(pos_label)


def selection_rate(state: ConfusionCounts, pos_label: Any = 1) -> float:
    """Weighted share of rows predicted ``pos_label``: ``sum w [ŷ = pos] / sum w`` (NaN when empty)."""
    m = state.matrix
    total = float(m.sum())
    if total == 0:
        return float("nan")
    p = _positive(state, pos_label)
    return 0.0 if p is None else float(m[:, p].sum()) / total


def _rates(state: ConfusionCounts, pos_label: Any) -> tuple[float, float]:
    """``(TPR, FPR)`` of ``pos_label`` against the rest; 0 where a rate has no row to count, as
    scikit-learn's ``confusion_matrix(normalize="true")`` that fairlearn reads."""
    m = state.matrix.astype(np.float64)
    p = _positive(state, pos_label)
    total = float(m.sum())
    if p is None:
        return 0.0, 0.0
    tp = m[p, p]
    positives = m[p, :].sum()
    predicted = m[:, p].sum()
    fp = predicted - tp
    negatives = total - positives
    tpr = float(tp / positives) if positives else 0.0
    fpr = float(fp / negatives) if negatives else 0.0
    return tpr, fpr


def true_positive_rate(state: ConfusionCounts, pos_label: Any = 1) -> float:
    """``TP / (TP + FN)`` of ``pos_label`` (0 without positive rows, as fairlearn)."""
    return _rates(state, pos_label)[0]


def false_positive_rate(state: ConfusionCounts, pos_label: Any = 1) -> float:
    """``FP / (FP + TN)`` of ``pos_label`` (0 without negative rows, as fairlearn)."""
    return _rates(state, pos_label)[1]


def difference(by_group: dict[Any, float], overall: float, method: str) -> float:
    """fairlearn's ``MetricFrame.difference``: ``max - min`` over groups (``"between_groups"``)
    or the largest ``|group - overall|`` (``"to_overall"``); NaN groups are left out.

    Examples:
        >>> difference({"a": 0.2, "b": 0.5, "c": 0.3}, 0.4, "between_groups")
        0.3
        >>> round(difference({"a": 0.2, "b": 0.5}, 0.4, "to_overall"), 12)
        0.2
    """
    values = np.array([v for v in by_group.values() if not np.isnan(v)], dtype=np.float64)
    if not values.size:
        return float("nan")
    if method == "between_groups":
        return float(values.max() - values.min())
    return float(np.abs(values - overall).max())


def ratio(by_group: dict[Any, float], overall: float, method: str) -> float:
    """fairlearn's ``MetricFrame.ratio``: ``min / max`` over groups (``"between_groups"``), or the
    smallest of ``group / overall`` each taken below one (``"to_overall"``).

    Examples:
        >>> ratio({"a": 0.2, "b": 0.5}, 0.4, "between_groups")
        0.4
        >>> ratio({"a": 0.2, "b": 0.5}, 0.4, "to_overall")
        0.5
    """
    values = np.array([v for v in by_group.values() if not np.isnan(v)], dtype=np.float64)
    if not values.size:
        return float("nan")
    with np.errstate(divide="ignore", invalid="ignore"):
        if method == "between_groups":
            return float(np.float64(values.min()) / np.float64(values.max()))
        r = values / np.float64(overall)
        r = np.where(r > 1, 1 / r, r)
    r = r[~np.isnan(r)]
    return float(r.min()) if r.size else float("nan")
