"""The confusion-matrix metrics: each is one formula on the shared :class:`ConfusionCounts`.

All take ``average``, ``labels``, ``pos_label``, ``zero_division``, ``threshold`` and ``input``
(see :class:`~streammetrics.classification.base.RateMetric`) and agree with scikit-learn where
it has the metric.

Examples:
    >>> import streammetrics as sm
    >>> y_true, y_pred = [0, 1, 1, 0, 1], [0, 1, 0, 0, 1]
    >>> sm.Precision().update(y_true, y_pred).compute()
    1.0
    >>> round(sm.Recall().update(y_true, y_pred).compute(), 4)
    0.6667
    >>> sm.Specificity().update(y_true, y_pred).compute()
    1.0
"""

from __future__ import annotations

import math
import warnings
from typing import Any, ClassVar

import numpy as np

from .._core.params import check_number, check_option
from ..errors import UndefinedMetricWarning
from . import formulas, rates
from .base import RateMetric
from .counts import ConfusionCounts


class Precision(RateMetric):
    """Precision (positive predictive value, PPV): TP / (TP + FP). Seeds 000, 002, 003.

    Args:
        average: How per-label values combine: ``"binary"`` (default; the ``pos_label`` class alone, at most
            two labels), ``"micro"`` (counts summed over labels), ``"macro"`` (plain mean over labels),
            ``"weighted"`` (mean weighted by support), ``"samples"`` (mean over rows; multilabel input) or
            ``None`` (an array, one value per label in label order).
        labels: The labels to report, in the order of per-label results, as scikit-learn's ``labels=``:
            ``None`` (default) reports every label of the data, sorted; a list chooses and orders them (a
            label never seen has zero counts; rows of other labels still count, as negatives of the chosen
            ones). On multilabel input, column indices that pick and order the columns.
        unlisted: With ``labels=``, what a row holding a label not in the list does: ``"refuse"`` (default)
            raises :class:`~streammetrics.InputError` and changes nothing; ``"count"`` counts it as
            scikit-learn does (a negative of every listed label; only the listed labels are reported).
        pos_label: The positive class of ``average="binary"`` and of the predictions ``threshold`` makes;
            default 1.
        zero_division: The value of a ratio whose denominator is zero: ``"warn"`` (default; 0.0 with an
            ``UndefinedMetricWarning``), ``0.0``, ``1.0`` or ``np.nan`` (left out of averages).
        threshold: ``None`` (default): ``y_pred`` holds labels, or 2-D class scores read by arg-max; a number
            turns 1-D scores (or multilabel score cells) into labels, ``score >= threshold`` predicting
            ``pos_label`` (with a ``pos_label`` other than 0 or 1, ``labels=[negative, positive]`` names the
            other label).
        input: What scores in ``y_pred`` are: ``"probability"`` (default; checked to lie in [0, 1]) or
            ``"score"`` (any finite real: logits, margins). Read only when ``y_pred`` holds scores.

    Examples:
        >>> import streammetrics as sm
        >>> sm.Precision(average="macro").update([0, 1, 2, 2], [0, 2, 2, 2]).compute()
        0.5555555555555555
    """

    rate = staticmethod(rates.ppv)


class Recall(RateMetric):
    """Recall (sensitivity, true positive rate, TPR): TP / (TP + FN). Seeds 000, 002, 003.

    Args:
        average: How per-label values combine: ``"binary"`` (default; the ``pos_label`` class alone, at most
            two labels), ``"micro"`` (counts summed over labels), ``"macro"`` (plain mean over labels),
            ``"weighted"`` (mean weighted by support), ``"samples"`` (mean over rows; multilabel input) or
            ``None`` (an array, one value per label in label order).
        labels: The labels to report, in the order of per-label results, as scikit-learn's ``labels=``:
            ``None`` (default) reports every label of the data, sorted; a list chooses and orders them (a
            label never seen has zero counts; rows of other labels still count, as negatives of the chosen
            ones). On multilabel input, column indices that pick and order the columns.
        unlisted: With ``labels=``, what a row holding a label not in the list does: ``"refuse"`` (default)
            raises :class:`~streammetrics.InputError` and changes nothing; ``"count"`` counts it as
            scikit-learn does (a negative of every listed label; only the listed labels are reported).
        pos_label: The positive class of ``average="binary"`` and of the predictions ``threshold`` makes;
            default 1.
        zero_division: The value of a ratio whose denominator is zero: ``"warn"`` (default; 0.0 with an
            ``UndefinedMetricWarning``), ``0.0``, ``1.0`` or ``np.nan`` (left out of averages).
        threshold: ``None`` (default): ``y_pred`` holds labels, or 2-D class scores read by arg-max; a number
            turns 1-D scores (or multilabel score cells) into labels, ``score >= threshold`` predicting
            ``pos_label`` (with a ``pos_label`` other than 0 or 1, ``labels=[negative, positive]`` names the
            other label).
        input: What scores in ``y_pred`` are: ``"probability"`` (default; checked to lie in [0, 1]) or
            ``"score"`` (any finite real: logits, margins). Read only when ``y_pred`` holds scores.

    Examples:
        >>> import streammetrics as sm
        >>> sm.Recall().update([1, 1, 0, 1], [1, 0, 0, 1]).compute()
        0.6666666666666666
    """

    rate = staticmethod(rates.tpr)


class Specificity(RateMetric):
    """Specificity (selectivity, true negative rate, TNR): TN / (TN + FP). Seed 003.

    Args:
        average: How per-label values combine: ``"binary"`` (default; the ``pos_label`` class alone, at most
            two labels), ``"micro"`` (counts summed over labels), ``"macro"`` (plain mean over labels),
            ``"weighted"`` (mean weighted by support), ``"samples"`` (mean over rows; multilabel input) or
            ``None`` (an array, one value per label in label order).
        labels: The labels to report, in the order of per-label results, as scikit-learn's ``labels=``:
            ``None`` (default) reports every label of the data, sorted; a list chooses and orders them (a
            label never seen has zero counts; rows of other labels still count, as negatives of the chosen
            ones). On multilabel input, column indices that pick and order the columns.
        unlisted: With ``labels=``, what a row holding a label not in the list does: ``"refuse"`` (default)
            raises :class:`~streammetrics.InputError` and changes nothing; ``"count"`` counts it as
            scikit-learn does (a negative of every listed label; only the listed labels are reported).
        pos_label: The positive class of ``average="binary"`` and of the predictions ``threshold`` makes;
            default 1.
        zero_division: The value of a ratio whose denominator is zero: ``"warn"`` (default; 0.0 with an
            ``UndefinedMetricWarning``), ``0.0``, ``1.0`` or ``np.nan`` (left out of averages).
        threshold: ``None`` (default): ``y_pred`` holds labels, or 2-D class scores read by arg-max; a number
            turns 1-D scores (or multilabel score cells) into labels, ``score >= threshold`` predicting
            ``pos_label`` (with a ``pos_label`` other than 0 or 1, ``labels=[negative, positive]`` names the
            other label).
        input: What scores in ``y_pred`` are: ``"probability"`` (default; checked to lie in [0, 1]) or
            ``"score"`` (any finite real: logits, margins). Read only when ``y_pred`` holds scores.

    Examples:
        >>> import streammetrics as sm
        >>> sm.Specificity().update([0, 0, 0, 1], [0, 1, 0, 1]).compute()
        0.6666666666666666
    """

    rate = staticmethod(rates.tnr)


class NPV(RateMetric):
    """Negative predictive value: TN / (TN + FN). Seed 003.

    Args:
        average: How per-label values combine: ``"binary"`` (default; the ``pos_label`` class alone, at most
            two labels), ``"micro"`` (counts summed over labels), ``"macro"`` (plain mean over labels),
            ``"weighted"`` (mean weighted by support), ``"samples"`` (mean over rows; multilabel input) or
            ``None`` (an array, one value per label in label order).
        labels: The labels to report, in the order of per-label results, as scikit-learn's ``labels=``:
            ``None`` (default) reports every label of the data, sorted; a list chooses and orders them (a
            label never seen has zero counts; rows of other labels still count, as negatives of the chosen
            ones). On multilabel input, column indices that pick and order the columns.
        unlisted: With ``labels=``, what a row holding a label not in the list does: ``"refuse"`` (default)
            raises :class:`~streammetrics.InputError` and changes nothing; ``"count"`` counts it as
            scikit-learn does (a negative of every listed label; only the listed labels are reported).
        pos_label: The positive class of ``average="binary"`` and of the predictions ``threshold`` makes;
            default 1.
        zero_division: The value of a ratio whose denominator is zero: ``"warn"`` (default; 0.0 with an
            ``UndefinedMetricWarning``), ``0.0``, ``1.0`` or ``np.nan`` (left out of averages).
        threshold: ``None`` (default): ``y_pred`` holds labels, or 2-D class scores read by arg-max; a number
            turns 1-D scores (or multilabel score cells) into labels, ``score >= threshold`` predicting
            ``pos_label`` (with a ``pos_label`` other than 0 or 1, ``labels=[negative, positive]`` names the
            other label).
        input: What scores in ``y_pred`` are: ``"probability"`` (default; checked to lie in [0, 1]) or
            ``"score"`` (any finite real: logits, margins). Read only when ``y_pred`` holds scores.

    Examples:
        >>> import streammetrics as sm
        >>> sm.NPV().update([0, 1, 0, 1], [0, 0, 0, 1]).compute()
        0.6666666666666666
    """

    rate = staticmethod(rates.npv)


