"""``streammetrics demo``: runs without files, merges shards exactly, writes the pictures."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest
from sklearn import metrics as skm

from streammetrics.demo import classifier_stream, run


def test_demo_subprocess_prints_report_and_pictures(tmp_path):
    out = subprocess.run(
        [sys.executable, "-m", "streammetrics", "demo", "--rows", "40000", "--plot", str(tmp_path)],
        capture_output=True,
        text=True,
    )
    assert out.returncode == 0, out.stderr
    assert "merged shards vs one pass over all rows: identical" in out.stdout
    assert f"pictures written to {tmp_path}" in out.stdout
    for name in ("roc.png", "pr.png", "calibration.png", "confusion_matrix.png"):
        assert (tmp_path / name).stat().st_size > 1000


def test_demo_values_agree_with_sklearn_on_the_same_stream(capsys):
    doc = run(rows=40_000, seed=5, plot_dir=None, as_json=True)
    assert json.loads(capsys.readouterr().out)["classifier"]["rows"] == 40_000
    y, p = classifier_stream(40_000, np.random.default_rng(5))
    m = doc["classifier"]["metrics"]
    assert m["f1"] == pytest.approx(skm.f1_score(y, p >= 0.5), rel=1e-12)
    assert m["log_loss"] == pytest.approx(skm.log_loss(y, p), rel=1e-9)
    assert m["rocauc"] == pytest.approx(skm.roc_auc_score(y, p), abs=2e-3)
    r = doc["regression"]
    for name, value in r["metrics"].items():
        assert value == pytest.approx(r["numpy_two_pass"][name], rel=1e-6), name
    assert doc["plots"] == []
