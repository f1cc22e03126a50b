"""Pictures of curves, calibration and confusion matrices (matplotlib, an optional extra).

Every function takes either a result (``ROCCurveResult``, ``PRCurveResult``, ``DETCurveResult``,
``ReliabilityCurve``, a matrix) or the metric that computes it, draws on ``ax`` (a new figure
when ``None``) and returns the matplotlib :class:`~matplotlib.figure.Figure`. matplotlib is
imported when a function is first called, never by ``import streammetrics``; without a display
the non-interactive ``Agg`` backend is selected.

Examples:
    >>> import streammetrics as sm
    >>> from streammetrics.plotting import plot_roc_curve
    >>> roc = sm.ROCCurve().update([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8])
    >>> fig = plot_roc_curve(roc, auc=0.75)
    >>> fig.axes[0].get_xlabel()
    'False positive rate'
"""

from __future__ import annotations

import os
import sys
from typing import Any

import numpy as np

__all__ = [
    "plot_roc_curve",
    "plot_pr_curve",
    "plot_calibration",
    "plot_confusion_matrix",
    "plot_slices",
    "plot_fairness_gaps",
    "save_figure",
    "plot_det_curve",
]


def _matplotlib() -> Any:
    try:
        import matplotlib
    except ImportError:  # pragma: no cover - depends on the environment
        raise ImportError(
            "plotting needs matplotlib: pip install 'streammetrics[plot]' (or pip install matplotlib)"
        ) from None
    headless = sys.platform.startswith("linux") and not (
        os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")
    )
    if headless and "MPLBACKEND" not in os.environ and "matplotlib.pyplot" not in sys.modules:
        matplotlib.use("Agg")
    return matplotlib


def _axes(ax: Any, figsize: tuple[float, float]) -> tuple[Any, Any]:
    """``(figure, axes)``: ``ax`` and its figure, or a new figure of ``figsize`` inches."""
    if ax is not None:
        return ax.figure, ax
    _matplotlib()
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=figsize, layout="constrained")
    return fig, ax


def _result(obj: Any) -> Any:
    """A metric's computed result, or ``obj`` itself when it is already a result."""
    if hasattr(obj, "compute") and callable(obj.compute) and hasattr(obj, "update"):
        import warnings

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return obj.compute()
    return obj


def plot_roc_curve(
    curve: Any,
    *,
    auc: float | None = None,
    label: str | None = None,
    ax: Any = None,
    figsize: tuple[float, float] = (5.0, 5.0),
    **kwargs: Any,
) -> Any:
    """Draw a ROC curve (false positive rate against true positive rate); returns the figure.

    ``curve`` is a :class:`~streammetrics.ROCCurve` (or its ``compute()`` result, or any
    ``(fpr, tpr, ...)`` tuple). ``auc`` is written in the legend; ``kwargs`` go to ``ax.plot``.

    Examples:
        >>> import streammetrics as sm
        >>> from streammetrics.plotting import plot_roc_curve
        >>> r = sm.ROCCurve().update([0, 1, 1, 0], [0.2, 0.9, 0.6, 0.7]).compute()
        >>> fig = plot_roc_curve(r, label="model")
        >>> fig.axes[0].get_legend_handles_labels()[1]
        ['model', 'chance']
    """
    fpr, tpr = (np.asarray(a, dtype=np.float64) for a in tuple(_result(curve))[:2])
    fig, ax = _axes(ax, figsize)
    text = label or "ROC"
    if auc is not None and np.isfinite(auc):
        text += f" (AUC = {auc:.4f})"
    kwargs.setdefault("drawstyle", "default")
    ax.plot(fpr, tpr, label=text, linewidth=2, **kwargs)
    ax.plot([0, 1], [0, 1], linestyle="--", color="grey", linewidth=1, label="chance")
    ax.set(xlim=(-0.01, 1.01), ylim=(-0.01, 1.01), aspect="equal")
    ax.set_xlabel("False positive rate")
    ax.set_ylabel("True positive rate")
    ax.set_title("ROC curve")
    ax.grid(True, alpha=0.3)
    ax.legend(loc="lower right")
    return fig


