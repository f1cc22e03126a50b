"""Per-class formulas of the 2x2 confusion matrix (seed 003), vectorized over classes.

Each function takes arrays ``tp, fp, fn, tn`` (float64, one entry per class) and returns the
value per class, with NaN exactly where the value is undefined (a zero denominator). The
``zero_division`` policy is applied later, in :mod:`.averaging`.

Examples:
    >>> import numpy as np
    >>> tp, fp, fn, tn = (np.array([v], float) for v in (8, 2, 4, 86))
    >>> float(tpr(tp, fp, fn, tn)[0]), float(ppv(tp, fp, fn, tn)[0])
    (0.6666666666666666, 0.8)
"""

from __future__ import annotations

import numpy as np

Arr = np.ndarray


def _div(num: Arr, den: Arr) -> Arr:
    """``num / den`` with NaN where ``den == 0``."""
    if not (type(num) is type(den) is np.ndarray and num.shape == den.shape):  # (the usual case)
        num, den = np.broadcast_arrays(np.asarray(num, np.float64), np.asarray(den, np.float64))
    out = np.full(num.shape, np.nan)
    ok = den != 0
    np.divide(num, den, out=out, where=ok)
    return out


def tpr(tp: Arr, fp: Arr, fn: Arr, tn: Arr) -> Arr:
    """Sensitivity, recall, true positive rate: TP / (TP + FN).

    Examples:
        >>> import numpy as np
        >>> tp, fp, fn, tn = (np.array([v], float) for v in (8, 2, 4, 86))
        >>> float(tpr(tp, fp, fn, tn)[0])
        0.6666666666666666
    """
    return _div(tp, tp + fn)


def tnr(tp: Arr, fp: Arr, fn: Arr, tn: Arr) -> Arr:
    """Specificity, true negative rate: TN / (TN + FP).

    Examples:
        >>> import numpy as np
        >>> tp, fp, fn, tn = (np.array([v], float) for v in (8, 2, 4, 86))
        >>> float(tnr(tp, fp, fn, tn)[0])
        0.9772727272727273
    """
    return _div(tn, tn + fp)


def fpr(tp: Arr, fp: Arr, fn: Arr, tn: Arr) -> Arr:
    """Fall-out, false positive rate: FP / (FP + TN) = 1 - TNR.

    Examples:
        >>> import numpy as np
        >>> tp, fp, fn, tn = (np.array([v], float) for v in (8, 2, 4, 86))
        >>> float(fpr(tp, fp, fn, tn)[0])
        0.022727272727272728
    """
    return _div(fp, fp + tn)


def fnr(tp: Arr, fp: Arr, fn: Arr, tn: Arr) -> Arr:
    """Miss rate, false negative rate: FN / (FN + TP) = 1 - TPR.

    Examples:
        >>> import numpy as np
        >>> tp, fp, fn, tn = (np.array([v], float) for v in (8, 2, 4, 86))
        >>> float(fnr(tp, fp, fn, tn)[0])
        0.3333333333333333
    """
    return _div(fn, fn + tp)


def ppv(tp: Arr, fp: Arr, fn: Arr, tn: Arr) -> Arr:
    """Precision, positive predictive value: TP / (TP + FP).

    Examples:
        >>> import numpy as np
        >>> tp, fp, fn, tn = (np.array([v], float) for v in (8, 2, 4, 86))
        >>> float(ppv(tp, fp, fn, tn)[0])
        0.8
    """
    return _div(tp, tp + fp)


def npv(tp: Arr, fp: Arr, fn: Arr, tn: Arr) -> Arr:
    """Negative predictive value: TN / (TN + FN).

    Examples:
        >>> import numpy as np
        >>> tp, fp, fn, tn = (np.array([v], float) for v in (8, 2, 4, 86))
        >>> float(npv(tp, fp, fn, tn)[0])
        0.9555555555555556
    """
    return _div(tn, tn + fn)


def fdr(tp: Arr, fp: Arr, fn: Arr, tn: Arr) -> Arr:
    """False discovery rate: FP / (FP + TP) = 1 - PPV.

    Examples:
        >>> import numpy as np
        >>> tp, fp, fn, tn = (np.array([v], float) for v in (8, 2, 4, 86))
        >>> float(fdr(tp, fp, fn, tn)[0])
        0.2
    """
    return _div(fp, fp + tp)


def false_omission_rate(tp: Arr, fp: Arr, fn: Arr, tn: Arr) -> Arr:
    """False omission rate: FN / (FN + TN) = 1 - NPV.

    Examples:
        >>> import numpy as np
        >>> tp, fp, fn, tn = (np.array([v], float) for v in (8, 2, 4, 86))
        >>> float(false_omission_rate(tp, fp, fn, tn)[0])
        0.044444444444444446
    """
    return _div(fn, fn + tn)


