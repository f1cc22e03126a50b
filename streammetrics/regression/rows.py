"""One-row checks of the regression moments (the per-sample fast path; see :mod:`streammetrics._core.onerow`)."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from .._core.rowvalues import NUMBER_TYPES, floats_of, innermost_state, number_of
from ..errors import InputError


class RegressionRows:
    """Checks one (y_true, y_pred) pair of real numbers against a regression metric's rules.

    A row is buffered as values: its residual (one number, ``y_true - y_pred``, ``width`` 1) for
    the error metrics, whose state reads nothing else, or the pair (``width`` 2) for the others
    and for the log metrics (the residual of the logarithms is taken in the batch). The inlined
    per-row functions (:meth:`hot_function`, :meth:`pusher`) write the common case out.
    """

    encoding = "values"

    def __init__(self, rules: Any, state: Any, *, residual: bool) -> None:
        self.rules = rules
        self.log = rules.transform == "log1p"
        #: Whether a row is buffered as its residual alone.
        self.residual = residual
        self.width = 1 if residual else 2
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

    # ------------------------------------------------------------------ buffer encoding
    def encode(self, t: float, p: float) -> tuple[float, ...] | None:
        """The buffered values of a checked row (``None``: two huge finite values whose
        residual overflows go as a one-row batch, whose value is the batch's)."""
        if not self.residual:
            return (t, p)
        residual = t - p
        return (residual,) if residual * 0.0 == 0.0 else None

    def decode(self, flat: list[Any]) -> tuple[np.ndarray, np.ndarray]:
        """The batch arguments of the buffered values (the residuals as ``(r, 0)``: the very same
        residuals)."""
        values = floats_of(flat)
        if self.residual:
            return values, np.zeros(len(values))
        both = values.reshape(-1, 2)
        return both[:, 0].copy(), both[:, 1].copy()

    def hot_function(
        self, buffer: Any, limit: int, flush: Callable[[], None], slow: Callable[..., Any], result: Any
    ) -> Callable[..., Any]:
        """The per-row function: two finite numbers are one append (their residual) or one extend.

        ``types`` is emptied while the state holds several outputs (every row then takes the
        check); ``x * 0.0`` is 0 exactly when ``x`` is finite (inf and nan give nan).
        """
        rows, types = buffer.rows, self.types
        if self.residual:
            append = rows.append

            def update(y_true: Any, y_pred: Any, sample_weight: Any = None, w: Any = None) -> Any:
                if type(y_true) is float is type(y_pred) and sample_weight is w is None and types:
                    residual = y_true - y_pred  # finite exactly when both are (and no overflow)
                    if residual * 0.0 == 0.0:
                        append(residual)
                        if len(rows) >= limit:
                            flush()
                        return result
                elif sample_weight is w is None and type(y_true) in types and type(y_pred) in types:
                    try:  # ints, NumPy scalars: the residual in float64, as in a batch
                        residual = float(y_true) - float(y_pred)
                    except OverflowError:  # ints beyond float: the check says why
                        residual = math.nan
                    if residual * 0.0 == 0.0:
                        append(residual)
                        if len(rows) >= limit:
                            flush()
                        return result
                slow(y_true, y_pred, sample_weight if w is None else w)
                return result

            return update
        extend, low = rows.extend, 0.0 if self.log else -math.inf
        if not self.log:  # no sign rule: two finite floats are one extend (the common row, written out)

            def update_finite_pair(y_true: Any, y_pred: Any, sample_weight: Any = None, w: Any = None) -> Any:
                if (
                    sample_weight is w is None
                    and type(y_true) is float is type(y_pred)
                    and types
                    and y_true - y_true + y_pred - y_pred == 0.0  # nan exactly when either is inf or nan
                ):
                    extend((y_true, y_pred))
                    if len(rows) < limit:
                        return result
                    flush()
                    return result
                return update_pair(y_true, y_pred, sample_weight, w)

        def update_pair(y_true: Any, y_pred: Any, sample_weight: Any = None, w: Any = None) -> Any:
            if type(y_true) is float is type(y_pred) and sample_weight is w is None and types:
                ok = y_true * 0.0 - y_pred * 0.0 == 0.0 and y_true >= low <= y_pred  # both finite
            else:
                try:  # log1p metrics also need both values >= 0
                    ok = (
                        sample_weight is w is None
                        and type(y_true) in types
                        and type(y_pred) in types
                        and y_true * 0.0 - y_pred * 0.0 == 0.0
                        and y_true >= low <= y_pred
                    )
                except OverflowError:  # ints beyond float: the check says why
                    ok = False
            if ok:
                extend((y_true, y_pred))
                if len(rows) >= limit:
                    flush()
                return result
            slow(y_true, y_pred, sample_weight if w is None else w)
            return result

        return update_pair if self.log else update_finite_pair

    def pusher(self, buffer: Any) -> Callable[[Any, Any], bool]:
        """A collection's push: append the row if it is of the fast kind as is (never raises)."""
        rows, types, low = buffer.rows, self.types, 0.0 if self.log else -math.inf

        def push(t: Any, p: Any) -> bool:
            if not (types and type(t) in types and type(p) in types):
                return False
            try:
                if self.residual:
                    residual = t - p if type(t) is float is type(p) else float(t) - float(p)
                    if residual * 0.0 == 0.0:
                        rows.append(residual)
                        return True
                    return False
                if t * 0.0 - p * 0.0 == 0.0 and t >= low <= p:
                    rows.extend((t, p))
                    return True
            except OverflowError:
                pass
            return False

        return push
