"""Scaling a state by a factor (exponential forgetting): exact for counts, moments and histograms.

A state that supports forgetting has a ``scale(factor)`` method multiplying every weight it
holds by ``factor`` (``n_samples``, the number of rows seen, is unchanged). The confusion
counts and the regression co-moments get theirs here until the method is declared on the state
classes themselves.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._core.state import State


def can_scale(state: State) -> bool:
    from ..classification.counts import ConfusionCounts
    from ..regression.moments import CoMoments

    return callable(getattr(state, "scale", None)) or isinstance(state, (ConfusionCounts, CoMoments))


def scale_state(state: State, factor: float) -> None:
    """Multiply every weight held by ``state`` by ``factor`` in place.

    Examples:
        >>> import numpy as np
        >>> from streammetrics.classification.counts import ConfusionCounts
        >>> s = ConfusionCounts()
        >>> s.add_multiclass(np.array([0, 1, 1]), np.array([0, 1, 0]), None)
        >>> scale_state(s, 0.5)
        >>> s.matrix.tolist()
        [[0.5, 0.0], [0.5, 0.5]]
    """
    method = getattr(state, "scale", None)
    if callable(method):
        method(factor)
        return
    from ..classification.counts import ConfusionCounts

    if isinstance(state, ConfusionCounts):
        scale_confusion_counts(state, factor)
        return
    from ..regression.moments import CoMoments

    if isinstance(state, CoMoments):
        scale_comoments(state, factor)
        return
    raise TypeError(f"{type(state).__name__} states cannot be scaled (no scale(factor) method)")


def scale_confusion_counts(state: Any, factor: float) -> None:
    """``ConfusionCounts.scale``: counts become float64 weighted counts times ``factor``."""
    matrix = state.matrix.astype(np.float64) * factor
    code_weights = state.code_weights.astype(np.float64) * factor
    state.matrix, state.code_weights = matrix, code_weights


def scale_comoments(state: Any, factor: float) -> None:
    """``CoMoments.scale``: the total weight and every weighted sum times ``factor``; the means
    (and shifts) are unchanged, as they are ratios of weighted sums."""
    weight, m2, cross = state.weight * factor, state.m2 * factor, state.cross * factor
    sum_abs, sum_ape = state.sum_abs * factor, state.sum_ape * factor
    state.weight, state.m2, state.cross, state.sum_abs, state.sum_ape = weight, m2, cross, sum_abs, sum_ape
