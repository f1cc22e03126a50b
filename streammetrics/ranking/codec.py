"""The score sketch's wire codec: its arrays as compact, varint-coded fields of a state dict.

Pure functions, no sketch logic: :func:`encode` turns a :class:`SketchArrays` into the fields
the state format stores (see ``docs/format.md``), :func:`decode` reads them back and refuses,
with :class:`~streammetrics.StateError`, anything :func:`encode` cannot have written
(non-canonical varints, wrong lengths, extremes outside their bins, sums outside the range of
their extremes). Per bin and group the fields are:

* ``bins``: LEB128 varints of the differences of the sorted bin ids;
* ``counts``: varints of the integer counts, row-major bins x groups (float64 array once
  weighted);
* ``multi``: packed bits, per occupied group, "several distinct scores";
* ``extremes``: varints, per occupied group: the key offset in its bin (one distinct score);
  offset and span (two known samples); offset and span in envelope cells (an envelope);
* ``sums``: varints of the within-bin coordinate sums of envelope groups only (the others
  follow from the extremes; float64 array once weighted).

Examples:
    >>> import numpy as np
    >>> arrays = SketchArrays(
    ...     layout=(1, 2), multilabel=False, resolution=52, loose=False, n_samples=3,
    ...     ids=np.array([5, 9], np.uint64), counts=np.array([[1, 0], [0, 2]]),
    ...     sums=np.zeros((2, 2), np.int64),
    ...     kmin=np.array([[5, 2**64 - 1], [2**64 - 1, 9]], np.uint64),
    ...     kmax=np.array([[5, 0], [0, 9]], np.uint64))
    >>> fields = encode(arrays)
    >>> fields["bins"].tolist(), fields["counts"].tolist()
    ([5, 4], [1, 0, 0, 2])
    >>> back = decode(fields, max_resolution=52)
    >>> back.ids.tolist(), back.counts.tolist(), back.kmin.tolist()[0]
    ([5, 9], [[1, 0], [0, 2]], [5, 18446744073709551615])
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from .._core.schema import Check, Flag, Int, Schema
from ..errors import StateError
from .keys import MANTISSA_BITS, OFFSET_SHIFT, cell_bits, offset_bits

_U = np.uint64
_UMAX = np.iinfo(np.uint64).max


class SketchArrays(NamedTuple):
    """Everything a score sketch holds (see :class:`~streammetrics.ranking.sketch.ScoreSketch`)."""

    layout: tuple[int, int] | None
    multilabel: bool
    resolution: int
    loose: bool
    n_samples: int
    #: sorted bin ids (uint64, ``(b,)``) and per bin and group: counts (int64 or float64),
    #: within-bin coordinate sums and the smallest / largest key (uint64), each ``(b, g)``
    ids: np.ndarray
    counts: np.ndarray
    sums: np.ndarray
    kmin: np.ndarray
    kmax: np.ndarray


def group_kinds(
    counts: np.ndarray, kmin: np.ndarray, kmax: np.ndarray, loose: bool
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Per group: occupied, one distinct score, two exactly known samples, envelope extremes.

    Two samples are known exactly when the counts are integers and no revert loosened them.
    """
    occupied = counts > 0
    single = occupied & (kmin == kmax)
    multi = occupied & ~single
    pair = multi & (counts == 2) if counts.dtype.kind == "i" and not loose else multi & False
    return occupied, single, pair, multi & ~pair


def is_exact_form(resolution: int, loose: bool, integral: bool) -> bool:
    """Whether a column is written in the exact form (version 3): every bin one distinct score,
    integer counts, no revert envelope."""
    return resolution == MANTISSA_BITS and integral and not loose


def _header(s: SketchArrays) -> dict[str, Any]:
    """The fields both forms write alike: the column's configuration, row count and bin ids."""
    return {
        "layout": None if s.layout is None else list(s.layout),
        "multilabel": s.multilabel,
        "resolution": s.resolution,
        "loose": s.loose,
        "n_samples": s.n_samples,
        "bins": varint_encode(np.diff(s.ids, prepend=_U(0))),
    }


