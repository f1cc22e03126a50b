"""Bootstrap replicates of the score sketch (the "sketch" engine): one count tensor on the full
data's bins. While the sketch is exact every replicate is the metric under its Poisson weights
(checked against scikit-learn); once it compresses, every replicate's value lies inside the
guaranteed bounds of its own bins, and the vectorized ROC AUC equals the per-replicate one."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from sklearn import metrics as skm

import streammetrics as sm
from streammetrics.errors import StateError
from streammetrics.ranking import formulas as f
from streammetrics.uncertainty import sketch_replicates as SR
from streammetrics.uncertainty.bootstrap import _stream_rng
from streammetrics.uncertainty.poisson import poisson_one


def _poisson(seed: int, shard: int, sizes: list[int], r: int) -> np.ndarray:
    """The Poisson weights of successive batches of one stream, rows concatenated."""
    return np.concatenate(
        [poisson_one(_stream_rng(seed, shard, b), (r, n)) for b, n in enumerate(sizes)], axis=1
    ).astype(np.float64)


def _rounded_multiclass(rng, n):
    """Three-class labels and probability rows rounded to 0.01 (ties in every column)."""
    y = rng.integers(0, 3, n)
    proba = np.round(rng.dirichlet(np.ones(3), n), 2)
    return y, proba / proba.sum(axis=1, keepdims=True)


def _feed(metric, r, seed, batches, shard=0, weights=None):
    b = sm.Bootstrap(metric, r, seed=seed, shard=shard)
    start = 0
    for y, p in batches:
        w = None if weights is None else weights[start : start + len(y)]
        b.update(y, p, sample_weight=w)
        start += len(y)
    return b


def _split(y, p, cuts):
    edges = [0, *cuts, len(y)]
    return [(y[a:b], p[a:b]) for a, b in itertools.pairwise(edges)]


@pytest.mark.parametrize("weighted", [False, True], ids=["unweighted", "weighted"])
def test_exact_binary_replicates_are_the_metric_under_their_weights(weighted):
    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, 700)
    p = np.round(rng.random(700), 3)  # ties inside and across batches
    w = rng.uniform(0.0, 3.0, 700) if weighted else None
    if weighted:
        w[:30] = 0.0
    b = _feed(sm.ROCAUC(), 40, 9, _split(y, p, [100, 450]), weights=w)
    assert b.state.engine == "sketch" and b.state.base.is_exact
    poisson = _poisson(9, 0, [100, 350, 250], 40) * (1.0 if w is None else w)
    expected = [skm.roc_auc_score(y, p, sample_weight=poisson[r]) for r in range(40)]
    np.testing.assert_allclose(b.replicate_values(), expected, rtol=0, atol=1e-12)


def test_replicates_follow_the_positive_label_the_stream_settles_on():
    """The first batch holds label 3 only (positive until 7 arrives): the tensor swaps its groups."""
    rng = np.random.default_rng(1)
    y = np.concatenate([np.full(80, 3), rng.choice([3, 7], 300)])
    p = rng.random(380)
    b = _feed(sm.ROCAUC(), 30, 4, _split(y, p, [80]))
    poisson = _poisson(4, 0, [80, 300], 30)
    expected = [skm.roc_auc_score(y == 7, p, sample_weight=poisson[r]) for r in range(30)]
    np.testing.assert_allclose(b.replicate_values(), expected, atol=1e-12)


@pytest.mark.parametrize("average", ["macro", "weighted", None])
def test_exact_multiclass_replicates_share_each_rows_weight_across_columns(average):
    rng = np.random.default_rng(2)
    y, proba = _rounded_multiclass(rng, 400)
    b = _feed(sm.ROCAUC(average=average), 25, 3, _split(y, proba, [150]))
    poisson = _poisson(3, 0, [150, 250], 25)
    values = b.replicate_values()
    for r in range(25):
        if average is None:
            onehot = np.eye(3)[y]
            ref = [skm.roc_auc_score(onehot[:, k], proba[:, k], sample_weight=poisson[r]) for k in range(3)]
        else:
            ref = skm.roc_auc_score(y, proba, multi_class="ovr", average=average, sample_weight=poisson[r])
        np.testing.assert_allclose(values[r], ref, atol=1e-12)


def test_exact_average_precision_replicates():
    """Average precision of every replicate at once equals scikit-learn under its weights."""
    rng = np.random.default_rng(3)
    y = rng.integers(0, 2, 500)
    p = np.round(rng.random(500), 2)
    b = _feed(sm.AveragePrecision(), 20, 5, _split(y, p, [200]))
    assert b.state.engine == "sketch"
    poisson = _poisson(5, 0, [200, 300], 20)
    expected = [skm.average_precision_score(y, p, sample_weight=poisson[r]) for r in range(20)]
    np.testing.assert_allclose(b.replicate_values(), expected, atol=1e-12)


def _compressed(seed=4, n=30_000, cuts=(7_000, 19_000), r=30, shard=0, metric=None):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    p = np.clip(0.35 * y + 0.65 * rng.random(n), 0.0, 1.0)
    b = _feed(metric or sm.ROCAUC(max_bytes=4096), r, 11, _split(y, p, list(cuts)), shard=shard)
    return b, y, p


def test_compressed_replicates_lie_within_their_own_bins_bounds():
    b, y, p = _compressed()
    base = b.state.base
    assert not base.is_exact  # the budget compressed the sketch (and moved it between batches)
    poisson = _poisson(11, 0, [7_000, 12_000, 11_000], 30)
    fast = b.replicate_values()
    for r, rep in enumerate(SR.replicate_sketches(base, b.state.tensor)):
        est = f.roc_auc(rep.binary_view(0, [1], [0]))
        reference = skm.roc_auc_score(y, p, sample_weight=poisson[r])
        assert est.low <= reference <= est.high
        assert fast[r] == pytest.approx(est.value, abs=1e-12)  # vectorized = one sketch at a time
    assert np.all(np.abs(fast - [skm.roc_auc_score(y, p, sample_weight=w) for w in poisson]) < 1e-3)


def test_merged_shards_equal_one_tensor_in_any_order():
    a, _, _ = _compressed(seed=5, cuts=(4_000,), shard=0)
    b, _, _ = _compressed(seed=6, n=9_000, cuts=(), shard=1)
    ab, ba = a.copy().merge(b), b.copy().merge(a)
    np.testing.assert_array_equal(ab.state.tensor, ba.state.tensor)  # (the headers keep each side's shard)
    assert ab.state.base.n_bins == ba.state.base.n_bins and ab.compute() == ba.compute()
    assert ab.state.tensor.sum() == a.state.tensor.sum() + b.state.tensor.sum()  # nothing lost
    ab.state.check()
    # exact shards: the merged replicates are the metric on the concatenated rows and weights
    rng = np.random.default_rng(7)
    y, p = rng.integers(0, 2, 300), rng.random(300)
    s0 = _feed(sm.ROCAUC(), 20, 2, [(y[:120], p[:120])], shard=0)
    s1 = _feed(sm.ROCAUC(), 20, 2, [(y[120:], p[120:])], shard=1)
    weights = np.concatenate([_poisson(2, 0, [120], 20), _poisson(2, 1, [180], 20)], axis=1)
    expected = [skm.roc_auc_score(y, p, sample_weight=w) for w in weights]
    np.testing.assert_allclose((s1 + s0).replicate_values(), expected, atol=1e-12)


def test_state_round_trips_and_refuses_inconsistent_tensors():
    b, _, _ = _compressed(n=8_000, cuts=(3_000,), r=10)
    back = sm.Bootstrap.from_bytes(b.to_bytes())
    assert back.to_bytes() == b.to_bytes() and back.state.engine == "sketch"
    np.testing.assert_array_equal(back.replicate_values(), b.replicate_values())
    data = b.state.to_dict()
    bad = dict(data, tensor=data["tensor"][:, 1:])
    with pytest.raises(StateError, match="tensor"):
        b.empty_like().state.load_dict(bad)
    held = np.concatenate([c.counts for c in b.state.base.cols]) > 0
    bin_, group = np.argwhere(~held)[0]
    orphan = data["tensor"].copy()
    orphan[0, bin_, group] = 1
    with pytest.raises(StateError, match="where the data has none"):
        b.empty_like().state.load_dict(dict(data, tensor=orphan))


def test_replicates_agree_with_one_sketch_per_replicate_within_both_bounds():
    """The engine against the generic way (a sketch per replicate, each folding its own
    Poisson-weighted rows at its own bins), on the same draws: they differ by less than the sum
    of their bounds' widths."""
    b, y, p = _compressed(r=40, metric=sm.ROCAUC())
    poisson = _poisson(11, 0, [7_000, 12_000, 11_000], 40)
    engine = [
        f.roc_auc(rep.binary_view(0, [1], [0])) for rep in SR.replicate_sketches(b.state.base, b.state.tensor)
    ]
    for w, mine in zip(poisson, engine, strict=True):
        own = sm.ROCAUC().update(y, p, sample_weight=w)
        low, high = own.bounds()
        assert abs(mine.value - own.compute()) <= (high - low) + (mine.high - mine.low)