def plot_pr_curve(
    curve: Any,
    *,
    average_precision: float | None = None,
    prevalence: float | None = None,
    label: str | None = None,
    ax: Any = None,
    figsize: tuple[float, float] = (5.0, 5.0),
    **kwargs: Any,
) -> Any:
    """Draw a precision-recall curve (recall on x); returns the figure.

    ``curve`` is a :class:`~streammetrics.PRCurve` (or its ``compute()`` result, or any
    ``(precision, recall, ...)`` tuple). ``average_precision`` goes into the legend;
    ``prevalence`` (the positive rate) draws the no-skill line.

    Examples:
        >>> import streammetrics as sm
        >>> from streammetrics.plotting import plot_pr_curve
        >>> pr = sm.PRCurve().update([0, 1, 1, 0], [0.2, 0.9, 0.6, 0.7])
        >>> fig = plot_pr_curve(pr, prevalence=0.5)
        >>> fig.axes[0].get_ylabel()
        'Precision'
    """
    precision, recall = (np.asarray(a, dtype=np.float64) for a in tuple(_result(curve))[:2])
    fig, ax = _axes(ax, figsize)
    text = label or "PR"
    if average_precision is not None and np.isfinite(average_precision):
        text += f" (AP = {average_precision:.4f})"
    kwargs.setdefault("drawstyle", "steps-post")
    order = np.argsort(recall, kind="stable")
    ax.plot(recall[order], precision[order], label=text, linewidth=2, **kwargs)
    if prevalence is not None and np.isfinite(prevalence):
        ax.axhline(
            prevalence, linestyle="--", color="grey", linewidth=1, label=f"no skill ({prevalence:.3g})"
        )
    ax.set(xlim=(-0.01, 1.01), ylim=(-0.01, 1.01), aspect="equal")
    ax.set_xlabel("Recall")
    ax.set_ylabel("Precision")
    ax.set_title("Precision-recall curve")
    ax.grid(True, alpha=0.3)
    ax.legend(loc="lower left")
    return fig


def plot_calibration(
    curve: Any,
    *,
    error: float | None = None,
    label: str | None = None,
    ax: Any = None,
    figsize: tuple[float, float] = (5.0, 5.0),
    **kwargs: Any,
) -> Any:
    """Draw a reliability diagram (mean forecast against observed frequency); returns the figure.

    ``curve`` is a :class:`~streammetrics.CalibrationError` (its :meth:`curve` is used) or a
    ``ReliabilityCurve`` / ``(prob_true, prob_pred[, weights])`` tuple. Marker areas follow
    the bins' weights; ``error`` (e.g. the ECE) goes into the legend.

    Examples:
        >>> import streammetrics as sm
        >>> from streammetrics.plotting import plot_calibration
        >>> ce = sm.CalibrationError(n_bins=5).update([0, 1, 1, 0, 1], [0.1, 0.8, 0.7, 0.3, 0.4])
        >>> fig = plot_calibration(ce, error=ce.compute())
        >>> fig.axes[0].get_title()
        'Reliability diagram'
    """
    if hasattr(curve, "curve") and callable(curve.curve):
        curve = curve.curve()
    parts = tuple(curve)
    prob_true, prob_pred = (np.asarray(a, dtype=np.float64) for a in parts[:2])
    weights = np.asarray(parts[2], dtype=np.float64) if len(parts) > 2 else np.ones_like(prob_true)
    fig, ax = _axes(ax, figsize)
    text = label or "model"
    if error is not None and np.isfinite(error):
        text += f" (ECE = {error:.4f})"
    ax.plot([0, 1], [0, 1], linestyle="--", color="grey", linewidth=1, label="perfectly calibrated")
    line = ax.plot(prob_pred, prob_true, linewidth=1.5, label=text, **kwargs)[0]
    if weights.size and weights.max() > 0:
        sizes = 15 + 185 * weights / weights.max()
        ax.scatter(prob_pred, prob_true, s=sizes, color=line.get_color(), alpha=0.7, zorder=3)
    ax.set(xlim=(-0.01, 1.01), ylim=(-0.01, 1.01), aspect="equal")
    ax.set_xlabel("Mean predicted probability")
    ax.set_ylabel("Observed frequency")
    ax.set_title("Reliability diagram")
    ax.grid(True, alpha=0.3)
    ax.legend(loc="upper left")
    return fig


