"""Law cases of the keyed accumulators: ``Sliced`` wrapping one metric of every family.

Each keyed case is built from a family's own law case: the same data generator with a key column
added (last argument), and as reference the family's reference applied to each key's rows —
scikit-learn, SciPy or exact arithmetic, per slice.
"""

from __future__ import annotations

from typing import Any

import numpy as np

import streammetrics as sm

from . import (
    LawCase,
    classification,
    clustering,
    clustering_centroid,
    clustering_pairwise,
    probabilistic,
    ranking,
    regression,
    streaming,
    uncertainty,
)

_STRINGS = np.array(["de", "fr", "us"])


def _string_keys(rng: np.random.Generator, n: int) -> np.ndarray:
    return _STRINGS[rng.integers(0, 3, n)]


def _int_keys(rng: np.random.Generator, n: int) -> np.ndarray:
    return rng.integers(-1, 3, n)


def _crossed_keys(rng: np.random.Generator, n: int) -> np.ndarray:
    """Two key columns, a string and an int, as an ``(n, 2)`` object array."""
    out = np.empty((n, 2), dtype=object)
    out[:, 0] = _STRINGS[rng.integers(0, 2, n)]
    out[:, 1] = rng.integers(0, 2, n).tolist()
    return out


def _key_tuples(keys: Any) -> list[Any]:
    keys = np.asarray(keys)
    if keys.ndim == 2:
        return [tuple(row) for row in keys.tolist()]
    return keys.tolist()


def _keyed(case: LawCase, keys=_string_keys, suffix: str = "", max_keys: int | None = None) -> LawCase:
    def batch(rng: np.random.Generator, n: int) -> tuple[Any, ...]:
        args = case.batch(rng, n)
        return (*args, keys(rng, len(args[0])))

    reference = None
    if case.reference is not None:

        def reference(*args: Any, sample_weight: Any = None) -> dict[Any, Any]:
            *rest, key = args
            labels = _key_tuples(key)
            out = {}
            for k in sorted(set(labels)):
                rows = np.array([i for i, x in enumerate(labels) if x == k])
                w = None if sample_weight is None else np.asarray(sample_weight)[rows]
                out[k] = case.reference(*(np.asarray(a)[rows] for a in rest), sample_weight=w)
            return out

    return LawCase(
        f"Sliced[{case.name}{suffix}]",
        lambda: sm.Sliced(case.make(), max_keys=max_keys),
        batch,
        reference,
        exact=case.exact,
        rtol=case.rtol,
        atol=case.atol,
        weights=case.weights,
        min_rows=case.min_rows,
        revert_rtol=case.revert_rtol,
        tags=case.tags,
    )


def _case(module: Any, name: str) -> LawCase:
    return next(c for c in module.CASES if c.name == name)


CASES = [
    _keyed(_case(classification, "F1[binary]"), _crossed_keys, "-crossed"),
    _keyed(_case(ranking, "ROCAUC[exact]")),
    _keyed(_case(probabilistic, "LogLoss[binary]"), _int_keys),
    _keyed(_case(regression, "MAE")),
    _keyed(_case(clustering, "AdjustedRandIndex[strings]")),
    # one per clustering sub-family on points: internal (sums), centroid, pairwise (exact sample)
    _keyed(_case(clustering, "CalinskiHarabasz"), _int_keys),
    _keyed(_case(clustering_centroid, "DaviesBouldinStar")),
    _keyed(_case(clustering_pairwise, "CIndex"), _int_keys),
    _keyed(_case(streaming, "MetricCollection[binary]")),
    _keyed(_case(uncertainty, "Bootstrap-Accuracy-R0")),
]
