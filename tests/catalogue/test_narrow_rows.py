"""The column-by-column paths of the multi-column row metrics (few labels, documents, classes or
ensemble members) against scikit-learn, SciPy and a brute-force reference, ties included, on
both sides of the width where they hand over to the sort-based paths."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
import scipy.spatial.distance
import scipy.special
import sklearn.metrics as skm

import streammetrics as sm
from streammetrics._core import workspace
from streammetrics._core.narrow import SORTING_NETWORK_MEMBERS, by_label, sort_rows, sorting_network
from streammetrics.classification import rowlosses
from streammetrics.ranking import rowranking

#: Across the hand-overs: pair by pair (up to COLUMN_LABELS) or all pairs at once, uint8 cells
#: (up to 16 labels) or uint16, comparisons or sorts (past PAIRWISE_LABELS)
WIDTHS = [
    2,
    3,
    5,
    rowranking.COLUMN_LABELS,
    rowranking.COLUMN_LABELS + 1,
    15,
    16,
    17,
    rowranking.PAIRWISE_LABELS,
    rowranking.PAIRWISE_LABELS + 1,
]


@pytest.fixture(autouse=True, params=["fresh", "pooled"])
def temporaries(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every test twice: with the small batches' fresh temporaries (as in use), and with every
    temporary in the per-thread work buffers (reused from test to test and metric to metric)."""
    monkeypatch.setattr(workspace, "FRESH_BYTES", 0 if request.param == "pooled" else 1 << 16)


