"""Fleiss' kappa: the state of per-subject category counts, its formula and the metric.

One row is one subject: how many raters put it in each category (``mode="counts"``, an
``(n_subjects, n_categories)`` array), or each rater's scores over the categories
(``mode="probs"``, ``(n_subjects, n_categories, n_raters)``, each rater's arg-max is its
rating, as torchmetrics). Fleiss' kappa needs only mergeable sums over the subjects:

* ``subjects = sum_i w_i`` and ``agreement = sum_i w_i P_i`` with
  ``P_i = (sum_j n_ij^2 - n_i) / (n_i (n_i - 1))`` (the share of agreeing rater pairs);
* ``totals_j = sum_i w_i n_ij`` (how often each category was chosen).

``kappa = (P - P_e) / (1 - P_e)`` with ``P = agreement / subjects`` and
``P_e = sum_j (totals_j / sum totals)^2``. Every subject needs at least two ratings; the
number of raters may differ between subjects (each ``P_i`` uses its own ``n_i``; with a
constant number of raters this is Fleiss' 1971 kappa exactly).

Examples:
    >>> fleiss_kappa([[3, 0], [0, 3], [2, 1]])  # P = (1 + 1 + 1/3) / 3, P_e = (5/9)^2 + (4/9)^2
    0.55
"""

from __future__ import annotations

import warnings
from typing import Any, ClassVar

import numpy as np

from .._core import validation as v
from .._core.inputs import Inputs
from .._core.metric import Metric
from .._core.params import check_option
from .._core.schema import Array, Int, Number, Schema
from .._core.state import State
from ..errors import InputError, MergeError, StateError, UndefinedMetricWarning

#: ``update(ratings, sample_weight=None)``: one row of category counts (or rater scores) per subject.
RATINGS = "per-subject ratings"
MODES = ("counts", "probs")

_FIELDS = Schema(
    "FleissState state",
    n_categories=Int(low=0),
    totals=Array("f", dtype="float64", shape=("n_categories",), non_negative=True),
    agreement=Number(low=0.0),
    subjects=Number(low=0.0),
    n_samples=Int(low=0),
)


class FleissState(State):
    """Mergeable sums of per-subject category counts (see the module docstring); exactly revertible
    up to rounding (float sums)."""

    revertible = True

    def __init__(self) -> None:
        self.reset()

    def config(self) -> dict[str, Any]:
        return {}

    def reset(self) -> None:
        self._commit(n_categories=0, totals=np.zeros(0), agreement=0.0, subjects=0.0, _n=0)

    @property
    def n_samples(self) -> int:
        return self._n

    def add(self, counts: np.ndarray, weights: np.ndarray | None, sign: int = 1) -> None:
        """Add (``sign=1``) or take out (``-1``) validated ``(n, K)`` counts of ``n`` subjects."""
        n, k = counts.shape
        if not n:
            return
        if self.n_categories and k != self.n_categories:
            raise InputError(f"ratings: expected {self.n_categories} categories (columns), found {k}")
        w = np.ones(n) if weights is None else weights
        raters = counts.sum(axis=1)
        p_i = (np.einsum("ij,ij->i", counts, counts) - raters) / (raters * (raters - 1.0))
        totals = (self.totals if self.n_categories else np.zeros(k)) + sign * (w @ counts)
        agreement = self.agreement + sign * float(w @ p_i)
        subjects = self.subjects + sign * float(w.sum())
        if sign < 0:
            if (
                self._n < n
                or subjects < -1e-9 * max(self.subjects, 1.0)
                or totals.min() < -1e-9 * max(self.totals.max(), 1.0)
            ):
                raise InputError("ratings: reverting subjects that were never added")
            totals, agreement, subjects = np.maximum(totals, 0.0), max(agreement, 0.0), max(subjects, 0.0)
        rows = self._n + sign * n
        if rows == 0:
            self.reset()
            return
        self._commit(n_categories=k, totals=totals, agreement=agreement, subjects=subjects, _n=rows)

    def merge(self, other: State) -> None:
        self.check_mergeable(other)
        assert isinstance(other, FleissState)
        if not other._n:
            return
        if self._n and self.n_categories != other.n_categories:
            raise MergeError(
                f"cannot merge Fleiss counts over {other.n_categories} categories into counts over "
                f"{self.n_categories}"
            )
        mine = self.totals if self._n else np.zeros(other.n_categories)
        self._commit(
            n_categories=other.n_categories,
            totals=mine + other.totals,
            agreement=self.agreement + other.agreement,
            subjects=self.subjects + other.subjects,
            _n=self._n + other._n,
        )

    def scale(self, factor: float) -> None:
        self._commit(
            totals=self.totals * factor, agreement=self.agreement * factor, subjects=self.subjects * factor
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "n_categories": self.n_categories,
            "totals": self.totals.copy(),
            "agreement": self.agreement,
            "subjects": self.subjects,
            "n_samples": self._n,
        }

    def load_dict(self, data: dict[str, Any]) -> None:
        values = _FIELDS.read(data)
        self._commit(
            n_categories=values["n_categories"],
            totals=values["totals"],
            agreement=values["agreement"],
            subjects=values["subjects"],
            _n=values["n_samples"],
        )

    def check(self) -> None:
        where = _FIELDS.where
        _FIELDS.check(self.to_dict())
        if self.agreement > self.subjects * (1 + 1e-9) + 1e-12:
            raise StateError(
                f"{where}: agreement {self.agreement} exceeds the subjects' weight {self.subjects}"
            )
        if (self._n == 0) != (self.n_categories == 0):
            raise StateError(f"{where}: n_categories must be 0 exactly when no subject was seen")


