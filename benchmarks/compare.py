"""Batch throughput of a baseline revision vs the working tree, measured in one run.

    python benchmarks/compare.py --baseline main                      # every family
    python benchmarks/compare.py --baseline HEAD~3 --modules ranking,probabilistic --quick

Checks the target "batch throughput of every family within 5% of today's": the baseline is
checked out in a temporary ``git worktree`` (removed at the end) and its optional C extensions
built there, as an install would build them (the table's header says which compiled parts each
side runs), then the cases of
``_batch_cases.py`` (a few per family, batches of 100k and of 256 rows) are timed in two
subprocesses, one importing the baseline's ``streammetrics`` and one the working tree's
(uncommitted changes included), alternating cell by cell so that the load of a shared machine
hits both alike. Each cell is the best of ``--rounds`` timings per tree, in CPU time of the
subprocess (BLAS and OpenMP limited to one thread).
Prints a Markdown table: family, case, batch, rows/s before and after, after/before (> 1: the
working tree is faster; below 0.95 is flagged).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
CASES = HERE / "_batch_cases.py"
sys.path.insert(0, str(HERE))
from _batch_cases import FAMILIES, keys  # noqa: E402  (names only: the timings run in subprocesses)

THREAD_VARS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")
TOLERANCE = 0.95  # "within 5%": after/before throughput at least this


def _git(*args: str, cwd: Path = ROOT) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True).stdout.strip()


@contextmanager
def baseline_tree(rev: str) -> Iterator[tuple[Path, str]]:
    """A temporary detached worktree of ``rev`` and its commit id; removed on the way out."""
    sha = _git("rev-parse", "--verify", f"{rev}^{{commit}}")
    parent = Path(tempfile.mkdtemp(prefix="streammetrics-baseline-"))
    tree = parent / "tree"
    _git("worktree", "add", "--detach", "--quiet", str(tree), sha)
    try:
        if (tree / "setup.py").exists():  # (its compiled parts, where it has any; optional there too)
            subprocess.run(
                [sys.executable, "setup.py", "-q", "build_ext", "--inplace"], cwd=tree, capture_output=True
            )
        yield tree, sha
    finally:
        subprocess.run(["git", "worktree", "remove", "--force", str(tree)], cwd=ROOT, capture_output=True)
        shutil.rmtree(parent, ignore_errors=True)
        subprocess.run(["git", "worktree", "prune"], cwd=ROOT, capture_output=True)


class Worker:
    """A cases server (``_batch_cases.py``) running on ``tree``'s streammetrics."""

    def __init__(self, tree: Path, sizes: dict[str, Any]) -> None:
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join([str(tree), *filter(None, [env.get("PYTHONPATH")])])
        env.update(dict.fromkeys(THREAD_VARS, "1"))  # one thread: CPU time then measures one core
        cmd = [sys.executable, str(CASES), *(f"--{k.replace('_', '-')}={v}" for k, v in sizes.items())]
        self.tree = tree
        self.proc = subprocess.Popen(
            cmd, cwd=tree, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1
        )
        hello = self._read()
        imported = Path(hello["streammetrics"]).resolve()
        #: Which compiled parts this side runs (what the build made, and the CPU allows).
        self.compiled: dict[str, bool] = hello.get("compiled", {})
        if not imported.is_relative_to(tree.resolve()):  # an installed copy shadowed the tree
            self.close()
            raise RuntimeError(f"{tree}: the cases imported {imported}")

    def _read(self) -> dict[str, Any]:
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        if not line:
            raise RuntimeError(f"the cases server for {self.tree} exited ({self.proc.wait()})")
        return json.loads(line)

    def time(self, key: str) -> dict[str, Any]:
        assert self.proc.stdin is not None
        self.proc.stdin.write(key + "\n")
        return self._read()

    def close(self) -> None:
        if self.proc.stdin is not None:
            self.proc.stdin.close()
        self.proc.wait()


Timings = dict[str, list[dict[str, Any]]]  # cell key -> one answer per round


def compare(
    before: Path, after: Path, families: list[str], rounds: int, sizes: dict[str, Any]
) -> tuple[Timings, Timings, dict[str, dict[str, bool]]]:
    """Every timing of every cell in each tree, one per round, and the compiled parts each ran.

    The two trees alternate cell by cell (A B, then B A in the next round), and every round
    visits every cell, so that the two timings of a cell in one round are taken a moment apart,
    under the same load.
    """
    timings: dict[str, Timings] = {"before": {}, "after": {}}
    workers = {"before": Worker(before, sizes)}
    try:
        workers["after"] = Worker(after, sizes)
        cells = keys(families)
        for r in range(rounds):
            print(f"round {r + 1}/{rounds} ({len(cells)} cells)", file=sys.stderr, flush=True)
            for key in cells:
                for side in ("before", "after") if r % 2 == 0 else ("after", "before"):
                    timings[side].setdefault(key, []).append(workers[side].time(key))
    finally:
        for w in workers.values():
            w.close()
    return timings["before"], timings["after"], {side: w.compiled for side, w in workers.items()}


