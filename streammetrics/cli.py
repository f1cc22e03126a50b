"""The ``streammetrics`` command line (also ``python -m streammetrics``).

Subcommands::

    streammetrics evaluate PATH --task TASK [--y-true COL] [--y-pred COL] [--y-score COL]
                  [--weight COL] [--by COL] [--metrics a,b] [--chunksize N] [--json]
                  [--plot DIR] [--save-state FILE] [--format F] [--threshold T] [--pos-label L]
                  [--labels A,B] [--input probability|score] [--no-progress]
    streammetrics demo [--plot DIR] [--rows N] [--json]
    streammetrics merge STATE_FILE... [--json] [--save-state FILE]
    streammetrics show STATE_FILE [--json]

Each subcommand is a function ``add_<name>(subparsers)`` that declares its arguments and sets
``handler``; a new subcommand is one more such function listed in :data:`SUBCOMMANDS`. User
errors (a missing or corrupt file, states that cannot be merged) print one line naming the
problem on stderr and exit with status 2, without a traceback.

Examples:
    >>> import streammetrics as sm, tempfile, os
    >>> from streammetrics.cli import main
    >>> d = tempfile.mkdtemp()
    >>> sm.Accuracy().update([0, 1], [0, 1]).save(os.path.join(d, "a.state"))
    >>> sm.Accuracy().update([1, 1], [0, 1]).save(os.path.join(d, "b.state"))
    >>> main(["merge", os.path.join(d, "a.state"), os.path.join(d, "b.state")])
    Accuracy  n_samples=4  files=2
    value: 0.75
    0
"""

from __future__ import annotations

import argparse
import dataclasses
import io
import json
import math
import sys
import warnings
from collections.abc import Callable, Sequence
from typing import Any, NoReturn

import numpy as np

from . import __version__
from ._core import serialization
from ._core.registry import from_state_dict
from .errors import MergeError, StateError

__all__ = ["main", "build_parser", "UsageError", "jsonable"]

PROG = "streammetrics"


class UsageError(Exception):
    """A user error: printed as one line ``streammetrics: error: <message>``, exit status 2."""


class _Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line (no usage dump) and exit status 2."""

    def error(self, message: str) -> NoReturn:
        command = self.prog.split()[-1] if " " in self.prog else ""
        raise UsageError(f"{command}: {message}" if command else message)


# --------------------------------------------------------------------------- helpers
def jsonable(value: Any) -> Any:
    """Plain JSON data for a metric value: arrays become lists, NaN/inf become ``null``.

    Examples:
        >>> import numpy as np
        >>> from streammetrics.cli import jsonable
        >>> jsonable({"a": np.array([1.0, np.nan]), "b": np.int64(3)})
        {'a': [1.0, None], 'b': 3}
    """
    if hasattr(value, "to_dict") and callable(value.to_dict):
        return jsonable(value.to_dict())
    if hasattr(value, "_asdict"):
        return jsonable(value._asdict())
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return jsonable(dataclasses.asdict(value))
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, np.ndarray):
        return jsonable(value.tolist())
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    if isinstance(value, np.generic):
        return jsonable(value.item())
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def _read_state(path: str) -> tuple[Any, dict[str, Any]]:
    """Load one state file; returns the accumulator and facts about the file."""
    try:
        data = serialization.read_file(path)  # capped: `show /dev/zero` ends at once
    except OSError as err:
        raise UsageError(f"cannot read {path!r}: {err.strerror or err}") from None
    except StateError as err:
        raise UsageError(f"{path}: {err}") from None
    try:
        header = serialization.read_header(data)
        acc = from_state_dict(serialization.decode(data))
    except StateError as err:
        raise UsageError(f"{path}: {err}") from None
    return acc, {"path": path, "bytes": len(data), "format_version": header.format_version}


def _value(acc: Any) -> tuple[Any, list[str]]:
    """``acc.compute()``, with warnings collected as one-line strings."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        value = acc.compute()
    return value, [f"{w.category.__name__}: {w.message}" for w in caught]


def _config(acc: Any) -> dict[str, Any]:
    return acc.get_config() if hasattr(acc, "get_config") else {}


def _type(acc: Any) -> str:
    return acc.type_name() if hasattr(acc, "type_name") else type(acc).__name__


def _text_value(value: Any) -> str:
    if isinstance(value, dict):
        return "\n".join(f"  {k}: {v}" for k, v in _compact(value).items())
    if isinstance(value, (float, int, np.generic)) or value is None:
        return repr(jsonable(value)) if value is not None else "None"
    if isinstance(value, np.ndarray):
        return np.array2string(value, precision=6, separator=", ")
    return str(value)


