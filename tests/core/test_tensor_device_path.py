"""Torch tensors of every dtype, and the device path (reduce on the device, move statistics only).

No accelerator is needed: :func:`streammetrics._core.tensors.device_path` sends CPU tensors
through the same torch code a CUDA tensor takes, and :data:`tensors.PATHS` says which path ran.
"""

from __future__ import annotations

import importlib
import os
import subprocess
import sys

import numpy as np
import pytest
from sklearn import metrics as skm

import streammetrics as sm
from streammetrics._core import tensors


def _need(module):
    if os.environ.get("CI") == "true":
        return importlib.import_module(module)
    return pytest.importorskip(module)


torch = _need("torch")

FLOATS = ["float64", "float32", "float16", "bfloat16"]
INTS = ["int64", "int32", "int16", "int8", "uint8", "bool"]
N, K = 200, 5


def _data(seed=0, k=K, n=N):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, k, n)
    logits = rng.normal(size=(n, k)) + 2.0 * np.eye(k)[y]
    return y, logits, rng.random(n)


def _collection():
    return sm.MetricCollection(
        {
            "acc": sm.Accuracy(input="score"),
            "f1": sm.F1(average="macro", input="score"),
            "auc": sm.ROCAUC(input="score"),
            "ll": sm.LogLoss(input="score"),
        }
    )


