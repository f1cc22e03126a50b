"""The inputs of the clustering family: two labelings (external indices) or points and labels (internal).

Both sub-families parse their batches here, so that a state module (the contingency table, the
per-cluster moments) can build itself from in-memory data without importing a metric class.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._core import validation as v
from ..errors import InputError


def validate_labelings(
    labels_true: Any, labels_pred: Any, sample_weight: Any
) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """Two 1-D labelings of equal length (ints, bools or strings) and optional weights.

    Examples:
        >>> t, p, w = validate_labelings([0, 1], ["a", "b"], None)
        >>> t.tolist(), p.tolist(), w
        ([0, 1], ['a', 'b'], None)
    """
    t = v.as_labels(labels_true, "labels_true")
    p = v.as_labels(labels_pred, "labels_pred")
    v.check_length(p, len(t), "labels_pred", "labels_true")
    w = v.as_weights(sample_weight, len(t))
    return t, p, w


def is_one_label(labels: Any) -> bool:
    """Whether ``labels`` is one label (a scalar, a 0-d array), not a sequence of them."""
    try:
        return np.ndim(labels) == 0
    except ValueError:  # a ragged sequence: many labels (the batch check says what is wrong)
        return False


def validate_points(
    X: Any, labels: Any, sample_weight: Any, n_features: int | None
) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """A finite 2-D float64 ``X`` (``n_features`` columns if already fixed), labels and weights.

    Examples:
        >>> x, labels, w = validate_points([[0, 1], [2, 3]], [0, 0], [1.0, 2.0], None)
        >>> x.dtype.name, labels.tolist(), w.tolist()
        ('float64', [0, 0], [1.0, 2.0])
    """
    if is_one_label(labels) and np.ndim(X) == 1:  # one row: a point and its label
        X, labels = [X], [labels]
        sample_weight = None if sample_weight is None or np.ndim(sample_weight) else [sample_weight]
    x = v.to_array(X, "X")
    if x.ndim != 2:
        raise InputError(f"X: expected a 2-D array (n_samples, n_features), found shape {x.shape}")
    if x.dtype.kind not in "biuf":
        raise InputError(f"X: expected numbers, found values of dtype {x.dtype}")
    x = x.astype(np.float64, copy=False)
    v.check_finite(x, "X")
    if n_features is not None and x.shape[1] != n_features:
        raise InputError(f"X: expected {n_features} features like earlier batches, found {x.shape[1]}")
    labels_arr = v.as_labels(labels, "labels")
    v.check_length(labels_arr, x.shape[0], "labels", "X")
    w = v.as_weights(sample_weight, x.shape[0])
    return x, labels_arr, w
