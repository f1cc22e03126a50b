"""A mergeable bottom-k sample of the distinct rows, for the distance-based internal indices.

Every row ``(x, label)`` gets a 64-bit key: a hash (splitmix64 mixing, vectorized over the
batch, one pass per feature) of its bytes and its label, salted by ``seed``. The sample is the
``sample_size`` distinct rows of smallest key, each with the *total* weight of all its copies.
Because the key depends on the row's content only:

* the sample is a deterministic function of the multiset of rows seen: it does not depend on
  batching, order or merge tree (split invariance and merge = concatenation hold exactly, up
  to the order in which the weights of repeated rows are summed);
* a merge is the bottom-k of the union, itself a uniform sample of the distinct rows;
* a row of integer weight ``k`` and ``k`` copies of the row give the same sample, and weight 0
  is the same as leaving the row out;
* a row in the final sample was never evicted (its key is below every threshold it met), so
  its total weight is exact.

While fewer than ``sample_size`` distinct rows were seen the sample holds all of them and the
indices computed on it are exact. Beyond, each distinct row is in the sample with the same
probability and the indices are estimates, reported with a delete-a-group jackknife standard
error (scaled by the finite-population factor ``1 - m / D``, ``D`` estimated from the k-th
smallest key). Revert is not possible (an evicted row cannot come back).
"""

from __future__ import annotations

import hashlib
from typing import Any

import numpy as np

from ..._core.schema import INT64_MAX, short
from ..._core.state import State, require_keys
from ...errors import InputError, MergeError, StateError

_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)


def _mix(z: np.ndarray) -> np.ndarray:
    """splitmix64 finalizer (wrapping uint64 arithmetic)."""
    z = (z ^ (z >> np.uint64(30))) * _M1
    z = (z ^ (z >> np.uint64(27))) * _M2
    return z ^ (z >> np.uint64(31))


def row_keys(x: np.ndarray, labels: np.ndarray, seed: int) -> np.ndarray:
    """64-bit content hashes of the rows of ``x`` with their labels, salted by ``seed``.

    Examples:
        >>> k1 = row_keys(np.array([[1.0, 2.0], [1.0, 2.0]]), np.array([0, 0]), seed=0)
        >>> bool(k1[0] == k1[1]), bool(row_keys(np.array([[1.0, 2.0]]), np.array([1]), 0)[0] == k1[0])
        (True, False)
    """
    with np.errstate(over="ignore"):
        n = x.shape[0]
        bits = np.ascontiguousarray(x + 0.0).view(np.uint64)  # + 0.0 maps -0.0 to 0.0
        h = np.full(
            n, _mix(np.array([seed & 0xFFFFFFFFFFFFFFFF], dtype=np.uint64) ^ _GOLDEN)[0], dtype=np.uint64
        )
        for j in range(x.shape[1]):
            h = _mix(h ^ _mix(bits[:, j] + _GOLDEN * np.uint64(j + 1)))
        if labels.dtype.kind == "U":
            uniq, inverse = np.unique(labels, return_inverse=True)
            lab = np.array(
                [
                    int.from_bytes(hashlib.blake2b(s.encode(), digest_size=8).digest(), "little")
                    for s in uniq.tolist()
                ],
                dtype=np.uint64,
            )[inverse.ravel()]
            lab = lab ^ np.uint64(0x5555555555555555)
        else:
            lab = labels.astype(np.int64).view(np.uint64)
        return _mix(h ^ _mix(lab + _GOLDEN))


