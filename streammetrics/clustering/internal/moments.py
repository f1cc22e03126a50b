"""Per-cluster moments: the exact, mergeable sufficient statistics of centroid-based indices.

For every cluster ``k`` (labels of any kind, discovered as they come): the number of rows
``count_k`` (int64, exact: it decides when a reverted cluster is empty), the total weight
``w_k``, the weighted mean ``mu_k`` and the within-cluster scatter ``sum w ||x - mu_k||^2``;
with ``full=True`` also the scatter matrix ``sum w (x - mu_k)(x - mu_k)^T`` (for indices that
need covariances), with ``full="diagonal"`` only its diagonal, the per-feature scatter
``sum w (x_j - mu_kj)^2`` (``K d`` numbers instead of ``K d^2``, for indices of per-feature
variances). Batches are reduced with one ``np.bincount`` per feature and centred at the
batch means, then combined with Chan's parallel formulas; merge uses the same formulas, revert
their inverse.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..._core.labels import LabelSet
from ..._core.schema import INT64_MAX, exact_total, short
from ..._core.state import State, require_keys
from ..._core.validation import all_finite, check_factor
from ...errors import InputError, MergeError, StateError

#: The most features a loaded state may declare (an empty state's arrays are built from it).
MAX_FEATURES = 1 << 31


class ClusterMoments(State):
    """Count, weight, mean and scatter of every cluster (exact in streaming).

    Examples:
        >>> import numpy as np
        >>> s = ClusterMoments()
        >>> s.add(np.array([[0.0], [2.0], [10.0]]), np.array([0, 0, 1]), None)
        >>> s.labels.tolist(), s.mean.ravel().tolist(), s.scatter.tolist()
        ([0, 1], [1.0, 10.0], [2.0, 0.0])
    """

    revertible = True
    overflowing = ("scatter", "matrix")  # (means stay finite; counts, weights bounded)

    def __init__(self, full: bool | str = False) -> None:
        if not (full is False or full is True or full == "diagonal"):
            raise ValueError(f"full: expected False, True or 'diagonal', found {full!r}")
        self.full = full
        self.reset()

    def _matrix_shape(self, k: int, d: int) -> tuple[int, ...]:
        """The layout of :attr:`matrix` for ``k`` clusters of ``d`` features."""
        if self.full == "diagonal":
            return (k, d)
        return (k, d, d) if self.full else (0, 0, 0)

    def feature_scatter(self) -> np.ndarray:
        """``(k, d)``: each cluster's per-feature scatter ``sum w (x_j - mu_kj)^2`` (the
        diagonal of the scatter matrices; needs ``full``)."""
        if self.full == "diagonal":
            return self.matrix
        return np.diagonal(self.matrix, axis1=1, axis2=2)

    def config(self) -> dict[str, Any]:
        return {"full": self.full}

    def reset(self) -> None:
        self._commit(
            labels=LabelSet(),
            n_features=None,
            count=np.empty(0, dtype=np.int64),
            weight=np.empty(0, dtype=np.float64),
            mean=np.empty((0, 0), dtype=np.float64),
            scatter=np.empty(0, dtype=np.float64),
            matrix=np.empty((0, 0, 0), dtype=np.float64),
            _n=0,
        )

    @property
    def n_samples(self) -> int:
        return self._n

    @property
    def n_clusters(self) -> int:
        return len(self.labels)

    # ------------------------------------------------------------------ batch reduction
    def _reduce(self, x: np.ndarray, idx: np.ndarray, w: np.ndarray | None, k: int) -> tuple[np.ndarray, ...]:
        """Per-cluster (count, weight, mean, scatter, matrix) of one batch."""
        d = x.shape[1]
        count = np.bincount(idx, minlength=k).astype(np.int64)
        weight = count.astype(np.float64) if w is None else np.bincount(idx, weights=w, minlength=k)
        if k <= 64 and len(idx) >= 4 * k:  # a one-hot matrix product (BLAS) beats d bincounts
            onehot = np.zeros((len(idx), k))
            onehot[np.arange(len(idx)), idx] = 1.0 if w is None else w
            sums = onehot.T @ x
        else:
            sums = _cluster_sums(x, idx, w, k)
        with np.errstate(invalid="ignore", divide="ignore"):
            mean = np.where(weight[:, None] > 0, sums / weight[:, None], 0.0)
        if not all_finite(mean):  # sums past the float range (values near its maximum): redone
            # on the values times 2^-64 (exact but for values below 1e-288), scaled back
            with np.errstate(invalid="ignore", divide="ignore"):
                scaled = _cluster_sums(x * _DOWN, idx, w, k) / weight[:, None] / _DOWN
                mean = np.where(weight[:, None] > 0, scaled, 0.0)
        centred = x - mean[idx]
        sq = np.einsum("ij,ij->i", centred, centred)
        scatter = np.bincount(idx, weights=sq if w is None else sq * w, minlength=k)
        matrix = np.zeros(self._matrix_shape(k, d))
        if self.full == "diagonal":
            matrix = _cluster_sums(centred * centred, idx, w, k)
        elif self.full and len(idx):
            order = np.argsort(idx, kind="stable")
            bounds = np.searchsorted(idx[order], np.arange(k + 1))
            cw = centred if w is None else centred * w[:, None]
            for c in np.flatnonzero(count):
                rows = order[bounds[c] : bounds[c + 1]]
                matrix[c] = centred[rows].T @ cw[rows]
        return count, weight, mean, scatter, matrix

    # ------------------------------------------------------------------ update / revert
    def add(self, x: np.ndarray, labels: np.ndarray, w: np.ndarray | None, *, sign: int = 1) -> None:
        """Add (``sign=1``) or remove (``sign=-1``) a validated batch of points."""
        n_rows = x.shape[0]
        if self.n_features is not None and x.shape[1] != self.n_features:
            raise InputError(
                f"X: expected {self.n_features} features like earlier batches, found {x.shape[1]}"
            )
        if w is not None and n_rows and w.min() == 0:
            keep = w > 0
            x, labels, w = x[keep], labels[keep], w[keep]
        idx, grown = self.labels.encode(labels, "labels")
        if grown is not None and sign < 0:
            raise InputError("labels: cannot revert rows of clusters that were never added")
        labels_ls = grown or self.labels
        k, d = len(labels_ls), x.shape[1]
        count, weight, mean, scatter, matrix = self._grown(labels_ls, d)
        b_count, b_weight, b_mean, b_scatter, b_matrix = self._reduce(x, idx, w, k)
        if sign > 0:
            new = _combine(
                count, weight, mean, scatter, matrix, b_count, b_weight, b_mean, b_scatter, b_matrix
            )
        else:
            new = _uncombine(
                count, weight, mean, scatter, matrix, b_count, b_weight, b_mean, b_scatter, b_matrix
            )
        count, weight, mean, scatter, matrix = new
        if sign < 0 and (count == 0).any():
            alive = count > 0
            labels_ls = LabelSet(labels_ls.values[alive]) if alive.any() else LabelSet()
            count, weight, mean, scatter = count[alive], weight[alive], mean[alive], scatter[alive]
            matrix = matrix[alive] if self.full else matrix
        self._commit(
            labels=labels_ls,
            count=count,
            weight=weight,
            mean=mean,
            scatter=scatter,
            matrix=matrix,
            n_features=d if n_rows and self.n_features is None else self.n_features,
            _n=self._n + sign * n_rows,
        )

    def _grown(self, labels_ls: LabelSet, d: int) -> tuple[np.ndarray, ...]:
        """Our arrays laid out over ``labels_ls`` (a superset of our labels)."""
        if labels_ls is self.labels and len(labels_ls) and self.mean.shape[1] == d:
            return self.count, self.weight, self.mean, self.scatter, self.matrix  # (never written in place)
        k = len(labels_ls)
        count, weight = np.zeros(k, dtype=np.int64), np.zeros(k)
        mean, scatter = np.zeros((k, d)), np.zeros(k)
        matrix = np.zeros(self._matrix_shape(k, d))
        if len(self.labels):
            pos = self.labels.positions_in(labels_ls)
            count[pos], weight[pos], mean[pos], scatter[pos] = (
                self.count,
                self.weight,
                self.mean,
                self.scatter,
            )
            if self.full:
                matrix[pos] = self.matrix
        return count, weight, mean, scatter, matrix

    def scale(self, factor: float) -> None:
        """Multiply every weight by ``factor`` (exponential forgetting): the clusters' weights,
        scatters and scatter matrices; the means and the row counts are unchanged. A cluster
        whose weight underflows to 0 leaves."""
        check_factor(factor)
        weight, scatter, matrix = self.weight * factor, self.scatter * factor, self.matrix * factor
        alive = weight > 0
        if alive.all():
            self._commit(weight=weight, scatter=scatter, matrix=matrix)
            return
        self._commit(
            labels=LabelSet(self.labels.values[alive]) if alive.any() else LabelSet(),
            count=self.count[alive],
            weight=weight[alive],
            mean=self.mean[alive],
            scatter=scatter[alive],
            matrix=matrix[alive] if self.full else matrix,
        )

    # ------------------------------------------------------------------ merge / serialize
    def merge(self, other: State) -> None:
        self.check_mergeable(other)
        assert isinstance(other, ClusterMoments)
        if (
            self.n_features is not None
            and other.n_features is not None
            and self.n_features != other.n_features
        ):
            raise MergeError(
                f"cannot merge moments of {other.n_features} features into {self.n_features} features"
            )
        try:
            labels_ls = self.labels.union(other.labels)
        except InputError as err:
            raise MergeError(str(err)) from None
        d = self.n_features if self.n_features is not None else (other.n_features or 0)
        mine, theirs = self._grown(labels_ls, d), other._grown(labels_ls, d)
        count, weight, mean, scatter, matrix = _combine(*mine, *theirs)
        self._commit(
            count=count,
            weight=weight,
            mean=mean,
            scatter=scatter,
            matrix=matrix,
            labels=labels_ls,
            n_features=self.n_features if self.n_features is not None else other.n_features,
            _n=self._n + other._n,
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "labels": self.labels.to_list(),
            "n_features": -1 if self.n_features is None else self.n_features,
            "count": self.count,
            "weight": self.weight,
            "mean": self.mean,
            "scatter": self.scatter,
            "matrix": self.matrix,
            "n_samples": self._n,
        }

    def load_dict(self, data: dict[str, Any]) -> None:
        where = "ClusterMoments state"
        require_keys(
            data, {"labels", "n_features", "count", "weight", "mean", "scatter", "matrix", "n_samples"}, where
        )
        n, d = data["n_samples"], data["n_features"]
        for name, value in (("n_samples", n), ("n_features", d)):
            if (
                not isinstance(value, int)
                or isinstance(value, bool)
                or value < (-1 if name == "n_features" else 0)
                or value > (MAX_FEATURES if name == "n_features" else INT64_MAX)
            ):
                raise StateError(f"{where}: {name} must be a non-negative int64, found {short(value)}")
        labels = LabelSet.from_list(data["labels"], False, where)
        k = len(labels)
        dd = max(d, 0)
        expected = {
            "count": ((k,), "i"),
            "weight": ((k,), "f"),
            "mean": ((k, dd) if k else None, "f"),
            "scatter": ((k,), "f"),
            "matrix": (self._matrix_shape(k, dd), "f"),
        }
        arrays = {}
        for name, (shape, kind) in expected.items():
            arr = np.asarray(data[name])
            if name == "matrix" and self.full == "diagonal" and k and arr.shape == (k, dd, dd):
                # (S_Dbw states of before 0.2 kept whole matrices: their diagonals are read)
                arr = np.diagonal(arr, axis1=1, axis2=2).copy()
            if not k and not arr.size:  # empty: any empty layout
                empty = self._matrix_shape(0, dd)
                arrays[name] = np.zeros(
                    empty if name == "matrix" else 0, np.int64 if kind == "i" else np.float64
                )
                continue
            if (
                arr.dtype.kind != kind
                or (shape is not None and arr.shape != shape)
                or (shape is None and arr.size)
            ):
                raise StateError(
                    f"{where}: {name} of dtype {arr.dtype} and shape {arr.shape}, expected {shape}"
                )
            if kind == "f" and not _representable(name, arr):
                raise StateError(f"{where}: {name} holds non-finite values")
            arrays[name] = arr.astype(np.int64 if kind == "i" else np.float64)
        self._commit(
            labels=labels,
            n_features=None if d < 0 else d,
            _n=n,
            count=arrays["count"],
            weight=arrays["weight"],
            scatter=arrays["scatter"],
            matrix=arrays["matrix"],
            mean=arrays["mean"] if k else np.zeros((0, dd)),
        )

    def check(self) -> None:
        where = "ClusterMoments state"
        k = len(self.labels)
        d = self.n_features
        if k and d is None:
            raise StateError(f"{where}: clusters but no feature count")
        dd = d or 0
        shapes = {
            "count": (k,),
            "weight": (k,),
            "mean": (k, dd),
            "scatter": (k,),
            "matrix": self._matrix_shape(k, dd),
        }
        for name, shape in shapes.items():
            arr = getattr(self, name)
            wrong = arr.size if not k else arr.shape != shape  # no cluster: any empty layout
            if wrong or (arr.dtype.kind == "f" and not _representable(name, arr)):
                raise StateError(f"{where}: {name} must be finite of shape {shape}, found {arr.shape}")
        if self.full == "diagonal" and k and np.isnan(self.matrix).any():
            raise StateError(f"{where}: NaN in the per-feature scatter")
        per_cluster = (1, 2) if self.full is True else 1
        if (
            self.full
            and k
            and np.any(~np.isfinite(self.matrix).all(axis=per_cluster) & np.isfinite(self.scatter))
        ):
            raise StateError(f"{where}: a scatter matrix past the float range beside a finite scatter")
        if self.count.size and (self.count.min() <= 0 or self.weight.min() <= 0):
            raise StateError(f"{where}: every cluster must hold rows of positive weight")
        if self.scatter.size and self.scatter.min() < 0:
            raise StateError(f"{where}: negative scatter")
        if exact_total(self.count, where, "count") > self._n:
            raise StateError(f"{where}: more rows in clusters than n_samples={self._n}")
        if self.full and k:  # the scatter is the trace of the scatter matrix
            trace = self.feature_scatter().sum(axis=1)
            if not np.allclose(
                trace, self.scatter, rtol=1e-6, atol=1e-9 * max(1.0, float(self.scatter.max()))
            ):
                raise StateError(f"{where}: scatter differs from the trace of the scatter matrix")

    # ------------------------------------------------------------------ views for formulas
    def total_weight(self) -> float:
        return float(self.weight.sum())

    def grand_mean(self) -> np.ndarray:
        return (self.weight[:, None] * self.mean).sum(axis=0) / self.weight.sum()


def _combine(c1, w1, m1, s1, x1, c2, w2, m2, s2, x2):
    """Chan et al.'s parallel combination, per cluster (weights may be zero on either side)."""
    w = w1 + w2
    with np.errstate(invalid="ignore", divide="ignore"):
        frac = np.where(w > 0, w2 / w, 0.0)
        cross = np.where(w > 0, w1 * w2 / w, 0.0)
    delta = m2 - m1
    mean = m1 + delta * frac[:, None]
    between = cross * np.einsum("ij,ij->i", delta, delta)
    outer = _outer(cross, delta, x1)
    if not all_finite(between):  # values near the float maximum (a delta past it makes this inf or NaN)
        with np.errstate(over="ignore", invalid="ignore"):
            finite = np.isfinite(delta)
            # means of opposite signs: their weighted average, not m1 + inf
            spread = m1 * (1.0 - frac)[:, None] + m2 * frac[:, None]
            mean = np.where(finite, mean, spread)
            # a side without weight adds nothing: 0, not 0 * inf beside overflowed squares
            held = cross > 0
            between = np.where(held, between, 0.0)
            outer = (
                None if outer is None else np.where(held.reshape((-1,) + (1,) * (outer.ndim - 1)), outer, 0.0)
            )
    scatter = s1 + s2 + between
    matrix = x1 if outer is None else x1 + x2 + outer
    return c1 + c2, w, mean, scatter, matrix


