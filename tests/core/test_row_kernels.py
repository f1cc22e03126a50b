"""The compiled row kernels (``_core/_rowkernels.c``): DCG and NDCG of short rows, the label
ranking metrics, Jensen-Shannon, the cosine similarity of a small batch, the regression moments of
a small 1-D batch.

Each kernel is checked bit for bit against a plain-Python reference that makes the same IEEE
operations in the same order (Python floats are IEEE doubles; the C build keeps products and sums
unfused), then each metric against its NumPy formulas (the kernels switched off: the same values
up to the order of a row's sum) and against scikit-learn / SciPy. In CI the kernels must be built.
"""

from __future__ import annotations

import math
import os
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.spatial.distance import jensenshannon
from sklearn.metrics import dcg_score, ndcg_score

import streammetrics as sm
from streammetrics._core import compiled
from streammetrics._core.inputs import Inputs
from streammetrics.aggregation import base as aggregation_base
from streammetrics.classification import rowlosses
from streammetrics.ranking import rowranking
from streammetrics.regression import moments
from streammetrics.regression import rowlosses as rowlosses_regression

kernels = compiled.rowkernels
needs_kernels = pytest.mark.skipif(
    kernels is None, reason="streammetrics._core._rowkernels is not built here"
)


def test_ci_builds_the_row_kernels():
    if os.environ.get("CI") != "true":
        pytest.skip("checked in CI, where the compiler is installed")
    assert compiled.ROW_KERNELS, "the row kernels were not built: setup.py's optional build failed"


@pytest.fixture
def numpy_formulas(monkeypatch):
    """The metrics' NumPy formulas: the kernels switched off where the metrics look them up."""
    monkeypatch.setattr(rowranking, "rowkernels", None)
    monkeypatch.setattr(rowlosses, "rowkernels", None)
    monkeypatch.setattr(rowlosses, "divergences", None)
    monkeypatch.setattr(rowlosses_regression, "rowkernels", None)


# ----------------------------------------------------------------------------- references
def _dcg_reference(scores: np.ndarray, gains: np.ndarray, table: np.ndarray) -> list[float]:
    n, m = scores.shape
    out = []
    for i in range(n):
        row, total = scores[i].tolist(), 0.0
        for j in range(m):
            at_least = sum(x >= row[j] for x in row)
            at_most = sum(x <= row[j] for x in row)
            total += float(table[(at_least - 1) * m + (at_most - 1)]) * float(gains[i, j])
        out.append(total)
    return out


def _ideal_reference(gains: np.ndarray, discount: np.ndarray, top: int) -> list[float]:
    out = []
    for row in gains:
        total = 0.0
        for g, d in zip(sorted(map(float, row), reverse=True)[:top], discount.tolist()[:top], strict=True):
            total += g * d
        out.append(total)
    return out


def _js_reference(p, q, log1p_u, log_u, total_p, total_q) -> list[float]:
    out = []
    for i in range(len(p)):
        first = second = 0.0
        for j in range(p.shape[1]):
            log_p_over_m = rowlosses.LOG_2 - float(log1p_u[i, j])
            first += log_p_over_m * float(p[i, j])
            second += (float(log_u[i, j]) + log_p_over_m) * float(q[i, j])
        out.append((first / float(total_p[i]) + second / float(total_q[i])) * 0.5)
    return out


def _bits(values) -> list[bytes]:
    return [np.float64(x).tobytes() for x in values]


GAIN_DTYPES = [np.float64, np.int64, np.int32, np.uint8, np.bool_]