def _ovo_reference(y, p, w):
    return sm.ROCAUC(multi_class="ovo").update(y, p, sample_weight=w).compute()  # (scikit-learn: no weights)


@pytest.mark.parametrize(
    "make, kind, reference",
    [
        (
            lambda: sm.ROCAUC(average="micro"),
            "multiclass",
            lambda y, p, w: skm.roc_auc_score(np.eye(3)[y], p, average="micro", sample_weight=w),
        ),
        (lambda: sm.ROCAUC(multi_class="ovo"), "multiclass", _ovo_reference),
        (lambda: sm.ROCAUC(), "multilabel", lambda y, p, w: skm.roc_auc_score(y, p, sample_weight=w)),
        (
            lambda: sm.AveragePrecision(),
            "multilabel",
            lambda y, p, w: skm.average_precision_score(y, p, sample_weight=w),
        ),
    ],
    ids=["micro", "one-vs-one", "multilabel", "multilabel-ap"],
)
def test_other_layouts_evaluated_one_replicate_at_a_time(make, kind, reference):
    """Layouts without a vectorized formula (micro, one-vs-one with K x K groups, multilabel AP)
    build one sketch per replicate from the tensor: exact while the sketch is."""
    rng = np.random.default_rng(5)
    if kind == "multiclass":
        y, p = _rounded_multiclass(rng, 300)
    else:
        y = (rng.random((300, 3)) < 0.4).astype(int)
        p = np.round(rng.random((300, 3)), 2)
    b = _feed(make(), 15, 1, _split(y, p, [150]))
    assert b.state.engine == "sketch"
    poisson = _poisson(1, 0, [150, 150], 15)
    np.testing.assert_allclose(b.replicate_values(), [reference(y, p, w) for w in poisson], atol=1e-12)


