"""Distribution functions the intervals and tests need, in NumPy and the standard library only.

* the standard normal quantile (Acklam's rational approximation, refined by one Newton step on
  ``math.erfc``: relative error below 1e-15 over (0, 1));
* the standard normal and chi-square(1) survival functions (``math.erfc``);
* binomial and hypergeometric probabilities from log-factorials (``math.lgamma``), exact sums.

Examples:
    >>> round(normal_quantile(0.975), 12)
    1.959963984540
    >>> round(chi2_1_sf(3.841458820694124), 12)
    0.05
"""

from __future__ import annotations

import math

import numpy as np

# Acklam's coefficients (https://web.archive.org/web/2007/home.online.no/~pjacklam/notes/invnorm/)
_A = (-3.969683028665376e01, 2.209460984245205e02, -2.759285104469687e02, 1.383577518672690e02,
      -3.066479806614716e01, 2.506628277459239e00)  # fmt: skip
_B = (-5.447609879822406e01, 1.615858368580409e02, -1.556989798598866e02, 6.680131188771972e01,
      -1.328068155288572e01)  # fmt: skip
_C = (-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e00, -2.549732539343734e00,
      4.374664141464968e00, 2.938163982698783e00)  # fmt: skip
_D = (7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e00, 3.754408661907416e00)
_P_LOW = 0.02425


def normal_cdf(x: float) -> float:
    """P(Z <= x) for a standard normal Z."""
    return 0.5 * math.erfc(-x / math.sqrt(2.0))


def normal_sf(x: float) -> float:
    """P(Z > x) for a standard normal Z (accurate far in the upper tail)."""
    return 0.5 * math.erfc(x / math.sqrt(2.0))


def normal_quantile(p: float) -> float:
    """The standard normal quantile ``z`` with ``P(Z <= z) = p`` (``scipy.stats.norm.ppf``).

    Examples:
        >>> normal_quantile(0.5)
        0.0
        >>> round(normal_quantile(0.025), 9)
        -1.959963985
    """
    if not 0.0 < p < 1.0:
        if p == 0.0:
            return -math.inf
        if p == 1.0:
            return math.inf
        return math.nan
    if p == 0.5:
        return 0.0
    if p < _P_LOW:
        q = math.sqrt(-2.0 * math.log(p))
        x = _rational_tail(q)
    elif p > 1.0 - _P_LOW:
        q = math.sqrt(-2.0 * math.log1p(-p))
        x = -_rational_tail(q)
    else:
        q = p - 0.5
        r = q * q
        num = ((((_A[0] * r + _A[1]) * r + _A[2]) * r + _A[3]) * r + _A[4]) * r + _A[5]
        den = ((((_B[0] * r + _B[1]) * r + _B[2]) * r + _B[3]) * r + _B[4]) * r + 1.0
        x = num * q / den
    # One Newton (Halley) step on the exact CDF; the tail side avoids cancellation.
    e = normal_cdf(x) - p if p < 0.5 else (1.0 - p) - normal_sf(x)
    u = e * math.sqrt(2.0 * math.pi) * math.exp(x * x / 2.0)
    return x - u / (1.0 + x * u / 2.0)


def _rational_tail(q: float) -> float:
    num = ((((_C[0] * q + _C[1]) * q + _C[2]) * q + _C[3]) * q + _C[4]) * q + _C[5]
    den = (((_D[0] * q + _D[1]) * q + _D[2]) * q + _D[3]) * q + 1.0
    return num / den


def two_sided_z(level: float) -> float:
    """The critical value ``z`` of a two-sided interval of confidence ``level`` (1.96 for 0.95)."""
    return normal_quantile(0.5 + level / 2.0)


def chi2_1_sf(x: float) -> float:
    """P(X > x) for a chi-square variable with one degree of freedom: ``erfc(sqrt(x / 2))``."""
    if x <= 0.0:
        return 1.0
    return math.erfc(math.sqrt(x / 2.0))


def log_comb(n: int, k: int) -> float:
    """``log C(n, k)`` via log-gamma (any size)."""
    return math.lgamma(n + 1) - math.lgamma(k + 1) - math.lgamma(n - k + 1)


#: The largest ``n`` of :func:`binom_cdf_half`: its tail sum takes up to about ``4.8 sqrt(n)``
#: terms (315,000 here, a tenth of a second); far beyond, neither time nor memory would do.
BINOMIAL_LIMIT = 2**32


