"""Base of the ranking family: how scores enter the sketch, and the threshold tools.

``update(y_true, y_score, sample_weight=None)``: binary scores, one column per class, or
multilabel columns; each batch's scores become sketch keys once (kept in the batch's
:class:`~streammetrics._core.inputs.Inputs`), and a binary row is a label and one score
(:class:`~streammetrics.ranking.rows.ScoreRows`).
"""

from __future__ import annotations

from typing import Any, ClassVar, NamedTuple

import numpy as np

from .._core import validation as v
from .._core.inputs import TRUTH_AND_PREDICTION, Inputs
from .._core.labels import check_label_list
from .._core.metric import Metric
from .._core.onerow import OneRowMixin
from .._core.params import check_number, check_option, plain
from .._core.state import describe_difference, equal_configs
from ..errors import InputError, MergeError
from . import formulas as f
from .keys import keys_of
from .positive import PositiveRule, present_labels, union
from .rows import ScoreRows
from .sketch import EXACT, MIN_BYTES, BinaryHistogram, ScoreSketch

INPUTS = ("probability", "score")
#: Default sketch resolution (mantissa bits kept: bins about 2**-10 wide in logit).
DEFAULT_RESOLUTION = 10
#: Default bin cap: none (the byte budget decides).
DEFAULT_MAX_BINS = None
#: Default byte budget per score column (binary view): ``len(to_bytes())`` stays within it.
DEFAULT_MAX_BYTES = 65536


class BestThreshold(NamedTuple):
    """The best threshold among the sketch's exact bin edges, its criterion value and counts."""

    threshold: float
    value: float
    tp: float
    fp: float
    fn: float
    tn: float