def plot_confusion_matrix(matrix: Any, classes: Any, ax: Any = None, **kwargs: Any) -> Any:
    """Draw a confusion matrix as a heat map with the counts written in; returns the figure.

    Rows are true labels, columns predicted labels (scikit-learn's convention). Keywords:
    ``normalize`` (``None``, ``"true"``, ``"pred"``, ``"all"``: colours and numbers become
    fractions), ``cmap`` (default ``"Blues"``), ``values`` (write the numbers, default when
    at most 30 classes), ``title``, ``figsize``.

    Examples:
        >>> from streammetrics.plotting import plot_confusion_matrix
        >>> fig = plot_confusion_matrix([[50, 2], [5, 43]], ["cat", "dog"])
        >>> [t.get_text() for t in fig.axes[0].get_xticklabels()]
        ['cat', 'dog']
    """
    normalize = kwargs.pop("normalize", None)
    cmap = kwargs.pop("cmap", "Blues")
    title = kwargs.pop("title", "Confusion matrix")
    m = np.asarray(matrix, dtype=np.float64)
    if m.ndim != 2 or m.shape[0] != m.shape[1]:
        raise ValueError(f"matrix: expected a square 2-D matrix, found shape {m.shape}")
    classes = [str(c) for c in classes]
    if len(classes) != m.shape[0]:
        raise ValueError(f"classes: expected {m.shape[0]} names, found {len(classes)}")
    if normalize is not None:
        axis = {"true": 1, "pred": 0, "all": None}.get(normalize, "bad")
        if axis == "bad":
            raise ValueError(f"normalize: expected None, 'true', 'pred' or 'all', found {normalize!r}")
        with np.errstate(invalid="ignore", divide="ignore"):
            m = np.nan_to_num(m / m.sum(axis=axis, keepdims=axis is not None))
    values = kwargs.pop("values", len(classes) <= 30)
    k = len(classes)
    size = min(4.0 + 0.45 * k, 14.0)
    fig, ax = _axes(ax, kwargs.pop("figsize", (size + 1.0, size)))
    image = ax.imshow(m, cmap=cmap, interpolation="nearest", **kwargs)
    fig.colorbar(image, ax=ax, fraction=0.046, pad=0.04)
    if values and m.size:
        top = m.max() if m.max() > 0 else 1.0
        integer = normalize is None and np.all(m == np.round(m))
        for (i, j), x in np.ndenumerate(m):
            text = f"{int(x):d}" if integer else f"{x:.2f}"
            colour = "white" if x > 0.5 * top else "black"
            ax.text(j, i, text, ha="center", va="center", color=colour, fontsize=9)
    ax.set_xticks(range(k), classes, rotation=45 if max(map(len, classes), default=0) > 3 else 0)
    ax.set_yticks(range(k), classes)
    ax.set_xlabel("Predicted label")
    ax.set_ylabel("True label")
    ax.set_title(title)
    return fig


def _slice_values(values: Any) -> tuple[list[str], np.ndarray, np.ndarray | None, np.ndarray | None]:
    """Labels, estimates and (when the values are intervals) low and high ends of ``{key: value}``."""
    keys = list(values)
    labels = ["/".join(map(str, k)) if isinstance(k, tuple) else str(k) for k in keys]
    items = [values[k] for k in keys]
    if items and all(hasattr(v, "low") and hasattr(v, "high") for v in items):
        est = np.array([float(getattr(v, "estimate", np.nan)) for v in items])
        return labels, est, np.array([float(v.low) for v in items]), np.array([float(v.high) for v in items])
    return labels, np.array([float(v) for v in items], dtype=np.float64), None, None