def _encode_exact(s: SketchArrays) -> dict[str, Any]:
    """The exact form: per bin (one distinct score) a bit *simple* (one group holds it, once),
    the group of each simple bin on ``(g - 1).bit_length()`` bits, varints of the counts of the
    other bins; no extremes, no sums (they follow from the bin ids)."""
    g = s.counts.shape[1] if s.counts.ndim == 2 else 0
    occupied = s.counts > 0
    simple = (occupied.sum(axis=1) == 1) & (s.counts.sum(axis=1) == 1) if len(s.ids) else np.zeros(0, bool)
    gb = max(g - 1, 0).bit_length()
    group = np.argmax(occupied[simple], axis=1) if simple.any() else np.zeros(0, np.int64)
    bits = ((group[:, None] >> np.arange(gb)) & 1).astype(np.uint8).ravel()
    return {
        **_header(s),
        "counts": varint_encode(s.counts[~simple].ravel().astype(np.uint64)),
        "multi": np.packbits(simple),
        "extremes": np.packbits(bits, bitorder="little"),
        "sums": np.zeros(0, np.uint8),
    }


def encode(s: SketchArrays, exact_form: bool = False) -> dict[str, Any]:
    """The compact state-dict fields of a sketch (the inverse of :func:`decode`); with
    ``exact_form`` (version 3), an exact column in the exact form (:func:`is_exact_form`)."""
    if exact_form and is_exact_form(s.resolution, s.loose, s.counts.dtype.kind == "i"):
        return _encode_exact(s)
    g = 0 if s.layout is None else s.layout[0] * s.layout[1]
    shift = MANTISSA_BITS - s.resolution
    start = np.repeat(s.ids << _U(shift), g) if g else s.ids[:0]
    occupied, _single, pair, env = (k.ravel() for k in group_kinds(s.counts, s.kmin, s.kmax, s.loose))
    kmin, kmax = s.kmin.ravel(), s.kmax.ravel()
    cell = _U(cell_bits(s.resolution))
    # per occupied group in order: single -> [kmin - start]; pair -> [kmin - start, kmax - kmin];
    # envelope -> [(kmin - start) >> cell, ((kmax + 1 - kmin) >> cell) - 1]
    first = np.where(env, (kmin - start) >> cell, kmin - start)
    second = np.where(env, ((kmax - kmin + _U(1)) >> cell) - _U(1), kmax - kmin)
    two = (pair | env)[occupied]
    a, b = first[occupied], second[occupied]
    extremes = np.empty(len(a) + int(two.sum()), np.uint64)
    pos = np.arange(len(a)) + np.concatenate([[0], np.cumsum(two)[:-1]]).astype(np.intp)
    extremes[pos] = a
    extremes[pos[two] + 1] = b[two]
    if s.counts.dtype.kind == "i":
        counts: Any = varint_encode(s.counts.ravel().astype(np.uint64))
        sums: Any = varint_encode(s.sums.ravel()[env].astype(np.uint64))
    else:
        counts, sums = s.counts, s.sums
    return {
        **_header(s),
        "counts": counts,
        "multi": np.packbits((pair | env)[occupied]),
        "extremes": varint_encode(extremes),
        "sums": sums,
    }


def _is_layout(value: Any) -> bool:
    return value is None or (
        isinstance(value, list)
        and len(value) == 2
        and all(isinstance(x, int) and not isinstance(x, bool) and x > 0 for x in value)
    )


def _is_bytes(value: Any) -> bool:
    return isinstance(value, np.ndarray) and value.dtype == np.uint8 and value.ndim == 1


def _is_counts(value: Any) -> bool:
    return _is_bytes(value) or (isinstance(value, np.ndarray) and value.dtype == np.float64)


#: The encoded fields, in the order :func:`encode` writes them; the varint arrays are read (and their lengths checked) by :func:`decode`.
FIELDS = Schema(
    "ScoreSketch state",
    layout=Check("None or two positive ints", _is_layout),
    multilabel=Flag(),
    resolution=Int(low=MANTISSA_BITS - 63, high="max_resolution"),
    loose=Flag(),
    n_samples=Int(low=0),
    bins=Check("varints (a 1-D uint8 array)", _is_bytes),
    counts=Check("varints (a 1-D uint8 array) or a float64 array", _is_counts),
    multi=Check("packed bits (a 1-D uint8 array)", _is_bytes),
    extremes=Check("varints (a 1-D uint8 array)", _is_bytes),
    sums=Check("varints (a 1-D uint8 array) or a float64 array", _is_counts),
)


