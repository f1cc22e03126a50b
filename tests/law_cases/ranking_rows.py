"""Law cases of the multilabel ranking metrics and the per-query DCG/NDCG on the per-row value
state (issue 17), with scikit-learn as reference (ties included: scores rounded to one decimal)."""

from __future__ import annotations

import numpy as np
from sklearn import metrics as skm

import streammetrics as sm

from . import LawCase


def _multilabel(rng: np.random.Generator, n: int) -> tuple[np.ndarray, np.ndarray]:
    """0/1 relevance of 5 labels (rows with none or all relevant included) and tied scores."""
    y = (rng.random((n, 5)) < rng.uniform(0.0, 1.0, (n, 1))).astype(int)
    return y, np.round(rng.standard_normal((n, 5)) + y, 1)


def _queries(rng: np.random.Generator, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Graded relevances 0..3 of 6 documents per query and tied scores."""
    y = rng.integers(0, 4, (n, 6)).astype(float)
    return y, np.round(0.5 * y + rng.standard_normal((n, 6)), 1)


def _sk(fn, **kw):
    return lambda y, s, sample_weight=None: fn(y, s, sample_weight=sample_weight, **kw)


CASES = [
    LawCase("CoverageError", sm.CoverageError, _multilabel, _sk(skm.coverage_error)),
    LawCase(
        "LabelRankingAveragePrecision",
        sm.LabelRankingAveragePrecision,
        _multilabel,
        _sk(skm.label_ranking_average_precision_score),
    ),
    LawCase("LabelRankingLoss", sm.LabelRankingLoss, _multilabel, _sk(skm.label_ranking_loss)),
    LawCase("DCG", sm.DCG, _queries, _sk(skm.dcg_score)),
    LawCase(
        "DCG[k=3-base10]", lambda: sm.DCG(3, log_base=10), _queries, _sk(skm.dcg_score, k=3, log_base=10)
    ),
    LawCase("NDCG", sm.NDCG, _queries, _sk(skm.ndcg_score)),
    LawCase("NDCG[multilabel]", sm.NDCG, _multilabel, _sk(skm.ndcg_score)),
    LawCase(
        "NDCG[ignore_ties]",
        lambda: sm.NDCG(3, ignore_ties=True),
        _queries,
        _sk(skm.ndcg_score, k=3, ignore_ties=True),
    ),
]
