"""Log loss, Brier score (with Murphy's decomposition), calibration error, expected cost."""

from __future__ import annotations

import copy
import functools
import warnings
from typing import Any, ClassVar

import numpy as np

from .._core import tensors
from .._core import validation as v
from .._core.inputs import Inputs
from .._core.params import check_number, check_option
from .._core.replicates import replicate_sums
from ..errors import InputError, UndefinedMetricWarning
from ..ranking.keys import probability_keys, values_of
from . import device
from . import formulas as f
from .base import _class_index, _ProbabilityMetric, _softmax, _wsum
from .formulas import BrierDecomposition, ReliabilityCurve, _cost_matrix, expected_cost
from .rows import DecisionRows
from .states import KeyedSums, SumTable

_EPS = float(np.finfo(np.float64).eps)  # the clip of probabilities, as scikit-learn's
#: Whole weighted counts up to this are exact in float64, and so as int64.
_EXACT_INT = 2**53
_ONE_MINUS_EPS = 1.0 - _EPS


def _clipped(p: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    """``p`` clipped to ``[eps, 1 - eps]`` as np.clip does, by two ufuncs (np.clip's wrapper costs
    several times their work on a small batch)."""
    return np.maximum(np.minimum(p, _ONE_MINUS_EPS, out=out), _EPS, out=out)


class LogLoss(_ProbabilityMetric):
    """Mean negative log-likelihood of the true class, as :func:`sklearn.metrics.log_loss`.

    Probabilities are clipped to ``[eps, 1 - eps]`` with ``eps`` the float64 machine epsilon,
    as scikit-learn does. With ``input="score"`` the log-likelihood is computed stably from
    the logits (no clipping).

    ``y_true`` may also be a 2-D 0/1 array with one column per class of a 2-D ``y_proba``, as
    scikit-learn accepts it. ``revert`` takes rows out again exactly (the state is a sum of
    per-row losses), so ``Rolling(LogLoss())`` keeps one state over the window.

    Args:
        normalize: ``True`` (default): the weighted mean loss; ``False``: the weighted sum of the per-row
            losses, as scikit-learn's ``normalize=False``.
        input: ``"probability"`` (default; ``y_proba`` in [0, 1], multiclass rows summing to 1) or ``"score"``
            (logits: a sigmoid is applied to 1-D input, a softmax to 2-D).
        pos_label: The positive class of binary ``y_true``, whose probability a 1-D ``y_proba`` gives (the one
            other label is negative). ``None`` (default): the greater of the two labels, as
            :func:`sklearn.metrics.log_loss`; the labels seen across batches, rows and merges decide, a third
            one raises :class:`~streammetrics.InputError`, and one label alone gives NaN with a warning (see
            the docs' deliberate differences).
        labels: The classes of the columns of a 2-D ``y_proba``, in column order; ``None`` (default): ints
            ``0..K-1``. With 1-D ``y_proba``, the two classes (the greater one positive, as scikit-learn), so
            one label alone in ``y_true`` is enough.

    Examples:
        >>> import streammetrics as sm
        >>> round(sm.LogLoss().update([0, 1, 1], [0.1, 0.8, 0.6]).compute(), 6)
        0.279777
    """

    higher_is_better: ClassVar[bool | None] = False
    #: 2: the table keeps the loss with the other binary label positive (``[loss, flipped, weight]``).
    version: ClassVar[int] = 2
    one_hot_truth: ClassVar[bool] = True
    labels_name_binary_classes: ClassVar[bool] = True

    def __init__(
        self,
        *,
        normalize: bool = True,
        input: str = "probability",
        pos_label: Any = None,
        labels: Any = None,
    ) -> None:
        self.normalize = check_option("normalize", normalize, (True, False))
        super().__init__(input=input, pos_label=pos_label, labels=labels)

    def get_config(self) -> dict[str, Any]:
        return {**self._base_config(), "normalize": self.normalize}

    def _make_state(self) -> SumTable:
        # a sum of per-row losses: exactly revertible (so Rolling keeps one state, no panes)
        return SumTable((3,), revertible=True, rule=self._rule(), flip="loss")

    @classmethod
    def from_state_dict(cls, data: dict[str, Any]) -> Any:
        """As :meth:`Metric.from_state_dict`; a version-1 table ``[loss, weight]`` is still read."""
        state = data.get("state") if isinstance(data, dict) and data.get("version") == 1 else None
        if isinstance(state, dict) and np.shape(state.get("table")) == (2,):
            loss, weight = state["table"]
            # version 1 had pos_label=1 fixed: the rule never swaps sides, the flipped loss is unused
            data = {
                **data,
                "version": cls.version,
                "state": {**state, "table": np.array([loss, loss, weight])},
            }
        return super().from_state_dict(data)

    def _parse(self, inputs: Inputs) -> tuple[Any, ...]:
        torch = tensors.off_host(inputs)
        if torch is not None:  # reduced on the tensors' device to the batch's table
            key = ("device log loss", self.input, self.labels is None)
            batch = inputs.derived(key, lambda: device.logloss_batch(self, inputs, torch))
            tensors.PATHS["log loss host" if batch is None else "log loss device"] += 1
            if batch is not None:
                return batch
        onehot, p, w, n, binary, present, used = self._probabilities(inputs)
        if self.input == "probability" and binary:
            # one class per row: a logarithm per row (the true class), not one per cell
            if self._settled(present):  # the other side is never needed: a log per row
                chosen = np.where(onehot[:, 1] > 0, p[:, 1], p[:, 0])
                loss = np.log(_clipped(chosen, out=chosen))
                total = np.array([-_wsum(loss, w), 0.0, float(n if w is None else w.sum())])
                return total, n, present, used
            # both sides' logarithms serve both sums: one 2 x 2 product of (weighted) truth and
            # log-probabilities, its diagonal the loss, its other diagonal the loss with the
            # other label positive
            t = onehot if w is None else onehot * w[:, None]
            m = t.T @ np.log(_clipped(p))
            total = np.array([-(m[0, 0] + m[1, 1]), -(m[0, 1] + m[1, 0]), float(n if w is None else w.sum())])
            return total, n, present, used
        loss, other = self._row_losses(inputs, onehot, p, binary)
        total = np.array([_wsum(loss, w), _wsum(other, w), float(n if w is None else w.sum())])
        return total, n, present, used

    def _row_losses(
        self, inputs: Inputs, onehot: np.ndarray, p: np.ndarray, binary: bool
    ) -> tuple[np.ndarray, np.ndarray]:
        """Each row's loss, and its loss with the other label positive (binary input; the
        loss itself otherwise)."""
        if self.input == "score":
            raw = inputs.floats(1, "y_proba")
            if binary:
                z = np.where(onehot[:, 1] > 0, raw, -raw)
                return np.logaddexp(0.0, -z), np.logaddexp(0.0, z)
            m = raw.max(axis=1, keepdims=True)
            lse = (m + np.log(np.exp(raw - m).sum(axis=1, keepdims=True)))[:, 0]
            # -sum_k y_k log softmax_k (a 2-D y_true may hold several ones per row)
            loss = lse * onehot.sum(axis=1) - (raw * onehot).sum(axis=1)
            return loss, loss
        if binary:
            logq = np.log(_clipped(p))
            positive = onehot[:, 1] > 0
            return -np.where(positive, logq[:, 1], logq[:, 0]), -np.where(positive, logq[:, 0], logq[:, 1])
        rows, idx = np.arange(len(p)), onehot.argmax(axis=1)
        if onehot.sum() == len(p) and bool((onehot[rows, idx] == 1.0).all()):
            # one class per row (each row's largest entry is 1, and they sum to one per row): a
            # clip and a logarithm per row, not per cell
            chosen = p[rows, idx]
            loss = -np.log(_clipped(chosen, out=chosen))
        else:
            loss = -(onehot * np.log(_clipped(p))).sum(axis=1)
        return loss, loss

    def _apply_reweighted(
        self, states: list[SumTable], batch: tuple[Any, ...], counts: np.ndarray, inputs: Inputs
    ) -> list[SumTable] | None:
        """Every replicate at once: the per-row losses (both sides of binary input) summed under
        each replicate's weights (:func:`~streammetrics._core.replicates.replicate_sums`). A
        replicate's own labels (those of the rows it drew) meet its positive-label rule, as its
        batches alone would; once a replicate has seen both labels they no longer matter."""
        if tensors.off_host(inputs) is not None or not states:
            return None
        onehot, p, w, n, binary, present, used = self._probabilities(inputs)
        loss, other = self._row_losses(inputs, onehot, p, binary)
        sums, totals = replicate_sums(counts, w, np.column_stack([loss, other]))
        labels = [present] * len(states)
        rule = self._rule()
        unsettled = [r for r, s in enumerate(states) if not rule.settled(s.seen)] if present else []
        if unsettled:
            yt = inputs.labels(0, "y_true")
            drawn = counts[unsettled] > 0
            if w is not None:
                drawn &= w > 0
            has = [drawn[:, yt == label].any(axis=1) for label in present]
            for j, r in enumerate(unsettled):
                labels[r] = tuple(label for label, h in zip(present, has, strict=True) if h[j])
        out = []
        for state, (lo, hi), total, drawn_labels in zip(states, sums, totals, labels, strict=True):
            state = copy.copy(state)  # add commits new fields (never in place)
            state.add(np.array([lo, hi, total]), n, labels=drawn_labels, used=used)
            out.append(state)
        return out

    def _apply(self, state: SumTable, batch: tuple[Any, ...], sign: int = 1) -> None:
        total, n, present, used = batch
        state.add(total, n, sign, labels=present, used=used)

    def _unapply(self, state: SumTable, batch: tuple[Any, ...]) -> None:
        self._apply(state, batch, sign=-1)

    def _is_empty(self, state: SumTable) -> bool:
        return state.table[2] == 0

    def _compute(self, state: SumTable) -> float:
        if self._rule().pos_label is None and len(state.seen) == 1:
            warnings.warn(
                f"LogLoss: y_true holds one label only ({state.seen[0]!r}): which class a 1-D y_proba gives "
                "is unknown until a second label arrives (scikit-learn raises); returning NaN. "
                "Pass pos_label= to fix the positive class",
                UndefinedMetricWarning,
                stacklevel=3,
            )
            return float("nan")
        return float(state.table[0] / state.table[2] if self.normalize else state.table[0])


class BrierScore(_ProbabilityMetric):
    """Mean squared error of probabilities, as :func:`sklearn.metrics.brier_score_loss`.

    Binary: mean of ``(p - y)**2``; multiclass (K >= 3): mean of ``sum_k (p_k - y_k)**2``
    (scikit-learn's ``scale_by_half="auto"``). ``y_true`` may also be a 2-D 0/1 array with one
    column per class of a 2-D ``y_proba``, as scikit-learn accepts it. :meth:`decomposition`
    (binary) gives the reliability / resolution / uncertainty terms on ``n_bins`` uniform
    forecast bins.

    Args:
        n_bins: Equal-width forecast bins of ``decomposition()`` (binary input), an int >= 1; default 10. The
            score itself does not depend on it.
        input: ``"probability"`` (default; ``y_proba`` in [0, 1], multiclass rows summing to 1) or ``"score"``
            (logits: a sigmoid is applied to 1-D input, a softmax to 2-D).
        pos_label: The positive class of binary ``y_true``, whose probability a 1-D ``y_proba`` gives (the one
            other label is negative). ``None`` (default), as :func:`sklearn.metrics.brier_score_loss`: 1 for
            labels in {0, 1} or {-1, 1}, else the greater label; strings need ``pos_label``
            (:class:`~streammetrics.InputError`). A third label raises.
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
        pos_label: Any = None,
        labels: Any = None,
    ) -> None:
        self.n_bins = check_number("n_bins", n_bins, low=1, integer=True)
        super().__init__(input=input, pos_label=pos_label, labels=labels)

    def get_config(self) -> dict[str, Any]:
        return {**self._base_config(), "n_bins": self.n_bins}

    positive_rule: ClassVar[str] = "brier"
    one_hot_truth: ClassVar[bool] = True

    def _make_state(self) -> SumTable:
        # row 0: [loss sum, weight, loss sum with the other binary label positive, 0, 0];
        # rows 1..B: per forecast bin [w, w f, w o, w f^2, w f o]
        return SumTable((self.n_bins + 1, 5), rule=self._rule(), flip="brier")

    def _parse(self, inputs: Inputs) -> tuple[Any, ...]:
        onehot, p, w, n, binary, present, used = self._probabilities(inputs)
        if binary:  # (f - o)^2 with the positive class's probability f, and with the other class's
            f, o = p[:, 1], onehot[:, 1]
            sq = np.square(f - o)
            other = None if self._settled(present) else np.square(f - (1.0 - o))
        else:
            sq = other = ((p - onehot) ** 2).sum(axis=1)
            if p.shape[1] < 3:
                sq = other = sq / 2
        table = np.zeros((self.n_bins + 1, 5))
        table[0, 0], table[0, 1] = _wsum(sq, w), float(n if w is None else w.sum())
        table[0, 2] = 0.0 if other is None else _wsum(other, w)
        if binary and n:
            f, o = p[:, 1], onehot[:, 1]
            b = np.minimum((f * self.n_bins).astype(np.int64), self.n_bins - 1)
            ww = np.ones(n) if w is None else w
            for j, val in enumerate((ww, ww * f, ww * o, ww * f * f, ww * f * o)):
                table[1:, j] = np.bincount(b, weights=val, minlength=self.n_bins)
        return table, n, present, used

    def _apply(self, state: SumTable, batch: tuple[Any, ...]) -> None:
        table, n, present, used = batch
        state.add(table, n, labels=present, used=used)

    def _is_empty(self, state: SumTable) -> bool:
        return state.table[0, 1] == 0

    def _compute(self, state: SumTable) -> float:
        return f.mean_loss(state.table[0])

    def decomposition(self) -> BrierDecomposition:
        """Reliability, resolution, uncertainty (and within-bin terms) of binary forecasts."""
        with self._lock:
            return f.brier_decomposition(self._state.table[1:])


class CalibrationError(_ProbabilityMetric):
    """Expected (``norm="l1"``), root-mean-square (``"l2"``) or maximum (``"max"``) calibration error.

    Binary input bins the positive-class probability against the positive rate (as
    :func:`sklearn.calibration.calibration_curve`); multiclass input bins the top-label
    confidence against accuracy. ``strategy="uniform"`` uses ``n_bins`` equal-width bins on
    [0, 1] (exact, the same edges as scikit-learn); ``strategy="quantile"`` equal-mass bins,
    whose edges are taken at the boundaries of a fine probability sketch (about
    ``2**-resolution`` wide in logit), so they are equal-mass up to one fine bin.
    :meth:`curve` gives the reliability-diagram data. ``y_true`` may also be a 2-D 0/1 array with one
    column per class of a 2-D ``y_proba`` (as :class:`LogLoss` and :class:`BrierScore` take it, so the
    three share one collection): a row is a hit when its top-label class is one of its true classes.

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
        pos_label: The positive class of binary ``y_true``, whose probability a 1-D ``y_proba`` gives (the one
            other label is negative). ``None`` (default), as :func:`sklearn.calibration.calibration_curve`: labels
            must lie in {0, 1} or {-1, 1} and 1 is positive, else :class:`~streammetrics.InputError` naming
            ``pos_label``. A third label raises.
        labels: The classes of the columns of a 2-D ``y_proba``, in column order; ``None`` (default): ints
            ``0..K-1``.

    Examples:
        >>> import streammetrics as sm
        >>> m = sm.CalibrationError(n_bins=2).update([0, 1, 1, 0], [0.2, 0.9, 0.7, 0.4])
        >>> round(m.compute(), 4)
        0.3
    """

    higher_is_better: ClassVar[bool | None] = False
    one_hot_truth: ClassVar[bool] = True

    def __init__(
        self,
        *,
        n_bins: int = 15,
        norm: str = "l1",
        strategy: str = "uniform",
        resolution: int = 12,
        input: str = "probability",
        pos_label: Any = None,
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

    positive_rule: ClassVar[str] = "calibration"

    def _make_state(self) -> Any:
        if self.strategy == "uniform":
            return SumTable((self.n_bins, 3), rule=self._rule())
        return KeyedSums(self.resolution, 3, rule=self._rule())

    def _parse(self, inputs: Inputs) -> tuple[Any, ...]:
        onehot, p, w, n, binary, present, used = self._probabilities(inputs)
        if binary:
            conf, hit = p[:, 1], onehot[:, 1]
        else:
            top = p.argmax(axis=1)
            conf, hit = p[np.arange(n), top], onehot[np.arange(n), top]
        if self.strategy == "uniform":
            b = np.searchsorted(_inner_edges(self.n_bins), conf)  # as sklearn.calibration.calibration_curve
            table = np.empty((self.n_bins, 3))
            for j, col in enumerate((w, conf, hit)):
                weights = col if w is None or j == 0 else w * col
                table[:, j] = np.bincount(b, weights=weights, minlength=self.n_bins)
            return "uniform", table, n, present, used
        ww = np.ones(n) if w is None else w
        values = np.stack([ww, ww * conf, ww * hit], axis=1)
        ids = probability_keys(conf) >> np.uint64(52 - self.resolution)
        return "quantile", ids, values, n, present, used

    def _apply(self, state: Any, batch: tuple[Any, ...]) -> None:
        if batch[0] == "uniform":
            state.add(batch[1], batch[2], labels=batch[3], used=batch[4])
        else:
            state.add(batch[1], batch[2], batch[3], labels=batch[4], used=batch[5])

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
        starts = np.flatnonzero(np.r_[True, group[1:] != group[:-1]]) if len(group) else np.zeros(0, int)
        lower = values_of(state.ids[starts] << np.uint64(52 - self.resolution), "probability")
        return out, np.r_[lower, 1.0]

    def _is_empty(self, state: Any) -> bool:
        if self.strategy == "uniform":
            return state.table[:, 0].sum() == 0
        return state.sums[:, 0].sum() == 0 if len(state.sums) else True

    def _compute(self, state: Any) -> float:
        return f.calibration_error(self._bins(state)[0], self.norm)

    def curve(self) -> ReliabilityCurve:
        """Reliability-diagram data, as :func:`sklearn.calibration.calibration_curve` (plus weights)."""
        with self._lock:
            sums, edges = self._bins(self._state)
        return f.reliability_curve(sums, edges)

    def plot(self, ax: Any = None, **kwargs: Any) -> Any:
        """Draw the reliability diagram with matplotlib (the ``plot`` extra); returns the figure."""
        from ..plotting import plot_calibration  # lazy: matplotlib is optional

        return plot_calibration(self, error=self.compute(), ax=ax, **kwargs)


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
            if np.all(w == np.floor(w)) and (not table.size or table.max() <= _EXACT_INT):
                table = np.rint(table).astype(np.int64)  # (whole sums that float64 holds exactly)
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
            warnings.warn(
                "ExpectedCost: a class with a prior has no samples; returning NaN",
                UndefinedMetricWarning,
                stacklevel=3,
            )
        return value


@functools.lru_cache(maxsize=64)
def _inner_edges(n_bins: int) -> np.ndarray:
    """The inner edges of ``n_bins`` equal-width bins of [0, 1] (read-only, computed once)."""
    edges = np.linspace(0.0, 1.0, n_bins + 1)[1:-1]
    edges.flags.writeable = False
    return edges
