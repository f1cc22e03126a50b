"""The documentation site builds without warnings, and the code passes the linter."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _tool(name: str) -> str:
    path = Path(sys.executable).parent / name
    found = str(path) if path.exists() else shutil.which(name)
    if found is None:
        pytest.fail(f"{name} is not installed: install the [dev] extra")
    return found


def test_docs_build_strict(tmp_path):
    result = subprocess.run(
        [_tool("mkdocs"), "build", "--strict", "--site-dir", str(tmp_path / "site")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env={"NO_MKDOCS_2_WARNING": "1", "PATH": "/usr/bin:/bin"},
    )
    assert result.returncode == 0, result.stderr[-4000:]
    assert (tmp_path / "site" / "index.html").exists()


def test_ruff_lint_clean():
    result = subprocess.run(
        [_tool("ruff"), "check", "streammetrics", "tests", "benchmarks", "examples"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stdout[-4000:]
