"""Run the conformance suite, print the outcome table and a fresh expectations list.

    python -m tests.conformance.report                 # table; fresh list in expected.new.toml
    python -m tests.conformance.report --write         # ... and replace expected.toml with it
    python -m tests.conformance.report --from rec.jsonl  # no run: read outcomes recorded before

A test already listed keeps its category and reason when it still fails the same way; a new
failure gets a category from its kind (``unreviewed`` for wrong values and refusals, which a person
must read and file as a bug with its issue, a deliberate difference, or a convention). Review the
diff of expected.toml before committing it: the suite fails on ``unreviewed`` entries.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from tests.conformance.conftest import EXPECTED_FILE, load_expected

HERE = Path(__file__).parent

#: Keywords issue 15 asks streammetrics to grow (the other helpers' branches): "missing" for now.
PLANNED = (
    "normalize=",
    "samplewise=",
    "average='samples'",
    "target_names=",
    "replace_undefined_by=",
    "metric='manhattan'",
    "metric='cosine'",
)

CATEGORY_OF_KIND = {
    "message": "message-wording",
    "warning-message": "message-wording",
}

DESCRIPTION = {
    "message-wording": "the same exception or warning class, other text than scikit-learn's match=",
    "missing-feature": "a keyword issue 15 adds (other branches); counted until they merge",
    "out-of-scope": "a keyword or input kind streammetrics does not take, by design",
    "deliberate": "a value that differs on purpose (docs: deliberate differences)",
    "convention": "a different but documented convention (exception type, warning, accepted input)",
    "bug": "a wrong value or refusal: a bug, with its issue",
    "rounding": "a last-bit floating-point difference under the test's exact ==",
    "unreviewed": "not yet read by a person: the suite fails until it is filed",
}


def run_suite(record: Path, pytest_args: list[str]) -> int:
    env = {
        **os.environ,
        "STREAMMETRICS_CONFORMANCE_RECORD": str(record),
        "STREAMMETRICS_CONFORMANCE_ALL": "1",
    }
    files = sorted(str(p) for p in HERE.glob("test_sklearn_*.py"))
    cmd = [
        sys.executable,
        "-m",
        "pytest",
        *files,
        "-q",
        "-p",
        "no:randomly",
        "--no-header",
        "-rN",
        *pytest_args,
    ]
    cmd += ["-W", "ignore::pytest.PytestRemovedIn10Warning"]
    return subprocess.run(cmd, env=env, check=False, stdout=subprocess.DEVNULL).returncode


def auto_category(kind: str, detail: str) -> str:
    if kind in CATEGORY_OF_KIND:
        return CATEGORY_OF_KIND[kind]
    if kind == "unsupported":
        return "missing-feature" if any(p in detail for p in PLANNED) else "out-of-scope"
    return "unreviewed"


def fresh_expectations(rows: list[dict], old: dict[str, dict[str, str]]) -> dict[str, dict[str, dict]]:
    """Category -> test -> {kind, reason}, for every test that reached streammetrics and failed."""
    out: dict[str, dict[str, dict]] = collections.defaultdict(dict)
    for row in rows:
        if row["kind"] in ("pass", "skipped"):
            continue
        before = old.get(row["test"])
        if before is not None and before["kind"] == row["kind"] and before["category"] != "unreviewed":
            out[before["category"]][row["test"]] = {"kind": row["kind"], "reason": before["reason"]}
        else:
            category = auto_category(row["kind"], row["detail"])
            out[category][row["test"]] = {"kind": row["kind"], "reason": row["detail"]}
    return out


def not_covering(rows: list[dict]) -> list[str]:
    """Tests that passed without calling a covered function, and those scikit-learn skips here."""
    return sorted(
        r["test"] for r in rows if r["kind"] == "skipped" or (r["kind"] == "pass" and r["calls"] == 0)
    )


def _q(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)  # a JSON string is a valid TOML basic string


def to_toml(expected: dict[str, dict[str, dict]], skipped: list[str]) -> str:
    lines = [
        "# scikit-learn tests expected to differ from streammetrics, by category (see conftest.py).",
        "# Regenerate with `python -m tests.conformance.report` and review the diff.",
        "",
    ]
    for category in sorted(expected):
        lines.append(f"# {category}: {DESCRIPTION.get(category, '')}")
        lines.append(f"[expected.{_q(category)}]")
        for test in sorted(expected[category]):
            entry = expected[category][test]
            lines.append(f"{_q(test)} = {{ kind = {_q(entry['kind'])}, reason = {_q(entry['reason'])} }}")
        lines.append("")
    lines.append("# Tests that call no covered function, or that scikit-learn skips here: deselected.")
    lines.append("[not_covering]")
    lines.append("tests = [")
    lines.extend(f"  {_q(test)}," for test in skipped)
    lines.append("]")
    lines.append("")
    return "\n".join(lines)


def table(rows: list[dict], expected: dict[str, dict[str, dict]]) -> str:
    category_of = {t: c for c, tests in expected.items() for t in tests}
    per: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    for row in rows:
        module = row["test"].split("::")[0]
        for key in (module, "all"):
            c = per[key]
            c["collected"] += 1
            if row["kind"] == "skipped":
                c["skipped by scikit-learn"] += 1
            elif row["calls"] == 0 and row["kind"] == "pass":
                c["pass, no covered call"] += 1
            else:
                c["reach streammetrics"] += 1
                c["pass" if row["kind"] == "pass" else category_of.get(row["test"], "unreviewed")] += 1
    columns = [
        "collected",
        "skipped by scikit-learn",
        "pass, no covered call",
        "reach streammetrics",
        "pass",
        *sorted(DESCRIPTION),
    ]
    columns = [c for c in columns if any(per[m][c] for m in per)]
    lines = ["| module | " + " | ".join(columns) + " |", "|---" * (len(columns) + 1) + "|"]
    for module in [*sorted(m for m in per if m != "all"), "all"]:
        lines.append(f"| {module} | " + " | ".join(str(per[module][c]) for c in columns) + " |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--write", action="store_true", help="replace expected.toml with the fresh list")
    parser.add_argument("--from", dest="source", type=Path, help="outcomes recorded before (JSON lines)")
    parser.add_argument("--keep", type=Path, help="also keep the recorded outcomes in this file")
    args, pytest_args = parser.parse_known_args(argv)
    if args.source is None:
        with tempfile.TemporaryDirectory() as tmp:
            record = Path(tmp) / "outcomes.jsonl"
            run_suite(record, pytest_args)
            text = record.read_text(encoding="utf-8")
    else:
        text = args.source.read_text(encoding="utf-8")
    if args.keep:
        args.keep.write_text(text, encoding="utf-8")
    rows = [json.loads(line) for line in text.splitlines() if line.strip()]
    expected = fresh_expectations(rows, load_expected())
    print(table(rows, expected))
    print()
    for category in sorted(expected):
        print(f"{category}: {len(expected[category])}  ({DESCRIPTION.get(category, '')})")
    target = EXPECTED_FILE if args.write else EXPECTED_FILE.with_suffix(".new.toml")
    target.write_text(to_toml(expected, not_covering(rows)), encoding="utf-8")
    print(f"\nexpectations written to {target}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
