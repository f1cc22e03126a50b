"""Log loss, Brier score (with Murphy's decomposition), calibration error, expected cost."""

from __future__ import annotations

from typing import Any, ClassVar, NamedTuple

import numpy as np

from .._core import validation as v
from .._core.inputs import TRUTH_AND_PREDICTION, Inputs
from .._core.metric import Metric
from .._core.onerow import OneRowMixin
from .._core.params import check_number, check_option, plain
from ..errors import InputError
from ..ranking.keys import probability_keys
from ..ranking.rows import ScoreRows
from .rows import DecisionRows
from .states import KeyedSums, SumTable

INPUTS = ("probability", "score")


def _sigmoid(x: np.ndarray) -> np.ndarray:
    return np.where(x >= 0, 1.0 / (1.0 + np.exp(-np.abs(x))), np.exp(-np.abs(x)) / (1.0 + np.exp(-np.abs(x))))


def _softmax(x: np.ndarray) -> np.ndarray:
    z = np.exp(x - x.max(axis=1, keepdims=True))
    return z / z.sum(axis=1, keepdims=True)


class _ProbabilityMetric(OneRowMixin, Metric[Any]):
    """Shared input handling: ``update(y_true, y_proba, sample_weight=None)``.

    Binary: 1-D ``y_true`` (``pos_label`` positive, one other label negative) and 1-D
    probabilities of the positive class. Multiclass: 1-D ``y_true`` with labels in ``labels``
    (or ints ``0..K-1``) and a 2-D ``(n, K)`` array of class probabilities whose rows sum to 1.
    ``input="score"`` takes logits instead (sigmoid for 1-D, softmax for 2-D).
    """

    roles: ClassVar[tuple[str, ...]] = ("y_true", "y_proba")
    convention: ClassVar[str | None] = TRUTH_AND_PREDICTION
    prediction: ClassVar[str | None] = "scores"

    def __init__(self, *, input: str = "probability", pos_label: Any = 1, labels: Any = None) -> None:
        self.input = check_option("input", input, INPUTS)
        self.pos_label = plain(pos_label)
        self.labels = None if labels is None else plain(list(labels))
        if self.labels is not None and len(set(map(repr, self.labels))) != len(self.labels):
            raise ValueError(f"labels: expected distinct labels, found {self.labels!r}")
        super().__init__()

    def _base_config(self) -> dict[str, Any]:
        return {"input": self.input, "pos_label": self.pos_label, "labels": self.labels}

    def get_config(self) -> dict[str, Any]:
        return self._base_config()

    def _validate(self, y_true: Any, y_proba: Any, sample_weight: Any = None) -> tuple[Any, ...]:
        return self._parse(Inputs((y_true, y_proba), sample_weight))

    def _row_checker(self, state: Any) -> Any:
        return ScoreRows(self, state)

    def _probabilities(self, inputs: Inputs) -> tuple[Any, ...]:
        """(one-hot truth (n, K) float, probabilities (n, K), weights or None, n, binary?).

        Kept per batch under the options that decide it, so the members of a collection with
        the same ``input``, ``pos_label`` and ``labels`` derive them once.
        """
        labels = None if self.labels is None else tuple(map(repr, self.labels))
        key = ("probabilities", self.input, repr(self.pos_label), labels)
        onehot, p, n, binary = inputs.derived(key, lambda: self._derive_probabilities(inputs))
        return onehot, p, inputs.weights(n), n, binary

    def _derive_probabilities(self, inputs: Inputs) -> tuple[Any, ...]:
        yt = inputs.labels(0, "y_true")
        if self.input == "probability":
            p = inputs.probabilities(1, "y_proba")
        else:
            p = inputs.floats(1, "y_proba")
        v.check_length(p, len(yt), "y_proba")
        if p.ndim == 1:
            if self.input == "score":
                p = _sigmoid(p)
            positive = self._positive(yt)
            n = len(yt)
            onehot, both = np.empty((n, 2)), np.empty((n, 2))  # columns: negative, positive
            onehot[:, 1] = positive
            np.subtract(1.0, onehot[:, 1], out=onehot[:, 0])
            both[:, 1] = p
            np.subtract(1.0, p, out=both[:, 0])
            return onehot, both, n, True
        k = p.shape[1]
        if self.input == "score":
            p = _softmax(p)
        elif len(p):
            sums = inputs.derived((1, "row sums"), lambda: p.sum(axis=1))
            if not np.allclose(sums, 1.0):
                bad = sums[~np.isclose(sums, 1.0)][0]
                raise InputError(
                    f"y_proba: expected probability rows summing to 1, found a row summing to {bad}"
                )
        idx = _class_index(yt, k, self.labels)
        onehot = np.zeros((len(yt), k))
        onehot[np.arange(len(yt)), idx] = 1.0
        return onehot, p, len(yt), False

    def _positive(self, yt: np.ndarray) -> np.ndarray:
        if yt.dtype.kind == "U" and not isinstance(self.pos_label, str):
            raise InputError(
                f"y_true: expected labels comparable to pos_label={self.pos_label!r}, found strings"
            )
        positive = yt == self.pos_label
        negatives = yt[~positive]
        if negatives.size and (
            negatives.min() != negatives.max()
            if negatives.dtype.kind != "U"
            else np.unique(negatives).size > 1
        ):
            raise InputError(
                f"y_true: expected binary labels (pos_label={self.pos_label!r} and one other), found "
                f"{np.unique(yt)[:6].tolist()}; pass 2-D y_proba for multiclass"
            )
        return positive