def fbeta(tp: Arr, fp: Arr, fn: Arr, tn: Arr, beta: float = 1.0) -> Arr:
    """F-beta: (1 + b²) TP / ((1 + b²) TP + b² FN + FP), as scikit-learn computes it.

    ``beta = inf`` gives the recall and ``beta = 0`` the precision.

    Examples:
        >>> import numpy as np
        >>> tp, fp, fn, tn = (np.array([v], float) for v in (8, 2, 4, 86))
        >>> float(fbeta(tp, fp, fn, tn)[0])
        0.7272727272727273
    """
    if beta == np.inf:
        return tpr(tp, fp, fn, tn)
    if beta == 0:
        return ppv(tp, fp, fn, tn)
    b2 = float(beta) * float(beta)
    if b2 < 2.0**500:
        return _div((1 + b2) * tp, (1 + b2) * tp + b2 * fn + fp)
    # A huge beta (b² may even overflow to inf): divided through by b², so that no product
    # overflows into inf / inf; the value tends to the recall (exactly it once 1 / b² is 0).
    tp, fp, fn = (np.asarray(a, np.float64) for a in (tp, fp, fn))
    inv = 1.0 / b2
    num = tp * (1.0 + inv)
    den = num + fn + fp * inv
    # no true and no correct prediction but false positives: 0 for every finite beta
    return np.where((den == 0) & (fp > 0), 0.0, _div(num, den))


def jaccard(tp: Arr, fp: Arr, fn: Arr, tn: Arr) -> Arr:
    """Jaccard index, critical success index: TP / (TP + FP + FN).

    Examples:
        >>> import numpy as np
        >>> tp, fp, fn, tn = (np.array([v], float) for v in (8, 2, 4, 86))
        >>> float(jaccard(tp, fp, fn, tn)[0])
        0.5714285714285714
    """
    return _div(tp, tp + fp + fn)


def informedness(tp: Arr, fp: Arr, fn: Arr, tn: Arr) -> Arr:
    """Bookmaker informedness, Youden's J at this threshold: TPR + TNR - 1.

    Examples:
        >>> import numpy as np
        >>> tp, fp, fn, tn = (np.array([v], float) for v in (8, 2, 4, 86))
        >>> float(informedness(tp, fp, fn, tn)[0])
        0.643939393939394
    """
    return tpr(tp, fp, fn, tn) + tnr(tp, fp, fn, tn) - 1.0


def markedness(tp: Arr, fp: Arr, fn: Arr, tn: Arr) -> Arr:
    """Markedness: PPV + NPV - 1.

    Examples:
        >>> import numpy as np
        >>> tp, fp, fn, tn = (np.array([v], float) for v in (8, 2, 4, 86))
        >>> float(markedness(tp, fp, fn, tn)[0])
        0.7555555555555555
    """
    return ppv(tp, fp, fn, tn) + npv(tp, fp, fn, tn) - 1.0


def fowlkes_mallows(tp: Arr, fp: Arr, fn: Arr, tn: Arr) -> Arr:
    """Fowlkes-Mallows index: the geometric mean sqrt(PPV * TPR).

    Examples:
        >>> import numpy as np
        >>> tp, fp, fn, tn = (np.array([v], float) for v in (8, 2, 4, 86))
        >>> float(fowlkes_mallows(tp, fp, fn, tn)[0])
        0.7302967433402214
    """
    return np.sqrt(ppv(tp, fp, fn, tn) * tpr(tp, fp, fn, tn))


def positive_likelihood_ratio(tp: Arr, fp: Arr, fn: Arr, tn: Arr) -> Arr:
    """LR+ = TPR / FPR; undefined when FP = 0 or there are no positives (as scikit-learn).

    Examples:
        >>> import numpy as np
        >>> tp, fp, fn, tn = (np.array([v], float) for v in (8, 2, 4, 86))
        >>> float(positive_likelihood_ratio(tp, fp, fn, tn)[0])
        29.333333333333332
    """
    return _div(tp * (tn + fp), fp * (tp + fn))


def negative_likelihood_ratio(tp: Arr, fp: Arr, fn: Arr, tn: Arr) -> Arr:
    """LR- = FNR / TNR; undefined when TN = 0 or there are no positives (as scikit-learn).

    Examples:
        >>> import numpy as np
        >>> tp, fp, fn, tn = (np.array([v], float) for v in (8, 2, 4, 86))
        >>> float(negative_likelihood_ratio(tp, fp, fn, tn)[0])
        0.34108527131782945
    """
    return _div(fn * (tn + fp), tn * (tp + fn))


def diagnostic_odds_ratio(tp: Arr, fp: Arr, fn: Arr, tn: Arr) -> Arr:
    """DOR = LR+ / LR- = (TP · TN) / (FP · FN); undefined when FP · FN = 0.

    Examples:
        >>> import numpy as np
        >>> tp, fp, fn, tn = (np.array([v], float) for v in (8, 2, 4, 86))
        >>> float(diagnostic_odds_ratio(tp, fp, fn, tn)[0])
        86.0
    """
    return _div(tp * tn, fp * fn)