def _path_counts():
    return dict(tensors.PATHS)


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("weighted", [False, True], ids=["unweighted", "weighted"])
def test_device_path_equals_sklearn_for_every_float_dtype(dtype, weighted):
    y, logits, w = _data()
    t = torch.from_numpy(logits).to(getattr(torch, dtype))
    seen = t.to(torch.float64).numpy()  # the values the tensor holds (rounded to its dtype)
    weights = torch.from_numpy(w) if weighted else None
    before = _path_counts()
    collection = _collection()
    with tensors.device_path():
        for i in range(0, N, 32):
            collection.update(
                torch.from_numpy(y[i : i + 32]),
                t[i : i + 32],
                sample_weight=None if weights is None else weights[i : i + 32],
            )
    got = collection.compute()
    sw = w if weighted else None
    pred = seen.argmax(axis=1)
    proba = np.exp(seen - seen.max(axis=1, keepdims=True))
    proba /= proba.sum(axis=1, keepdims=True)
    assert got["acc"] == pytest.approx(skm.accuracy_score(y, pred, sample_weight=sw), abs=1e-12)
    assert got["f1"] == pytest.approx(skm.f1_score(y, pred, average="macro", sample_weight=sw), abs=1e-12)
    assert got["ll"] == pytest.approx(skm.log_loss(y, proba, sample_weight=sw), rel=1e-9)
    # input="score": one-vs-rest AUC of each logit column, macro-averaged
    ovr = [skm.roc_auc_score(y == c, seen[:, c], sample_weight=sw) for c in range(K)]
    assert got["auc"] == pytest.approx(np.mean(ovr), abs=1e-9)
    after = _path_counts()
    batches = -(-N // 32)
    assert after.get("confusion device", 0) - before.get("confusion device", 0) == batches
    assert after.get("log loss device", 0) - before.get("log loss device", 0) == batches
    assert collection.n_samples == N


@pytest.mark.parametrize("dtype", INTS)
def test_device_path_integer_labels_of_every_dtype(dtype):
    rng = np.random.default_rng(1)
    k = 2 if dtype == "bool" else K
    y, p = rng.integers(0, k, N), rng.integers(0, k, N)
    as_t = lambda a: torch.from_numpy(a).to(getattr(torch, dtype))  # noqa: E731
    m = sm.F1(average="macro")
    before = tensors.PATHS["confusion device"]
    with tensors.device_path():
        m.update(as_t(y), as_t(p))
    assert tensors.PATHS["confusion device"] == before + 1
    assert m.compute() == pytest.approx(skm.f1_score(y, p, average="macro"), abs=1e-12)
    host = sm.F1(average="macro").update(y, p)
    assert m.state.matrix.dtype == np.int64
    np.testing.assert_array_equal(m.state.matrix, host.state.matrix)
    assert m.to_bytes() == host.to_bytes()


def test_device_path_threshold_labels_and_wide_label_range():
    y = np.array([0, 1, 1, 0, 1])
    s = np.array([0.1, 0.8, 0.4, 0.6, 0.5], np.float32)
    with tensors.device_path():
        a = sm.Accuracy(threshold=0.5).update(torch.from_numpy(y), torch.from_numpy(s))
        named = sm.Recall(labels=[10, 20, 30], average="macro")
        named.update(
            torch.tensor([10, 20, 30]), torch.tensor([[0.2, 0.7, 0.1], [0.1, 0.8, 0.1], [0.0, 0.1, 0.9]])
        )
        wide = sm.Accuracy().update(
            torch.tensor([-(10**12), 5, 10**12]), torch.tensor([-(10**12), 4, 10**12])
        )
    assert a.compute() == skm.accuracy_score(y, s >= 0.5)
    assert wide.compute() == pytest.approx(2 / 3)
    assert wide.state.labels.tolist() == [-(10**12), 4, 5, 10**12]
    expected = skm.recall_score([10, 20, 30], [20, 20, 30], labels=[10, 20, 30], average="macro")
    assert named.compute() == pytest.approx(expected)


def test_device_path_refuses_like_the_host_and_leaves_the_state_unchanged():
    m = sm.MetricCollection({"f1": sm.F1(average="macro"), "ll": sm.LogLoss()})
    ok = torch.tensor([[0.3, 0.7], [0.6, 0.4]])
    with tensors.device_path():
        m.update(torch.tensor([1, 0]), ok)
        saved = m.to_bytes()
        bad_rows = [
            (torch.tensor([0, 1]), torch.tensor([[0.5, 0.6], [0.5, 0.5]]), "summing to 1"),
            (torch.tensor([0, 1]), torch.tensor([[0.5, float("nan")], [0.5, 0.5]]), "finite"),
            (torch.tensor([0, 1]), torch.tensor([[1.5, -0.5], [0.5, 0.5]]), "probabilities in"),
            (torch.tensor([0, 2]), ok, "classes in 0..1"),
        ]
        for yt, yp, message in bad_rows:
            with pytest.raises(sm.InputError, match=message):
                m.update(yt, yp)
            assert m.to_bytes() == saved
        with pytest.raises(sm.InputError, match="non-negative"):
            m.update(torch.tensor([1, 0]), ok, sample_weight=torch.tensor([1.0, -1.0]))
        assert m.to_bytes() == saved
        # the weights' limits, as the host's (the device path once took weights all below 2^-255)
        for weights, message in (
            ([1e-80, 1e-80], "2\\^-255"),
            ([2.0**255, 2.0**255], "2\\^255"),
        ):
            for metric in (sm.Accuracy(), sm.LogLoss(), m):
                before = metric.to_bytes()
                with pytest.raises(sm.InputError, match=message):
                    metric.update(
                        torch.tensor([1, 0]), ok, sample_weight=torch.tensor(weights, dtype=torch.float64)
                    )
                assert metric.to_bytes() == before


def test_labels_refused_by_fixed_list_on_the_device_path():
    with tensors.device_path(), pytest.raises(sm.InputError, match="fixed list"):
        sm.Recall(labels=["a", "b"], average="macro").update(
            torch.tensor([0, 1]), torch.tensor([[0.2, 0.8], [0.9, 0.1]])
        )


def test_per_step_value_and_revert_on_the_device_path():
    y, logits, _ = _data(2)
    yt, st = torch.from_numpy(y), torch.from_numpy(logits)
    with tensors.device_path():
        m = sm.F1(average="macro", input="score")
        first = m(yt[:50], st[:50])
        m(yt[50:], st[50:])
        assert first == pytest.approx(skm.f1_score(y[:50], logits[:50].argmax(1), average="macro"))
        m.revert(yt[50:], st[50:])
    assert m.compute() == pytest.approx(first)
    assert m.n_samples == 50


def test_numpy_and_host_tensors_do_not_take_the_device_path():
    before = _path_counts()
    sm.Accuracy().update(np.array([0, 1]), np.array([0, 1]))
    sm.Accuracy().update(torch.tensor([0, 1]), torch.tensor([0, 1]))  # CPU tensor: the host path
    assert _path_counts() == before


def test_streammetrics_does_not_import_torch():
    code = "import sys, streammetrics as sm; sm.F1().update([0, 1], [0, 1]); print('torch' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