class BottomKSample(State):
    """The ``sample_size`` distinct rows of smallest content hash, with their total weights.

    Examples:
        >>> s = BottomKSample(sample_size=2, seed=0)
        >>> s.add(np.array([[0.0], [1.0], [2.0], [0.0]]), np.array([0, 0, 1, 0]), None)
        >>> len(s.keys), s.saturated, float(s.weights.sum()) <= 4
        (2, True, True)
    """

    def __init__(self, sample_size: int = 1000, seed: int = 0) -> None:
        self.sample_size = int(sample_size)
        self.seed = int(seed)
        self.reset()

    def config(self) -> dict[str, Any]:
        return {"sample_size": self.sample_size, "seed": self.seed}

    def reset(self) -> None:
        self._commit(
            keys=np.empty(0, dtype=np.uint64),
            x=np.empty((0, 0)),
            labels=np.empty(0, dtype=np.int64),
            weights=np.empty(0),
            n_features=None,
            saturated=False,
            _n=0,
        )

    @property
    def n_samples(self) -> int:
        return self._n

    def _check_kind(self, labels: np.ndarray, name: str = "labels") -> None:
        if self.keys.size and labels.size and (labels.dtype.kind == "U") != (self.labels.dtype.kind == "U"):
            kind = "str" if self.labels.dtype.kind == "U" else "int"
            raise InputError(
                f"{name}: expected {kind} labels like those seen so far, found {labels.dtype} labels"
            )

    def add(self, x: np.ndarray, labels: np.ndarray, w: np.ndarray | None) -> None:
        """Add a validated batch."""
        n_rows = x.shape[0]
        self._check_kind(labels)
        if w is not None and n_rows and w.min() == 0:
            keep = w > 0
            x, labels, w = x[keep], labels[keep], w[keep]
        w = np.ones(len(x)) if w is None else w
        new: dict[str, Any] = {}
        if len(x):
            keys = row_keys(x, labels, self.seed)
            k = self.sample_size
            saturated = self.saturated
            if len(self.keys) >= k:
                cand = keys <= self.keys[-1]
                if not cand.all():
                    keys, x, labels, w = keys[cand], x[cand], labels[cand], w[cand]
                    saturated = True  # a row with a larger key was rejected
            if len(keys) > 4 * k:
                cut = np.partition(keys, k - 1)[k - 1]
                sel = keys <= cut
                if len(np.unique(keys[sel])) >= k:
                    keys, x, labels, w = keys[sel], x[sel], labels[sel], w[sel]
                    saturated = True
            new = {"saturated": saturated, **self._absorbed(keys, x, labels, w, saturated)}
            if self.n_features is None:
                new["n_features"] = x.shape[1]
        self._commit(**new, _n=self._n + n_rows)

    def _absorbed(
        self, keys: np.ndarray, x: np.ndarray, labels: np.ndarray, w: np.ndarray, saturated: bool
    ) -> dict[str, Any]:
        """The union with our sample (weights of equal keys summed, ours first) cut to the bottom
        k: the fields to commit (``saturated`` is whether rows were dropped before)."""
        all_keys = np.concatenate([self.keys, keys])
        if not all_keys.size:
            return {}
        d = x.shape[1] if len(x) else self.x.shape[1]
        all_x = np.concatenate([self.x.reshape(-1, d), x]) if self.keys.size else x
        all_labels = np.concatenate([self.labels, labels]) if self.keys.size else labels
        all_w = np.concatenate([self.weights, w])
        uniq, first, inverse = np.unique(all_keys, return_index=True, return_inverse=True)
        inverse = inverse.ravel()
        if len(uniq) == len(all_keys):
            summed = all_w[first]
        else:
            order = np.argsort(inverse, kind="stable")  # ours first, then the batch, in order
            summed = np.add.reduceat(all_w[order], np.searchsorted(inverse[order], np.arange(len(uniq))))
        if len(uniq) > self.sample_size:
            saturated = True
            uniq, first, summed = (
                uniq[: self.sample_size],
                first[: self.sample_size],
                summed[: self.sample_size],
            )
        return {
            "keys": uniq,
            "x": all_x[first],
            "labels": all_labels[first],
            "weights": summed,
            "saturated": saturated,
        }

    def merge(self, other: State) -> None:
        self.check_mergeable(other)
        assert isinstance(other, BottomKSample)
        if (
            self.n_features is not None
            and other.n_features is not None
            and self.n_features != other.n_features
        ):
            raise MergeError(
                f"cannot merge a sample of {other.n_features} features into {self.n_features} features"
            )
        try:
            self._check_kind(other.labels)
        except InputError as err:
            raise MergeError(str(err)) from None
        new: dict[str, Any] = {"saturated": self.saturated or other.saturated}
        if other.keys.size:
            new.update(self._absorbed(other.keys, other.x, other.labels, other.weights, new["saturated"]))
            if self.n_features is None:
                new["n_features"] = other.n_features
        self._commit(**new, _n=self._n + other._n)

    def distinct_estimate(self) -> float:
        """Number of distinct rows seen: exact while not saturated, else the KMV estimate."""
        m = len(self.keys)
        if not self.saturated:
            return float(m)
        u = (float(self.keys[-1]) + 1.0) / 2.0**64
        return max(float(m), (m - 1) / u)

    def to_dict(self) -> dict[str, Any]:
        labels = self.labels.tolist() if self.labels.dtype.kind == "U" else self.labels.astype(np.int64)
        return {
            "keys": self.keys,
            "x": self.x.reshape(len(self.keys), -1) if self.keys.size else np.empty((0, 0)),
            "labels": labels,
            "label_kind": "str" if self.labels.dtype.kind == "U" else "int",
            "weights": self.weights,
            "n_features": -1 if self.n_features is None else self.n_features,
            "saturated": bool(self.saturated),
            "n_samples": self._n,
        }

    def load_dict(self, data: dict[str, Any]) -> None:
        where = "BottomKSample state"
        require_keys(
            data,
            {"keys", "x", "labels", "label_kind", "weights", "n_features", "saturated", "n_samples"},
            where,
        )
        n, d = data["n_samples"], data["n_features"]
        if not isinstance(n, int) or isinstance(n, bool) or not 0 <= n <= INT64_MAX:
            raise StateError(f"{where}: n_samples must be a non-negative int64, found {short(n)}")
        if not isinstance(d, int) or isinstance(d, bool) or not -1 <= d <= INT64_MAX:
            raise StateError(f"{where}: n_features must be an int >= -1, found {short(d)}")
        keys = np.asarray(data["keys"])
        if keys.dtype != np.uint64 or keys.ndim != 1 or len(keys) > self.sample_size:
            raise StateError(f"{where}: keys must be a 1-D uint64 array of at most sample_size entries")
        if keys.size > 1 and not (keys[1:] > keys[:-1]).all():
            raise StateError(f"{where}: keys must be sorted and distinct")
        m = len(keys)
        x = np.asarray(data["x"], dtype=np.float64)
        if m and (x.shape != (m, d) or not np.isfinite(x).all()):
            raise StateError(f"{where}: x of shape {x.shape}, expected ({m}, {d}) finite values")
        kind = data["label_kind"]
        if kind not in ("int", "str"):
            raise StateError(f"{where}: label_kind must be 'int' or 'str', found {kind!r}")
        labels = np.array(data["labels"], dtype=str if kind == "str" else np.int64)
        if labels.shape != (m,):
            raise StateError(f"{where}: {len(labels)} labels for {m} rows")
        weights = np.asarray(data["weights"], dtype=np.float64)
        if weights.shape != (m,) or (m and (weights.min() <= 0 or not np.isfinite(weights).all())):
            raise StateError(f"{where}: weights must be {m} positive finite values")
        if not isinstance(data["saturated"], bool):
            raise StateError(f"{where}: saturated must be a bool")
        self._commit(
            keys=keys,
            x=x if m else np.empty((0, 0)),
            labels=labels,
            weights=weights,
            n_features=None if d < 0 else d,
            saturated=data["saturated"],
            _n=n,
        )

    def check(self) -> None:
        where = "BottomKSample state"
        m = len(self.keys)
        if m > self.sample_size:
            raise StateError(f"{where}: more rows than sample_size")
        if m > self._n:
            raise StateError(f"{where}: {m} sampled rows, more than n_samples={self._n}")
        if m > 1 and not (self.keys[1:] > self.keys[:-1]).all():
            raise StateError(f"{where}: keys must be sorted and distinct")
        if m and (
            self.n_features is None
            or self.x.shape != (m, self.n_features)
            or self.labels.shape != (m,)
            or self.weights.shape != (m,)
            or self.weights.min() <= 0
        ):
            raise StateError(f"{where}: every sampled row needs its features, label and a positive weight")