class FPR(RateMetric):
    """False positive rate (fall-out): FP / (FP + TN) = 1 - specificity. Seed 003.

    Args:
        average: How per-label values combine: ``"binary"`` (default; the ``pos_label`` class alone, at most
            two labels), ``"micro"`` (counts summed over labels), ``"macro"`` (plain mean over labels),
            ``"weighted"`` (mean weighted by support), ``"samples"`` (mean over rows; multilabel input) or
            ``None`` (an array, one value per label in label order).
        labels: The labels to report, in the order of per-label results, as scikit-learn's ``labels=``:
            ``None`` (default) reports every label of the data, sorted; a list chooses and orders them (a
            label never seen has zero counts; rows of other labels still count, as negatives of the chosen
            ones). On multilabel input, column indices that pick and order the columns.
        unlisted: With ``labels=``, what a row holding a label not in the list does: ``"refuse"`` (default)
            raises :class:`~streammetrics.InputError` and changes nothing; ``"count"`` counts it as
            scikit-learn does (a negative of every listed label; only the listed labels are reported).
        pos_label: The positive class of ``average="binary"`` and of the predictions ``threshold`` makes;
            default 1.
        zero_division: The value of a ratio whose denominator is zero: ``"warn"`` (default; 0.0 with an
            ``UndefinedMetricWarning``), ``0.0``, ``1.0`` or ``np.nan`` (left out of averages).
        threshold: ``None`` (default): ``y_pred`` holds labels, or 2-D class scores read by arg-max; a number
            turns 1-D scores (or multilabel score cells) into labels, ``score >= threshold`` predicting
            ``pos_label`` (with a ``pos_label`` other than 0 or 1, ``labels=[negative, positive]`` names the
            other label).
        input: What scores in ``y_pred`` are: ``"probability"`` (default; checked to lie in [0, 1]) or
            ``"score"`` (any finite real: logits, margins). Read only when ``y_pred`` holds scores.

    Examples:
        >>> import streammetrics as sm
        >>> sm.FPR().update([0, 0, 0, 1], [0, 1, 0, 1]).compute()
        0.3333333333333333
    """

    rate = staticmethod(rates.fpr)
    higher_is_better = False


class FNR(RateMetric):
    """False negative rate (miss rate): FN / (FN + TP) = 1 - recall. Seed 003.

    Args:
        average: How per-label values combine: ``"binary"`` (default; the ``pos_label`` class alone, at most
            two labels), ``"micro"`` (counts summed over labels), ``"macro"`` (plain mean over labels),
            ``"weighted"`` (mean weighted by support), ``"samples"`` (mean over rows; multilabel input) or
            ``None`` (an array, one value per label in label order).
        labels: The labels to report, in the order of per-label results, as scikit-learn's ``labels=``:
            ``None`` (default) reports every label of the data, sorted; a list chooses and orders them (a
            label never seen has zero counts; rows of other labels still count, as negatives of the chosen
            ones). On multilabel input, column indices that pick and order the columns.
        unlisted: With ``labels=``, what a row holding a label not in the list does: ``"refuse"`` (default)
            raises :class:`~streammetrics.InputError` and changes nothing; ``"count"`` counts it as
            scikit-learn does (a negative of every listed label; only the listed labels are reported).
        pos_label: The positive class of ``average="binary"`` and of the predictions ``threshold`` makes;
            default 1.
        zero_division: The value of a ratio whose denominator is zero: ``"warn"`` (default; 0.0 with an
            ``UndefinedMetricWarning``), ``0.0``, ``1.0`` or ``np.nan`` (left out of averages).
        threshold: ``None`` (default): ``y_pred`` holds labels, or 2-D class scores read by arg-max; a number
            turns 1-D scores (or multilabel score cells) into labels, ``score >= threshold`` predicting
            ``pos_label`` (with a ``pos_label`` other than 0 or 1, ``labels=[negative, positive]`` names the
            other label).
        input: What scores in ``y_pred`` are: ``"probability"`` (default; checked to lie in [0, 1]) or
            ``"score"`` (any finite real: logits, margins). Read only when ``y_pred`` holds scores.

    Examples:
        >>> import streammetrics as sm
        >>> sm.FNR().update([1, 1, 1, 0], [1, 0, 1, 0]).compute()
        0.3333333333333333
    """

    rate = staticmethod(rates.fnr)
    higher_is_better = False


class FDR(RateMetric):
    """False discovery rate: FP / (FP + TP) = 1 - precision. Seed 003.

    Args:
        average: How per-label values combine: ``"binary"`` (default; the ``pos_label`` class alone, at most
            two labels), ``"micro"`` (counts summed over labels), ``"macro"`` (plain mean over labels),
            ``"weighted"`` (mean weighted by support), ``"samples"`` (mean over rows; multilabel input) or
            ``None`` (an array, one value per label in label order).
        labels: The labels to report, in the order of per-label results, as scikit-learn's ``labels=``:
            ``None`` (default) reports every label of the data, sorted; a list chooses and orders them (a
            label never seen has zero counts; rows of other labels still count, as negatives of the chosen
            ones). On multilabel input, column indices that pick and order the columns.
        unlisted: With ``labels=``, what a row holding a label not in the list does: ``"refuse"`` (default)
            raises :class:`~streammetrics.InputError` and changes nothing; ``"count"`` counts it as
            scikit-learn does (a negative of every listed label; only the listed labels are reported).
        pos_label: The positive class of ``average="binary"`` and of the predictions ``threshold`` makes;
            default 1.
        zero_division: The value of a ratio whose denominator is zero: ``"warn"`` (default; 0.0 with an
            ``UndefinedMetricWarning``), ``0.0``, ``1.0`` or ``np.nan`` (left out of averages).
        threshold: ``None`` (default): ``y_pred`` holds labels, or 2-D class scores read by arg-max; a number
            turns 1-D scores (or multilabel score cells) into labels, ``score >= threshold`` predicting
            ``pos_label`` (with a ``pos_label`` other than 0 or 1, ``labels=[negative, positive]`` names the
            other label).
        input: What scores in ``y_pred`` are: ``"probability"`` (default; checked to lie in [0, 1]) or
            ``"score"`` (any finite real: logits, margins). Read only when ``y_pred`` holds scores.

    Examples:
        >>> import streammetrics as sm
        >>> sm.FDR().update([0, 1, 1, 0], [1, 1, 1, 0]).compute()
        0.3333333333333333
    """

    rate = staticmethod(rates.fdr)
    higher_is_better = False


