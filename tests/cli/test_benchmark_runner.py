"""``benchmarks/run.py`` runs a benchmark module and writes the report (no timing asserted)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_run_quick_only_classification_writes_a_report(tmp_path):
    output = tmp_path / "report.md"
    out = subprocess.run(
        [
            sys.executable,
            str(ROOT / "benchmarks" / "run.py"),
            "--quick",
            "--only",
            "classification",
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
    assert "- machine: " in text and "scikit-learn" in text
    assert "## classification" in text and "| implementation |" in text and "**failed**" not in text


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