def _class_index(yt: np.ndarray, k: int, labels: list[Any] | None) -> np.ndarray:
    if labels is not None:
        if len(labels) != k:
            raise InputError(f"y_proba: expected {len(labels)} columns (one per label), found {k}")
        lab = np.asarray(labels)
        order = np.argsort(lab, kind="stable")
        idx = (
            order[np.minimum(np.searchsorted(lab, yt, sorter=order), k - 1)] if len(yt) else np.zeros(0, int)
        )
        bad = lab[idx] != yt
        if bad.any():
            raise InputError(f"y_true: expected labels in {labels}, found {yt[bad][:5].tolist()}")
        return idx
    if yt.dtype.kind != "i":
        raise InputError(
            "y_true: expected integer classes 0..K-1 for 2-D probabilities, found strings; pass labels="
        )
    if yt.size and (yt.min() < 0 or yt.max() >= k):
        bad = yt[(yt < 0) | (yt >= k)][0]
        raise InputError(f"y_true: expected classes in 0..{k - 1} (one per column), found {bad}")
    return yt


def _wsum(values: np.ndarray, w: np.ndarray | None) -> float:
    return float(values.sum() if w is None else np.dot(w, values))


class LogLoss(_ProbabilityMetric):
    """Mean negative log-likelihood of the true class, as :func:`sklearn.metrics.log_loss`.

    Probabilities are clipped to ``[eps, 1 - eps]`` with ``eps`` the float64 machine epsilon,
    as scikit-learn does. With ``input="score"`` the log-likelihood is computed stably from
    the logits (no clipping).

    Args:
        input: ``"probability"`` (default; ``y_proba`` in [0, 1], multiclass rows summing to 1) or ``"score"``
            (logits: a sigmoid is applied to 1-D input, a softmax to 2-D).
        pos_label: The positive class of binary ``y_true``, whose probability a 1-D ``y_proba`` gives (every
            other label is the negative one); default 1.
        labels: The classes of the columns of a 2-D ``y_proba``, in column order; ``None`` (default): ints
            ``0..K-1``.

    Examples:
        >>> import streammetrics as sm
        >>> round(sm.LogLoss().update([0, 1, 1], [0.1, 0.8, 0.6]).compute(), 6)
        0.279777
    """

    higher_is_better: ClassVar[bool | None] = False

    def _make_state(self) -> SumTable:
        return SumTable((2,))

    def _parse(self, inputs: Inputs) -> tuple[Any, ...]:
        onehot, p, w, n, binary = self._probabilities(inputs)
        if self.input == "score":
            raw = inputs.floats(1, "y_proba")
            if binary:
                z = np.where(onehot[:, 1] > 0, raw, -raw)
                loss = np.logaddexp(0.0, -z)
            else:
                m = raw.max(axis=1, keepdims=True)
                lse = (m + np.log(np.exp(raw - m).sum(axis=1, keepdims=True)))[:, 0]
                loss = lse - (raw * onehot).sum(axis=1)
        else:
            eps = np.finfo(np.float64).eps
            q = np.clip(p, eps, 1 - eps)
            loss = -(onehot * np.log(q)).sum(axis=1)
        total = np.array([_wsum(loss, w), float(n if w is None else w.sum())])
        return total, n

    def _apply(self, state: SumTable, batch: tuple[Any, ...]) -> None:
        state.add(*batch)

    def _is_empty(self, state: SumTable) -> bool:
        return state.table[1] == 0

    def _compute(self, state: SumTable) -> float:
        return float(state.table[0] / state.table[1])


