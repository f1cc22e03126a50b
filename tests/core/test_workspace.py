"""The per-thread work arrays: reused per slot, apart between slots and threads, never kept past
their size limit."""

from __future__ import annotations

import threading

import numpy as np
import pytest

from streammetrics._core import workspace


def _address(a: np.ndarray) -> int:
    return a.__array_interface__["data"][0]


@pytest.fixture(autouse=True)
def small_buffers_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    """Keep buffers of any size (the tests use small ones), each test from an empty pool."""
    monkeypatch.setattr(workspace, "FRESH_BYTES", 0)
    workspace.release()


def test_small_requests_are_fresh_arrays(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(workspace, "FRESH_BYTES", 1 << 16)
    small = workspace.work(("test", "small"), 100)
    assert not np.shares_memory(small, workspace.work(("test", "small"), 100))
    large = workspace.work(("test", "large"), 1 << 13)  # 64 KiB: kept
    assert _address(workspace.work(("test", "large"), 1 << 13)) == _address(large)


def test_a_slot_is_reused_and_slots_are_apart() -> None:
    a = workspace.work(("test", 0), (3, 4))
    a.fill(1.0)
    b = workspace.work(("test", 1), (3, 4))
    b.fill(2.0)
    assert not np.shares_memory(a, b)
    again = workspace.work(("test", 0), 12, np.uint8)
    assert _address(again) == _address(a)
    assert again.flags.c_contiguous and again.shape == (12,) and again.dtype == np.uint8
    assert (b == 2.0).all()  # another slot's request leaves it alone


def test_a_larger_request_grows_the_slot_and_an_oversized_one_is_not_kept() -> None:
    small = workspace.work(("test", "grow"), 10)
    large = workspace.work(("test", "grow"), (100, 8), np.int64)
    assert large.shape == (100, 8) and large.dtype == np.int64
    assert _address(workspace.work(("test", "grow"), 10)) == _address(large)
    assert small.size == 10
    huge = workspace.work(("test", "grow"), workspace.KEEP_BYTES // 8 + 1)
    assert _address(workspace.work(("test", "grow"), 10)) != _address(huge)


def test_threads_never_share_a_buffer() -> None:
    mine = workspace.work(("test", "thread"), 64)
    seen: list[int] = []
    thread = threading.Thread(target=lambda: seen.append(_address(workspace.work(("test", "thread"), 64))))
    thread.start()
    thread.join()
    assert seen and seen[0] != _address(mine)


def test_release_drops_the_buffers() -> None:
    kept = workspace.work(("test", "release"), 64)
    workspace.release()
    fresh = workspace.work(("test", "release"), 64)
    assert not np.shares_memory(kept, fresh)


def test_a_thread_keeps_at_most_the_total_dropping_the_least_recently_used(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(workspace, "TOTAL_BYTES", 3 * 800)
    first = workspace.work(("test", "lru", 0), 100)  # 800 bytes each
    second = workspace.work(("test", "lru", 1), 100)
    workspace.work(("test", "lru", 0), 100)  # used again: the most recent
    workspace.work(("test", "lru", 2), 100)
    workspace.work(("test", "lru", 3), 100)  # past the total: slot 1 goes, not slot 0
    kept = workspace._LOCAL.buffers
    assert sum(len(b) for b in kept.values()) <= workspace.TOTAL_BYTES
    assert ("test", "lru", 1) not in kept and ("test", "lru", 0) in kept
    assert _address(workspace.work(("test", "lru", 0), 100)) == _address(first)
    second.fill(7.0)  # an array handed out before its slot was dropped is still its own memory
    assert (second == 7.0).all()
    workspace.release()