@needs_kernels
@settings(max_examples=60, deadline=None)
@given(
    n=st.integers(0, 40),
    m=st.sampled_from([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 16, 17, 32]),
    decimals=st.integers(0, 2),
    dtype=st.sampled_from(GAIN_DTYPES),
    grades=st.sampled_from([2, 4, None]),  # (0/1 gains, 0 to 3, or real ones, some negative)
    ties=st.booleans(),
    k=st.one_of(st.none(), st.integers(1, 4)),
    seed=st.integers(0, 2**32 - 1),
)
def test_the_dcg_kernels_equal_their_references_bit_for_bit(n, m, decimals, dtype, grades, ties, k, seed):
    rng = np.random.default_rng(seed)
    scores = np.round(rng.standard_normal((n, m)), decimals)
    real = grades is None and dtype == np.float64
    gains = (rng.standard_normal((n, m)) if real else rng.integers(0, grades or 4, (n, m))).astype(dtype)
    discount = rowranking.discounts(m, k)
    key = rowranking._key(discount)
    table = rowranking._position_discounts(key) if ties else rowranking._mean_discounts(key)
    out = np.full(n, -1.0)
    assert kernels.dcg_rows(scores, gains, table, out, n, m) is True
    assert _bits(out) == _bits(_dcg_reference(scores, gains, table))
    top = int(np.count_nonzero(discount))
    non_negative = bool((gains >= 0).all())
    assert kernels.ideal_dcg_rows(gains, discount, top, out, n, m) is non_negative
    if non_negative:
        assert _bits(out) == _bits(_ideal_reference(gains, discount, top))
    # NDCG: the two in one pass, the first over the second (over 1 where that is 0)
    status = kernels.ndcg_rows(scores, gains, table, discount, top, out, n, m)
    assert status == (rowranking.KERNEL_WROTE if non_negative else rowranking.KERNEL_BAD_RELEVANCE)
    if non_negative:
        pairs = zip(_dcg_reference(scores, gains, table), _ideal_reference(gains, discount, top), strict=True)
        assert _bits(out) == _bits([dcg / (best if best != 0 else 1.0) for dcg, best in pairs])
    if n:  # a score that is not finite (its relevances, negative or not, maybe not all read)
        scores[n // 2, m // 2] = math.nan
        status = kernels.ndcg_rows(scores, gains, table, discount, top, out, n, m)
        assert status == rowranking.KERNEL_NOT_FINITE or (
            status == rowranking.KERNEL_BAD_RELEVANCE and not non_negative
        )


@needs_kernels
@settings(max_examples=40, deadline=None)
@given(n=st.integers(0, 30), k=st.integers(1, 12), seed=st.integers(0, 2**32 - 1))
def test_the_jensen_shannon_kernels_equal_their_references_bit_for_bit(n, k, seed):
    rng = np.random.default_rng(seed)
    p, q = rng.random((n, k)) + 1e-3, rng.random((n, k)) * 10.0 ** rng.integers(-3, 4)
    total_p, total_q = p.sum(axis=1), q.sum(axis=1)
    ratio = q / p
    scaled = ratio.copy()
    kernels.scale_rows(scaled, total_p, total_q, n, k)
    assert _bits(scaled.ravel()) == _bits((ratio * (total_p / total_q)[:, None]).ravel())
    log1p_u, log_u = np.log1p(scaled), np.log(scaled)
    out = np.empty(n)
    kernels.js_sums(p, q, log1p_u, log_u, total_p, total_q, out, n, k)
    assert _bits(out) == _bits(_js_reference(p, q, log1p_u, log_u, total_p, total_q))


@needs_kernels
def test_the_kernels_refuse_buffers_they_cannot_read():
    s, out = np.zeros((3, 4)), np.zeros(3)
    table = np.zeros(16)
    with pytest.raises(ValueError, match="scores"):
        kernels.dcg_rows(s.astype(np.float32), s, table, out, 3, 4)
    with pytest.raises(ValueError, match="gains"):
        kernels.dcg_rows(s, s.astype(np.int16), table, out, 3, 4)
    with pytest.raises(ValueError, match="table"):
        kernels.dcg_rows(s, s, table[:15], out, 3, 4)
    with pytest.raises(ValueError, match="out"):
        kernels.dcg_rows(s, s, table, out[:2], 3, 4)
    with pytest.raises(ValueError, match="entries"):
        kernels.dcg_rows(np.zeros((3, 40)), np.zeros((3, 40)), np.zeros(1600), out, 3, 40)
    with pytest.raises(ValueError, match="top"):
        kernels.ideal_dcg_rows(s, np.zeros(4), 5, out, 3, 4)
    with pytest.raises(ValueError, match="contiguous"):
        kernels.dcg_rows(np.zeros((4, 3)).T, s, table, out, 3, 4)
    read_only = np.zeros(3)
    read_only.flags.writeable = False
    with pytest.raises(ValueError, match="read-only"):
        kernels.js_sums(s, s, s, s, out, out, read_only, 3, 4)
    with pytest.raises(ValueError, match="read-only"):
        kernels.scale_rows(read_only, out, out, 3, 1)
    with pytest.raises(TypeError, match="6 arguments"):
        kernels.dcg_rows(s, s, table, out, 3)


# ----------------------------------------------------------------------------- the metrics
def _ranking_batch(rng: np.random.Generator, n: int, m: int, dtype) -> tuple[np.ndarray, np.ndarray]:
    y = rng.integers(0, 4, (n, m)).astype(dtype)
    s = np.round(rng.standard_normal((n, m)), int(rng.integers(0, 3)))  # (ties at 0 and 1 decimals)
    return y, s


def _values(metric, y: np.ndarray, s: np.ndarray) -> np.ndarray:
    """The per-row values a batch parses to (a copy): at parse by the kernels, at the fold by
    NumPy."""
    return metric._row_values(metric._parse_rows(Inputs((y, s)))).ravel().copy()


RANKING = [
    lambda: sm.DCG(),
    lambda: sm.DCG(2, log_base=10),
    lambda: sm.DCG(ignore_ties=True),
    lambda: sm.NDCG(),
    lambda: sm.NDCG(3),
    lambda: sm.NDCG(1, ignore_ties=True),
]


@needs_kernels
@pytest.mark.parametrize("make", RANKING)
@pytest.mark.parametrize("m", [2, 5, 11, 32])
@pytest.mark.parametrize("dtype", [np.int64, np.float64, np.bool_, np.int16, np.uint8])
def test_ranking_rows_by_the_kernels_agree_with_the_numpy_formulas_and_scikit_learn(
    make, m, dtype, monkeypatch
):
    rng = np.random.default_rng(m)
    y, s = _ranking_batch(rng, 5000, m, dtype)
    w = rng.random(len(y))
    by_kernels = _values(make(), y, s)
    with monkeypatch.context() as patch:
        patch.setattr(rowranking, "rowkernels", None)
        by_numpy = _values(make(), y, s)
    np.testing.assert_allclose(by_kernels, by_numpy, rtol=1e-14, atol=0)
    metric = make()
    scorer = dcg_score if isinstance(metric, sm.DCG) else ndcg_score
    kwargs = {"k": metric.k, "ignore_ties": metric.ignore_ties, "sample_weight": w}
    if isinstance(metric, sm.DCG):
        kwargs["log_base"] = metric.log_base
    assert math.isclose(metric.update(y, s, w).compute(), scorer(y, s, **kwargs), rel_tol=1e-12)


@needs_kernels
@pytest.mark.parametrize("make", RANKING)
def test_a_rows_value_by_the_kernels_is_the_same_in_any_batch(make):
    rng = np.random.default_rng(7)
    y, s = _ranking_batch(rng, 600, 6, np.int64)
    whole = _values(make(), y, s)
    parts = [_values(make(), y[i : i + 37], s[i : i + 37]) for i in range(0, 600, 37)]
    assert whole.tobytes() == np.concatenate(parts).tobytes()


def _js_values(p: np.ndarray, q: np.ndarray) -> np.ndarray:
    """The per-row values a batch of ``(p, q)`` parses to (a copy)."""
    return sm.JensenShannonDivergence()._parse_rows(Inputs((p, q)))[0].copy()


@needs_kernels
@pytest.mark.parametrize("k", [2, 5, 9])
@pytest.mark.parametrize("zeros", [False, True])
def test_jensen_shannon_by_the_kernels_agrees_with_the_numpy_formulas_and_scipy(k, zeros, monkeypatch):
    rng = np.random.default_rng(k)
    p = rng.dirichlet(np.ones(k), 3000) * rng.uniform(0.5, 4.0, (3000, 1))
    q = rng.dirichlet(np.ones(k) * 0.3, 3000)
    if zeros:
        p[rng.random(p.shape) < 0.1] = 0.0
        p[:, 0] += p.sum(axis=1) == 0  # (no row of zeros)
    monkeypatch.setattr(rowlosses, "divergences", None)  # (this file's kernels: _divergences.c's apart)
    by_kernels = _js_values(p, q)
    with monkeypatch.context() as patch:
        patch.setattr(rowlosses, "rowkernels", None)
        by_numpy = _js_values(p, q)
    np.testing.assert_allclose(by_kernels, by_numpy, rtol=1e-13, atol=1e-17)
    reference = jensenshannon(p, q, axis=1) ** 2
    np.testing.assert_allclose(by_kernels, reference, rtol=1e-9, atol=1e-15)


def test_the_numpy_formulas_agree_with_scikit_learn_too(numpy_formulas):
    rng = np.random.default_rng(3)
    y, s = _ranking_batch(rng, 2000, 7, np.int64)
    assert math.isclose(sm.NDCG(4).update(y, s).compute(), ndcg_score(y, s, k=4), rel_tol=1e-12)
    assert math.isclose(sm.DCG().update(y, s).compute(), dcg_score(y, s), rel_tol=1e-12)


# ----------------------------------------------------------------------------- cosine
def _cosine_reference(yt: np.ndarray, yp: np.ndarray) -> tuple[list[float], list[float]]:
    cosines, norms = [], []
    for x, y in zip(yt.tolist(), yp.tolist(), strict=True):
        a = b = c = 0.0
        for u, v in zip(x, y, strict=True):
            a += u * u
            b += v * v
            c += u * v
        norm = math.sqrt(a) * math.sqrt(b)
        norms.append(norm)
        cosines.append(c / norm)
    return cosines, norms


@needs_kernels
@settings(max_examples=40, deadline=None)
@given(n=st.integers(0, 30), d=st.integers(1, 12), seed=st.integers(0, 2**32 - 1))
def test_the_cosine_kernel_equals_its_reference_bit_for_bit(n, d, seed):
    rng = np.random.default_rng(seed)
    yt, yp = rng.standard_normal((n, d)) * 10.0 ** rng.integers(-5, 6), rng.standard_normal((n, d))
    cosine, norms = np.empty(n), np.empty(n)
    assert kernels.cosine_rows(yt, yp, cosine, norms, n, d, 1e-280, 1e280) is True
    expected_cosine, expected_norms = _cosine_reference(yt, yp)
    assert _bits(cosine) == _bits(expected_cosine) and _bits(norms) == _bits(expected_norms)


@needs_kernels
@pytest.mark.parametrize("bad", [0.0, 1e-150, 1e150, math.inf, math.nan])
def test_the_cosine_kernel_says_when_a_rows_squares_leave_the_safe_range(bad):
    yt, yp = np.ones((4, 3)), np.ones((4, 3))
    yp[2] = bad
    assert kernels.cosine_rows(yt, yp, np.empty(4), np.empty(4), 4, 3, 1e-280, 1e280) is False
    assert kernels.cosine_rows(yp, yt, np.empty(4), np.empty(4), 4, 3, 1e-280, 1e280) is False


@needs_kernels
@pytest.mark.parametrize("scale", [1.0, 1e-160, 1e160])
@pytest.mark.parametrize("weighted", [False, True])
def test_cosine_by_the_kernel_agrees_with_the_numpy_formulas_and_the_definition(scale, weighted, monkeypatch):
    rng = np.random.default_rng(5)
    yt, yp = rng.standard_normal((256, 8)), rng.standard_normal((256, 8))
    yt[::7] *= scale  # (rows whose squares leave the safe range: the general path scales them)
    w = rng.random(256) if weighted else None
    by_kernel = sm.CosineSimilarity(reduction="mean").update(yt, yp, w).compute()
    with monkeypatch.context() as patch:
        patch.setattr(rowlosses_regression, "rowkernels", None)
        by_numpy = sm.CosineSimilarity(reduction="mean").update(yt, yp, w).compute()
    assert math.isclose(by_kernel, by_numpy, rel_tol=1e-14)
    exact = [
        math.fsum(a * b for a, b in zip(x, y, strict=True))
        / (math.sqrt(math.fsum(a * a for a in x)) * math.sqrt(math.fsum(b * b for b in y)))
        for x, y in zip((yt / np.abs(yt).max(axis=1, keepdims=True)).tolist(), yp.tolist(), strict=True)
    ]
    weights = np.ones(256) if w is None else w
    assert math.isclose(by_kernel, math.fsum(np.multiply(exact, weights)) / math.fsum(weights), rel_tol=1e-13)


# ----------------------------------------------------------------------------- label ranking
def _label_ranking_reference(kind: int, relevant: np.ndarray, scores: np.ndarray) -> list[float]:
    out = []
    for rel, row in zip(relevant.tolist(), scores.tolist(), strict=True):
        m, n_relevant = len(row), sum(rel)
        if kind == rowranking.COVERAGE:
            lowest = min((x for x, r in zip(row, rel, strict=True) if r), default=math.inf)
            out.append(float(sum(x >= lowest for x in row)))
            continue
        precision, wrong = 0.0, 0
        for x, r in zip(row, rel, strict=True):
            if r:
                rank = sum(y >= x for y in row)
                at_least = sum(y >= x and q for y, q in zip(row, rel, strict=True))
                precision += at_least / rank
                wrong += rank - at_least
        if kind == rowranking.AVERAGE_PRECISION:
            out.append(precision / max(n_relevant, 1) + (1.0 if n_relevant == 0 else 0.0))
        else:
            out.append(wrong / max(n_relevant * (m - n_relevant), 1))
    return out


@needs_kernels
@pytest.mark.parametrize("m", [3, 4, 5, 8, 9, 16])
def test_ndcg_sorts_every_row_of_two_values(m):
    """The 0-1 principle: a network of compare-exchanges that sorts every row of two values sorts
    every row (the AVX-512 loops sort eight rows' relevances by one, for their ideal DCGs; 0s and
    2s, as rows of 0s and 1s take the sums of the first discounts, unsorted)."""
    relevance = ((np.arange(2**m)[:, None] >> np.arange(m)) & 1) * 2  # (every row of m 0s and 2s)
    n = len(relevance)
    scores = np.random.default_rng(m).standard_normal((n, m))
    discount = rowranking.discounts(m, None)
    table = rowranking._mean_discounts(rowranking._key(discount))
    out, dcg = np.empty(n), np.empty(n)
    assert kernels.ndcg_rows(scores, relevance, table, discount, m, out, n, m) == rowranking.KERNEL_WROTE
    assert kernels.dcg_rows(scores, relevance, table, dcg, n, m)
    ordered = -np.sort(-relevance.astype(np.float64), axis=1)
    ideal = np.zeros(n)
    for p in range(m):  # (summed from the first position, as the definition)
        ideal = ideal + ordered[:, p] * discount[p]
    assert out.tobytes() == (dcg / np.where(ideal == 0, 1.0, ideal)).tobytes()


@needs_kernels
@settings(max_examples=60, deadline=None)
@given(
    n=st.integers(0, 40),
    m=st.sampled_from([1, 2, 3, 5, 7, 8, 9, 10, 16, 17, 32]),
    decimals=st.integers(0, 2),
    share=st.floats(0.0, 1.0),
    seed=st.integers(0, 2**32 - 1),
)
def test_the_label_ranking_kernel_equals_its_reference_bit_for_bit(n, m, decimals, share, seed):
    rng = np.random.default_rng(seed)
    relevant = rng.random((n, m)) < share
    scores = np.round(rng.standard_normal((n, m)), decimals)
    out = np.full(n, -1.0)
    for kind in (rowranking.COVERAGE, rowranking.AVERAGE_PRECISION, rowranking.RANKING_LOSS):
        expected = _bits(_label_ranking_reference(kind, relevant, scores))
        for dtype in GAIN_DTYPES:
            assert (
                kernels.label_ranking_rows(kind, relevant.astype(dtype), scores, out, n, m)
                == rowranking.KERNEL_WROTE
            )
            assert _bits(out) == expected, (kind, dtype)
        if n:  # a relevance other than 0 or 1 (or NaN): refused, before a score that is not finite
            for bad, dtype in (
                (2, np.int64),
                (-1, np.int32),
                (0.5, np.float64),
                (math.nan, np.float64),
                (3, np.uint8),
            ):
                wrong = relevant.astype(dtype)
                wrong[n // 2, m // 2] = bad
                assert (
                    kernels.label_ranking_rows(kind, wrong, scores, out, n, m)
                    == rowranking.KERNEL_BAD_RELEVANCE
                )
                not_finite = scores.copy()
                not_finite[-1, -1] = math.nan
                assert (
                    kernels.label_ranking_rows(kind, wrong, not_finite, out, n, m)
                    == rowranking.KERNEL_BAD_RELEVANCE
                )
            for bad in (math.nan, math.inf, -math.inf):
                not_finite = scores.copy()
                not_finite[n // 2, m // 2] = bad
                assert (
                    kernels.label_ranking_rows(kind, relevant, not_finite, out, n, m)
                    == rowranking.KERNEL_NOT_FINITE
                )
    with pytest.raises(ValueError, match="kind"):
        kernels.label_ranking_rows(3, relevant, scores, out, n, m)
    with pytest.raises(ValueError, match="relevant"):
        kernels.label_ranking_rows(0, relevant.astype(np.int16), scores, out, n, m)


LABEL_RANKING = [
    (sm.CoverageError, "coverage_error"),
    (sm.LabelRankingAveragePrecision, "label_ranking_average_precision_score"),
    (sm.LabelRankingLoss, "label_ranking_loss"),
]


@needs_kernels
@pytest.mark.parametrize(("cls", "reference"), LABEL_RANKING)
@pytest.mark.parametrize("m", [3, 7, 8, 16, 32])
@pytest.mark.parametrize("n", [300, 5000])
def test_label_ranking_by_the_kernel_agrees_with_the_numpy_formulas_and_scikit_learn(
    cls, reference, m, n, monkeypatch
):
    import sklearn.metrics

    rng = np.random.default_rng(m + n)
    y = rng.random((n, m)) < rng.uniform(0.05, 0.6, (n, 1))
    s = np.round(rng.standard_normal((n, m)), int(rng.integers(0, 3)))
    w = rng.random(n)
    by_kernel = _values(cls(), y, s)
    with monkeypatch.context() as patch:
        patch.setattr(rowranking, "rowkernels", None)
        by_numpy = _values(cls(), y, s)
    if cls is sm.LabelRankingAveragePrecision:  # (a sum of fractions: its order may differ)
        np.testing.assert_allclose(by_kernel, by_numpy, rtol=1e-15, atol=0)
    else:  # (whole counts and one quotient: the same bits)
        assert by_kernel.tobytes() == by_numpy.tobytes()
    expected = getattr(sklearn.metrics, reference)(y, s, sample_weight=w)
    assert math.isclose(cls().update(y, s, w).compute(), expected, rel_tol=1e-12)


def _refusals(
    make, y: np.ndarray, s: np.ndarray, match: str, monkeypatch, module=rowranking, first: int = 5
) -> list[str]:
    """The messages of a metric refusing ``(y, s)`` (InputError matching ``match``, its state
    unchanged) with the kernels and with the NumPy formulas (``module``'s kernels switched off),
    after a first batch of ``first`` rows."""
    messages = []
    for off in (False, True):
        with monkeypatch.context() as patch:
            if off:
                patch.setattr(module, "rowkernels", None)
            metric = make().update(y[:first], s[:first])
            before = metric.to_bytes()
            with pytest.raises(sm.InputError, match=match) as caught:
                metric.update(y, s)
            assert metric.to_bytes() == before
            messages.append(str(caught.value))
    return messages


@needs_kernels
@pytest.mark.parametrize("bad", [math.inf, -math.inf, math.nan])
@pytest.mark.parametrize("make", [sm.DCG, lambda: sm.NDCG(2, ignore_ties=True)])
@pytest.mark.parametrize("m", [6, 16])
def test_a_score_that_is_not_finite_is_refused_as_the_numpy_path_refuses_it(bad, make, m, monkeypatch):
    rng = np.random.default_rng(2)
    y, s = _ranking_batch(rng, 50, m, np.int64)
    s[31, m - 2] = bad
    messages = _refusals(make, y, s, "y_score", monkeypatch)
    assert messages[0] == messages[1]
    assert kernels.all_finite(s, s.size) is False and kernels.all_finite(s[:31], s[:31].size) is True
    out = np.full(50, -1.0)
    table = rowranking._mean_discounts(rowranking._key(rowranking.discounts(m, None)))
    assert kernels.dcg_rows(s, y, table, out, 50, m) is False


@needs_kernels
@pytest.mark.parametrize("m", [6, 16])
@pytest.mark.parametrize("dtype", [np.int64, np.float64])
@pytest.mark.parametrize(("nan_row", "named"), [(None, "y_true"), (35, "y_true"), (7, "y_score")])
def test_ndcg_refuses_a_negative_relevance_as_the_numpy_path_refuses_it(
    m, dtype, nan_row, named, monkeypatch
):
    """Named before a score that is not finite in the same chunk of rows (the relevances are read
    first; the tests' chunks are of 16 rows: the negative relevance's is rows 32 to 47, the score
    at row 7 faults an earlier one)."""
    assert aggregation_base.CHUNK_ROWS == 16
    rng = np.random.default_rng(5)
    y, s = _ranking_batch(rng, 60, m, dtype)
    y[40, 1] = -1
    if nan_row is not None:
        s[nan_row, 2] = math.nan
    messages = _refusals(sm.NDCG, y, s, f"^{named}: expected", monkeypatch)
    assert messages[0] == messages[1]


@needs_kernels
@pytest.mark.parametrize("m", [6, 16, 20])
@pytest.mark.parametrize("bad", [math.inf, math.nan])
@pytest.mark.parametrize(
    ("negative_row", "nan_score_row", "named"),
    [
        (None, None, "y_true: expected finite"),
        (41, None, "y_true: expected finite"),
        (None, 42, "y_true: expected finite"),
        (41, 42, "y_true: expected finite"),
        (10, None, "y_true: expected non-negative"),
        (None, 7, "y_score: expected finite"),
    ],
)
def test_ndcg_refuses_a_relevance_that_is_not_finite_as_the_numpy_path_refuses_it(
    m, bad, negative_row, nan_score_row, named, monkeypatch
):
    """The kernel checks float relevances as it reads them (no pass of their own): one that is
    not finite (row 40) is named before a negative relevance or a score that is not finite in the
    same chunk of rows (32 to 47), and after those of an earlier chunk, wherever they are (the
    kernel may stop at the score before it reads the relevance)."""
    assert aggregation_base.CHUNK_ROWS == 16
    rng = np.random.default_rng(6)
    y, s = _ranking_batch(rng, 60, m, np.float64)
    discount = rowranking.discounts(m, None)
    table = rowranking._mean_discounts(rowranking._key(discount))
    bad_y = y.copy()
    bad_y[40, m - 2] = bad  # (m = 16: in a row's second vector)
    status = kernels.ndcg_rows(s, bad_y, table, discount, m, np.empty(60), 60, m)
    assert status == rowranking.KERNEL_BAD_RELEVANCE
    if negative_row is not None:
        bad_y[negative_row, 1] = -1.0
    if nan_score_row is not None:
        s[nan_score_row, 3] = math.nan
    messages = _refusals(sm.NDCG, bad_y, s, f"^{named}", monkeypatch)
    assert messages[0] == messages[1]


@needs_kernels
@pytest.mark.parametrize("make", [sm.DCG, lambda: sm.DCG(3), lambda: sm.DCG(ignore_ties=True)])
@pytest.mark.parametrize("m", [6, 16, 20])
@pytest.mark.parametrize("bad", [math.inf, -math.inf, math.nan])
@pytest.mark.parametrize(("nan_score_row", "named"), [(None, "y_true"), (42, "y_true"), (7, "y_score")])
def test_dcg_refuses_a_relevance_that_is_not_finite_as_the_numpy_path_refuses_it(
    make, m, bad, nan_score_row, named, monkeypatch
):
    """DCG's float relevances have no finiteness pass of their own: one that is not finite makes
    its row's value so (past ``k`` too: 0 times it is NaN), and only then are they checked value
    by value, before the scores, as the NumPy formulas check them (same chunk: relevances first;
    a score in an earlier chunk: the score)."""
    assert aggregation_base.CHUNK_ROWS == 16
    rng = np.random.default_rng(7)
    y, s = _ranking_batch(rng, 60, m, np.float64)
    y[40, m - 1] = bad  # (the last document: past k = 3, scored anywhere)
    if nan_score_row is not None:
        s[nan_score_row, 3] = math.nan
    messages = _refusals(make, y, s, f"^{named}: expected finite", monkeypatch)
    assert messages[0] == messages[1]


@needs_kernels
@pytest.mark.parametrize("make", [sm.DCG, sm.NDCG])
def test_finite_relevances_whose_sum_overflows_are_taken_as_the_numpy_path_takes_them(make, monkeypatch):
    rng = np.random.default_rng(8)
    y, s = _ranking_batch(rng, 40, 6, np.float64)
    y[5] = 1e308  # (finite; the row's DCG overflows)
    by_kernel = make().update(y, s)
    with monkeypatch.context() as patch:
        patch.setattr(rowranking, "rowkernels", None)
        by_numpy = make().update(y, s)
    a, b = by_kernel.compute(), by_numpy.compute()  # (accepted by both: no InputError)
    assert a == b or (math.isnan(a) and math.isnan(b))


@needs_kernels
@pytest.mark.parametrize("cls", [c for c, _ in LABEL_RANKING])
@pytest.mark.parametrize(
    ("column", "bad", "names"),
    [
        (0, 2, "y_true"),
        (0, 0.5, "y_true"),
        (0, math.nan, "y_true"),
        (1, math.inf, "y_score"),
        (1, math.nan, "y_score"),
    ],
)
def test_label_ranking_refuses_what_the_numpy_path_refuses(cls, column, bad, names, monkeypatch):
    rng = np.random.default_rng(4)
    y = (rng.random((40, 9)) < 0.3).astype(np.float64)
    s = rng.standard_normal((40, 9))
    (y, s)[column][17, 3] = bad
    messages = _refusals(cls, y, s, names, monkeypatch)
    assert messages[0] == messages[1]


# ----------------------------------------------------------------------------- moments
def _pairwise(terms: list[float]) -> float:
    """NumPy's pairwise blocking (eight partial sums up to 128 terms, halves above), in Python."""
    n = len(terms)
    if n < 8:
        total = 0.0
        for x in terms:
            total += x
        return total
    if n <= 128:
        r = terms[:8]
        i = 8
        while i + 8 <= n:
            r = [a + b for a, b in zip(r, terms[i : i + 8], strict=True)]
            i += 8
        total = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]))
        for x in terms[i:]:
            total += x
        return total
    half = n // 2
    half -= half % 8
    return _pairwise(terms[:half]) + _pairwise(terms[half:])