def _best(answers: list[dict[str, Any]]) -> dict[str, Any]:
    """The fastest timing, or the first error if the cell never ran."""
    ok = [a for a in answers if "seconds" in a]
    return min(ok, key=lambda a: a["seconds"]) if ok else answers[0]


def _rate(cell: dict[str, Any]) -> str:
    if "error" in cell:
        return f"error: {cell['error'].splitlines()[0]}"
    per_s = cell["rows"] / cell["seconds"]
    return f"{per_s / 1e6:.2f} M/s" if per_s >= 1e6 else f"{per_s / 1e3:.0f} k/s"


def paired_ratios(before: list[dict[str, Any]], after: list[dict[str, Any]]) -> list[float]:
    """after/before throughput of each round (the two timings taken a moment apart)."""
    return [
        b["seconds"] / a["seconds"]
        for b, a in zip(before, after, strict=True)
        if "seconds" in b and "seconds" in a
    ]


def table(before: Timings, after: Timings) -> tuple[str, list[str]]:
    """The Markdown table and the cells below the tolerance (or failing after only)."""
    lines = [
        "| family | case | batch | before | after | after/before | rounds' range |",
        "| --- | --- | ---: | ---: | ---: | ---: | ---: |",
    ]
    flagged = []
    for key in before:
        family, name, batch = key.split("|")
        ratios = sorted(paired_ratios(before[key], after[key]))
        b, a = _best(before[key]), _best(after[key])
        cell = spread = ""
        if ratios:
            ratio = statistics.median(ratios)
            cell, spread = f"{ratio:.2f}", f"{ratios[0]:.2f}-{ratios[-1]:.2f}"
            if ratio < TOLERANCE:
                cell = f"**{cell}**"
                flagged.append(f"{family} / {name} / {batch}: {ratio:.2f}")
        elif "seconds" in b:  # measured before, fails after: a regression too
            flagged.append(f"{family} / {name} / {batch}: fails after")
        lines.append(f"| {family} | {name} | {int(batch):,} | {_rate(b)} | {_rate(a)} | {cell} | {spread} |")
    return "\n".join(lines), flagged


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    where = parser.add_mutually_exclusive_group(required=True)
    where.add_argument("--baseline", metavar="REV", help="git revision to compare against")
    where.add_argument("--baseline-tree", metavar="DIR", help="an existing checkout to use as the baseline")
    parser.add_argument("--modules", metavar="FAMILY[,FAMILY]", help=f"families ({', '.join(FAMILIES)})")
    parser.add_argument(
        "--rounds", type=int, help="timings per cell and tree, one per round (default 7, --quick 3)"
    )
    parser.add_argument("--quick", action="store_true", help="shorter streams")
    args = parser.parse_args(argv)
    families = FAMILIES
    if args.modules:
        families = [m.strip() for m in args.modules.split(",") if m.strip()]
        unknown = [f for f in families if f not in FAMILIES]
        if unknown:
            parser.error(f"--modules: unknown family {', '.join(unknown)}; choose from {', '.join(FAMILIES)}")
    rounds = args.rounds or (3 if args.quick else 7)
    sizes = {
        "rows": 200_000 if args.quick else 500_000,
        "small_rows": 256 * (40 if args.quick else 200),
        "min_time": 0.02 if args.quick else 0.05,
    }
    head = _git("rev-parse", "--short", "HEAD")
    dirty = " + uncommitted changes" if _git("status", "--porcelain", "--untracked-files=no") else ""

    def report(tree: Path, label: str) -> None:
        before, after, compiled = compare(tree, ROOT, families, rounds, sizes)
        text, flagged = table(before, after)
        print(f"## Batch throughput: {label} (before) vs {head}{dirty} (after)\n")
        for side, parts in compiled.items():
            running = ", ".join(name for name, used in parts.items() if used) or "none"
            print(f"Compiled parts {side}: {running}.")
        print()
        print(
            f"Each tree timed {rounds} times per cell (one per round), the two alternating cell "
            f"by cell; a timing repeats the stream until it lasts {sizes['min_time']} s of CPU "
            "time (one thread: wall time on a shared machine also counts the others' turns) and "
            "covers a new metric fed every batch plus one final compute(). *before* and *after*: "
            "the best rows per second; *after/before*: the median over rounds of the throughput "
            "ratio of the two timings of a round (taken a moment apart, so a slow spell of the "
            "machine hits both), > 1: the working tree is faster; *rounds' range*: the lowest "
            f"and highest of those ratios (the noise). after/before < {TOLERANCE} in bold.\n"
        )
        print(text)
        verdict = "every cell within 5%" if not flagged else "below 0.95: " + "; ".join(flagged)
        print(f"\n{verdict}")

    if args.baseline_tree:
        report(Path(args.baseline_tree).resolve(), args.baseline_tree)
    else:
        with baseline_tree(args.baseline) as (tree, sha):
            report(tree, f"{args.baseline} ({sha[:7]})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