class BrierDecomposition(NamedTuple):
    """Murphy's decomposition on the configured bins (Stephenson et al. 2008 form).

    ``brier = reliability - resolution + uncertainty + within_bin_variance - within_bin_covariance``
    holds exactly; the last two terms vanish when every forecast in a bin is equal.
    """

    brier: float
    reliability: float
    resolution: float
    uncertainty: float
    within_bin_variance: float
    within_bin_covariance: float


class BrierScore(_ProbabilityMetric):
    """Mean squared error of probabilities, as :func:`sklearn.metrics.brier_score_loss`.

    Binary: mean of ``(p - y)**2``; multiclass (K >= 3): mean of ``sum_k (p_k - y_k)**2``
    (scikit-learn's ``scale_by_half="auto"``). :meth:`decomposition` (binary) gives the
    reliability / resolution / uncertainty terms on ``n_bins`` uniform forecast bins.

    Args:
        n_bins: Equal-width forecast bins of ``decomposition()`` (binary input), an int >= 1; default 10. The
            score itself does not depend on it.
        input: ``"probability"`` (default; ``y_proba`` in [0, 1], multiclass rows summing to 1) or ``"score"``
            (logits: a sigmoid is applied to 1-D input, a softmax to 2-D).
        pos_label: The positive class of binary ``y_true``, whose probability a 1-D ``y_proba`` gives (every
            other label is the negative one); default 1.
        labels: The classes of the columns of a 2-D ``y_proba``, in column order; ``None`` (default): ints
            ``0..K-1``.

    Examples:
        >>> import streammetrics as sm
        >>> m = sm.BrierScore().update([0, 1, 1, 0], [0.1, 0.9, 0.8, 0.3])
        >>> round(m.compute(), 4)
        0.0375
        >>> d = m.decomposition()
        >>> round(d.reliability - d.resolution + d.uncertainty + d.within_bin_variance - d.within_bin_covariance, 4)
        0.0375
    """

    higher_is_better: ClassVar[bool | None] = False

    def __init__(
        self,
        *,
        n_bins: int = 10,
        input: str = "probability",
        pos_label: Any = 1,
        labels: Any = None,
    ) -> None:
        self.n_bins = check_number("n_bins", n_bins, low=1, integer=True)
        super().__init__(input=input, pos_label=pos_label, labels=labels)

    def get_config(self) -> dict[str, Any]:
        return {**self._base_config(), "n_bins": self.n_bins}

    def _make_state(self) -> SumTable:
        # row 0: [loss sum, weight, 0, 0, 0]; rows 1..B: per forecast bin [w, w f, w o, w f^2, w f o]
        return SumTable((self.n_bins + 1, 5))

    def _parse(self, inputs: Inputs) -> tuple[Any, ...]:
        onehot, p, w, n, binary = self._probabilities(inputs)
        sq = ((p - onehot) ** 2).sum(axis=1)
        if binary or p.shape[1] < 3:
            sq = sq / 2
        table = np.zeros((self.n_bins + 1, 5))
        table[0, 0], table[0, 1] = _wsum(sq, w), float(n if w is None else w.sum())
        if binary and n:
            f, o = p[:, 1], onehot[:, 1]
            b = np.minimum((f * self.n_bins).astype(np.int64), self.n_bins - 1)
            ww = np.ones(n) if w is None else w
            for j, val in enumerate((ww, ww * f, ww * o, ww * f * f, ww * f * o)):
                table[1:, j] = np.bincount(b, weights=val, minlength=self.n_bins)
        return table, n

    def _apply(self, state: SumTable, batch: tuple[Any, ...]) -> None:
        state.add(*batch)

    def _is_empty(self, state: SumTable) -> bool:
        return state.table[0, 1] == 0

    def _compute(self, state: SumTable) -> float:
        return float(state.table[0, 0] / state.table[0, 1])

    def decomposition(self) -> BrierDecomposition:
        """Reliability, resolution, uncertainty (and within-bin terms) of binary forecasts."""
        t = self._state.table[1:].astype(np.float64)
        total = t[:, 0].sum()
        if total == 0:
            nan = float("nan")
            return BrierDecomposition(nan, nan, nan, nan, nan, nan)
        nb = t[:, 0]
        ok = nb > 0
        fbar = np.divide(t[:, 1], nb, out=np.zeros_like(nb), where=ok)
        obar = np.divide(t[:, 2], nb, out=np.zeros_like(nb), where=ok)
        o_all = t[:, 2].sum() / total
        rel = float(np.sum(nb * (fbar - obar) ** 2) / total)
        res = float(np.sum(nb * (obar - o_all) ** 2) / total)
        unc = float(o_all * (1 - o_all))
        wbv = float(np.sum(t[:, 3] - nb * fbar**2) / total)
        wbc = float(2 * np.sum(t[:, 4] - nb * fbar * obar) / total)
        brier = float(np.sum(t[:, 3] - 2 * t[:, 4] + t[:, 2]) / total)
        return BrierDecomposition(brier, rel, res, unc, wbv, wbc)


