"""Law cases of the streaming wrappers: MetricCollection, Rolling, Decayed.

Windows are order-dependent: with a window larger than every law batch (and a half-life of 1e9
rows) the laws about merge order and weights hold; the window behaviour itself is tested in
``tests/streaming`` against references computed on the window's rows.
"""

from __future__ import annotations

import warnings

import numpy as np
from sklearn import metrics as skm

import streammetrics as sm

from . import LawCase


def _binary(rng: np.random.Generator, n: int) -> tuple[np.ndarray, np.ndarray]:
    y = rng.integers(0, 2, n)
    return y, np.where(rng.random(n) < 0.7, y, 1 - y)


def _quiet(fn):
    def wrapped(*args, **kwargs):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return fn(*args, **kwargs)

    return wrapped


def _collection() -> sm.MetricCollection:
    return sm.MetricCollection(
        {
            "f1": sm.F1(),
            "precision": sm.Precision(),
            "acc": sm.Accuracy(),
            "recall_macro": sm.Recall(average="macro"),
            "mcc": sm.MCC(),
        },
        prefix="train/",
    )


@_quiet
def _collection_reference(y_true, y_pred, sample_weight=None):
    kw = {"sample_weight": sample_weight}
    return {
        "train/f1": skm.f1_score(y_true, y_pred, **kw),
        "train/precision": skm.precision_score(y_true, y_pred, **kw),
        "train/acc": skm.accuracy_score(y_true, y_pred, **kw),
        "train/recall_macro": skm.recall_score(y_true, y_pred, average="macro", **kw),
        "train/mcc": skm.matthews_corrcoef(y_true, y_pred, **kw),
    }


@_quiet
def _f1(y_true, y_pred, sample_weight=None):
    return skm.f1_score(y_true, y_pred, sample_weight=sample_weight)


@_quiet
def _accuracy(y_true, y_pred, sample_weight=None):
    return skm.accuracy_score(y_true, y_pred, sample_weight=sample_weight)


CASES = [
    LawCase("MetricCollection[binary]", _collection, _binary, _collection_reference),
    LawCase("Rolling[F1-exact]", lambda: sm.Rolling(sm.F1(), window=1000), _binary, _f1),
    LawCase("Rolling[F1-panes]", lambda: sm.Rolling(sm.F1(), window=1000, panes=100), _binary, _f1),
    LawCase(
        "Decayed[Accuracy-half_life=1e9]",
        lambda: sm.Decayed(sm.Accuracy(), half_life=1e9),
        _binary,
        _accuracy,
        rtol=1e-6,
    ),
]

# Real windows: small enough for the law batches to overflow them, and a real decay. (A pane
# window is exact only at pane boundaries, so its small-window behaviour is tested in
# tests/streaming instead.)
ORDERED = frozenset({"ordered"})
CASES += [
    # A window counts rows: a row of weight 2 is one row, and a weight-0 row still takes a place.
    LawCase(
        "Rolling[F1-window=7]",
        lambda: sm.Rolling(sm.F1(), window=7),
        _binary,
        None,
        weights=False,
        tags=ORDERED,
    ),
    LawCase(
        "Decayed[Accuracy-half_life=5]",
        lambda: sm.Decayed(sm.Accuracy(), half_life=5),
        _binary,
        None,
        rtol=1e-9,
        weights=False,  # age counts rows: a weight of 2 is not two rows of different ages
        tags=ORDERED,
    ),
]
