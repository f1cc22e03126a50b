"""Base class of the regression family: input checks, the multioutput option, state plumbing."""

from __future__ import annotations

import math
from collections.abc import Hashable
from typing import Any, ClassVar

import numpy as np

from .._core import validation as v
from .._core.inputs import TRUTH_AND_PREDICTION, Inputs, two_plain_arrays
from .._core.metric import Metric
from .._core.onerow import OneRowMixin
from .._core.state import State, canonical_json
from ..errors import InputError
from .moments import CoMoments, Moments, ResidualMoments
from .rows import RegressionRows

MULTIOUTPUT = ("raw_values", "uniform_average", "variance_weighted")


def check_multioutput(value: Any, variance_weighted: bool) -> Any:
    """A multioutput option (string) or a list of non-negative output weights."""
    options = list(MULTIOUTPUT if variance_weighted else MULTIOUTPUT[:2])
    if isinstance(value, str):
        if value not in options:
            raise ValueError(
                f"multioutput: expected one of {options!r} or a list of output weights, found {value!r}"
            )
        return value
    try:
        weights = [float(x) for x in np.asarray(value, dtype=np.float64).ravel()]
        ndim = np.ndim(value)
    except (TypeError, ValueError):
        raise ValueError(
            f"multioutput: expected one of {options!r} or a list of output weights, found {value!r}"
        ) from None
    if ndim != 1 or not weights or any(not math.isfinite(x) or x < 0 for x in weights) or sum(weights) <= 0:
        raise ValueError(
            f"multioutput: expected a 1-D list of finite non-negative output weights with a positive sum, "
            f"found {value!r}"
        )
    return weights


