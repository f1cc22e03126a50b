"""Slice keys: one key column, or several for crossed slices, encoded to dense slots.

A key is one label (an int, a bool or a string: what class labels accept) per key column. A
:class:`KeyTable` gives every distinct key (a value, or a tuple of values for crossed keys) a slot
``0, 1, 2, ...`` in the order keys were first seen; slots never move, so the per-key states of
a keyed accumulator are arrays (or lists) indexed by slot, and growing the table only appends.
Encoding a batch is vectorized with the label machinery (:class:`~streammetrics._core.labels.LabelSet`):
integer keys ``0..K-1`` cost two reductions and one gather, other integers a look-up table,
short strings a hash probe of their packed codes.

A table is immutable: :meth:`KeyTable.encode` returns the slots and the grown table (or
``None``), and the caller commits it with the per-key states, at once.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._core import validation as v
from .._core.labels import PACKED_MIN_ROWS, CodeTable, LabelSet, packed_strings
from ..errors import InputError, StateError

#: Crossed keys combine per-column slots into one int64: each column gets ``62 // d`` bits.
_BITS = 62


class _Column:
    """One key column: a sorted :class:`LabelSet` for lookups and the slot of each of its labels."""

    __slots__ = ("_cache", "_strings", "identity", "labels", "slot_of", "values")

    def __init__(self, labels: LabelSet, slot_of: np.ndarray, values: np.ndarray) -> None:
        self.labels = labels  # sorted, for vectorized lookup
        self.slot_of = slot_of  # slot of each sorted label
        self.values = values  # the labels in slot order
        self.identity = bool(np.array_equal(slot_of, np.arange(len(slot_of))))

    def _lut(self) -> tuple[int, np.ndarray] | None:
        """``(low, slot of low + i)`` for integer keys of a span at most 8 times their number
        (or 65,536): a known key is then one gather, however the keys are spread."""
        if self.values.dtype.kind != "i" or not len(self.values):
            return None
        cached = getattr(self, "_cache", None)
        if cached is None:
            lo, hi = int(self.labels.values[0]), int(self.labels.values[-1])
            if hi - lo >= max(1 << 16, 8 * len(self.values)):
                cached = (lo, None)
            else:
                table = np.full(hi - lo + 1, -1, np.int64)
                table[self.labels.values - lo] = self.slot_of
                cached = (lo, table)
            object.__setattr__(self, "_cache", cached)
        return None if cached[1] is None else cached

    @classmethod
    def empty(cls) -> _Column:
        return cls(LabelSet(), np.empty(0, np.int64), np.empty(0, np.int64))

    def __len__(self) -> int:
        return len(self.slot_of)

    def _string_table(self) -> CodeTable | None:
        """The hash table of the string keys' packed codes, giving each its slot (built once;
        ``None`` when the keys are not strings or do not pack)."""
        cached = getattr(self, "_strings", None)
        if cached is None:
            codes = packed_strings(self.values) if self.values.dtype.kind == "U" and len(self) else None
            cached = False if codes is None else CodeTable(codes)  # (values: positions, the slots)
            object.__setattr__(self, "_strings", cached)
        return cached or None

    def _looked_up(self, arr: np.ndarray) -> np.ndarray | None:
        """The slot of each key by a table (-1 where unknown): integer keys through the look-up
        table, short strings through the hash of their packed codes; ``None`` where neither applies."""
        if arr.dtype.kind == "i":
            lut = self._lut()
            if lut is not None and len(arr):
                lo, table = lut
                if int(arr.min()) >= lo and int(arr.max()) < lo + len(table):
                    return table[arr - lo if lo else arr]  # (no shifted copy of the keys from 0)
        elif arr.dtype.kind == "U" and len(arr) >= PACKED_MIN_ROWS:
            strings = self._string_table()
            codes = None if strings is None else packed_strings(arr)
            if codes is not None:
                return strings.lookup(codes)  # type: ignore[union-attr]
        return None

    def encode(self, arr: np.ndarray, name: str) -> tuple[np.ndarray, _Column | None]:
        slots = self._looked_up(arr)
        if slots is not None:  # (a fresh array)
            unknown = np.flatnonzero(slots < 0)
            if not len(unknown):  # every key known
                return slots, None
            if len(unknown) <= len(arr) // 8:  # a few new keys: only their rows searched
                slots[unknown], column = self._searched(arr[unknown], name)
                return slots, column
        return self._searched(arr, name)

    def _searched(self, arr: np.ndarray, name: str) -> tuple[np.ndarray, _Column | None]:
        """:meth:`encode` by a search of the sorted labels (new labels: the next slots, in the
        order of their first row)."""
        idx, grown = self.labels.encode(arr, name)
        if grown is None:
            return (idx if self.identity else self.slot_of[idx]), None
        # new labels get the next slots, in the order of their first row
        old_pos = self.labels.positions_in(grown) if len(self) else np.empty(0, np.int64)
        is_new = np.ones(len(grown), bool)
        is_new[old_pos] = False
        first_rows = np.full(len(grown), len(arr), np.int64)
        np.minimum.at(first_rows, idx, np.arange(len(arr)))
        new_pos = np.flatnonzero(is_new)
        new_pos = new_pos[np.argsort(first_rows[new_pos], kind="stable")]
        slot_of = np.empty(len(grown), np.int64)
        slot_of[old_pos] = self.slot_of
        slot_of[new_pos] = len(self) + np.arange(len(new_pos))
        values = np.concatenate([self.values.astype(grown.values.dtype), grown.values[new_pos]])
        column = _Column(grown, slot_of, values)
        return slot_of[idx], column


class KeyTable:
    """The distinct keys seen, each with a slot (first seen, first slot).

    Examples:
        >>> t = KeyTable()
        >>> slots, t = t.encode([np.array(["b", "a", "b"])])
        >>> slots.tolist(), t.keys()
        ([0, 1, 0], ['b', 'a'])
        >>> slots, grown = t.encode([np.array(["a", "c"])])
        >>> slots.tolist(), grown.keys()
        ([1, 2], ['b', 'a', 'c'])
    """

    __slots__ = ("columns", "combos", "n_columns")

    def __init__(self, n_columns: int | None = None) -> None:
        self.n_columns = n_columns
        self.columns: list[_Column] = [_Column.empty() for _ in range(n_columns or 0)]
        #: Crossed keys: a table of the combined per-column slots (``None`` for one column).
        self.combos: _Column | None = _Column.empty() if (n_columns or 0) > 1 else None

    def __len__(self) -> int:
        if not self.n_columns:
            return 0
        return len(self.combos) if self.combos is not None else len(self.columns[0])

    def _copy(self) -> KeyTable:
        new = KeyTable.__new__(KeyTable)
        new.n_columns, new.columns, new.combos = self.n_columns, list(self.columns), self.combos
        return new

    def encode(self, columns: list[np.ndarray], name: str = "keys") -> tuple[np.ndarray, KeyTable]:
        """The slot of each row's key, and the table (``self`` when no key is new)."""
        d = len(columns)
        n = len(columns[0])
        if self.n_columns is not None and d != self.n_columns:
            raise InputError(
                f"{name}: expected {self.n_columns} key column(s) like earlier batches, found {d}"
            )
        table = self if self.n_columns is not None else KeyTable(d)
        if not n:
            return np.empty(0, np.int64), self
        new = table._copy()
        slots = []
        for j, arr in enumerate(columns):
            where = name if d == 1 else f"{name}[{j}]"
            s, grown = table.columns[j].encode(arr, where)
            if grown is not None:
                new.columns[j] = grown
            slots.append(s)
        if d == 1:
            return slots[0], (new if table is not self or new.columns[0] is not table.columns[0] else self)
        bits = _BITS // d
        if any(len(c) >= (1 << bits) for c in new.columns):
            raise InputError(f"{name}: too many distinct values in a key column for {d} crossed columns")
        combined = slots[0].astype(np.int64)
        for s in slots[1:]:
            combined = (combined << bits) | s
        assert table.combos is not None
        out, grown = table.combos.encode(combined, name)
        if grown is not None:
            new.combos = grown
        changed = (
            grown is not None
            or table is not self
            or any(a is not b for a, b in zip(new.columns, table.columns, strict=True))
        )
        return out, (new if changed else self)

    def key_columns(self) -> list[np.ndarray]:
        """The keys as columns, in slot order (one array per key column)."""
        if not self.n_columns:
            return []
        if self.combos is None:
            return [self.columns[0].values]
        bits = _BITS // self.n_columns
        combined = self.combos.values.astype(np.int64)
        out = []
        mask = (1 << bits) - 1
        for j in range(self.n_columns):
            shift = bits * (self.n_columns - 1 - j)
            out.append(self.columns[j].values[(combined >> shift) & mask])
        return out

    def keys(self) -> list[Any]:
        """The keys in slot order: values (one column) or tuples (crossed)."""
        cols = [c.tolist() for c in self.key_columns()]
        if len(cols) == 1:
            return cols[0]
        return list(zip(*cols, strict=True))

    # ------------------------------------------------------------------ persistence
    def to_list(self) -> list[list[Any]]:
        return [c.tolist() for c in self.key_columns()]

    @classmethod
    def from_list(cls, data: Any, where: str) -> KeyTable:
        if not isinstance(data, list) or not all(isinstance(c, list) for c in data):
            raise StateError(f"{where}: keys must be a list of key columns (lists)")
        if not data:
            return cls()
        if len({len(c) for c in data}) != 1:
            raise StateError(f"{where}: key columns of different lengths")
        columns = []
        for col in data:
            LabelSet.from_list(sorted(set(col)) if col else [], False, where)  # all ints or all strings
            columns.append(
                np.array(col, dtype=str) if col and isinstance(col[0], str) else np.array(col, np.int64)
            )
        try:
            slots, table = cls().encode(columns, where)
        except InputError as err:
            raise StateError(f"{where}: {err}") from None
        if not np.array_equal(slots, np.arange(len(columns[0]))):
            raise StateError(f"{where}: keys must be distinct")
        return table


