"""Retrieval metrics keyed by query id: exact, mergeable, vectorized over queries."""

from __future__ import annotations

import warnings
from collections.abc import Hashable
from typing import Any, ClassVar

import numpy as np

from .._core import validation as v
from .._core.inputs import Inputs
from .._core.metric import Metric
from .._core.params import check_number, check_option
from ..errors import InputError, UndefinedMetricWarning
from ..keyed.keys import key_columns
from . import formulas as f
from .state import QueryBlock, QueryDocs

EMPTY_TARGET_ACTIONS = ("neg", "pos", "skip", "error")
AGGREGATIONS = ("mean", "median", "min", "max")
#: ``update(y_true, y_score, query)``: relevance, score and query id of each document.
RELEVANCE_SCORE_AND_QUERY = "relevance, score and query"


def _check_k(name: str, value: Any) -> int | None:
    if value is None:
        return None
    if not isinstance(value, (int, np.integer)) or isinstance(value, bool) or value < 1:
        raise ValueError(f"{name}: expected None or an int >= 1, found {value!r}")
    return int(value)


def _as_given(raw: Any) -> bool:
    """Whether a 1-D array is read as it is: bools, integers or finite float32 values, which
    ranking packs as they are (a float64 copy of a large batch would cost 8 bytes a document)."""
    if type(raw) is not np.ndarray or raw.ndim != 1:
        return False
    return raw.dtype.kind in "bui" or (raw.dtype == np.float32 and bool(np.isfinite(raw).all()))


def _relevances(inputs: Inputs) -> np.ndarray:
    """``y_true``: as given (:func:`_as_given`), else as finite float64 values."""
    raw = inputs.args[0]
    return raw if _as_given(raw) else inputs.floats(0, "y_true", (1,))


def _scores(inputs: Inputs) -> np.ndarray:
    """``y_score``: as given when float32 (a model's usual output), else as finite float64 values."""
    raw = inputs.args[1]
    return raw if _as_given(raw) and raw.dtype == np.float32 else inputs.floats(1, "y_score", (1,))


