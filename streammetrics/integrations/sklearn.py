"""scikit-learn model selection: ``sm.scorer(metric)`` for ``cross_validate``, ``GridSearchCV``...

A scorer made with :func:`sklearn.metrics.make_scorer` whose score function evaluates an empty
copy of ``metric`` on each fold, asking the estimator for what the metric takes: ``predict``
for labels and values, ``predict_proba`` for probabilities (the positive class's column for
binary targets), ``decision_function`` for ``input="score"``. A metric where lower is better
(``LogLoss``, ``MAE``) is negated, as scikit-learn's ``neg_*`` scorers are. scikit-learn is
imported only when a scorer is made.
"""

from __future__ import annotations

from typing import Any

from . import _shards

__all__ = ["scorer"]


def _response_method(metric: Any) -> str:
    if getattr(metric, "prediction", None) == "scores":
        return "decision_function" if getattr(metric, "input", "probability") == "score" else "predict_proba"
    return "predict"


def scorer(metric: Any) -> Any:
    """A scikit-learn scorer of ``metric`` (a dict of scorers for a ``MetricCollection``).

    Pass it as ``scoring=`` to ``cross_validate``, ``cross_val_score``, ``GridSearchCV``,
    ``RandomizedSearchCV``; a collection gives one scorer per member (multi-metric scoring:
    choose the one to ``refit`` on by its name).

    Examples:
        >>> import streammetrics as sm
        >>> from sklearn.linear_model import LogisticRegression
        >>> from sklearn.model_selection import cross_val_score
        >>> X, y = [[0.0], [1.0], [2.0], [3.0], [4.0], [5.0]], [0, 0, 0, 1, 1, 1]
        >>> cross_val_score(LogisticRegression(), X, y, cv=2, scoring=sm.scorer(sm.Accuracy())).tolist()
        [1.0, 1.0]
        >>> sm.scorer(sm.LogLoss())  # lower is better: negated
        make_scorer(score, greater_is_better=False, response_method='predict_proba')
    """
    from ..streaming.collection import MetricCollection

    if isinstance(metric, MetricCollection):
        return {name: scorer(member) for name, member in metric.items()}
    _shards.check_accumulator(metric)
    from sklearn.metrics import make_scorer

    template = _shards.empty_like(metric)

    def score(y_true: Any, y_pred: Any, sample_weight: Any = None) -> float:
        fresh = _shards.empty_like(template)
        return float(fresh.update(y_true, y_pred, sample_weight=sample_weight).compute())

    return make_scorer(
        score,
        response_method=_response_method(metric),
        greater_is_better=getattr(metric, "higher_is_better", True) is not False,
    )
