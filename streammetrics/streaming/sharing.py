"""Which members of a collection may share one state: a key each family declares, never a guess.

Two members share a state, updated once per batch, when their keys are equal and not ``None``.
Equal keys promise that both metrics (1) build states of the same kind and configuration
(``State.share_key()``) and (2) turn every batch into the same validated batch and accept or
reject it identically. Each family declares its key with :meth:`~streammetrics.Metric._share_key`
(the confusion family in ``classification/base.py``, the moments in ``regression/base.py``, the
contingency table in ``clustering/external/base.py``); nothing here knows the families.
"""

from __future__ import annotations

from collections.abc import Hashable

from .._core.metric import Metric


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
    return metric._share_key()