def plot_slices(
    sliced: Any,
    *,
    overall: float | None = None,
    title: str | None = None,
    ax: Any = None,
    figsize: tuple[float, float] | None = None,
    **kwargs: Any,
) -> Any:
    """Draw one bar per slice (with interval whiskers for per-slice intervals); returns the figure.

    ``sliced`` is a :class:`~streammetrics.Sliced` of a scalar metric or of a
    :class:`~streammetrics.Bootstrap` (whose intervals become whiskers), or its ``compute()``
    result ``{key: value}``. ``overall`` draws a dashed line (a :class:`~streammetrics.Sliced`
    gives its own overall value when the metric is not a bootstrap); ``kwargs`` go to ``ax.bar``.

    Examples:
        >>> import streammetrics as sm
        >>> from streammetrics.plotting import plot_slices
        >>> s = sm.Sliced(sm.Accuracy()).update([0, 1, 1, 0], [0, 1, 0, 0], ["a", "a", "b", "b"])
        >>> fig = plot_slices(s)
        >>> [t.get_text() for t in fig.axes[0].get_xticklabels()]
        ['a', 'b']
    """
    values = _result(sliced)
    if overall is None and hasattr(sliced, "overall") and callable(sliced.overall):
        import warnings

        from .errors import StreamMetricsError

        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                found = sliced.overall()
        except StreamMetricsError:  # per-key bootstrap replicates share one stream: no overall
            found = None
        overall = (
            float(found) if found is not None and np.ndim(found) == 0 and not hasattr(found, "low") else None
        )
    labels, est, low, high = _slice_values(values)
    fig, ax = _axes(ax, figsize or (max(4.0, 0.5 * len(labels) + 2.0), 4.0))
    x = np.arange(len(labels))
    error = None if low is None else np.vstack([est - low, high - est])
    ax.bar(
        x, est, yerr=error, capsize=4 if error is not None else 0, color=kwargs.pop("color", "C0"), **kwargs
    )
    if overall is not None and np.isfinite(overall):
        ax.axhline(overall, linestyle="--", color="grey", linewidth=1, label=f"overall = {overall:.4f}")
        ax.legend(loc="best")
    ax.set_xticks(
        x, labels, rotation=45 if len(labels) > 8 else 0, ha="right" if len(labels) > 8 else "center"
    )
    metric = getattr(getattr(sliced, "metric", None), "type_name", None)
    ax.set_ylabel(metric() if callable(metric) else "value")
    ax.set_title(title or "Per-slice values")
    ax.grid(True, axis="y", alpha=0.3)
    return fig


def plot_fairness_gaps(metric: Any, *, ax: Any = None, figsize: tuple[float, float] | None = None) -> Any:
    """Draw a fairness metric's per-group values, the overall value and the gap; returns the figure.

    ``metric`` is one of the fairness metrics (``DemographicParityDifference``,
    ``EqualizedOddsRatio``, ``GroupDifference``...): one bar per group (per group and rate for
    equalized odds), the overall value as a dashed line, and the gap (``compute()``) in the title.

    Examples:
        >>> import streammetrics as sm
        >>> from streammetrics.plotting import plot_fairness_gaps
        >>> m = sm.DemographicParityDifference().update([0, 1, 1, 0], [1, 1, 0, 0], ["a", "a", "b", "b"])
        >>> plot_fairness_gaps(m).axes[0].get_title()
        'DemographicParityDifference = 1.0000'
    """
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        groups, overall, gap = metric.by_group(), metric.overall(), metric.compute()
    first = next(iter(groups.values()), None)
    rates = list(first) if isinstance(first, dict) else [None]
    labels = ["/".join(map(str, k)) if isinstance(k, tuple) else str(k) for k in groups]
    fig, ax = _axes(ax, figsize or (max(4.0, 0.6 * len(labels) * len(rates) + 2.0), 4.0))
    width = 0.8 / len(rates)
    x = np.arange(len(labels))
    for i, rate in enumerate(rates):
        heights = [float(v[rate] if rate is not None else v) for v in groups.values()]
        ax.bar(
            x + (i - (len(rates) - 1) / 2) * width, heights, width, label=rate or "per group", color=f"C{i}"
        )
        level = overall[rate] if rate is not None else overall
        if np.ndim(level) == 0 and np.isfinite(float(level)):
            ax.axhline(
                float(level),
                linestyle="--",
                color=f"C{i}",
                linewidth=1,
                label=f"overall {rate or ''}".strip(),
            )
    ax.set_xticks(x, labels)
    ax.set_ylabel("value")
    ax.set_title(f"{type(metric).__name__} = {float(gap):.4f}")
    ax.grid(True, axis="y", alpha=0.3)
    ax.legend(loc="best")
    return fig