class FOR(RateMetric):
    """False omission rate: FN / (FN + TN) = 1 - NPV. Seed 003.

    Args:
        average: How per-label values combine: ``"binary"`` (default; the ``pos_label`` class alone, at most
            two labels), ``"micro"`` (counts summed over labels), ``"macro"`` (plain mean over labels),
            ``"weighted"`` (mean weighted by support), ``"samples"`` (mean over rows; multilabel input) or
            ``None`` (an array, one value per label in label order).
        labels: The labels to report, in the order of per-label results, as scikit-learn's ``labels=``:
            ``None`` (default) reports every label of the data, sorted; a list chooses and orders them (a
            label never seen has zero counts; rows of other labels still count, as negatives of the chosen
            ones). On multilabel input, column indices that pick and order the columns.
        unlisted: With ``labels=``, what a row holding a label not in the list does: ``"refuse"`` (default)
            raises :class:`~streammetrics.InputError` and changes nothing; ``"count"`` counts it as
            scikit-learn does (a negative of every listed label; only the listed labels are reported).
        pos_label: The positive class of ``average="binary"`` and of the predictions ``threshold`` makes;
            default 1.
        zero_division: The value of a ratio whose denominator is zero: ``"warn"`` (default; 0.0 with an
            ``UndefinedMetricWarning``), ``0.0``, ``1.0`` or ``np.nan`` (left out of averages).
        threshold: ``None`` (default): ``y_pred`` holds labels, or 2-D class scores read by arg-max; a number
            turns 1-D scores (or multilabel score cells) into labels, ``score >= threshold`` predicting
            ``pos_label`` (with a ``pos_label`` other than 0 or 1, ``labels=[negative, positive]`` names the
            other label).
        input: What scores in ``y_pred`` are: ``"probability"`` (default; checked to lie in [0, 1]) or
            ``"score"`` (any finite real: logits, margins). Read only when ``y_pred`` holds scores.

    Examples:
        >>> import streammetrics as sm
        >>> sm.FOR().update([1, 0, 0, 1], [0, 0, 0, 1]).compute()
        0.3333333333333333
    """

    rate = staticmethod(rates.false_omission_rate)
    higher_is_better = False


class FBeta(RateMetric):
    """F-beta score: (1 + β²) TP / ((1 + β²) TP + β² FN + FP). Seeds 000, 002.

    Args:
        beta: Weight of recall against precision, a number >= 0; default 1.0 (F1); 0 gives precision.
        average: How per-label values combine: ``"binary"`` (default; the ``pos_label`` class alone, at most
            two labels), ``"micro"`` (counts summed over labels), ``"macro"`` (plain mean over labels),
            ``"weighted"`` (mean weighted by support), ``"samples"`` (mean over rows; multilabel input) or
            ``None`` (an array, one value per label in label order).
        labels: The labels to report, in the order of per-label results, as scikit-learn's ``labels=``:
            ``None`` (default) reports every label of the data, sorted; a list chooses and orders them (a
            label never seen has zero counts; rows of other labels still count, as negatives of the chosen
            ones). On multilabel input, column indices that pick and order the columns.
        unlisted: With ``labels=``, what a row holding a label not in the list does: ``"refuse"`` (default)
            raises :class:`~streammetrics.InputError` and changes nothing; ``"count"`` counts it as
            scikit-learn does (a negative of every listed label; only the listed labels are reported).
        pos_label: The positive class of ``average="binary"`` and of the predictions ``threshold`` makes;
            default 1.
        zero_division: The value of a ratio whose denominator is zero: ``"warn"`` (default; 0.0 with an
            ``UndefinedMetricWarning``), ``0.0``, ``1.0`` or ``np.nan`` (left out of averages).
        threshold: ``None`` (default): ``y_pred`` holds labels, or 2-D class scores read by arg-max; a number
            turns 1-D scores (or multilabel score cells) into labels, ``score >= threshold`` predicting
            ``pos_label`` (with a ``pos_label`` other than 0 or 1, ``labels=[negative, positive]`` names the
            other label).
        input: What scores in ``y_pred`` are: ``"probability"`` (default; checked to lie in [0, 1]) or
            ``"score"`` (any finite real: logits, margins). Read only when ``y_pred`` holds scores.

    Examples:
        >>> import streammetrics as sm
        >>> round(sm.FBeta(beta=2.0).update([1, 1, 0, 1], [1, 0, 1, 1]).compute(), 6)
        0.666667
    """

    def __init__(
        self,
        beta: float = 1.0,
        *,
        average: str | None = "binary",
        labels: Any = None,
        unlisted: str = "refuse",
        pos_label: Any = 1,
        zero_division: Any = "warn",
        threshold: float | None = None,
        input: str = "probability",
    ) -> None:
        check_number("beta", beta, low=0.0)
        self.beta = float(beta)
        super().__init__(
            average=average,
            labels=labels,
            unlisted=unlisted,
            pos_label=pos_label,
            zero_division=zero_division,
            threshold=threshold,
            input=input,
        )

    def get_config(self) -> dict[str, Any]:
        return {"beta": self.beta, **super().get_config()}

    def _rate(self, tp: np.ndarray, fp: np.ndarray, fn: np.ndarray, tn: np.ndarray) -> np.ndarray:
        return rates.fbeta(tp, fp, fn, tn, self.beta)


class F1(RateMetric):
    """F1 score, the harmonic mean of precision and recall: 2 TP / (2 TP + FP + FN).

    Args:
        average: How per-label values combine: ``"binary"`` (default; the ``pos_label`` class alone, at most
            two labels), ``"micro"`` (counts summed over labels), ``"macro"`` (plain mean over labels),
            ``"weighted"`` (mean weighted by support), ``"samples"`` (mean over rows; multilabel input) or
            ``None`` (an array, one value per label in label order).
        labels: The labels to report, in the order of per-label results, as scikit-learn's ``labels=``:
            ``None`` (default) reports every label of the data, sorted; a list chooses and orders them (a
            label never seen has zero counts; rows of other labels still count, as negatives of the chosen
            ones). On multilabel input, column indices that pick and order the columns.
        unlisted: With ``labels=``, what a row holding a label not in the list does: ``"refuse"`` (default)
            raises :class:`~streammetrics.InputError` and changes nothing; ``"count"`` counts it as
            scikit-learn does (a negative of every listed label; only the listed labels are reported).
        pos_label: The positive class of ``average="binary"`` and of the predictions ``threshold`` makes;
            default 1.
        zero_division: The value of a ratio whose denominator is zero: ``"warn"`` (default; 0.0 with an
            ``UndefinedMetricWarning``), ``0.0``, ``1.0`` or ``np.nan`` (left out of averages).
        threshold: ``None`` (default): ``y_pred`` holds labels, or 2-D class scores read by arg-max; a number
            turns 1-D scores (or multilabel score cells) into labels, ``score >= threshold`` predicting
            ``pos_label`` (with a ``pos_label`` other than 0 or 1, ``labels=[negative, positive]`` names the
            other label).
        input: What scores in ``y_pred`` are: ``"probability"`` (default; checked to lie in [0, 1]) or
            ``"score"`` (any finite real: logits, margins). Read only when ``y_pred`` holds scores.

    Examples:
        >>> import streammetrics as sm
        >>> sm.F1().update([1, 1, 0, 1], [1, 0, 1, 1]).compute()
        0.6666666666666666
    """

    rate = staticmethod(rates.fbeta)


class Jaccard(RateMetric):
    """Jaccard index (threat score): TP / (TP + FP + FN), as ``sklearn.metrics.jaccard_score``.

    Args:
        average: How per-label values combine: ``"binary"`` (default; the ``pos_label`` class alone, at most
            two labels), ``"micro"`` (counts summed over labels), ``"macro"`` (plain mean over labels),
            ``"weighted"`` (mean weighted by support), ``"samples"`` (mean over rows; multilabel input) or
            ``None`` (an array, one value per label in label order).
        labels: The labels to report, in the order of per-label results, as scikit-learn's ``labels=``:
            ``None`` (default) reports every label of the data, sorted; a list chooses and orders them (a
            label never seen has zero counts; rows of other labels still count, as negatives of the chosen
            ones). On multilabel input, column indices that pick and order the columns.
        unlisted: With ``labels=``, what a row holding a label not in the list does: ``"refuse"`` (default)
            raises :class:`~streammetrics.InputError` and changes nothing; ``"count"`` counts it as
            scikit-learn does (a negative of every listed label; only the listed labels are reported).
        pos_label: The positive class of ``average="binary"`` and of the predictions ``threshold`` makes;
            default 1.
        zero_division: The value of a ratio whose denominator is zero: ``"warn"`` (default; 0.0 with an
            ``UndefinedMetricWarning``), ``0.0``, ``1.0`` or ``np.nan`` (left out of averages).
        threshold: ``None`` (default): ``y_pred`` holds labels, or 2-D class scores read by arg-max; a number
            turns 1-D scores (or multilabel score cells) into labels, ``score >= threshold`` predicting
            ``pos_label`` (with a ``pos_label`` other than 0 or 1, ``labels=[negative, positive]`` names the
            other label).
        input: What scores in ``y_pred`` are: ``"probability"`` (default; checked to lie in [0, 1]) or
            ``"score"`` (any finite real: logits, margins). Read only when ``y_pred`` holds scores.

    Examples:
        >>> import streammetrics as sm
        >>> sm.Jaccard().update([1, 1, 0, 1], [1, 0, 1, 1]).compute()
        0.5
    """

    rate = staticmethod(rates.jaccard)


