"""The Poisson bootstrap: confidence intervals for any metric, in streaming and across shards.

Each row gets an independent Poisson(1) weight per replicate (Hanley & MacGibbon 2006; Oza &
Russell's online bagging): replicate ``r`` is the metric's state updated with the row weights
``w_i * P_ri``. Since a replicate is just a weighted state, replicates update batch by batch
and merge across shards exactly like the metric itself. ``compute()`` returns the metric on the
full data and the percentile interval of the replicate values.

Random streams: the weights of a batch come from ``SeedSequence(entropy, spawn_key=(shard,
batch_index))``. ``entropy`` is the root ``seed`` (or fresh OS entropy drawn at the first
batch when ``seed=None``), ``shard`` identifies the accumulator among those that will be
merged, and the batch index counts this accumulator's batches, so successive batches and
distinct shards draw independent weights. Merging two accumulators holding data drawn from the
same (entropy, shard) stream would correlate their replicates: that raises :class:`MergeError`.

Three replicate engines:

* **confusion counts** (every confusion-matrix metric on binary/multiclass labels): a replicate
  tensor ``(R, K, K)``. An unweighted batch adds, per replicate and cell, a Poisson(n_c) draw
  where n_c is the batch's count in that cell — exactly the distribution of the sum of n_c
  independent Poisson(1) row weights, at a cost of ``R x K x K`` draws whatever the batch size.
  A weighted batch draws a Poisson(1) weight per (replicate, row) and adds
  ``w_i * P_ri`` with ONE ``np.bincount`` over ``replicate * K*K + true * K + pred`` (rows in
  chunks to bound memory). Memory: ``R * K * K`` counts.
* **score sketch** (ROC AUC, average precision, the curves and operating points): a replicate
  tensor ``(R, bins, groups)`` on the bins of the full data's sketch, which follows the sketch
  when it compresses or grows (:mod:`~streammetrics.uncertainty.sketch_replicates`); a batch
  costs one sort of its rows and one cumulative sum per replicate. Replicates are exact while
  the sketch is exact, and estimates within their bins' guaranteed bounds after. ROC AUC and
  average precision evaluate every replicate at once. Memory: ``R x bins x groups`` counts.
* **generic** (every other metric: regression co-moments, clustering, per-sample ranking and
  multilabel confusion counts): one weighted copy of the metric's state per replicate. Where
  the metric's family reduces every replicate at once (:meth:`Metric._apply_reweighted`: the
  weighted sums over rows of the regression moments and the per-row value metrics, one matrix
  product per chunk of rows), it does; otherwise each replicate is updated with its
  Poisson-weighted batch in turn. Memory = ``R x`` the state's size.

Poisson(1) weights come from :func:`~streammetrics.uncertainty.poisson.poisson_one` (inversion
of a 64-bit uniform: about 4 ns a draw).

At ``compute()`` the formula is evaluated once per replicate (a Python loop over ``R``
replicates, each a formula on a small state: no pass over the data).
"""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np

from .._core import registry
from .._core.inputs import Inputs
from .._core.labels import LabelSet
from .._core.metric import Metric, metrics_within, validate_within
from .._core.onerow import OneRowMixin
from .._core.params import check_number
from .._core.schema import Array, Check, Int, Nested, OneOf, Schema
from .._core.state import State, describe_difference, equal_configs
from ..classification import counts as _counts
from ..classification.base import ConfusionMetric
from ..classification.counts import ConfusionCounts, class_counts, margins_of
from ..errors import InputError, MergeError, StateError
from ..ranking.sketch import ScoreSketch
from . import sketch_replicates as SR
from .poisson import poisson_one
from .results import Interval

_CHUNK = 1 << 21  # (replicate, row) pairs per bincount chunk: 16 MB of int64 indices


def _stream_rng(entropy: int, shard: int, batch: int) -> np.random.Generator:
    return np.random.Generator(np.random.PCG64(np.random.SeedSequence(entropy, spawn_key=(shard, batch))))


