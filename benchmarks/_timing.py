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


def per_sample_seconds(
    make: Callable[[], object], y: object, p: object, n: int, prefix: int = 200_000
) -> float:
    """Seconds for a one-sample-at-a-time peer (river) to see ``n`` samples.

    Timed once on the first ``prefix`` samples and scaled to ``n`` (a full 10M-sample loop in
    Python would dominate the benchmark's run time).
    """
    k = min(n, prefix)
    ys, ps = y[:k].tolist(), p[:k].tolist()  # type: ignore[index]

    def run() -> None:
        m = make()
        update = m.update  # type: ignore[attr-defined]
        for a, b in zip(ys, ps, strict=True):
            update(a, b)

    return best_time(run, repeat=1) * n / k


def ratio_rows(
    results: dict[str, float | None], base_name: str, n: int, digits: int = 2
) -> list[list[object]]:
    """Rows ``[name, M samples/s, time / base, throughput / base]`` ("not installed" for ``None``)."""
    base = results[base_name]
    rows: list[list[object]] = []
    for name, seconds in results.items():
        if seconds is None:
            rows.append([name, "not installed", "", ""])
        else:
            rows.append(
                [name, f"{n / seconds / 1e6:.1f}", f"{seconds / base:.2f}", f"{base / seconds:.{digits}f}"]
            )
    return rows