class Informedness(RateMetric):
    """Bookmaker informedness (Youden's J statistic at this threshold): TPR + TNR - 1. Seed 003.

    Args:
        average: How per-label values combine: ``"binary"`` (default; the ``pos_label`` class alone, at most
            two labels), ``"micro"`` (counts summed over labels), ``"macro"`` (plain mean over labels),
            ``"weighted"`` (mean weighted by support), ``"samples"`` (mean over rows; multilabel input) or
            ``None`` (an array, one value per label in label order).
        labels: The labels to report, in the order of per-label results, as scikit-learn's ``labels=``:
            ``None`` (default) reports every label of the data, sorted; a list chooses and orders them (a
            label never seen has zero counts; rows of other labels still count, as negatives of the chosen
            ones). On multilabel input, column indices that pick and order the columns.
        unlisted: With ``labels=``, what a row holding a label not in the list does: ``"refuse"`` (default)
            raises :class:`~streammetrics.InputError` and changes nothing; ``"count"`` counts it as
            scikit-learn does (a negative of every listed label; only the listed labels are reported).
        pos_label: The positive class of ``average="binary"`` and of the predictions ``threshold`` makes;
            default 1.
        zero_division: The value of a ratio whose denominator is zero: ``"warn"`` (default; 0.0 with an
            ``UndefinedMetricWarning``), ``0.0``, ``1.0`` or ``np.nan`` (left out of averages).
        threshold: ``None`` (default): ``y_pred`` holds labels, or 2-D class scores read by arg-max; a number
            turns 1-D scores (or multilabel score cells) into labels, ``score >= threshold`` predicting
            ``pos_label`` (with a ``pos_label`` other than 0 or 1, ``labels=[negative, positive]`` names the
            other label).
        input: What scores in ``y_pred`` are: ``"probability"`` (default; checked to lie in [0, 1]) or
            ``"score"`` (any finite real: logits, margins). Read only when ``y_pred`` holds scores.

    Examples:
        >>> import streammetrics as sm
        >>> sm.Informedness().update([1, 1, 0, 0], [1, 0, 0, 0]).compute()
        0.5
    """

    rate = staticmethod(rates.informedness)


class Markedness(RateMetric):
    """Markedness: PPV + NPV - 1. Seed 003.

    Args:
        average: How per-label values combine: ``"binary"`` (default; the ``pos_label`` class alone, at most
            two labels), ``"micro"`` (counts summed over labels), ``"macro"`` (plain mean over labels),
            ``"weighted"`` (mean weighted by support), ``"samples"`` (mean over rows; multilabel input) or
            ``None`` (an array, one value per label in label order).
        labels: The labels to report, in the order of per-label results, as scikit-learn's ``labels=``:
            ``None`` (default) reports every label of the data, sorted; a list chooses and orders them (a
            label never seen has zero counts; rows of other labels still count, as negatives of the chosen
            ones). On multilabel input, column indices that pick and order the columns.
        unlisted: With ``labels=``, what a row holding a label not in the list does: ``"refuse"`` (default)
            raises :class:`~streammetrics.InputError` and changes nothing; ``"count"`` counts it as
            scikit-learn does (a negative of every listed label; only the listed labels are reported).
        pos_label: The positive class of ``average="binary"`` and of the predictions ``threshold`` makes;
            default 1.
        zero_division: The value of a ratio whose denominator is zero: ``"warn"`` (default; 0.0 with an
            ``UndefinedMetricWarning``), ``0.0``, ``1.0`` or ``np.nan`` (left out of averages).
        threshold: ``None`` (default): ``y_pred`` holds labels, or 2-D class scores read by arg-max; a number
            turns 1-D scores (or multilabel score cells) into labels, ``score >= threshold`` predicting
            ``pos_label`` (with a ``pos_label`` other than 0 or 1, ``labels=[negative, positive]`` names the
            other label).
        input: What scores in ``y_pred`` are: ``"probability"`` (default; checked to lie in [0, 1]) or
            ``"score"`` (any finite real: logits, margins). Read only when ``y_pred`` holds scores.

    Examples:
        >>> import streammetrics as sm
        >>> round(sm.Markedness().update([1, 1, 0, 0], [1, 0, 0, 0]).compute(), 6)
        0.666667
    """

    rate = staticmethod(rates.markedness)


class FowlkesMallows(RateMetric):
    """Fowlkes-Mallows index of a classifier: sqrt(PPV · TPR). Seed 003.

    (For the clustering index of the same name see ``FowlkesMallowsIndex``.)

    Args:
        average: How per-label values combine: ``"binary"`` (default; the ``pos_label`` class alone, at most
            two labels), ``"micro"`` (counts summed over labels), ``"macro"`` (plain mean over labels),
            ``"weighted"`` (mean weighted by support), ``"samples"`` (mean over rows; multilabel input) or
            ``None`` (an array, one value per label in label order).
        labels: The labels to report, in the order of per-label results, as scikit-learn's ``labels=``:
            ``None`` (default) reports every label of the data, sorted; a list chooses and orders them (a
            label never seen has zero counts; rows of other labels still count, as negatives of the chosen
            ones). On multilabel input, column indices that pick and order the columns.
        unlisted: With ``labels=``, what a row holding a label not in the list does: ``"refuse"`` (default)
            raises :class:`~streammetrics.InputError` and changes nothing; ``"count"`` counts it as
            scikit-learn does (a negative of every listed label; only the listed labels are reported).
        pos_label: The positive class of ``average="binary"`` and of the predictions ``threshold`` makes;
            default 1.
        zero_division: The value of a ratio whose denominator is zero: ``"warn"`` (default; 0.0 with an
            ``UndefinedMetricWarning``), ``0.0``, ``1.0`` or ``np.nan`` (left out of averages).
        threshold: ``None`` (default): ``y_pred`` holds labels, or 2-D class scores read by arg-max; a number
            turns 1-D scores (or multilabel score cells) into labels, ``score >= threshold`` predicting
            ``pos_label`` (with a ``pos_label`` other than 0 or 1, ``labels=[negative, positive]`` names the
            other label).
        input: What scores in ``y_pred`` are: ``"probability"`` (default; checked to lie in [0, 1]) or
            ``"score"`` (any finite real: logits, margins). Read only when ``y_pred`` holds scores.

    Examples:
        >>> import streammetrics as sm
        >>> round(sm.FowlkesMallows().update([1, 1, 0, 0], [1, 0, 1, 0]).compute(), 6)
        0.5
    """

    rate = staticmethod(rates.fowlkes_mallows)


class _LikelihoodRatio(RateMetric):
    """LR+ or LR-: a rate with scikit-learn's ``replace_undefined_by`` for a zero denominator count."""

    warn_value = float("nan")
    #: The key of this ratio in scikit-learn's ``replace_undefined_by`` dict: ``"LR+"`` or ``"LR-"``.
    ratio_key: ClassVar[str]

    def __init__(
        self,
        *,
        replace_undefined_by: Any = float("nan"),
        average: str | None = "binary",
        labels: Any = None,
        unlisted: str = "refuse",
        pos_label: Any = 1,
        zero_division: Any = "warn",
        threshold: float | None = None,
        input: str = "probability",
    ) -> None:
        self.replace_undefined_by = _ratio_replacement(self.ratio_key, replace_undefined_by)
        super().__init__(
            average=average,
            labels=labels,
            unlisted=unlisted,
            pos_label=pos_label,
            zero_division=zero_division,
            threshold=threshold,
            input=input,
        )

    def get_config(self) -> dict[str, Any]:
        return {"replace_undefined_by": self.replace_undefined_by, **super().get_config()}

    def _rate(self, tp: np.ndarray, fp: np.ndarray, fn: np.ndarray, tn: np.ndarray) -> np.ndarray:
        den = fp if self.ratio_key == "LR+" else tn
        return _replace_undefined(
            type(self).rate(tp, fp, fn, tn), den == 0, self.replace_undefined_by, type(self).__name__
        )


