"""The README's set-up commands are the CI's (its Python blocks run in test_docs_examples.py)."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _blocks(lang: str) -> list[str]:
    text = (ROOT / "README.md").read_text()
    return re.findall(rf"```{lang}\n(.*?)```", text, flags=re.S)


def test_ci_runs_the_readme_test_command():
    commands = [line.strip() for block in _blocks("bash") for line in block.splitlines() if line.strip()]
    test_command = next(c for c in commands if "pytest" in c)
    assert test_command in (ROOT / ".ci" / "run").read_text()
