"""Scaling a state by a factor (exponential forgetting): exact for counts, moments and histograms.

A state that supports forgetting has a ``scale(factor)`` method multiplying every weight it
holds by ``factor`` (``n_samples``, the number of rows seen, is unchanged): the regression
moments and the score sketch declare theirs; the confusion counts get theirs here until the
method is declared on the state class itself.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._core.state import State


def can_scale(state: State) -> bool:
    from ..classification.counts import ConfusionCounts

    return callable(getattr(state, "scale", None)) or isinstance(state, ConfusionCounts)


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
    raise TypeError(f"{type(state).__name__} states cannot be scaled (no scale(factor) method)")


def scale_confusion_counts(state: Any, factor: float) -> None:
    """``ConfusionCounts.scale``: counts become float64 weighted counts times ``factor``."""
    matrix = state.matrix.astype(np.float64) * factor
    code_weights = state.code_weights.astype(np.float64) * factor
    state.matrix, state.code_weights = matrix, code_weights