class RegressionMetric(OneRowMixin, Metric[State], base=True):
    """A metric of (y_true, y_pred) pairs of real values, 1-D or ``(n_samples, n_outputs)``.

    ``update(y_true, y_pred, sample_weight=None)``: finite numbers of any real dtype (computed in
    float64); the first batch with rows fixes the number of outputs. ``multioutput`` is
    ``"uniform_average"`` (default), ``"raw_values"`` (an array, one value per output),
    ``"variance_weighted"`` (where it applies) or a list of output weights.
    """

    higher_is_better: ClassVar[bool | None] = False
    roles: ClassVar[tuple[str, ...]] = ("y_true", "y_pred")
    convention: ClassVar[str | None] = TRUTH_AND_PREDICTION
    prediction: ClassVar[str | None] = "values"
    #: Whether ``multioutput="variance_weighted"`` applies.
    variance_weighted: ClassVar[bool] = False
    #: ``"log1p"`` for the log metrics: inputs must be non-negative.
    transform: ClassVar[str | None] = None
    #: The kind of moment state the formula reads.
    moments: ClassVar[type[Moments]] = CoMoments

    def __init__(self, *, multioutput: Any = "uniform_average") -> None:
        self.multioutput = check_multioutput(multioutput, self.variance_weighted)
        super().__init__()

    def get_config(self) -> dict[str, Any]:
        return {"multioutput": self.multioutput}

    def _make_state(self) -> State:
        return self.moments(self.transform)

    def _share_key(self) -> Hashable:
        """Parsing reads the transform (in the state key), a list multioutput and the state."""
        multioutput = None if isinstance(self.multioutput, str) else canonical_json(self.multioutput)
        code = (type(self)._validate, type(self)._apply, type(self)._make_state)
        return ("regression", self._state.share_key(), multioutput, code)

    def _row_checker(self, state: Any) -> Any:
        cls = type(self)
        plain = (  # a subclass parsing or applying its own way needs the pair
            cls._validate is RegressionMetric._validate
            and cls._parse is RegressionMetric._parse
            and cls._apply is RegressionMetric._apply
        )
        residual = plain and cls.moments is ResidualMoments and cls.transform is None
        return RegressionRows(self, state, residual=residual)

    def _validate(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> tuple[Any, ...]:
        if two_plain_arrays(y_true, y_pred, sample_weight) and type(self)._parse is RegressionMetric._parse:
            yt, yp = v.as_float(y_true, "y_true", (1,)), v.as_float(y_pred, "y_pred", (1,))
            return (*self._checked_pair(yt, yp), None)
        return self._parse(Inputs((y_true, y_pred), sample_weight))

    def _parse(self, inputs: Inputs) -> tuple[Any, ...]:
        yt, yp = self._checked_pair(inputs.floats(0, "y_true"), inputs.floats(1, "y_pred"))
        return yt, yp, inputs.weights(len(yt))

    def _checked_pair(self, yt: np.ndarray, yp: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Finite float arrays of truth and prediction checked against each other, the state's
        outputs and the options; ``(n,)`` with ``(n, 1)`` made one output either way."""
        v.check_length(yp, len(yt), "y_pred")
        k = 1 if yt.ndim == 1 else yt.shape[1]
        kp = 1 if yp.ndim == 1 else yp.shape[1]
        if k == 0:
            raise InputError(f"y_true: expected at least one output column, found shape {yt.shape}")
        if kp != k:
            raise InputError(f"y_pred: expected {k} outputs (the columns of y_true), found {kp}")
        if yt.ndim != yp.ndim:  # (n,) with (n, 1): one output either way
            yt, yp = yt.reshape(len(yt), 1), yp.reshape(len(yp), 1)
        expected = self._state.n_outputs
        if expected is not None and len(yt) and k != expected:
            raise InputError(f"y_true: expected {expected} outputs like earlier batches, found {k}")
        if (
            not isinstance(self.multioutput, str) and len(yt) and k != len(self.multioutput)
        ):  # [] is any width
            raise InputError(
                f"y_true: expected {len(self.multioutput)} outputs (the length of multioutput), found {k}"
            )
        if self.transform == "log1p":
            for arr, name in ((yt, "y_true"), (yp, "y_pred")):
                if arr.size and arr.min() < 0:
                    raise InputError(
                        f"{name}: expected non-negative values for {type(self).__name__} "
                        f"(log1p of targets and predictions), found {arr.min()}"
                    )
        return yt, yp

    def _apply(self, state: Any, batch: tuple[Any, ...]) -> None:
        state.update(*batch)

    def _apply_reweighted(
        self, states: list[Any], batch: tuple[Any, ...], counts: np.ndarray, inputs: Any
    ) -> list[Any] | None:
        """Every replicate at once (:meth:`Moments.reweighted`) where the state is a moment state
        updated the family's way."""
        if type(self)._apply is not RegressionMetric._apply:
            return None
        if not all(type(state) is self.moments for state in states):  # MaxError keeps extremes
            return None
        return self.moments.reweighted(states, *batch, counts)

    def _unapply(self, state: Any, batch: tuple[Any, ...] | None) -> None:
        if batch is None or not state.revertible:
            super()._unapply(state, batch)
        state.revert(*batch)

    def _is_empty(self, state: Any) -> bool:
        return state.weight <= 0


class ErrorMetric(RegressionMetric, base=True):
    """A metric of the residual ``y_true - y_pred`` alone (MAE, MSE, RMSE, mean error, MSLE,
    RMSLE): its state is :class:`~streammetrics.regression.moments.ResidualMoments`, shared by
    every error metric of a collection (not with R² and the correlations, which need the
    co-moments of y_true and y_pred)."""

    moments: ClassVar[type[Moments]] = ResidualMoments


class FractionExplained(RegressionMetric, base=True):
    """R² and explained variance: ``variance_weighted`` applies, and ``force_finite``."""

    higher_is_better: ClassVar[bool | None] = True
    variance_weighted: ClassVar[bool] = True

    def __init__(self, *, multioutput: Any = "uniform_average", force_finite: bool = True) -> None:
        if not isinstance(force_finite, (bool, np.bool_)):
            raise ValueError(f"force_finite: expected True or False, found {force_finite!r}")
        self.force_finite = bool(force_finite)
        super().__init__(multioutput=multioutput)

    def get_config(self) -> dict[str, Any]:
        return {"multioutput": self.multioutput, "force_finite": self.force_finite}
