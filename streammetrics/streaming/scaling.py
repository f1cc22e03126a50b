"""Scaling a state by a factor (exponential forgetting): exact for counts, moments and histograms.

A state that supports forgetting declares a ``scale(factor)`` method multiplying every weight it
holds by ``factor`` (``n_samples``, the number of rows seen, is unchanged): the confusion counts,
the regression moments, the score sketch, the probability tables.
"""

from __future__ import annotations

from .._core.state import State


def can_scale(state: State) -> bool:
    """Whether ``state`` declares ``scale(factor)`` (and, for a state of states, whether all of
    them do: its ``scalable``)."""
    return callable(getattr(state, "scale", None)) and bool(getattr(state, "scalable", True))


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
    if not can_scale(state):
        raise TypeError(f"{type(state).__name__} states cannot be scaled (no scale(factor) method)")
    state.scale(factor)  # type: ignore[attr-defined]
