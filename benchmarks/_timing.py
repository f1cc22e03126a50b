"""Small timing helpers shared by the benchmark scripts (best of several repeats)."""

from __future__ import annotations

import time
from collections.abc import Callable


def best_time(fn: Callable[[], object], repeat: int = 3) -> float:
    """Best wall time of ``repeat`` calls, in seconds (the least disturbed run)."""
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def rate(n: int, seconds: float) -> str:
    """Samples per second, human readable."""
    per_s = n / seconds
    if per_s >= 1e6:
        return f"{per_s / 1e6:.1f} M/s"
    return f"{per_s / 1e3:.1f} k/s"


def markdown_table(header: list[str], rows: list[list[object]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join(" --- " for _ in header) + "|"]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)