def _moments_reference(yt, yp, w, kind, shift) -> dict[str, list[float]]:
    yt, yp = yt.tolist(), yp.tolist()
    w = None if w is None else w.tolist()
    n = len(yt)
    series = {
        "true": yt,
        "pred": yp,
        "residual": [a - b for a, b in zip(yt, yp, strict=True)],
    }
    rows = [series[name] for name in kind.ROWS]

    def weighted(terms):
        return terms if w is None else [x * v for x, v in zip(terms, w, strict=True)]

    total = float(n) if w is None else _pairwise(w)
    first = 0 if w is None else next(i for i, v in enumerate(w) if v > 0)
    shifts = [row[first] for row in rows] if shift is None else list(shift)
    means = [_pairwise(weighted([x - k for x in row])) / total for row, k in zip(rows, shifts, strict=True)]
    devs = [[x - k - m for x in row] for row, k, m in zip(rows, shifts, means, strict=True)]
    out = {
        "weight": [total],
        "shift": shifts,
        "mean": means,
        "m2": [_pairwise(weighted([d * d for d in dev])) for dev in devs],
    }
    if kind.CROSS:
        out["cross"] = [_pairwise(weighted([a * b for a, b in zip(devs[0], devs[1], strict=True)]))]
    residual = series["residual"]
    if "sum_abs" in kind.SUMS:
        out["sum_abs"] = [_pairwise(weighted([abs(r) for r in residual]))]
    if "sum_ape" in kind.SUMS:
        eps = float(np.finfo(np.float64).eps)
        out["sum_ape"] = [
            _pairwise(weighted([abs(r) / max(abs(t), eps) for r, t in zip(residual, yt, strict=True)]))
        ]
    return out