class ReliabilityCurve(NamedTuple):
    """Per non-empty bin: observed frequency, mean forecast, total weight; and the bin edges."""

    prob_true: np.ndarray
    prob_pred: np.ndarray
    weights: np.ndarray
    edges: np.ndarray


class CalibrationError(_ProbabilityMetric):
    """Expected (``norm="l1"``), root-mean-square (``"l2"``) or maximum (``"max"``) calibration error.

    Binary input bins the positive-class probability against the positive rate (as
    :func:`sklearn.calibration.calibration_curve`); multiclass input bins the top-label
    confidence against accuracy. ``strategy="uniform"`` uses ``n_bins`` equal-width bins on
    [0, 1] (exact, the same edges as scikit-learn); ``strategy="quantile"`` equal-mass bins,
    whose edges are taken at the boundaries of a fine probability sketch (about
    ``2**-resolution`` wide in logit), so they are equal-mass up to one fine bin.
    :meth:`curve` gives the reliability-diagram data.

    Args:
        n_bins: Number of bins, an int >= 1; default 15.
        norm: ``"l1"`` (default; the expected calibration error), ``"l2"`` (root mean square gap) or ``"max"``
            (the largest gap).
        strategy: ``"uniform"`` (default; equal-width bins on [0, 1], the edges scikit-learn uses) or
            ``"quantile"`` (equal-mass bins, equal up to one fine sketch bin).
        resolution: Width of the fine sketch behind ``"quantile"`` bins, about ``2**-resolution`` in logit: an
            int from 0 to 52, default 12.
        input: ``"probability"`` (default; ``y_proba`` in [0, 1], multiclass rows summing to 1) or ``"score"``
            (logits: a sigmoid is applied to 1-D input, a softmax to 2-D).
        pos_label: The positive class of binary ``y_true``, whose probability a 1-D ``y_proba`` gives (every
            other label is the negative one); default 1.
        labels: The classes of the columns of a 2-D ``y_proba``, in column order; ``None`` (default): ints
            ``0..K-1``.

    Examples:
        >>> import streammetrics as sm
        >>> m = sm.CalibrationError(n_bins=2).update([0, 1, 1, 0], [0.2, 0.9, 0.7, 0.4])
        >>> round(m.compute(), 4)
        0.3
    """

    higher_is_better: ClassVar[bool | None] = False

    def __init__(
        self,
        *,
        n_bins: int = 15,
        norm: str = "l1",
        strategy: str = "uniform",
        resolution: int = 12,
        input: str = "probability",
        pos_label: Any = 1,
        labels: Any = None,
    ) -> None:
        self.n_bins = check_number("n_bins", n_bins, low=1, integer=True)
        self.norm = check_option("norm", norm, ("l1", "l2", "max"))
        self.strategy = check_option("strategy", strategy, ("uniform", "quantile"))
        self.resolution = check_number("resolution", resolution, low=0, high=52, integer=True)
        super().__init__(input=input, pos_label=pos_label, labels=labels)

    def get_config(self) -> dict[str, Any]:
        return {
            **self._base_config(),
            "n_bins": self.n_bins,
            "norm": self.norm,
            "strategy": self.strategy,
            "resolution": self.resolution,
        }

    def _make_state(self) -> Any:
        if self.strategy == "uniform":
            return SumTable((self.n_bins, 3))
        return KeyedSums(self.resolution, 3)

    def _parse(self, inputs: Inputs) -> tuple[Any, ...]:
        onehot, p, w, n, binary = self._probabilities(inputs)
        if binary:
            conf, hit = p[:, 1], onehot[:, 1]
        else:
            top = p.argmax(axis=1)
            conf, hit = p[np.arange(n), top], onehot[np.arange(n), top]
        ww = np.ones(n) if w is None else w
        values = np.stack([ww, ww * conf, ww * hit], axis=1)
        if self.strategy == "uniform":
            edges = np.linspace(0.0, 1.0, self.n_bins + 1)
            b = np.searchsorted(edges[1:-1], conf)  # as sklearn.calibration.calibration_curve
            table = np.stack(
                [np.bincount(b, weights=values[:, j], minlength=self.n_bins) for j in range(3)], 1
            )
            return "uniform", table, n
        ids = probability_keys(conf) >> np.uint64(52 - self.resolution)
        return "quantile", ids, values, n

    def _apply(self, state: Any, batch: tuple[Any, ...]) -> None:
        if batch[0] == "uniform":
            state.add(batch[1], batch[2])
        else:
            state.add(batch[1], batch[2], batch[3])

    def _bins(self, state: Any) -> tuple[np.ndarray, np.ndarray]:
        """(per-bin sums [w, w conf, w hit], edges)."""
        if self.strategy == "uniform":
            return state.table.astype(np.float64), np.linspace(0.0, 1.0, self.n_bins + 1)
        sums = state.sums
        total = sums[:, 0].sum()
        before = np.cumsum(sums[:, 0]) - sums[:, 0]
        group = (
            np.minimum((before / total * self.n_bins).astype(np.int64), self.n_bins - 1)
            if total > 0
            else np.zeros(len(sums), np.int64)
        )
        out = np.stack([np.bincount(group, weights=sums[:, j], minlength=self.n_bins) for j in range(3)], 1)
        from ..ranking.keys import values_of

        starts = np.flatnonzero(np.r_[True, group[1:] != group[:-1]]) if len(group) else np.zeros(0, int)
        lower = values_of(state.ids[starts] << np.uint64(52 - self.resolution), "probability")
        return out, np.r_[lower, 1.0]

    def _is_empty(self, state: Any) -> bool:
        if self.strategy == "uniform":
            return state.table[:, 0].sum() == 0
        return state.sums[:, 0].sum() == 0 if len(state.sums) else True

    def _compute(self, state: Any) -> float:
        sums, _ = self._bins(state)
        nb = sums[:, 0]
        ok = nb > 0
        gap = np.abs(sums[ok, 2] / nb[ok] - sums[ok, 1] / nb[ok])
        w = nb[ok] / nb.sum()
        if self.norm == "l1":
            return float(np.sum(w * gap))
        if self.norm == "l2":
            return float(np.sqrt(np.sum(w * gap**2)))
        return float(gap.max())

    def curve(self) -> ReliabilityCurve:
        """Reliability-diagram data, as :func:`sklearn.calibration.calibration_curve` (plus weights)."""
        with self._lock:
            sums, edges = self._bins(self._state)
        ok = sums[:, 0] > 0
        return ReliabilityCurve(sums[ok, 2] / sums[ok, 0], sums[ok, 1] / sums[ok, 0], sums[ok, 0], edges)

    def plot(self, ax: Any = None, **kwargs: Any) -> Any:
        """Draw the reliability diagram with matplotlib (the ``plot`` extra); returns the figure."""
        from ..plotting import plot_calibration  # lazy: matplotlib is optional

        return plot_calibration(self, error=self.compute(), ax=ax, **kwargs)


