"""The conformance suite: scikit-learn's own metric tests, run against streammetrics.

Every test of the ``test_sklearn_*.py`` modules is one of scikit-learn's, with the covered
functions replaced by :mod:`tests.conformance.shim`. Each outcome is compared with
``expected.toml``:

- a test not listed there must pass;
- a listed test must fail the way it is listed (its *kind*: an error message's wording, a keyword
  streammetrics lacks, a different value, ...); it is then reported as xfailed with its reason;
- a listed test that passes, or fails another way, fails: the list is out of date (regenerate it
  with ``python -m tests.conformance.report`` and review the diff).

Tests that never call a covered function (they test scikit-learn's other parts) and tests
scikit-learn itself skips here are listed under ``not_covering`` and deselected, which keeps the
suite fast; ``STREAMMETRICS_CONFORMANCE_ALL=1`` runs them too (the report does).
``STREAMMETRICS_CONFORMANCE_RECORD=path`` writes every outcome as JSON lines (the report reads it).
"""

from __future__ import annotations

import json
import os
import random
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import tomllib

from tests.conformance.loader import patched
from tests.conformance.outcomes import classify
from tests.conformance.shim import CALLS

HERE = Path(__file__).parent
EXPECTED_FILE = HERE / "expected.toml"


def _read(path: Path) -> dict[str, Any]:
    if not path.exists():
        return {}
    with path.open("rb") as f:
        return tomllib.load(f)


def load_not_covering(path: Path = EXPECTED_FILE) -> set[str]:
    """Ids of the tests that reach no covered function (deselected unless asked for)."""
    return set(_read(path).get("not_covering", {}).get("tests", []))


def load_expected(path: Path = EXPECTED_FILE) -> dict[str, dict[str, str]]:
    """Test id -> {"category", "kind", "reason"} from the expectations file."""
    data = _read(path)
    return {
        test: {"category": category, **entry}
        for category, tests in data.get("expected", {}).items()
        for test, entry in tests.items()
    }


EXPECTED = load_expected()
NOT_COVERING = load_not_covering()
RUN_ALL = os.environ.get("STREAMMETRICS_CONFORMANCE_ALL") == "1"


def _from_sklearn(item: pytest.Item) -> bool:
    return item.nodeid.split("::")[0].rsplit("/", 1)[-1].startswith("test_sklearn_")


def test_id(item: pytest.Item) -> str:
    """The id of one of scikit-learn's tests: its module's name and the test's name."""
    module = item.nodeid.split("::")[0].rsplit("/", 1)[-1]
    return f"{module.removeprefix('test_sklearn_')}::{item.name}"


# scikit-learn's global fixtures (its conftest is not ours): float64 only and seed 42, its defaults.
@pytest.fixture(params=[np.float64])
def global_dtype(request: pytest.FixtureRequest) -> Any:
    return request.param


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "global_random_seed" in metafunc.fixturenames:
        metafunc.parametrize("global_random_seed", [42])


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if RUN_ALL:
        return
    keep, drop = [], []
    for item in items:
        (drop if _from_sklearn(item) and test_id(item) in NOT_COVERING else keep).append(item)
    if drop:
        config.hook.pytest_deselected(items=drop)
        items[:] = keep


@pytest.fixture(autouse=True)
def _shims_in_sklearn_metrics(request: pytest.FixtureRequest) -> Any:
    """scikit-learn's tests that reach through ``sklearn.metrics`` at run time get the shims too."""
    if not _from_sklearn(request.node):
        yield
        return
    # Some of scikit-learn's tests draw from the global generators unseeded: seed them, so that an
    # outcome does not depend on which tests ran before (the report runs more than the suite).
    random.seed(0)
    np.random.seed(0)  # noqa: NPY002 (the global generator is what those tests use)
    with patched():
        yield


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Any:
    before = CALLS["n"]
    yield
    item.stash[_CALLS] = CALLS["n"] - before


_CALLS = pytest.StashKey[int]()
_RECORD = os.environ.get("STREAMMETRICS_CONFORMANCE_RECORD")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Any:
    outcome = yield
    rep = outcome.get_result()
    if not _from_sklearn(item):
        return
    if (rep.when == "setup" and rep.passed) or (rep.when == "teardown" and rep.passed):
        return
    if rep.skipped and not hasattr(rep, "wasxfail"):  # skipped by scikit-learn's own conditions
        _record(item, "skipped", "", "", rep.duration)
        return
    name = test_id(item)
    kind, detail = ("pass", "") if rep.passed else classify(call.excinfo)
    _record(item, kind, detail, rep.when, rep.duration)
    expected = EXPECTED.get(name)
    if expected is None:
        if not rep.passed:
            rep.longrepr = (
                f"[conformance] {name} disagrees ({kind}: {detail}); not in expected.toml\n{rep.longrepr}"
            )
        return
    if rep.passed:
        rep.outcome = "failed"
        rep.longrepr = f"[conformance] {name} now agrees with scikit-learn: remove it from expected.toml"
    elif expected["category"] == "unreviewed":
        rep.longrepr = (
            f"[conformance] {name}: review its entry in expected.toml ({kind}: {detail})\n{rep.longrepr}"
        )
    elif kind == expected["kind"]:
        rep.outcome = "skipped"
        rep.wasxfail = f"{expected['category']}: {expected['reason']}"
    else:
        rep.longrepr = (
            f"[conformance] {name} is listed as {expected['kind']!r} but fails as {kind!r} "
            f"({detail}); update expected.toml\n{rep.longrepr}"
        )


def _record(item: pytest.Item, kind: str, detail: str, when: str, duration: float) -> None:
    if not _RECORD:
        return
    with open(_RECORD, "a", encoding="utf-8") as f:
        row = {"test": test_id(item), "kind": kind, "detail": detail, "when": when}
        row["calls"] = item.stash.get(_CALLS, 0)
        row["seconds"] = round(duration, 4)
        f.write(json.dumps(row) + "\n")