MOMENT_KINDS = [moments.CoMoments, moments.ResidualMoments, moments.TargetMoments]


@needs_kernels
@settings(max_examples=60, deadline=None)
@given(
    n=st.integers(1, 700),
    kind=st.sampled_from(MOMENT_KINDS),
    weighted=st.booleans(),
    shifted=st.booleans(),
    scale=st.sampled_from([1e-3, 1.0, 1e6]),
    seed=st.integers(0, 2**32 - 1),
)
def test_the_moments_kernel_equals_its_reference_bit_for_bit(n, kind, weighted, shifted, scale, seed):
    rng = np.random.default_rng(seed)
    yt = rng.standard_normal(n) * scale + 3.0
    yp = yt + rng.standard_normal(n) * scale
    w = rng.uniform(0.0, 2.0, n) * (rng.random(n) < 0.8) if weighted else None
    shift = rng.standard_normal((len(kind.ROWS), 1)) if shifted else None
    status, got = moments._compiled_chunk(yt, yp, w, shift, kind)
    if w is not None and not w.sum() > 0:
        assert status == 0 and got is None
        return
    assert status == 1
    expected = _moments_reference(yt, yp, w, kind, None if shift is None else shift.ravel().tolist())
    assert set(got) == set(expected)
    for key, values in expected.items():
        assert _bits(np.ravel(got[key])) == _bits(values), key


