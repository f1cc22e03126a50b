"""Law cases of the confusion family, with scikit-learn (or textbook 2x2 formulas) as reference."""

from __future__ import annotations

import warnings

import numpy as np
from sklearn import metrics as skm

import streammetrics as sm

from . import LawCase


def _binary(rng: np.random.Generator, n: int) -> tuple[np.ndarray, np.ndarray]:
    y = rng.integers(0, 2, n)
    return y, np.where(rng.random(n) < 0.7, y, 1 - y)


def _multiclass(rng: np.random.Generator, n: int) -> tuple[np.ndarray, np.ndarray]:
    y = rng.integers(0, 4, n)
    return y, np.where(rng.random(n) < 0.6, y, rng.integers(0, 4, n))


def _strings(rng: np.random.Generator, n: int) -> tuple[np.ndarray, np.ndarray]:
    y, p = _multiclass(rng, n)
    names = np.array(["ant", "bee", "cat", "dog"])
    return names[y], names[p]


def _multilabel(rng: np.random.Generator, n: int) -> tuple[np.ndarray, np.ndarray]:
    y = rng.integers(0, 2, (n, 3))
    return y, np.where(rng.random((n, 3)) < 0.7, y, 1 - y)


def _scores(rng: np.random.Generator, n: int) -> tuple[np.ndarray, np.ndarray]:
    y = rng.integers(0, 2, n)
    return y, np.clip(0.3 * y + 0.7 * rng.random(n), 0, 1)


def _finite_or_nan(value: float) -> float:
    return value if np.isfinite(value) else float("nan")


def _quiet(fn):
    def wrapped(*args, **kwargs):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return fn(*args, **kwargs)

    return wrapped


def _mcm_rate(rate, average, labels=None):
    """Reference for metrics scikit-learn lacks: its multilabel confusion matrix + the formula."""

    def ref(y_true, y_pred, sample_weight=None):
        mcm = skm.multilabel_confusion_matrix(y_true, y_pred, sample_weight=sample_weight, labels=labels)
        tn, fp, fn, tp = (mcm[:, i, j].astype(float) for i, j in ((0, 0), (0, 1), (1, 0), (1, 1)))
        if average == "binary":
            present = np.unique(np.concatenate([y_true, y_pred]))
            idx = list(present).index(1) if 1 in present else None
            tp, fp, fn, tn = (
                (a[idx : idx + 1] for a in (tp, fp, fn, tn))
                if idx is not None
                else (np.array([0.0]), np.array([0.0]), np.array([0.0]), np.array([mcm[0].sum()]))
            )
        if average == "micro":
            tp, fp, fn, tn = (np.array([a.sum()]) for a in (tp, fp, fn, tn))
        with np.errstate(all="ignore"):
            values = rate(tp, fp, fn, tn)
        values = np.where(np.isfinite(values), values, 0.0)  # undefined -> zero_division=0.0
        if average == "macro":
            return values.mean()
        if average == "weighted":
            return np.average(values, weights=tp + fn) if (tp + fn).sum() else values.mean()
        return values if average is None else values[0]

    return ref


def _t(f):  # textbook 2x2 formulas written directly, independent of streammetrics.rates
    return f


TEXTBOOK = {
    sm.Specificity: lambda tp, fp, fn, tn: tn / (tn + fp),
    sm.NPV: lambda tp, fp, fn, tn: tn / (tn + fn),
    sm.FPR: lambda tp, fp, fn, tn: fp / (fp + tn),
    sm.FNR: lambda tp, fp, fn, tn: fn / (fn + tp),
    sm.FDR: lambda tp, fp, fn, tn: fp / (fp + tp),
    sm.FOR: lambda tp, fp, fn, tn: fn / (fn + tn),
    sm.Informedness: lambda tp, fp, fn, tn: tp / (tp + fn) + tn / (tn + fp) - 1,
    sm.Markedness: lambda tp, fp, fn, tn: tp / (tp + fp) + tn / (tn + fn) - 1,
    sm.FowlkesMallows: lambda tp, fp, fn, tn: np.sqrt(tp / (tp + fp) * tp / (tp + fn)),
    sm.Prevalence: lambda tp, fp, fn, tn: (tp + fn) / (tp + fp + fn + tn),
    sm.DiagnosticOddsRatio: lambda tp, fp, fn, tn: (tp * tn) / (fp * fn),
    sm.PrevalenceThreshold: lambda tp, fp, fn, tn: (
        (np.sqrt(tp / (tp + fn) * fp / (fp + tn)) - fp / (fp + tn)) / (tp / (tp + fn) - fp / (fp + tn))
    ),
}

CASES: list[LawCase] = []

