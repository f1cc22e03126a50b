"""The "coming from" table: peers' metrics next to streammetrics names, and coverage counts.

``docs/_ext/peers.toml`` is the one table: for each peer (scikit-learn, torchmetrics, river,
Keras, torcheval), every metric name its installed package exports, mapped to the streammetrics
name(s) that compute it, or to ``{ none = "why" }``. This module enumerates the peers' installed
packages (the rule for each is in :func:`peer_names`), renders ``docs/guide/coming-from.md`` from
the table, and counts coverage. ``tests/test_coming_from.py`` checks the table against both the
peers' packages and the names streammetrics exports.

Run from the repository root::

    python -m docs._ext.coverage            # print the coverage counts
    python -m docs._ext.coverage --write    # regenerate docs/guide/coming-from.md
"""

from __future__ import annotations

import argparse
import importlib
import inspect
import os
import re
from pathlib import Path
from typing import Any

import tomllib

ROOT = Path(__file__).resolve().parents[2]
TABLE = ROOT / "docs" / "_ext" / "peers.toml"
PAGE = ROOT / "docs" / "guide" / "coming-from.md"

PEERS = {
    "sklearn": ("scikit-learn", "sklearn"),
    "torchmetrics": ("torchmetrics", "torchmetrics"),
    "river": ("river", "river"),
    "keras": ("Keras", "keras"),
    "torcheval": ("torcheval", "torcheval"),
}
#: scikit-learn's exported functions that are not metrics of data: scorer plumbing and distances.
SKLEARN_NOT_METRICS = re.compile(
    r"^(check_scoring|get_scorer|get_scorer_names|make_scorer|pairwise_.*|.*_distances)$"
)
#: torchmetrics' task families in scope (issue 17) and the base classes that are not metrics.
TORCHMETRICS_MODULES = (
    "classification",
    "regression",
    "clustering",
    "retrieval",
    "nominal",
    "aggregation",
    "wrappers",
)
BASES = {"Metric", "BaseAggregator", "WrapperMetric", "MeanMetricWrapper"}
#: One concept for the task variants of a class (BinaryAccuracy, MulticlassAccuracy, ...).
VARIANT = re.compile(r"^(Binary|Multiclass|Multilabel)(?=[A-Z])")


def peer_names(peer: str) -> list[str]:
    """The metric names the installed ``peer`` exports (raises ImportError when not installed).

    * scikit-learn: the functions of ``sklearn.metrics.__all__``, less scorer plumbing and
      distances;
    * torchmetrics: the classes of the ``__all__`` of its classification, regression, clustering,
      retrieval, nominal, aggregation and wrappers packages, one concept per task family
      (``BinaryAccuracy`` and ``MulticlassAccuracy`` are ``Accuracy``);
    * river: the classes of ``river.metrics``;
    * Keras: the subclasses of ``keras.metrics.Metric`` in ``keras.metrics``;
    * torcheval: the subclasses of its ``Metric`` in ``torcheval.metrics``, one concept per task
      family as for torchmetrics.
    """
    if peer == "sklearn":
        import sklearn.metrics as skm

        names = {n for n in skm.__all__ if inspect.isfunction(getattr(skm, n))}
        return sorted(n for n in names if not SKLEARN_NOT_METRICS.match(n))
    if peer == "torchmetrics":
        names = set()
        for module in TORCHMETRICS_MODULES:
            mod = importlib.import_module(f"torchmetrics.{module}")
            public = getattr(mod, "__all__", None) or [n for n in dir(mod) if not n.startswith("_")]
            classes = {n: getattr(mod, n, None) for n in public}
            names |= {
                VARIANT.sub("", n)
                for n, c in classes.items()
                if inspect.isclass(c) and c.__module__.startswith("torchmetrics")
            }
        return sorted(names - BASES)
    if peer == "river":
        import river.metrics as rm

        return sorted(n for n in dir(rm) if not n.startswith("_") and inspect.isclass(getattr(rm, n)))
    if peer == "keras":
        os.environ.setdefault("KERAS_BACKEND", "torch")
        import keras

        km = keras.metrics
        metrics = {
            n for n in dir(km) if inspect.isclass(getattr(km, n)) and issubclass(getattr(km, n), km.Metric)
        }
        return sorted(metrics - BASES)
    if peer == "torcheval":
        import torcheval.metrics as tm
        from torcheval.metrics.metric import Metric

        names = {
            VARIANT.sub("", n)
            for n in dir(tm)
            if inspect.isclass(getattr(tm, n)) and issubclass(getattr(tm, n), Metric)
        }
        return sorted(names - BASES)
    raise ValueError(f"peer: expected one of {list(PEERS)}, found {peer!r}")


