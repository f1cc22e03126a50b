"""Retrieval metrics keyed by query id (issue 19): exact, mergeable, vectorized over queries."""

from .metrics import (
    RetrievalAUROC,
    RetrievalFallOut,
    RetrievalHitRate,
    RetrievalMAP,
    RetrievalMRR,
    RetrievalNDCG,
    RetrievalPrecision,
    RetrievalRecall,
    RetrievalRPrecision,
)

__all__: list[str] = [
    "RetrievalMAP",
    "RetrievalMRR",
    "RetrievalNDCG",
    "RetrievalPrecision",
    "RetrievalRecall",
    "RetrievalHitRate",
    "RetrievalRPrecision",
    "RetrievalFallOut",
    "RetrievalAUROC",
]
