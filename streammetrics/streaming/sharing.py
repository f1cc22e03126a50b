"""Which members of a collection may share one state: a declared key, never a guess from values.

Two members share a state, updated once per batch, when their keys are equal and not ``None``.
Equal keys promise that both metrics (1) build states of the same kind and configuration
(``State.share_key()``) and (2) turn every batch into the same validated batch and accept or
reject it identically (same validation code, same validation-relevant configuration). A metric
declares its key with a ``_share_key()`` method; the confusion family's key is written here
until it is declared on :class:`~streammetrics.classification.base.ConfusionMetric`.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

from .._core.metric import Metric
from .._core.state import canonical_json


def sharing_key(metric: Metric) -> Hashable | None:
    """The sharing key of ``metric`` (``None``: never shares).

    Examples:
        >>> import streammetrics as sm
        >>> sharing_key(sm.F1()) == sharing_key(sm.Precision()) == sharing_key(sm.Recall())
        True
        >>> sharing_key(sm.F1()) == sharing_key(sm.F1(threshold=0.5))
        False
        >>> sharing_key(sm.MAE()) == sharing_key(sm.RMSE()), sharing_key(sm.MAE()) == sharing_key(sm.R2())
        (True, False)
    """
    declared = getattr(metric, "_share_key", None)
    if callable(declared):
        return declared()
    from ..classification.base import ConfusionMetric

    if isinstance(metric, ConfusionMetric):
        return confusion_share_key(metric)
    from ..clustering.base import ExternalMetric
    from ..regression.base import RegressionMetric

    if isinstance(metric, RegressionMetric):
        # validation reads the transform (in the state key), a list multioutput and the state
        multioutput = None if isinstance(metric.multioutput, str) else canonical_json(metric.multioutput)
        code = (type(metric)._validate, type(metric)._apply, type(metric)._make_state)
        return ("regression", metric.state.share_key(), multioutput, code)
    if isinstance(metric, ExternalMetric):
        return ("contingency", metric.state.share_key(), (type(metric)._validate, type(metric)._apply))
    return None


#: The methods whose code decides how a confusion metric validates and applies a batch.
_CONFUSION_BEHAVIOUR = (
    "_validate",
    "_validate_multilabel",
    "_scores",
    "_argmax_labels",
    "_apply",
    "_make_state",
    "_check_mode",
    "_check_labels",
)


def confusion_share_key(metric: Any) -> Hashable:
    """The key of a confusion-family metric.

    ``(state key, labels/pos_label/threshold/input, the checks average imposes, the validation
    code)``. The average enters only through the checks it imposes (``"samples"`` needs
    multilabel input, ``"binary"`` at most two labels), so ``F1()``, ``Precision()`` and
    ``Recall()`` share, and so do ``F1(average="macro")`` and ``Accuracy()``. A subclass that
    overrides a validation method shares only with identically configured metrics of its class.
    """
    from ..classification.base import ConfusionMetric, RateMetric

    cls = type(metric)
    code = tuple(getattr(cls, name) for name in _CONFUSION_BEHAVIOUR)
    standard_code = tuple(getattr(RateMetric, name) for name in _CONFUSION_BEHAVIOUR)
    plain_code = tuple(getattr(ConfusionMetric, name) for name in _CONFUSION_BEHAVIOUR)
    average = getattr(metric, "average", None)
    if code == standard_code:
        checks: tuple[Any, ...] = (
            average == "samples",
            average == "binary" and not cls.multilabel_binary,
            average == "binary" and cls.whole_matrix is None,
        )
    elif code == plain_code:
        checks = (False, False, False)  # ConfusionMetric's checks accept everything
    else:
        checks = (cls, canonical_json(metric.get_config()))
    return ("confusion", metric.state.share_key(), canonical_json(metric._base_config()), checks, code)