def binom_cdf_half(k: int, n: int) -> float:
    """``P(X <= k)`` for ``X ~ Binomial(n, 1/2)``: an exact sum for small ``n``; beyond, the
    terms from ``i = k`` down (each the one above times ``i / (n - i + 1)``) until they no longer
    count, relative to the term at ``k`` in log space (``k <= n / 2``: the terms only shrink)."""
    if k < 0:
        return 0.0
    if k >= n:
        return 1.0
    if n <= 1000:
        return math.fsum(math.comb(n, i) for i in range(k + 1)) / 2.0**n
    if n > BINOMIAL_LIMIT:
        raise ValueError(
            f"n: expected at most {BINOMIAL_LIMIT} trials for the exact binomial tail, found {n}"
        )
    if 2 * k > n:  # the upper part: the complement of the lower tail
        return 1.0 - binom_cdf_half(n - k - 1, n)
    top = _log_binom_half(k, n)
    term, total, terms = 1.0, 1.0, [1.0]
    for i in range(k, 0, -1):
        term *= i / (n - i + 1)
        terms.append(term)
        total += term
        if term < 1e-20 * total:  # what is left is below ~sqrt(n) / 20 times this
            break
    return float(min(1.0, math.exp(top) * math.fsum(terms)))


def _stirling_error(n: int) -> float:
    """``log n! - [(n + 1/2) log n - n + log sqrt(2 pi)]``: its asymptotic series for large
    ``n`` (four terms: below 1e-17 from n = 16), log-gamma below."""
    if n < 16:
        return math.lgamma(n + 1.0) - (n + 0.5) * math.log(n) + n - 0.5 * math.log(2 * math.pi)
    inv = 1.0 / n
    inv2 = inv * inv
    return inv * (1 / 12 - inv2 * (1 / 360 - inv2 * (1 / 1260 - inv2 / 1680)))


def _deviance_part(x: float, m: float) -> float:
    """``x log(x / m) + m - x`` without its cancellation where ``x`` is near ``m`` (a series
    in ``v = (x - m) / (x + m)``)."""
    if abs(x - m) >= 0.1 * (x + m):
        return x * math.log(x / m) + m - x
    v = (x - m) / (x + m)
    total, power = (x - m) * v, 2 * x * v
    for j in range(1, 1000):
        power *= v * v
        grown = total + power / (2 * j + 1)
        if grown == total:
            break
        total = grown
    return total


def _log_binom_half(k: int, n: int) -> float:
    """``log P(X = k)`` for ``X ~ Binomial(n, 1/2)``, ``0 < k < n``, to about 1e-15 relative to
    the probability, where ``log C(n, k)`` from log-gamma loses ``1e-16 log n!`` absolute
    (Loader's saddle-point form: Stirling errors and the deviance of ``k`` from ``n / 2``)."""
    half = n / 2
    return (
        _stirling_error(n)
        - _stirling_error(k)
        - _stirling_error(n - k)
        - _deviance_part(k, half)
        - _deviance_part(n - k, half)
        + 0.5 * math.log(n / (2 * math.pi * k * (n - k)))
    )


def binom_two_sided_half(k: int, n: int) -> float:
    """Two-sided exact p-value of ``k`` successes in ``n`` trials under p = 1/2.

    The distribution is symmetric, so this is ``min(1, 2 P(X <= min(k, n - k)))`` — what
    ``scipy.stats.binomtest(k, n, 0.5).pvalue`` returns.
    """
    if n == 0:
        return 1.0
    return min(1.0, 2.0 * binom_cdf_half(min(k, n - k), n))


def hypergeom_pmf(k: np.ndarray, total: int, good: int, draws: int) -> np.ndarray:
    """``P(X = k)`` for ``X`` the number of good items in ``draws`` draws without replacement."""
    k = np.asarray(k, dtype=np.int64)
    lg = np.vectorize(math.lgamma, otypes=[float])
    logp = _log_comb_arr(good, k, lg) + _log_comb_arr(total - good, draws - k, lg) - log_comb(total, draws)
    return np.exp(logp)


def _log_comb_arr(n: int, k: np.ndarray, lg) -> np.ndarray:
    return math.lgamma(n + 1) - lg(k + 1.0) - lg(n - k + 1.0)
