"""The runnable examples, run as subprocesses with small sizes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]


def run(script: str, *args: str) -> str:
    done = subprocess.run(
        [sys.executable, str(ROOT / "examples" / script), *args],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=ROOT,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_online_river_example():
    if os.environ.get("CI") != "true":
        pytest.importorskip("river")
    out = run("online_river.py", "--n", "400", "--every", "100", "--window", "50", "--half-life", "20")
    progress = [line for line in out.splitlines() if line.startswith("[")]
    assert len(progress) == 4
    result = json.loads(out[out.index("{\n") :])
    assert result["n_samples"] == 400
    # river's own driver and the hand-written loop see the same predictions
    assert result["progressive_val_score"]["accuracy"] == pytest.approx(result["overall"]["accuracy"])
    assert result["progressive_val_score"]["f1"] == pytest.approx(result["overall"]["f1"])
    assert 0.5 < result["rolling_f1"] <= 1 and 0.5 < result["decayed_accuracy"] <= 1


def test_epoch_logging_example(tmp_path):
    log = tmp_path / "train.jsonl"
    run("epoch_logging.py", "--epochs", "3", "--n", "3000", "--batch-size", "400", "--log", str(log))
    records = [json.loads(line) for line in log.read_text().splitlines()]
    epochs = [r for r in records if "n_train" in r]
    assert [r["epoch"] for r in epochs] == [0, 1, 2]
    for epoch in epochs:
        steps = [r for r in records if r["epoch"] == epoch["epoch"] and "n_train" not in r]
        # 7 batches of 400 and one of 200 per epoch; the very first batch is learned blind
        assert len(steps) == (7 if epoch["epoch"] == 0 else 8)
        sizes = np.array([400] * (len(steps) - 1) + [200])
        # the epoch value is the batch values weighted by batch size (reset per epoch)
        assert epoch["train/accuracy"] == pytest.approx(
            np.average([s["train/accuracy"] for s in steps], weights=sizes)
        )
        assert epoch["n_train"] == sizes.sum()
        assert {"val/accuracy", "val/f1", "val/recall/0", "val/recall/2"} <= set(epoch)