@pytest.fixture(params=["at once", "pair by pair or in blocks"])
def pair_counts(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """The label ranking and DCG tests both ways: every pair of labels compared in one broadcast
    comparison (small batches); and as large batches compare them: one comparison per pair (a few
    labels), or all pairs at once a block of rows at a time (here 7, a partial block last)."""
    if request.param != "at once":
        monkeypatch.setattr(rowranking, "BROADCAST_CELLS", 0)
        monkeypatch.setattr(rowranking, "BLOCK_ROWS", 7)


def _close(a: float, b: float) -> None:
    assert abs(a - b) <= 1e-12 * max(abs(b), 1e-300), (a, b)


@pytest.mark.parametrize("m", range(1, SORTING_NETWORK_MEMBERS + 1))
def test_the_sorting_network_sorts_every_zero_one_input(m: int) -> None:
    # the 0-1 principle: a comparator network that sorts every 0/1 input sorts every input
    rows = np.array(list(itertools.product((0, 1), repeat=m)), np.int8).T.copy()
    for i, j in sorting_network(m):
        low = np.minimum(rows[i], rows[j])
        rows[j] = np.maximum(rows[i], rows[j])
        rows[i] = low
    assert (np.diff(rows, axis=0) >= 0).all()


@pytest.mark.parametrize("m", range(1, SORTING_NETWORK_MEMBERS + 1))
def test_sort_rows_sorts_every_column_and_says_where(m: int) -> None:
    rng = np.random.default_rng(m)
    values = np.round(rng.standard_normal((m, 300)), 1)  # ties
    rows = np.vstack([values, np.full(300, np.nan)])  # (the spare row's content is irrelevant)
    where = sort_rows(rows)
    assert len(set(where)) == m and set(where) <= set(range(m + 1))  # m distinct rows of m + 1
    assert np.array_equal(rows[where], np.sort(values, axis=0))


@pytest.mark.parametrize("m", WIDTHS)
def test_label_rankings_agree_with_scikit_learn_with_ties(m: int, pair_counts: None) -> None:
    rng = np.random.default_rng(m)
    y = (rng.random((600, m)) < 0.4).astype(int)
    s = np.round(rng.standard_normal((600, m)), 1)  # many ties
    s[:50] = 0.5  # whole rows tied
    y[50:60], y[60:70] = 1, 0  # every label relevant, none
    _close(sm.CoverageError().update(y, s).compute(), skm.coverage_error(y, s))
    _close(
        sm.LabelRankingAveragePrecision().update(y, s).compute(),
        skm.label_ranking_average_precision_score(y, s),
    )
    _close(sm.LabelRankingLoss().update(y, s).compute(), skm.label_ranking_loss(y, s))


@pytest.mark.parametrize("m", WIDTHS)
@pytest.mark.parametrize("k", [None, 1, 3])
def test_dcg_and_ndcg_agree_with_scikit_learn_with_ties(m: int, k: int | None, pair_counts: None) -> None:
    rng = np.random.default_rng(10 * m + (k or 0))
    rel = rng.integers(0, 4, (500, m)).astype(float)
    s = np.round(rng.standard_normal((500, m)), 1)
    s[:40] = 1.0
    _close(sm.DCG(k).update(rel, s).compute(), skm.dcg_score(rel, s, k=k))
    _close(sm.NDCG(k).update(rel, s).compute(), skm.ndcg_score(rel, s, k=k))


@pytest.mark.parametrize("m", WIDTHS)
@pytest.mark.parametrize("tied", [0.0, 0.3, 1.0])
def test_ignore_ties_agrees_with_scikit_learn(m: int, tied: float, pair_counts: None) -> None:
    """``ignore_ties=True``: rows without ties by comparisons, rows with ties (a share ``tied``
    of them) in scikit-learn's argsort order; integer relevances and k as scikit-learn's."""
    rng = np.random.default_rng(100 + m)
    rel = rng.integers(0, 4, (400, m))
    s = rng.standard_normal((400, m))
    rows = rng.random(400) < tied
    s[rows, 0] = s[rows, m - 1]  # a tie in each of those rows
    s[rows & (np.arange(400) % 7 == 0)] = 0.25  # and some rows tied throughout
    for k in (None, 1, 3):
        _close(
            sm.DCG(k, ignore_ties=True).update(rel, s).compute(), skm.dcg_score(rel, s, k=k, ignore_ties=True)
        )
        _close(
            sm.NDCG(k, ignore_ties=True).update(rel, s).compute(),
            skm.ndcg_score(rel, s, k=k, ignore_ties=True),
        )


@pytest.mark.parametrize("m", WIDTHS)
@pytest.mark.parametrize("ignore_ties", [False, True])
@pytest.mark.parametrize("dtype", [np.int8, np.int64, np.uint16, bool])
def test_integer_relevances_are_read_as_their_float_values(
    m: int, ignore_ties: bool, dtype, pair_counts: None
) -> None:
    """DCG and NDCG keep integer or boolean relevances without a float copy: the state is the
    one their float64 values give, on every path (pairwise, sorted, ignoring ties)."""
    rng = np.random.default_rng(m)
    rel = rng.integers(0, 2 if dtype is bool else 4, (300, m)).astype(dtype)
    s = np.round(rng.standard_normal((300, m)), 1)
    for make in (lambda: sm.DCG(3, ignore_ties=ignore_ties), lambda: sm.NDCG(ignore_ties=ignore_ties)):
        assert make().update(rel, s).to_bytes() == make().update(rel.astype(float), s).to_bytes()


@pytest.mark.parametrize("m", WIDTHS[:-1])
@pytest.mark.parametrize("ignore_ties", [False, True])
def test_small_grades_join_their_cells_and_give_the_float_gains_dcg_bit_for_bit(
    m: int, ignore_ties: bool, pair_counts: None
) -> None:
    """Integer relevances from 0 to at most IDEAL_FROM_COUNTS_GRADES (any dtype) are looked up with
    their cells in one table of discounts times grades (uint8 cells, or uint16 past 256 of them),
    without a float copy or a product: each row's DCG is the float64 gains' value, bit for bit."""
    rng = np.random.default_rng(m)
    s = np.round(rng.standard_normal((400, m)), 1)  # (ties in most rows)
    discount = rowranking.discounts(m, 3)
    for top in range(rowranking.IDEAL_FROM_COUNTS_GRADES + 1):
        rel = rng.integers(0, top + 1, (400, m))
        for x in (rel, rel.astype(np.uint8), rel.astype(float), rel.astype(bool) if top <= 1 else -rel):
            grade = rowranking.small_grade(x, known_non_negative=False)
            if x.min() < 0:  # (negative gains, which DCG takes: not grades)
                assert grade is None
                continue
            assert grade == int(x.max())
            graded = rowranking.dcg_rows(
                x, s, discount, ignore_ties, rowranking.graded_by_label(x), grade
            ).copy()  # (the result is a work array)
            floats = rowranking.dcg_rows(x, s, discount, ignore_ties, by_label(x, "gains", np.float64))
            np.testing.assert_array_equal(graded, floats)


@pytest.mark.parametrize("m", WIDTHS[:-1])
def test_batches_of_grades_give_the_states_of_the_float_path(
    m: int, pair_counts: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """DCG and NDCG of integer grades on a batch large enough for the graded look-up (here every
    batch) hold the state the float path gives the same batch (no batch), byte for byte, and
    agree with scikit-learn."""
    rng = np.random.default_rng(m)
    rel, s = rng.integers(0, 4, (500, m)), np.round(rng.standard_normal((500, m)), 1)
    makers = {
        "dcg": lambda: sm.DCG(3),
        "ndcg": lambda: sm.NDCG(),
        "dcg ignoring ties": lambda: sm.DCG(ignore_ties=True),
        "ndcg@2 ignoring ties": lambda: sm.NDCG(2, ignore_ties=True),
    }
    states: dict[str, list[bytes]] = {}
    for rows in (0, 10**9):
        monkeypatch.setattr(rowranking, "SMALL_ROWS", rows)
        for name, make in makers.items():
            states.setdefault(name, []).append(make().update(rel, s).to_bytes())
    assert all(graded == floats for graded, floats in states.values())
    monkeypatch.setattr(rowranking, "SMALL_ROWS", 0)
    _close(sm.NDCG().update(rel, s).compute(), skm.ndcg_score(rel, s))
    _close(sm.DCG(3).update(rel, s).compute(), skm.dcg_score(rel, s, k=3))


def test_dcg_of_negative_integer_gains_is_scikit_learns() -> None:
    """Gains of -1 to 3 are integers up to the grades' limit, but not grades: the float path."""
    rng = np.random.default_rng(4)
    rel, s = rng.integers(-1, 4, (300, 5)), np.round(rng.standard_normal((300, 5)), 1)
    for k in (None, 2):
        _close(sm.DCG(k).update(rel, s).compute(), skm.dcg_score(rel, s, k=k))


@pytest.mark.parametrize("m", WIDTHS[:-1])
def test_the_ideal_dcg_of_small_grades_from_counts_is_the_sorted_one(m: int, pair_counts: None) -> None:
    """Relevances that are all integers up to IDEAL_FROM_COUNTS_GRADES (any dtype) take the
    ideal DCG from counts of the documents reaching each grade: the sorted relevances' DCG to
    rounding; others (a higher grade, a fraction) the sort."""
    rng = np.random.default_rng(m)
    discount = rowranking.discounts(m, 3)
    for top in range(rowranking.IDEAL_FROM_COUNTS_GRADES + 2):
        rel = rng.integers(0, top + 1, (500, m))
        for x in (rel, rel.astype(np.uint8), rel.astype(float), rel.astype(bool) if top == 1 else rel):
            grade = rowranking.small_grade(x)
            assert grade == (int(x.max()) if top <= rowranking.IDEAL_FROM_COUNTS_GRADES else None)
            ranked = np.sort(x.astype(float), axis=1)[:, ::-1] @ discount
            np.testing.assert_allclose(rowranking.ideal_dcg(x, discount), ranked, rtol=1e-15, atol=0)
    halves = rng.integers(0, 3, (500, m)) / 2.0
    assert rowranking.small_grade(halves) is None
    assert rowranking.small_grade(np.zeros((0, m))) is None
    np.testing.assert_allclose(
        rowranking.ideal_dcg(halves, discount), np.sort(halves, axis=1)[:, ::-1] @ discount, rtol=1e-15
    )


@pytest.mark.parametrize("m", WIDTHS[:-1])
def test_pairs_compared_at_once_give_the_states_of_pairs_compared_one_by_one(
    m: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The two ways of counting (one broadcast comparison, or a comparison per pair) give the
    same integer counts, hence the same values and states byte for byte, ties included."""
    rng = np.random.default_rng(m)
    y = (rng.random((400, m)) < 0.4).astype(int)
    rel = rng.integers(0, 4, (400, m))
    s = np.round(rng.standard_normal((400, m)), 1)
    s[:30] = 0.5  # whole rows tied
    cases = [
        (sm.LabelRankingAveragePrecision, y),
        (sm.LabelRankingLoss, y),
        (lambda: sm.DCG(2), rel),
        (sm.NDCG, rel),
        (lambda: sm.NDCG(3), rel.astype(float)),
        (lambda: sm.DCG(ignore_ties=True), rel),
        (lambda: sm.NDCG(2, ignore_ties=True), rel),
    ]

    def states() -> list[bytes]:
        return [make().update(t, s).to_bytes() for make, t in cases]

    at_once = states()
    monkeypatch.setattr(rowranking, "BROADCAST_CELLS", 0)
    monkeypatch.setattr(rowranking, "BLOCK_ROWS", 7)
    assert states() == at_once


def test_large_integer_relevances_are_summed_as_floats() -> None:
    """Relevances near the int64 limit: the sorted path sums them as floats, never wrapped."""
    m = rowranking.PAIRWISE_LABELS + 2
    rel = np.full((4, m), 2**62, dtype=np.int64)
    s = np.arange(4 * m, dtype=float).reshape(4, m)
    for ignore_ties in (False, True):
        as_int = sm.DCG(ignore_ties=ignore_ties).update(rel, s).compute()
        assert as_int == sm.DCG(ignore_ties=ignore_ties).update(rel.astype(float), s).compute() > 0


@pytest.mark.parametrize("c", [3, 5, 9, rowlosses.COLUMN_CLASSES, rowlosses.COLUMN_CLASSES + 1, 300])
@pytest.mark.parametrize("wide", [False, True], ids=["as in use", "counted along rows"])
def test_top_k_accuracy_with_ties_agrees_with_scikit_learn(
    c: int, wide: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Column by column (up to COLUMN_CLASSES classes) or along each row in blocks (here of a
    few rows, a partial block last), ties ranked as scikit-learn ranks them."""
    if wide:
        monkeypatch.setattr(rowlosses, "COLUMN_CLASSES", 0)
        monkeypatch.setattr(rowlosses, "WIDE_BLOCK_CELLS", 7 * c)
    rng = np.random.default_rng(c)
    y = rng.integers(0, c, 800)
    s = np.round(rng.standard_normal((800, c)), 1)
    s[:20] = 0.5  # every class tied
    rows = np.arange(20, 40)
    s[rows, y[rows]] = s[rows].max(axis=1) + 1.0  # the true class alone on top
    for k in range(1, c) if c <= 9 else (1, 2, 5, c - 1):
        got = sm.TopKAccuracy(k).update(y, s).compute()
        _close(got, skm.top_k_accuracy_score(y, s, k=k, labels=np.arange(c)))


@pytest.mark.parametrize("m", [2, 3, 8, SORTING_NETWORK_MEMBERS, SORTING_NETWORK_MEMBERS + 1])
def test_crps_agrees_with_every_pair_summed(m: int) -> None:
    rng = np.random.default_rng(m)
    y = rng.standard_normal(300)
    x = y[:, None] + rng.standard_normal((300, m))
    x[:30, 1] = x[:30, 0]  # tied members
    spread = np.abs(x - y[:, None]).mean(axis=1)
    pairs = np.abs(x[:, :, None] - x[:, None, :]).sum(axis=(1, 2)) / (2 * m * m)
    _close(sm.CRPS().update(y, x).compute(), float(np.mean(spread - pairs)))


def test_divergences_agree_with_scipy() -> None:
    rng = np.random.default_rng(3)
    p, q = rng.dirichlet(np.ones(5), 700), rng.dirichlet(np.ones(5), 700)
    p[:20, 0] = 0.0  # zero terms
    p /= p.sum(axis=1, keepdims=True)
    kl = scipy.special.rel_entr(p, q).sum(axis=1).mean()
    _close(sm.KLDivergence().update(p, q).compute(), float(kl))
    mid = (p + q) / 2
    js = (scipy.special.rel_entr(p, mid).sum(axis=1) + scipy.special.rel_entr(q, mid).sum(axis=1)) / 2
    _close(sm.JensenShannonDivergence().update(p, q).compute(), float(js.mean()))


def _js_rows_of_weights(p: np.ndarray, q: np.ndarray) -> np.ndarray:
    """Each row's Jensen-Shannon divergence as the metric computes it (unnormalized rows)."""
    sums = [p @ np.ones(p.shape[1]), q @ np.ones(q.shape[1])]
    return rowlosses._js_of_weights(p, q, sums, bool(p.min() > 0 and q.min() > 0))


def test_each_rows_jensen_shannon_depends_on_that_row_alone() -> None:
    """Rows of positive weights take the ratios' path, rows with a zero weight or a ratio beyond
    the float range the normalized one: a row's value is the same alone, in a batch of positive
    rows and in a batch with zeros (to the last bit or two: BLAS's row sums can differ by an ulp
    with the number of rows), and agrees with SciPy."""
    rng = np.random.default_rng(11)
    n = 600
    p = rng.dirichlet(np.ones(5), n) * rng.uniform(0.01, 100.0, (n, 1))  # any positive row sums
    q = rng.dirichlet(np.ones(5), n)
    p[:40, 0] = 0.0  # zero terms
    q[40:60, 2] = 0.0
    p[60:80, 1] = 1e-300  # ratios beyond the float range
    q[80:100, 3] = 1e-310  # a subnormal weight
    q[100:110] = p[100:110] * 3.0  # equal distributions: 0, to rounding (SciPy's too)
    whole = _js_rows_of_weights(p, q)
    positive = ~((p == 0) | (q == 0)).any(axis=1)
    only_positive = _js_rows_of_weights(p[positive], q[positive])
    np.testing.assert_allclose(whole[positive], only_positive, rtol=1e-15, atol=1e-300)
    for i in [0, 45, 65, 85, 105, 300]:
        alone = _js_rows_of_weights(p[i : i + 1], q[i : i + 1])
        np.testing.assert_allclose(alone, whole[i : i + 1], rtol=1e-15, atol=1e-300)
    reference = scipy.spatial.distance.jensenshannon(p, q, axis=1) ** 2
    np.testing.assert_allclose(whole[100:110], 0.0, rtol=0, atol=1e-15)
    others = np.ones(n, bool)
    others[100:110] = False
    np.testing.assert_allclose(whole[others], reference[others], rtol=1e-12, atol=0)


def test_crps_leaves_its_input_as_it_was() -> None:
    # one row: the transposed members are contiguous already, and must still be copied
    rng = np.random.default_rng(8)
    for n in (1, 2, 50):
        y, x = rng.standard_normal(n), rng.standard_normal((n, 5))
        before = x.copy()
        first = sm.CRPS().update(y, x).compute()
        assert np.array_equal(x, before)
        assert sm.CRPS().update(y, x).compute() == first
