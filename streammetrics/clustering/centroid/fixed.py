"""Pass 2 of the exact two-pass mode: per-cluster sums of distances to fixed centroids.

:class:`FixedCentroidSums` is the state (exact, mergeable, revertible; its configuration is the
centroids) and the ``fixed_*`` functions the exact two-pass values of Davies-Bouldin, DB*, the
score function and the simplified silhouette, computed from it.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..._core.labels import LabelSet
from ..._core.schema import INT64_MAX, exact_total, short
from ..._core.state import State, require_keys
from ...errors import InputError, StateError
from ..internal.functions import davies_bouldin_from
from .centroids import Centroids
from .geometry import distances_to_own, is_defined, simplified_silhouettes
from .spread import davies_bouldin_star_from, score_function_from


class FixedCentroidSums(State):
    """Per-cluster row count, weight and sum of weighted distances to fixed centroids (exact).

    With ``silhouette=True`` also the sum of the weighted simplified silhouettes ``s_i`` (own
    centroid against the nearest other fixed centroid). Mergeable (sums), revertible, and its
    configuration is the centroids: states of different centroids do not merge.

    Examples:
        >>> s = FixedCentroidSums(Centroids([0, 1], np.array([[0.0], [10.0]])))
        >>> s.add(np.array([[1.0], [3.0], [10.0]]), np.array([0, 0, 1]), None)
        >>> s.count.tolist(), s.weight.tolist(), s.dist_sum.tolist()
        ([2, 1], [2.0, 1.0], [4.0, 0.0])
    """

    revertible = True

    def __init__(self, centroids: Centroids, silhouette: bool = False) -> None:
        self.centroids = centroids
        self.silhouette = bool(silhouette)
        self.label_set = LabelSet(np.asarray(centroids.labels), fixed=True)
        self.reset()

    def config(self) -> dict[str, Any]:
        return {"centroids": self.centroids.to_config(), "silhouette": self.silhouette}

    def reset(self) -> None:
        k = len(self.centroids.labels)
        self._commit(
            count=np.zeros(k, dtype=np.int64),
            weight=np.zeros(k),
            dist_sum=np.zeros(k),
            sil_sum=np.zeros(k),
            _n=0,
        )

    @property
    def n_samples(self) -> int:
        return self._n

    def encode(self, labels: np.ndarray) -> np.ndarray:
        """Indices of ``labels`` among the fixed centroids (raises :class:`InputError`)."""
        try:
            idx, _ = self.label_set.encode(labels, "labels")
        except InputError as err:
            raise InputError(f"{err} (the labels of the fixed centroids)") from None
        return idx

    def add(self, x: np.ndarray, idx: np.ndarray, w: np.ndarray | None, *, sign: int = 1) -> None:
        """Add (``sign=1``) or remove (``sign=-1``) a validated batch (labels already encoded)."""
        k, means = len(self.centroids.labels), self.centroids.means
        ww = np.ones(len(x)) if w is None else w
        counted = ww > 0
        count = np.bincount(idx[counted], minlength=k).astype(np.int64)
        weight = np.bincount(idx, weights=ww, minlength=k)
        dist = distances_to_own(x, idx, means)
        if self.silhouette:
            sil = simplified_silhouettes(x, idx, means)
            sil_sum = np.bincount(idx, weights=ww * sil, minlength=k)
        else:
            sil_sum = np.zeros(k)
        dist_sum = np.bincount(idx, weights=ww * dist, minlength=k)
        new_count = self.count + sign * count
        if (new_count < 0).any():
            raise InputError(
                "labels: reverting rows that were never added (a cluster would hold fewer than 0 rows)"
            )
        empty = new_count == 0
        self._commit(
            weight=np.where(empty, 0.0, self.weight + sign * weight),
            dist_sum=np.where(empty, 0.0, self.dist_sum + sign * dist_sum),
            sil_sum=np.where(empty, 0.0, self.sil_sum + sign * sil_sum),
            count=new_count,
            _n=self._n + sign * len(x),
        )

    def merge(self, other: State) -> None:
        self.check_mergeable(other)
        assert isinstance(other, FixedCentroidSums)
        self._commit(
            count=self.count + other.count,
            weight=self.weight + other.weight,
            dist_sum=self.dist_sum + other.dist_sum,
            sil_sum=self.sil_sum + other.sil_sum,
            _n=self._n + other._n,
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "count": self.count,
            "weight": self.weight,
            "dist_sum": self.dist_sum,
            "sil_sum": self.sil_sum,
            "n_samples": self._n,
        }

    def load_dict(self, data: dict[str, Any]) -> None:
        where = "FixedCentroidSums state"
        require_keys(data, {"count", "weight", "dist_sum", "sil_sum", "n_samples"}, where)
        n = data["n_samples"]
        if not isinstance(n, int) or isinstance(n, bool) or not 0 <= n <= INT64_MAX:
            raise StateError(f"{where}: n_samples must be a non-negative int64, found {short(n)}")
        k = len(self.centroids.labels)
        arrays = {}
        for name in ("count", "weight", "dist_sum", "sil_sum"):
            arr = np.asarray(data[name])
            kind = "i" if name == "count" else "f"
            if arr.dtype.kind != kind or arr.shape != (k,):
                raise StateError(
                    f"{where}: {name} of dtype {arr.dtype} and shape {arr.shape}, expected ({k},)"
                )
            # (the distance sums may have grown past the float range: inf, never NaN)
            bad = np.isnan(arr) if name == "dist_sum" else ~np.isfinite(arr)
            if kind == "f" and bad.any():
                raise StateError(f"{where}: {name} holds non-finite values")
            arrays[name] = arr.astype(np.int64 if kind == "i" else np.float64)
        self._commit(**arrays, _n=n)

    def check(self) -> None:
        where = "FixedCentroidSums state"
        if (self.count < 0).any() or (self.weight < 0).any() or (self.dist_sum < 0).any():
            raise StateError(f"{where}: negative counts, weights or distance sums")
        if (self.sil_sum.size and np.abs(self.sil_sum).max() > 0) and not self.silhouette:
            raise StateError(f"{where}: silhouette sums without silhouette=True")
        if np.any(np.abs(self.sil_sum) > self.weight * (1 + 1e-9) + 1e-12):
            raise StateError(f"{where}: a silhouette sum beyond its cluster's weight (|s| <= 1)")
        if np.any((self.count == 0) & ((self.weight != 0) | (self.dist_sum != 0))):
            raise StateError(f"{where}: weight or distances in a cluster without rows")
        if exact_total(self.count, where, "count") > self._n:
            raise StateError(f"{where}: more rows in clusters than n_samples={self._n}")

    # ------------------------------------------------------------------ views for formulas
    def present(self) -> np.ndarray:
        """Clusters holding weight in this pass."""
        return self.weight > 0

    def spreads(self) -> np.ndarray:
        """``S_k``: mean distance to the fixed centroid of the clusters present."""
        p = self.present()
        return self.dist_sum[p] / self.weight[p]

    def defined(self) -> bool:
        """Whether ``2 <= K <= N - 1`` for the clusters present in this pass."""
        return is_defined(int(self.present().sum()), float(self.weight.sum()))


def _nan_if_undefined(fn):
    def wrapped(state: FixedCentroidSums) -> float:
        return fn(state) if state.defined() else float("nan")

    wrapped.__doc__ = fn.__doc__
    wrapped.__name__ = fn.__name__
    return wrapped


@_nan_if_undefined
def fixed_davies_bouldin(state: FixedCentroidSums) -> float:
    """Davies-Bouldin at fixed centroids over the clusters present (exact two-pass value)."""
    return davies_bouldin_from(state.centroids.means[state.present()], state.spreads())


@_nan_if_undefined
def fixed_davies_bouldin_star(state: FixedCentroidSums) -> float:
    """DB* at fixed centroids over the clusters present (exact two-pass value)."""
    return davies_bouldin_star_from(state.centroids.means[state.present()], state.spreads())


@_nan_if_undefined
def fixed_score_function(state: FixedCentroidSums) -> float:
    """Score function at fixed centroids over the clusters present (exact two-pass value)."""
    p = state.present()
    return score_function_from(state.centroids.means[p], state.weight[p], state.spreads())


@_nan_if_undefined
def fixed_simplified_silhouette(state: FixedCentroidSums) -> float:
    """Weighted mean simplified silhouette at fixed centroids (exact two-pass value)."""
    return float(state.sil_sum.sum() / state.weight.sum())
