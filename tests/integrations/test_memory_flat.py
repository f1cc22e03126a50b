"""No O(rows) memory in the training-loop paths: state bytes and tracemalloc's peak stay flat
over 10x more evaluation batches (Trainer's per-batch compute_metrics, a collection fed tensors
on the device path).

Each measurement runs in a fresh interpreter: tracemalloc counts every thread's allocations, and
a test worker's background threads (the Dask client's heartbeats, the Spark gateway, the test
runner's own messages) allocated up to 250 kB inside the window now and then.
"""

from __future__ import annotations

import functools
import json
import subprocess
import sys
import tracemalloc
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest

import streammetrics as sm
from streammetrics.integrations.transformers import BatchEvalMetrics

K, BATCH = 10, 32


def _collection(auc: bool):
    members = {
        "acc": sm.Accuracy(input="score"),
        "f1": sm.F1(average="macro", input="score"),
        "log_loss": sm.LogLoss(input="score"),
    }
    if auc:  # a small sketch cap (default 4000 bins) so that the 1x run already reaches it
        members["auc"] = sm.ROCAUC(input="score", max_bins=64)
    return sm.MetricCollection(members)


def _evaluate(n_batches: int, make_batch, auc: bool) -> tuple[int, int]:
    rng = np.random.default_rng(0)
    compute_metrics = BatchEvalMetrics(_collection(auc))
    tracemalloc.start()
    try:
        for i in range(n_batches):
            compute_metrics(make_batch(rng), compute_result=i == n_batches - 1)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return len(compute_metrics.result.to_bytes()), peak


def _numpy_batch(rng):
    return SimpleNamespace(predictions=rng.normal(size=(BATCH, K)), label_ids=rng.integers(0, K, BATCH))


def _measure(kind: str, auc: bool) -> tuple[tuple[int, int], tuple[int, int]]:
    """State bytes and peak traced bytes over n and over 10 n batches, in this process."""
    make = _numpy_batch
    # The sketch buffers incoming keys and folds them in bulk once the buffer holds at least
    # 4096 rows (a bounded buffer, not O(rows)): the 1x run goes past that floor, so that both runs
    # measure the folded state plus a full buffer.
    n = 5000 // BATCH if auc else 10
    if kind == "numpy":
        _evaluate(3, make, auc)  # the one-time costs (imports, caches) outside the measured runs
        return _evaluate(n, make, auc), _evaluate(10 * n, make, auc)
    import torch

    from streammetrics._core import tensors

    def make(rng):
        b = _numpy_batch(rng)
        return SimpleNamespace(
            predictions=torch.from_numpy(b.predictions), label_ids=torch.from_numpy(b.label_ids)
        )

    with tensors.device_path():
        _evaluate(3, make, auc)
        return _evaluate(n, make, auc), _evaluate(10 * n, make, auc)


@functools.cache
def _measured(kind: str) -> dict[str, Any]:
    """Both collections' measurements for ``kind``, from one fresh interpreter (its imports once)."""
    out = subprocess.run([sys.executable, __file__, kind], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    return json.loads(out.stdout.splitlines()[-1])


@pytest.mark.parametrize("auc", [False, True], ids=["labels and loss", "with ROCAUC"])
@pytest.mark.parametrize("kind", ["numpy", "torch device path"])
def test_memory_flat_over_ten_times_more_batches(kind, auc):
    if kind != "numpy":
        pytest.importorskip("torch")
    (bytes_1x, peak_1x), (bytes_10x, peak_10x) = _measured(kind)[str(auc)]
    if auc:  # the sketch holds at most max_bins bins per class: it coarsens between max/2 and max
        assert bytes_10x <= 2 * bytes_1x, (bytes_1x, bytes_10x)
    else:  # counts and sums: the same arrays whatever the rows
        assert bytes_10x <= bytes_1x + 16, (bytes_1x, bytes_10x)  # (the row count's varint may grow)
    assert peak_10x <= 1.5 * peak_1x + 128 * 1024, (peak_1x, peak_10x)
    # (keeping the logits would take 10 * n * 32 * 10 * 8 bytes: 256 KB at 10x without ROCAUC, 4 MB with)


if __name__ == "__main__":  # the measurements, in a fresh interpreter: python test_memory_flat.py KIND
    print(json.dumps({str(auc): _measure(sys.argv[1], auc) for auc in (False, True)}))
