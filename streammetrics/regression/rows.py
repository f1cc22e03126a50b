"""One-row checks of the regression moments (the per-sample fast path; see :mod:`streammetrics._core.onerow`)."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from .._core.onerow import NUMBER_TYPES, innermost_state, number_of
from ..errors import InputError


class RegressionRows:
    """Checks one (y_true, y_pred) pair of real numbers against a regression metric's rules.

    ``hot`` tells the buffer what a row becomes: ``"residuals"`` (one number, ``y_true - y_pred``)
    for the error metrics, whose state reads nothing else, and ``"numbers"`` (the pair) for the
    others and for the log metrics (the residual of the logarithms is taken in the batch).
    """

    def __init__(self, rules: Any, state: Any, *, residual: bool) -> None:
        self.rules = rules
        self.log = rules.transform == "log1p"
        self.hot = "residuals" if residual else "numbers"
        self.name = type(rules).__name__
        #: The number types the hot path takes: emptied (in place) while the state holds several
        #: outputs, so that the hot path, which holds this very set, sends every row to the check.
        self.types = set(NUMBER_TYPES)
        self.refresh(state)

    def refresh(self, state: Any) -> None:
        self.state = state
        is_open = getattr(innermost_state(state, "n_outputs"), "n_outputs", None) in (None, 1) and (
            isinstance(self.rules.multioutput, str) or len(self.rules.multioutput) == 1
        )
        if is_open:
            self.types.update(NUMBER_TYPES)
        else:
            self.types.clear()

    def fast_test(self) -> Callable[[Any, Any], bool]:
        types, inf, lo = self.types, math.inf, (0 if self.log else -math.inf)
        return lambda t, p: (
            type(t) in types and type(p) in types and lo <= t * 1.0 < inf and lo <= p * 1.0 < inf
        )

    def check(self, y_true: Any, y_pred: Any) -> tuple[Any, Any, tuple[Any, ...]]:
        outputs = getattr(innermost_state(self.state, "n_outputs"), "n_outputs", None)
        if outputs not in (None, 1):
            raise InputError(f"y_true: expected {outputs} outputs like earlier batches, found 1")
        if not isinstance(self.rules.multioutput, str) and len(self.rules.multioutput) != 1:
            raise InputError(
                f"y_true: expected {len(self.rules.multioutput)} outputs (the length of multioutput), found 1"
            )
        t, p = number_of(y_true, "y_true"), number_of(y_pred, "y_pred")
        if self.log and (t < 0 or p < 0):
            name, bad = ("y_true", t) if t < 0 else ("y_pred", p)
            raise InputError(
                f"{name}: expected non-negative values for {self.name} (log1p of targets and predictions), "
                f"found {bad}"
            )
        return t, p, ()

    def admit(self, labels: tuple[Any, ...]) -> list[Any]:
        return []

    def commit(self, new: list[Any]) -> None:
        pass