def decode(data: Any, max_resolution: int, exact_form: bool = False) -> SketchArrays:
    """The arrays of a sketch from the fields :func:`encode` writes; :class:`StateError`, naming
    the field, for anything else (the resolution must lie in ``[0, max_resolution]``)."""
    data = FIELDS.read(data, max_resolution=max_resolution)
    if exact_form and is_exact_form(data["resolution"], data["loose"], _is_bytes(data["counts"])):
        return _decode_exact(data)
    where = FIELDS.where
    layout, res, n, loose = data["layout"], data["resolution"], data["n_samples"], data["loose"]
    deltas = varint_decode(data["bins"], None, f"{where}: bins")
    b = len(deltas)
    if b and (np.any(deltas[1:] == 0)):
        raise StateError(f"{where}: bin ids must be strictly increasing")
    with np.errstate(over="ignore"):
        ids = np.cumsum(deltas, dtype=np.uint64)
    if b > 1 and np.any(ids[1:] <= ids[:-1]):
        raise StateError(f"{where}: bin ids overflow")
    if b and ids[-1] >> _U(64 - (MANTISSA_BITS - res)) != 0:
        raise StateError(f"{where}: bin id {ids[-1]} out of range at resolution {res}")
    if layout is None and b:
        raise StateError(f"{where}: an empty layout holds no bins, found {b}")
    g = 0 if layout is None else layout[0] * layout[1]
    raw_counts = data["counts"]
    if isinstance(raw_counts, np.ndarray) and raw_counts.dtype == np.float64:
        counts = raw_counts
        if counts.shape != (b, g) or not np.isfinite(counts).all() or np.any(counts < 0):
            raise StateError(f"{where}: weighted counts must be finite, >= 0, of shape {(b, g)}")
    else:
        counts = varint_decode(raw_counts, b * g, f"{where}: counts").reshape(b, g)
        if np.any(counts >= _U(1 << 62)):
            raise StateError(f"{where}: counts too large")
        counts = counts.astype(np.int64)
    occupied = counts > 0
    if b and not occupied.any(axis=1).all():
        raise StateError(f"{where}: empty bins are not stored")
    n_occ = int(occupied.sum())
    multi_bits = data["multi"]
    if len(multi_bits) != (n_occ + 7) // 8:
        raise StateError(f"{where}: multi holds {len(multi_bits)} bytes, expected {(n_occ + 7) // 8}")
    multi_occ = np.unpackbits(multi_bits, count=n_occ).astype(bool)
    if np.any(np.unpackbits(multi_bits)[n_occ:]):
        raise StateError(f"{where}: multi has stray bits")
    multi = np.zeros((b, g), bool)
    multi[occupied] = multi_occ
    pair = multi & (counts == 2) if counts.dtype.kind == "i" and not loose else multi & False
    env = multi & ~pair
    if counts.dtype.kind == "i" and not loose and np.any(multi & (counts < 2)):
        raise StateError(f"{where}: a group of one sample holds one score")
    two = (pair | env)[occupied]
    extremes = varint_decode(data["extremes"], n_occ + int(two.sum()), f"{where}: extremes")
    pos = np.arange(n_occ) + np.concatenate([[0], np.cumsum(two)[:-1]]).astype(np.intp)
    a = extremes[pos]
    second = np.zeros(n_occ, np.uint64)
    second[two] = extremes[pos[two] + 1]
    shift = MANTISSA_BITS - res
    span = _U(1) << _U(shift) if shift < 64 else _U(0)
    cell = cell_bits(res)
    start = np.repeat(ids << _U(shift), g)[occupied.ravel()] if shift < 64 else np.zeros(n_occ, np.uint64)
    env_occ = env[occupied]
    cells_per_bin = 1 << (shift - cell)
    with np.errstate(over="ignore"):
        if np.any(np.where(env_occ, a >= _U(cells_per_bin), a >= span)):
            raise StateError(f"{where}: an extreme lies outside its bin")
        if np.any(np.where(env_occ, second >= _U(cells_per_bin) - a, second >= span - a) & two) or np.any(
            multi_occ & ~env_occ & (second == 0)
        ):
            raise StateError(f"{where}: an extreme lies outside its bin")
        lo = np.where(env_occ, start + (a << _U(cell)), start + a)
        hi = np.where(env_occ, lo + ((second + _U(1)) << _U(cell)) - _U(1), np.where(two, lo + second, lo))
    kmin = np.full((b, g), _UMAX, np.uint64)
    kmax = np.zeros((b, g), np.uint64)
    kmin[occupied], kmax[occupied] = lo, hi
    ob = offset_bits(res)
    raw_sums = data["sums"]
    if counts.dtype.kind == "f":
        sums = raw_sums
        if not isinstance(sums, np.ndarray) or sums.dtype != np.float64 or sums.shape != (b, g):
            raise StateError(f"{where}: weighted sums must be a float64 array of shape {(b, g)}")
        if not np.isfinite(sums).all() or np.any(sums < 0) or np.any(sums > counts * float(1 << ob)):
            raise StateError(f"{where}: weighted sums out of range")
    else:
        zero = np.zeros((b, g), np.int64)
        off_lo = ((kmin >> _U(OFFSET_SHIFT)) & _U((1 << ob) - 1)).astype(np.int64) if ob else zero
        off_hi = ((kmax >> _U(OFFSET_SHIFT)) & _U((1 << ob) - 1)).astype(np.int64) if ob else zero
        sums = np.zeros((b, g), np.int64)
        single = occupied & ~multi
        sums[single] = counts[single] * off_lo[single]
        sums[pair] = off_lo[pair] + off_hi[pair]
        stored = varint_decode(raw_sums, int(env.sum()), f"{where}: sums")
        if np.any(stored >= _U(1 << 62)):
            raise StateError(f"{where}: sums too large")
        sums[env] = stored.astype(np.int64)
        if np.any(sums[env] < counts[env] * off_lo[env]) or np.any(sums[env] > counts[env] * off_hi[env]):
            raise StateError(f"{where}: sums out of the range of their extremes")
    return SketchArrays(
        None if layout is None else (layout[0], layout[1]),
        data["multilabel"],
        res,
        loose,
        n,
        ids,
        counts,
        sums,
        kmin,
        kmax,
    )


