"""Data shared by the peer-agreement tests (``tests/test_keras_agreement.py``,
``tests/test_torcheval_agreement.py``): ``(a, b)`` pairs of ``N`` rows, ``K`` classes."""

from __future__ import annotations

import numpy as np

N, K = 240, 4


def class_probabilities() -> tuple[np.ndarray, np.ndarray]:
    """Labels (every class present) and class probabilities leaning towards them."""
    rng = np.random.default_rng(3)
    y = rng.integers(0, K, N)
    y[:K] = np.arange(K)
    p = rng.dirichlet(np.ones(K), N)
    p[np.arange(N), y] += 0.4
    return y, p / p.sum(axis=1, keepdims=True)


def labels() -> tuple[np.ndarray, np.ndarray]:
    """Labels and the arg-max of :func:`class_probabilities`."""
    y, p = class_probabilities()
    return y, p.argmax(axis=1)


def binary() -> tuple[np.ndarray, np.ndarray]:
    """0/1 labels and probabilities of the positive class, inside (0, 1)."""
    rng = np.random.default_rng(4)
    y = rng.integers(0, 2, N)
    return y, np.clip(0.3 * y + 0.7 * rng.random(N), 0.001, 0.999)


def regression() -> tuple[np.ndarray, np.ndarray]:
    """Three outputs of targets and predictions."""
    rng = np.random.default_rng(6)
    t = rng.normal(size=(N, 3)) + 2.0
    return t, t + 0.5 * rng.normal(size=(N, 3))