def _compact(value: dict[str, Any]) -> dict[str, str]:
    """A flat ``{name: value}`` dict for reading: ``name/0``, ``name/1``... become one line."""
    groups: dict[str, list[Any]] = {}
    for key, v in value.items():
        head, _, tail = str(key).rpartition("/")
        groups.setdefault(head if head and tail.isdigit() else str(key), []).append(v)
    out = {}
    for key, vs in groups.items():
        if len(vs) == 1:
            out[key] = _text_value(vs[0])
        elif len(vs) <= 6:
            out[key] = repr([jsonable(v) for v in vs])
        else:
            ends = ", ".join(repr(jsonable(v)) for v in vs[:2]) + ", ..., " + repr(jsonable(vs[-1]))
            out[key] = f"{len(vs)} values [{ends}]"
    return out


def _report(acc: Any, extra: dict[str, Any], as_json: bool, out: Any) -> None:
    value, warned = _value(acc)
    if as_json:
        doc = {
            "type": _type(acc),
            "config": jsonable(_config(acc)),
            "n_samples": int(acc.n_samples),
            "value": jsonable(value),
            **extra,
            "warnings": warned,
        }
        print(json.dumps(doc, allow_nan=False), file=out)
        return
    facts = "  ".join(f"{k}={v}" for k, v in extra.items() if not isinstance(v, (list, dict)))
    print(f"{_type(acc)}  n_samples={acc.n_samples}" + (f"  {facts}" if facts else ""), file=out)
    text = _text_value(value)
    print(("value:\n" + text) if "\n" in text else f"value: {text}", file=out)
    for line in warned:
        print(f"warning: {line}", file=sys.stderr)


# --------------------------------------------------------------------------- merge
def add_merge(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "merge",
        help="merge saved states of one metric and print the result",
        description="Merge state files saved with Metric.save (e.g. one per worker or shard) and "
        "print the merged metric's value.",
    )
    p.add_argument("state_files", nargs="+", metavar="STATE_FILE", help="files written by Metric.save")
    p.add_argument("--json", action="store_true", help="print one JSON object instead of text")
    p.add_argument("--save-state", metavar="FILE", help="also save the merged state to FILE")
    p.set_defaults(handler=run_merge)


def run_merge(args: argparse.Namespace, out: Any) -> int:
    merged, first = None, None
    for path in args.state_files:
        acc, _ = _read_state(path)
        if merged is None:
            merged, first = acc, path
            continue
        try:
            merged.merge(acc)
        except MergeError as err:
            raise UsageError(f"cannot merge {path} into {first}: {err}") from None
    assert merged is not None
    if args.save_state:
        try:
            merged.save(args.save_state)
        except OSError as err:
            raise UsageError(f"cannot write {args.save_state!r}: {err.strerror or err}") from None
    _report(merged, {"files": len(args.state_files)}, args.json, out)
    return 0


# --------------------------------------------------------------------------- show
def add_show(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "show",
        help="describe one saved state and print its value",
        description="Check a state file (magic, version, checksum) and print what it holds.",
    )
    p.add_argument("state_file", metavar="STATE_FILE", help="a file written by Metric.save")
    p.add_argument("--json", action="store_true", help="print one JSON object instead of text")
    p.set_defaults(handler=run_show)


def run_show(args: argparse.Namespace, out: Any) -> int:
    acc, facts = _read_state(args.state_file)
    if args.json:
        _report(acc, {"file": facts}, True, out)
        return 0
    print(
        f"file: {facts['path']} ({facts['bytes']} bytes, format version {facts['format_version']}, "
        "checksum ok)",
        file=out,
    )
    config = ", ".join(f"{k}={v!r}" for k, v in _config(acc).items())
    print(f"type: {_type(acc)}({config})", file=out)
    _report(acc, {}, False, out)
    return 0