class PositiveLikelihoodRatio(_LikelihoodRatio):
    """LR+ = TPR / FPR, as ``sklearn.metrics.class_likelihood_ratios``. Seed 003.

    Undefined (NaN with an :class:`~streammetrics.UndefinedMetricWarning` by default, as
    scikit-learn) when there are no false positives or no positives; ``replace_undefined_by``
    chooses the value when there are no false positives.

    Args:
        replace_undefined_by: The value where the ratio is undefined because FP is 0, as
            ``class_likelihood_ratios(replace_undefined_by=...)``: ``np.nan`` (default), a number >= 1 (``np.inf`` included), ``1.0``
            (the worst value, as scikit-learn's ``1.0``) or scikit-learn's dict ``{"LR+": v1, "LR-": v2}``
            (this metric takes its own entry). A warning is given whenever the value is undefined, as
            scikit-learn; what stays undefined (no positive rows) takes ``zero_division``.
        average: How per-label values combine: ``"binary"`` (default; the ``pos_label`` class alone, at most
            two labels), ``"micro"`` (counts summed over labels), ``"macro"`` (plain mean over labels),
            ``"weighted"`` (mean weighted by support), ``"samples"`` (mean over rows; multilabel input) or
            ``None`` (an array, one value per label in label order).
        labels: The labels to report, in the order of per-label results, as scikit-learn's ``labels=``:
            ``None`` (default) reports every label of the data, sorted; a list chooses and orders them (a
            label never seen has zero counts; rows of other labels still count, as negatives of the chosen
            ones). On multilabel input, column indices that pick and order the columns.
        unlisted: With ``labels=``, what a row holding a label not in the list does: ``"refuse"`` (default)
            raises :class:`~streammetrics.InputError` and changes nothing; ``"count"`` counts it as
            scikit-learn does (a negative of every listed label; only the listed labels are reported).
        pos_label: The positive class of ``average="binary"`` and of the predictions ``threshold`` makes;
            default 1.
        zero_division: The value of a ratio whose denominator is zero: ``"warn"`` (default; NaN with an
            ``UndefinedMetricWarning``), ``0.0``, ``1.0`` or ``np.nan`` (left out of averages).
        threshold: ``None`` (default): ``y_pred`` holds labels, or 2-D class scores read by arg-max; a number
            turns 1-D scores (or multilabel score cells) into labels, ``score >= threshold`` predicting
            ``pos_label`` (with a ``pos_label`` other than 0 or 1, ``labels=[negative, positive]`` names the
            other label).
        input: What scores in ``y_pred`` are: ``"probability"`` (default; checked to lie in [0, 1]) or
            ``"score"`` (any finite real: logits, margins). Read only when ``y_pred`` holds scores.

    Examples:
        >>> import streammetrics as sm
        >>> sm.PositiveLikelihoodRatio().update([1, 1, 0, 0, 0], [1, 0, 1, 0, 0]).compute()
        1.5
        >>> m = sm.PositiveLikelihoodRatio(replace_undefined_by=1.0, zero_division=0.0)
        >>> m.update([1, 1, 0, 0], [1, 0, 0, 0]).compute()  # no false positive: LR+ undefined
        1.0
    """

    rate = staticmethod(rates.positive_likelihood_ratio)
    warn_value = float("nan")
    ratio_key = "LR+"


class NegativeLikelihoodRatio(_LikelihoodRatio):
    """LR- = FNR / TNR, as ``sklearn.metrics.class_likelihood_ratios``. Seed 003.

    Args:
        replace_undefined_by: The value where the ratio is undefined because TN is 0, as
            ``class_likelihood_ratios(replace_undefined_by=...)``: ``np.nan`` (default), a number in [0, 1], ``1.0``
            (the worst value, as scikit-learn's ``1.0``) or scikit-learn's dict ``{"LR+": v1, "LR-": v2}``
            (this metric takes its own entry). A warning is given whenever the value is undefined, as
            scikit-learn; what stays undefined (no positive rows) takes ``zero_division``.
        average: How per-label values combine: ``"binary"`` (default; the ``pos_label`` class alone, at most
            two labels), ``"micro"`` (counts summed over labels), ``"macro"`` (plain mean over labels),
            ``"weighted"`` (mean weighted by support), ``"samples"`` (mean over rows; multilabel input) or
            ``None`` (an array, one value per label in label order).
        labels: The labels to report, in the order of per-label results, as scikit-learn's ``labels=``:
            ``None`` (default) reports every label of the data, sorted; a list chooses and orders them (a
            label never seen has zero counts; rows of other labels still count, as negatives of the chosen
            ones). On multilabel input, column indices that pick and order the columns.
        unlisted: With ``labels=``, what a row holding a label not in the list does: ``"refuse"`` (default)
            raises :class:`~streammetrics.InputError` and changes nothing; ``"count"`` counts it as
            scikit-learn does (a negative of every listed label; only the listed labels are reported).
        pos_label: The positive class of ``average="binary"`` and of the predictions ``threshold`` makes;
            default 1.
        zero_division: The value of a ratio whose denominator is zero: ``"warn"`` (default; NaN with an
            ``UndefinedMetricWarning``), ``0.0``, ``1.0`` or ``np.nan`` (left out of averages).
        threshold: ``None`` (default): ``y_pred`` holds labels, or 2-D class scores read by arg-max; a number
            turns 1-D scores (or multilabel score cells) into labels, ``score >= threshold`` predicting
            ``pos_label`` (with a ``pos_label`` other than 0 or 1, ``labels=[negative, positive]`` names the
            other label).
        input: What scores in ``y_pred`` are: ``"probability"`` (default; checked to lie in [0, 1]) or
            ``"score"`` (any finite real: logits, margins). Read only when ``y_pred`` holds scores.

    Examples:
        >>> import streammetrics as sm
        >>> sm.NegativeLikelihoodRatio().update([1, 1, 0, 0, 0], [1, 0, 1, 0, 0]).compute()
        0.75
    """

    rate = staticmethod(rates.negative_likelihood_ratio)
    warn_value = float("nan")
    higher_is_better = False
    ratio_key = "LR-"


class DiagnosticOddsRatio(RateMetric):
    """Diagnostic odds ratio: LR+ / LR- = (TP · TN) / (FP · FN). Seed 003.

    Args:
        average: How per-label values combine: ``"binary"`` (default; the ``pos_label`` class alone, at most
            two labels), ``"micro"`` (counts summed over labels), ``"macro"`` (plain mean over labels),
            ``"weighted"`` (mean weighted by support), ``"samples"`` (mean over rows; multilabel input) or
            ``None`` (an array, one value per label in label order).
        labels: The labels to report, in the order of per-label results, as scikit-learn's ``labels=``:
            ``None`` (default) reports every label of the data, sorted; a list chooses and orders them (a
            label never seen has zero counts; rows of other labels still count, as negatives of the chosen
            ones). On multilabel input, column indices that pick and order the columns.
        unlisted: With ``labels=``, what a row holding a label not in the list does: ``"refuse"`` (default)
            raises :class:`~streammetrics.InputError` and changes nothing; ``"count"`` counts it as
            scikit-learn does (a negative of every listed label; only the listed labels are reported).
        pos_label: The positive class of ``average="binary"`` and of the predictions ``threshold`` makes;
            default 1.
        zero_division: The value of a ratio whose denominator is zero: ``"warn"`` (default; NaN with an
            ``UndefinedMetricWarning``), ``0.0``, ``1.0`` or ``np.nan`` (left out of averages).
        threshold: ``None`` (default): ``y_pred`` holds labels, or 2-D class scores read by arg-max; a number
            turns 1-D scores (or multilabel score cells) into labels, ``score >= threshold`` predicting
            ``pos_label`` (with a ``pos_label`` other than 0 or 1, ``labels=[negative, positive]`` names the
            other label).
        input: What scores in ``y_pred`` are: ``"probability"`` (default; checked to lie in [0, 1]) or
            ``"score"`` (any finite real: logits, margins). Read only when ``y_pred`` holds scores.

    Examples:
        >>> import streammetrics as sm
        >>> sm.DiagnosticOddsRatio().update([1, 1, 0, 0, 0], [1, 0, 1, 0, 0]).compute()
        2.0
    """

    rate = staticmethod(rates.diagnostic_odds_ratio)
    warn_value = float("nan")