@needs_kernels
@pytest.mark.parametrize("kind", MOMENT_KINDS)
@pytest.mark.parametrize("weighted", [False, True])
def test_the_moments_kernel_agrees_with_the_numpy_path_field_by_field(kind, weighted, monkeypatch):
    rng = np.random.default_rng(11)
    yt = rng.gamma(2.0, 2.0, 300)
    yp = yt * rng.uniform(0.5, 1.5, 300)
    w = rng.random(300) if weighted else None
    by_kernel = moments._chunk_stats(yt, yp, w, None, kind)
    with monkeypatch.context() as patch:
        patch.setattr(moments, "rowkernels", None)
        by_numpy = moments._chunk_stats(yt, yp, w, None, kind)
    assert set(by_kernel) == set(by_numpy)
    for key, value in by_numpy.items():
        got = by_kernel[key]
        assert np.shape(got) == np.shape(value), key
        np.testing.assert_allclose(got, value, rtol=1e-13, atol=0, err_msg=key)


@needs_kernels
@pytest.mark.parametrize("make", [sm.MSE, sm.MAE, sm.R2, sm.MAPE, sm.ExplainedVariance])
def test_regression_on_a_training_steps_batches_agrees_with_the_numpy_path(make, monkeypatch):
    rng = np.random.default_rng(3)
    batches = [
        (rng.standard_normal(256) + 5, rng.standard_normal(256) + 5, rng.random(256)) for _ in range(6)
    ]
    by_kernel, by_numpy = make(), make()
    for yt, yp, w in batches:
        by_kernel.update(yt, yp, w)
    with monkeypatch.context() as patch:
        patch.setattr(moments, "rowkernels", None)
        for yt, yp, w in batches:
            by_numpy.update(yt, yp, w)
    assert math.isclose(by_kernel.compute(), by_numpy.compute(), rel_tol=1e-12)


