"""The one-pass divergence kernels (``_core/_divergences.c``): the KL and Jensen-Shannon divergences
of rows of weights, eight rows at a time, with glibc's vector logarithms.

Their logarithms are not NumPy's, so the values are not compared bit for bit: each row is checked
against an exact reference (mpmath, 40 digits) within a bound on the rounding of its terms, which
the NumPy formulas are checked to meet too; each metric against its NumPy formulas (the kernels
switched off); and a batch the kernels must not take is refused with the NumPy path's message, the
state unchanged. In CI the module must be built (its kernels run where the CPU has AVX-512).
"""

from __future__ import annotations

import math
import os
import subprocess
import sys
from typing import Any

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.spatial.distance import jensenshannon

import streammetrics as sm
from streammetrics._core import compiled
from streammetrics._core.inputs import Inputs
from streammetrics.classification import rowlosses
from streammetrics.errors import InputError

divergences = compiled.divergences
needs_kernels = pytest.mark.skipif(
    divergences is None,
    reason="the one-pass divergence kernels do not run here (not built, no AVX-512, or no libmvec)",
)
KINDS = {
    "kl": rowlosses.KULLBACK_LEIBLER,
    "js": rowlosses.JENSEN_SHANNON,
    "js of logs": rowlosses.JENSEN_SHANNON_OF_LOGS,
}
EPS = np.finfo(float).eps


def test_ci_builds_the_divergence_module():
    if os.environ.get("CI") != "true":
        pytest.skip("checked in CI, where the compiler is installed")
    from streammetrics._core import _divergences  # noqa: F401  (built, whether or not it runs here)


# ----------------------------------------------------------------------------- references
def _exact(p: np.ndarray, q: np.ndarray, kind: str) -> float:
    """The divergence of one row's normalized weights (of the exponentials of its
    log-probabilities, as they are, for ``"js of logs"``), in 40-digit arithmetic."""
    with mpmath.workdps(40):
        a = [mpmath.mpf(x) for x in p.tolist()]
        b = [mpmath.mpf(x) for x in q.tolist()]
        if kind == "js of logs":
            a, b = [mpmath.exp(x) for x in a], [mpmath.exp(x) for x in b]
        else:
            total_a, total_b = mpmath.fsum(a), mpmath.fsum(b)
            a, b = [x / total_a for x in a], [x / total_b for x in b]

        def kl(x: list, y: list) -> mpmath.mpf:
            return mpmath.fsum(s * mpmath.log(s / t) for s, t in zip(x, y, strict=True) if s > 0)

        if kind == "kl":
            return float(kl(a, b))
        m = [(s + t) / 2 for s, t in zip(a, b, strict=True)]
        return float((kl(a, m) + kl(b, m)) / 2)


def _bound(p: np.ndarray, q: np.ndarray, kind: str) -> float:
    """A bound on the rounding error of either formula for one row: each term's logarithm is off
    by a few units of its own size plus those of its argument, which carries the row sums'
    k roundings; the terms add with their weights. (The divergence itself may be far smaller
    than its terms: p and q close, the terms cancel; the bound is on the terms.)"""
    k = len(p)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        if kind == "js of logs":  # (each exponential off by a few units too: its terms' own size)
            a, b = np.exp(p), np.exp(q)
            m = (a + b) / 2
            scale = np.sum(np.where(a > 0, a * (np.abs(np.log(a / m)) + 1.0), 0.0))
            scale += np.sum(np.where(b > 0, b * (np.abs(np.log(b / m)) + 1.0), 0.0))
            return 8.0 * (k + 4) * EPS * scale
        a, b = p / p.sum(), q / q.sum()
        if kind == "kl":
            logs = np.where(a > 0, np.abs(np.log(a / b)), 0.0)
            scale = np.sum(a * (logs + 1.0)) + abs(math.log(q.sum() / p.sum())) + 1.0
        else:
            u = b / a
            log1p_u, log_u = np.log1p(u), np.abs(np.log(u))
            scale = np.sum(np.where(a > 0, a * (log1p_u + 1.0), 0.0))
            scale += np.sum(np.where(b > 0, b * (log_u + log1p_u + 1.0), 0.0))
    return 8.0 * (k + 4) * EPS * scale


def _by_kernel(p: np.ndarray, q: np.ndarray, kind: str) -> tuple[int, np.ndarray]:
    out = np.full(len(p), -1.0)
    status = divergences.divergence_rows(p, q, out, len(p), p.shape[1], KINDS[kind])
    return status, out


def _by_numpy(p: np.ndarray, q: np.ndarray, kind: str) -> np.ndarray:
    if kind == "js of logs":
        return rowlosses._js_rows(np.exp(p), np.exp(q))
    ones = np.ones(p.shape[1])
    sums = [p @ ones, q @ ones]
    if kind == "kl":
        return rowlosses._kl_of_weights(p, q, sums)
    return rowlosses._js_by_ratios(p, q, *sums)