class PrevalenceThreshold(RateMetric):
    """Prevalence threshold: (sqrt(TPR · FPR) - FPR) / (TPR - FPR). Seed 003.

    Args:
        average: How per-label values combine: ``"binary"`` (default; the ``pos_label`` class alone, at most
            two labels), ``"micro"`` (counts summed over labels), ``"macro"`` (plain mean over labels),
            ``"weighted"`` (mean weighted by support), ``"samples"`` (mean over rows; multilabel input) or
            ``None`` (an array, one value per label in label order).
        labels: The labels to report, in the order of per-label results, as scikit-learn's ``labels=``:
            ``None`` (default) reports every label of the data, sorted; a list chooses and orders them (a
            label never seen has zero counts; rows of other labels still count, as negatives of the chosen
            ones). On multilabel input, column indices that pick and order the columns.
        unlisted: With ``labels=``, what a row holding a label not in the list does: ``"refuse"`` (default)
            raises :class:`~streammetrics.InputError` and changes nothing; ``"count"`` counts it as
            scikit-learn does (a negative of every listed label; only the listed labels are reported).
        pos_label: The positive class of ``average="binary"`` and of the predictions ``threshold`` makes;
            default 1.
        zero_division: The value of a ratio whose denominator is zero: ``"warn"`` (default; NaN with an
            ``UndefinedMetricWarning``), ``0.0``, ``1.0`` or ``np.nan`` (left out of averages).
        threshold: ``None`` (default): ``y_pred`` holds labels, or 2-D class scores read by arg-max; a number
            turns 1-D scores (or multilabel score cells) into labels, ``score >= threshold`` predicting
            ``pos_label`` (with a ``pos_label`` other than 0 or 1, ``labels=[negative, positive]`` names the
            other label).
        input: What scores in ``y_pred`` are: ``"probability"`` (default; checked to lie in [0, 1]) or
            ``"score"`` (any finite real: logits, margins). Read only when ``y_pred`` holds scores.

    Examples:
        >>> import streammetrics as sm
        >>> round(sm.PrevalenceThreshold().update([1, 1, 0, 0], [1, 1, 1, 0]).compute(), 6)
        0.414214
    """

    rate = staticmethod(rates.prevalence_threshold)
    warn_value = float("nan")
    higher_is_better = None


class Prevalence(RateMetric):
    """Prevalence of the positive class in ``y_true``: (TP + FN) / N. Seed 003.

    Args:
        average: How per-label values combine: ``"binary"`` (default; the ``pos_label`` class alone, at most
            two labels), ``"micro"`` (counts summed over labels), ``"macro"`` (plain mean over labels),
            ``"weighted"`` (mean weighted by support), ``"samples"`` (mean over rows; multilabel input) or
            ``None`` (an array, one value per label in label order).
        labels: The labels to report, in the order of per-label results, as scikit-learn's ``labels=``:
            ``None`` (default) reports every label of the data, sorted; a list chooses and orders them (a
            label never seen has zero counts; rows of other labels still count, as negatives of the chosen
            ones). On multilabel input, column indices that pick and order the columns.
        unlisted: With ``labels=``, what a row holding a label not in the list does: ``"refuse"`` (default)
            raises :class:`~streammetrics.InputError` and changes nothing; ``"count"`` counts it as
            scikit-learn does (a negative of every listed label; only the listed labels are reported).
        pos_label: The positive class of ``average="binary"`` and of the predictions ``threshold`` makes;
            default 1.
        zero_division: The value of a ratio whose denominator is zero: ``"warn"`` (default; 0.0 with an
            ``UndefinedMetricWarning``), ``0.0``, ``1.0`` or ``np.nan`` (left out of averages).
        threshold: ``None`` (default): ``y_pred`` holds labels, or 2-D class scores read by arg-max; a number
            turns 1-D scores (or multilabel score cells) into labels, ``score >= threshold`` predicting
            ``pos_label`` (with a ``pos_label`` other than 0 or 1, ``labels=[negative, positive]`` names the
            other label).
        input: What scores in ``y_pred`` are: ``"probability"`` (default; checked to lie in [0, 1]) or
            ``"score"`` (any finite real: logits, margins). Read only when ``y_pred`` holds scores.

    Examples:
        >>> import streammetrics as sm
        >>> sm.Prevalence().update([1, 0, 0, 0], [1, 1, 0, 0]).compute()
        0.25
    """

    rate = staticmethod(rates.prevalence)
    higher_is_better = None


class Accuracy(RateMetric):
    """Accuracy: the fraction of correct predictions, ``sklearn.metrics.accuracy_score``.

    ``average="binary"`` (default) and ``"micro"`` give the fraction of rows predicted right for
    binary and multiclass input; for multilabel input ``"binary"`` gives the subset accuracy (as
    scikit-learn) and ``"micro"`` the fraction of label cells right. ``"macro"``, ``"weighted"``
    and ``None`` average the one-vs-rest accuracy (TP + TN) / N of each label.
    ``normalize=False`` gives the number of rows predicted right instead of their fraction (their
    total weight when weighted), as ``accuracy_score(normalize=False)``.

    Args:
        normalize: ``True`` (default): the fraction of rows (or, with ``average="micro"`` on
            multilabel input, cells) predicted right; ``False``: their number, or their total weight
            when weighted, as scikit-learn. ``False`` needs ``average="binary"`` or ``"micro"``.
        average: ``"binary"`` (default) and ``"micro"``: the fraction of rows predicted right of the whole
            confusion matrix (binary and multiclass input); ``"macro"``, ``"weighted"`` (by support) or
            ``None`` (an array, one value per label): the one-vs-rest value of each label, averaged or not;
            ``"samples"``: mean over rows (multilabel input). On multilabel input ``"binary"`` gives the
            subset accuracy and ``"micro"`` the fraction of cells right.
        labels: The labels to report, in the order of per-label results, as scikit-learn's ``labels=``:
            ``None`` (default) reports every label of the data, sorted; a list chooses and orders them (a
            label never seen has zero counts; rows of other labels still count, as negatives of the chosen
            ones). On multilabel input, column indices that pick and order the columns.
        unlisted: With ``labels=``, what a row holding a label not in the list does: ``"refuse"`` (default)
            raises :class:`~streammetrics.InputError` and changes nothing; ``"count"`` counts it as
            scikit-learn does (a negative of every listed label; only the listed labels are reported).
        pos_label: The positive class of the predictions ``threshold`` makes; default 1.
        zero_division: The value of a ratio whose denominator is zero: ``"warn"`` (default; 0.0 with an
            ``UndefinedMetricWarning``), ``0.0``, ``1.0`` or ``np.nan`` (left out of averages).
        threshold: ``None`` (default): ``y_pred`` holds labels, or 2-D class scores read by arg-max; a number
            turns 1-D scores (or multilabel score cells) into labels, ``score >= threshold`` predicting
            ``pos_label`` (with a ``pos_label`` other than 0 or 1, ``labels=[negative, positive]`` names the
            other label).
        input: What scores in ``y_pred`` are: ``"probability"`` (default; checked to lie in [0, 1]) or
            ``"score"`` (any finite real: logits, margins). Read only when ``y_pred`` holds scores.

    Examples:
        >>> import streammetrics as sm
        >>> sm.Accuracy().update(["a", "b", "c", "c"], ["a", "c", "c", "c"]).compute()
        0.75
        >>> sm.Accuracy(normalize=False).update(["a", "b", "c", "c"], ["a", "c", "c", "c"]).compute()
        3.0
    """

    rate = staticmethod(rates.accuracy)
    multilabel_binary = True

    def __init__(
        self,
        *,
        normalize: bool = True,
        average: str | None = "binary",
        labels: Any = None,
        unlisted: str = "refuse",
        pos_label: Any = 1,
        zero_division: Any = "warn",
        threshold: float | None = None,
        input: str = "probability",
    ) -> None:
        self.normalize = check_option("normalize", normalize, (True, False))
        if not self.normalize and average not in ("binary", "micro"):
            raise ValueError(
                f"normalize: False (a count of rows right) needs average='binary' or 'micro', "
                f"found average={average!r}"
            )
        super().__init__(
            average=average,
            labels=labels,
            unlisted=unlisted,
            pos_label=pos_label,
            zero_division=zero_division,
            threshold=threshold,
            input=input,
        )

    def get_config(self) -> dict[str, Any]:
        return {"normalize": self.normalize, **super().get_config()}

    def whole_matrix(self, state: ConfusionCounts) -> float:
        return formulas.multiclass_accuracy(state, self.normalize)

    def _score(self, state: ConfusionCounts, prevalence: float | None) -> Any:
        if state.mode == "multilabel" and self.average == "binary":
            return formulas.subset_accuracy(state, self.normalize)
        if not self.normalize:
            if prevalence is not None:
                raise ValueError("prevalence: needs normalize=True (a count has no prevalence to rescale)")
            if state.mode == "multilabel":  # average="micro": the label cells predicted right
                tp, _fp, _fn, tn = state.one_vs_rest()
                return float(tp.sum() + tn.sum())
        return super()._score(state, prevalence)


