"""Result objects of intervals and tests: small frozen dataclasses that also read as arrays."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np


@dataclass(frozen=True)
class Interval:
    """A point estimate with a two-sided confidence interval ``[low, high]`` of confidence ``level``.

    ``estimate``, ``low`` and ``high`` are floats, or arrays of equal shape for per-class /
    per-output metrics. ``method`` names how the interval was obtained. As an array, an interval
    is ``[estimate, low, high]``.

    Examples:
        >>> iv = Interval(0.8, 0.7, 0.9, 0.95, "wilson")
        >>> iv.low, iv.high, iv.contains(0.75)
        (0.7, 0.9, True)
    """

    estimate: Any
    low: Any
    high: Any
    level: float
    method: str = ""

    def contains(self, value: Any) -> Any:
        """Whether ``value`` lies in ``[low, high]`` (elementwise for arrays)."""
        out = (np.asarray(self.low) <= value) & (np.asarray(value) <= np.asarray(self.high))
        return bool(out) if np.ndim(out) == 0 else out

    @property
    def width(self) -> Any:
        """``high - low``."""
        return np.asarray(self.high) - np.asarray(self.low) if np.ndim(self.low) else self.high - self.low

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        return np.asarray([self.estimate, self.low, self.high], dtype=dtype)


@dataclass(frozen=True)
class TestResult:
    """The outcome of a significance test: a ``statistic`` and its ``pvalue``.

    ``method`` names the test and how the p-value was obtained (exact or Monte Carlo);
    ``n_resamples`` is 0 for exact and analytic p-values. As an array: ``[statistic, pvalue]``.

    Examples:
        >>> TestResult(3.0, 0.04, "exact").pvalue
        0.04
    """

    __test__ = False  # not a pytest test class

    statistic: float
    pvalue: float
    method: str = ""
    n_resamples: int = 0

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        return np.asarray([self.statistic, self.pvalue], dtype=dtype)


@dataclass(frozen=True)
class McNemarResult:
    """McNemar's test: ``statistic``, ``pvalue``, the ``method`` used and the discordant counts.

    ``b`` counts rows where classifier A is right and B wrong, ``c`` the reverse (weighted sums
    when weights were given). As an array: ``[statistic, pvalue]``.

    Examples:
        >>> McNemarResult(1.0, 0.5, "exact binomial", 1.0, 3.0).pvalue
        0.5
    """

    statistic: float
    pvalue: float
    method: str
    b: float
    c: float

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        return np.asarray([self.statistic, self.pvalue], dtype=dtype)