def _decode_exact(data: dict[str, Any]) -> SketchArrays:
    where = FIELDS.where
    layout = data["layout"]
    deltas = varint_decode(data["bins"], None, f"{where}: bins")
    b = len(deltas)
    if b and np.any(deltas[1:] == 0):
        raise StateError(f"{where}: bin ids must be strictly increasing")
    with np.errstate(over="ignore"):
        ids = np.cumsum(deltas, dtype=np.uint64)
    if b > 1 and np.any(ids[1:] <= ids[:-1]):
        raise StateError(f"{where}: bin ids overflow")
    if layout is None and b:
        raise StateError(f"{where}: an empty layout holds no bins, found {b}")
    g = 0 if layout is None else layout[0] * layout[1]
    gb = max(g - 1, 0).bit_length()
    if len(data["multi"]) != (b + 7) // 8 or np.any(np.unpackbits(data["multi"])[b:]):
        raise StateError(f"{where}: multi must hold one bit per bin ({b}), no more")
    simple = np.unpackbits(data["multi"], count=b).astype(bool)
    n_simple = int(simple.sum())
    raw_bits = data["extremes"]
    if len(raw_bits) != (n_simple * gb + 7) // 8 or np.any(
        np.unpackbits(raw_bits, bitorder="little")[n_simple * gb :]
    ):
        raise StateError(f"{where}: extremes must hold {gb} bits per simple bin ({n_simple}), no more")
    bits = np.unpackbits(raw_bits, count=n_simple * gb, bitorder="little").reshape(n_simple, gb)
    group = (bits.astype(np.int64) << np.arange(gb)).sum(axis=1)
    if np.any(group >= g):
        raise StateError(f"{where}: a group outside the layout's {g}")
    if len(data["sums"]):
        raise StateError(f"{where}: an exact column holds no sums")
    rest = varint_decode(data["counts"], (b - n_simple) * g, f"{where}: counts").reshape(b - n_simple, g)
    if np.any(rest >= _U(1 << 62)):
        raise StateError(f"{where}: counts too large")
    rest = rest.astype(np.int64)
    if len(rest) and (
        not (rest > 0).any(axis=1).all() or np.any(((rest > 0).sum(axis=1) == 1) & (rest.sum(axis=1) == 1))
    ):
        raise StateError(f"{where}: counts of an empty or a simple bin")
    counts = np.zeros((b, g), np.int64)
    counts[~simple] = rest
    counts[np.flatnonzero(simple), group] = 1
    occupied = counts > 0
    column = ids[:, None]
    return SketchArrays(
        None if layout is None else (layout[0], layout[1]),
        data["multilabel"],
        data["resolution"],
        data["loose"],
        data["n_samples"],
        ids,
        counts,
        np.zeros((b, g), np.int64),
        np.where(occupied, column, _UMAX),
        np.where(occupied, column, _U(0)),
    )


