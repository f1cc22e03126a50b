"""What the law suite does not reach for the per-row value metrics (issue 17): batches longer than
one chunk (the law batches hold at most 30 rows), messages naming the argument, collection
sharing, the ranking metrics' edge rows and the range state of NRMSE."""

from __future__ import annotations

import math
import pickle
import warnings

import numpy as np
import pytest
import scipy.spatial.distance
import scipy.special
from sklearn import metrics as skm

import streammetrics as sm
from streammetrics._core import workspace
from streammetrics.aggregation import base as aggregation_base
from tests.helpers import assert_same
from tests.law_cases import all_cases

#: Chunks of this many rows here (the library's are larger): the same code, smaller batches.
CHUNK_ROWS = 4096
N = 2 * CHUNK_ROWS + 123  # three chunks, the last one short


@pytest.fixture(autouse=True)
def _small_chunks(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(aggregation_base, "CHUNK_ROWS", CHUNK_ROWS)


def _pair(rng: np.random.Generator, n: int) -> tuple[np.ndarray, np.ndarray]:
    t = rng.gamma(2.0, 2.0, n) + 0.1
    return t, t * rng.uniform(0.5, 1.5, n)


@pytest.mark.parametrize(
    ("make", "reference"),
    [
        (
            lambda: sm.PinballLoss(0.9),
            lambda t, p, w: skm.mean_pinball_loss(t, p, alpha=0.9, sample_weight=w),
        ),
        (
            lambda: sm.SMAPE(),
            lambda t, p, w: np.average(
                2 * np.abs(p - t) / np.maximum(np.abs(t) + np.abs(p), 1.17e-6), weights=w
            ),
        ),
        (
            lambda: sm.WMAPE(),
            lambda t, p, w: (
                math.fsum(np.abs(p - t) * (1 if w is None else w)) / math.fsum(t * (1 if w is None else w))
            ),
        ),
        (lambda: sm.LogCoshError(), lambda t, p, w: np.average(np.log(np.cosh(p - t)), weights=w)),
        *[
            (
                lambda order=order: sm.MinkowskiDistance(order),
                lambda t, p, w, order=order: (
                    math.fsum(np.abs(p - t) ** order * (1 if w is None else w)) ** (1 / order)
                ),
            )
            for order in (2.0, 2.5, 3.0, 4.0)  # (the small integer orders are summed as dot products)
        ],
        (lambda: sm.PoissonDeviance(), lambda t, p, w: skm.mean_poisson_deviance(t, p, sample_weight=w)),
    ],
)
@pytest.mark.parametrize("weighted", [False, True])
def test_batches_of_several_chunks_agree(make, reference, weighted: bool) -> None:
    rng = np.random.default_rng(3)
    t, p = _pair(rng, N)
    w = rng.uniform(0.5, 2.0, N) if weighted else None
    m = make().update(t, p, sample_weight=w)
    assert_same(m.compute(), reference(t, p, w), rtol=1e-12)
    m.revert(
        t[: CHUNK_ROWS + 7], p[: CHUNK_ROWS + 7], sample_weight=None if w is None else w[: CHUNK_ROWS + 7]
    )
    rest = slice(CHUNK_ROWS + 7, None)
    assert_same(m.compute(), reference(t[rest], p[rest], None if w is None else w[rest]), rtol=1e-9)


def _fsum_cosines(t: np.ndarray, p: np.ndarray) -> float:
    return math.fsum(
        math.fsum(a * b for a, b in zip(x, y, strict=True))
        / math.sqrt(math.fsum(a * a for a in x) * math.fsum(b * b for b in y))
        for x, y in zip(t.tolist(), p.tolist(), strict=True)
    )


@pytest.mark.parametrize("pooled", [False, True])
@pytest.mark.parametrize("scale", [1.0, 1e-200, 1e-160, 1e160, 1e300])
def test_cosine_similarity_is_exact_for_rows_whose_squares_under_or_overflow(
    scale, pooled, monkeypatch
) -> None:
    monkeypatch.setattr(
        workspace, "FRESH_BYTES", 0 if pooled else 1 << 16
    )  # pooled: products in the work buffer
    rng = np.random.default_rng(5)
    t, p = rng.standard_normal((300, 6)), rng.standard_normal((300, 6))
    scaled = t.copy()
    scaled[::3] *= scale  # (the cosine of a row does not depend on its scale)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no overflow or underflow warning reaches the caller
        value = sm.CosineSimilarity().update(scaled, p).compute()
    assert_same(value, _fsum_cosines(t, p), rtol=1e-12)


def _labels_and_scores(rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    return rng.integers(0, 4, N), rng.standard_normal((N, 4))


def _labels_and_probabilities(rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    return rng.integers(0, 4, N), rng.dirichlet(np.ones(4), N)


def _relevance_and_scores(rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    return (rng.random((N, 5)) < 0.4).astype(int), np.round(rng.standard_normal((N, 5)), 1)


def _distributions(rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    return rng.dirichlet(np.ones(5), N), rng.dirichlet(np.ones(5), N)


@pytest.mark.parametrize(
    ("make", "data", "reference"),
    [
        (lambda: sm.TopKAccuracy(2), _labels_and_scores, lambda y, s: skm.top_k_accuracy_score(y, s, k=2)),
        (sm.HingeLoss, _labels_and_scores, skm.hinge_loss),
        (
            sm.HingeLoss,
            lambda rng: (rng.integers(0, 2, N), rng.standard_normal(N)),
            skm.hinge_loss,
        ),
        (sm.D2LogLossScore, _labels_and_probabilities, skm.d2_log_loss_score),
        (sm.D2BrierScore, _labels_and_probabilities, skm.d2_brier_score),
        (sm.CoverageError, _relevance_and_scores, skm.coverage_error),
        (sm.LabelRankingAveragePrecision, _relevance_and_scores, skm.label_ranking_average_precision_score),
        (sm.LabelRankingLoss, _relevance_and_scores, skm.label_ranking_loss),
        (sm.DCG, _relevance_and_scores, skm.dcg_score),
        (lambda: sm.NDCG(3), _relevance_and_scores, lambda y, s: skm.ndcg_score(y, s, k=3)),
        (
            sm.KLDivergence,
            _distributions,
            lambda p, q: math.fsum(scipy.special.rel_entr(p, q).sum(axis=1)) / N,
        ),
        (
            sm.JensenShannonDivergence,
            _distributions,
            lambda p, q: math.fsum(scipy.spatial.distance.jensenshannon(p, q, axis=1) ** 2) / N,
        ),
    ],
)
def test_classification_and_ranking_batches_of_several_chunks_agree(make, data, reference) -> None:
    """Batches of several chunks, each long enough for the work arrays, against the peers."""
    y, s = data(np.random.default_rng(4))
    assert_same(make().update(y, s).compute(), reference(y, s), rtol=1e-12)


def test_per_row_streams_equal_one_batch() -> None:
    """Python floats one at a time (the buffered hot paths) over more than one flush."""
    rng = np.random.default_rng(5)
    t, p = _pair(rng, 20_000)
    for make in (sm.SMAPE, lambda: sm.PinballLoss(0.3), sm.PoissonDeviance):
        m = make()
        for a, b in zip(t.tolist(), p.tolist(), strict=True):
            m.update(a, b)
        assert_same(m.compute(), make().update(t, p).compute(), rtol=1e-12)
    for make in (sm.Mean, sm.Sum, sm.Max):
        m = make()
        for a in t.tolist():
            m.update(a)
        twin = pickle.loads(pickle.dumps(m))
        copied = m.copy()
        assert_same(m.compute(), make().update(t).compute(), rtol=1e-12)
        for other in (twin, copied):  # the hot path is rebuilt, bound to the new instance
            assert other.update(1.5) is other
            assert_same(other.compute(), make().update(np.append(t, 1.5)).compute(), rtol=1e-12)


@pytest.mark.parametrize(
    ("make", "labels", "reference"),
    [
        (sm.HingeLoss, (-1, 1), lambda y, s: skm.hinge_loss(y, s)),
        (sm.ZeroOneLoss, (3, 7), None),
        (sm.D2LogLossScore, (0, 1), lambda y, s: skm.d2_log_loss_score(y, s)),
        (
            lambda: sm.D2BrierScore(labels=[4, 9]),
            (4, 9),
            lambda y, s: skm.d2_brier_score(y, s, labels=[4, 9]),
        ),
    ],
    ids=["HingeLoss", "ZeroOneLoss", "D2LogLossScore", "D2BrierScore"],
)
def test_classification_rows_one_at_a_time_agree_with_scikit_learn(make, labels, reference) -> None:
    """Binary rows of Python scalars take the buffered per-row path (over several flushes) and
    agree with scikit-learn on the whole stream; a row the batch would refuse is refused when
    offered, the buffered rows kept."""
    rng = np.random.default_rng(6)
    n = 10_000
    y = rng.choice(labels, n)
    s = rng.uniform(0.01, 0.99, n)
    if make is sm.ZeroOneLoss:
        s = np.where(rng.random(n) < 0.8, y, rng.choice(labels, n))
    m = make()
    assert m._row_checker(m.state) is not None  # the buffered path, not one-row batches
    for a, b in zip(y.tolist(), s.tolist(), strict=True):
        m.update(a, b)
    expected = skm.zero_one_loss(y, s) if reference is None else reference(y, s)
    assert_same(m.compute(), expected, rtol=1e-12)
    before = m.state_dict()
    for bad in ((labels[0], float("nan")), (0.5, s[0].item()), (labels[0], 1.5)):
        if make is sm.HingeLoss and bad[1] == 1.5:
            continue  # any finite decision is valid
        if make is sm.ZeroOneLoss and bad[1] == 1.5:
            bad = (labels[0], 1.5)  # a label that is not an integer
        with pytest.raises(sm.InputError):
            m.update(*bad)
    assert_same(m.state_dict(), before)
    assert_same(m.compute(), expected, rtol=1e-12)


@pytest.mark.parametrize("tiny", [0.0, 1e-300, 1e-20, 1e-16, 1e-15])
def test_d2_log_loss_clips_probabilities_as_scikit_learn(tiny) -> None:
    """A true class's probability of 0 (or below the machine epsilon), and of 1, is clipped to
    ``[eps, 1 - eps]`` as scikit-learn's log loss: batches and rows of Python scalars alike."""
    y = [1, 0, 1, 0, 1, 0]
    p = [tiny, 1.0 - tiny, 1.0, 0.0, 0.7, 0.4]
    expected = skm.d2_log_loss_score(y, p)
    assert_same(sm.D2LogLossScore().update(y, p).compute(), expected, rtol=1e-12)
    rows = sm.D2LogLossScore()
    for a, b in zip(y, p, strict=True):
        rows.update(a, b)
    assert_same(rows.compute(), expected, rtol=1e-12)
    three = np.array([[tiny, 1.0 - tiny, 0.0], [0.2, 0.3, 0.5], [0.0, 0.0, 1.0], [0.1, 0.8, 0.1]])
    labels = [0, 2, 2, 1]
    assert_same(
        sm.D2LogLossScore().update(labels, three).compute(), skm.d2_log_loss_score(labels, three), rtol=1e-12
    )


def test_hinge_loss_string_labels_one_at_a_time() -> None:
    """String labels cannot wait in the float buffer: each is applied as a one-row batch, in order."""
    y, d = ["yes", "no", "yes", "no"], [0.3, -1.2, 2.0, 0.4]
    m = sm.HingeLoss(pos_label="yes")
    for a, b in zip(y, d, strict=True):
        m.update(a, b)
    mixed = sm.HingeLoss()
    for a, b in zip([1, -1, 1], [0.5, 0.2, -0.3], strict=True):
        mixed.update(a, b)
    assert_same(m.compute(), skm.hinge_loss(y, d), rtol=1e-12)
    assert_same(mixed.compute(), skm.hinge_loss([1, -1, 1], [0.5, 0.2, -0.3]), rtol=1e-12)


@pytest.mark.parametrize(
    ("make", "args", "words"),
    [
        (sm.CoverageError, ([[1, 2, 0]], [[0.1, 0.2, 0.3]]), ["y_true", "0/1", "2"]),
        (sm.LabelRankingLoss, ([[1, 0, 0]], [[0.1, 0.2]]), ["y_score", "shape (1, 3)", "(1, 2)"]),
        (sm.LabelRankingAveragePrecision, ([1, 0], [0.1, 0.2]), ["y_true", "at least 2 labels"]),
        (sm.DCG, ([[1.0, 2.0]], [[0.1, np.nan]]), ["y_score", "finite"]),
        (sm.NDCG, ([[1.0, -2.0]], [[0.1, 0.2]]), ["y_true", "non-negative", "-2"]),
        (sm.NDCG, ([[1.0, 2.0]], [[0.1, 0.2]], [-1.0]), ["sample_weight"]),
        (lambda: sm.NRMSE("range"), ([1.0, np.inf], [1.0, 2.0]), ["y_true", "finite"]),
        (sm.SMAPE, ([1.0, 2.0], [1.0]), ["y_pred"]),
        (sm.KLDivergence, ([[0.5, 0.5]], [[np.inf, 0.5]]), ["y_pred", "finite", "inf"]),
        (sm.KLDivergence, ([[0.5, np.nan]], [[0.5, 0.5]]), ["y_true", "finite", "nan"]),
        (sm.JensenShannonDivergence, ([[0.5, -np.inf]], [[0.5, 0.5]]), ["y_true", "finite", "-inf"]),
        (sm.JensenShannonDivergence, ([[0.5, 0.5]], [[0.5, -0.5]]), ["y_pred", "non-negative", "-0.5"]),
        (sm.CosineSimilarity, ([[1.0, np.nan]], [[0.1, 0.2]]), ["y_true", "finite", "nan"]),
        (sm.CosineSimilarity, ([[1.0, 2.0]], [[0.1, -np.inf]]), ["y_pred", "finite", "-inf"]),
        (
            sm.CosineSimilarity,
            ([[1e-300, 0.0], [0.0, 0.0]], [[1.0, 0.2], [1.0, 1.0]]),
            ["y_true", "non-zero"],
        ),
        (sm.Mean, (["a"],), ["values"]),
    ],
)
def test_bad_input_names_the_argument_and_changes_nothing(make, args, words) -> None:
    m = make()
    ok = (
        ([[1, 0, 1]], [[0.2, 0.1, 0.3]])
        if len(args) != 1 and not isinstance(m, sm.NRMSE | sm.SMAPE)
        else None
    )
    if ok is not None:
        m.update(*ok)
    before = m.to_bytes()
    (*positional,) = args
    weights = positional.pop() if len(positional) == 3 else None
    with pytest.raises(sm.InputError) as info:
        m.update(*positional, sample_weight=weights)
    assert all(w in str(info.value) for w in words), str(info.value)
    assert m.to_bytes() == before


def test_parameters_are_checked() -> None:
    for bad in (
        lambda: sm.DCG(0),
        lambda: sm.NDCG(1.5),
        lambda: sm.DCG(log_base=1),
        lambda: sm.NDCG(ignore_ties=1),
    ):
        with pytest.raises(ValueError):
            bad()
    with pytest.raises(ValueError, match="normalization"):
        sm.NRMSE("max")


@pytest.mark.parametrize("pooled", [False, True])
def test_collections_share_one_state_per_configuration_and_mix_ranking_metrics(pooled, monkeypatch) -> None:
    # pooled: every temporary in the per-thread work buffers, which the members share
    monkeypatch.setattr(workspace, "FRESH_BYTES", 0 if pooled else 1 << 16)
    rng = np.random.default_rng(6)
    rel = (rng.random((50, 5)) < 0.4).astype(int)
    scores = rng.standard_normal((50, 5))
    c = sm.MetricCollection(
        {
            "cov": sm.CoverageError(),
            "lrap": sm.LabelRankingAveragePrecision(),
            "loss": sm.LabelRankingLoss(),
            "ndcg": sm.NDCG(3),
            "ndcg_twin": sm.NDCG(3),
            "dcg": sm.DCG(ignore_ties=True),
            "dcg_ties": sm.DCG(),
        }
    )
    c.update(rel[:20], scores[:20])
    c.update(rel[20:], scores[20:])
    got = c.compute()
    assert_same(got["cov"], skm.coverage_error(rel, scores), rtol=1e-12)
    assert_same(got["lrap"], skm.label_ranking_average_precision_score(rel, scores), rtol=1e-12)
    assert_same(got["loss"], skm.label_ranking_loss(rel, scores), rtol=1e-12)
    assert_same(got["ndcg"], skm.ndcg_score(rel, scores, k=3), rtol=1e-12)
    assert got["ndcg_twin"] == got["ndcg"]
    assert_same(got["dcg"], skm.dcg_score(rel, scores, ignore_ties=True), rtol=1e-12)
    assert_same(got["dcg_ties"], skm.dcg_score(rel, scores), rtol=1e-12)
    states = {id(m.state) for m in (c["ndcg"], c["ndcg_twin"])}
    assert len(states) == 1  # one configuration, one state


def test_regression_collection_with_range_and_moments() -> None:
    rng = np.random.default_rng(7)
    t, p = _pair(rng, 40)
    c = sm.MetricCollection(
        {"r2": sm.R2(), "nrmse": sm.NRMSE(), "range": sm.NRMSE("range"), "smape": sm.SMAPE()}
    )
    c.update(t[:25], p[:25])
    c.update(t[25:], p[25:])
    got = c.compute()
    rmse = math.sqrt(np.mean((t - p) ** 2))
    assert_same(got["range"], rmse / (t.max() - t.min()), rtol=1e-12)
    assert_same(got["nrmse"], rmse / t.mean(), rtol=1e-12)
    assert_same(got["r2"], skm.r2_score(t, p), rtol=1e-12)


def test_ranking_edge_rows_as_scikit_learn() -> None:
    """Rows with no relevant label, every label relevant, every score tied."""
    rel = np.array([[0, 0, 0], [1, 1, 1], [1, 0, 1], [0, 1, 0]])
    scores = np.array([[0.1, 0.2, 0.3], [0.5, 0.5, 0.5], [0.5, 0.5, 0.5], [0.3, 0.3, 0.1]])
    w = np.array([1.0, 2.0, 0.5, 1.5])
    for ours, ref in (
        (sm.CoverageError, skm.coverage_error),
        (sm.LabelRankingAveragePrecision, skm.label_ranking_average_precision_score),
        (sm.LabelRankingLoss, skm.label_ranking_loss),
    ):
        assert_same(
            ours().update(rel, scores, sample_weight=w).compute(),
            ref(rel, scores, sample_weight=w),
            rtol=1e-12,
        )
    for k in (None, 1, 2):
        assert_same(
            sm.NDCG(k).update(rel, scores, sample_weight=w).compute(),
            skm.ndcg_score(rel, scores, k=k, sample_weight=w),
            rtol=1e-12,
        )
        assert_same(
            sm.DCG(k, log_base=3).update(rel, scores).compute(),
            skm.dcg_score(rel, scores, k=k, log_base=3),
            rtol=1e-12,
        )


def test_range_state_merges_refuses_revert_and_validates_loading() -> None:
    a = sm.NRMSE("range").update([1.0, 5.0], [1.5, 4.0])
    b = sm.NRMSE("range").update([-2.0, 3.0], [0.0, 3.5], sample_weight=[1.0, 0.0])
    merged = a + b
    assert merged.state.low.tolist() == [-2.0] and merged.state.high.tolist() == [5.0]  # weight 0 left out
    with pytest.raises(TypeError, match="cannot revert"):
        merged.revert([1.0], [1.5])
    good = merged.state_dict()
    for change in ({"low": [6.0]}, {"low": [np.inf]}, {"high": [1.0, 2.0]}):
        bad = {**good, "state": {**good["state"], **change}}
        with pytest.raises(sm.StateError):
            sm.from_state_dict(bad)
    assert_same(sm.from_state_dict(good).compute(), merged.compute(), rtol=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert math.isnan(sm.NRMSE("range").compute())


@pytest.mark.parametrize("make", [sm.D2BrierScore, sm.D2LogLossScore])
@pytest.mark.parametrize("weighted", [False, True])
def test_column_sums_without_the_values_are_the_sums_of_the_values(make, weighted) -> None:
    """A metric that sums some columns without building them (class counts) gives the columns
    of its row values, in their order: states stay those of the values (merges, saved states)."""
    rng = np.random.default_rng(11)
    n, k = 500, 4
    y, p = rng.integers(0, k, n), rng.dirichlet(np.ones(k), n)
    w = rng.random(n) if weighted else None
    m = make()
    batch = m._validate(y, p, w)
    values = m._row_values(batch)
    want = values.sum(axis=0) if w is None else w @ values
    np.testing.assert_allclose(m._value_sums(batch), want, rtol=1e-13, atol=0)


#: The metrics whose inputs' finiteness is read from the batch's value sums, and the columns of
#: their y_true and y_pred (``None``: 1-D).
BY_SUMS = [
    (lambda: sm.PinballLoss(0.25), 2, 2),
    (sm.LogCoshError, 2, 2),
    (sm.SMAPE, 2, 2),
    (sm.WMAPE, 2, 2),
    (lambda: sm.MinkowskiDistance(3), 2, 2),
    (sm.CRPS, None, 5),  # (members sorted by the sorting network)
    (sm.CRPS, None, 20),  # (members sorted by np.sort)
]
BY_SUMS_IDS = [f"{type(make()).__name__}-{k}" for make, _, k in BY_SUMS]


def test_every_metric_checked_by_its_sums_is_listed() -> None:
    """The regression losses flagged ``finite_from_sums`` (and CRPS) are exactly those tested here."""
    flagged = {
        name
        for name in sm.__all__
        if isinstance(getattr(sm, name), type) and getattr(getattr(sm, name), "finite_from_sums", False)
    }
    listed = {type(make()).__name__ for make, _, _ in BY_SUMS}
    assert flagged | {"CRPS"} == listed


def _rows(rng: np.random.Generator, n: int, columns: int | None) -> np.ndarray:
    return rng.normal(size=n if columns is None else (n, columns))


@pytest.mark.parametrize(("make", "true_columns", "pred_columns"), BY_SUMS, ids=BY_SUMS_IDS)
@pytest.mark.parametrize("weighted", [False, True])
def test_finiteness_read_from_the_sums_refuses_every_inf_and_nan(
    make, true_columns, pred_columns, weighted
) -> None:
    """An inf or NaN anywhere (one value of a long batch, its row weighted 0) is refused with the
    message of the value-by-value check; on batches of one chunk and of several."""
    rng = np.random.default_rng(11)
    for n in (300, N):
        yt, yp = _rows(rng, n, true_columns), _rows(rng, n, pred_columns)
        w = rng.uniform(0.5, 2.0, n) if weighted else None
        if w is not None:
            w[n - 7] = 0.0
        for which, value in ((0, np.nan), (1, np.inf), (1, -np.inf), (0, np.inf), (1, np.nan)):
            bad = [yt.copy(), yp.copy()]
            bad[which][(n - 7, 1) if bad[which].ndim == 2 else n - 7] = value
            m = make().update(yt, yp, sample_weight=w)
            before = m.to_bytes()
            name = ("y_true", "y_pred")[which]
            with pytest.raises(sm.InputError, match=rf"^{name}: expected finite values, found {value}"):
                m.update(*bad, sample_weight=w)
            assert m.to_bytes() == before


@pytest.mark.parametrize(("make", "true_columns", "pred_columns"), BY_SUMS, ids=BY_SUMS_IDS)
def test_finite_values_whose_sums_overflow_are_accepted(make, true_columns, pred_columns) -> None:
    """Finite values are never refused, not even when their values' sums overflow to inf."""
    big = np.array([1e308, -1e308, 1.0])
    yt = big if true_columns is None else np.repeat(big[:, None], true_columns, axis=1)
    yp = -np.repeat(big[:, None], pred_columns, axis=1)
    m = make()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        m.update(yt, yp)
    assert m.n_samples == 3


@pytest.mark.parametrize(("make", "true_columns", "pred_columns"), BY_SUMS, ids=BY_SUMS_IDS)
def test_sums_carried_by_the_batch_are_those_of_the_fold(make, true_columns, pred_columns) -> None:
    """A batch checked by its sums adds exactly what the same batch adds without them, on
    batches of one chunk and of several (each chunk checked by its own sums)."""
    rng = np.random.default_rng(12)
    for n, weights in ((500, None), (500, rng.uniform(size=500)), (N, None), (N, rng.uniform(size=N))):
        yt, yp = _rows(rng, n, true_columns), _rows(rng, n, pred_columns)
        m, plain = make(), make()
        batch = m._validate(yt, yp, weights)
        parts = batch.parts if n > CHUNK_ROWS else [batch]
        assert all(isinstance(part, aggregation_base.SummedBatch) for part in parts)
        if n <= CHUNK_ROWS:
            m._apply(m._state, batch)
            plain._apply(plain._state, tuple(batch))  # (a plain tuple: the fold computes the sums)
            assert m.to_bytes() == plain.to_bytes()
        else:  # the chunks' carried sums, added, are those of the chunks without them
            fold = np.sum([m._value_sums(tuple(part)) for part in parts], axis=0)
            assert batch.sums.tobytes() == fold.tobytes()
        assert pickle.loads(pickle.dumps(parts[0])).__class__ is tuple


ROW_VALUE_CASES = [case for case in all_cases() if isinstance(case.make(), aggregation_base.RowValueMetric)]


@pytest.mark.parametrize("case", ROW_VALUE_CASES, ids=str)
@pytest.mark.parametrize("weighted", [False, True])
def test_a_long_batch_parsed_chunk_by_chunk_adds_what_the_whole_batch_adds(
    case, weighted: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every per-row value metric: a batch of several chunks, checked and summed a chunk at a
    time, gives the state bytes of the same batch parsed whole (the fold then cuts it into the
    same chunks), and is refused or accepted alike."""
    rng = np.random.default_rng(21)
    args = case.batch(rng, N)
    w = rng.uniform(0.5, 2.0, N) if weighted and case.weights else None
    m = case.make()
    batch = m._validate(*args, sample_weight=w)
    assert isinstance(batch, aggregation_base.ChunkedBatch)
    assert [len(part[0]) for part in batch.parts] == [CHUNK_ROWS, CHUNK_ROWS, N - 2 * CHUNK_ROWS]
    m.update(*args, sample_weight=w)
    monkeypatch.setattr(aggregation_base.RowValueMetric, "_chunked_rows", staticmethod(lambda inputs: None))
    whole = case.make().update(*args, sample_weight=w)
    assert m.to_bytes() == whole.to_bytes()


def _long(row: list, n: int = N) -> np.ndarray:
    return np.array([row] * n, dtype=float)


@pytest.mark.parametrize(
    ("make", "good", "bad"),
    [
        (sm.TopKAccuracy, ([0], [[0.5, 0.3, 0.2]]), ([3], [[0.5, 0.3, 0.2]])),
        (sm.HingeLoss, ([1], [0.3]), ([1], [np.nan])),
        (sm.KLDivergence, ([[0.5, 0.5]], [[0.4, 0.6]]), ([[0.5, 0.5]], [[1.4, -0.4]])),
        (sm.D2LogLossScore, ([1], [[0.5, 0.5]]), ([1], [[1.5, -0.5]])),
        (sm.NDCG, ([[1.0, 0.0]], [[0.1, 0.2]]), ([[1.0, -2.0]], [[0.1, 0.2]])),
        (sm.CoverageError, ([[1, 0]], [[0.1, 0.2]]), ([[1, 2]], [[0.1, 0.2]])),
        (sm.CosineSimilarity, ([[1.0, 2.0]], [[0.1, 0.2]]), ([[0.0, 0.0]], [[0.1, 0.2]])),
        (lambda: sm.TweedieDeviance(1.5), ([1.0], [2.0]), ([1.0], [-2.0])),
    ],
)
@pytest.mark.parametrize("where", [0, CHUNK_ROWS + 5, N - 1], ids=["first chunk", "second", "last"])
def test_a_fault_in_any_chunk_refuses_the_whole_batch_as_the_whole_parse_does(
    make, good, bad, where, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A batch of several chunks with one bad row (in the first, a middle or the last chunk) is
    refused with the message of the whole-batch parse, and changes nothing."""
    args = [np.repeat(np.asarray(g), N, axis=0) for g in good]
    for arg, row in zip(args, bad, strict=True):
        arg[where] = np.asarray(row)[0]
    m = make().update(*[np.asarray(g) for g in good])
    before = m.to_bytes()
    with pytest.raises(sm.InputError) as chunked:
        m.update(*args)
    assert m.to_bytes() == before
    monkeypatch.setattr(aggregation_base.RowValueMetric, "_chunked_rows", staticmethod(lambda inputs: None))
    with pytest.raises(sm.InputError) as whole:
        make().update(*args)
    assert str(chunked.value) == str(whole.value)


@pytest.mark.parametrize("case", ROW_VALUE_CASES, ids=str)
def test_bootstrap_replicates_of_a_long_batch_are_those_of_the_whole_parse(
    case, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The replicates read every chunk's row values after all chunks are parsed: nothing a chunk's
    parsed batch holds may be overwritten by the next chunk's parse."""
    rng = np.random.default_rng(22)
    args = case.batch(rng, N)
    chunked = sm.Bootstrap(case.make(), n_replicates=4, seed=1).update(*args)
    monkeypatch.setattr(aggregation_base.RowValueMetric, "_chunked_rows", staticmethod(lambda inputs: None))
    whole = sm.Bootstrap(case.make(), n_replicates=4, seed=1).update(*args)
    assert chunked.to_bytes() == whole.to_bytes()