# ---------------------------------------------------------------------- decision theory
def _cost_matrix(costs: Any) -> np.ndarray:
    c = np.asarray(costs, dtype=np.float64) if not isinstance(costs, np.ndarray) else costs.astype(np.float64)
    if c.ndim != 2 or c.shape[0] < 2 or c.shape[1] < 1 or not np.isfinite(c).all():
        raise ValueError(
            f"costs: expected a finite 2-D matrix costs[class, decision] with >= 2 classes, "
            f"found shape {c.shape}"
        )
    return c


def bayes_decisions(posteriors: Any, costs: Any) -> np.ndarray:
    """Bayes decisions ``argmin_d sum_c costs[c, d] * q_c`` for each row of posteriors ``q``.

    ``costs`` is K classes x M decisions (decisions may include e.g. a reject option).

    Examples:
        >>> costs = [[0, 10, 1000], [500, 20, 0]]   # tumour / no tumour x operate / test / home
        >>> bayes_decisions([[0.999, 0.001], [0.001, 0.999], [0.3, 0.7]], costs).tolist()
        [0, 2, 1]
    """
    c = _cost_matrix(costs)
    q = v.as_float(posteriors, "posteriors", (2,))
    if q.shape[1] != c.shape[0]:
        raise InputError(
            f"posteriors: expected {c.shape[0]} columns (one per class of costs), found {q.shape[1]}"
        )
    return np.argmin(q @ c, axis=1)