# --------------------------------------------------------------------------- evaluate
def add_evaluate(subparsers: Any) -> None:
    from ._cli.evaluate import TASKS

    p = subparsers.add_parser(
        "evaluate",
        help="evaluate predictions stored in a CSV, Parquet or JSON-lines file",
        description="Read a table of predictions in chunks (never the whole file at once), update the "
        "metrics of the task on each chunk and print a report. Column options take one name, a "
        "comma-separated list, or a prefix ending in '*' (multilabel indicators, multiclass scores).",
    )
    p.add_argument(
        "path", metavar="PATH", help="a .csv/.tsv/.parquet/.jsonl file (may be compressed); - reads stdin"
    )
    p.add_argument("--task", required=True, choices=TASKS, help="what the columns hold")
    p.add_argument(
        "--y-true", metavar="COL", default="y_true", help="true labels or values (default: y_true)"
    )
    p.add_argument("--y-pred", metavar="COL", help="predicted labels or values (default: y_pred if present)")
    p.add_argument(
        "--y-score",
        metavar="COL",
        help="scores: the positive-class probability (binary), one probability column per class "
        "(multiclass, e.g. 'p_*'), one score per label (multilabel) (default: y_score if present)",
    )
    p.add_argument("--weight", metavar="COL", help="sample weights")
    p.add_argument("--by", metavar="COL", help="also report the metrics for each value of COL")
    p.add_argument(
        "--metrics", metavar="a,b,c", help="metric names (case-insensitive), default: the task's set"
    )
    p.add_argument(
        "--chunksize",
        metavar="N",
        type=_positive_int,
        default=100_000,
        help="rows per chunk (default 100000)",
    )
    p.add_argument(
        "--format",
        choices=("csv", "tsv", "parquet", "jsonl"),
        help="the file format (default: from the name)",
    )
    p.add_argument(
        "--threshold",
        type=_finite_float,
        help="binary, multilabel: predict positive when score >= T (used without --y-pred; default "
        "0.5 for probabilities, 0 for --input score)",
    )
    p.add_argument(
        "--pos-label",
        metavar="L",
        help="binary: the positive label, whose probability --y-score holds (default: the last of "
        "--labels, else 1)",
    )
    p.add_argument(
        "--labels",
        metavar="A,B,...",
        help="binary: the two classes NEGATIVE,POSITIVE (needed to threshold scores when the labels "
        "are not 0/1; write --labels=-1,1 for a leading minus); multiclass: the class of each "
        "--y-score column, in order (default: from the column names)",
    )
    p.add_argument(
        "--input",
        choices=("probability", "score"),
        default="probability",
        help="what --y-score holds: probabilities in [0, 1] (default) or any real scores such as "
        "logits (log loss, Brier and calibration then apply a sigmoid or softmax)",
    )
    p.add_argument("--json", action="store_true", help="print one JSON object on stdout instead of text")
    p.add_argument(
        "--plot", metavar="DIR", help="write ROC, PR, calibration and confusion-matrix PNGs to DIR"
    )
    p.add_argument("--save-state", metavar="FILE", help="save all metrics (one MetricCollection) to FILE")
    p.add_argument(
        "--no-progress", action="store_true", help="no progress bar (it is off when stderr is not a terminal)"
    )
    p.set_defaults(handler=run_evaluate)


def _finite_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, found {text!r}") from None
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"expected a finite number, found {text!r}")
    return value


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive integer, found {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, found {text!r}")
    return value


def run_evaluate(args: argparse.Namespace, out: Any) -> int:
    from ._cli import report
    from ._cli.evaluate import EvaluateError
    from ._cli.readers import ReadError

    try:
        result = report.evaluate(args)
        text = io.StringIO()  # the whole report first: a refusal leaves no half report
        report.write(result, args.json, text)
    except (EvaluateError, ReadError) as err:
        raise UsageError(str(err)) from None
    out.write(text.getvalue())
    return 0


# --------------------------------------------------------------------------- demo
def add_demo(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "demo",
        help="evaluate a generated stream (no files needed) and draw the pictures",
        description="Generate a realistic stream (an imbalanced classifier's scores, a regression "
        "with a large offset, a clustering), evaluate it in batches on four shards, merge the "
        "shards' states, print the report and write the pictures.",
    )
    p.add_argument(
        "--plot", metavar="DIR", help="where to write the PNGs (default: a new temporary directory)"
    )
    p.add_argument("--no-plot", action="store_true", help="draw no pictures")
    p.add_argument(
        "--rows", type=_positive_int, default=400_000, help="rows of the classifier stream (default 400000)"
    )
    p.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    p.add_argument("--json", action="store_true", help="print one JSON object instead of text")
    p.set_defaults(handler=run_demo)


def run_demo(args: argparse.Namespace, out: Any) -> int:
    from .demo import run

    plot_dir = None if args.no_plot else (args.plot or "")
    try:
        run(rows=args.rows, seed=args.seed, plot_dir=plot_dir, as_json=args.json, out=out)
    except OSError as err:
        raise UsageError(f"--plot: cannot write pictures: {err.strerror or err}") from None
    return 0


#: The subcommands, in the order ``--help`` lists them.
SUBCOMMANDS: list[Callable[[Any], None]] = [add_evaluate, add_demo, add_merge, add_show]


def build_parser() -> argparse.ArgumentParser:
    """The argument parser with every subcommand of :data:`SUBCOMMANDS`."""
    parser = _Parser(
        prog=PROG,
        description="Streaming, mergeable metrics: evaluate prediction files, run the demo, merge and show saved states.",
    )
    parser.add_argument("--version", action="version", version=f"{PROG} {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for add in SUBCOMMANDS:
        add(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status (0 success, 2 user error)."""
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
        if getattr(args, "handler", None) is None:
            raise UsageError(f"expected a command ({', '.join(sorted(_names(parser)))}); see --help")
        return args.handler(args, sys.stdout)
    except UsageError as err:
        print(f"{PROG}: error: {err}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # e.g. ``streammetrics ... | head``: stop quietly
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


def _names(parser: argparse.ArgumentParser) -> list[str]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return list(action.choices)
    return []


def console_main() -> NoReturn:  # pragma: no cover - thin wrapper
    sys.exit(main())


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
