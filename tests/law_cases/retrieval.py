"""Law cases of the retrieval metrics: the reference is torchmetrics' definitions written out per
query in plain Python (torchmetrics itself is compared in ``tests/keyed/test_retrieval.py``, where
it is installed) and scikit-learn's ``ndcg_score``."""

from __future__ import annotations

import math

import numpy as np
from sklearn.metrics import ndcg_score, roc_auc_score

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


def _per_query(
    rel: np.ndarray,
    score: np.ndarray,
    name: str,
    k: int | None,
    adaptive_k: bool,
    max_fpr: float | None = None,
) -> float:
    """torchmetrics' retrieval function ``name`` on one query, written out in plain Python
    (the partial ROC area: scikit-learn's ``roc_auc_score(max_fpr=...)``)."""
    order = sorted(range(len(score)), key=lambda i: -score[i])
    ranked = [float(rel[i]) for i in order]
    n, n_rel = len(ranked), sum(1 for r in ranked if r > 0)
    top = ranked[: n if k is None else k]
    hits = [1 if r > 0 else 0 for r in top]
    if name == "RetrievalMAP":
        found = [i for i, h in enumerate(hits) if h]
        return math.fsum((j + 1) / (i + 1) for j, i in enumerate(found)) / len(found) if found else 0.0
    if name == "RetrievalMRR":
        return 1.0 / (hits.index(1) + 1) if 1 in hits else 0.0
    if name == "RetrievalPrecision":
        kk = n if k is None else (min(k, n) if adaptive_k else k)
        return sum(hits) / kk
    if name == "RetrievalRecall":
        return sum(hits) / n_rel
    if name == "RetrievalHitRate":
        return float(sum(hits) > 0)
    if name == "RetrievalRPrecision":
        return sum(1 for r in ranked[:n_rel] if r > 0) / n_rel
    if name == "RetrievalFallOut":
        return sum(1 for r in top if r == 0) / (n - n_rel)
    if name == "RetrievalAUROC" and max_fpr is not None:
        both = 0 < sum(1 for r in rel if r > 0) < n
        return float(roc_auc_score(np.asarray(rel) > 0, score, max_fpr=max_fpr)) if both else 0.0
    if name == "RetrievalAUROC":
        pos = [score[i] for i in range(n) if rel[i] > 0]
        neg = [score[i] for i in range(n) if rel[i] == 0]
        if not pos or not neg:
            return 0.0
        return math.fsum(1.0 if p > q else 0.5 if p == q else 0.0 for p in pos for q in neg) / (
            len(pos) * len(neg)
        )
    if name == "RetrievalNDCG":
        return float(ndcg_score([rel], [score], k=k)) if len(rel) > 1 else (1.0 if rel[0] > 0 else 0.0)
    raise ValueError(name)


def reference_for(name: str, top_k: int | None = None, empty_target_action: str = "neg",
                  aggregation: str = "mean", adaptive_k: bool = False, max_fpr: float | None = None):  # fmt: skip
    """The metric over queries: per-query values (empty targets per ``empty_target_action``),
    then ``aggregation`` (the median is the lower middle value, as torch's)."""

    def reference(rel, score, query, sample_weight=None):
        rel, score, query = np.asarray(rel, dtype=float), np.asarray(score, dtype=float), np.asarray(query)
        values = []
        for q in sorted(set(query.tolist())):
            rows = query == q
            r, s = rel[rows], score[rows]
            empty = (r == 0).sum() == 0 if name == "RetrievalFallOut" else r.sum() == 0
            if empty:
                if empty_target_action != "skip":
                    values.append(1.0 if empty_target_action == "pos" else 0.0)
                continue
            values.append(_per_query(r, s, name, top_k, adaptive_k, max_fpr))
        if not values:
            return 0.0
        if aggregation == "median":
            return sorted(values)[(len(values) - 1) // 2]
        return {"mean": lambda v: math.fsum(v) / len(v), "min": min, "max": max}[aggregation](values)

    return reference


def _case(name: str, make, reference_name: str, batch=_documents, **kw) -> LawCase:
    return LawCase(
        name, make, batch, reference_for(reference_name, **kw), rtol=1e-12, atol=1e-12, weights=False
    )


CASES = [
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
        "RetrievalNDCG",
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
    _case(
        "RetrievalFallOut[top_k=2]",
        lambda: sm.RetrievalFallOut(top_k=2),
        "RetrievalFallOut",
        top_k=2,
        empty_target_action="pos",
    ),
    _case(
        "RetrievalAUROC[max_fpr=0.4]",
        lambda: sm.RetrievalAUROC(max_fpr=0.4),
        "RetrievalAUROC",
        max_fpr=0.4,
    ),
    _case(
        "RetrievalAUROC[skip]",
        lambda: sm.RetrievalAUROC(empty_target_action="skip"),
        "RetrievalAUROC",
        empty_target_action="skip",
    ),
]
