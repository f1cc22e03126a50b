"""Base classes of the confusion family: input handling, and per-class rates with averaging."""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Any, ClassVar

import numpy as np

from .._core import tensors
from .._core import validation as v
from .._core.inputs import TRUTH_AND_PREDICTION, Inputs, two_plain_arrays
from .._core.labels import LabelSet
from .._core.metric import Metric
from .._core.onerow import OneRowMixin
from .._core.params import check_number, check_option, check_zero_division, plain
from .._core.state import canonical_json
from ..errors import InputError, StateError
from . import device, selection
from .averaging import AVERAGES, RateFn, score
from .counts import ConfusionCounts, check_classes
from .rows import ConfusionRows

INPUTS = ("probability", "score")
#: The check of the metrics reading the whole matrix (see ``ConfusionMetric.needs_matrix``).
_DENSE = "a dense matrix: at most MAX_CLASSES classes"
#: The methods whose code decides how a confusion metric parses and applies a batch: two metrics
#: share a state only when all of them are the same.
_BEHAVIOUR = (
    "_validate",
    "_parse",
    "_validate_multilabel",
    "_scores",
    "_argmax_labels",
    "_apply",
    "_make_state",
    "_check_mode",
    "_check_labels",
    "_label_columns",
)


class ConfusionMetric(OneRowMixin, Metric[ConfusionCounts], base=True):
    """A metric computed from confusion counts.

    ``update(y_true, y_pred, sample_weight=None)`` takes 1-D labels (binary or multiclass), a
    2-D 0/1 indicator (multilabel), 1-D scores with ``threshold=``, or 2-D class scores for
    1-D ``y_true`` (the arg-max column is the prediction; columns follow ``labels``).
    Predictions ``score >= threshold`` are positive, matching the ROC curve convention.

    Examples:
        >>> import streammetrics as sm
        >>> sm.Accuracy(threshold=0.5).update([0, 1, 1], [0.2, 0.9, 0.4]).compute()
        0.6666666666666666
    """

    higher_is_better: ClassVar[bool | None] = True
    roles: ClassVar[tuple[str, ...]] = ("y_true", "y_pred")
    convention: ClassVar[str | None] = TRUTH_AND_PREDICTION
    #: Whether the metric reads the K x K matrix itself, not only each class's counts: it refuses
    #: more than :data:`~streammetrics.classification.counts.MAX_CLASSES` classes, past which the
    #: counts keep each class's (tp, fp, fn) alone.
    needs_matrix: ClassVar[bool] = False

    def __init__(
        self,
        *,
        labels: Any = None,
        unlisted: str = "refuse",
        pos_label: Any = 1,
        threshold: float | None = None,
        input: str = "probability",
    ) -> None:
        self.labels = None if labels is None else plain(list(labels))
        #: With ``labels=``: ``"refuse"`` a row of another label (the contract) or ``"count"`` it.
        self.unlisted = check_option("unlisted", unlisted, UNLISTED)
        self.pos_label = plain(pos_label)
        self.input = check_option("input", input, INPUTS)
        if threshold is not None:
            check_number("threshold", threshold)
            if input == "probability":
                check_number("threshold", threshold, low=0.0, high=1.0)
        self.threshold = None if threshold is None else float(threshold)
        if self.labels is not None:
            if not self.labels:
                raise ValueError("labels: expected at least one label, found []")
            LabelSet(self.labels)  # raises ValueError on duplicates or bad types
        self._negative_label = self._find_negative_label()
        #: Hard labels, or scores turned into labels by ``threshold=``.
        self.prediction = "labels" if self.threshold is None else "scores"  # type: ignore[misc]
        super().__init__()

    def _base_config(self) -> dict[str, Any]:
        return {
            "labels": self.labels,
            "unlisted": self.unlisted,
            "pos_label": self.pos_label,
            "threshold": self.threshold,
            "input": self.input,
        }

    def get_config(self) -> dict[str, Any]:
        return self._base_config()

    def _find_negative_label(self) -> Any:
        if self.threshold is None:
            return None
        if self.labels is not None:
            if len(self.labels) != 2 or self.pos_label not in self.labels:
                raise ValueError(
                    f"threshold: needs labels=[negative, positive] holding pos_label={self.pos_label!r}, "
                    f"found labels={self.labels!r}"
                )
            return next(lab for lab in self.labels if lab != self.pos_label)
        if self.pos_label in (0, 1) and not isinstance(self.pos_label, str):
            return 1 - int(self.pos_label)
        raise ValueError(
            f"threshold: with pos_label={self.pos_label!r} pass labels=[negative, positive] "
            "to name the negative label"
        )

    def _make_state(self) -> ConfusionCounts:
        # Every label is counted; ``labels=`` chooses and orders what is reported (:meth:`_view`).
        # A state that a metric reading the matrix may read (in a collection: its group's leader
        # refuses what any member would) keeps the matrix up to the limit.
        return ConfusionCounts(keeps_matrix=self._keeps_matrix())

    def _keeps_matrix(self) -> bool:
        """Whether this metric's state keeps the matrix up to the limit: it, or a member of a
        collection whose checks it leads, reads the matrix."""
        return _DENSE in self._share_checks()

    def _view(self, state: ConfusionCounts) -> ConfusionCounts:
        """The counts as ``labels=`` shows them: its labels in its order, others counted as the rest."""
        return selection.view(state, self.labels)

    def _share_key(self) -> Hashable:
        """``(state key, labels/pos_label/threshold/input, parsing code)``.

        Metrics of the standard classes parse alike and differ only by the checks their
        ``average`` imposes (:meth:`_share_checks`), so ``F1()``, ``Precision()``, ``Recall()``
        and ``Accuracy()`` share one state in a collection (the binary ``F1`` leads: it refuses a
        third label for all). A subclass that overrides a parsing method shares only with
        identically configured metrics of its class.
        """
        cls = type(self)
        code = tuple(getattr(cls, name) for name in _BEHAVIOUR)
        standard = code in (_standard_code(RateMetric), _standard_code(ConfusionMetric))
        own = () if standard else (cls, canonical_json(self.get_config()))
        return ("confusion", self._state.share_key(), canonical_json(self._base_config()), own, code)

    def _share_checks(self) -> frozenset[str]:
        """What this configuration refuses beyond the shared parsing (see :meth:`_check_mode`,
        :meth:`_check_labels`)."""
        cls = type(self)
        checks = {_DENSE} if self._reads_matrix() else set()
        if tuple(getattr(cls, name) for name in _BEHAVIOUR) != _standard_code(RateMetric):
            return frozenset(checks)  # ConfusionMetric's own checks accept everything else
        average = getattr(self, "average", None)
        if average == "samples":
            checks.add("multilabel input only")
        if average == "binary" and not cls.multilabel_binary:  # type: ignore[attr-defined]
            checks.add("no multilabel input")
        if average == "binary" and cls.whole_matrix is None:  # type: ignore[attr-defined]
            checks |= {"at most two labels, pos_label among them", _DENSE}  # (two are few enough)
        return frozenset(checks)

    def _reads_matrix(self) -> bool:
        """Whether this configuration reads the K x K matrix (:attr:`needs_matrix`) or a block of
        it (:class:`~streammetrics.CohenKappa`'s ``labels=``)."""
        return self.needs_matrix

    # ------------------------------------------------------------------ input
    def _validate(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> tuple[Any, ...]:
        if two_plain_arrays(y_true, y_pred, sample_weight) and type(self)._parse is ConfusionMetric._parse:
            yt = v.as_labels(y_true, "y_true")
            if self.threshold is None:
                yp = v.as_labels(y_pred, "y_pred")
            else:
                scores = v.as_float(y_pred, "y_pred", (1,))
                if self.input == "probability":
                    v.check_probability(scores, "y_pred")
                yp = self._decisions(scores >= self.threshold)
            self._check_pair(yt, yp)
            self._check_mode("multiclass")
            return ("multiclass", yt, yp, None)
        return self._parse(Inputs((y_true, y_pred), sample_weight))

    def _parse(self, inputs: Inputs) -> tuple[Any, ...]:
        """The prediction becomes labels: as given, by ``threshold=`` on scores, or by arg-max of
        a 2-D array of class scores (conversions shared with the other members of a collection)."""
        torch = tensors.off_host(inputs)
        if torch is not None:
            batch = self._device_parse(inputs, torch)
            tensors.PATHS["confusion host" if batch is None else "confusion device"] += 1
            if batch is not None:
                return batch
        yt_raw, yp_raw = inputs.array(0, "y_true"), inputs.array(1, "y_pred")
        if yt_raw.ndim == 2:
            return self._validate_multilabel(inputs)
        yt = inputs.labels(0, "y_true")
        if yp_raw.ndim == 2:
            yp = self._argmax_labels(inputs)
        elif self.threshold is not None:
            scores, t = self._scores(inputs, (1,)), self.threshold
            yp = self._decisions(inputs.derived((1, ">=", t), lambda: scores >= t))
        else:
            yp = inputs.labels(1, "y_pred")
        self._check_pair(yt, yp)
        weights = inputs.weights(len(yt))
        self._check_mode("multiclass")
        return ("multiclass", yt, yp, weights)

    def _decisions(self, positive: np.ndarray) -> np.ndarray:
        """``pos_label`` where ``positive``, the other label elsewhere (``threshold=`` on scores)."""
        return np.where(positive, *np.asarray([self.pos_label, self._negative_label]))

    def _check_pair(self, yt: np.ndarray, yp: np.ndarray) -> None:
        """Labels of equal length, and among ``labels=`` when unlisted labels are refused."""
        v.check_length(yp, len(yt), "y_pred")
        if self.labels is not None and self.unlisted == "refuse":
            _check_listed(self.labels, yt, "y_true")
            _check_listed(self.labels, yp, "y_pred")

    def _device_parse(self, inputs: Inputs, torch: Any) -> tuple[Any, ...] | None:
        """The batch reduced on its tensors' device to its distinct label pairs (``None``: the
        host path takes it); see :mod:`streammetrics._core.tensors`."""
        labels = None if self.labels is None else len(self.labels)
        key = ("device confusion", self.threshold, self.input, labels)
        reduced = inputs.derived(key, lambda: device.confusion_batch(self, inputs, torch))
        if reduced is None:
            return None
        kind, yt, yp, weights, repeats = reduced
        if kind == "arg-max" and self.labels is not None:
            yp = np.asarray(self.labels)[yp]
        elif kind == "threshold":
            yp = self._decisions(yp == 1)
        if self.labels is not None and self.unlisted == "refuse":
            _check_listed(self.labels, yt, "y_true")
            _check_listed(self.labels, yp, "y_pred")
        self._check_mode("multiclass")
        return ("multiclass", yt, yp, weights, repeats)

    def update(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> ConfusionMetric:
        """Add a batch (or one sample given as two scalars: the per-sample fast path); returns ``self``."""
        return super().update(y_true, y_pred, sample_weight=sample_weight)

    def _row_checker(self, state: Any) -> Any:
        return ConfusionRows(self, state)

    def _scores(self, inputs: Inputs, ndim: tuple[int, ...]) -> np.ndarray:
        if self.input == "probability":
            return inputs.probabilities(1, "y_pred", ndim)
        return inputs.floats(1, "y_pred", ndim)

    def _argmax_labels(self, inputs: Inputs) -> np.ndarray:
        scores = self._scores(inputs, (2,))
        if self.labels is not None and scores.shape[1] != len(self.labels):
            raise InputError(
                f"y_pred: expected {len(self.labels)} score columns (one per label), found {scores.shape[1]}"
            )
        columns = inputs.derived(
            (1, "arg-max"),
            lambda: scores.argmax(axis=1) if scores.shape[1] else np.zeros(len(scores), np.int64),
        )
        if self.labels is None:
            return columns.astype(np.int64)
        return np.asarray(self.labels)[columns]

    def _validate_multilabel(self, inputs: Inputs) -> tuple[Any, ...]:
        yt = inputs.derived((0, "indicator"), lambda: v.as_indicator(inputs.array(0, "y_true"), "y_true"))
        if self.threshold is not None:
            yp = self._scores(inputs, (2,)) >= self.threshold
        else:
            yp = inputs.derived((1, "indicator"), lambda: v.as_indicator(inputs.array(1, "y_pred"), "y_pred"))
        if yp.shape != yt.shape:
            raise InputError(f"y_pred: expected shape {yt.shape} (the shape of y_true), found {yp.shape}")
        if self.labels is not None:  # multilabel labels are column indices, as scikit-learn's
            columns = self._label_columns(yt.shape[1])
            yt, yp = yt[:, columns], yp[:, columns]
        weights = inputs.weights(len(yt))
        self._check_mode("multilabel")
        return ("multilabel", yt, yp, weights)

    def _label_columns(self, n_columns: int) -> np.ndarray:
        """The columns ``labels=`` picks from multilabel input, in its order (checked)."""
        labels = self.labels or []
        if not all(isinstance(c, int) and not isinstance(c, bool) and 0 <= c < n_columns for c in labels):
            raise InputError(
                f"y_true: labels= picks multilabel columns by index, expected indices in [0, {n_columns}), "
                f"found labels={labels!r}"
            )
        return np.asarray(labels, dtype=np.int64)

    def _check_mode(self, mode: str) -> None:
        """Reject input kinds this configuration cannot evaluate (before any state change)."""

    def _check_labels(self, labels: LabelSet) -> None:
        """Reject a label set this configuration cannot evaluate (called before commit)."""
        if self._reads_matrix():
            check_classes(len(labels), InputError, "y_true", f"{type(self).__name__}, which reads the matrix")

    def _check_state(self, state: ConfusionCounts) -> None:
        """The labels and mode of a loaded state must be ones an update would have accepted."""
        try:
            if state.mode is not None:
                self._check_mode(state.mode)
            if state.mode == "multiclass":
                self._check_labels(state.labels)
                if not state.dense and self._reads_matrix():
                    raise InputError(f"{type(self).__name__} reads the matrix, found per-class margins")
        except InputError as err:
            raise StateError(
                f"state dict: the state does not fit {type(self).__name__}'s configuration: {err}"
            ) from None

    def check_compatible(self, other: Metric[Any]) -> None:
        """Also refuse (:class:`InputError`) a merge whose labels together this configuration
        cannot evaluate (three labels for ``average="binary"``), as an update with both shards'
        rows would."""
        super().check_compatible(other)
        mine, theirs = self._state, other._state
        if "multilabel" not in (mine.mode, theirs.mode) and len(theirs.labels):
            try:
                union = mine.labels.union(theirs.labels)
            except InputError:
                return  # labels of two kinds: the state's merge says why (MergeError)
            self._check_labels(union)

    # ------------------------------------------------------------------ state
    def _apply(self, state: ConfusionCounts, batch: tuple[Any, ...], sign: int = 1) -> None:
        mode, yt, yp, weights = batch[:4]
        if mode == "multilabel":
            state.add_multilabel(yt, yp, weights, sign=sign)
        else:
            repeats = batch[4] if len(batch) > 4 else None  # a batch reduced on a device
            state.add_multiclass(yt, yp, weights, sign=sign, check_labels=self._check_labels, repeats=repeats)

    def _unapply(self, state: ConfusionCounts, batch: tuple[Any, ...] | None) -> None:
        self._apply(state, batch, sign=-1)

    def _keyed_kernel(self) -> Any:
        """The keyed kernel of :class:`~streammetrics.Sliced`: every key's counts in one array."""
        if type(self)._apply is not ConfusionMetric._apply or type(self._make_state()) is not ConfusionCounts:
            return None
        from .keyed import ConfusionKernel

        return ConfusionKernel(self)

    def _is_empty(self, state: ConfusionCounts) -> bool:
        return state.total_weight == 0


def _standard_code(cls: type) -> tuple[Any, ...]:
    return tuple(getattr(cls, name) for name in _BEHAVIOUR)


class RateMetric(ConfusionMetric, base=True):
    """A per-class formula of the 2x2 table averaged over labels like scikit-learn.

    ``average``: ``"binary"`` (the ``pos_label`` class), ``"micro"`` (counts summed over labels),
    ``"macro"``, ``"weighted"`` (by support), ``"samples"`` (multilabel) or ``None`` (one value
    per label, in label order). ``zero_division``: ``"warn"``, 0.0, 1.0 or ``np.nan``.

    Examples:
        >>> import streammetrics as sm
        >>> sm.Recall(average=None).update(["a", "b", "b", "c"], ["a", "b", "c", "c"]).compute().tolist()
        [1.0, 0.5, 1.0]
    """

    #: The per-class formula.
    rate: ClassVar[RateFn]
    #: What ``zero_division="warn"`` returns (scikit-learn returns NaN for likelihood ratios).
    warn_value: ClassVar[float] = 0.0
    #: Formula over the whole matrix used for ``average`` "binary"/"micro" on multiclass data.
    whole_matrix: ClassVar[Callable[[Any, ConfusionCounts], float] | None] = None
    #: Whether ``average="binary"`` has a meaning for multilabel input (subset accuracy).
    multilabel_binary: ClassVar[bool] = False

    def __init__(
        self,
        *,
        average: str | None = "binary",
        labels: Any = None,
        unlisted: str = "refuse",
        pos_label: Any = 1,
        zero_division: Any = "warn",
        threshold: float | None = None,
        input: str = "probability",
    ) -> None:
        self.average = check_option("average", average, AVERAGES)
        self.zero_division = check_zero_division(zero_division)
        super().__init__(
            labels=labels, unlisted=unlisted, pos_label=pos_label, threshold=threshold, input=input
        )
        if self.average == "binary" and self.labels is not None and self.whole_matrix is None:
            if self.pos_label not in self.labels:
                raise ValueError(
                    f"pos_label: expected one of labels={self.labels!r}, found {self.pos_label!r}"
                )

    def get_config(self) -> dict[str, Any]:
        return {"average": self.average, "zero_division": self.zero_division, **self._base_config()}

    def _rate(self, tp: np.ndarray, fp: np.ndarray, fn: np.ndarray, tn: np.ndarray) -> np.ndarray:
        return type(self).rate(tp, fp, fn, tn)

    def _check_mode(self, mode: str) -> None:
        if mode == "multiclass" and self.average == "samples":
            raise InputError(
                "y_true: average='samples' needs multilabel (2-D indicator) input, found 1-D labels"
            )
        if mode == "multilabel" and self.average == "binary" and not self.multilabel_binary:
            raise InputError(
                "y_true: multilabel input needs average in 'micro', 'macro', 'weighted', 'samples' "
                "or None, found average='binary'"
            )

    def _check_labels(self, labels: LabelSet) -> None:
        super()._check_labels(labels)
        if self.average != "binary" or self.whole_matrix is not None:
            return
        if len(labels) > 2:
            raise InputError(
                f"y_true: average='binary' needs at most 2 labels, found {len(labels)} "
                f"({labels.tolist()[:10]}); choose average='micro', 'macro', 'weighted' or None"
            )
        if len(labels) == 2 and labels.index_of(self.pos_label) is None:
            raise InputError(
                f"y_true: pos_label={self.pos_label!r} is not one of the labels {labels.tolist()}"
            )

    def compute(self, prevalence: float | None = None) -> Any:
        """The value; ``prevalence=`` evaluates it at a deployment prevalence (binary only).

        With ``prevalence=pi`` the sensitivity and specificity measured on the data are kept and
        the counts are reweighted so that positives make a fraction ``pi`` of the population
        (seed 003 expresses accuracy, the predictive values and F-scores this way).
        """
        if prevalence is not None:
            check_number("prevalence", prevalence, low=0.0, high=1.0, low_open=True, high_open=True)
            if self.average not in ("binary", "micro") or self._state.mode == "multilabel":
                raise ValueError(
                    f"prevalence: needs average='binary' on binary data, found average={self.average!r}"
                )
        with self._lock:
            if self._is_empty(self._state):
                return self._value_of(self._state)
            return self._score(self._state, prevalence)

    def _compute(self, state: ConfusionCounts) -> Any:
        return self._score(state, None)

    def _score(self, state: ConfusionCounts, prevalence: float | None) -> Any:
        if (
            self.whole_matrix is not None
            and self.average in ("binary", "micro")
            and state.mode == "multiclass"
            and prevalence is None
        ):
            return self.whole_matrix(state)
        return score(
            self._view(state),
            self._rate,
            average=self.average,
            pos_label=self.pos_label,
            zero_division=self.zero_division,
            warn_value=self.warn_value,
            name=type(self).__name__,
            prevalence=prevalence,
        )


#: What a row holding a label outside ``labels=`` does (the confusion family).
UNLISTED = ("refuse", "count")


def _check_listed(labels: list[Any], values: np.ndarray, name: str) -> None:
    """Refuse (:class:`InputError`) a label of ``values`` not in ``labels`` (``unlisted="refuse"``)."""
    if not len(values):
        return
    listed = np.asarray(labels)
    if (listed.dtype.kind == "U") != (values.dtype.kind == "U"):
        outside = values[:1]
    else:
        outside = values[~np.isin(values, listed)]
    if len(outside):
        raise InputError(f"{name}: expected labels in the fixed list {labels}, found [{outside[0].item()!r}]")