def save_figure(fig: Any, path: str | os.PathLike[str], dpi: int = 100) -> str:
    """Write ``fig`` as a PNG to ``path`` and release it (closes it in pyplot); returns the path.

    Examples:
        >>> import os, tempfile
        >>> from streammetrics.plotting import plot_confusion_matrix, save_figure
        >>> path = save_figure(plot_confusion_matrix([[1, 0], [0, 1]], [0, 1]),
        ...                    os.path.join(tempfile.mkdtemp(), "cm.png"))
        >>> os.path.getsize(path) > 0
        True
    """
    fig.savefig(path, dpi=dpi)
    if "matplotlib.pyplot" in sys.modules:
        import matplotlib.pyplot as plt

        plt.close(fig)
    return os.fspath(path)


#: The DET plot's ticks (scikit-learn's ``DetCurveDisplay``): error rates on a normal-deviate scale.
DET_TICKS = (0.001, 0.01, 0.05, 0.2, 0.5, 0.8, 0.95, 0.99, 0.999)


def _normal_deviate(p: np.ndarray) -> np.ndarray:
    """The standard normal quantile of each rate (``-inf`` at 0, ``inf`` at 1, NaN kept)."""
    from statistics import NormalDist

    q = NormalDist().inv_cdf
    p = np.asarray(p, dtype=np.float64)
    out = np.full(p.shape, np.nan)
    inside = (p > 0) & (p < 1)
    out[inside] = [q(float(x)) for x in p[inside]]
    out[p <= 0], out[p >= 1] = -np.inf, np.inf
    return out


def plot_det_curve(
    curve: Any,
    *,
    label: str | None = None,
    ax: Any = None,
    figsize: tuple[float, float] = (5.0, 5.0),
    **kwargs: Any,
) -> Any:
    """Draw a DET curve (false positive rate against false negative rate, both on normal-deviate
    axes, as scikit-learn's ``DetCurveDisplay``); returns the figure.

    ``curve`` is a :class:`~streammetrics.DETCurve` (or its ``compute()`` result, or any
    ``(fpr, fnr, ...)`` tuple); ``kwargs`` go to ``ax.plot``. Rates of 0 or 1 lie off the axes.

    Examples:
        >>> import streammetrics as sm
        >>> from streammetrics.plotting import plot_det_curve
        >>> det = sm.DETCurve().update([0, 1, 1, 0, 1], [0.2, 0.9, 0.6, 0.7, 0.4])
        >>> fig = plot_det_curve(det, label="model")
        >>> fig.axes[0].get_ylabel()
        'False negative rate'
    """
    fpr, fnr = (np.asarray(a, dtype=np.float64) for a in tuple(_result(curve))[:2])
    fig, ax = _axes(ax, figsize)
    ax.plot(_normal_deviate(fpr), _normal_deviate(fnr), label=label or "DET", linewidth=2, **kwargs)
    ticks = _normal_deviate(np.array(DET_TICKS))
    names = [f"{t:.0%}" if (100 * t).is_integer() else f"{t:.1%}" for t in DET_TICKS]
    ax.set_xticks(ticks, names)
    ax.set_yticks(ticks, names)
    ax.set(xlim=(ticks[0], ticks[-1]), ylim=(ticks[0], ticks[-1]), aspect="equal")
    ax.set_xlabel("False positive rate")
    ax.set_ylabel("False negative rate")
    ax.set_title("DET curve")
    ax.grid(True, alpha=0.3)
    ax.legend(loc="upper right")
    return fig