class BalancedAccuracy(RateMetric):
    """Balanced accuracy: the mean recall over classes, ``sklearn.metrics.balanced_accuracy_score``.

    On a 2x2 table it equals (TPR + TNR) / 2 (seed 003). ``adjusted=True`` rescales so that
    chance scores 0. ``"macro"``/``"weighted"``/``None`` give one-vs-rest (TPR + TNR) / 2.

    Args:
        adjusted: ``True`` rescales the value so that chance scores 0 and a perfect classifier 1, as
            scikit-learn; default ``False``.
        average: ``"binary"`` (default) and ``"micro"``: the mean recall over classes of the whole confusion
            matrix (binary and multiclass input); ``"macro"``, ``"weighted"`` (by support) or ``None`` (an
            array, one value per label): the one-vs-rest value of each label, averaged or not; ``"samples"``:
            mean over rows (multilabel input).
        labels: The labels to report, in the order of per-label results, as scikit-learn's ``labels=``:
            ``None`` (default) reports every label of the data, sorted; a list chooses and orders them (a
            label never seen has zero counts; rows of other labels still count, as negatives of the chosen
            ones). On multilabel input, column indices that pick and order the columns.
        unlisted: With ``labels=``, what a row holding a label not in the list does: ``"refuse"`` (default)
            raises :class:`~streammetrics.InputError` and changes nothing; ``"count"`` counts it as
            scikit-learn does (a negative of every listed label; only the listed labels are reported).
        pos_label: The positive class of the predictions ``threshold`` makes; default 1.
        zero_division: The value of a ratio whose denominator is zero: ``"warn"`` (default; 0.0 with an
            ``UndefinedMetricWarning``), ``0.0``, ``1.0`` or ``np.nan`` (left out of averages).
        threshold: ``None`` (default): ``y_pred`` holds labels, or 2-D class scores read by arg-max; a number
            turns 1-D scores (or multilabel score cells) into labels, ``score >= threshold`` predicting
            ``pos_label`` (with a ``pos_label`` other than 0 or 1, ``labels=[negative, positive]`` names the
            other label).
        input: What scores in ``y_pred`` are: ``"probability"`` (default; checked to lie in [0, 1]) or
            ``"score"`` (any finite real: logits, margins). Read only when ``y_pred`` holds scores.

    Examples:
        >>> import streammetrics as sm
        >>> sm.BalancedAccuracy().update([0, 0, 0, 1], [0, 0, 1, 1]).compute()
        0.8333333333333333
    """

    rate = staticmethod(rates.balanced_accuracy)

    def __init__(
        self,
        adjusted: bool = False,
        *,
        average: str | None = "binary",
        labels: Any = None,
        unlisted: str = "refuse",
        pos_label: Any = 1,
        zero_division: Any = "warn",
        threshold: float | None = None,
        input: str = "probability",
    ) -> None:
        self.adjusted = check_option("adjusted", adjusted, (False, True))
        super().__init__(
            average=average,
            labels=labels,
            unlisted=unlisted,
            pos_label=pos_label,
            zero_division=zero_division,
            threshold=threshold,
            input=input,
        )

    def get_config(self) -> dict[str, Any]:
        return {"adjusted": self.adjusted, **super().get_config()}

    def whole_matrix(self, state: ConfusionCounts) -> float:
        return formulas.balanced_accuracy(state, self.adjusted)


class MCC(RateMetric):
    """Matthews correlation coefficient, ``sklearn.metrics.matthews_corrcoef`` (multiclass R_K).

    Undefined margins give 0.0 as scikit-learn (with a warning under ``zero_division="warn"``
    for the per-class averages). Seeds 002, 003.

    Args:
        average: ``"binary"`` (default) and ``"micro"``: the multiclass Matthews correlation of the whole
            confusion matrix (binary and multiclass input); ``"macro"``, ``"weighted"`` (by support) or
            ``None`` (an array, one value per label): the one-vs-rest value of each label, averaged or not;
            ``"samples"``: mean over rows (multilabel input).
        labels: The labels to report, in the order of per-label results, as scikit-learn's ``labels=``:
            ``None`` (default) reports every label of the data, sorted; a list chooses and orders them (a
            label never seen has zero counts; rows of other labels still count, as negatives of the chosen
            ones). On multilabel input, column indices that pick and order the columns.
        unlisted: With ``labels=``, what a row holding a label not in the list does: ``"refuse"`` (default)
            raises :class:`~streammetrics.InputError` and changes nothing; ``"count"`` counts it as
            scikit-learn does (a negative of every listed label; only the listed labels are reported).
        pos_label: The positive class of the predictions ``threshold`` makes; default 1.
        zero_division: The value of a ratio whose denominator is zero: ``"warn"`` (default; 0.0 with an
            ``UndefinedMetricWarning``), ``0.0``, ``1.0`` or ``np.nan`` (left out of averages).
        threshold: ``None`` (default): ``y_pred`` holds labels, or 2-D class scores read by arg-max; a number
            turns 1-D scores (or multilabel score cells) into labels, ``score >= threshold`` predicting
            ``pos_label`` (with a ``pos_label`` other than 0 or 1, ``labels=[negative, positive]`` names the
            other label).
        input: What scores in ``y_pred`` are: ``"probability"`` (default; checked to lie in [0, 1]) or
            ``"score"`` (any finite real: logits, margins). Read only when ``y_pred`` holds scores.

    Examples:
        >>> import streammetrics as sm
        >>> round(sm.MCC().update([1, 1, 1, 0], [1, 0, 1, 1]).compute(), 6)
        -0.333333
    """

    rate = staticmethod(rates.mcc)
    higher_is_better = True

    def whole_matrix(self, state: ConfusionCounts) -> float:
        return formulas.matthews_corrcoef(state)


class CohenKappa(RateMetric):
    """Cohen's kappa, ``sklearn.metrics.cohen_kappa_score`` (``weights``: None, linear, quadratic).

    Undefined (one label in common) gives ``replace_undefined_by`` (NaN by default) with a
    warning, as scikit-learn.

    Args:
        weights: ``None`` (default; every disagreement counts 1), ``"linear"`` or ``"quadratic"``
            (disagreements weighted by the distance between the two labels' positions).
        replace_undefined_by: The value of an undefined kappa (the two raters share only one label), as
            ``cohen_kappa_score(replace_undefined_by=...)``: ``np.nan`` (default) or a number in [-1, 1];
            a warning is given either way, as scikit-learn. It applies to the whole-table kappa
            (``average="binary"`` or ``"micro"`` on binary and multiclass input); the one-vs-rest values
            of the other averages take ``zero_division``.
        average: ``"binary"`` (default) and ``"micro"``: Cohen's kappa of the whole confusion matrix (binary
            and multiclass input); ``"macro"``, ``"weighted"`` (by support) or ``None`` (an array, one value
            per label): the one-vs-rest value of each label, averaged or not; ``"samples"``: mean over rows
            (multilabel input).
        labels: The labels to report, in the order of per-label results, as scikit-learn's ``labels=``:
            ``None`` (default) reports every label of the data, sorted; a list chooses and orders them (a
            label never seen has zero counts; rows of other labels still count, as negatives of the chosen
            ones). On multilabel input, column indices that pick and order the columns.
        unlisted: With ``labels=``, what a row holding a label not in the list does: ``"refuse"`` (default)
            raises :class:`~streammetrics.InputError` and changes nothing; ``"count"`` counts it as
            scikit-learn does (a negative of every listed label; only the listed labels are reported).
        pos_label: The positive class of the predictions ``threshold`` makes; default 1.
        zero_division: The value of a ratio whose denominator is zero: ``"warn"`` (default; NaN with an
            ``UndefinedMetricWarning``), ``0.0``, ``1.0`` or ``np.nan`` (left out of averages).
        threshold: ``None`` (default): ``y_pred`` holds labels, or 2-D class scores read by arg-max; a number
            turns 1-D scores (or multilabel score cells) into labels, ``score >= threshold`` predicting
            ``pos_label`` (with a ``pos_label`` other than 0 or 1, ``labels=[negative, positive]`` names the
            other label).
        input: What scores in ``y_pred`` are: ``"probability"`` (default; checked to lie in [0, 1]) or
            ``"score"`` (any finite real: logits, margins). Read only when ``y_pred`` holds scores.

    Examples:
        >>> import streammetrics as sm
        >>> round(sm.CohenKappa().update([0, 1, 2, 2], [0, 2, 2, 2]).compute(), 6)
        0.6
        >>> sm.CohenKappa(replace_undefined_by=0.0).update([1, 1], [1, 1]).compute()
        0.0
    """

    rate = staticmethod(rates.cohen_kappa)
    warn_value = float("nan")

    def __init__(
        self,
        weights: str | None = None,
        *,
        replace_undefined_by: float = float("nan"),
        average: str | None = "binary",
        labels: Any = None,
        unlisted: str = "refuse",
        pos_label: Any = 1,
        zero_division: Any = "warn",
        threshold: float | None = None,
        input: str = "probability",
    ) -> None:
        self.weights = check_option("weights", weights, (None, "linear", "quadratic"))
        number = isinstance(replace_undefined_by, (int, float, np.integer, np.floating))
        if (
            not number
            or isinstance(replace_undefined_by, (bool, np.bool_))
            or not (math.isnan(replace_undefined_by) or -1.0 <= replace_undefined_by <= 1.0)
        ):
            raise ValueError(
                f"replace_undefined_by: expected np.nan or a number in [-1, 1], found {replace_undefined_by!r}"
            )
        self.replace_undefined_by = float(replace_undefined_by)
        super().__init__(
            average=average,
            labels=labels,
            unlisted=unlisted,
            pos_label=pos_label,
            zero_division=zero_division,
            threshold=threshold,
            input=input,
        )

    def get_config(self) -> dict[str, Any]:
        return {
            "weights": self.weights,
            "replace_undefined_by": self.replace_undefined_by,
            **super().get_config(),
        }

    def _reads_matrix(self) -> bool:
        # weights read every cell; labels= with unlisted="count" the chosen labels' block (the
        # rows of other labels dropped, which the per-class counts cannot tell)
        block = self.labels is not None and self.unlisted == "count"
        return super()._reads_matrix() or self.weights is not None or block

    def whole_matrix(self, state: ConfusionCounts) -> float:
        # The chosen labels' block of the matrix, as cohen_kappa_score(labels=...).
        return formulas.cohen_kappa(self._view(state), self.weights, self.replace_undefined_by)


