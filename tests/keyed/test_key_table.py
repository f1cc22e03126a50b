"""Key slots: the table lookup of integer keys, and the hash probe of short string keys, equal the
sorted search, new keys included."""

from __future__ import annotations

import numpy as np
import pytest

from streammetrics.keyed.keys import KeyTable


def _searched_only(table: KeyTable, batch: np.ndarray) -> tuple[np.ndarray, KeyTable]:
    """The slots by the sorted search alone (the reference: no lookup table)."""
    column = table.columns[0] if table.n_columns else None
    if column is None:
        return table.encode([batch])
    slots, grown = column._searched(batch, "keys")
    new = table._copy()
    if grown is not None:
        new.columns[0] = grown
    return slots, new


def _names(ids: np.ndarray, dtype: str) -> np.ndarray:
    """Short string keys of several lengths, Latin-1 included ("", "k7", "ÿ12", ...)."""
    prefix = np.array(["", "k", "ÿ", "key_"])[ids % 4]
    return np.char.add(prefix, (ids // 4).astype(str)).astype(dtype)


@pytest.mark.parametrize("strings", [None, "<U8", "<U25"], ids=["int", "str", "wide-str"])
@pytest.mark.parametrize("new_share", [0.0, 0.001, 0.05, 0.5])
def test_lookup_with_a_few_new_keys_equals_the_search(new_share, strings):
    rng = np.random.default_rng(1)
    fast, slow = KeyTable(), KeyTable()
    known = rng.permutation(5000)[:4000]
    for step in range(6):
        ids = rng.choice(known, 20_000)
        fresh = rng.random(len(ids)) < new_share
        ids[fresh] = rng.integers(0, 5000, fresh.sum())  # keys within the span, some new
        batch = _names(ids, strings) if strings else ids
        a, fast = fast.encode([batch])
        b, slow = _searched_only(slow, batch)
        np.testing.assert_array_equal(a, b, err_msg=f"step {step}")
        assert fast.keys() == slow.keys()
    # every slot names its key
    keys = np.array(fast.keys())
    np.testing.assert_array_equal(keys[a], batch)