# ---------------------------------------------------------------------- columns (version 3)
_VARINT_FIELDS = ("bins", "counts", "multi", "extremes", "sums")


def encode_columns(
    layout: tuple[int, int] | None, multilabel: bool, ovr: bool, n_samples: int, columns: list[SketchArrays]
) -> dict[str, Any]:
    """The state-dict fields of a sketch of several columns: each column encoded by :func:`encode` (an exact column in the exact form)
    (as a one-column layout), its five fields concatenated with the others', and per column its
    resolution, ``loose`` flag, bin count and the byte length of each field (``sizes``; rows for
    weighted counts and sums).

    Examples:
        >>> col = SketchArrays((1, 2), False, 52, False, 0, np.array([7], np.uint64),
        ...     np.array([[0, 1]]), np.zeros((1, 2), np.int64),
        ...     np.array([[2**64 - 1, 7]], np.uint64), np.array([[0, 7]], np.uint64))
        >>> d = encode_columns((1, 2), False, False, 1, [col])  # exact: one bin, one sample of group 1
        >>> d["n_bins"], d["sizes"], d["bins"].tolist(), d["multi"].tolist(), d["extremes"].tolist()
        ([1], [[1, 0, 1, 1, 0]], [7], [128], [1])
    """
    parts = [encode(c, exact_form=True) for c in columns]
    out: dict[str, Any] = {
        "layout": None if layout is None else list(layout),
        "multilabel": multilabel,
        "ovr": ovr,
        "n_samples": n_samples,
        "resolution": [c.resolution for c in columns],
        "loose": [c.loose for c in columns],
        "n_bins": [len(c.ids) for c in columns],
        "sizes": [[len(p[f]) for f in _VARINT_FIELDS] for p in parts],
    }
    for f in _VARINT_FIELDS:
        arrays = [p[f] for p in parts]
        if arrays and arrays[0].dtype == np.float64:
            out[f] = np.concatenate(arrays) if arrays else np.zeros((0, 0))
        else:
            out[f] = np.concatenate(arrays) if arrays else np.zeros(0, np.uint8)
    return out


def _is_list_of(kind: Any, value: Any) -> bool:
    return isinstance(value, list) and all(type(x) is kind for x in value)


COLUMN_FIELDS = Schema(
    "ScoreSketch state",
    layout=Check("None or two positive ints", _is_layout),
    multilabel=Flag(),
    ovr=Flag(),
    n_samples=Int(low=0),
    resolution=Check("a list of ints", lambda v: _is_list_of(int, v)),
    loose=Check("a list of booleans", lambda v: _is_list_of(bool, v)),
    n_bins=Check("a list of ints >= 0", lambda v: _is_list_of(int, v) and all(x >= 0 for x in v)),
    sizes=Check(
        "a list of five ints >= 0 per column",
        lambda v: isinstance(v, list) and all(_is_list_of(int, r) and len(r) == 5 and min(r) >= 0 for r in v),
    ),
    bins=Check("varints (a 1-D uint8 array)", _is_bytes),
    counts=Check("varints (a 1-D uint8 array) or a float64 array", _is_counts),
    multi=Check("packed bits (a 1-D uint8 array)", _is_bytes),
    extremes=Check("varints (a 1-D uint8 array)", _is_bytes),
    sums=Check("varints (a 1-D uint8 array) or a float64 array", _is_counts),
)