@st.composite
def _weights(draw) -> tuple[np.ndarray, np.ndarray]:
    """Rows of positive weights at any scale, some of them pairs of close distributions (whose
    divergence is far below its terms), some with a ratio far from 1."""
    n = draw(st.integers(0, 19))
    k = draw(st.integers(1, 16))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    p = rng.dirichlet(np.full(k, draw(st.sampled_from([0.2, 1.0, 5.0]))), n)
    q = rng.dirichlet(np.full(k, draw(st.sampled_from([0.2, 1.0, 5.0]))), n)
    close = rng.random(n) < 0.3
    q[close] = p[close] * (1.0 + rng.uniform(-1e-6, 1e-6, (int(close.sum()), k)))
    p = np.maximum(p, 1e-250) * 10.0 ** rng.integers(-100, 100, (n, 1))
    q = np.maximum(q, 1e-250) * 10.0 ** rng.integers(-100, 100, (n, 1))
    return p, q


@st.composite
def _log_probabilities(draw) -> tuple[np.ndarray, np.ndarray]:
    """Rows of log-probabilities (some far below any float's exponential: those terms are 0),
    some pairs close, some rows not summing to 1 (taken as they are, as torchmetrics takes them)."""
    p, q = draw(_weights())
    n, k = p.shape
    rng = np.random.default_rng(n * 31 + k)
    a = np.log(p / p.sum(axis=1, keepdims=True)) if n else p
    b = np.log(q / q.sum(axis=1, keepdims=True)) if n else q
    a[rng.random((n, k)) < 0.05] = -800.0
    b += rng.uniform(-0.5, 0.1, (n, 1)) * (rng.random((n, 1)) < 0.3)
    return a, b


# ----------------------------------------------------------------------------- the kernels
@needs_kernels
@settings(max_examples=120, deadline=None)
@given(_weights(), st.sampled_from(["kl", "js"]))
def test_the_kernels_agree_with_exact_arithmetic_within_the_rounding_of_the_terms(batch, kind):
    p, q = batch
    status, out = _by_kernel(p, q, kind)
    assert status == rowlosses.KERNEL_WROTE
    by_numpy = _by_numpy(p, q, kind)
    for i in range(len(p)):
        exact, bound = _exact(p[i], q[i], kind), _bound(p[i], q[i], kind)
        assert abs(by_numpy[i] - exact) <= bound, ("the bound is too tight for NumPy", i)
        assert abs(out[i] - exact) <= bound, i


@needs_kernels
@settings(max_examples=60, deadline=None)
@given(_log_probabilities())
def test_the_kernel_of_log_probabilities_agrees_with_exact_arithmetic_too(batch):
    a, b = batch
    status, out = _by_kernel(a, b, "js of logs")
    assert status == rowlosses.KERNEL_WROTE
    by_numpy = _by_numpy(a, b, "js of logs")
    for i in range(len(a)):
        exact, bound = _exact(a[i], b[i], "js of logs"), _bound(a[i], b[i], "js of logs")
        assert abs(by_numpy[i] - exact) <= bound, ("the bound is too tight for NumPy", i)
        assert abs(out[i] - exact) <= bound, i


@needs_kernels
@pytest.mark.parametrize("kind", ["kl", "js"])
def test_a_zero_weight_or_a_ratio_beyond_the_float_range_leaves_its_row_to_the_caller(kind):
    """As the NumPy formulas: such a row comes out NaN or infinite (JS redoes it normalized; for KL
    a zero q where p > 0 is an infinite divergence, refused), and no other row is touched."""
    rng = np.random.default_rng(5)
    p, q = rng.uniform(0.1, 1.0, (12, 5)), rng.uniform(0.1, 1.0, (12, 5))
    p[1, 2] = 0.0
    q[3, 0] = 0.0
    p[5, 1] = q[5, 1] = 0.0
    p[7, 4], q[7, 4] = 1e-300, 1e300  # (the quotient overflows)
    status, out = _by_kernel(p, q, kind)
    assert status == rowlosses.KERNEL_WROTE
    by_numpy = _by_numpy(p, q, kind)
    finite = np.isfinite(by_numpy)
    assert np.array_equal(np.isfinite(out), finite)
    np.testing.assert_allclose(out[finite], by_numpy[finite], rtol=1e-13)
    left = [3, 7] if kind == "kl" else [1, 3, 5, 7]  # (KL: a term with p = 0 is 0, whatever q)
    assert np.flatnonzero(~finite).tolist() == left