for average, data in (
    ("binary", _binary),
    ("macro", _multiclass),
    ("weighted", _strings),
    ("micro", _multiclass),
):
    kw = {"average": average, "zero_division": 0.0}
    CASES += [
        LawCase(
            f"Precision[{average}]",
            lambda kw=kw: sm.Precision(**kw),
            data,
            _quiet(
                lambda t, p, sample_weight=None, kw=kw: skm.precision_score(
                    t, p, sample_weight=sample_weight, **kw
                )
            ),
            exact=True,
        ),
        LawCase(
            f"Recall[{average}]",
            lambda kw=kw: sm.Recall(**kw),
            data,
            _quiet(
                lambda t, p, sample_weight=None, kw=kw: skm.recall_score(
                    t, p, sample_weight=sample_weight, **kw
                )
            ),
            exact=True,
        ),
        LawCase(
            f"F1[{average}]",
            lambda kw=kw: sm.F1(**kw),
            data,
            _quiet(
                lambda t, p, sample_weight=None, kw=kw: skm.f1_score(t, p, sample_weight=sample_weight, **kw)
            ),
            exact=True,
        ),
        LawCase(
            f"FBeta[{average}]",
            lambda kw=kw: sm.FBeta(beta=0.5, **kw),
            data,
            _quiet(
                lambda t, p, sample_weight=None, kw=kw: skm.fbeta_score(
                    t, p, beta=0.5, sample_weight=sample_weight, **kw
                )
            ),
            exact=True,
        ),
        LawCase(
            f"Jaccard[{average}]",
            lambda kw=kw: sm.Jaccard(**kw),
            data,
            _quiet(
                lambda t, p, sample_weight=None, kw=kw: skm.jaccard_score(
                    t, p, sample_weight=sample_weight, **kw
                )
            ),
            exact=True,
        ),
    ]

for average in ("samples", "macro", "micro"):
    kw = {"average": average, "zero_division": 0.0}
    CASES += [
        LawCase(
            f"F1[multilabel-{average}]",
            lambda kw=kw: sm.F1(**kw),
            _multilabel,
            _quiet(
                lambda t, p, sample_weight=None, kw=kw: skm.f1_score(t, p, sample_weight=sample_weight, **kw)
            ),
            exact=True,
        ),
        LawCase(
            f"Precision[multilabel-{average}]",
            lambda kw=kw: sm.Precision(**kw),
            _multilabel,
            _quiet(
                lambda t, p, sample_weight=None, kw=kw: skm.precision_score(
                    t, p, sample_weight=sample_weight, **kw
                )
            ),
            exact=True,
        ),
    ]