def prevalence_threshold(tp: Arr, fp: Arr, fn: Arr, tn: Arr) -> Arr:
    """Prevalence threshold: (sqrt(TPR · FPR) - FPR) / (TPR - FPR).

    Examples:
        >>> import numpy as np
        >>> tp, fp, fn, tn = (np.array([v], float) for v in (8, 2, 4, 86))
        >>> float(prevalence_threshold(tp, fp, fn, tn)[0])
        0.15585972716790497
    """
    sens, fall_out = tpr(tp, fp, fn, tn), fpr(tp, fp, fn, tn)
    return _div(np.sqrt(sens * fall_out) - fall_out, sens - fall_out)


def prevalence(tp: Arr, fp: Arr, fn: Arr, tn: Arr) -> Arr:
    """Prevalence: (TP + FN) / N.

    Examples:
        >>> import numpy as np
        >>> tp, fp, fn, tn = (np.array([v], float) for v in (8, 2, 4, 86))
        >>> float(prevalence(tp, fp, fn, tn)[0])
        0.12
    """
    return _div(tp + fn, tp + fp + fn + tn)


def accuracy(tp: Arr, fp: Arr, fn: Arr, tn: Arr) -> Arr:
    """Accuracy of the 2x2 table: (TP + TN) / N.

    Examples:
        >>> import numpy as np
        >>> tp, fp, fn, tn = (np.array([v], float) for v in (8, 2, 4, 86))
        >>> float(accuracy(tp, fp, fn, tn)[0])
        0.94
    """
    return _div(tp + tn, tp + fp + fn + tn)


def balanced_accuracy(tp: Arr, fp: Arr, fn: Arr, tn: Arr) -> Arr:
    """Balanced accuracy of the 2x2 table: (TPR + TNR) / 2.

    Examples:
        >>> import numpy as np
        >>> tp, fp, fn, tn = (np.array([v], float) for v in (8, 2, 4, 86))
        >>> float(balanced_accuracy(tp, fp, fn, tn)[0])
        0.821969696969697
    """
    return (tpr(tp, fp, fn, tn) + tnr(tp, fp, fn, tn)) / 2.0


def mcc(tp: Arr, fp: Arr, fn: Arr, tn: Arr) -> Arr:
    """Matthews correlation of the 2x2 table; undefined (NaN) when a margin is zero.

    Examples:
        >>> import numpy as np
        >>> tp, fp, fn, tn = (np.array([v], float) for v in (8, 2, 4, 86))
        >>> float(mcc(tp, fp, fn, tn)[0])
        0.6975184488828855
    """
    den = np.sqrt((tp + fp) * (tp + fn) * (tn + fp) * (tn + fn))
    return _div(tp * tn - fp * fn, den)


def cohen_kappa(tp: Arr, fp: Arr, fn: Arr, tn: Arr) -> Arr:
    """Cohen's kappa of the 2x2 table: (p_o - p_e) / (1 - p_e).

    Examples:
        >>> import numpy as np
        >>> tp, fp, fn, tn = (np.array([v], float) for v in (8, 2, 4, 86))
        >>> float(cohen_kappa(tp, fp, fn, tn)[0])
        0.693877551020408
    """
    n = tp + fp + fn + tn
    expected = ((tp + fp) * (tp + fn) + (fn + tn) * (fp + tn)) / np.where(n == 0, 1, n)
    return _div(tp + tn - expected, n - expected)


def hamming(tp: Arr, fp: Arr, fn: Arr, tn: Arr) -> Arr:
    """Fraction of wrong decisions: (FP + FN) / N.

    Examples:
        >>> import numpy as np
        >>> tp, fp, fn, tn = (np.array([v], float) for v in (8, 2, 4, 86))
        >>> float(hamming(tp, fp, fn, tn)[0])
        0.06
    """
    return _div(fp + fn, tp + fp + fn + tn)


RATE_FUNCTIONS = {
    "tpr": tpr,
    "tnr": tnr,
    "fpr": fpr,
    "fnr": fnr,
    "ppv": ppv,
    "npv": npv,
    "fdr": fdr,
    "for": false_omission_rate,
}


def mean_of_rates(a: Arr, b: Arr, kind: str) -> Arr:
    """Combine two rates as seed 003 tabulates: arithmetic, harmonic, geometric, sum-minus-one, ratio.

    Examples:
        >>> import numpy as np
        >>> float(mean_of_rates(np.array([0.8]), np.array([0.5]), "harmonic")[0])
        0.6153846153846154
    """
    a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
    if kind == "arithmetic":
        return (a + b) / 2.0
    if kind == "harmonic":
        return _div(2.0 * a * b, a + b)
    if kind == "geometric":
        return np.sqrt(a * b)
    if kind == "sum_minus_one":
        return a + b - 1.0
    if kind == "ratio":
        return _div(a, b)
    raise ValueError(
        "kind: expected one of ['arithmetic', 'harmonic', 'geometric', 'sum_minus_one', 'ratio'], "
        f"found {kind!r}"
    )