def _metric_from(metric: Any) -> Metric[Any]:
    """A fresh, empty metric from a metric instance or a ``{"type", "config"}`` dict."""
    if isinstance(metric, Metric):
        if metric.n_samples:
            raise ValueError(
                f"metric: expected an empty metric (its configuration is used), found a {type(metric).__name__} "
                f"holding {metric.n_samples} samples"
            )
        if isinstance(metric, Bootstrap):
            raise ValueError("metric: expected a metric, found a Bootstrap")
        return _bootstrappable(metric.empty_like())
    if isinstance(metric, dict) and set(metric) == {"type", "config"}:
        cls = registry.registered_types().get(metric["type"])
        if cls is None or cls is Bootstrap:
            raise ValueError(f"metric: unknown metric type {metric['type']!r}")
        return _bootstrappable(cls(**metric["config"]))
    raise ValueError(f"metric: expected a streammetrics metric, found {type(metric).__name__}")


def _bootstrappable(metric: Metric[Any]) -> Metric[Any]:
    """``metric``, refused (``ValueError``) where replicates cannot be drawn or summarized: a
    metric that takes no sample weights (the replicates are Poisson weights), or whose value is
    not a number or an array of numbers (a curve, a report, a table of counts, a dict), inside
    any window or tracker."""
    for inner in metrics_within(metric):
        name = type(inner).__name__
        if not type(inner).takes_weights:
            raise ValueError(
                f"metric: Bootstrap weighs rows (Poisson replicates); {name} takes no sample weights"
            )
        if not type(inner).numeric_value:
            raise ValueError(
                f"metric: Bootstrap intervals numbers or arrays of numbers; {name}'s value is not one"
            )
    return metric


