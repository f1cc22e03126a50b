"""The Python code blocks of the docs pages and the README run as tests.

Each page is one test: its ```python blocks run in order in one namespace, in a fresh working
directory, as a reader would paste them. A block that is not meant to run (a shell session, a
sketch) is fenced as something else (``text``, ``console``), never skipped. A block that imports
an optional engine runs whenever that engine is installed; it is skipped only where the engine is
missing outside CI (on CI, where every engine is installed, a missing one fails).
"""

from __future__ import annotations

import importlib.util
import os
import re
import textwrap
from pathlib import Path

import pytest

from streammetrics._core import registry

ROOT = Path(__file__).resolve().parents[1]
PAGES = sorted([ROOT / "README.md", *(ROOT / "docs").rglob("*.md")])
# A fenced block, possibly indented (inside a list item or an admonition).
FENCE = re.compile(
    r"^(?P<indent>[ \t]*)```(?P<lang>[\w+-]*)[^\n]*\n(?P<body>.*?)^(?P=indent)```[ \t]*$", re.M | re.S
)
# Optional dependencies a block may import, with the CI's promise about them: the engines are
# installed on CI (a missing one is an error there); torch only where a local CPU wheel exists,
# and the frameworks built on it (Lightning, Transformers, Keras on its torch backend) with it.
OPTIONAL = {
    "dask": True,
    "pyspark": True,
    "apache_beam": True,
    "river": True,
    "tensorboard": True,
    "mlflow": True,
    "torch": False,
    "lightning": False,
    "transformers": False,
    "keras": False,
}
IMPORT = re.compile(r"^\s*(?:from|import)\s+([\w]+)", re.M)


def python_blocks(page: Path) -> list[str]:
    """The ```python blocks of ``page``, dedented, in order."""
    return [textwrap.dedent(m["body"]) for m in FENCE.finditer(page.read_text()) if m["lang"] == "python"]


# What a block importing one of streammetrics' integrations needs besides.
INTEGRATION = re.compile(r"^\s*from\s+streammetrics\.integrations\.(\w+)", re.M)
NEEDS = {
    "loggers": ["tensorboard"],
    "lightning": ["torch", "lightning"],
    "transformers": ["torch", "transformers"],
}


def _needs_missing(block: str) -> str | None:
    needed = [m for name in INTEGRATION.findall(block) for m in NEEDS.get(name, [])]
    for module in [*needed, *IMPORT.findall(block)]:
        if module in OPTIONAL and importlib.util.find_spec(module) is None:
            if OPTIONAL[module] and os.environ.get("CI") == "true":
                pytest.fail(f"{module} is not installed, and CI promises it")
            return module
    return None


def _name(page: Path) -> str:
    return str(page.relative_to(ROOT))


def test_fences_are_tagged():
    """Every block says its language, so that no Python block escapes the run below."""
    untagged = [_name(p) for p in PAGES for m in FENCE.finditer(p.read_text()) if not m["lang"]]
    assert not untagged, untagged
    aliases = [
        (_name(p), m["lang"])
        for p in PAGES
        for m in FENCE.finditer(p.read_text())
        if m["lang"] in ("py", "python3")
    ]
    assert not aliases, f"write these blocks as ```python so that they run: {aliases}"


def _pages_with_code() -> list:
    """The pages with Python blocks; those importing an engine are marked ``engine``."""
    params = []
    for page in PAGES:
        blocks = python_blocks(page)
        if blocks:
            engine = any(m in OPTIONAL for b in blocks for m in IMPORT.findall(b))
            params.append(pytest.param(page, id=_name(page), marks=[pytest.mark.engine] if engine else []))
    return params


@pytest.mark.parametrize("page", _pages_with_code())
def test_page_code_runs(page, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("MPLBACKEND", "Agg")
    # Classes a page defines (adding-a-metric) register their names: keep them out of other tests.
    monkeypatch.setattr(registry, "_REGISTRY", dict(registry._REGISTRY))
    namespace = {"__name__": "__docs__"}
    for i, block in enumerate(python_blocks(page), 1):
        missing = _needs_missing(block)
        if missing is not None:
            pytest.skip(f"block {i} needs {missing}, which is not installed")
        exec(compile(block, f"{_name(page)} (block {i})", "exec"), namespace)
