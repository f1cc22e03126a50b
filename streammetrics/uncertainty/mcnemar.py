"""McNemar's test for two classifiers on the same rows, as a streaming, mergeable accumulator."""

from __future__ import annotations

import math
from typing import Any, ClassVar

import numpy as np

from .._core import validation as v
from .._core.inputs import TRUTH_AND_TWO_PREDICTIONS
from .._core.metric import Metric
from .._core.onerow import FLUSH_EVERY, OneRowMixin, RowBuffer
from .._core.schema import Array, Int, Schema, exact_total
from .._core.state import State
from ..errors import InputError, StateError
from ._stats import BINOMIAL_LIMIT, binom_two_sided_half, chi2_1_sf
from .results import McNemarResult
from .rows import PairedRows

#: Below this many discordant pairs (b + c) the automatic choice is the exact binomial test.
EXACT_BELOW = 25


class PairedCorrectness(State):
    """Counts of (A right?, B right?) over rows: ``[both right, A only, B only, both wrong]``.

    Int64 counts; float64 weighted sums once a weighted batch is seen. Exactly revertible.

    Examples:
        >>> s = PairedCorrectness()
        >>> s.add(np.array([True, True, False]), np.array([True, False, True]), None)
        >>> s.counts.tolist()
        [1, 1, 1, 0]
    """

    revertible = True
    overflowing = ()  # (counts of weights of at most 2^255 a batch)

    def __init__(self) -> None:
        self.reset()

    def config(self) -> dict[str, Any]:
        return {}

    def reset(self) -> None:
        self._commit(counts=np.zeros(4, dtype=np.int64), _n=0)

    @property
    def n_samples(self) -> int:
        return self._n

    def add(self, a_ok: np.ndarray, b_ok: np.ndarray, weights: np.ndarray | None, sign: int = 1) -> None:
        """Add (``sign=1``) or remove (``sign=-1``) rows given who was right."""
        code = (~a_ok).astype(np.int64) * 2 + (~b_ok).astype(np.int64)
        added = np.bincount(code, weights=weights, minlength=4)
        current = self.counts.astype(np.float64) if added.dtype.kind == "f" else self.counts
        new = current + sign * added
        if new.min() < 0:
            if new.dtype.kind == "f" and new.min() > -1e-9 * max(1.0, float(np.abs(current).max())):
                new = np.maximum(new, 0.0)
            else:
                raise InputError("y_true: reverting rows that were never added (counts would go negative)")
        self._commit(counts=new, _n=self._n + sign * len(code))

    def merge(self, other: State) -> None:
        self.check_mergeable(other)
        assert isinstance(other, PairedCorrectness)
        if self.counts.dtype.kind == other.counts.dtype.kind == "i":
            counts = self.counts + other.counts
        else:
            counts = self.counts.astype(np.float64) + other.counts.astype(np.float64)
        self._commit(counts=counts, _n=self._n + other._n)

    def to_dict(self) -> dict[str, Any]:
        return {"counts": self.counts, "n_samples": self._n}

    def load_dict(self, data: dict[str, Any]) -> None:
        values = _FIELDS.read(data)
        self._commit(counts=values["counts"], _n=values["n_samples"])

    def check(self) -> None:
        _FIELDS.check(self.to_dict())
        total = exact_total(self.counts, _FIELDS.where, "counts")
        # rows of weight 0 make the counts weighted (float64): unweighted, each row counts once
        if isinstance(total, int) and total != self._n:
            raise StateError(f"{_FIELDS.where}: counts do not sum to n_samples={self._n}")
        if self._n == 0 and total:
            raise StateError(f"{_FIELDS.where}: counts without rows (n_samples=0)")


#: Counts of (both right, only A right, only B right, both wrong), int64 until weighted.
_FIELDS = Schema(
    "PairedCorrectness state", counts=Array("if", shape=(4,), non_negative=True), n_samples=Int(low=0)
)


def mcnemar_test(b: float, c: float, exact: bool | None = None, correction: bool = True) -> McNemarResult:
    """McNemar's test from the discordant counts ``b`` (A right, B wrong) and ``c`` (A wrong, B right).

    ``exact=None`` picks the exact binomial test when ``b`` and ``c`` are whole numbers and
    ``b + c < 25``, else the chi-square test (with Edwards' continuity correction when
    ``correction``). Exact: statistic ``min(b, c)``, p-value the two-sided ``Binomial(b + c,
    1/2)`` tail. Chi-square: statistic ``(|b - c| - 1)² / (b + c)``, one degree of freedom.

    Examples:
        >>> r = mcnemar_test(2, 9)
        >>> r.method, r.statistic, round(r.pvalue, 6)
        ('exact binomial', 2.0, 0.06543)
        >>> round(mcnemar_test(20, 40).pvalue, 6)
        0.014171
    """
    b, c = float(b), float(c)
    whole = b == round(b) and c == round(c)
    if exact is None:
        exact = whole and b + c < EXACT_BELOW
    if exact:
        if not whole:
            raise ValueError(f"exact: the exact test needs whole counts, found b={b}, c={c}")
        n, k = round(b + c), round(min(b, c))
        return McNemarResult(float(k), binom_two_sided_half(k, n), "exact binomial", b, c)
    if b + c == 0:
        return McNemarResult(0.0, 1.0, "chi-square", b, c)
    diff = abs(b - c)
    if correction:
        diff = max(diff - 1.0, 0.0)
    stat = diff * diff / (b + c)
    return McNemarResult(stat, chi2_1_sf(stat), "chi-square corrected" if correction else "chi-square", b, c)


