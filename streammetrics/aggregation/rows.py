"""One-row checks of the per-row value metrics (the per-sample fast path; see
:mod:`streammetrics._core.onerow`).

A row of two scalars (a target and a prediction, a label and a score) is buffered as the pair
when it is of the fast kind: two finite Python or NumPy numbers that the metric's domain test
accepts (``row_domain``: e.g. a positive prediction for the Poisson deviance) while the state
holds rows of one value column set (``row_width``). Anything else takes the checked path: the
metric's own batch parser on a one-row batch, so a row is refused with the very message a batch
would get, at once, the state unchanged.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from .._core.rowvalues import NUMBER_TYPES, floats_of, innermost_state


class PairRows:
    """The row parser of a :class:`~streammetrics.aggregation.base.RowValueMetric` taking scalar rows."""

    encoding = "values"
    width = 2

    def __init__(self, rules: Any, state: Any) -> None:
        self.rules = rules
        self.domain: Callable[[float, float], bool] = rules.row_domain
        #: emptied (in place) while the state's width is not that of a scalar row, so the hot
        #: path (which holds this very set) sends every row to the check
        self.types = set(NUMBER_TYPES) - {bool}
        self.refresh(state)

    def refresh(self, state: Any) -> None:
        self.state = state
        width = getattr(innermost_state(state, "width"), "width", None)
        if width in (None, self.rules.row_width):
            self.types.update(NUMBER_TYPES - {bool})
        else:
            self.types.clear()

    def fast_test(self) -> Callable[[Any, Any], bool]:
        types, domain = self.types, self.domain
        return lambda t, p: (
            type(t) in types and type(p) in types and t * 0.0 - p * 0.0 == 0.0 and domain(t, p)
        )

    def hot_function(
        self, buffer: Any, limit: int, flush: Callable[[], None], slow: Callable[..., Any], result: Any
    ) -> Callable[..., Any]:
        """The per-row function: two finite Python floats in the metric's domain are one
        ``extend``; other number types take the generic test; anything else the check.

        ``types`` is emptied while the state's width is not a scalar row's (every row then
        takes the check); ``x * 0.0`` is 0 exactly when ``x`` is finite.
        """
        rows, types, domain = buffer.rows, self.types, self.domain
        extend, fast = rows.extend, self.fast_test()
        anything = getattr(domain, "__name__", "") == "always"

        def update(y_true: Any, y_pred: Any, sample_weight: Any = None, w: Any = None) -> Any:
            if type(y_true) is float is type(y_pred) and sample_weight is w is None and types:
                ok = y_true * 0.0 - y_pred * 0.0 == 0.0 and (anything or domain(y_true, y_pred))
            else:
                try:
                    ok = sample_weight is w is None and fast(y_true, y_pred)
                except (TypeError, ValueError, OverflowError):  # array-likes, huge ints: the check says why
                    ok = False
            if ok:
                extend((y_true, y_pred))
                if len(rows) >= limit:
                    flush()
                return result
            slow(y_true, y_pred, sample_weight if w is None else w)
            return result

        return update

    def check(self, y_true: Any, y_pred: Any) -> tuple[Any, Any, tuple[Any, ...]]:
        rules = self.rules
        batch = rules._validate([y_true], [y_pred])  # the batch parser's rules and messages
        rules._row_values(batch)  # a check the values make (none raises on valid input)
        t, p = (
            (y_true.item() if hasattr(y_true, "item") else y_true),
            (y_pred.item() if hasattr(y_pred, "item") else y_pred),
        )
        return t, p, ()

    def encode(self, y_true: Any, y_pred: Any) -> tuple[Any, Any] | None:
        """A checked row as the buffer holds it, or ``None`` when it is not of the fast kind (a
        string label of the hinge loss, a bool): the buffer holds float64 pairs only, so such a
        row is applied at once as a one-row batch, after the buffered rows."""
        try:
            return (y_true, y_pred) if self.fast_test()(y_true, y_pred) else None
        except (TypeError, ValueError, OverflowError):
            return None

    def admit(self, labels: tuple[Any, ...]) -> list[Any]:
        return []

    def commit(self, new: list[Any]) -> None:
        pass

    def decode(self, flat: Any) -> tuple[np.ndarray, np.ndarray]:
        both = floats_of(flat).reshape(-1, 2)
        return both[:, 0].copy(), both[:, 1].copy()
