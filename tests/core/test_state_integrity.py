"""States that break or lie (issue 15): zero-weight shards reload, state changes are atomic,
crafted states are refused at load, ``save`` and ``load`` are safe with files."""

from __future__ import annotations

import os
import threading

import numpy as np
import pytest
from sklearn import metrics as skm

import streammetrics as sm
from streammetrics._core import serialization


# ----------------------------------------------------------------------------- weight-0 shards
@pytest.mark.parametrize(
    ("make", "reference", "y_true", "y_pred"),
    [
        (sm.Accuracy, skm.accuracy_score, [0, 1, 1, 2], [0, 1, 2, 2]),
        (
            lambda: sm.F1(average="macro"),
            lambda *a, **k: skm.f1_score(*a, average="macro", **k),
            ["a", "b", "b"],
            ["a", "a", "b"],
        ),
        (sm.ConfusionMatrix, skm.confusion_matrix, [0, 1, 1], [1, 1, 0]),
        (
            lambda: sm.F1(average="samples"),
            lambda *a, **k: skm.f1_score(*a, average="samples", **k),
            [[0, 1], [1, 1], [1, 0]],
            [[0, 1], [1, 0], [1, 1]],
        ),
    ],
    ids=["Accuracy", "F1-macro-strings", "ConfusionMatrix", "F1-samples"],
)
def test_shards_of_zero_weight_rows_round_trip_and_merge(make, reference, y_true, y_pred):
    """A shard whose rows all have weight 0 (all masked) reloads, alone and merged, and leaves
    the value of the healthy shards as if it never existed."""
    masked = make().update(y_true, y_pred, sample_weight=np.zeros(len(y_true)))
    healthy = make().update(y_true, y_pred)
    for shard in (masked, healthy + masked, masked + healthy, masked + masked):
        for restored in (sm.from_bytes(shard.to_bytes()), sm.from_state_dict(shard.state_dict())):
            restored.state.check()
            assert restored.n_samples == shard.n_samples
            assert restored.to_bytes() == shard.to_bytes()
    merged = sm.from_bytes((masked + healthy).to_bytes()) + sm.from_bytes(masked.to_bytes())
    assert merged.n_samples == 3 * len(y_true)
    np.testing.assert_allclose(merged.compute(), reference(np.asarray(y_true), np.asarray(y_pred)))


def test_unweighted_counts_may_not_exceed_n_samples():
    masked = sm.Accuracy().update([0, 1], [0, 1], sample_weight=[0, 0])
    d = (masked + sm.Accuracy().update([0, 1], [0, 1])).state_dict()
    sm.from_state_dict(d)  # 2 counted rows of 4
    d["state"]["matrix"] = np.array([[3, 0], [0, 2]])
    with pytest.raises(sm.StateError, match="more than n_samples=4"):
        sm.from_state_dict(d)


# ----------------------------------------------------------------------------- files
def test_save_leaves_no_file_when_encoding_or_writing_fails(tmp_path, monkeypatch):
    m = sm.Accuracy().update([0, 1], [0, 1])
    path = tmp_path / "acc.smstate"

    def broken() -> bytes:
        raise RuntimeError("cannot encode")

    monkeypatch.setattr(m, "to_bytes", broken)
    with pytest.raises(RuntimeError, match="cannot encode"):
        m.save(path)
    assert list(tmp_path.iterdir()) == []
    monkeypatch.undo()

    m.save(path)
    before = path.read_bytes()

    def interrupted(src, dst):
        raise KeyboardInterrupt

    monkeypatch.setattr(os, "replace", interrupted)
    with pytest.raises(KeyboardInterrupt):
        sm.Accuracy().update([1], [0]).save(path)
    assert list(tmp_path.iterdir()) == [path]
    assert path.read_bytes() == before


def _fifo_feeding(tmp_path, head: bytes) -> str:
    """A named pipe that yields ``head`` and then zeros for ever (until its reader closes it)."""
    path = str(tmp_path / "endless")
    os.mkfifo(path)

    def feed() -> None:
        try:
            with open(path, "wb") as fh:
                fh.write(head)
                block = bytes(1 << 16)
                while True:
                    fh.write(block)
        except OSError:  # BrokenPipeError: the reader stopped, as it should
            pass

    threading.Thread(target=feed, daemon=True).start()
    return path


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes are POSIX")
def test_load_reads_no_further_than_the_limit(tmp_path):
    raw = sm.Accuracy().update([0, 1], [0, 1]).to_bytes()
    with pytest.raises(sm.StateError, match=r"not a streammetrics state|truncated state"):
        sm.load("/dev/zero" if os.path.exists("/dev/zero") else os.devnull)
    huge = serialization.read_prefix(raw)._replace(payload_length=1 << 40).pack()
    with pytest.raises(sm.StateError, match=r"exceeds the limit max_bytes=1073741824"):
        sm.load(_fifo_feeding(tmp_path, huge))
    path = str(tmp_path / "acc.smstate")
    with open(path, "wb") as fh:
        fh.write(raw)
    with pytest.raises(sm.StateError, match=rf"exceeds the limit max_bytes={len(raw) - 1}"):
        sm.load(path, max_bytes=len(raw) - 1)
    assert sm.load(path, max_bytes=len(raw)).compute() == 1.0
    endless = tmp_path / "sub"
    endless.mkdir()
    with pytest.raises(sm.StateError, match="more bytes follow"):
        sm.load(_fifo_feeding(endless, raw))  # a valid state, then an endless tail
    with pytest.raises(ValueError, match="max_bytes"):
        sm.load(path, max_bytes=0)


def test_show_refuses_an_endless_file_in_one_line(capsys):
    from streammetrics.cli import main

    assert main(["show", "/dev/zero" if os.path.exists("/dev/zero") else os.devnull]) == 2
    err = capsys.readouterr().err
    assert "not a streammetrics state" in err or "truncated state" in err
    assert "Traceback" not in err
