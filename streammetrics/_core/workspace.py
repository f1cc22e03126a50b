"""Work arrays reused across calls, one set per thread.

A fresh NumPy temporary of a few megabytes costs more than the arithmetic done in it: glibc
maps a large block afresh for each allocation and unmaps it on free, so every 4 KiB page faults
on first touch (on the development machine, about 2 ms for the 100,000 rows of 5 float64 that a
multilabel or divergence kernel transposes, against 0.3 ms for the transpose itself). The batch
kernels write their temporaries into the buffers here instead: one per named slot and thread,
grown to the largest request and kept, up to :data:`KEEP_BYTES` each and :data:`TOTAL_BYTES`
in all.

A work array is valid until the next request for the same slot in the same thread: a kernel
names its own slots (a tuple starting with its own name), uses them only while it runs and
never returns one. Threads never share a buffer.

Examples:
    >>> a = work(("example", 0), (100, 1000))
    >>> a.shape, a.dtype.name
    ((100, 1000), 'float64')
    >>> work(("example", 0), 100_000, np.uint8).base is a.base  # the same memory, reused
    True
"""

from __future__ import annotations

import math
import threading
from collections import OrderedDict
from collections.abc import Hashable
from typing import Any

import numpy as np

#: Requests below this many bytes get fresh arrays: the allocator serves blocks this small from
#: memory it keeps (glibc maps a block afresh from 128 KiB), and a fresh array costs less than
#: a lookup here, which matters on small batches.
FRESH_BYTES = 1 << 16
#: The largest buffer kept between calls, in bytes (a chunk of 131,072 rows of 8 float64):
#: larger requests get fresh arrays.
KEEP_BYTES = 1 << 23
#: The most a thread keeps in all its buffers, in bytes: past it the least recently used
#: buffers are dropped (an array handed out stays valid: it holds its own memory).
TOTAL_BYTES = 1 << 25

_LOCAL = threading.local()
_ITEMSIZE: dict[Any, int] = {}  # (np.dtype() costs more than the rest of a small request)


def work(slot: Hashable, shape: int | tuple[int, ...], dtype: Any = np.float64) -> np.ndarray:
    """An uninitialized C-contiguous array of ``shape`` and ``dtype`` in this thread's buffer
    ``slot``, valid until the next request for ``slot`` in this thread."""
    itemsize = _ITEMSIZE.get(dtype)
    if itemsize is None:
        itemsize = _ITEMSIZE[dtype] = np.dtype(dtype).itemsize
    size = (math.prod(shape) if isinstance(shape, tuple) else shape) * itemsize
    if not FRESH_BYTES <= size <= KEEP_BYTES:
        return np.empty(shape, dtype)
    buffers = getattr(_LOCAL, "buffers", None)
    if buffers is None:
        buffers = _LOCAL.buffers = OrderedDict()
    buffer = buffers.get(slot)
    if buffer is None or len(buffer) < size:
        buffers.pop(slot, None)
        kept = sum(len(b) for b in buffers.values())
        while buffers and kept + size > TOTAL_BYTES:  # the least recently used go first
            kept -= len(buffers.popitem(last=False)[1])
        # float64 items: every dtype's alignment (np.empty aligns the start)
        buffer = buffers[slot] = np.empty(max(-(-size // 8), 1), np.float64).view(np.uint8)
    else:
        buffers.move_to_end(slot)
    return buffer[:size].view(dtype).reshape(shape)


def release() -> None:
    """Drop this thread's buffers (their memory returns to the allocator)."""
    _LOCAL.__dict__.pop("buffers", None)


__all__ = ["FRESH_BYTES", "KEEP_BYTES", "TOTAL_BYTES", "release", "work"]
