"""Label sets: map labels of any kind (ints or strings) to dense indices, growing as they come.

A discovered label set is kept sorted (as scikit-learn's ``unique_labels``); a fixed one keeps
the user's order. Integer labels that are exactly ``0..K-1`` are mapped without any work, and
other small integer ranges through a lookup table, so the hot path is a couple of reductions.
Short strings (up to 8 characters below 256, the common label and key names) are packed into one
uint64 each, so that a batch of known labels is a hash probe of integers, not a sort of strings.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..errors import InputError, StateError

_LUT_MAX_SPAN = 1 << 16
_PACKED_CHARS = 8  # one byte a character (below 256) in a uint64
PACKED_MIN_ROWS = 512  # below, the packing's and probe's NumPy calls cost more than a search of strings


def sorted_distinct(arr: np.ndarray) -> np.ndarray:
    """``np.unique(arr)`` (flattened, sorted): integers and booleans by one sort and a comparison of
    neighbours, which is 10-100x faster than NumPy's hashing unique of integers (and than its
    first call, which builds its tables); other kinds through ``np.unique``.

    Examples:
        >>> sorted_distinct(np.array([3, 1, 3, -2])).tolist(), sorted_distinct(np.array(["b", "a", "b"])).tolist()
        ([-2, 1, 3], ['a', 'b'])
    """
    if arr.dtype.kind not in "iub":
        return np.unique(arr)
    s = np.sort(arr, axis=None)
    return s[run_starts(s)]


def merged_sorted(values: np.ndarray, new: np.ndarray) -> np.ndarray:
    """``np.union1d(values, new)`` of two sorted arrays of distinct labels with no label in
    common: ``new`` inserted where it sorts, one search and one copy (``union1d`` sorts both
    again; NumPy's hashing unique of integers costs about 25 µs even on a few hundred labels).
    Strings keep the wider of the two widths.

    Examples:
        >>> merged_sorted(np.array([1, 4, 9]), np.array([0, 5])).tolist()
        [0, 1, 4, 5, 9]
        >>> merged_sorted(np.array(["b", "d"]), np.array(["ccc"])).tolist()
        ['b', 'ccc', 'd']
    """
    dtype = np.result_type(values.dtype, new.dtype)
    return np.insert(
        values.astype(dtype, copy=False), np.searchsorted(values, new), new.astype(dtype, copy=False)
    )


def run_starts(sorted_values: np.ndarray) -> np.ndarray:
    """The mask of the first element of each run of equal values of a sorted 1-D array.

    Examples:
        >>> run_starts(np.array([1, 1, 2, 5, 5])).tolist()
        [True, False, True, True, False]
    """
    new = np.empty(len(sorted_values), bool)
    new[:1] = True
    np.not_equal(sorted_values[1:], sorted_values[:-1], out=new[1:])
    return new


def packed_strings(arr: np.ndarray) -> np.ndarray | None:
    """One uint64 per string of a 1-D NumPy unicode array, or ``None`` unless every string has at
    most 8 characters, each below 256 (ASCII and Latin-1), whatever the array's width: the
    characters' bytes, the first one lowest, NUL padding at the end. Distinct strings get
    distinct codes and a string the same code in arrays of any width (NumPy strips trailing
    NULs), so codes compare as their strings do for equality (not for order).

    Each character is narrowed to a byte by one contiguous cast, and the codes are read from that
    buffer by an overlapping strided view (a code every ``width`` bytes, 8 bytes long), masked
    to the string's bytes: three passes, whatever the width.

    Examples:
        >>> codes = packed_strings(np.array(["b", "ab", "a", ""]))
        >>> [hex(c) for c in codes.tolist()]
        ['0x62', '0x6261', '0x61', '0x0']
        >>> packed_strings(np.array(["€"])) is None, packed_strings(np.array(["nine char"])) is None
        (True, True)
    """
    if arr.dtype.kind != "U":
        return None
    width, n = arr.dtype.itemsize // 4, len(arr)
    if not width:
        return np.zeros(n, np.uint64)
    chars = np.ascontiguousarray(arr).view(np.uint32).reshape(n, width)
    if width > _PACKED_CHARS:  # a wide array of short strings: every character past the 8th is NUL
        if chars[:, _PACKED_CHARS:].any():
            return None
        chars, width = chars[:, :_PACKED_CHARS], _PACKED_CHARS
    if chars.size and chars.max() >= 256:
        return None
    buffer = np.empty(n * width + 8, np.uint8)
    np.copyto(buffer[: n * width].reshape(n, width), chars, casting="unsafe")
    buffer[n * width :] = 0  # (the last code's read goes 8 - width bytes past its string)
    reads = np.ndarray((n,), np.uint64, buffer, 0, (width,))
    return reads & np.uint64((1 << (8 * width)) - 1)


_GOLDEN = np.uint64(0x9E3779B97F4A7C15)  # multiplicative hashing (Knuth): odd, bits well mixed


class CodeTable:
    """Open addressing over distinct uint64 codes, vectorized: ``lookup`` maps a batch of codes
    to the values stored with them (-1 where absent) with a few gathers, where a binary search
    costs about ten dependent steps per code. At most an eighth of the slots are used, so nearly
    every code is found at its first probe. Each slot holds its code and its value side by side
    (two independent gathers; no gather of a gather).

    Examples:
        >>> t = CodeTable(np.array([10, 20, 30], np.uint64), np.array([7, 8, 9]))
        >>> t.lookup(np.array([30, 10, 99, 20], np.uint64)).tolist()
        [9, 7, -1, 8]
    """

    __slots__ = ("_codes", "_probes", "_shift", "_values")

    def __init__(self, codes: np.ndarray, values: np.ndarray | None = None) -> None:
        """``codes``: distinct uint64; ``values``: one non-negative int64 per code (by default
        its position)."""
        values = np.arange(len(codes)) if values is None else np.asarray(values, np.int64)
        bits = max(4, (8 * len(codes)).bit_length())
        self._shift = np.uint64(64 - bits)
        # an empty slot holds code 0 and value -1: a code 0 that lands there reads "absent" at
        # once, which is right, since a stored code has no empty slot on its probe path
        self._codes = np.zeros(1 << bits, np.uint64)
        self._values = np.full(1 << bits, -1, np.int64)
        home, mask = self._home(codes), (1 << bits) - 1
        pending, probe = np.arange(len(codes)), 0
        while pending.size:  # each round places, per free slot, the first code probing it
            slots = (home[pending] + probe) & mask
            free = np.flatnonzero(self._values[slots] < 0)
            taken, first = np.unique(slots[free], return_index=True)
            placed = pending[free[first]]
            self._codes[taken], self._values[taken] = codes[placed], values[placed]
            done = np.zeros(len(pending), bool)
            done[free[first]] = True
            pending, probe = pending[~done], probe + 1
        self._probes = probe

    def _home(self, codes: np.ndarray) -> np.ndarray:
        home = codes * _GOLDEN
        home >>= self._shift
        return home.view(np.int64)  # < the table's size

    def lookup(self, codes: np.ndarray) -> np.ndarray:
        """The value stored with each code (uint64), -1 where the code is absent."""
        home = self._home(codes)
        out = self._values[home]
        rows = np.flatnonzero(self._codes[home] != codes)
        if not len(rows):
            return out
        # displaced by a collision (a few percent of the codes), or absent
        out[rows] = -1
        home, codes, mask = home[rows], codes[rows], len(self._values) - 1
        for probe in range(1, self._probes):
            slots = (home + probe) & mask
            hit = self._codes[slots] == codes
            out[rows[hit]] = self._values[slots[hit]]
            rows, home, codes = rows[~hit], home[~hit], codes[~hit]
        return out


class LabelSet:
    """An ordered set of labels (ints or strings) with vectorized encoding.

    Examples:
        >>> ls = LabelSet()
        >>> idx, grown = ls.encode(np.array(["b", "a", "b"]), "y_true")
        >>> grown.values.tolist(), idx.tolist()
        (['a', 'b'], [1, 0, 1])
    """

    __slots__ = (
        "_code_table",
        "_index",
        "_is_range",
        "_lut",
        "_lut_lo",
        "_sorted",
        "_sorter",
        "fixed",
        "values",
    )

    def __init__(self, values: Any = None, fixed: bool = False, *, distinct: bool = False) -> None:
        """``distinct=True``: ``values`` is already a 1-D array of distinct ints or strings (the
        sorted results of this module's own set operations), taken without checks."""
        if values is None:
            arr = np.empty(0, dtype=np.int64)
        elif distinct:
            arr = values.astype(np.int64) if values.dtype.kind in "iub" else values
        else:
            if isinstance(values, (list, tuple)):
                check_label_list(values)
            arr = np.asarray(values)
            if arr.dtype.kind == "b":
                arr = arr.astype(np.int64)
            if arr.dtype.kind == "O" and arr.size and all(isinstance(v, str) for v in arr):
                arr = arr.astype(str)
            if arr.dtype.kind not in "iuU" and arr.size:
                raise ValueError(f"labels: expected ints or strings, found dtype {arr.dtype}")
            if arr.dtype.kind in "iu" or not arr.size:
                arr = arr.astype(np.int64) if arr.dtype.kind != "U" else arr
            if arr.ndim != 1 or len(np.unique(arr)) != len(arr):
                raise ValueError(f"labels: expected a list of distinct labels, found {values!r}")
        self.values = arr
        self.fixed = fixed
        self._index: dict[Any, int] | None = None
        #: Whether the labels are in sorted order (every discovered set is; a fixed one may not be).
        self._sorted = bool((arr[1:] >= arr[:-1]).all()) if arr.size > 1 else True
        self._sorter = np.arange(arr.size) if self._sorted else np.argsort(arr, kind="stable")
        # distinct ints are 0..K-1 exactly when sorted, the first 0 and the last K-1
        self._is_range = bool(
            self._sorted and arr.dtype.kind == "i" and arr.size and arr[0] == 0 and arr[-1] == arr.size - 1
        )
        self._lut = None
        self._lut_lo = 0
        #: The hash table of the string labels' packed codes (see :func:`packed_strings`), giving
        #: each its index: built on the first large batch of strings, ``False`` when they do not pack.
        self._code_table: CodeTable | bool | None = None
        if arr.dtype.kind == "i" and arr.size and not self._is_range:
            lo, hi = int(arr.min()), int(arr.max())
            if hi - lo < _LUT_MAX_SPAN:
                self._build_lut(lo, hi)

    def _build_lut(self, lo: int, hi: int) -> None:
        self._lut = np.full(hi - lo + 1, -1, dtype=np.int64)
        self._lut[self.values - lo] = np.arange(len(self.values))
        self._lut_lo = lo

    def _wide_lut(self, rows: int) -> None:
        """Build the look-up table of a wider span of integer labels (up to four times their
        number: at most 32 bytes a label) for a batch of at least an eighth of that span rows,
        which pays for it; built once, on the first such batch."""
        values = self.values
        if (
            self._lut is not None
            or self._is_range
            or not self._sorted
            or values.dtype.kind != "i"
            or not values.size
        ):
            return
        lo, hi = int(values[0]), int(values[-1])  # sorted: O(1), whatever the number of labels
        span = hi - lo + 1
        if span <= 4 * len(values) and 8 * rows >= span:
            self._build_lut(lo, hi)

    def __len__(self) -> int:
        return len(self.values)

    @property
    def kind(self) -> str | None:
        """``"int"``, ``"str"`` or ``None`` when empty."""
        if not self.values.size:
            return None
        return "str" if self.values.dtype.kind == "U" else "int"

    def tolist(self) -> list[Any]:
        return self.values.tolist()

    @property
    def index(self) -> dict[Any, int]:
        """``{label: position}`` for one-sample updates (built once, on first use)."""
        if self._index is None:
            self._index = {label: i for i, label in enumerate(self.values.tolist())}
        return self._index

    def index_of(self, label: Any) -> int | None:
        """The index of one label, or ``None`` if absent."""
        if not self.values.size:
            return None
        hits = np.flatnonzero(self.values == label) if _same_kind(self.values, label) else []
        return int(hits[0]) if len(hits) else None

    def _lookup(self, arr: np.ndarray) -> np.ndarray:
        """Indices of ``arr`` in ``values`` (-1 where absent)."""
        if not self.values.size:
            return np.full(arr.shape, -1, dtype=np.int64)
        pos = np.searchsorted(self.values, arr, sorter=self._sorter)
        pos = np.minimum(pos, len(self.values) - 1)
        idx = self._sorter[pos]
        return np.where(self.values[idx] == arr, idx, -1)

    def _packed_table(self) -> CodeTable | None:
        if self._code_table is None:
            codes = packed_strings(self.values) if self.kind == "str" else None
            self._code_table = False if codes is None else CodeTable(codes)
        return self._code_table or None

    def encode(self, arr: np.ndarray, name: str) -> tuple[np.ndarray, LabelSet | None]:
        """Map ``arr`` to indices; return them and the grown label set (``None`` if unchanged).

        Raises :class:`InputError` for a label outside a fixed set or of another kind (strings
        after ints). The label set itself is never modified: the caller commits the new one.
        """
        if not arr.size:
            return np.empty(arr.shape, dtype=np.int64), None
        arr_kind = "str" if arr.dtype.kind == "U" else "int"
        if self.kind is not None and arr_kind != self.kind:
            raise InputError(
                f"{name}: expected {self.kind} labels like those seen so far "
                f"({self.values[:3].tolist()}...), found {arr_kind} labels such as {arr.flat[0]!r}"
            )
        if arr_kind == "int":
            lo, hi = int(arr.min()), int(arr.max())
            if self._is_range and lo >= 0 and hi < len(self.values):
                return arr, None
            self._wide_lut(arr.size)
            if self._lut is not None and lo >= self._lut_lo and hi < self._lut_lo + len(self._lut):
                idx = self._lut[arr - self._lut_lo]
                if idx.min() >= 0:
                    return idx, None
        table = self._packed_table() if arr_kind == "str" and arr.size >= PACKED_MIN_ROWS else None
        if table is not None:  # short strings: a hash probe
            codes = packed_strings(arr.ravel())
            if codes is not None:
                idx = table.lookup(codes)
                if idx.min() >= 0:  # every label known
                    return idx.reshape(arr.shape), None
        uniques = sorted_distinct(arr)
        new = uniques[self._lookup(uniques) < 0]
        if not new.size:
            return self._lookup(arr), None
        if self.fixed:
            raise InputError(
                f"{name}: expected labels in the fixed list {self.values.tolist()}, found {new[:5].tolist()}"
            )
        # (a discovered set is sorted; the batch's new labels are sorted and not in it)
        grown = LabelSet(merged_sorted(self.values, new) if self.values.size else new, distinct=True)
        return grown.encode(arr, name)[0], grown  # (its range or look-up table path, when it has one)

    def union(self, other: LabelSet) -> LabelSet:
        """The sorted union (used when merging states)."""
        if not other.values.size:
            return self
        if not self.values.size:
            return other
        if self.kind != other.kind:
            raise InputError(
                f"labels: cannot unite {self.kind} labels {self.values[:3].tolist()} with "
                f"{other.kind} labels {other.values[:3].tolist()}"
            )
        if self.fixed:
            return self
        if not self._sorted:  # (a fixed set's order is the user's: never here, but sort to be safe)
            return LabelSet(np.union1d(self.values, other.values), distinct=True)
        known = self._lookup(other.values) >= 0
        if len(other) <= len(self) and bool(known.all()):
            return self  # the common case of a merge or a batch: nothing new (no sort, no new set)
        new = other.values[~known]
        return LabelSet(merged_sorted(self.values, new if other._sorted else np.sort(new)), distinct=True)

    def positions_in(self, other: LabelSet) -> np.ndarray:
        """For each of our labels, its index in ``other`` (which must contain it)."""
        return other._lookup(self.values)

    def to_list(self) -> list[Any]:
        return self.values.tolist()

    @classmethod
    def from_list(cls, values: Any, fixed: bool, where: str) -> LabelSet:
        if not isinstance(values, list) or (
            not all(isinstance(v, str) for v in values)
            and not all(isinstance(v, int) and not isinstance(v, bool) for v in values)
        ):
            raise StateError(f"{where}: labels must be a list of all ints or all strings")
        try:
            return cls(
                np.array(values, dtype=str) if values and isinstance(values[0], str) else values, fixed
            )
        except ValueError as err:
            raise StateError(f"{where}: {err}") from None


def check_label_list(values: list[Any] | tuple[Any, ...]) -> None:
    """Labels given as a list: one kind (NumPy would turn ``[1, "a"]`` into the strings
    ``"1"``, ``"a"``), ints within int64 (NumPy would make them floats or wrap them)."""
    strings = [isinstance(v, str) for v in values]
    if any(strings) and not all(strings):
        kinds = sorted({type(v).__name__ for v in values})
        raise ValueError(f"labels: expected labels all strings or all integers, found a mix of {kinds}")
    for v in values:
        if isinstance(v, (int, np.integer)) and not -(2**63) <= int(v) < 2**63:
            raise ValueError(f"labels: expected labels that fit in int64, found {int(v)}")


def _same_kind(values: np.ndarray, label: Any) -> bool:
    if values.dtype.kind == "U":
        return isinstance(label, str)
    return isinstance(label, (int, np.integer, bool, np.bool_)) or (
        isinstance(label, float) and float(label).is_integer()
    )