class BootstrapState(State):
    """The wrapped metric's state on the full data plus ``R`` Poisson-weighted replicates.

    ``engine`` is ``None`` until the first non-empty batch, then ``"counts"`` (a replicate
    tensor of confusion counts; ``"margins"``, each replicate's per-class (tp, fp, fn), past
    :data:`MARGIN_CELLS` cells for a metric that reads no matrix), ``"sketch"`` (a tensor of
    counts on the score sketch's bins) or ``"generic"`` (a list of states).

    Examples:
        >>> import streammetrics as sm
        >>> b = sm.Bootstrap(sm.Accuracy(), n_replicates=50, seed=0).update([0, 1, 1], [0, 1, 0])
        >>> b.state.engine, b.state.n_samples
        ('counts', 3)
    """

    revertible = False

    @property
    def state(self) -> State:
        """The state of the data itself (row parsers read its labels and layout)."""
        return self.base

    def __init__(self, metric: Metric[Any], n_replicates: int, seed: int | None, shard: int) -> None:
        self._metric = metric
        self._n_replicates = n_replicates
        self._seed = seed
        self._shard = shard
        self.reset()

    # ------------------------------------------------------------------ protocol
    def config(self) -> dict[str, Any]:
        return {
            "metric": {"type": self._metric.type_name(), "config": self._metric.get_config()},
            "n_replicates": self._n_replicates,
        }

    def reset(self) -> None:
        self._commit(
            base=self._metric._make_state(),
            engine=None,
            tensor=np.zeros((self._n_replicates, 0, 0), dtype=np.int64),
            reps=[],
            entropy=self._seed,
            n_batches=0,
            streams=[],
        )

    @property
    def n_samples(self) -> int:
        return self.base.n_samples

    @property
    def n_replicates(self) -> int:
        return self._n_replicates

    # ------------------------------------------------------------------ update
    def ensure_entropy(self) -> int:
        """The root entropy of this accumulator's stream (drawn from the OS once if no seed)."""
        if self.entropy is None:
            self.entropy = int(np.random.SeedSequence().entropy)
        return self.entropy

    def draw_rng(self) -> np.random.Generator:
        """The generator of the next batch of this accumulator's stream."""
        return _stream_rng(self.ensure_entropy(), self._shard, self.n_batches)

    def apply(self, args: tuple[Any, ...], weights: np.ndarray | None, batch: Any) -> None:
        """Add a batch validated by the wrapped metric (``batch``) and its raw ``args``."""
        metric, n_rows = self._metric, _rows(batch, args)
        base = self.base.copy()
        metric._apply(base, batch)  # raises (state untouched) on a state-dependent input error
        if n_rows == 0 or self._n_replicates == 0:
            self._commit(base=base)
            return
        # the stream's entropy is drawn (once) aside, and committed with the batch it served
        entropy = self.entropy if self.entropy is not None else int(np.random.SeedSequence().entropy)
        rng = _stream_rng(entropy, self._shard, self.n_batches)
        engine = self.engine or _engine_for(metric, base, batch)
        if engine == "counts" and self._wants_margins(len(base.labels)):
            engine = "margins"  # (one way: the replicates' off-diagonal cells are not kept)
        if engine == "counts":
            tensor = self._counts_update(base, batch, rng)
            reps = self.reps
        elif engine == "margins":
            tensor = self._margins_update(base, batch, rng)
            reps = self.reps
        elif engine == "sketch":
            tensor = self._sketch_update(base, batch, rng)
            reps = self.reps
        else:
            tensor = self.tensor
            reps = self._generic_update(args, weights, n_rows, rng, batch)
        stream = (entropy, self._shard)
        self._commit(
            base=base,
            engine=engine,
            tensor=tensor,
            reps=reps,
            entropy=entropy,
            n_batches=self.n_batches + 1,
            streams=self.streams if stream in self.streams else sorted([*self.streams, stream]),
        )

    def _counts_update(self, base: ConfusionCounts, batch: Any, rng: np.random.Generator) -> np.ndarray:
        k, r = len(base.labels), self._n_replicates
        _check_tensor(r, k, InputError, "y_true")
        tensor = self._reindexed(base.labels)
        idx_t, idx_p, weights = _encoded(base, batch)
        if not len(idx_t):
            return tensor
        code = idx_t * k + idx_p
        if weights is None:
            n_c = np.bincount(code, minlength=k * k)
            draws = rng.poisson(n_c, size=(r, k * k)).reshape(r, k, k)
            return tensor + draws if tensor.dtype.kind == "i" else tensor + draws.astype(np.float64)
        added = np.zeros(r * k * k, dtype=np.float64)
        step = max(1, _CHUNK // r)
        offsets = (np.arange(r, dtype=np.int64) * (k * k))[:, None]
        for start in range(0, len(code), step):
            c, w = code[start : start + step], weights[start : start + step]
            poisson = poisson_one(rng, (r, len(c)))
            added += np.bincount((offsets + c).ravel(), weights=(poisson * w).ravel(), minlength=r * k * k)
        return tensor.astype(np.float64) + added.reshape(r, k, k)

    def _wants_margins(self, k: int) -> bool:
        """Whether replicates of ``k`` classes keep each class's (tp, fp, fn) rather than a
        matrix: when the matrices would pass :data:`MARGIN_CELLS` and the metric reads none."""
        cells = min(MARGIN_CELLS, _counts.MAX_CLASSES**2)  # (never past what the matrices may hold)
        return self._n_replicates * k * k > cells and not self._metric._reads_matrix()

    def _margins_update(self, base: ConfusionCounts, batch: Any, rng: np.random.Generator) -> np.ndarray:
        """The replicates' per-class (tp, fp, fn), ``(R, 3, K)``, with the batch added: the same
        Poisson weights as :meth:`_counts_update` (one per distinct (true, predicted) pair and
        replicate, or per row and replicate when weighted), summed per class, never per cell."""
        k, r = len(base.labels), self._n_replicates
        tensor = self._margins_over(base.labels)
        idx_t, idx_p, weights = _encoded(base, batch)
        if not len(idx_t):
            return tensor
        if weights is None:
            pairs, n_c = np.unique(idx_t * k + idx_p, return_counts=True)
            draws = rng.poisson(n_c, size=(r, len(pairs)))
            added = class_counts(*np.divmod(pairs, k), k, draws)
            return tensor + np.rint(added).astype(np.int64) if tensor.dtype.kind == "i" else tensor + added
        out = tensor.astype(np.float64)
        step = max(1, _CHUNK // r)
        for start in range(0, len(idx_t), step):
            t, p, w = idx_t[start : start + step], idx_p[start : start + step], weights[start : start + step]
            out += class_counts(t, p, k, poisson_one(rng, (r, len(t))) * w)
        return out

    def _margins_over(self, labels: LabelSet) -> np.ndarray:
        """The replicates' per-class (tp, fp, fn) over ``labels`` (a superset of the current
        labels), from this state's margins or matrices."""
        k, r = len(labels), self._n_replicates
        if self.engine == "margins":
            margins = self.tensor
        elif self.engine == "counts" and self.tensor.shape[1]:
            margins = margins_of(self.tensor)
        else:
            return np.zeros((r, 3, k), dtype=self.tensor.dtype)
        if margins.shape[2] == k and self._labels_equal(labels):
            return margins
        out = np.zeros((r, 3, k), dtype=margins.dtype)
        out[:, :, self.base.labels.positions_in(labels)] = margins
        return out

    def _sketch_update(self, base: ScoreSketch, batch: Any, rng: np.random.Generator) -> np.ndarray:
        """The replicate tensor laid out on ``base`` (this state's sketch with the batch added)."""
        keys, groups, weights, layout, _, _, present, used = batch
        _, flip_state, flip_batch = self.base.batch_plan(present, used)
        if flip_batch:
            groups = 1 - groups
        cols = base.cols  # folded: the batch's keys are in its bins
        tensor = SR.realigned(self.tensor, self.base.cols, cols, layout[1], flip_state)
        draws = poisson_one(rng, (self._n_replicates, len(keys)))
        return tensor + SR.batch_counts(cols, keys, groups, draws, weights)

    def _reindexed(self, labels: LabelSet) -> np.ndarray:
        """The replicate tensor laid out on ``labels`` (a superset of the current labels)."""
        k = len(labels)
        if self.tensor.shape[1] == k and (self.engine is None or self._labels_equal(labels)):
            return self.tensor
        out = np.zeros((self._n_replicates, k, k), dtype=self.tensor.dtype)
        if self.tensor.shape[1]:
            pos = self._tensor_labels().positions_in(labels)
            out[:, pos[:, None], pos[None, :]] = self.tensor
        return out

    def _tensor_labels(self) -> LabelSet:
        return self.base.labels

    def _labels_equal(self, labels: LabelSet) -> bool:
        mine = self.base.labels.values
        return len(mine) == len(labels.values) and bool(np.all(mine == labels.values))

    def _generic_update(
        self,
        args: tuple[Any, ...],
        weights: np.ndarray | None,
        n_rows: int,
        rng: np.random.Generator,
        batch: Any,
    ) -> list[State]:
        metric = self._metric
        counts = poisson_one(rng, (self._n_replicates, n_rows))
        fresh = not self.reps
        old = self.reps or [metric._make_state() for _ in range(self._n_replicates)]
        inputs = Inputs(tuple(args), weights)  # converted once: the replicates differ only in weights
        new = metric._apply_reweighted(old, batch, counts, inputs)  # all replicates at once, where it can
        if new is not None:
            return new
        new = []
        for state, w in zip(old, counts, strict=True):
            state = state if fresh else state.copy()  # copies keep the update atomic
            w = w.astype(np.float64)
            if weights is not None:
                w *= weights
            metric._apply(state, metric._parse(inputs.reweight(w)))
            new.append(state)
        return new

    # ------------------------------------------------------------------ merge
    def merge(self, other: State) -> None:
        self.check_mergeable(other)
        assert isinstance(other, BootstrapState)
        shared = set(self.streams) & set(other.streams)
        if shared:
            entropy, shard = sorted(shared)[0]
            raise MergeError(
                f"cannot merge Bootstrap accumulators whose replicates were drawn from the same random stream "
                f"(seed={entropy}, shard={shard}): their replicates would be correlated. Give each shard "
                "its own shard= id (or seed=None), and merge each shard's data only once"
            )
        self.absorb(other)

    def unite(self, other: State) -> None:
        """A merge without the stream check (``other`` is a part of this accumulator's stream)."""
        self.check_mergeable(other)
        assert isinstance(other, BootstrapState)
        self.absorb(other)

    def absorb(self, other: BootstrapState) -> None:
        """Merge without the stream check (``other`` continues this accumulator's own stream)."""
        counting = {"counts", "margins"}
        if self.engine and other.engine and self.engine != other.engine:
            if not {self.engine, other.engine} <= counting:
                raise MergeError(f"cannot merge {other.engine} replicates into {self.engine} replicates")
        base = self.base.copy()
        base.merge(other.base)
        engine = self.engine or other.engine
        if engine == "counts" and (
            "margins" in (self.engine, other.engine) or self._wants_margins(len(base.labels))
        ):
            engine = "margins"
        tensor, reps = self.tensor, self.reps
        if engine == "margins":
            mine, theirs = self._margins_over(base.labels), other._margins_over(base.labels)
            kind = "i" if mine.dtype.kind == theirs.dtype.kind == "i" else "f"
            tensor = mine + theirs if kind == "i" else mine.astype(np.float64) + theirs.astype(np.float64)
        elif engine == "counts":
            _check_tensor(self._n_replicates, len(base.labels), MergeError, "labels")
            mine = self._reindexed(base.labels)
            theirs = other._reindexed(base.labels)
            kind = "i" if mine.dtype.kind == theirs.dtype.kind == "i" else "f"
            tensor = mine + theirs if kind == "i" else mine.astype(np.float64) + theirs.astype(np.float64)
        elif engine == "sketch":
            _, flip_self, flip_other = self.base.merge_plan(other.base)
            cols, groups = base.cols, base.layout[1]
            mine = SR.realigned(self.tensor, self.base.cols, cols, groups, flip_self)
            theirs = SR.realigned(other.tensor, other.base.cols, cols, groups, flip_other)
            tensor = mine + theirs
        elif engine == "generic":
            if not self.reps:
                reps = [s.copy() for s in other.reps]
            elif other.reps:
                reps = [s.copy() for s in self.reps]
                for mine_s, theirs_s in zip(reps, other.reps, strict=True):
                    mine_s.merge(theirs_s)
        self._commit(
            base=base,
            engine=engine,
            tensor=tensor,
            reps=reps,
            streams=sorted(set(self.streams) | set(other.streams)),
        )

    # ------------------------------------------------------------------ values
    def replicate_values(self) -> np.ndarray:
        """The metric on each replicate: shape ``(R,)`` or ``(R, ...)`` for array metrics."""
        metric = self._metric
        if self.engine == "sketch":
            fast = metric._replicate_values(self.base, self.tensor)  # type: ignore[attr-defined]
            if fast is not None:
                return np.asarray(fast, dtype=np.float64)
        values = []
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for state in self._replicate_states():
                values.append(np.nan if metric._is_empty(state) else metric._compute(state))
        if not values:
            return np.empty(0)
        # the full data's shape: a replicate whose array differs (a class no draw kept) is left out
        shape = np.shape(metric._compute(self.base)) if not metric._is_empty(self.base) else ()
        return np.array([v if np.shape(v) == shape else np.full(shape, np.nan) for v in values], float)

    def _replicate_states(self) -> list[State]:
        if self.engine == "generic":
            return self.reps
        if self.engine == "sketch":
            return SR.replicate_sketches(self.base, self.tensor)  # type: ignore[return-value]
        if self.engine not in ("counts", "margins"):
            return []
        out = []
        for counts in self.tensor:
            state = self._metric._make_state()
            state.mode, state.labels, state._n = "multiclass", self.base.labels, self.base.n_samples
            if self.engine == "margins":
                state.matrix, state.margins = None, counts
            else:
                state.matrix, state.margins = counts, None
            out.append(state)
        return out

    # ------------------------------------------------------------------ serialization
    def to_dict(self) -> dict[str, Any]:
        return {
            "base": self.base.to_dict(),
            "engine": self.engine or "",
            "tensor": self.tensor,
            "reps": [s.to_dict() for s in self.reps],
            "entropy": "" if self.entropy is None else str(self.entropy),
            "n_batches": self.n_batches,
            "streams": [[str(e), s] for e, s in self.streams],
        }

    def load_dict(self, data: dict[str, Any]) -> None:
        values = _FIELDS.read(data, make_state=self._metric._make_state, n_replicates=self._n_replicates)
        engine = values["engine"] or None
        reps = values["reps"]
        self._check_replicates(engine, reps, values["tensor"], values["base"])
        self._commit(
            base=values["base"],
            engine=engine,
            tensor=values["tensor"],
            reps=reps,
            entropy=_parse_int(values["entropy"]),
            n_batches=values["n_batches"],
            streams=sorted((_parse_int(e), s) for e, s in values["streams"]),
        )

    def _check_replicates(
        self, engine: str | None, reps: list[State], tensor: np.ndarray, base: State
    ) -> None:
        """The engine holds its replicates, and only it: a state per replicate for ``"generic"``,
        counts in the tensor for ``"counts"``, neither before the first batch."""
        expected = self._n_replicates if engine == "generic" else 0
        if len(reps) != expected:
            raise StateError(f"{_FIELDS.where}: expected {expected} replicate states, found {len(reps)}")
        if engine not in ("counts", "margins", "sketch") and tensor.size:
            raise StateError(
                f"{_FIELDS.where}: a replicate tensor without the counts or sketch engine ({engine or 'none'})"
            )
        orphans = SR.orphan_cells(base, tensor) if engine == "sketch" else 0
        if orphans:
            raise StateError(
                f"{_FIELDS.where}: replicate weights in {orphans} (bin, group) cells where the data has none"
            )

    def check(self) -> None:
        context = {"base": self.base, "engine": self.engine or "", "n_replicates": self._n_replicates}
        _FIELDS.check({"tensor": self.tensor, "n_batches": self.n_batches}, **context)
        self._check_replicates(self.engine, self.reps, self.tensor, self.base)
        self.base.check()
        for state in self.reps:
            state.check()


def _is_decimal(value: Any) -> bool:
    return isinstance(value, str) and value.isdigit()


def _parse_int(value: str) -> int | None:
    return int(value) if value else None


def _tensor_shape(values: Any) -> tuple[int, int, int]:
    base, engine = values["base"], values["engine"]
    if engine == "sketch":
        return (values["n_replicates"], base.n_bins, base.n_groups)
    k = len(base.labels) if engine in ("counts", "margins") else 0
    return (values["n_replicates"], 3, k) if engine == "margins" else (values["n_replicates"], k, k)


def _encoded(base: ConfusionCounts, batch: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """A multiclass batch's label pairs as indices into ``base``'s labels (which hold them: the
    batch is in ``base``), rows of weight 0 left out, and their weights."""
    _, yt, yp, weights = batch
    if weights is not None:
        keep = weights > 0
        yt, yp, weights = yt[keep], yp[keep], weights[keep]
    idx_t, _ = base.labels.encode(yt, "y_true")
    idx_p, _ = base.labels.encode(yp, "y_pred")
    return idx_t, idx_p, weights


#: Past this many cells of replicate matrices (4M: 32 MB of int64, 144 classes at 200
#: replicates), a metric that reads no matrix keeps each replicate's per-class (tp, fp, fn)
#: instead (the ``"margins"`` engine): 3 K numbers a replicate, and Poisson draws per distinct
#: (true, predicted) pair of a batch rather than per cell of the matrix.
MARGIN_CELLS = 1 << 22


def _check_tensor(r: int, k: int, error: type[Exception], name: str) -> None:
    """Refuse (``error``) ``k`` classes whose ``r`` replicate matrices would hold more cells than
    one dense confusion matrix may (``MAX_CLASSES``^2, 2 GiB of int64): 1,158 classes at 200
    replicates, where 3,000 once asked for 14 GB and got the process killed."""
    cells = _counts.MAX_CLASSES**2
    if r * k * k > cells:
        most = math.isqrt(cells // max(r, 1))
        raise error(
            f"{name}: expected at most {most:,} classes for a bootstrap of {r} replicates of confusion "
            f"counts (a {k:,} x {k:,} matrix per replicate: {r * k * k * 8 / 2**30:.3g} GiB), found {k:,}; "
            "use fewer replicates, or fewer classes"
        )


def _engine_for(metric: Metric[Any], state: State, batch: Any) -> str:
    """The replicate engine of a metric, chosen at its first non-empty batch."""
    if isinstance(metric, ConfusionMetric) and batch[0] == "multiclass":
        return "counts"
    if isinstance(state, ScoreSketch) and not isinstance(batch[0], str):  # not average="samples"
        return "sketch"
    return "generic"


#: A bootstrap state: the metric's state on all the data, then the replicates, either as a
#: tensor of confusion matrices (``engine="counts"``), a tensor of counts on the score sketch's
#: bins (``"sketch"``) or one state each (``"generic"``).
_FIELDS = Schema(
    "BootstrapState",
    base=Nested(),
    engine=OneOf("", "counts", "margins", "sketch", "generic"),
    tensor=Array("if", shape=_tensor_shape, non_negative=True),
    reps=Nested(many=True),
    entropy=Check("a decimal string or ''", lambda v: v == "" or _is_decimal(v)),
    n_batches=Int(low=0),
    streams=Check(
        "a list of [entropy, shard] pairs",
        lambda v: (
            isinstance(v, list)
            and all(
                isinstance(s, list) and len(s) == 2 and _is_decimal(s[0]) and isinstance(s[1], int) for s in v
            )
        ),
    ),
)


def _rows(batch: Any, args: tuple[Any, ...]) -> int:
    return len(np.asarray(args[0])) if args else 0


class Bootstrap(OneRowMixin, Metric[BootstrapState]):
    """A Poisson-bootstrap confidence interval around any metric, streaming and mergeable.

    ``update(*args, sample_weight=None)`` takes what the wrapped ``metric`` takes. ``compute()``
    returns an :class:`~streammetrics.uncertainty.Interval`: ``estimate`` (the metric on all the
    data), ``low`` and ``high`` (the percentile interval of the ``n_replicates`` replicate values
    at confidence ``level``) and ``level``. Replicates where the metric is undefined are left
    out. Memory is ``n_replicates x`` the metric's state (see the module docstring for the
    vectorized confusion-count engine).

    ``seed``: the root seed (``None``: fresh OS entropy per accumulator, not reproducible).
    ``shard``: an id that must differ between accumulators that will be merged (with
    ``seed=None`` each accumulator already draws its own entropy). Merging two accumulators
    whose data came from the same (seed, shard) stream raises :class:`~streammetrics.MergeError`;
    ``seed`` and ``shard`` are not compared otherwise (shards of different seeds merge). Row
    weights multiply the Poisson weights (``w_i * P_ri``). Not revertible.

    Args:
        metric: The metric to bootstrap: a metric (used as a template), a name or a ``{"type", "config"}``
            dict.
        n_replicates: Number of Poisson-weighted replicates, an int >= 0; default 200.
        seed: The root seed, an int >= 0; ``None`` (default) draws fresh entropy per accumulator (not
            reproducible).
        shard: An id, an int >= 0, that differs between accumulators of one seed that will be merged; default
            ``None``.
        level: Confidence level of the percentile interval, in (0, 1); default 0.95.

    Examples:
        >>> import numpy as np, streammetrics as sm
        >>> rng = np.random.default_rng(0)
        >>> y = rng.integers(0, 2, 1000); p = np.where(rng.random(1000) < 0.8, y, 1 - y)
        >>> shard_a = sm.Bootstrap(sm.Accuracy(), seed=7, shard=0).update(y[:600], p[:600])
        >>> shard_b = sm.Bootstrap(sm.Accuracy(), seed=7, shard=1).update(y[600:], p[600:])
        >>> iv = (shard_a + shard_b).compute()
        >>> round(iv.estimate, 3), iv.level, bool(0.75 < iv.low < iv.estimate < iv.high < 0.85)
        (0.798, 0.95, True)
    """

    def __init__(
        self,
        metric: Any,
        n_replicates: int = 200,
        seed: int | None = None,
        *,
        shard: int | None = None,
        level: float = 0.95,
    ) -> None:
        self.metric = _metric_from(metric)
        self.n_replicates = check_number("n_replicates", n_replicates, low=0, integer=True)
        if seed is not None:
            check_number("seed", seed, low=0, integer=True)
        if shard is not None:
            check_number("shard", shard, low=0, integer=True)
        self.seed, self.shard = seed, shard
        self.level = float(check_number("level", level, low=0.0, high=1.0, low_open=True, high_open=True))
        self.higher_is_better = self.metric.higher_is_better
        super().__init__()

    def get_config(self) -> dict[str, Any]:
        return {
            "metric": {"type": self.metric.type_name(), "config": self.metric.get_config()},
            "n_replicates": self.n_replicates,
            "seed": self.seed,
            "shard": self.shard,
            "level": self.level,
        }

    def check_compatible(self, other: Metric[Any]) -> None:
        """Like :meth:`Metric.check_compatible`, but ``seed`` and ``shard`` may differ."""
        if type(other) is not type(self):
            raise MergeError(
                f"cannot merge {type(other).__name__} into {type(self).__name__}: accumulators of different types"
            )
        mine, theirs = self.get_config(), other.get_config()
        for cfg in (mine, theirs):
            cfg.pop("seed")
            cfg.pop("shard")
        if not equal_configs(mine, theirs):
            raise MergeError(
                "cannot merge Bootstrap accumulators of different configuration: "
                + describe_difference(mine, theirs)
            )

    def _make_state(self) -> BootstrapState:
        return BootstrapState(self.metric, self.n_replicates, self.seed, self.shard or 0)

    def _validate(self, *args: Any, sample_weight: Any = None) -> Any:
        batch = validate_within(self.metric, args, sample_weight)
        weights = None
        if sample_weight is not None:
            weights = np.asarray(sample_weight, dtype=np.float64)  # already checked by the metric
        return args, weights, batch

    def _apply(self, state: BootstrapState, batch: Any) -> None:
        args, weights, inner = batch
        state.apply(args, weights, inner)

    def _is_empty(self, state: BootstrapState) -> bool:
        return self.metric._is_empty(state.base)

    def _empty_value(self) -> Interval:
        return Interval(np.nan, np.nan, np.nan, self.level, "percentile bootstrap")

    def _compute(self, state: BootstrapState) -> Interval:
        return self._interval(state, self.level)

    def _interval(self, state: BootstrapState, level: float) -> Interval:
        estimate = self.metric._compute(state.base)
        values = state.replicate_values()
        finite = np.isfinite(values).sum(axis=0) if values.size else np.zeros(np.shape(estimate), int)
        if not values.size or np.all(finite < 2):
            nan = np.full(np.shape(estimate), np.nan) if np.ndim(estimate) else np.nan
            return Interval(estimate, nan, nan, level, "percentile bootstrap")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            low, high = np.nanquantile(values, [(1.0 - level) / 2.0, (1.0 + level) / 2.0], axis=0)
        if np.ndim(estimate) == 0:
            low, high = float(low), float(high)
        return Interval(estimate, low, high, level, "percentile bootstrap")

    def compute(self, level: float | None = None) -> Interval:
        """The estimate and its percentile interval (at ``level``, default the configured one)."""
        if level is None:
            return super().compute()
        check_number("level", level, low=0.0, high=1.0, low_open=True, high_open=True)
        with self._lock:
            if self._is_empty(self._state):
                return self._value_of(self._state)
            return self._interval(self._state, float(level))

    def replicate_values(self) -> np.ndarray:
        """The metric on each replicate (NaN where undefined): shape ``(n_replicates, ...)``."""
        with self._lock:
            return self._state.replicate_values()

    def standard_error(self) -> Any:
        """The bootstrap standard error: the standard deviation of the replicate values."""
        values = self.replicate_values()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            return np.nanstd(values, axis=0, ddof=1) if len(values) > 1 else np.nan

    def __call__(self, *args: Any, sample_weight: Any = None) -> Interval:
        """Update with a batch and return the interval on that batch alone (same random stream)."""
        batch = self._validate(*args, sample_weight=sample_weight)
        with self._lock:
            fresh = self._make_state()
            fresh.entropy, fresh.n_batches = self._state.ensure_entropy(), self._state.n_batches
            self._apply(fresh, batch)
            self._state.absorb(fresh)
            self._state.n_batches = fresh.n_batches
        return self._value_of(fresh)