def kappa(state: FleissState) -> float:
    """Fleiss' kappa of a state (NaN where undefined: no weight, or every rating in one category)."""
    total = float(state.totals.sum())
    if state.subjects <= 0 or total <= 0:
        return float("nan")
    p_bar = state.agreement / state.subjects
    p_e = float(np.sum((state.totals / total) ** 2))
    if p_e >= 1.0:
        return float("nan")
    return (p_bar - p_e) / (1.0 - p_e)


def _counts(ratings: Any, mode: str, name: str = "ratings") -> np.ndarray:
    """Validated ``(n, K)`` float64 category counts from either input mode."""
    if mode == "probs":
        scores = v.as_float(v.to_array(ratings, name), name, (3,))
        n, k, r = scores.shape
        if n and r < 2:
            raise InputError(f"{name}: expected at least 2 raters (the last axis), found {r}")
        if n and k < 1:
            raise InputError(f"{name}: expected at least one category (the middle axis), found {k}")
        chosen = scores.argmax(axis=1)  # (n, r): each rater's category, first on ties
        counts = np.zeros((n, k))
        np.add.at(counts, (np.repeat(np.arange(n), r), chosen.ravel()), 1.0)
        return counts
    arr = v.to_array(ratings, name)
    v.check_ndim(arr, name, (2,))
    if arr.dtype.kind == "b":
        arr = arr.astype(np.int64)
    if arr.dtype.kind not in "iuf":
        raise InputError(f"{name}: expected numeric category counts, found dtype {arr.dtype}")
    counts = arr.astype(np.float64)
    v.check_finite(counts, name)
    if counts.size and (counts.min() < 0 or not np.array_equal(counts, np.round(counts))):
        bad = counts[(counts < 0) | (counts != np.round(counts))][0]
        raise InputError(f"{name}: expected non-negative whole-number counts, found {bad}")
    if counts.size and counts.max() > 2.0**52:
        raise InputError(f"{name}: expected counts below 2**52, found {counts.max()}")
    if len(counts) and counts.shape[1] < 1:
        raise InputError(f"{name}: expected at least one category (column), found {counts.shape[1]}")
    if len(counts):
        raters = counts.sum(axis=1)
        if raters.min() < 2:
            raise InputError(
                f"{name}: expected at least 2 ratings per subject (row), found {raters.min():g} "
                f"in row {int(np.argmin(raters))}"
            )
    return counts


