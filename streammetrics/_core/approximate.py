"""One result type for every approximate metric: its value and how far the exact value may lie.

Two kinds of metric answer approximately, and both return an :class:`Estimate` from
``estimate()`` (``bounds()`` is its ``(low, high)``):

* **sketches** (the ranking metrics on a score histogram) know *guaranteed* bounds: the exact
  value over the same data always lies in ``[low, high]``. They have no standard error: the
  error comes from binning, not from sampling. Build with :func:`bounded`.
* **samples** (the sampled internal clustering indices) know a *standard error* (a
  delete-a-group jackknife); their interval is the approximate confidence interval
  ``value -+ z * stderr`` (``z = 1.96`` by default: about 95% under a normal approximation),
  which misses the exact value now and then. Build with :func:`sampled`.

While an approximate metric has seen little enough data to be exact (a sketch at full
resolution, a sample holding every distinct row), ``exact`` is true and ``low == value == high``
(a sketch pads its bounds by a rounding slack).

Examples:
    >>> e = sampled(0.5, 0.01, exact=False, sample_rows=1000, distinct_rows=5000.0)
    >>> [round(b, 4) for b in e.bounds()], e.guaranteed
    ([0.4804, 0.5196], False)
    >>> [round(b, 2) for b in e.bounds(z=3)]
    [0.47, 0.53]
    >>> bounded(0.75, 0.7, 0.8)
    Estimate(value=0.75, low=0.7, high=0.8, stderr=nan, exact=False, guaranteed=True, sample_rows=None, distinct_rows=None)
"""

from __future__ import annotations

import math
from typing import Any, NamedTuple

#: The default width of a standard-error interval: about 95% under a normal approximation.
Z = 1.96


class Estimate(NamedTuple):
    """An approximate metric's value with its interval and, where it has one, its standard error.

    Attributes:
        value: the estimate, equal to ``compute()``.
        low: the lower end of the interval around the exact value.
        high: the upper end.
        stderr: the standard error of ``value`` where a sampling model gives one (0.0 while
            exact); NaN where there is none (sketches) or it cannot be estimated.
        exact: whether ``value`` is the exact value over everything seen.
        guaranteed: ``True``: the exact value always lies in ``[low, high]`` (to floating-point
            rounding); ``False``: ``[low, high]`` is an approximate confidence interval
            ``value -+ z * stderr``.
        sample_rows: the rows the value was computed from (sampled metrics; ``None`` otherwise).
        distinct_rows: the estimated number of distinct rows seen (sampled metrics).

    Per-class values (``average=None``) hold arrays in ``value``, ``low`` and ``high``.
    """

    value: Any
    low: Any
    high: Any
    stderr: Any = math.nan
    exact: bool = False
    guaranteed: bool = False
    sample_rows: int | None = None
    distinct_rows: float | None = None

    def bounds(self, z: float | None = None) -> tuple[Any, Any]:
        """``(low, high)``; with ``z``, the standard-error interval ``value -+ z * stderr``
        instead (NaN where there is no standard error).

        Examples:
            >>> Estimate(1.0, 0.5, 1.5, stderr=0.25).bounds(), Estimate(1.0, 0.5, 1.5, stderr=0.25).bounds(z=1)
            ((0.5, 1.5), (0.75, 1.25))
        """
        if z is None:
            return self.low, self.high
        return self.value - z * self.stderr, self.value + z * self.stderr


def bounded(value: Any, low: Any, high: Any, *, exact: bool = False) -> Estimate:
    """A value inside guaranteed bounds (a sketch's answer): ``low <= exact value <= high``.

    Examples:
        >>> bounded(0.5, 0.5, 0.5, exact=True).bounds()
        (0.5, 0.5)
    """
    return Estimate(value, low, high, math.nan, bool(exact), True)


def sampled(
    value: float,
    stderr: float,
    *,
    exact: bool,
    sample_rows: int,
    distinct_rows: float,
    z: float = Z,
) -> Estimate:
    """A value estimated on a sample, with its standard error and the interval ``value -+ z * stderr``.

    ``exact``: the sample held every distinct row, so the value is exact; the interval is then
    the value itself (guaranteed) whatever ``stderr`` says.

    Examples:
        >>> sampled(2.0, 0.0, exact=True, sample_rows=10, distinct_rows=10.0).bounds()
        (2.0, 2.0)
        >>> sampled(2.0, 0.5, exact=False, sample_rows=10, distinct_rows=40.0, z=2.0).bounds()
        (1.0, 3.0)
    """
    if exact:
        return Estimate(value, value, value, stderr, True, True, sample_rows, distinct_rows)
    return Estimate(
        value, value - z * stderr, value + z * stderr, stderr, False, False, sample_rows, distinct_rows
    )


__all__ = ["Z", "Estimate", "bounded", "sampled"]