@needs_kernels
@pytest.mark.parametrize("bad", [-0.5, math.nan, math.inf, "zeros", "overflow"])
@pytest.mark.parametrize("row", [0, 13, 20])
def test_the_kernels_report_a_batch_they_must_not_take(bad, row):
    p, q = np.full((21, 3), 0.5), np.full((21, 3), 0.25)
    if bad == "zeros":
        p[row] = 0.0
    elif bad == "overflow":  # (finite weights whose sum is not)
        p[row] = 1e308
    else:
        p[row, 1] = bad
    for kind in ("kl", "js"):  # (log-probabilities: every finite value taken)
        assert _by_kernel(p, q, kind)[0] != rowlosses.KERNEL_WROTE
        assert _by_kernel(q, p, kind)[0] != rowlosses.KERNEL_WROTE


def test_the_kernels_take_only_what_they_are_built_for():
    if divergences is None:
        pytest.skip("the kernels do not run here")
    p = np.full((2, 3), 0.5)
    with pytest.raises(ValueError, match="MAX_COLUMNS"):
        divergences.divergence_rows(p, p, np.empty(2), 2, 3, 3)
    wide = np.full((2, divergences.MAX_COLUMNS + 1), 0.5)
    with pytest.raises(ValueError, match="MAX_COLUMNS"):
        divergences.divergence_rows(wide, wide, np.empty(2), 2, wide.shape[1], 0)
    with pytest.raises(ValueError, match="q: expected 6 items"):
        divergences.divergence_rows(p, p[:1], np.empty(2), 2, 3, 0)


# ----------------------------------------------------------------------------- the metrics
def _values(metric: Any, p: np.ndarray, q: np.ndarray) -> np.ndarray:
    return metric()._parse_rows(Inputs((p, q)))[0].copy()


@needs_kernels
@pytest.mark.parametrize("metric", [sm.KLDivergence, sm.JensenShannonDivergence])
@pytest.mark.parametrize("k", [2, 5, 16, 17])
@pytest.mark.parametrize("zeros", [False, True])
def test_the_metrics_by_the_kernels_agree_with_their_numpy_formulas_and_scipy(metric, k, zeros, monkeypatch):
    rng = np.random.default_rng(k)
    p = rng.dirichlet(np.ones(k), 3001) * rng.uniform(0.5, 4.0, (3001, 1))
    q = rng.dirichlet(np.ones(k) * 0.3, 3001)
    if zeros:
        p[rng.random(p.shape) < 0.1] = 0.0
        p[:, 0] += p.sum(axis=1) == 0  # (no row of zeros)
    p = np.asfortranarray(p)  # (any layout: the kernels read a C-contiguous copy)
    by_kernels = _values(metric, p, q)
    monkeypatch.setattr(rowlosses, "divergences", None)
    by_numpy = _values(metric, p, q)
    np.testing.assert_allclose(by_kernels, by_numpy, rtol=1e-12, atol=1e-15)
    if metric is sm.JensenShannonDivergence:
        reference = jensenshannon(p, q, axis=1) ** 2
    else:
        a, b = p / p.sum(axis=1, keepdims=True), q / q.sum(axis=1, keepdims=True)
        with np.errstate(divide="ignore", invalid="ignore"):
            reference = np.where(a > 0, a * np.log(a / b), 0.0).sum(axis=1)
    np.testing.assert_allclose(by_kernels, reference, rtol=1e-9, atol=1e-15)


