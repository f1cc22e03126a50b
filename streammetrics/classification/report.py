"""Whole-table outputs: Hamming loss, subset accuracy, the confusion matrix and the report."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from .._core.params import check_option, check_zero_division
from . import formulas, rates
from .averaging import apply_zero_division, nan_average
from .base import ConfusionMetric
from .counts import ConfusionCounts


class HammingLoss(ConfusionMetric):
    """Fraction of wrong labels, ``sklearn.metrics.hamming_loss``. Seed 000.

    Multiclass: the fraction of rows predicted wrong; multilabel: the fraction of label cells
    predicted wrong. (No ``average``: the loss is defined on the whole table.)

    Args:
        labels: The labels to report, in the order of per-label results, as scikit-learn's ``labels=``:
            ``None`` (default) reports every label of the data, sorted; a list chooses and orders them (a
            label never seen has zero counts; rows of other labels still count, as negatives of the chosen
            ones). On multilabel input, column indices that pick and order the columns.
        unlisted: With ``labels=``, what a row holding a label not in the list does: ``"refuse"`` (default)
            raises :class:`~streammetrics.InputError` and changes nothing; ``"count"`` counts it as
            scikit-learn does (a negative of every listed label; only the listed labels are reported).
        pos_label: The positive class of the predictions ``threshold`` makes; default 1.
        threshold: ``None`` (default): ``y_pred`` holds labels, or 2-D class scores read by arg-max; a number
            turns 1-D scores (or multilabel score cells) into labels, ``score >= threshold`` predicting
            ``pos_label`` (with a ``pos_label`` other than 0 or 1, ``labels=[negative, positive]`` names the
            other label).
        input: What scores in ``y_pred`` are: ``"probability"`` (default; checked to lie in [0, 1]) or
            ``"score"`` (any finite real: logits, margins). Read only when ``y_pred`` holds scores.

    Examples:
        >>> import streammetrics as sm
        >>> sm.HammingLoss().update([[0, 1], [1, 1]], [[0, 0], [1, 1]]).compute()
        0.25
    """

    higher_is_better = False

    def _compute(self, state: ConfusionCounts) -> float:
        return formulas.hamming_loss(state)


class SubsetAccuracy(ConfusionMetric):
    """Exact-match ratio: rows whose whole label set is right, ``accuracy_score`` on multilabel.

    Args:
        labels: The labels to report, in the order of per-label results, as scikit-learn's ``labels=``:
            ``None`` (default) reports every label of the data, sorted; a list chooses and orders them (a
            label never seen has zero counts; rows of other labels still count, as negatives of the chosen
            ones). On multilabel input, column indices that pick and order the columns.
        unlisted: With ``labels=``, what a row holding a label not in the list does: ``"refuse"`` (default)
            raises :class:`~streammetrics.InputError` and changes nothing; ``"count"`` counts it as
            scikit-learn does (a negative of every listed label; only the listed labels are reported).
        pos_label: The positive class of the predictions ``threshold`` makes; default 1.
        threshold: ``None`` (default): ``y_pred`` holds labels, or 2-D class scores read by arg-max; a number
            turns 1-D scores (or multilabel score cells) into labels, ``score >= threshold`` predicting
            ``pos_label`` (with a ``pos_label`` other than 0 or 1, ``labels=[negative, positive]`` names the
            other label).
        input: What scores in ``y_pred`` are: ``"probability"`` (default; checked to lie in [0, 1]) or
            ``"score"`` (any finite real: logits, margins). Read only when ``y_pred`` holds scores.

    Examples:
        >>> import streammetrics as sm
        >>> sm.SubsetAccuracy().update([[0, 1], [1, 1]], [[0, 0], [1, 1]]).compute()
        0.5
    """

    def _compute(self, state: ConfusionCounts) -> float:
        return formulas.subset_accuracy(state)


class ConfusionMatrix(ConfusionMetric):
    """The confusion matrix, as ``sklearn.metrics.confusion_matrix``; rows true, columns predicted.

    ``compute()`` returns a K x K array in the order of :attr:`classes` (int64 counts, float64
    when weighted or normalized); for multilabel input an (L, 2, 2) array of
    ``[[tn, fp], [fn, tp]]`` as ``multilabel_confusion_matrix``. ``normalize``: ``None``,
    ``"true"`` (rows sum to 1), ``"pred"`` (columns) or ``"all"``.

    Args:
        normalize: ``None`` (default; counts), ``"true"`` (rows sum to 1), ``"pred"`` (columns sum to 1) or
            ``"all"`` (the whole matrix sums to 1).
        labels: The labels of the rows and columns, in order, as ``confusion_matrix(labels=...)``: ``None``
            (default) every label of the data, sorted; a list chooses and orders them (a label never seen has
            zero counts; rows holding another label are left out of the matrix, but kept in the state). On
            multilabel input, column indices that pick and order the columns.
        unlisted: With ``labels=``, what a row holding a label not in the list does: ``"refuse"`` (default)
            raises :class:`~streammetrics.InputError` and changes nothing; ``"count"`` counts it as
            scikit-learn does (a negative of every listed label; only the listed labels are reported).
        pos_label: The positive class of the predictions ``threshold`` makes; default 1.
        threshold: ``None`` (default): ``y_pred`` holds labels, or 2-D class scores read by arg-max; a number
            turns 1-D scores (or multilabel score cells) into labels, ``score >= threshold`` predicting
            ``pos_label`` (with a ``pos_label`` other than 0 or 1, ``labels=[negative, positive]`` names the
            other label).
        input: What scores in ``y_pred`` are: ``"probability"`` (default; checked to lie in [0, 1]) or
            ``"score"`` (any finite real: logits, margins). Read only when ``y_pred`` holds scores.

    Examples:
        >>> import streammetrics as sm
        >>> cm = sm.ConfusionMatrix().update(["cat", "dog", "dog"], ["cat", "cat", "dog"])
        >>> cm.compute().tolist(), cm.classes
        ([[1, 0], [1, 1]], ['cat', 'dog'])
    """

    needs_matrix: ClassVar[bool] = True

    higher_is_better = None

    def __init__(
        self,
        normalize: str | None = None,
        *,
        labels: Any = None,
        unlisted: str = "refuse",
        pos_label: Any = 1,
        threshold: float | None = None,
        input: str = "probability",
    ) -> None:
        self.normalize = check_option("normalize", normalize, (None, "true", "pred", "all"))
        super().__init__(
            labels=labels, unlisted=unlisted, pos_label=pos_label, threshold=threshold, input=input
        )

    def get_config(self) -> dict[str, Any]:
        return {"normalize": self.normalize, **self._base_config()}

    @property
    def classes(self) -> list[Any]:
        """The labels, in the order of the matrix rows and columns."""
        return self._view(self._state).labels.tolist()

    def _compute(self, state: ConfusionCounts) -> np.ndarray:
        # With labels=, the chosen labels' block in their order (rows of other labels dropped).
        m = self._view(state).matrix.copy()
        if self.normalize is None:
            return m
        m = m.astype(np.float64)
        axis = {"true": -1, "pred": -2, "all": (-2, -1)}[self.normalize]
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.nan_to_num(m / m.sum(axis=axis, keepdims=True))

    def plot(self, ax: Any = None, **kwargs: Any) -> Any:
        """Draw the matrix with matplotlib (an optional extra); returns the figure."""
        from ..plotting import plot_confusion_matrix  # lazy: matplotlib is optional

        return plot_confusion_matrix(self.compute(), self.classes, ax=ax, **kwargs)


@dataclass(frozen=True)
class Report:
    """Per-class precision, recall, F1 and support, with averages (``ClassificationReport``).

    ``str(report)`` is the text of ``classification_report`` character for character, and
    ``to_dict()`` its ``output_dict=True`` dict; rows are named by ``target_names`` when given.

    Examples:
        >>> import streammetrics as sm
        >>> report = sm.ClassificationReport().update(["a", "b", "b"], ["a", "b", "a"]).compute()
        >>> report.labels, report.support.tolist(), report.accuracy
        (['a', 'b'], [1.0, 2.0], 0.6666666666666666)
    """

    labels: list[Any]
    precision: np.ndarray
    recall: np.ndarray
    f1: np.ndarray
    support: np.ndarray
    averages: dict[str, dict[str, float]]
    accuracy: float | None
    digits: int = 2
    #: The row names (``target_names=``); ``None``: the labels as text.
    target_names: list[str] | None = None
    #: Whether the counts are weighted (support is then printed as a float, as scikit-learn).
    weighted: bool = False

    @property
    def names(self) -> list[str]:
        """The row names: ``target_names``, or ``str(label)`` for each label."""
        if self.target_names is not None:
            return list(self.target_names)
        return [str(label) for label in self.labels]

    def to_dict(self) -> dict[str, Any]:
        """A dict like ``classification_report(output_dict=True)``, ready for a logger."""
        out: dict[str, Any] = {}
        for i, name in enumerate(self.names):
            out[name] = {
                "precision": float(self.precision[i]),
                "recall": float(self.recall[i]),
                "f1-score": float(self.f1[i]),
                "support": float(self.support[i]),
            }
        if self.accuracy is not None:
            out["accuracy"] = self.accuracy
        out.update({name: dict(values) for name, values in self.averages.items()})
        return out

    def _support(self, value: float) -> Any:
        # scikit-learn prints its support array as is: ints unweighted, floats weighted.
        return float(value) if self.weighted else round(float(value))

    def __str__(self) -> str:
        # The format strings of scikit-learn's classification_report, so the text is identical.
        names = self.names
        d = self.digits
        width = max([len(n) for n in names] + [len("weighted avg"), d])
        headers = ("precision", "recall", "f1-score", "support")
        out = ("{:>{width}s} " + " {:>9}" * len(headers)).format("", *headers, width=width) + "\n\n"
        row_fmt = "{:>{width}s} " + " {:>9.{digits}f}" * 3 + " {:>9}\n"
        for i, name in enumerate(names):
            values = (self.precision[i], self.recall[i], self.f1[i], self._support(self.support[i]))
            out += row_fmt.format(name, *values, width=width, digits=d)
        out += "\n"
        total = self._support(float(self.support.sum()))
        if self.accuracy is not None:
            acc_fmt = "{:>{width}s} " + " {:>9.{digits}}" * 2 + " {:>9.{digits}f}" + " {:>9}\n"
            out += acc_fmt.format("accuracy", "", "", self.accuracy, total, width=width, digits=d)
        for name, values in self.averages.items():
            row = (values["precision"], values["recall"], values["f1-score"], total)
            out += row_fmt.format(name, *row, width=width, digits=d)
        return out


class ClassificationReport(ConfusionMetric):
    """Per-class precision, recall, F1 and support with averages, as ``classification_report``.

    ``compute()`` returns a :class:`Report`: ``str(report)`` prints the familiar table,
    ``report.to_dict()`` gives the dict of ``output_dict=True``.

    Args:
        digits: Decimals shown by ``str(report)``; default 2.
        zero_division: The value of a ratio whose denominator is zero: ``"warn"`` (default; 0.0 with an
            ``UndefinedMetricWarning``), ``0.0``, ``1.0`` or ``np.nan`` (left out of averages).
        target_names: Names of the rows, one per label in label order (``str(report)`` and the keys of
            ``to_dict()``); ``None`` (default) shows the labels. Its length must equal the number of
            ``labels`` when they are given, and the number of labels seen at ``compute()`` otherwise.
        labels: The labels to report, in the order of per-label results, as scikit-learn's ``labels=``:
            ``None`` (default) reports every label of the data, sorted; a list chooses and orders them (a
            label never seen has zero counts; rows of other labels still count, as negatives of the chosen
            ones). On multilabel input, column indices that pick and order the columns.
        unlisted: With ``labels=``, what a row holding a label not in the list does: ``"refuse"`` (default)
            raises :class:`~streammetrics.InputError` and changes nothing; ``"count"`` counts it as
            scikit-learn does (a negative of every listed label; only the listed labels are reported).
        pos_label: The positive class of the predictions ``threshold`` makes; default 1.
        threshold: ``None`` (default): ``y_pred`` holds labels, or 2-D class scores read by arg-max; a number
            turns 1-D scores (or multilabel score cells) into labels, ``score >= threshold`` predicting
            ``pos_label`` (with a ``pos_label`` other than 0 or 1, ``labels=[negative, positive]`` names the
            other label).
        input: What scores in ``y_pred`` are: ``"probability"`` (default; checked to lie in [0, 1]) or
            ``"score"`` (any finite real: logits, margins). Read only when ``y_pred`` holds scores.

    Examples:
        >>> import streammetrics as sm
        >>> r = sm.ClassificationReport().update([0, 1, 2, 2], [0, 2, 2, 2]).compute()
        >>> round(r.to_dict()["macro avg"]["f1-score"], 4)
        0.6
        >>> named = sm.ClassificationReport(target_names=["cat", "dog"]).update([0, 1, 1], [0, 1, 0])
        >>> print(named.compute())
                      precision    recall  f1-score   support
        <BLANKLINE>
                 cat       0.50      1.00      0.67         1
                 dog       1.00      0.50      0.67         2
        <BLANKLINE>
            accuracy                           0.67         3
           macro avg       0.75      0.75      0.67         3
        weighted avg       0.83      0.67      0.67         3
        <BLANKLINE>
    """

    higher_is_better: ClassVar[bool | None] = None
    numeric_value: ClassVar[bool] = False  # (a report)

    def __init__(
        self,
        digits: int = 2,
        zero_division: Any = "warn",
        *,
        target_names: Any = None,
        labels: Any = None,
        unlisted: str = "refuse",
        pos_label: Any = 1,
        threshold: float | None = None,
        input: str = "probability",
    ) -> None:
        self.digits = int(digits)
        self.zero_division = check_zero_division(zero_division)
        self.target_names = _target_names(target_names, labels)
        super().__init__(
            labels=labels, unlisted=unlisted, pos_label=pos_label, threshold=threshold, input=input
        )

    def get_config(self) -> dict[str, Any]:
        return {
            "digits": self.digits,
            "zero_division": self.zero_division,
            "target_names": self.target_names,
            **self._base_config(),
        }

    def _compute(self, state: ConfusionCounts) -> Report:
        full, state = state, self._view(state)
        tp, fp, fn, tn = state.one_vs_rest()
        zd = self.zero_division
        per_class = {
            "precision": apply_zero_division(rates.ppv(tp, fp, fn, tn), zd, 0.0, "Precision"),
            "recall": apply_zero_division(rates.tpr(tp, fp, fn, tn), zd, 0.0, "Recall"),
            "f1-score": apply_zero_division(rates.fbeta(tp, fp, fn, tn), zd, 0.0, "F1"),
        }
        support = tp + fn
        averages: dict[str, dict[str, float]] = {}
        multilabel = state.mode == "multilabel"
        # scikit-learn shows "micro avg" unless the micro average equals accuracy: multiclass
        # input whose labels are all reported.
        micro_is_accuracy = not multilabel and getattr(state, "covers_data", True)
        if not micro_is_accuracy:
            sums = [np.array([a.sum()]) for a in (tp, fp, fn, tn)]
            averages["micro avg"] = {
                "precision": float(apply_zero_division(rates.ppv(*sums), zd, 0.0, "Precision")[0]),
                "recall": float(apply_zero_division(rates.tpr(*sums), zd, 0.0, "Recall")[0]),
                "f1-score": float(apply_zero_division(rates.fbeta(*sums), zd, 0.0, "F1")[0]),
                "support": float(support.sum()),
            }
        averages["macro avg"] = {k: nan_average(val) for k, val in per_class.items()}
        averages["macro avg"]["support"] = float(support.sum())
        averages["weighted avg"] = {k: nan_average(val, support) for k, val in per_class.items()}
        averages["weighted avg"]["support"] = float(support.sum())
        if multilabel:
            stp, sfp, sfn, stn, w = state.samplewise()
            averages["samples avg"] = {
                "precision": nan_average(
                    apply_zero_division(rates.ppv(stp, sfp, sfn, stn), zd, 0.0, "Precision"), w
                ),
                "recall": nan_average(
                    apply_zero_division(rates.tpr(stp, sfp, sfn, stn), zd, 0.0, "Recall"), w
                ),
                "f1-score": nan_average(
                    apply_zero_division(rates.fbeta(stp, sfp, sfn, stn), zd, 0.0, "F1"), w
                ),
                "support": float(support.sum()),
            }
        accuracy = formulas.multiclass_accuracy(full) if micro_is_accuracy else None
        if self.target_names is not None and len(self.target_names) != len(tp):
            raise ValueError(
                f"target_names: expected one name per label ({len(tp)} labels seen: "
                f"{state.labels.tolist()[:10]}), found {len(self.target_names)} names; "
                "pass labels= to fix the labels"
            )
        return Report(
            labels=state.labels.tolist(),
            precision=per_class["precision"],
            recall=per_class["recall"],
            f1=per_class["f1-score"],
            support=support,
            averages=averages,
            accuracy=accuracy,
            digits=self.digits,
            target_names=self.target_names,
            weighted=state.weighted,
        )


def _target_names(target_names: Any, labels: Any) -> list[str] | None:
    """The row names as a list of strings, checked against ``labels`` when those are fixed."""
    if target_names is None:
        return None
    if isinstance(target_names, str) or not hasattr(target_names, "__iter__"):
        raise ValueError(f"target_names: expected a list of names, found {target_names!r}")
    names = [str(name) for name in target_names]
    if labels is not None and len(names) != len(list(labels)):
        raise ValueError(
            f"target_names: expected one name per label ({len(list(labels))} labels), found {len(names)} names"
        )
    return names
