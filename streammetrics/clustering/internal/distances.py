"""The geometry every distance-based internal index starts from: rows, clusters, distances.

:func:`prepare_points` turns an in-memory batch into validated rows, cluster indices and
weights; :func:`cluster_means` gives the weighted centroids; :func:`pairwise_distances` the
distances between two sets of rows: Euclidean by direct coordinate differences (never
``|a|^2 + |b|^2 - 2ab``, whose cancellation loses the small distances), or another of
:data:`METRICS` (the silhouette's ``metric=``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..inputs import validate_points


def prepare_points(X: Any, labels: Any, sample_weight: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """Validated rows of an in-memory batch without their weight-0 rows: ``(x, idx, w, K)``.

    ``idx`` are the cluster indices ``0 .. K-1`` of the sorted labels, ``w`` the weights (ones
    when none were given).

    Examples:
        >>> x, idx, w, k = prepare_points([[0.0], [1.0], [2.0]], ["b", "a", "b"], [1.0, 0.0, 2.0])
        >>> x.ravel().tolist(), idx.tolist(), w.tolist(), k
        ([0.0, 2.0], [0, 0], [1.0, 2.0], 1)
    """
    x, lab, w = validate_points(X, labels, sample_weight, None)
    w = np.ones(len(x)) if w is None else w
    keep = w > 0
    x, lab, w = x[keep], lab[keep], w[keep]
    _, idx = np.unique(lab, return_inverse=True)
    idx = idx.ravel().astype(np.int64)
    return x, idx, w, int(idx.max()) + 1 if idx.size else 0


#: The distances :func:`pairwise_distances` knows, by scikit-learn's names (aliases included):
#: each is a function of two rows alone, so a sample of rows gives its exact distances.
METRICS = {
    "euclidean": "euclidean",
    "l2": "euclidean",
    "manhattan": "manhattan",
    "cityblock": "manhattan",
    "l1": "manhattan",
    "cosine": "cosine",
    "sqeuclidean": "sqeuclidean",
    "chebyshev": "chebyshev",
}


def check_metric(metric: object) -> str:
    """``metric`` if :func:`pairwise_distances` knows it, else ``ValueError`` naming the choices.

    Examples:
        >>> check_metric("l1")
        'l1'
    """
    if isinstance(metric, str) and metric in METRICS:
        return metric
    raise ValueError(
        f"metric: expected one of {sorted(METRICS)}, found {metric!r} (a streaming index sees each row "
        "once: 'precomputed' distances and callables, which could not be saved or merged, are not supported)"
    )


#: Up to this many features, distances are accumulated one feature at a time.
FEW_FEATURES = 16


def pairwise_distances(
    a: np.ndarray, b: np.ndarray, chunk: int = 256, metric: str = "euclidean"
) -> np.ndarray:
    """Distances from the rows of ``a`` to those of ``b`` (direct differences, chunked).

    ``metric`` is one of :data:`METRICS`, as :func:`sklearn.metrics.pairwise_distances`: the
    cosine distance is ``1 - cos``, clipped to [0, 2], with a zero row at distance 1 from every row.

    Examples:
        >>> pairwise_distances(np.array([[0.0, 0.0]]), np.array([[3.0, 4.0], [0.0, 0.0]])).tolist()
        [[5.0, 0.0]]
        >>> pairwise_distances(np.array([[0.0, 0.0]]), np.array([[3.0, 4.0]]), metric="manhattan").tolist()
        [[7.0]]
    """
    kind = METRICS[check_metric(metric)]
    if kind == "cosine":
        return _cosine(a, b)
    out = np.empty((len(a), len(b)))
    if a.shape[1] <= FEW_FEATURES:
        return _by_feature(a, b, kind, out)
    step = max(1, chunk * 16 // max(a.shape[1], 1))
    for start in range(0, len(a), step):
        diff = a[start : start + step, None, :] - b[None, :, :]
        if kind == "manhattan":
            out[start : start + step] = np.abs(diff).sum(axis=2)
        elif kind == "chebyshev":
            out[start : start + step] = np.abs(diff).max(axis=2, initial=0.0)
        else:
            squared = np.einsum("ijk,ijk->ij", diff, diff)
            out[start : start + step] = squared if kind == "sqeuclidean" else np.sqrt(squared)
    return out


def _by_feature(a: np.ndarray, b: np.ndarray, kind: str, out: np.ndarray) -> np.ndarray:
    """:func:`pairwise_distances` for few features: one pass per feature over a block of the
    output, accumulated in place (no ``(rows, cols, features)`` temporary; a few times faster)."""
    step = max(1, (1 << 16) // max(len(b), 1))  # a block of 64k entries stays in cache
    for start in range(0, len(a), step):
        block = out[start : start + step]
        tmp = np.empty_like(block)
        for j in range(a.shape[1]):
            np.subtract.outer(a[start : start + step, j], b[:, j], out=tmp)
            if kind == "manhattan" or kind == "chebyshev":
                np.abs(tmp, out=tmp)
            else:
                np.multiply(tmp, tmp, out=tmp)
            if j == 0:
                block[...] = tmp
            elif kind == "chebyshev":
                np.maximum(block, tmp, out=block)
            else:
                block += tmp
        if a.shape[1] == 0:
            block[...] = 0.0
        if kind == "euclidean":
            np.sqrt(block, out=block)
    return out


def _cosine(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``1 - cos(a_i, b_j)`` clipped to [0, 2], as scikit-learn's ``cosine_distances`` (zero rows: 1)."""
    na, nb = np.linalg.norm(a, axis=1), np.linalg.norm(b, axis=1)
    ua = a / np.where(na > 0, na, 1.0)[:, None]
    ub = b / np.where(nb > 0, nb, 1.0)[:, None]
    return np.clip(1.0 - ua @ ub.T, 0.0, 2.0)


def cluster_means(x: np.ndarray, idx: np.ndarray, w: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Weighted means (K x d) and weights (K,) of the clusters ``idx`` of the rows ``x``.

    Examples:
        >>> means, cw = cluster_means(np.array([[0.0], [2.0], [5.0]]), np.array([0, 0, 1]), np.ones(3), 2)
        >>> means.ravel().tolist(), cw.tolist()
        ([1.0, 5.0], [2.0, 1.0])
    """
    cw = np.bincount(idx, weights=w, minlength=k)
    sums = np.stack([np.bincount(idx, weights=x[:, j] * w, minlength=k) for j in range(x.shape[1])], axis=1)
    return sums / cw[:, None], cw