@needs_kernels
def test_a_difference_beyond_the_float_range_takes_the_numpy_path():
    yt = np.array([1.5e308, 1.0, 2.0])
    yp = np.array([-1.5e308, 1.5, 2.5])
    status, got = moments._compiled_chunk(yt, yp, None, None, moments.ResidualMoments)
    assert status == moments.OVERFLOWED and got is None
    assert sm.MSE().update(yt, yp).compute() == math.inf  # (as scikit-learn: the square overflows)


@needs_kernels
def test_the_kernels_read_any_spelling_of_native_order_and_refuse_another():
    a = np.arange(6.0)
    for dtype in ("=f8", "<f8" if np.little_endian else ">f8", "f8"):
        assert kernels.all_finite(a.astype(dtype), 6) is True
    with pytest.raises(ValueError, match="format"):
        kernels.all_finite(a.astype(">f8" if np.little_endian else "<f8"), 6)


@pytest.mark.parametrize(
    "make",
    [sm.DCG, lambda: sm.NDCG(2), sm.LabelRankingLoss, sm.CoverageError, sm.MAE, sm.JensenShannonDivergence],
)
def test_metrics_read_arrays_of_the_other_byte_order_as_they_read_native_ones(make):
    rng = np.random.default_rng(8)
    if make is sm.MAE:
        args = (rng.standard_normal(40), rng.standard_normal(40))
    elif make is sm.JensenShannonDivergence:
        args = (rng.dirichlet(np.ones(4), 40), rng.dirichlet(np.ones(4), 40))
    else:
        args = ((rng.random((40, 6)) < 0.4).astype(np.int64), rng.standard_normal((40, 6)))
    other = ">" if np.little_endian else "<"
    swapped = tuple(a.astype(a.dtype.newbyteorder(other)) for a in args)
    assert make().update(*swapped).compute() == make().update(*args).compute()
    bad = swapped[1].copy()
    bad[5] = np.nan
    with pytest.raises(sm.InputError):
        make().update(swapped[0], bad)


# ----------------------------------------------------------------------------- CRPS
def _crps_reference(yt: np.ndarray, yp: np.ndarray) -> list[float]:
    out = []
    for y, row in zip(yt.tolist(), yp.tolist(), strict=True):
        m = len(row)
        spread = 0.0
        for x in row:
            spread += abs(x - y)
        spread /= m
        ranked = 0.0
        for p, x in enumerate(sorted(row)):
            ranked += (2.0 * p - m + 1.0) * x
        ranked *= 2.0
        ranked /= 2.0 * m * m
        out.append(spread - ranked)
    return out