def _uncombine(c, w, m, s, x, c2, w2, m2, s2, x2):
    """Inverse of :func:`_combine`: remove part 2 from the total."""
    c1 = c - c2
    if (c1 < 0).any():
        raise InputError(
            "labels: reverting rows that were never added (a cluster would hold fewer than 0 rows)"
        )
    w1 = np.where(c1 == 0, 0.0, np.maximum(w - w2, 0.0))
    with np.errstate(invalid="ignore", divide="ignore"):
        m1 = np.where(w1[:, None] > 0, (w[:, None] * m - w2[:, None] * m2) / w1[:, None], 0.0)
        cross = np.where(w > 0, w1 * w2 / w, 0.0)
    delta = m2 - m1
    s1 = np.where(c1 == 0, 0.0, np.maximum(s - s2 - cross * np.einsum("ij,ij->i", delta, delta), 0.0))
    if x.size:
        x1 = x - x2 - _outer(cross, delta, x)
        x1[c1 == 0] = 0.0
    else:
        x1 = x
    return c1, w1, m1, s1, x1


def _outer(cross: np.ndarray, delta: np.ndarray, matrix: np.ndarray) -> np.ndarray | None:
    """The between-parts term of the scatter matrices ``cross_k delta_k delta_k^T`` in the
    layout of ``matrix`` (its diagonal ``cross_k delta_k^2`` for per-feature scatter; ``None``
    without matrices)."""
    if not matrix.size:
        return None
    if matrix.ndim == 2:
        return cross[:, None] * delta * delta
    return cross[:, None, None] * delta[:, :, None] * delta[:, None, :]


#: The power of two that keeps sums of values near the float maximum in range (exact but for
#: values below 1e-288).
_DOWN = 2.0**-64


def _cluster_sums(x: np.ndarray, idx: np.ndarray, w: np.ndarray | None, k: int) -> np.ndarray:
    """``(k, d)``: each cluster's (weighted) sum of each feature, a bincount per feature."""
    sums = np.empty((k, x.shape[1]))
    for j in range(x.shape[1]):
        col = x[:, j] if w is None else x[:, j] * w
        sums[:, j] = np.bincount(idx, weights=col, minlength=k)
    return sums


def _representable(name: str, arr: np.ndarray) -> bool:
    """Whether ``arr`` holds what updates can leave in field ``name``: finite values, but sums of
    squares that grew past the float range (the scatter: inf; the scatter matrix's cross terms,
    of both signs: NaN too, checked against the scatter)."""
    if name == "scatter" or (name == "matrix" and arr.ndim == 2):  # (the per-feature scatter too)
        return not np.isnan(arr).any()
    return name == "matrix" or bool(np.isfinite(arr).all())