@needs_kernels
@pytest.mark.parametrize("k", [2, 5, 16])
def test_jensen_shannon_of_log_probabilities_by_the_kernel_agrees_with_numpy_and_scipy(k, monkeypatch):
    rng = np.random.default_rng(k)
    p, q = rng.dirichlet(np.ones(k), 3001), rng.dirichlet(np.ones(k) * 0.3, 3001)
    a, b = np.log(p), np.log(q)
    by_kernel = _values(lambda: sm.JensenShannonDivergence(log_prob=True), a, b)
    monkeypatch.setattr(rowlosses, "divergences", None)
    by_numpy = _values(lambda: sm.JensenShannonDivergence(log_prob=True), a, b)
    np.testing.assert_allclose(by_kernel, by_numpy, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(by_kernel, jensenshannon(p, q, axis=1) ** 2, rtol=1e-9, atol=1e-15)


def _outcome(metric: type, p: np.ndarray, q: np.ndarray) -> tuple[str, float]:
    """The error an update raises (the state then byte-identical), or the value it leads to."""
    m = metric().update(np.full((3, 2), 0.5), np.full((3, 2), 0.25))
    before = m.to_bytes()
    try:
        m.update(p, q)
    except InputError as error:
        assert m.to_bytes() == before
        return str(error), math.nan
    return "", m.compute()


@needs_kernels
@pytest.mark.parametrize("metric", [sm.KLDivergence, sm.JensenShannonDivergence])
@pytest.mark.parametrize("bad", [-0.5, math.nan, math.inf, "zeros", "overflow", "q zero"])
@pytest.mark.parametrize("which", [0, 1])
def test_the_metrics_refuse_what_their_numpy_formulas_refuse_with_the_same_message(
    metric, bad, which, monkeypatch
):
    rng = np.random.default_rng(9)
    both = [rng.uniform(0.1, 1.0, (21, 2)), rng.uniform(0.1, 1.0, (21, 2))]
    if bad == "zeros":
        both[which][13] = 0.0
    elif bad == "overflow":
        both[which][13] = 1e308
    elif bad == "q zero":
        both[which][13, 1] = 0.0
    else:
        both[which][13, 1] = bad
    message, value = _outcome(metric, *both)
    monkeypatch.setattr(rowlosses, "divergences", None)
    numpy_message, numpy_value = _outcome(metric, *both)
    assert message == numpy_message
    assert (
        math.isclose(value, numpy_value, rel_tol=1e-13)
        or math.isnan(value) == math.isnan(numpy_value) is True
    )


# ----------------------------------------------------------------------------- the AVX2 loops
_AVX2_SCRIPT = """
import sys
import numpy as np
from streammetrics._core import compiled

d = compiled.divergences
rng = np.random.default_rng(21)
saved = {"width": np.array([0 if d is None else d.VECTOR_WIDTH])}
if d is not None:
    for k in range(1, d.MAX_COLUMNS + 1):
        for n in (1, 3, 4, 5, 9, 38):
            p = rng.dirichlet(np.ones(k), n) * 10.0 ** rng.integers(-5, 5, (n, 1))
            q = rng.dirichlet(np.ones(k) * 0.5, n)
            p[rng.random((n, k)) < 0.05] = 0.0
            p[:, 0] += p.sum(axis=1) == 0  # (no row of zeros)
            logs = np.log(rng.dirichlet(np.ones(k), n)), np.log(rng.dirichlet(np.ones(k), n))
            for kind, (x, y) in ((0, (p, q)), (1, (p, q)), (2, logs)):
                out = np.full(n, -1.0)
                status = d.divergence_rows(x, y, out, n, k, kind)
                saved[f"{k} {n} {kind}"] = np.concatenate([[status], out])
                saved[f"{k} {n} {kind} p"], saved[f"{k} {n} {kind} q"] = x, y
            statuses = []
            for value in (-1.0, np.nan, np.inf, "zeros", "overflow")[: 5 if k > 1 else 4]:
                for first in (True, False):  # (the bad row in p, or in q)
                    bad = (p if first else q).copy()
                    if value == "zeros":
                        bad[-1] = 0.0
                    elif value == "overflow":
                        bad[-1] = 1e308
                    else:
                        bad[-1, -1] = value
                    pair = (bad, q) if first else (p, bad)
                    statuses += [d.divergence_rows(*pair, np.empty(n), n, k, kind) for kind in (0, 1)]
            saved[f"{k} {n} refused"] = np.array(statuses)
np.savez(sys.argv[1], **saved)
"""


@needs_kernels
def test_the_avx2_loops_agree_with_exact_arithmetic_too(tmp_path):
    """On a CPU without AVX-512 (here: STREAMMETRICS_NO_AVX512 set, in a process of its own) the
    kernels take four rows at a time with libmvec's AVX2 logarithms: each row within the same
    bound of exact arithmetic, every width and a batch's last rows, zeros left to the caller as
    the NumPy formulas leave them, and a batch whose last row holds a negative, NaN or infinite
    weight, only zeros, or weights whose sum overflows (in either argument) refused."""
    path = tmp_path / "avx2.npz"
    env = {**os.environ, "STREAMMETRICS_NO_AVX512": "1"}
    subprocess.run([sys.executable, "-c", _AVX2_SCRIPT, str(path)], env=env, check=True)
    with np.load(path) as saved:
        results = {key: saved[key] for key in saved.files}
    if results.pop("width")[0] != 4:
        pytest.skip("no AVX2, or no libmvec AVX2 logarithms, here")
    checked = 0
    for key, found in results.items():
        if key.endswith((" p", " q")):
            continue
        if key.endswith("refused"):
            assert (found != rowlosses.KERNEL_WROTE).all(), key
            continue
        kind = {"0": "kl", "1": "js", "2": "js of logs"}[key[-1]]
        p, q = results[f"{key} p"], results[f"{key} q"]
        status, out = found[0], found[1:]
        assert status == rowlosses.KERNEL_WROTE, key
        by_numpy = _by_numpy(p, q, kind)
        assert np.array_equal(np.isfinite(out), np.isfinite(by_numpy)), key
        for i in np.flatnonzero(np.isfinite(by_numpy)):
            assert abs(out[i] - _exact(p[i], q[i], kind)) <= _bound(p[i], q[i], kind), (key, i)
            checked += 1
    assert checked > 1000