@needs_kernels
@settings(max_examples=60, deadline=None)
@given(
    n=st.integers(0, 40),
    m=st.sampled_from([2, 3, 5, 8, 9, 16]),
    decimals=st.integers(0, 3),
    seed=st.integers(0, 2**32 - 1),
)
def test_the_crps_kernel_equals_its_reference_bit_for_bit(n, m, decimals, seed):
    rng = np.random.default_rng(seed)
    yt = np.round(rng.standard_normal(n), decimals)
    yp = np.round(yt[:, None] + rng.standard_normal((n, m)), decimals)  # (ties at few decimals)
    out = np.full(n, -1.0)
    kernels.crps_rows(yt, yp, out, n, m)
    assert _bits(out) == _bits(_crps_reference(yt, yp))


@needs_kernels
@pytest.mark.parametrize("m", [2, 8, 16, 17])
@pytest.mark.parametrize("weighted", [False, True])
def test_crps_by_the_kernel_agrees_with_the_numpy_path(m, weighted, monkeypatch):
    rng = np.random.default_rng(m)
    yt = rng.gamma(2.0, 2.0, 3000)
    yp = np.round(yt[:, None] + rng.standard_normal((3000, m)), 1)
    w = rng.random(3000) if weighted else None
    by_kernel = sm.CRPS().update(yt, yp, w).compute()
    with monkeypatch.context() as patch:
        patch.setattr(rowlosses_regression, "rowkernels", None)
        by_numpy = sm.CRPS().update(yt, yp, w).compute()
        for bad in (math.nan, math.inf):
            wrong = yp.copy()
            wrong[7, 1] = bad
            with pytest.raises(sm.InputError) as numpy_error:
                sm.CRPS().update(yt, wrong)
            patch.setattr(rowlosses_regression, "rowkernels", kernels)
            with pytest.raises(sm.InputError) as kernel_error:
                sm.CRPS().update(yt, wrong)
            patch.setattr(rowlosses_regression, "rowkernels", None)
            assert str(kernel_error.value) == str(numpy_error.value)
    assert math.isclose(by_kernel, by_numpy, rel_tol=1e-14)


def _pair_values(kind: int, t: np.ndarray, p: np.ndarray) -> np.ndarray:
    """The values whose sum ``pair_sum`` makes, by the NumPy formulas' operations."""
    d = p - t
    return {
        rowlosses_regression.PAIR_SMAPE: (2 * np.abs(d)) / np.maximum(np.abs(t) + np.abs(p), 1.17e-6),
        rowlosses_regression.PAIR_ABSOLUTE: np.abs(d),
        rowlosses_regression.PAIR_MAGNITUDE: np.abs(t),
        rowlosses_regression.PAIR_SQUARE: d * d,
        rowlosses_regression.PAIR_CUBE: (d * d) * np.abs(d),
        rowlosses_regression.PAIR_FOURTH: (d * d) * (d * d),
    }[kind]


@needs_kernels
@settings(max_examples=60, deadline=None)
@given(
    st.integers(rowlosses_regression.PAIR_SMAPE, rowlosses_regression.PAIR_FOURTH),
    st.sampled_from([0, 1, 7, 8, 9, 127, 128, 129, 136, 1000, 4099, 65536, 100_003]),
    st.integers(0, 2**32 - 1),
)
def test_the_pair_sum_kernel_is_numpys_pairwise_sum_of_the_values_bit_for_bit(kind, n, seed):
    """NumPy's reduction of a contiguous float64 array is its pairwise sum (eight accumulators
    over blocks of up to 128, halves at multiples of 8): the kernel's, on values it computes as
    it goes, gives the same bits at every length around the block edges."""
    rng = np.random.default_rng(seed)
    t = rng.standard_normal(n) * 10.0 ** rng.integers(-3, 4, n)
    p = t + rng.standard_normal(n) * rng.random()
    t[rng.random(n) < 0.05] = 0.0
    p[rng.random(n) < 0.05] = 0.0
    expected = np.add.reduce(_pair_values(kind, t, p))
    assert np.float64(kernels.pair_sum(kind, t, p, 1.17e-6, n)).tobytes() == np.float64(expected).tobytes()


@needs_kernels
@pytest.mark.parametrize(
    "make",
    [
        sm.SMAPE,
        sm.WMAPE,
        lambda: sm.MinkowskiDistance(2),
        lambda: sm.MinkowskiDistance(3),
        lambda: sm.MinkowskiDistance(4),
    ],
)
@pytest.mark.parametrize("chunk", [16, 131_072])
def test_pooled_losses_by_the_pair_sum_kernel_agree_with_the_numpy_path(make, chunk, monkeypatch):
    """SMAPE and WMAPE: the same state bytes (the same values, the same pairwise sums);
    Minkowski: to a few units in the last place (BLAS's dot products there). A value that is
    not finite is refused with the same message."""
    monkeypatch.setattr(aggregation_base, "CHUNK_ROWS", chunk)
    rng = np.random.default_rng(8)
    yt = rng.gamma(2.0, 2.0, 3001)
    yp = yt + rng.standard_normal(3001)
    yt[:40] = 0.0  # (SMAPE's eps: |y| + |ŷ| = 0 where both are)
    yp[:20] = 0.0
    by_kernel = make().update(yt, yp)
    with monkeypatch.context() as patch:
        patch.setattr(rowlosses_regression, "rowkernels", None)
        by_numpy = make().update(yt, yp)
    if isinstance(by_kernel, (sm.SMAPE, sm.WMAPE)):
        assert by_kernel.to_bytes() == by_numpy.to_bytes()
    assert math.isclose(by_kernel.compute(), by_numpy.compute(), rel_tol=1e-14)
    for bad in (math.nan, math.inf, -math.inf):
        wrong = yp.copy()
        wrong[2000] = bad
        messages = _refusals(make, yt, wrong, "", monkeypatch, rowlosses_regression, first=10)
        assert messages[0] == messages[1]


@needs_kernels
def test_a_rows_jensen_shannon_and_crps_are_the_same_in_any_batch():
    rng = np.random.default_rng(12)
    # (positive rows: the kernels' path; a row with a zero takes NumPy's normalized formula,
    # whose matrix-vector row sums BLAS may round differently with the number of rows)
    p, q = rng.dirichlet(np.ones(5), 600), rng.dirichlet(np.ones(5), 600)
    whole = _js_values(p, q)
    parts = np.concatenate([_js_values(p[i : i + 37], q[i : i + 37]) for i in range(0, 600, 37)])
    assert whole.tobytes() == parts.tobytes()
    yt = rng.standard_normal(600)
    yp = np.round(yt[:, None] + rng.standard_normal((600, 8)), 1)
    crps = sm.CRPS()
    whole = crps._row_values((yt, yp, None)).copy()
    parts = np.concatenate(
        [crps._row_values((yt[i : i + 37], yp[i : i + 37], None)).copy() for i in range(0, 600, 37)]
    )
    assert whole.tobytes() == parts.tobytes()


