"""Law cases of the retrieval metrics: torchmetrics' retrieval metrics (float32 inside, hence the
tolerance) and scikit-learn's ``ndcg_score`` are the references."""

from __future__ import annotations

import warnings

import numpy as np

import streammetrics as sm

from . import LawCase

_QUERIES = np.array(["q0", "q1", "q2", "q3", "q4"])


def _documents(rng: np.random.Generator, n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Binary relevance (bool), distinct positive scores, string query ids."""
    rel = rng.random(n) < 0.4
    return rel, rng.uniform(0.01, 1.0, n) + 0.3 * rel, _QUERIES[rng.integers(0, 5, n)]


def _graded(rng: np.random.Generator, n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rel = rng.integers(0, 4, n).astype(np.float64) * (rng.random(n) < 0.6)
    return rel, rng.uniform(0.01, 1.0, n) + 0.1 * rel, rng.integers(0, 4, n)


def torchmetrics_reference(name: str, **kw):
    def reference(rel, score, query, sample_weight=None):
        import torch
        import torchmetrics.retrieval as tmr

        _, codes = np.unique(np.asarray(query), return_inverse=True)
        metric = getattr(tmr, name)(**kw)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            metric.update(
                torch.tensor(np.asarray(score, dtype=np.float64)),
                torch.tensor(np.asarray(rel)),
                indexes=torch.tensor(codes.astype(np.int64)),
            )
            return float(metric.compute())

    return reference


def _case(name: str, make, reference_name: str, batch=_documents, **kw) -> LawCase:
    return LawCase(
        name, make, batch, torchmetrics_reference(reference_name, **kw), rtol=1e-6, atol=1e-7, weights=False
    )


CASES = [
    _case("RetrievalMAP", sm.RetrievalMAP, "RetrievalMAP"),
    _case(
        "RetrievalMAP[top_k=2-skip]",
        lambda: sm.RetrievalMAP(top_k=2, empty_target_action="skip"),
        "RetrievalMAP",
        top_k=2,
        empty_target_action="skip",
    ),
    _case(
        "RetrievalMRR[top_k=3-pos]",
        lambda: sm.RetrievalMRR(top_k=3, empty_target_action="pos"),
        "RetrievalMRR",
        top_k=3,
        empty_target_action="pos",
    ),
    _case(
        "RetrievalNDCG[top_k=3]",
        lambda: sm.RetrievalNDCG(top_k=3),
        "RetrievalNormalizedDCG",
        _graded,
        top_k=3,
    ),
    _case(
        "RetrievalPrecision[top_k=3-adaptive]",
        lambda: sm.RetrievalPrecision(top_k=3, adaptive_k=True),
        "RetrievalPrecision",
        top_k=3,
        adaptive_k=True,
    ),
    _case(
        "RetrievalRecall[top_k=2-median]",
        lambda: sm.RetrievalRecall(top_k=2, aggregation="median"),
        "RetrievalRecall",
        top_k=2,
        aggregation="median",
    ),
    _case(
        "RetrievalHitRate[top_k=1-max]",
        lambda: sm.RetrievalHitRate(top_k=1, aggregation="max"),
        "RetrievalHitRate",
        top_k=1,
        aggregation="max",
    ),
    _case("RetrievalRPrecision", sm.RetrievalRPrecision, "RetrievalRPrecision"),
    _case("RetrievalFallOut[top_k=2]", lambda: sm.RetrievalFallOut(top_k=2), "RetrievalFallOut", top_k=2),
    _case(
        "RetrievalAUROC[skip]",
        lambda: sm.RetrievalAUROC(empty_target_action="skip"),
        "RetrievalAUROC",
        empty_target_action="skip",
    ),
]
