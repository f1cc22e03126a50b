"""Plots render to PNG files of the expected pixel size, from results and from metrics."""

from __future__ import annotations

import struct

import numpy as np
import pytest

import streammetrics as sm
from streammetrics import plotting

matplotlib = pytest.importorskip("matplotlib")


def png_size(path) -> tuple[int, int]:
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 2000
    return struct.unpack(">II", data[16:24])


@pytest.fixture(scope="module")
def stream():
    rng = np.random.default_rng(0)
    y = (rng.random(5000) < 0.3).astype(int)
    p = 1 / (1 + np.exp(-(rng.normal(size=5000) + 2 * y - 1)))
    return y, p


def test_roc_pr_calibration_from_metrics_and_results(stream, tmp_path):
    y, p = stream
    roc = sm.ROCCurve().update(y, p)
    figures = {
        "roc": plotting.plot_roc_curve(roc, auc=0.8),
        "roc_result": plotting.plot_roc_curve(roc.compute()),
        "pr": plotting.plot_pr_curve(sm.PRCurve().update(y, p), average_precision=0.7, prevalence=y.mean()),
        "cal": plotting.plot_calibration(sm.CalibrationError(n_bins=10).update(y, p), error=0.05),
        "cal_result": plotting.plot_calibration(sm.CalibrationError(n_bins=10).update(y, p).curve()),
    }
    for name, fig in figures.items():
        assert isinstance(fig, matplotlib.figure.Figure)
        path = tmp_path / f"{name}.png"
        plotting.save_figure(fig, path, dpi=100)
        assert png_size(path) == (500, 500), name  # figsize 5 x 5 inches at 100 dpi


def test_confusion_matrix_plot_and_the_metric_method(tmp_path):
    cm = sm.ConfusionMatrix().update(["cat", "dog", "dog", "bird"], ["cat", "dog", "cat", "bird"])
    fig = plotting.plot_confusion_matrix(cm.compute(), cm.classes, figsize=(6, 4))
    plotting.save_figure(fig, tmp_path / "cm.png", dpi=50)
    assert png_size(tmp_path / "cm.png") == (300, 200)
    texts = sorted(t.get_text() for t in fig.axes[0].texts)
    assert texts == sorted(["0", "0", "1", "0", "1", "0", "1", "0", "1"])
    fig2 = cm.plot()  # ConfusionMatrix.plot delegates to plotting.plot_confusion_matrix
    assert [t.get_text() for t in fig2.axes[0].get_yticklabels()] == ["bird", "cat", "dog"]
    normalized = plotting.plot_confusion_matrix([[3, 1], [0, 4]], [0, 1], normalize="true")
    assert "0.75" in [t.get_text() for t in normalized.axes[0].texts]


def test_drawing_on_given_axes_and_bad_input():
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2)
    assert plotting.plot_roc_curve(([0, 0.5, 1], [0, 0.8, 1]), ax=axes[1]) is fig
    assert len(axes[1].lines) == 2
    plt.close(fig)
    with pytest.raises(ValueError, match="matrix: expected a square"):
        plotting.plot_confusion_matrix([[1, 2, 3]], ["a"])
    with pytest.raises(ValueError, match="classes: expected 2 names"):
        plotting.plot_confusion_matrix([[1, 2], [3, 4]], ["a"])


def test_plot_methods_on_results(tmp_path):
    import matplotlib.image

    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, 500)
    s = np.clip(0.3 * y + 0.7 * rng.random(500), 0, 1)
    figures = {
        "roc": sm.ROCCurve().update(y, s).plot(),
        "pr": sm.PRCurve().update(y, s).plot(),
        "calibration": sm.CalibrationError().update(y, s).plot(),
        "confusion": sm.ConfusionMatrix().update(y, s >= 0.5).plot(),
    }
    for name, fig in figures.items():
        path = tmp_path / f"{name}.png"
        fig.savefig(path, dpi=50)
        image = matplotlib.image.imread(path)
        assert image.shape[0] > 50 and image.shape[1] > 50 and image.std() > 0