class RateMean(RateMetric):
    """A mean of two rates of the 2x2 table, as tabulated in seed 003.

    ``rate_a``/``rate_b`` are among ``"tpr"``, ``"tnr"``, ``"fpr"``, ``"fnr"``, ``"ppv"``,
    ``"npv"``, ``"fdr"``, ``"for"`` and ``kind`` is ``"arithmetic"``, ``"harmonic"``,
    ``"geometric"``, ``"sum_minus_one"`` or ``"ratio"`` (rate_a / rate_b). F1 is
    ``RateMean("ppv", "tpr", "harmonic")``, informedness ``RateMean("tpr", "tnr", "sum_minus_one")``.

    Args:
        rate_a: The first rate: ``"tpr"`` (default), ``"tnr"``, ``"fpr"``, ``"fnr"``, ``"ppv"``, ``"npv"``,
            ``"fdr"`` or ``"for"``.
        rate_b: The second rate, among the same names; default ``"tnr"``.
        kind: How they combine: ``"arithmetic"`` (default), ``"harmonic"``, ``"geometric"`` mean,
            ``"sum_minus_one"`` (a + b - 1) or ``"ratio"`` (a / b).
        average: How per-label values combine: ``"binary"`` (default; the ``pos_label`` class alone, at most
            two labels), ``"micro"`` (counts summed over labels), ``"macro"`` (plain mean over labels),
            ``"weighted"`` (mean weighted by support), ``"samples"`` (mean over rows; multilabel input) or
            ``None`` (an array, one value per label in label order).
        labels: The labels to report, in the order of per-label results, as scikit-learn's ``labels=``:
            ``None`` (default) reports every label of the data, sorted; a list chooses and orders them (a
            label never seen has zero counts; rows of other labels still count, as negatives of the chosen
            ones). On multilabel input, column indices that pick and order the columns.
        unlisted: With ``labels=``, what a row holding a label not in the list does: ``"refuse"`` (default)
            raises :class:`~streammetrics.InputError` and changes nothing; ``"count"`` counts it as
            scikit-learn does (a negative of every listed label; only the listed labels are reported).
        pos_label: The positive class of ``average="binary"`` and of the predictions ``threshold`` makes;
            default 1.
        zero_division: The value of a ratio whose denominator is zero: ``"warn"`` (default; 0.0 with an
            ``UndefinedMetricWarning``), ``0.0``, ``1.0`` or ``np.nan`` (left out of averages).
        threshold: ``None`` (default): ``y_pred`` holds labels, or 2-D class scores read by arg-max; a number
            turns 1-D scores (or multilabel score cells) into labels, ``score >= threshold`` predicting
            ``pos_label`` (with a ``pos_label`` other than 0 or 1, ``labels=[negative, positive]`` names the
            other label).
        input: What scores in ``y_pred`` are: ``"probability"`` (default; checked to lie in [0, 1]) or
            ``"score"`` (any finite real: logits, margins). Read only when ``y_pred`` holds scores.

    Examples:
        >>> import streammetrics as sm
        >>> sm.RateMean("tpr", "tnr", "geometric").update([1, 1, 0, 0], [1, 1, 1, 0]).compute()
        0.7071067811865476
    """

    higher_is_better = None

    def __init__(
        self,
        rate_a: str = "tpr",
        rate_b: str = "tnr",
        kind: str = "arithmetic",
        *,
        average: str | None = "binary",
        labels: Any = None,
        unlisted: str = "refuse",
        pos_label: Any = 1,
        zero_division: Any = "warn",
        threshold: float | None = None,
        input: str = "probability",
    ) -> None:
        self.rate_a = check_option("rate_a", rate_a, rates.RATE_FUNCTIONS)
        self.rate_b = check_option("rate_b", rate_b, rates.RATE_FUNCTIONS)
        self.kind = check_option(
            "kind", kind, ("arithmetic", "harmonic", "geometric", "sum_minus_one", "ratio")
        )
        super().__init__(
            average=average,
            labels=labels,
            unlisted=unlisted,
            pos_label=pos_label,
            zero_division=zero_division,
            threshold=threshold,
            input=input,
        )

    def get_config(self) -> dict[str, Any]:
        return {"rate_a": self.rate_a, "rate_b": self.rate_b, "kind": self.kind, **super().get_config()}

    def _rate(self, tp: np.ndarray, fp: np.ndarray, fn: np.ndarray, tn: np.ndarray) -> np.ndarray:
        a = rates.RATE_FUNCTIONS[self.rate_a](tp, fp, fn, tn)
        b = rates.RATE_FUNCTIONS[self.rate_b](tp, fp, fn, tn)
        return rates.mean_of_rates(a, b, self.kind)


def _ratio_replacement(key: str, value: Any) -> float:
    """The value of a likelihood ratio where it is undefined, from scikit-learn's ``replace_undefined_by``.

    ``np.nan``, ``1.0`` (both ratios 1.0), a dict ``{"LR+": v1, "LR-": v2}`` (LR+ >= 1 or NaN, LR- in
    [0, 1] or NaN, as scikit-learn checks it), or a number in that range for this ratio alone.
    """
    low, high = (1.0, math.inf) if key == "LR+" else (0.0, 1.0)
    expected = (
        f"np.nan, 1.0, a dict {{'LR+': value >= 1, 'LR-': value in [0, 1]}} (NaN allowed) or a number "
        f"in [{low}, {high}] for {key}"
    )
    if isinstance(value, dict):
        if set(value) != {"LR+", "LR-"}:
            raise ValueError(f"replace_undefined_by: expected {expected}, found {value!r}")
        _ratio_replacement("LR+", value["LR+"])
        _ratio_replacement("LR-", value["LR-"])
        value = value[key]
    if isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, (bool, np.bool_)):
        number = float(value)
        if math.isnan(number) or low <= number <= high:
            return number
    raise ValueError(f"replace_undefined_by: expected {expected}, found {value!r}")


def _replace_undefined(
    values: np.ndarray, undefined: np.ndarray, replacement: float, name: str
) -> np.ndarray:
    """``values`` with ``replacement`` where ``undefined``, warning as scikit-learn does.

    A NaN replacement leaves the value undefined, for ``zero_division`` to decide (and warn).
    """
    if math.isnan(replacement) or not undefined.any():
        return values
    warnings.warn(
        f"{name} is undefined (zero denominator) for {int(undefined.sum())} of {values.size} value(s) "
        f"and set to replace_undefined_by={replacement}",
        UndefinedMetricWarning,
        stacklevel=6,
    )
    return np.where(undefined, replacement, values)