def expected_cost(counts: Any, costs: Any, priors: Any = None, normalize: bool = False) -> float:
    """Empirical expected cost ``sum_c sum_d C[c,d] P_c R_cd`` from a class x decision count table.

    ``P_c`` are the empirical class frequencies, or ``priors`` when given; ``R_cd = n_cd / n_c``.
    ``normalize=True`` divides by the cost of the best decision made without looking at the
    data, ``min_d sum_c C[c,d] P_c`` (Ferrer's normalized expected cost).

    Examples:
        >>> expected_cost([[8, 2], [1, 9]], [[0, 1], [1, 0]])
        0.15
    """
    n = np.asarray(counts, dtype=np.float64)
    c = _cost_matrix(costs)
    if n.shape != c.shape:
        raise ValueError(f"costs: expected shape {n.shape} (classes x decisions), found {c.shape}")
    n_c = n.sum(axis=1)
    if priors is None:
        p = n_c / n_c.sum()
    else:
        p = np.asarray(priors, dtype=np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        r = np.where(n_c[:, None] > 0, n / np.where(n_c > 0, n_c, 1.0)[:, None], 0.0)
    if priors is not None and np.any((p > 0) & (n_c == 0)):
        return float("nan")
    ec = float(np.sum(c * p[:, None] * r))
    if normalize:
        return ec / float(np.min(p @ c))
    return ec


class ExpectedCost(_ProbabilityMetric):
    """Empirical expected cost for a K-classes x M-decisions cost matrix (seed 002, Ferrer 2025).

    ``update(y_true, y_pred)``: ``y_pred`` holds decision indices ``0..M-1`` (1-D), or class
    posteriors ``(n, K)`` (2-D) from which the Bayes decision ``argmin_d sum_c C[c,d] q_c`` is
    taken. Classes are ``labels`` (or ints ``0..K-1``). ``priors`` replace the empirical class
    frequencies; ``normalize=True`` divides by the cost of the best data-blind decision.
    A class with a prior but no samples makes the value undefined (NaN, with a warning).

    Args:
        costs: The K x M cost matrix (required): ``costs[c][d]`` is the cost of decision ``d`` when the true
            class is ``c``.
        priors: ``None`` (default): the empirical class frequencies; else K class probabilities summing to 1
            that replace them.
        normalize: ``True`` divides by the cost of the best data-blind decision; default ``False``.
        input: How a 2-D ``y_pred`` gives posteriors: ``"probability"`` (default; rows in [0, 1] summing to 1)
            or ``"score"`` (logits, turned into posteriors by a softmax).
        pos_label: Not used: an expected cost has no positive class (kept for the options every probabilistic
            metric takes).
        labels: The classes of the rows of ``costs``, in order; ``None`` (default): ints ``0..K-1``.

    Examples:
        >>> import streammetrics as sm
        >>> costs = [[0, 1, 0.3], [5, 0, 0.3]]     # a reject option at cost 0.3
        >>> m = sm.ExpectedCost(costs).update([0, 0, 1, 1], [[0.9, 0.1], [0.6, 0.4], [0.2, 0.8], [0.7, 0.3]])
        >>> m.state.table.tolist(), round(m.compute(), 4)   # rows: classes; columns: decisions
        ([[0, 0, 2], [0, 1, 1]], 0.225)
    """

    higher_is_better: ClassVar[bool | None] = False
    roles: ClassVar[tuple[str, ...]] = ("y_true", "y_pred")
    prediction: ClassVar[str | None] = "labels"  # decision indices (or 2-D posteriors, as batches)

    def __init__(
        self,
        costs: Any,
        *,
        priors: Any = None,
        normalize: bool = False,
        input: str = "probability",
        pos_label: Any = 1,
        labels: Any = None,
    ) -> None:
        c = _cost_matrix(costs)
        self.costs = c.tolist()
        self._c = c
        if priors is not None:
            p = np.asarray(priors, dtype=np.float64)
            if (
                p.shape != (c.shape[0],)
                or not np.isfinite(p).all()
                or p.min() < 0
                or not np.isclose(p.sum(), 1.0)
            ):
                raise ValueError(
                    f"priors: expected {c.shape[0]} non-negative numbers summing to 1, found {priors!r}"
                )
            priors = p.tolist()
        self.priors = priors
        self.normalize = check_option("normalize", normalize, (False, True))
        if labels is not None and len(labels) != c.shape[0]:
            raise ValueError(f"labels: expected {c.shape[0]} labels (one per row of costs), found {labels!r}")
        super().__init__(input=input, pos_label=pos_label, labels=labels)

    def get_config(self) -> dict[str, Any]:
        return {
            "costs": self.costs,
            "priors": self.priors,
            "normalize": self.normalize,
            **self._base_config(),
        }

    def _make_state(self) -> SumTable:
        return SumTable(self._c.shape, integer=True, revertible=True)

    def _row_checker(self, state: Any) -> Any:
        return DecisionRows(self, state)  # a row is a label and a decision index, not a score

    def _validate(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> tuple[Any, ...]:
        k, m = self._c.shape
        yt = v.as_labels(y_true, "y_true")
        raw = v.to_array(y_pred, "y_pred")
        if raw.ndim == 2:
            q = v.as_float(raw, "y_pred", (2,))
            if q.shape[1] != k:
                raise InputError(
                    f"y_pred: expected {k} posterior columns (one per class of costs), found {q.shape[1]}"
                )
            if self.input == "score":
                q = _softmax(q)
            else:
                v.check_probability(q, "y_pred")
                if len(q) and not np.allclose(q.sum(axis=1), 1.0):
                    bad = q.sum(axis=1)[~np.isclose(q.sum(axis=1), 1.0)][0]
                    raise InputError(
                        f"y_pred: expected posterior rows summing to 1, found a row summing to {bad}"
                    )
            d = np.argmin(q @ self._c, axis=1)
        else:
            d = v.as_labels(raw, "y_pred")
            if d.dtype.kind != "i" or (d.size and (d.min() < 0 or d.max() >= m)):
                raise InputError(
                    f"y_pred: expected decision indices in 0..{m - 1} (columns of costs), "
                    f"found {d[(d < 0) | (d >= m)][:3].tolist() if d.dtype.kind == 'i' else d.dtype}"
                )
        v.check_length(d, len(yt), "y_pred")
        w = v.as_weights(sample_weight, len(yt))
        c = _class_index(yt, k, self.labels)
        flat = c * m + d
        if w is None:
            table = np.bincount(flat, minlength=k * m).reshape(k, m)
        else:
            table = np.bincount(flat, weights=w, minlength=k * m).reshape(k, m)
            if np.all(w == np.floor(w)):
                table = np.rint(table).astype(np.int64)
        return table, len(yt)

    def _apply(self, state: SumTable, batch: tuple[Any, ...], sign: int = 1) -> None:
        state.add(batch[0], batch[1], sign)

    def _unapply(self, state: SumTable, batch: tuple[Any, ...] | None) -> None:
        self._apply(state, batch, sign=-1)

    def _is_empty(self, state: SumTable) -> bool:
        return state.table.sum() == 0

    def _compute(self, state: SumTable) -> float:
        value = expected_cost(state.table, self._c, self.priors, self.normalize)
        if np.isnan(value):
            import warnings

            from ..errors import UndefinedMetricWarning

            warnings.warn(
                "ExpectedCost: a class with a prior has no samples; returning NaN",
                UndefinedMetricWarning,
                stacklevel=3,
            )
        return value
