"""The documentation site builds without warnings, its API pages render, and the code passes the linter."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import streammetrics as sm

ROOT = Path(__file__).resolve().parents[1]
# A Sphinx role left as text: ":class:`X`" in a docstring renders as ":class:<code>X</code>".
RAW_ROLE = re.compile(r":(?:py:)?(?:class|meth|func|mod|data|attr|exc|obj|const):(?:`|<code>)")
# An optional cross-reference autorefs could not resolve renders as a titled span.
UNRESOLVED = re.compile(r'<span title="(streammetrics\.[\w.]+)"')
# Base and internal classes that belong on the "Extending streammetrics" page only.
INTERNAL = ("RateMetric", "ConfusionMetric", "RegressionMetric", "RankingMetric", "RowBuffer", "OneRowMixin")


def _tool(name: str) -> str:
    path = Path(sys.executable).parent / name
    found = str(path) if path.exists() else shutil.which(name)
    if found is None:
        pytest.fail(f"{name} is not installed: install the [dev] extra")
    return found


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    """The site, built once for every test of this module (``mkdocs build --strict``)."""
    site_dir = tmp_path_factory.mktemp("docs") / "site"
    result = subprocess.run(
        [_tool("mkdocs"), "build", "--strict", "--site-dir", str(site_dir)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env={"NO_MKDOCS_2_WARNING": "1", "PATH": "/usr/bin:/bin"},
    )
    assert result.returncode == 0, result.stderr[-4000:]
    return site_dir


def _api_pages(site: Path) -> dict[str, str]:
    pages = {p.parent.name: p.read_text() for p in sorted((site / "api").glob("*/index.html"))}
    assert len(pages) >= 8, sorted(pages)
    return pages


def _public_paths() -> set[str]:
    """Canonical dotted paths of the exported names and of their public members."""
    paths = set()
    for name in sm.__all__:
        obj = getattr(sm, name)
        if not hasattr(obj, "__qualname__"):
            continue
        canonical = f"{obj.__module__}.{obj.__qualname__}"
        paths.add(canonical)
        paths.update(f"{canonical}.{member}" for member in vars(obj) if not member.startswith("_"))
    return paths


def test_docs_build_strict(site):
    assert (site / "index.html").exists()


def test_api_pages_have_no_raw_sphinx_roles(site):
    found = {page: RAW_ROLE.findall(html) for page, html in _api_pages(site).items()}
    assert not any(found.values()), {page: len(roles) for page, roles in found.items() if roles}


def test_api_cross_references_resolve_for_public_objects(site):
    pages = _api_pages(site)
    public = _public_paths()
    unresolved = {ref for html in pages.values() for ref in UNRESOLVED.findall(html)}
    assert not unresolved & public, sorted(unresolved & public)
    # The roles became links: ":class:`~streammetrics.InputError`" in the metrics' docstrings.
    linked = [page for page, html in pages.items() if 'href="../core/#streammetrics.InputError"' in html]
    assert len(linked) >= 3, linked


def test_every_public_name_has_one_api_entry_and_internals_stay_off_user_pages(site):
    pages = _api_pages(site)
    anchors = {page: set(re.findall(r'id="(streammetrics\.[\w.]+)"', html)) for page, html in pages.items()}
    for name in sm.__all__:
        holders = [page for page, ids in anchors.items() if f"streammetrics.{name}" in ids]
        assert len(holders) == 1, (name, holders)
    for page, ids in anchors.items():
        if page != "extending":
            leaked = {i for i in ids if i.rsplit(".", 1)[-1] in INTERNAL}
            assert not leaked, (page, leaked)
    # The metrics' constructors are rendered with their signature.
    assert 'id="streammetrics.ROCAUC"' in pages["ranking"]
    assert "doc-signature" in pages["ranking"]


def test_ruff_lint_clean():
    result = subprocess.run(
        [_tool("ruff"), "check", "streammetrics", "tests", "benchmarks", "examples"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stdout[-4000:]


def test_no_docs_page_is_out_of_proportion():
    """Pages are prose and tables, the largest about 130 KB: none reaches 1 MB. (An edit once
    replaced an empty slice of a page, inserting its text between every character: 1.1M lines,
    which the strict build and every other test took without a word.)"""
    sizes = {str(p.relative_to(ROOT)): p.stat().st_size for p in (ROOT / "docs").rglob("*.md")}
    assert sizes, "no docs pages found"
    too_large = {page: size for page, size in sizes.items() if size >= 1_000_000}
    assert not too_large, f"docs pages of 1 MB or more: {too_large}"