def key_columns(value: Any, n: int, name: str = "keys") -> list[np.ndarray]:
    """A key argument as a list of 1-D label columns of ``n`` rows.

    One column: any 1-D array-like of ints, bools or strings. Crossed keys: a 2-D array
    ``(n, d)`` (a DataFrame), or a list/tuple of ``d`` columns.
    """
    if isinstance(value, (list, tuple)) and value and all(_is_column(c) for c in value):
        columns = [v.to_array(c, f"{name}[{j}]") for j, c in enumerate(value)]
    else:
        arr = v.to_array(value, name)
        if arr.ndim == 2:
            columns = [arr[:, j] for j in range(arr.shape[1])]
        elif arr.ndim == 1:
            columns = [arr]
        else:
            raise InputError(
                f"{name}: expected one key per row (1-D) or key columns (2-D), found {arr.ndim}-D"
            )
        if not columns:
            raise InputError(f"{name}: expected at least one key column, found none")
    out = []
    for j, col in enumerate(columns):
        where = name if len(columns) == 1 else f"{name}[{j}]"
        labels = v.as_labels(col, where)
        v.check_length(labels, n, where)
        out.append(labels)
    return out


def _is_column(value: Any) -> bool:
    if isinstance(value, (str, bytes)):
        return False
    return np.ndim(value) >= 1 if not hasattr(value, "ndim") else value.ndim >= 1


def format_key(key: Any) -> str:
    """A key as text (crossed keys joined by ``/``): the flat ``"name/key"`` view."""
    if isinstance(key, tuple):
        return "/".join(map(str, key))
    return str(key)