class RetrievalMetric(Metric[QueryDocs], base=True):
    """A per-query value averaged over queries (torchmetrics' retrieval metrics, streaming).

    ``update(y_true, y_score, query)``: each row is one document — its relevance (0/1; graded
    relevance for NDCG), its score, and the id of its query (an int or a string); a query's
    documents may come in several batches and shards. Sample weights are refused. ``compute()``
    ranks each query's documents by score (tied scores: the less relevant first, the same rule
    whatever the order of arrival), computes the metric per query and aggregates
    (``aggregation``: ``"mean"``, ``"median"`` (the lower middle value, as torch), ``"min"``,
    ``"max"``). A query without a relevant document (the fall-out: without an irrelevant one) counts
    as ``empty_target_action``: ``"neg"`` (0), ``"pos"`` (1), ``"skip"`` (left out) or ``"error"``
    (:class:`~streammetrics.InputError` from ``compute``). No query left: 0.0 with a warning, as
    torchmetrics.

    Unlike torchmetrics, a document with a score <= 0 is ranked like any other (torchmetrics'
    average precision, reciprocal rank, precision and recall count it as never retrieved).
    """

    higher_is_better: ClassVar[bool | None] = True
    roles: ClassVar[tuple[str, ...]] = ("y_true", "y_score", "query")
    convention: ClassVar[str | None] = RELEVANCE_SCORE_AND_QUERY
    prediction: ClassVar[str | None] = "scores"
    takes_weights: ClassVar[bool] = False
    #: Whether relevance may be graded (any non-negative number) rather than 0/1.
    graded: ClassVar[bool] = False
    #: Whether the metric only reads each query's ``top_k`` best documents (a bounded state).
    bounded: ClassVar[bool] = True
    #: Whether "empty" means a query without irrelevant documents (the fall-out).
    empty_is_negatives: ClassVar[bool] = False

    def __init__(
        self, top_k: int | None = None, empty_target_action: str = "neg", aggregation: str = "mean"
    ) -> None:
        self.top_k = _check_k("top_k", top_k)
        self.empty_target_action = check_option(
            "empty_target_action", empty_target_action, EMPTY_TARGET_ACTIONS
        )
        self.aggregation = check_option("aggregation", aggregation, AGGREGATIONS)
        super().__init__()

    def get_config(self) -> dict[str, Any]:
        return {
            "top_k": self.top_k,
            "empty_target_action": self.empty_target_action,
            "aggregation": self.aggregation,
        }

    def _make_state(self) -> QueryDocs:
        bound = self.top_k if self.bounded else None
        return QueryDocs(top_k=bound, ideal=self.graded and bound is not None)

    def _share_key(self) -> Hashable:
        return ("query-docs", self.graded, self._make_state().share_key())

    def _validate(self, y_true: Any, y_score: Any, query: Any, sample_weight: Any = None) -> Any:
        return self._parse(Inputs((y_true, y_score, query), sample_weight))

    def _parse(self, inputs: Inputs) -> Any:
        if len(inputs.args) != 3:
            raise InputError(
                f"inputs: expected (y_true, y_score, query), found {len(inputs.args)} argument(s)"
            )
        if inputs.sample_weight is not None:
            raise InputError(
                "sample_weight: expected None (retrieval metrics take no weights), found weights"
            )
        rel, score = _relevances(inputs), _scores(inputs)
        v.check_length(score, len(rel), "y_score")
        if self.graded:
            if rel.size and rel.min() < 0:
                raise InputError(f"y_true: expected non-negative relevance, found {rel.min()}")
        elif rel.size and not ((rel == 0) | (rel == 1)).all():
            bad = rel[(rel != 0) & (rel != 1)][0]
            raise InputError(f"y_true: expected 0/1 relevance, found {bad!r}")
        if rel.dtype.kind == "f" and rel.size and np.signbit(rel).any():
            rel = rel + 0.0  # -0.0 is 0.0 (a loaded state holds 0.0: the same bytes either way)
        keys = inputs.derived((2, "query keys"), lambda: key_columns(inputs.args[2], len(rel), "query"))
        if len(keys) != 1:
            raise InputError(f"query: expected one query id per row, found {len(keys)} columns")
        return score, rel, keys

    def _apply(self, state: QueryDocs, batch: Any) -> None:
        state.add(*batch)

    def update_one(self, y_true: Any, y_score: Any, query: Any, sample_weight: Any = None) -> RetrievalMetric:
        """One document: its relevance, score and query id."""
        return self.update(y_true, y_score, query, sample_weight=sample_weight)  # type: ignore[return-value]

    def _values(self, d: f.Ranked, state: QueryDocs | QueryBlock) -> np.ndarray:
        raise NotImplementedError

    def _per_query(self, state: QueryDocs) -> tuple[np.ndarray, np.ndarray]:
        """``(values, counted)``: every query's value after ``empty_target_action``, and whether
        it counts (``"skip"`` leaves empty queries out)."""
        # block by block: the formulas' temporaries are a block's, not every document's
        values = np.concatenate([self._values(f.Ranked(block), block) for block in state.blocks()])
        empty = f.empty_targets(state, self.empty_is_negatives)
        counted = np.ones(len(values), bool)
        if empty.any():
            action = self.empty_target_action
            if action == "error":
                query = state.keys.keys()[int(np.flatnonzero(empty)[0])]
                raise InputError(
                    f"y_true: query {query!r} has no {'irrelevant' if self.empty_is_negatives else 'relevant'} "
                    "document (empty_target_action='error')"
                )
            if action == "skip":
                counted = ~empty
            else:
                values = np.where(empty, 1.0 if action == "pos" else 0.0, values)
        return values, counted

    def _compute(self, state: QueryDocs) -> float:
        values, counted = self._per_query(state)
        values = values[counted]
        if not values.size:
            warnings.warn(
                f"{type(self).__name__}: no query left to average (empty_target_action='skip'); returning 0.0",
                UndefinedMetricWarning,
                stacklevel=3,
            )
            return 0.0
        if self.aggregation == "mean":
            return float(values.mean())
        if self.aggregation == "median":
            return float(np.sort(values)[(len(values) - 1) // 2])
        return float(values.min() if self.aggregation == "min" else values.max())

    def per_query(self) -> dict[Any, float]:
        """``{query: value}`` for the queries counted (sorted by query id)."""
        with self._lock:
            state = self._state
            values, counted = self._per_query(state)
            keys = state.keys.keys()
        return dict(sorted((keys[g], float(values[g])) for g in np.flatnonzero(counted)))


class RetrievalMAP(RetrievalMetric):
    """Mean average precision: per query, the mean of the precision at the rank of each relevant
    document among the ``top_k`` best (all with ``top_k=None``); 0 without one.

    Args:
        top_k: Only each query's ``top_k`` highest-scored documents count (``None``, default: all of them).
        empty_target_action: A query without a relevant document: ``"neg"`` (default) scores 0, ``"pos"`` scores 1, ``"skip"`` leaves it out, ``"error"`` raises, as torchmetrics.
        aggregation: How the queries' values combine: ``"mean"`` (default), ``"median"``, ``"min"`` or ``"max"``.

    Examples:
        >>> import streammetrics as sm
        >>> m = sm.RetrievalMAP()
        >>> m.update([1, 0, 1, 0, 1], [0.9, 0.8, 0.7, 0.6, 0.5], ["a", "a", "a", "b", "b"]).compute()
        0.6666666666666666
    """

    def _values(self, d: f.Ranked, state: QueryDocs | QueryBlock) -> np.ndarray:
        return f.average_precision(d, self.top_k)


class RetrievalMRR(RetrievalMetric):
    """Mean reciprocal rank: per query, ``1 / rank`` of the first relevant document among the
    ``top_k`` best (0 without one).

    Args:
        top_k: Only each query's ``top_k`` highest-scored documents count (``None``, default: all of them).
        empty_target_action: A query without a relevant document: ``"neg"`` (default) scores 0, ``"pos"`` scores 1, ``"skip"`` leaves it out, ``"error"`` raises, as torchmetrics.
        aggregation: How the queries' values combine: ``"mean"`` (default), ``"median"``, ``"min"`` or ``"max"``.

    Examples:
        >>> import streammetrics as sm
        >>> sm.RetrievalMRR().update([0, 1, 1, 0], [0.9, 0.8, 0.3, 0.6], [1, 1, 2, 2]).compute()
        0.5
    """

    def _values(self, d: f.Ranked, state: QueryDocs | QueryBlock) -> np.ndarray:
        return f.reciprocal_rank(d, self.top_k)


class RetrievalNDCG(RetrievalMetric):
    """Normalized discounted cumulative gain at ``top_k``, graded relevance (any number >= 0);
    tied scores share their mean gain (as torchmetrics and scikit-learn's ``ndcg_score``).

    Args:
        top_k: Only each query's ``top_k`` highest-scored documents count (``None``, default: all of them).
        empty_target_action: A query without a relevant document: ``"neg"`` (default) scores 0, ``"pos"`` scores 1, ``"skip"`` leaves it out, ``"error"`` raises, as torchmetrics.
        aggregation: How the queries' values combine: ``"mean"`` (default), ``"median"``, ``"min"`` or ``"max"``.

    Examples:
        >>> import streammetrics as sm
        >>> round(sm.RetrievalNDCG(top_k=2).update([3, 0, 1], [0.2, 0.9, 0.5], [7, 7, 7]).compute(), 6)
        0.173765
    """

    graded: ClassVar[bool] = True

    def _values(self, d: f.Ranked, state: QueryDocs | QueryBlock) -> np.ndarray:
        return f.ndcg(d, state, self.top_k)


class RetrievalPrecision(RetrievalMetric):
    """Precision at ``top_k``: relevant documents among the ``top_k`` best, over ``top_k``
    (``adaptive_k``: over at most the query's number of documents).

    Args:
        top_k: Only each query's ``top_k`` highest-scored documents count (``None``, default: all of them).
        adaptive_k: ``True``: k is at most the query's number of documents (torchmetrics' ``adaptive_k``); ``False`` (default): k as given.
        empty_target_action: A query without a relevant document: ``"neg"`` (default) scores 0, ``"pos"`` scores 1, ``"skip"`` leaves it out, ``"error"`` raises, as torchmetrics.
        aggregation: How the queries' values combine: ``"mean"`` (default), ``"median"``, ``"min"`` or ``"max"``.

    Examples:
        >>> import streammetrics as sm
        >>> sm.RetrievalPrecision(top_k=2).update([1, 0, 1, 1], [0.9, 0.8, 0.3, 0.6], [1, 1, 2, 2]).compute()
        0.75
    """

    def __init__(
        self,
        top_k: int | None = None,
        adaptive_k: bool = False,
        empty_target_action: str = "neg",
        aggregation: str = "mean",
    ) -> None:
        if not isinstance(adaptive_k, bool):
            raise ValueError(f"adaptive_k: expected a bool, found {adaptive_k!r}")
        self.adaptive_k = adaptive_k
        super().__init__(top_k, empty_target_action, aggregation)

    def get_config(self) -> dict[str, Any]:
        return {**super().get_config(), "adaptive_k": self.adaptive_k}

    def _values(self, d: f.Ranked, state: QueryDocs | QueryBlock) -> np.ndarray:
        return f.precision(d, self.top_k, self.adaptive_k)


class RetrievalRecall(RetrievalMetric):
    """Recall at ``top_k``: relevant documents among the ``top_k`` best, over all relevant ones.

    Args:
        top_k: Only each query's ``top_k`` highest-scored documents count (``None``, default: all of them).
        empty_target_action: A query without a relevant document: ``"neg"`` (default) scores 0, ``"pos"`` scores 1, ``"skip"`` leaves it out, ``"error"`` raises, as torchmetrics.
        aggregation: How the queries' values combine: ``"mean"`` (default), ``"median"``, ``"min"`` or ``"max"``.

    Examples:
        >>> import streammetrics as sm
        >>> sm.RetrievalRecall(top_k=1).update([1, 0, 1, 1], [0.9, 0.8, 0.3, 0.6], [1, 1, 2, 2]).compute()
        0.75
    """

    def _values(self, d: f.Ranked, state: QueryDocs | QueryBlock) -> np.ndarray:
        return f.recall(d, self.top_k)


class RetrievalHitRate(RetrievalMetric):
    """Hit rate at ``top_k``: 1 if a relevant document is among the ``top_k`` best, else 0.

    Args:
        top_k: Only each query's ``top_k`` highest-scored documents count (``None``, default: all of them).
        empty_target_action: A query without a relevant document: ``"neg"`` (default) scores 0, ``"pos"`` scores 1, ``"skip"`` leaves it out, ``"error"`` raises, as torchmetrics.
        aggregation: How the queries' values combine: ``"mean"`` (default), ``"median"``, ``"min"`` or ``"max"``.

    Examples:
        >>> import streammetrics as sm
        >>> sm.RetrievalHitRate(top_k=1).update([0, 1, 1, 0], [0.9, 0.8, 0.3, 0.6], [1, 1, 2, 2]).compute()
        0.0
    """

    def _values(self, d: f.Ranked, state: QueryDocs | QueryBlock) -> np.ndarray:
        return f.hit_rate(d, self.top_k)


class RetrievalFallOut(RetrievalMetric):
    """Fall-out at ``top_k``: irrelevant documents among the ``top_k`` best, over all irrelevant
    ones (lower is better); "empty" queries are those without an irrelevant document, and count
    as 1 by default (``empty_target_action="pos"``, as torchmetrics).

    Args:
        top_k: Only each query's ``top_k`` highest-scored documents count (``None``, default: all of them).
        empty_target_action: A query without an irrelevant document: ``"pos"`` (default, as torchmetrics) scores 1, ``"neg"`` scores 0, ``"skip"`` leaves it out, ``"error"`` raises.
        aggregation: How the queries' values combine: ``"mean"`` (default), ``"median"``, ``"min"`` or ``"max"``.

    Examples:
        >>> import streammetrics as sm
        >>> sm.RetrievalFallOut(top_k=1).update([0, 1, 1, 0], [0.9, 0.8, 0.3, 0.6], [1, 1, 2, 2]).compute()
        1.0
    """

    higher_is_better: ClassVar[bool | None] = False
    empty_is_negatives: ClassVar[bool] = True

    def __init__(
        self, top_k: int | None = None, empty_target_action: str = "pos", aggregation: str = "mean"
    ) -> None:
        super().__init__(top_k, empty_target_action, aggregation)

    def _values(self, d: f.Ranked, state: QueryDocs | QueryBlock) -> np.ndarray:
        return f.fall_out(d, self.top_k)


class RetrievalRPrecision(RetrievalMetric):
    """R-precision: relevant documents among the ``R`` best, over ``R`` (``R``: the query's
    number of relevant documents). Reads every document (no ``top_k`` bound).

    Args:
        empty_target_action: A query without a relevant document: ``"neg"`` (default) scores 0, ``"pos"`` scores 1, ``"skip"`` leaves it out, ``"error"`` raises, as torchmetrics.
        aggregation: How the queries' values combine: ``"mean"`` (default), ``"median"``, ``"min"`` or ``"max"``.

    Examples:
        >>> import streammetrics as sm
        >>> sm.RetrievalRPrecision().update([1, 0, 1, 1, 0], [0.9, 0.8, 0.7, 0.1, 0.6], [1, 1, 1, 2, 2]).compute()
        0.25
    """

    bounded: ClassVar[bool] = False

    def __init__(self, empty_target_action: str = "neg", aggregation: str = "mean") -> None:
        super().__init__(None, empty_target_action, aggregation)

    def get_config(self) -> dict[str, Any]:
        return {"empty_target_action": self.empty_target_action, "aggregation": self.aggregation}

    def _values(self, d: f.Ranked, state: QueryDocs | QueryBlock) -> np.ndarray:
        return f.r_precision(d)


class RetrievalAUROC(RetrievalMetric):
    """Area under the ROC curve per query, over its ``top_k`` best documents (all with
    ``top_k=None``); tied scores share their mean rank; 0 for a query whose documents are all
    relevant. Reads every document (no bound: the ``top_k`` best are chosen at compute).

    Args:
        top_k: Only each query's ``top_k`` highest-scored documents count (``None``, default: all of them).
        empty_target_action: A query without a relevant document: ``"neg"`` (default) scores 0, ``"pos"`` scores 1, ``"skip"`` leaves it out, ``"error"`` raises, as torchmetrics.
        aggregation: How the queries' values combine: ``"mean"`` (default), ``"median"``, ``"min"`` or ``"max"``.
        max_fpr: ``None`` (default): the whole area; a number in (0, 1]: each query's McClish-standardized partial area over false positive rates up to ``max_fpr``, as scikit-learn's ``roc_auc_score(max_fpr=...)`` and torchmetrics' ``RetrievalAUROC(max_fpr=...)`` (``1``: the whole area).

    Examples:
        >>> import streammetrics as sm
        >>> sm.RetrievalAUROC().update([1, 0, 1, 0], [0.9, 0.8, 0.3, 0.6], [1, 1, 2, 2]).compute()
        0.5
        >>> m = sm.RetrievalAUROC(max_fpr=0.5)  # query 1 ranked perfectly (1), query 2 not within FPR 0.5 (1/3)
        >>> round(m.update([1, 0, 0, 1, 0, 0], [0.9, 0.8, 0.1, 0.7, 0.8, 0.2], [1, 1, 1, 2, 2, 2]).compute(), 6)
        0.666667
    """

    bounded: ClassVar[bool] = False

    def __init__(
        self,
        top_k: int | None = None,
        empty_target_action: str = "neg",
        aggregation: str = "mean",
        max_fpr: float | None = None,
    ) -> None:
        if max_fpr is not None:
            max_fpr = float(check_number("max_fpr", max_fpr, low=0.0, high=1.0, low_open=True))
        self.max_fpr = max_fpr
        super().__init__(top_k, empty_target_action, aggregation)

    def get_config(self) -> dict[str, Any]:
        return {**super().get_config(), "max_fpr": self.max_fpr}

    def _values(self, d: f.Ranked, state: QueryDocs | QueryBlock) -> np.ndarray:
        if self.max_fpr is None:
            return f.auroc(d, self.top_k)
        return f.partial_auroc(d, self.top_k, self.max_fpr)


__all__ = [
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