def load_table(path: Path = TABLE) -> dict[str, dict[str, Any]]:
    """``{peer: {peer name: ["StreamName", ...] or {"none": why}}}`` (a string becomes a list)."""
    with open(path, "rb") as fh:
        raw = tomllib.load(fh)
    out: dict[str, dict[str, Any]] = {}
    for peer, entries in raw.items():
        out[peer] = {}
        for name, value in entries.items():
            if isinstance(value, str):
                value = [value]
            out[peer][name] = value
    return out


def split_entry(text: str) -> tuple[str, str]:
    """``'Rolling(Mean(), window) (a note)'`` -> ``("Rolling(Mean(), window)", "a note")``."""
    code, _, note = text.partition(" (")
    return code, note[:-1] if note.endswith(")") else note


def stream_names(value: Any) -> list[str]:
    """The streammetrics class names an entry uses: the leading name and every name called
    (``'Rolling(Mean(), window)'`` uses ``Rolling`` and ``Mean``; a note in parentheses after a
    space is prose)."""
    if isinstance(value, dict):
        return []
    names: list[str] = []
    for text in value:
        code = split_entry(text)[0]
        found = [re.match(r"[A-Za-z_]\w*", code).group(0), *re.findall(r"\b([A-Z]\w*)\(", code)]  # type: ignore[union-attr]
        names += [n for n in found if n not in names]
    return names


def coverage(table: dict[str, dict[str, Any]], exported: set[str]) -> dict[str, tuple[int, int, int]]:
    """``{peer: (provided today, provided once every name in the table is exported, total)}``."""
    out = {}
    for peer, entries in table.items():
        names = [stream_names(v) for v in entries.values()]
        today = sum(1 for n in names if n and all(x in exported for x in n))
        later = sum(1 for n in names if n)
        out[peer] = (today, later, len(entries))
    return out


def render(table: dict[str, dict[str, Any]]) -> str:
    """The page ``docs/guide/coming-from.md``."""
    lines = [
        "# Coming from scikit-learn, torchmetrics, river, Keras or torcheval",
        "",
        "Every metric the peers' installed packages export, next to the streammetrics name that",
        "computes it, or *not provided* and why. Names are classes (`sm.Name`); the arguments say",
        "how to configure them where the peer's name implies a setting. The page is generated",
        "from one table (`docs/_ext/peers.toml`) that a test checks against the peers' packages and",
        "the names streammetrics exports (`python -m docs._ext.coverage` prints the counts).",
        "",
        "Two conventions differ from some peers everywhere: the truth comes first",
        "(`update(y_true, y_pred)`, torchmetrics takes `(preds, target)`), and a probability or score",
        "becomes a label with `threshold=` (`score >= threshold`).",
        "torchmetrics' `num_classes=` corresponds to the default `labels=None`: its macro averages",
        "leave out a class no row holds in `y_true` or `y_pred`, as averaging over the labels seen",
        "does (`labels=range(K)` keeps such a class, at its `zero_division` value, as scikit-learn's",
        "`labels=`). The values agree with torchmetrics' on the same data",
        "(`tests/test_torchmetrics_agreement.py`, `tests/catalogue/test_peer_agreement.py`); where",
        "they differ, a note below or the metric's catalogue page says how.",
    ]
    for peer, entries in table.items():
        title = PEERS[peer][0]
        provided = sum(1 for v in entries.values() if not isinstance(v, dict))
        lines += ["", f"## {title}", "", f"{provided} of {len(entries)} provided.", ""]
        lines += [f"| {title} | streammetrics |", "| --- | --- |"]
        for name in sorted(entries, key=str.lower):
            value = entries[name]
            if isinstance(value, dict):
                cell = f"not provided: {value['none']}"
            else:
                parts = []
                for text in value:
                    code, note = split_entry(text)
                    parts.append(f"`{code}`" + (f" ({note})" if note else ""))
                cell = ", ".join(parts)
            lines.append(f"| `{name}` | {cell} |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", action="store_true", help="regenerate docs/guide/coming-from.md")
    args = parser.parse_args(argv)
    import streammetrics as sm

    table = load_table()
    if args.write:
        PAGE.write_text(render(table))
    print(f"{'peer':<14}{'peer names':>11}{'in table':>10}{'today':>8}{'with pending':>14}")
    for peer, (today, later, total) in coverage(table, set(sm.__all__)).items():
        try:
            listed = len(peer_names(peer))
        except ImportError:
            listed = -1
        print(f"{PEERS[peer][0]:<14}{listed:>11}{total:>10}{today:>8}{later:>14}")


if __name__ == "__main__":
    main()