def decode_columns(data: Any, max_resolution: int) -> tuple[Any, bool, bool, int, list[SketchArrays]]:
    """``(layout, multilabel, ovr, n_samples, columns)`` from the fields :func:`encode_columns`
    writes; :class:`StateError` for anything else."""
    data = COLUMN_FIELDS.read(data)
    where = COLUMN_FIELDS.where
    layout = data["layout"]
    n_cols = 0 if layout is None else layout[0]
    g = 0 if layout is None else layout[1]
    per_col = [data[k] for k in ("resolution", "loose", "n_bins", "sizes")]
    if any(len(x) != n_cols for x in per_col):
        raise StateError(f"{where}: expected {n_cols} entries per column list (the layout's columns)")
    offsets = dict.fromkeys(_VARINT_FIELDS, 0)
    columns = []
    for j in range(n_cols):
        fields: dict[str, Any] = {
            "layout": [1, g],
            "multilabel": False,
            "resolution": data["resolution"][j],
            "loose": data["loose"][j],
            "n_samples": 0,
        }
        for f, size in zip(_VARINT_FIELDS, data["sizes"][j], strict=True):
            whole = data[f]
            if offsets[f] + size > len(whole):
                raise StateError(f"{where}: {f} holds fewer entries than the columns' sizes")
            fields[f] = whole[offsets[f] : offsets[f] + size]
            offsets[f] += size
        col = decode(fields, max_resolution, exact_form=True)
        if len(col.ids) != data["n_bins"][j]:
            raise StateError(
                f"{where}: column {j} holds {len(col.ids)} bins, n_bins says {data['n_bins'][j]}"
            )
        columns.append(col)
    for f in _VARINT_FIELDS:
        if offsets[f] != len(data[f]):
            raise StateError(f"{where}: {f} holds more entries than the columns' sizes")
    return (
        None if layout is None else (layout[0], layout[1]),
        data["multilabel"],
        data["ovr"],
        data["n_samples"],
        columns,
    )


# ---------------------------------------------------------------------- varints
def varint_encode(values: np.ndarray) -> np.ndarray:
    """LEB128: each unsigned value as 7-bit groups, low first, high bit set on all but the last.

    Examples:
        >>> varint_encode(np.array([0, 127, 128, 300], np.uint64)).tolist()
        [0, 127, 128, 1, 172, 2]
    """
    v = np.ascontiguousarray(values, dtype=np.uint64).ravel()
    if not v.size:
        return np.zeros(0, np.uint8)
    nb = np.ones(len(v), np.int64)
    for k in range(1, 10):
        nb += (v >> _U(7 * k)) > 0
    starts = np.cumsum(nb) - nb
    j = np.arange(int(nb.sum())) - np.repeat(starts, nb)
    out = (np.repeat(v, nb) >> (7 * j).astype(np.uint64)) & _U(0x7F)
    out |= np.where(j < np.repeat(nb, nb) - 1, _U(0x80), _U(0))
    return out.astype(np.uint8)


def varint_decode(data: Any, count: int | None, where: str) -> np.ndarray:
    """Inverse of :func:`varint_encode`; ``count`` values expected (``None``: any), else StateError.

    Only canonical varints are read (no redundant trailing zero groups, at most 64 bits), so a
    list of values has exactly one encoding.

    Examples:
        >>> varint_decode(np.array([0, 127, 128, 1, 172, 2], np.uint8), 4, "x").tolist()
        [0, 127, 128, 300]
    """
    if not isinstance(data, np.ndarray) or data.dtype != np.uint8 or data.ndim != 1:
        raise StateError(f"{where}: expected a 1-D uint8 array")
    ends = (data & 0x80) == 0
    if data.size and not ends[-1]:
        raise StateError(f"{where}: truncated varint")
    end = np.flatnonzero(ends)
    if count is not None and len(end) != count:
        raise StateError(f"{where}: expected {count} values, found {len(end)}")
    if not len(end):
        return np.zeros(0, np.uint64)
    starts = np.concatenate([[0], end[:-1] + 1])
    nb = end - starts + 1
    if nb.max() > 10 or np.any(data[end[nb > 1]] == 0) or np.any(data[end[nb == 10]] > 1):
        raise StateError(f"{where}: malformed varint")
    j = np.arange(len(data)) - np.repeat(starts, nb)
    parts = (data & 0x7F).astype(np.uint64) << (7 * j).astype(np.uint64)
    return np.add.reduceat(parts, starts)