CASES += [
    LawCase(
        "F1[threshold]",
        lambda: sm.F1(threshold=0.5),
        _scores,
        _quiet(
            lambda t, s, sample_weight=None: skm.f1_score(
                t, (s >= 0.5).astype(int), sample_weight=sample_weight, zero_division=0.0
            )
        ),
        exact=True,
    ),
    LawCase(
        "Accuracy[binary]",
        sm.Accuracy,
        _binary,
        lambda t, p, sample_weight=None: skm.accuracy_score(t, p, sample_weight=sample_weight),
        exact=True,
    ),
    LawCase(
        "Accuracy[strings]",
        sm.Accuracy,
        _strings,
        lambda t, p, sample_weight=None: skm.accuracy_score(t, p, sample_weight=sample_weight),
        exact=True,
    ),
    LawCase(
        "Accuracy[multilabel]",
        sm.Accuracy,
        _multilabel,
        lambda t, p, sample_weight=None: skm.accuracy_score(t, p, sample_weight=sample_weight),
        exact=True,
    ),
    LawCase(
        "Accuracy[normalize=False]",
        lambda: sm.Accuracy(normalize=False),
        _strings,
        lambda t, p, sample_weight=None: skm.accuracy_score(
            t, p, normalize=False, sample_weight=sample_weight
        ),
        exact=True,
    ),
    LawCase(
        "SubsetAccuracy",
        sm.SubsetAccuracy,
        _multilabel,
        lambda t, p, sample_weight=None: skm.accuracy_score(t, p, sample_weight=sample_weight),
        exact=True,
    ),
    LawCase(
        "HammingLoss[multiclass]",
        sm.HammingLoss,
        _multiclass,
        lambda t, p, sample_weight=None: skm.hamming_loss(t, p, sample_weight=sample_weight),
        exact=True,
    ),
    LawCase(
        "HammingLoss[multilabel]",
        sm.HammingLoss,
        _multilabel,
        lambda t, p, sample_weight=None: skm.hamming_loss(t, p, sample_weight=sample_weight),
        exact=True,
    ),
    LawCase(
        "BalancedAccuracy",
        sm.BalancedAccuracy,
        _multiclass,
        _quiet(
            lambda t, p, sample_weight=None: skm.balanced_accuracy_score(t, p, sample_weight=sample_weight)
        ),
        exact=True,
    ),
    LawCase(
        "BalancedAccuracy[adjusted]",
        lambda: sm.BalancedAccuracy(adjusted=True),
        _binary,
        # One class in y_true: scikit-learn divides by 1 - 1/1 = 0 (-inf or nan); we return NaN.
        _quiet(
            lambda t, p, sample_weight=None: _finite_or_nan(
                skm.balanced_accuracy_score(t, p, sample_weight=sample_weight, adjusted=True)
            )
        ),
        exact=True,
    ),
    LawCase(
        "MCC[binary]",
        sm.MCC,
        _binary,
        lambda t, p, sample_weight=None: skm.matthews_corrcoef(t, p, sample_weight=sample_weight),
        exact=True,
    ),
    LawCase(
        "MCC[multiclass]",
        sm.MCC,
        _multiclass,
        lambda t, p, sample_weight=None: skm.matthews_corrcoef(t, p, sample_weight=sample_weight),
        exact=True,
    ),
    LawCase(
        "CohenKappa",
        sm.CohenKappa,
        _multiclass,
        _quiet(lambda t, p, sample_weight=None: skm.cohen_kappa_score(t, p, sample_weight=sample_weight)),
        exact=True,
    ),
    LawCase(
        "CohenKappa[quadratic]",
        lambda: sm.CohenKappa(weights="quadratic"),
        _multiclass,
        _quiet(
            lambda t, p, sample_weight=None: skm.cohen_kappa_score(
                t, p, weights="quadratic", sample_weight=sample_weight
            )
        ),
        exact=True,
    ),
    LawCase(
        "ConfusionMatrix",
        sm.ConfusionMatrix,
        _strings,
        lambda t, p, sample_weight=None: skm.confusion_matrix(t, p, sample_weight=sample_weight),
        exact=True,
    ),
    LawCase(
        "ConfusionMatrix[multilabel]",
        sm.ConfusionMatrix,
        _multilabel,
        lambda t, p, sample_weight=None: skm.multilabel_confusion_matrix(t, p, sample_weight=sample_weight),
        exact=True,
    ),
    LawCase(
        "ConfusionMatrix[normalize]",
        lambda: sm.ConfusionMatrix(normalize="true"),
        _multiclass,
        lambda t, p, sample_weight=None: skm.confusion_matrix(
            t, p, sample_weight=sample_weight, normalize="true"
        ),
    ),
    LawCase(
        "MultilabelConfusionMatrix",
        sm.MultilabelConfusionMatrix,
        _strings,
        lambda t, p, sample_weight=None: skm.multilabel_confusion_matrix(t, p, sample_weight=sample_weight),
        exact=True,
    ),
    LawCase(
        "MultilabelConfusionMatrix[multilabel]",
        sm.MultilabelConfusionMatrix,
        _multilabel,
        lambda t, p, sample_weight=None: skm.multilabel_confusion_matrix(t, p, sample_weight=sample_weight),
        exact=True,
    ),
    # One table per row: a merge appends the other's rows ("ordered"), and a weight-k row is one
    # table scaled by k, not k tables (no weights law; weight 0 still leaves the row out).
    LawCase(
        "MultilabelConfusionMatrix[samplewise]",
        lambda: sm.MultilabelConfusionMatrix(samplewise=True),
        _multilabel,
        lambda t, p, sample_weight=None: skm.multilabel_confusion_matrix(t, p, samplewise=True),
        exact=True,
        weights=False,
        tags=frozenset({"ordered"}),
    ),
    LawCase(
        "ClassificationReport",
        sm.ClassificationReport,
        _multiclass,
        _quiet(
            lambda t, p, sample_weight=None: skm.classification_report(
                t, p, sample_weight=sample_weight, output_dict=True, zero_division=0.0
            )
        ),
        exact=True,
    ),
    LawCase(
        "PositiveLikelihoodRatio",
        lambda: sm.PositiveLikelihoodRatio(zero_division=np.nan),
        _binary,
        _quiet(
            lambda t, p, sample_weight=None: skm.class_likelihood_ratios(
                t, p, sample_weight=sample_weight, labels=[0, 1]
            )[0]
        ),
    ),
    LawCase(
        "NegativeLikelihoodRatio",
        lambda: sm.NegativeLikelihoodRatio(zero_division=np.nan),
        _binary,
        _quiet(
            lambda t, p, sample_weight=None: skm.class_likelihood_ratios(
                t, p, sample_weight=sample_weight, labels=[0, 1]
            )[1]
        ),
    ),
    LawCase(
        "RateMean[tpr,tnr,harmonic]",
        lambda: sm.RateMean("tpr", "tnr", "harmonic", zero_division=0.0),
        _binary,
        _mcm_rate(lambda tp, fp, fn, tn: 2 / (1 / (tp / (tp + fn)) + 1 / (tn / (tn + fp))), "binary"),
    ),
]

for cls, formula in TEXTBOOK.items():
    CASES.append(
        LawCase(
            f"{cls.__name__}[binary]",
            lambda cls=cls: cls(zero_division=0.0),
            _binary,
            _mcm_rate(formula, "binary"),
        )
    )
    CASES.append(
        LawCase(
            f"{cls.__name__}[macro]",
            lambda cls=cls: cls(average="macro", zero_division=0.0),
            _multiclass,
            _mcm_rate(formula, "macro"),
        )
    )
