"""Order-preserving integer keys of float64 scores: the bins of the score sketch.

A key is a ``uint64`` that sorts exactly like the scores and is distinct for distinct scores.
A sketch bin at resolution ``m`` is ``key >> (52 - m)``: bins nest (a bin at resolution ``m - 1``
is the union of two bins at resolution ``m``) and are computed with integer operations only, so
bin ids are identical on every platform.

* ``input="probability"``: ``p < 0.5`` keeps the IEEE-754 bits of ``p``; ``p >= 0.5`` maps to
  ``2 * bits(0.5) - bits(1 - p)`` (``1 - p`` is exact for ``p >= 0.5``). The bins are thus
  ``2**-m``-relative wide in ``min(p, 1 - p)``: about ``2**-m`` wide in logit, fine where
  probabilities crowd near 0 and 1.
* ``input="score"``: the usual total-order map of the float64 bits (sign bit flipped for
  positives, all bits flipped for negatives); ``-0.0`` counts as ``+0.0``.
"""

from __future__ import annotations

import numpy as np

MANTISSA_BITS = 52
#: The within-bin coordinate is kept at this absolute key quantization (24 mantissa bits).
OFFSET_SHIFT = MANTISSA_BITS - 24
#: Extremes of a sketch group holding several distinct scores are kept on this many bits per bin.
EXTREME_BITS = 7
_HALF_BITS = np.uint64(0x3FE0000000000000)  # bits of 0.5
_SIGN = np.uint64(1 << 63)
_TWICE_HALF = np.uint64(0x3FE0000000000000 << 1)


def shift_of(resolution: int | None) -> int:
    """The number of low key bits dropped at ``resolution`` (``None``: exact, nothing dropped)."""
    return 0 if resolution is None else MANTISSA_BITS - resolution


def offset_bits(resolution: int) -> int:
    """Bits of the within-bin coordinate (quantized at :data:`OFFSET_SHIFT`) in a bin at ``resolution``.

    Examples:
        >>> offset_bits(10), offset_bits(40)
        (14, 0)
    """
    if resolution < 0:  # bins wider than a binade: no within-bin coordinate kept
        return 0
    return max(MANTISSA_BITS - resolution - OFFSET_SHIFT, 0)


def cell_bits(resolution: int) -> int:
    """log2 of the grid cell on which envelope extremes are kept at ``resolution``.

    Examples:
        >>> cell_bits(10), cell_bits(50)
        (35, 0)
    """
    return max(MANTISSA_BITS - resolution - EXTREME_BITS, 0)


def probability_keys(p: np.ndarray) -> np.ndarray:
    """Keys of probabilities in [0, 1] (float64 array), order-preserving and injective.

    Examples:
        >>> k = probability_keys(np.array([0.0, 0.1, 0.5, 0.9, 1.0]))
        >>> bool(np.all(np.diff(k.astype(np.float64)) > 0))
        True
    """
    p = np.ascontiguousarray(p, dtype=np.float64)
    if p.size < 256:  # few values: fewer NumPy calls
        bits = np.minimum(p, 1.0 - p).view(np.uint64) & ~_SIGN
        return np.where(p >= 0.5, _TWICE_HALF - bits, bits)
    # branchless (np.where mispredicts on random masks): key = bits(p) + [p >= 0.5] * (2 bits(0.5)
    # - bits(1 - p) - bits(p)), in wrapping uint64 arithmetic; 1 - p is exact for p >= 0.5
    high = np.greater_equal(p, 0.5, out=np.empty(p.shape, np.uint64), casting="unsafe")
    d = (1.0 - p).view(np.uint64)
    np.subtract(_TWICE_HALF, d, out=d)
    pb = p.view(np.uint64)
    d -= pb
    d *= high
    key = pb & ~_SIGN  # -0.0 counts as 0.0 (below 0.5: d is 0 there)
    key += d
    return key


def score_keys(x: np.ndarray) -> np.ndarray:
    """Keys of finite real scores, order-preserving and injective (``-0.0`` is ``+0.0``).

    Examples:
        >>> k = score_keys(np.array([-3.0, -0.0, 0.0, 1e-300, 2.0]))
        >>> k[1] == k[2], bool(np.all(np.diff(k[[0, 2, 3, 4]].astype(np.float64)) > 0))
        (np.True_, True)
    """
    x = np.ascontiguousarray(x, dtype=np.float64) + 0.0
    bits = x.view(np.uint64)
    return np.where(bits & _SIGN, ~bits, bits | _SIGN)


def keys_of(values: np.ndarray, input: str) -> np.ndarray:
    return probability_keys(values) if input == "probability" else score_keys(values)


def values_of(keys: np.ndarray, input: str) -> np.ndarray:
    """The scores of keys (inverse of :func:`keys_of`).

    Examples:
        >>> x = np.array([0.0, 0.25, 0.5, 0.75, 1.0])
        >>> values_of(keys_of(x, "probability"), "probability").tolist()
        [0.0, 0.25, 0.5, 0.75, 1.0]
    """
    keys = np.asarray(keys, dtype=np.uint64)
    if input == "probability":
        high = keys >= _HALF_BITS
        bits = np.where(high, (_HALF_BITS << np.uint64(1)) - keys, keys)
        v = bits.view(np.float64)
        return np.where(high, 1.0 - v, v)
    bits = np.where(keys & _SIGN, keys & ~_SIGN, ~keys)
    return bits.view(np.float64).copy()