# ----------------------------------------------------------------------------- AVX-512 builds
_BOTH_PATHS_SCRIPT = """
import sys
import numpy as np
from streammetrics._core import compiled
from streammetrics.ranking import rowranking

kernels = compiled.rowkernels
rng = np.random.default_rng(11)
outputs = {"avx512": np.array([kernels.AVX512])}
for m in range(2, 18):  # (the AVX-512 loops take 2 to 16 entries; 17: the portable ones in both)
    for decimals in (0, 1, 3):  # (ties, some, almost none)
        scores = np.round(rng.standard_normal((300, m)), decimals)
        relevant = rng.random((300, m)) < rng.random()
        relevant[0], relevant[1] = False, True  # (a row without a relevant label, one all relevant)
        for dtype in (np.float64, np.int64, np.int32, np.uint8, np.bool_):
            gains = (rng.integers(0, 4, (300, m)) if dtype != np.float64 else rng.standard_normal((300, m)))
            for ties, k in ((False, None), (True, 3)):
                discount = rowranking.discounts(m, k)
                key = rowranking._key(discount)
                table = rowranking._position_discounts(key) if ties else rowranking._mean_discounts(key)
                out = np.empty(300)
                assert kernels.dcg_rows(scores, gains.astype(dtype), table, out, 300, m)
                outputs[f"dcg {m} {decimals} {dtype.__name__} {ties}"] = out
                top = int(np.count_nonzero(discount))
                for name, graded in (("graded", gains), ("binary", relevant), ("non-negative", np.abs(gains))):
                    out = np.empty(300)
                    status = kernels.ndcg_rows(scores, graded.astype(dtype), table, discount, top, out, 300, m)
                    negative = (graded < 0).any()
                    assert status == (rowranking.KERNEL_BAD_RELEVANCE if negative else rowranking.KERNEL_WROTE)
                    if not negative:  # (refused: no values to compare)
                        outputs[f"ndcg {m} {decimals} {dtype.__name__} {ties} {name}"] = out
            for kind in (rowranking.COVERAGE, rowranking.AVERAGE_PRECISION, rowranking.RANKING_LOSS):
                out = np.empty(300)
                status = kernels.label_ranking_rows(kind, relevant.astype(dtype), scores, out, 300, m)
                assert status == rowranking.KERNEL_WROTE
                outputs[f"ranking {kind} {m} {decimals} {dtype.__name__}"] = out
np.savez(sys.argv[1], **outputs)
"""


@needs_kernels
def test_the_avx512_and_portable_builds_of_the_kernels_give_the_same_bits(tmp_path):
    """Each build in a process of its own (the choice is made at import): the portable loops with
    STREAMMETRICS_NO_AVX512 set, the AVX-512 ones where the CPU has them (both portable where it
    has not: then the same code twice)."""
    results = {}
    for name, off in (("default", ""), ("portable", "1")):
        path = tmp_path / f"{name}.npz"
        env = {**os.environ, "STREAMMETRICS_NO_AVX512": off}
        subprocess.run([sys.executable, "-c", _BOTH_PATHS_SCRIPT, str(path)], env=env, check=True)
        with np.load(path) as saved:
            results[name] = {key: saved[key] for key in saved.files}
    assert results["portable"].pop("avx512")[0] == 0
    assert results["default"].pop("avx512")[0] == kernels.AVX512
    assert results["default"].keys() == results["portable"].keys()
    for key, values in results["default"].items():
        assert values.tobytes() == results["portable"][key].tobytes(), key


_PAGE_END_SCRIPT = """
import ctypes, mmap
import numpy as np
from streammetrics._core import compiled
from streammetrics.ranking import rowranking

kernels = compiled.rowkernels
PAGE = mmap.PAGESIZE
libc = ctypes.CDLL(None, use_errno=True)
libc.mprotect.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
kept = []


def at_page_end(values):
    # a copy of values ending where an unreadable page begins: a read past it faults
    values = np.ascontiguousarray(values)
    pages = -(-values.nbytes // PAGE) + 1
    buffer = mmap.mmap(-1, pages * PAGE)
    raw = np.frombuffer(buffer, np.uint8)
    assert libc.mprotect(raw.ctypes.data + (pages - 1) * PAGE, PAGE, 0) == 0
    start = (pages - 1) * PAGE - values.nbytes
    out = raw[start : start + values.nbytes].view(values.dtype).reshape(values.shape)
    out[...] = values
    kept.append(buffer)
    return out


rng = np.random.default_rng(3)
for m in range(1, 18):
    for n in (1, 7, 9):
        scores = at_page_end(rng.standard_normal((n, m)))
        discount = rowranking.discounts(m, None)
        table = rowranking._mean_discounts(rowranking._key(discount))
        out = np.empty(n)
        for dtype in (np.float64, np.int64, np.int32, np.uint8):
            gains = at_page_end(rng.integers(0, 3, (n, m)).astype(dtype))
            relevant = at_page_end(rng.integers(0, 2, (n, m)).astype(dtype))
            assert kernels.dcg_rows(scores, gains, table, out, n, m)
            assert kernels.ndcg_rows(scores, gains, table, discount, m, out, n, m) == 0
            kernels.ideal_dcg_rows(gains, discount, m, out, n, m)
            for kind in (0, 1, 2):
                assert kernels.label_ranking_rows(kind, relevant, scores, out, n, m) == 0
        if compiled.divergences is not None and m <= compiled.divergences.MAX_COLUMNS:
            p, q = (at_page_end(rng.uniform(0.1, 1.0, (n, m))) for _ in range(2))
            for kind in (0, 1):
                assert compiled.divergences.divergence_rows(p, q, out, n, m, kind) == 0
print("read nothing past the end")
"""


@needs_kernels
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="mprotect through ctypes: Linux")
@pytest.mark.parametrize("off", ["", "1"])
def test_the_kernels_read_nothing_past_a_batch(off):
    """Rows whose last bytes end a readable page, an unreadable one after: a load past a row (the
    AVX-512 loops' masked loads and gathers, the portable ones' reads) would fault, killing the
    process (the ranking kernels, and the divergence kernels where they run).
    Both builds, each in a process of its own."""
    env = {**os.environ, "STREAMMETRICS_NO_AVX512": off}
    done = subprocess.run([sys.executable, "-c", _PAGE_END_SCRIPT], env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "read nothing past the end" in done.stdout