@pytest.mark.parametrize(
    "make, weighted",
    [
        (lambda: sm.AveragePrecision(max_bytes=4096), False),
        (lambda: sm.AveragePrecision(max_bytes=4096), True),
        (lambda: sm.ROCAUC(max_bytes=4096), True),
    ],
    ids=["ap", "ap-weighted", "auc-weighted"],
)
def test_vectorized_replicates_equal_one_sketch_per_replicate(make, weighted):
    """Compressed sketch, integer (unit 1) and weighted (unit 0) replicates: the vectorized
    formula gives what each replicate's own sketch gives, and scikit-learn's value under the
    replicate's weights lies inside that sketch's bounds."""
    rng = np.random.default_rng(12)
    n = 20_000
    y = rng.integers(0, 2, n)
    p = np.clip(0.3 * y + 0.7 * rng.random(n), 0.0, 1.0)
    w = rng.uniform(0.5, 2.0, n) if weighted else None
    b = _feed(make(), 12, 4, _split(y, p, [6_000]), weights=w)
    base, tensor = b.state.base, b.state.tensor
    assert not base.is_exact and (tensor.dtype.kind == "f") == weighted
    fast = b.replicate_values()
    reps = SR.replicate_sketches(base, tensor)
    poisson = _poisson(4, 0, [6_000, 14_000], 12) * (1.0 if w is None else w)
    metric = make()
    for r, rep in enumerate(reps):
        assert fast[r] == pytest.approx(metric._compute(rep), abs=1e-12)
        est = metric._estimate(rep)
        ref = (skm.average_precision_score if isinstance(metric, sm.AveragePrecision) else skm.roc_auc_score)(
            y, p, sample_weight=poisson[r]
        )
        assert est.low <= ref <= est.high


@pytest.mark.parametrize("average", ["macro", "weighted", None])
def test_multiclass_average_precision_replicates(average):
    rng = np.random.default_rng(13)
    y, proba = _rounded_multiclass(rng, 400)
    b = _feed(sm.AveragePrecision(average=average), 15, 6, _split(y, proba, [100]))
    poisson = _poisson(6, 0, [100, 300], 15)
    onehot = np.eye(3)[y]
    reference = [
        skm.average_precision_score(onehot, proba, average=average, sample_weight=w) for w in poisson
    ]
    np.testing.assert_allclose(b.replicate_values(), reference, atol=1e-12)