class RankingMetric(OneRowMixin, Metric[ScoreSketch], base=True):
    """Base of the ranking metrics: input validation, the sketch, and threshold tools.

    ``update(y_true, y_score, sample_weight=None)``:

    * binary: 1-D ``y_true`` (``pos_label`` is the positive class; every other value is
      negative; a batch may hold at most two distinct labels) and 1-D ``y_score``;
    * multiclass: 1-D ``y_true`` with labels in ``labels`` (or ints ``0..K-1``) and a 2-D
      ``y_score`` with one column per class (rows summing to 1 when ``input="probability"``);
    * multilabel: 2-D 0/1 ``y_true`` and 2-D ``y_score`` of the same shape.

    The sketch (``exact=False``) keeps fixed, nested bins about ``2**-resolution`` wide in logit
    (``input="probability"``) or in relative score (``input="score"``), coarsened when it would
    exceed ``max_bins``; ``exact=True`` keeps every distinct score (exact, memory growing with
    the number of distinct scores). Accumulators of different ``resolution`` merge at the
    coarser one.
    """

    higher_is_better: ClassVar[bool | None] = True
    roles: ClassVar[tuple[str, ...]] = ("y_true", "y_score")
    convention: ClassVar[str | None] = TRUTH_AND_PREDICTION
    prediction: ClassVar[str | None] = "scores"
    #: Whether ``average="samples"`` takes multiclass input (scikit-learn's average precision
    #: binarizes the labels; its ROC AUC refuses them).
    samples_multiclass: ClassVar[bool] = False
    #: 3: one sketch column per score column, exact until the byte budget (version-1 and -2 states
    #: are still read).
    version: ClassVar[int] = 3
    #: scikit-learn's rule for the positive label of binary input (:mod:`.positive`).
    positive_rule: ClassVar[str] = "fixed"

    def __init__(
        self,
        *,
        input: str = "probability",
        exact: bool = False,
        resolution: int = DEFAULT_RESOLUTION,
        max_bins: int | None = DEFAULT_MAX_BINS,
        pos_label: Any = None,
        labels: Any = None,
        max_bytes: int | None = DEFAULT_MAX_BYTES,
    ) -> None:
        self.input = check_option("input", input, INPUTS)
        if max_bytes is not None:
            check_number("max_bytes", max_bytes, low=MIN_BYTES, integer=True)
        self.max_bytes = max_bytes
        self.exact = check_option("exact", exact, (False, True))
        self.resolution = check_number("resolution", resolution, low=0, high=EXACT, integer=True)
        if max_bins is not None:
            check_number("max_bins", max_bins, low=1, integer=True)
        self.max_bins = max_bins
        self.pos_label = plain(pos_label)
        self.labels = None if labels is None else plain(list(labels))
        if self.labels is not None:
            check_label_list(self.labels)  # one kind, within int64
        if self.labels is not None and len(set(map(repr, self.labels))) != len(self.labels):
            raise ValueError(f"labels: expected distinct labels, found {self.labels!r}")
        super().__init__()

    def _base_config(self) -> dict[str, Any]:
        return {
            "input": self.input,
            "exact": self.exact,
            "resolution": self.resolution,
            "max_bins": self.max_bins,
            "max_bytes": self.max_bytes,
            "pos_label": self.pos_label,
            "labels": self.labels,
        }

    def get_config(self) -> dict[str, Any]:
        return self._base_config()

    def _rule(self) -> PositiveRule:
        return PositiveRule(self.positive_rule, self.pos_label)

    @property
    def _samples(self) -> bool:
        """``average="samples"``: per-row values summed (:mod:`.samples`), not the sketch."""
        return getattr(self, "average", None) == "samples"

    def _make_state(self) -> ScoreSketch:
        if self._samples:
            from ..probabilistic.states import SumTable  # the family of sums (imports ranking)

            return SumTable((3,), revertible=True)  # type: ignore[return-value]
        compact = getattr(self, "multi_class", "ovr") != "ovo"
        if self.exact:
            return ScoreSketch(resolution=EXACT, rule=self._rule(), compact=compact)
        return ScoreSketch(
            resolution=self.resolution,
            max_bins=self.max_bins,
            rule=self._rule(),
            max_bytes=self.max_bytes,
            compact=compact,
        )

    def check_compatible(self, other: Metric[Any]) -> None:
        """As :meth:`Metric.check_compatible`, but a different ``resolution`` is allowed."""
        if type(other) is not type(self):
            raise MergeError(
                f"cannot merge {type(other).__name__} into {type(self).__name__}: accumulators of different types"
            )
        mine, theirs = self.get_config(), other.get_config()
        mine.pop("resolution"), theirs.pop("resolution")
        if not equal_configs(mine, theirs):
            raise MergeError(
                f"cannot merge {type(self).__name__} accumulators of different configuration: "
                + describe_difference(mine, theirs)
            )

    def merge(self, other: Metric[Any]) -> Metric[ScoreSketch]:
        self.check_compatible(other)
        with other._lock:
            snapshot = other._state.copy()
        with self._lock:
            self._check_rows(snapshot)
            kept = (getattr(self._state, "_resolution", None), self.resolution)
            if getattr(snapshot, "_resolution", 0) < getattr(self._state, "_resolution", 0):
                self._state._resolution = snapshot._resolution  # type: ignore[attr-defined]
                self.resolution = snapshot._resolution  # type: ignore[attr-defined]
            try:
                self._state.merge(snapshot)
            except BaseException:  # a refused merge changes nothing, the resolution included
                if kept[0] is not None:
                    self._state._resolution = kept[0]  # type: ignore[attr-defined]
                self.resolution = kept[1]
                raise
        self._refresh()
        return self

    # ------------------------------------------------------------------ input
    def _validate(self, y_true: Any, y_score: Any, sample_weight: Any = None) -> tuple[Any, ...]:
        return self._parse(Inputs((y_true, y_score), sample_weight))

    def _accumulate_call(self, state: ScoreSketch, batch: Any, fresh: ScoreSketch) -> None:
        state.merge(fresh)  # the fresh sketch is folded for the batch's value: merging it is cheaper

    def _parse(self, inputs: Inputs) -> tuple[Any, ...]:
        """The prediction is the scores themselves: 1-D (binary), one column per class, or
        multilabel columns (conversions shared with the other members of a collection)."""
        yt_raw = inputs.array(0, "y_true")
        v.check_ndim(yt_raw, "y_true", (1, 2))
        if self.input == "probability":
            scores = inputs.probabilities(1, "y_score")
        else:
            scores = inputs.floats(1, "y_score")
        n = len(yt_raw) if yt_raw.ndim else 0
        v.check_length(scores, n, "y_score")
        weights = inputs.weights(n)
        if self._samples:
            return self._parse_samples(inputs, yt_raw, scores, weights, n)
        if yt_raw.ndim == 2:
            yt = inputs.derived((0, "indicator"), lambda: v.as_indicator(yt_raw, "y_true"))
            if scores.shape != yt.shape:
                raise InputError(
                    f"y_score: expected shape {yt.shape} (the shape of y_true), found {scores.shape}"
                )
            layout = (yt.shape[1], 2)
            groups = yt.astype(np.int64)
            mode = "multilabel"
        elif scores.ndim == 2:
            yt = inputs.labels(0, "y_true")
            k = scores.shape[1]
            cls = self._class_index(yt, k)
            if self.input == "probability":
                inputs.check_rows_sum_to_one(1, scores, "y_score", "multiclass probability rows")
            if getattr(self, "multi_class", "ovr") == "ovo":
                layout, groups = (k, k), cls[:, None]  # column j: a group per true class
            else:
                layout = (k, 2)  # column j: rest, own class
                groups = np.zeros((n, k), np.int8)  # one-hot rows, by one flat scatter
                groups.ravel()[np.arange(n) * k + cls] = 1
            mode = "multiclass"
        else:
            yt = inputs.labels(0, "y_true")
            rule = self._rule()
            # a row of weight 0 is a row left out (the weights law): its label is not seen
            seen = getattr(self._state, "seen", ())
            present = present_labels(yt if weights is None else yt[weights > 0], seen) if rule.tracked else ()
            used = rule.positive(union(seen, present)) if rule.tracked else rule.pos_label
            groups = (yt == used).view(np.int8) if used is not None else np.zeros(n, np.int8)
            layout = (1, 2)
            mode = "binary"
            self._check_mode(mode)
            keys = inputs.derived((1, "sketch keys", self.input), lambda: keys_of(scores, self.input))
            return keys, groups, weights, layout, n, mode, present, used
        if self.pos_label not in (None, 1):  # each column's positive class is fixed: its own class
            raise InputError(
                f"pos_label: expected 1 (or None) with {mode} y_true, where each column's positive "
                f"class is fixed, found {self.pos_label!r}"
            )
        self._check_mode(mode)
        keys = inputs.derived((1, "sketch keys", self.input), lambda: keys_of(scores, self.input))
        return keys, groups, weights, layout, n, mode, (), None

    def _row_values(self, yt: np.ndarray, scores: np.ndarray) -> np.ndarray:
        raise NotImplementedError  # ROCAUC, AveragePrecision

    def _parse_samples(
        self, inputs: Inputs, yt_raw: np.ndarray, scores: np.ndarray, weights: Any, n: int
    ) -> tuple:
        """``average="samples"``: each row's value, summed as ``[sum w v, sum w, sum w undefined]``.

        Multilabel input; and multiclass input where the metric allows it (``samples_multiclass``:
        each row's true class against its other columns, as scikit-learn binarizes the labels)."""
        if yt_raw.ndim == 1 and scores.ndim == 2 and self.samples_multiclass:
            labels = inputs.labels(0, "y_true")
            k = scores.shape[1]
            cls = self._class_index(labels, k)
            if self.input == "probability":
                inputs.check_rows_sum_to_one(1, scores, "y_score", "multiclass probability rows")
            yt = (cls[:, None] == np.arange(k)).astype(np.int64) if n else np.zeros((0, k), np.int64)
        elif yt_raw.ndim != 2:
            multiclass = " or multiclass input (1-D labels, 2-D scores)" if self.samples_multiclass else ""
            raise InputError(
                f"y_true: average='samples' needs multilabel input (a 2-D 0/1 y_true){multiclass}, "
                f"found {yt_raw.ndim}-D y_true with {scores.ndim}-D y_score"
            )
        else:
            yt = inputs.derived((0, "indicator"), lambda: v.as_indicator(yt_raw, "y_true"))
        if scores.shape != yt.shape:
            raise InputError(
                f"y_score: expected shape {yt.shape} (the shape of y_true), found {scores.shape}"
            )
        values = self._row_values(yt, scores)
        w = np.ones(n) if weights is None else weights
        undefined = np.isnan(values) & (w > 0)  # a row of weight 0 is left out (as scikit-learn)
        table = np.array(
            [
                float(np.dot(w, np.where(np.isnan(values), 0.0, values))),
                float(w.sum()),
                float(w[undefined].sum()),
            ]
        )
        return "samples", table, n

    def _class_index(self, yt: np.ndarray, k: int) -> np.ndarray:
        if self.labels is not None:
            if len(self.labels) != k:
                raise InputError(f"y_score: expected {len(self.labels)} columns (one per label), found {k}")
            lab = np.asarray(self.labels)
            order = np.argsort(lab, kind="stable")
            pos = np.searchsorted(lab, yt, sorter=order)
            pos = np.minimum(pos, k - 1)
            idx = order[pos]
            bad = lab[idx] != yt
            if bad.any():
                raise InputError(f"y_true: expected labels in {self.labels}, found {yt[bad][:5].tolist()}")
            return idx.astype(np.int64)
        if yt.dtype.kind != "i":
            raise InputError(
                "y_true: expected integer classes 0..K-1 for multiclass scores, found strings; pass labels="
            )
        if yt.size and (yt.min() < 0 or yt.max() >= k):
            bad = yt[(yt < 0) | (yt >= k)][0]
            raise InputError(f"y_true: expected classes in 0..{k - 1} (one per score column), found {bad}")
        return yt

    def _check_mode(self, mode: str) -> None:
        """Reject input kinds this metric cannot evaluate."""

    def _apply(self, state: ScoreSketch, batch: tuple[Any, ...]) -> None:
        if isinstance(batch[0], str):  # "samples"
            state.add(batch[1], batch[2])  # type: ignore[call-arg]
            return
        keys, groups, weights, layout, n, mode, present, used = batch
        state.add(
            keys,
            groups,
            weights,
            layout,
            n,
            multilabel=mode == "multilabel",
            labels=present,
            used=used,
            ovr=mode == "multiclass" and layout[1] == 2,
        )

    def _unapply(self, state: ScoreSketch, batch: tuple[Any, ...]) -> None:
        if isinstance(batch[0], str):  # "samples"
            state.add(batch[1], batch[2], -1)  # type: ignore[call-arg]
            return
        keys, groups, weights, layout, n, mode, present, used = batch
        state.remove(
            keys,
            groups,
            weights,
            layout,
            n,
            multilabel=mode == "multilabel",
            labels=present,
            used=used,
            ovr=mode == "multiclass" and layout[1] == 2,
        )

    def _is_empty(self, state: ScoreSketch) -> bool:
        if self._samples:
            return state.table[1] == 0  # type: ignore[attr-defined]
        return state.layout is None or state.total_weight() == 0

    def _replicate_values(self, state: ScoreSketch, tensor: np.ndarray) -> np.ndarray | None:
        """The values of bootstrap replicates held as counts ``(replicates, bins, groups)`` on
        ``state``'s bins (see :mod:`streammetrics.uncertainty.sketch_replicates`), all at once;
        ``None`` where this metric evaluates them one replicate at a time."""
        return None

    def _row_checker(self, state: Any) -> Any:
        return ScoreRows(self, state)

    def output_labels(self, state: ScoreSketch) -> list[Any] | None:
        """Per-class values follow ``labels`` (multiclass) or the columns (multilabel)."""
        if self.labels is not None and getattr(state, "layout", None) is not None and not state.multilabel:
            return list(self.labels)
        return None

    # ------------------------------------------------------------------ shared views
    def _binary(self) -> BinaryHistogram:
        if self._state.layout != (1, 2):
            raise InputError("this method needs binary input (1-D y_true and 1-D y_score)")
        return self._state.binary_view(0, [1], [0])

    def _unit(self) -> float:
        return 1.0 if self._state.integral else 0.0

    def confusion_at(self, threshold: float) -> f.ConfusionAtThreshold:
        """Estimated confusion counts for ``score >= threshold`` (exact at every bin edge).

        Use :meth:`confusion_bounds_at` for the lowest and highest possible counts.

        Examples:
            >>> import streammetrics as sm
            >>> m = sm.ROCAUC(exact=True).update([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8])
            >>> m.confusion_at(0.35)
            ConfusionAtThreshold(threshold=0.35, tp=2.0, fp=1.0, fn=0.0, tn=1.0, exact=True)
        """
        return f.confusion_at(self._binary(), threshold, self.input)[0]

    def confusion_bounds_at(self, threshold: float) -> tuple[f.ConfusionAtThreshold, f.ConfusionAtThreshold]:
        """Counts with the fewest and with the most predicted positives possible at ``threshold``."""
        _, low, high = f.confusion_at(self._binary(), threshold, self.input)
        return low, high

    def best_threshold(
        self, criterion: str = "youden", *, beta: float = 1.0, costs: Any = None
    ) -> BestThreshold:
        """The best threshold among the exact bin edges (every distinct score when ``exact=True``).

        ``criterion``: ``"youden"`` (max TPR - FPR), ``"fbeta"`` (max F-beta, ``beta=``) or
        ``"cost"`` (min expected cost per sample for a 2x2 ``costs[true, decision]`` matrix).

        Examples:
            >>> import streammetrics as sm
            >>> m = sm.ROCAUC(exact=True).update([0, 0, 1, 1, 1], [0.1, 0.4, 0.35, 0.8, 0.5])
            >>> m.best_threshold("youden")
            BestThreshold(threshold=0.5, value=0.6666666666666666, tp=2.0, fp=0.0, fn=1.0, tn=2.0)
        """
        check_option("criterion", criterion, ("youden", "fbeta", "cost"))
        th, tp, fp, fn, tn = f.threshold_table(self._binary(), self.input)
        p, n = tp[-1] + fn[-1], fp[-1] + tn[-1]
        th, tp, fp = np.r_[np.inf, th], np.r_[0.0, tp], np.r_[0.0, fp]
        fn, tn = p - tp, n - fp
        p, n = tp[-1] + fn[-1], fp[-1] + tn[-1]
        with np.errstate(divide="ignore", invalid="ignore"):
            if criterion == "youden":
                value = np.nan_to_num(tp / p) - np.nan_to_num(fp / n)
                best = int(np.argmax(value))
            elif criterion == "fbeta":
                check_number("beta", beta, low=0.0, low_open=True)
                b2 = beta * beta
                value = np.nan_to_num((1 + b2) * tp / ((1 + b2) * tp + b2 * fn + fp))
                best = int(np.argmax(value))
            else:
                c = np.asarray(costs, dtype=np.float64)
                if c.shape != (2, 2) or not np.isfinite(c).all():
                    raise ValueError(
                        f"costs: expected a finite 2x2 matrix costs[true, decision], found shape {c.shape}"
                    )
                value = (c[0, 0] * tn + c[0, 1] * fp + c[1, 0] * fn + c[1, 1] * tp) / (p + n)
                best = int(np.argmin(value))
        return BestThreshold(
            float(th[best]),
            float(value[best]),
            float(tp[best]),
            float(fp[best]),
            float(fn[best]),
            float(tn[best]),
        )

    @staticmethod
    def _views(s: ScoreSketch, refine: bool = True) -> list[BinaryHistogram]:
        """One-vs-rest views: per label (multilabel) or per class column (multiclass)."""
        n_cols, n_cls = s.layout  # type: ignore[misc]
        if s.multilabel or s.ovr:
            return [s.binary_view(j, [1], [0], refine) for j in range(n_cols)]
        return [s.binary_view(j, [j], [k for k in range(n_cls) if k != j], refine) for j in range(n_cols)]