class McNemar(OneRowMixin, Metric[PairedCorrectness]):
    """McNemar's test of two classifiers evaluated on the same rows (paired), streaming.

    ``update(y_true, pred_a, pred_b, sample_weight=None)`` with 1-D labels, or with three
    scalars for one row (buffered: one append per row, see :mod:`streammetrics._core.onerow`). ``compute()``
    returns a :class:`~streammetrics.uncertainty.McNemarResult` (``statistic``, ``pvalue``,
    ``method``, discordant counts ``b``: A right and B wrong, ``c``: A wrong and B right) under
    the null that both classifiers have the same error rate. ``exact=None`` (default) uses the
    exact binomial test when ``b + c < 25`` (whole counts), else the chi-square test with
    continuity correction (``correction=True``); ``exact=True``/``False`` forces the choice
    (non-integer weighted counts, and more than 2^32 discordant pairs, always use the chi-square
    test; ``method`` says which ran).
    Counts merge exactly across shards and can be reverted.

    Args:
        exact: ``None`` (default): the exact binomial test when ``b + c < 25`` (whole counts), else the
            chi-square test; ``True`` or ``False`` forces the choice.
        correction: Whether the chi-square test uses the continuity correction; default ``True``.

    Examples:
        >>> import streammetrics as sm
        >>> y = [0, 1, 1, 0, 1, 0, 1, 1]
        >>> r = sm.McNemar().update(y, [0, 1, 1, 0, 1, 0, 1, 0], [1, 0, 1, 1, 1, 1, 0, 0]).compute()
        >>> r.b, r.c, r.method, r.pvalue
        (5.0, 0.0, 'exact binomial', 0.0625)
    """

    higher_is_better: ClassVar[bool | None] = None
    roles: ClassVar[tuple[str, ...]] = ("y_true", "pred_a", "pred_b")
    convention: ClassVar[str | None] = TRUTH_AND_TWO_PREDICTIONS

    def __init__(self, *, exact: bool | None = None, correction: bool = True) -> None:
        if exact not in (None, True, False):
            raise ValueError(f"exact: expected None, True or False, found {exact!r}")
        if correction not in (True, False):
            raise ValueError(f"correction: expected True or False, found {correction!r}")
        self.exact, self.correction = exact, bool(correction)
        super().__init__()

    def get_config(self) -> dict[str, Any]:
        return {"exact": self.exact, "correction": self.correction}

    def _make_state(self) -> PairedCorrectness:
        return PairedCorrectness()

    def update(self, y_true: Any, pred_a: Any, pred_b: Any, sample_weight: Any = None) -> McNemar:
        """Add rows: 1-D labels, or three scalars for one row; returns ``self``."""
        return super().update(y_true, pred_a, pred_b, sample_weight=sample_weight)

    def _row_checker(self, state: PairedCorrectness) -> PairedRows:
        return PairedRows()

    def hot_path(self) -> Any:
        """The per-row function ``(y_true, pred_a, pred_b, sample_weight=None) -> self``, also
        installed as the instance's ``update`` and ``update_one`` (rows are three labels)."""
        installed = self.__dict__.get("update_one")
        if installed is not None:
            return installed
        with self._lock:
            buffer = RowBuffer(self)
            fn = buffer.checker.row_function(
                buffer, FLUSH_EVERY, buffer.flush, type(self).update.__get__(self), self
            )
            self.__dict__.update(_buffers=[buffer], update_one=fn, update=fn)
        return fn

    def update_one(self, y_true: Any, pred_a: Any, pred_b: Any, w: Any = None) -> McNemar:  # type: ignore[override]
        """Add one row of three labels (same rules as a one-row batch); returns ``self``."""
        return self.hot_path()(y_true, pred_a, pred_b, w)

    def _validate(self, y_true: Any, pred_a: Any, pred_b: Any, sample_weight: Any = None) -> Any:
        yt = v.as_labels(y_true, "y_true")
        pa, pb = v.as_labels(pred_a, "pred_a"), v.as_labels(pred_b, "pred_b")
        v.check_length(pa, len(yt), "pred_a")
        v.check_length(pb, len(yt), "pred_b")
        for name, arr in (("pred_a", pa), ("pred_b", pb)):
            if len(yt) and (arr.dtype.kind == "U") != (yt.dtype.kind == "U"):
                raise InputError(
                    f"{name}: expected labels of the kind of y_true ({_kind(yt)}), found {_kind(arr)} labels"
                )
        weights = v.as_weights(sample_weight, len(yt))
        return pa == yt, pb == yt, weights

    def _apply(self, state: PairedCorrectness, batch: Any) -> None:
        state.add(*batch)

    def _unapply(self, state: PairedCorrectness, batch: Any) -> None:
        state.add(*batch, sign=-1)

    def _is_empty(self, state: PairedCorrectness) -> bool:
        return float(state.counts.sum()) == 0.0

    def _empty_value(self) -> McNemarResult:
        return McNemarResult(math.nan, math.nan, "", math.nan, math.nan)

    def _compute(self, state: PairedCorrectness) -> McNemarResult:
        b, c = float(state.counts[1]), float(state.counts[2])
        exact = self.exact
        if exact and (b != round(b) or c != round(c) or b + c > BINOMIAL_LIMIT):
            # non-integer weighted counts: the exact test is undefined; beyond 2^32 discordant
            # pairs (whole weights of 1e20), its tail is out of reach, and the continuity-corrected
            # chi-square's p-value differs from it by less than 0.1 / (b + c) (measured)
            exact = False
        return mcnemar_test(b, c, exact=exact, correction=self.correction)


def _kind(arr: np.ndarray) -> str:
    return "string" if arr.dtype.kind == "U" else "integer"
