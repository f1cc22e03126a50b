"""``benchmarks/run.py`` runs a benchmark module and writes the report (no timing asserted)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_run_quick_only_one_module_writes_a_report(tmp_path):
    """The runner's report (header, peers' versions, one section); the quickest module keeps it cheap."""
    output = tmp_path / "report.md"
    out = subprocess.run(
        [
            sys.executable,
            str(ROOT / "benchmarks" / "run.py"),
            "--quick",
            "--only",
            "streaming",
            "--output",
            str(output),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert out.returncode == 0, out.stderr
    text = output.read_text()
    assert text.startswith("# Benchmark report")
    assert "- machine: " in text and "scikit-learn" in text and "river" in text
    assert "## streaming" in text and "| metric | river |" in text and "**failed**" not in text


def test_unknown_name_is_refused(tmp_path):
    out = subprocess.run(
        [
            sys.executable,
            str(ROOT / "benchmarks" / "run.py"),
            "--only",
            "nope",
            "--output",
            str(tmp_path / "r.md"),
        ],
        capture_output=True,
        text=True,
    )
    assert out.returncode == 2 and "unknown benchmark nope" in out.stderr


def test_run_quick_rows_and_mixed_collection_write_their_sections(tmp_path):
    output = tmp_path / "report.md"
    out = subprocess.run(
        [
            sys.executable,
            str(ROOT / "benchmarks" / "run.py"),
            "--quick",
            "--only",
            "rows,collection_mixed",
            "--output",
            str(output),
        ],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert out.returncode == 0, out.stderr
    text = output.read_text()
    assert "**failed**" not in text
    assert "## rows" in text and "| ROCAUC |" in text and "| CalibrationError |" in text
    # the second table: every exported metric, the configured wrappers, the three-label McNemar
    assert (
        "| McNemar | (y, a, b)" in text
        and "| Bootstrap(ROCAUC()) |" in text
        and "| Bootstrap | not built" in text
    )
    assert "## collection_mixed" in text and "| binary | 256 |" in text and "| multiclass | 100,000 |" in text


def _baseline_worktrees() -> set[str]:
    """The temporary checkouts compare.py makes (others' worktrees are none of this test's)."""
    out = subprocess.run(["git", "worktree", "list"], cwd=ROOT, capture_output=True, text=True, check=True)
    return {line for line in out.stdout.splitlines() if "streammetrics-baseline-" in line}


def test_compare_times_both_trees_and_removes_its_worktree():
    before = _baseline_worktrees()
    out = subprocess.run(
        [
            sys.executable,
            str(ROOT / "benchmarks" / "compare.py"),
            "--baseline",
            "HEAD",
            "--modules",
            "regression",
            "--quick",
            "--rounds",
            "1",
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert out.returncode == 0, out.stderr
    assert "| family | case | batch | before | after | after/before |" in out.stdout
    rows = [line for line in out.stdout.splitlines() if line.startswith("| regression |")]
    assert len(rows) == 6 and not any("error" in row for row in rows)
    assert _baseline_worktrees() <= before  # the temporary baseline checkout is gone


def test_compare_refuses_an_unknown_family():
    out = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "compare.py"), "--baseline", "HEAD", "--modules", "nope"],
        capture_output=True,
        text=True,
    )
    assert out.returncode == 2 and "unknown family nope" in out.stderr