def fleiss_kappa(ratings: Any, mode: str = "counts", sample_weight: Any = None) -> float:
    """Fleiss' kappa of in-memory ratings (see the module docstring).

    Examples:
        >>> two_to_one = [[0.9, 0.8, 0.2], [0.1, 0.2, 0.8]]  # 2 categories x 3 raters: counts [2, 1]
        >>> all_second = [[0.1, 0.3, 0.2], [0.9, 0.7, 0.8]]  # counts [0, 3]
        >>> round(fleiss_kappa([two_to_one, two_to_one, all_second], mode="probs"), 6)
        0.1
    """
    m = FleissKappa(mode=mode).update(ratings, sample_weight=sample_weight)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        return float(m.compute())


class FleissKappa(Metric[FleissState]):
    """Fleiss' kappa: agreement among several raters on nominal categories, beyond chance.

    ``update(ratings, sample_weight=None)``: one row per subject. ``mode="counts"`` (default):
    ``ratings`` is ``(n_subjects, n_categories)``, the number of raters who chose each category;
    ``mode="probs"``: ``(n_subjects, n_categories, n_raters)`` scores, each rater's arg-max is its
    choice (torchmetrics ``FleissKappa(mode=...)``). ``sample_weight`` weighs subjects.

    ``kappa = (P - P_e) / (1 - P_e)``: ``P`` the mean share of agreeing rater pairs per subject,
    ``P_e`` the same share expected by chance from the category frequencies. The value is
    Fleiss' kappa exactly; torchmetrics adds ``1e-5`` to the denominator, so it differs by about
    ``1e-5`` relative, and it gives 0.0 where every rating is in one category (``P_e = 1``),
    where this gives NaN with a warning. Subjects may have different numbers of raters (each
    subject's agreement uses its own count; torchmetrics uses the largest count for all).

    Args:
        mode: ``"counts"`` (default) or ``"probs"``.

    Examples:
        >>> import streammetrics as sm
        >>> k = sm.FleissKappa().update([[3, 0], [0, 3]]).update([[2, 1]])
        >>> round(k.compute(), 6)
        0.55
    """

    higher_is_better: ClassVar[bool | None] = True
    roles: ClassVar[tuple[str, ...]] = ("ratings",)
    convention: ClassVar[str | None] = RATINGS

    def __init__(self, mode: str = "counts") -> None:
        self.mode = check_option("mode", mode, MODES)
        super().__init__()

    def get_config(self) -> dict[str, Any]:
        return {"mode": self.mode}

    def _make_state(self) -> FleissState:
        return FleissState()

    def _validate(self, ratings: Any, sample_weight: Any = None) -> tuple[np.ndarray, Any]:
        return self._parse(Inputs((ratings,), sample_weight))

    def _parse(self, inputs: Inputs) -> tuple[np.ndarray, Any]:
        counts = inputs.derived((0, "fleiss", self.mode), lambda: _counts(inputs.args[0], self.mode))
        weights = inputs.weights(len(counts))  # a weight of 0 adds nothing: the subject is left out
        return counts, weights

    def _apply(self, state: FleissState, batch: tuple[np.ndarray, Any]) -> None:
        state.add(*batch)

    def _unapply(self, state: FleissState, batch: Any) -> None:
        if batch is None:
            super()._unapply(state, batch)
        state.add(*batch, sign=-1)

    def _share_key(self) -> Any:
        return ("fleiss", self._state.share_key(), self.mode)

    def _is_empty(self, state: FleissState) -> bool:
        return state.subjects <= 0

    def _compute(self, state: FleissState) -> float:
        value = kappa(state)
        if np.isnan(value):
            warnings.warn(
                "FleissKappa is undefined when every rating is in one category; returning NaN",
                UndefinedMetricWarning,
                stacklevel=4,
            )
        return value
