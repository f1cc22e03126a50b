"""The data and configurations of the version-2 score sketch states in ``v2_states/``.

Those files were written by the code of ``main`` at commit 2dfc799 (the 0.1 sketch, before issue
16) with :func:`write`; ``test_v2_states.py`` loads them with today's code and compares them with
scikit-learn on the same data (rebuilt here from the same seeds).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

HERE = Path(__file__).parent / "v2_states"


def _binary(n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    return y, 1.0 / (1.0 + np.exp(-(rng.normal(size=n) + y)))


def _multiclass(n: int, k: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    y = rng.integers(0, k, n)
    logits = rng.normal(size=(n, k))
    logits[np.arange(n), y] += 1.0
    p = np.exp(logits)
    return y, p / p.sum(axis=1, keepdims=True)


def _multilabel(n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, (n, 3))
    return y, np.clip(0.3 * y + 0.7 * rng.random((n, 3)), 0, 1)


def cases() -> dict[str, tuple[str, dict, tuple]]:
    """name -> (class name, constructor keywords, (y_true, y_score, sample_weight))."""
    yb, pb = _binary(5000, 1)
    ye, pe = _binary(300, 2)
    ym, pm = _multiclass(2000, 4, 3)
    yo, po = _multiclass(500, 4, 4)
    yl, pl = _multilabel(1000, 5)
    yw, pw = _binary(1000, 6)
    w = np.random.default_rng(7).random(1000) * 3
    return {
        "rocauc_binary": ("ROCAUC", {}, (yb, pb, None)),
        "rocauc_binary_exact": ("ROCAUC", {"exact": True}, (ye, pe, None)),
        "rocauc_ovr": ("ROCAUC", {}, (ym, pm, None)),
        "rocauc_ovo": ("ROCAUC", {"multi_class": "ovo"}, (yo, po, None)),
        "ap_multilabel": ("AveragePrecision", {"average": None}, (yl, pl, None)),
        "rocauc_weighted": ("ROCAUC", {}, (yw, pw, w)),
    }


def write() -> None:  # pragma: no cover - run once on main's code
    import streammetrics as sm

    HERE.mkdir(exist_ok=True)
    for name, (cls, kw, (y, s, w)) in cases().items():
        m = getattr(sm, cls)(**kw)
        for a in range(0, len(y), 700):
            m.update(y[a : a + 700], s[a : a + 700], sample_weight=None if w is None else w[a : a + 700])
        (HERE / f"{name}.state").write_bytes(m.to_bytes())


if __name__ == "__main__":
    write()
