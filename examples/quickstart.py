"""A first look: a stream of predictions evaluated in batches, on two shards merged exactly.

Run: ``python examples/quickstart.py``. It checks itself against scikit-learn on the same data.
"""

from __future__ import annotations

import numpy as np

import streammetrics as sm


def stream(n_batches: int, batch_size: int, seed: int):
    """An imbalanced 3-class classifier's predictions, batch after batch."""
    rng = np.random.default_rng(seed)
    for _ in range(n_batches):
        y = rng.choice(3, batch_size, p=[0.7, 0.2, 0.1])
        noise = rng.integers(0, 3, batch_size)
        yield y, np.where(rng.random(batch_size) < 0.85, y, noise)


def main() -> None:
    metrics = {
        "accuracy": sm.Accuracy(),
        "macro F1": sm.F1(average="macro"),
        "MCC": sm.MCC(),
        "balanced accuracy": sm.BalancedAccuracy(),
        "Cohen's kappa": sm.CohenKappa(),
    }
    shards = [{name: m.empty_like() for name, m in metrics.items()} for _ in range(2)]
    seen_y, seen_p = [], []
    for i, (y, p) in enumerate(stream(n_batches=20, batch_size=5_000, seed=0)):
        for m in shards[i % 2].values():  # two workers, each with its own small state
            m.update(y, p)
        seen_y.append(y)
        seen_p.append(p)
    # The states travel as bytes and are merged where the report is made.
    merged = {name: sm.from_bytes(shards[0][name].to_bytes()) + shards[1][name] for name in metrics}

    from importlib.util import find_spec

    reference = {}
    if find_spec("sklearn") is not None:
        from sklearn import metrics as skm

        y, p = np.concatenate(seen_y), np.concatenate(seen_p)
        reference = {
            "accuracy": skm.accuracy_score(y, p),
            "macro F1": skm.f1_score(y, p, average="macro"),
            "MCC": skm.matthews_corrcoef(y, p),
            "balanced accuracy": skm.balanced_accuracy_score(y, p),
            "Cohen's kappa": skm.cohen_kappa_score(y, p),
        }
    print(f"{'metric':<20s} {'streammetrics':>14s} {'scikit-learn':>14s}")
    for name, m in merged.items():
        ref = f"{reference[name]:14.6f}" if name in reference else f"{'-':>14s}"
        print(f"{name:<20s} {m.compute():14.6f} {ref}")
        if name in reference:
            assert abs(m.compute() - reference[name]) < 1e-12
    print(
        f"\n{merged['accuracy'].n_samples:,} samples, state of {len(merged['macro F1'].to_bytes())} bytes per metric"
    )
    print(sm.ClassificationReport().update(np.concatenate(seen_y), np.concatenate(seen_p)).compute())


if __name__ == "__main__":
    main()
