"""The moment states of the regression metrics (maximum error aside).

:class:`CoMoments` keeps, per output column, for y_true (``t``), y_pred (``p``) and the residual
``r = y_true - y_pred``: a shift ``K`` (a value seen in the data), the weighted mean of
``x - K`` and the weighted sum of squared deviations ``M2 = sum w (x - mean)^2``; plus the
cross co-moment ``C = sum w (t - mean_t)(p - mean_p)``, the weighted sums of ``|r|`` (MAE) and
``|r| / max(|t|, eps)`` (MAPE), the total weight and the row count. :class:`ResidualMoments`
keeps the residual's part alone (shift, mean, M2 and the sum of ``|r|``): all that the error
metrics (MAE, MSE, RMSE, mean error, MSLE, RMSLE) read; :class:`TargetMoments` the y_true and
residual parts (shift, mean, M2 of each): all that NRMSE reads.

A batch is reduced in float64 with a two-pass algorithm (mean of the shifted values, then the
deviations from it) and folded in with Chan et al.'s / Pébay's pairwise formulas in their
weighted form::

    W = Wa + Wb,   d = mean_b - mean_a,   mean = mean_a + d Wb / W,
    M2 = M2a + M2b + d^2 Wa Wb / W,       C = Ca + Cb + d_t d_p Wa Wb / W.

Keeping the means relative to a shift taken from the data means that targets around 1e12 with
unit spread lose no precision: every subtraction of two nearby large values is exact
(Sterbenz), and only small numbers are ever squared. ``revert`` runs the same formulas
backwards (exact up to rounding).
"""

from __future__ import annotations

import copy
import functools
import math
from typing import Any

import numpy as np

from .._core.compiled import rowkernels
from .._core.replicates import replicate_sums
from .._core.schema import Array, Int, Number, Schema
from .._core.state import State
from .._core.validation import all_finite, check_factor
from .._core.workspace import work
from ..errors import InputError, MergeError, StateError

#: scikit-learn's MAPE epsilon.
EPS = float(np.finfo(np.float64).eps)
TRANSFORMS = (None, "log1p")


class Moments(State):
    """The machinery shared by :class:`CoMoments`, :class:`ResidualMoments` and :class:`TargetMoments`.

    A subclass names its moment rows (``ROWS``: which of y_true, y_pred and the residual it
    keeps, the residual last), whether it keeps the cross co-moment of the first two, and its
    weighted sums (``SUMS``). Everything else (batch reduction, pairwise merge, revert, scale,
    serialization with validation) is written once here.
    """

    revertible = True
    # (the shifts and means stay finite: a merge too far apart re-expresses them about 0)
    overflowing = ("m2", "cross", "sum_abs", "sum_ape")
    #: The moment rows, in order (the residual is always the last).
    ROWS: tuple[str, ...] = ()
    #: Whether the cross co-moment of y_true and y_pred is kept.
    CROSS = False
    #: The weighted sums kept besides the moments.
    SUMS: tuple[str, ...] = ()
    #: What the state is called in error messages.
    NAME = "moments"

    def __init__(self, transform: str | None = None) -> None:
        if transform not in TRANSFORMS:
            raise ValueError(f"transform: expected one of {list(TRANSFORMS)!r}, found {transform!r}")
        self._transform = transform
        self.reset()

    @classmethod
    def columns(cls, y_true: Any, y_pred: Any, residual: Any) -> tuple[Any, ...]:
        """The series of :attr:`ROWS`, in order, from y_true, y_pred and their residual."""
        series = {"true": y_true, "pred": y_pred, "residual": residual}
        return tuple(series[name] for name in cls.ROWS)

    @classmethod
    def arrays(cls) -> tuple[str, ...]:
        """The names of the per-output arrays, in serialization order."""
        return ("shift", "mean", "m2", *(("cross",) if cls.CROSS else ()), *cls.SUMS)

    # ------------------------------------------------------------------ protocol
    def config(self) -> dict[str, Any]:
        return {"transform": self._transform}

    def reset(self) -> None:
        self._commit(_n=0, n_outputs=None, **self._empty(0))

    def _empty(self, k: int) -> dict[str, Any]:
        """The fields of no weight over ``k`` outputs."""
        return {"weight": 0.0, **{name: np.zeros(self._shape(name, k)) for name in self.arrays()}}

    def _shape(self, name: str, k: int) -> tuple[int, ...]:
        return (len(self.ROWS), k) if name in ("shift", "mean", "m2") else (k,)

    @property
    def n_samples(self) -> int:
        return self._n

    # ------------------------------------------------------------------ views for formulas
    @property
    def mean_residual(self) -> np.ndarray:
        """Weighted mean of ``y_true - y_pred`` per output (accurate even when both are ~1e12)."""
        return self.shift[-1] + self.mean[-1]

    @property
    def ss_residual_centered(self) -> np.ndarray:
        """``sum w (r - mean_r)^2`` per output, r = y_true - y_pred."""
        return self.m2[-1]

    @property
    def ss_residual(self) -> np.ndarray:
        """``sum w (y_true - y_pred)^2`` per output (two non-negative terms, no cancellation)."""
        mr = self.mean_residual
        return self.m2[-1] + self.weight * mr * mr

    # ------------------------------------------------------------------ update / revert
    def update(
        self, y_true: np.ndarray, y_pred: np.ndarray, weights: np.ndarray | None, *, sign: int = 1
    ) -> None:
        """Add (``sign=1``) or remove (``sign=-1``) a batch of finite float64 arrays.

        ``y_true`` and ``y_pred`` are 1-D ``(n,)`` or 2-D ``(n, n_outputs)``; ``weights`` is
        ``None`` or ``(n,)`` non-negative. Atomic: the state changes only if nothing raises.
        """
        n = len(y_true)
        k = 1 if y_true.ndim == 1 else y_true.shape[1]
        if self.n_outputs is not None and k != self.n_outputs and n:
            raise InputError(f"y_true: expected {self.n_outputs} outputs like earlier batches, found {k}")
        if sign < 0 and n > self._n:
            raise InputError(f"y_true: cannot revert {n} rows from a state holding {self._n}")
        if self._transform == "log1p":
            y_true, y_pred = np.log1p(y_true), np.log1p(y_pred)
        batch = _batch_stats(y_true, y_pred, weights, self.shift if self.weight > 0 else None, type(self))
        if sign > 0:
            new = _add(self._fields(), batch)
        else:
            new = _subtract(self._fields(), batch)
        n_outputs = k if n and self.n_outputs is None else self.n_outputs
        n_after = self._n + sign * n
        if n_after == 0:
            self.reset()
            return
        if sign < 0 and n_after == 1 and new is not None:
            # One row left has no spread: make that exact instead of a rounding residue.
            new = {**new, **{name: np.zeros_like(new[name]) for name in ("m2", "cross") if name in new}}
        self._commit(_n=n_after, n_outputs=n_outputs, **self._assigned(new, k))

    @classmethod
    def reweighted(
        cls,
        states: list[Moments],
        y_true: np.ndarray,
        y_pred: np.ndarray,
        weights: np.ndarray | None,
        counts: np.ndarray,
    ) -> list[Moments] | None:
        """Each of ``states`` (of this class) updated with the batch under the row weights
        ``counts[r] * weights``, as new states; ``None`` where a value overflows (the caller then
        updates one state at a time, with :meth:`update`'s overflow handling).

        Every replicate's moments are weighted sums over the rows, so all of them come from a few
        matrix products ``counts @ f(rows)`` (:func:`~streammetrics._core.replicates.replicate_sums`), taken
        about a shift near the batch mean: for each column the data value nearest its mean, so a
        constant column has exact zero deviations, and ``M2 = sum w d^2 - W mean^2`` loses no
        digits to cancellation (every replicate's mean is near the batch's).
        """
        n = len(y_true)
        k = 1 if y_true.ndim == 1 else y_true.shape[1]
        outputs = states[0].n_outputs if states else None
        if outputs is not None and k != outputs and n:
            raise InputError(f"y_true: expected {outputs} outputs like earlier batches, found {k}")
        if not n:
            return [state.copy() for state in states]
        if states[0]._transform == "log1p":
            y_true, y_pred = np.log1p(y_true), np.log1p(y_pred)
        yt, yp = y_true.reshape(n, k), y_pred.reshape(n, k)
        with np.errstate(over="ignore", invalid="ignore"):
            res = yt - yp
            x = np.concatenate(cls.columns(yt, yp, res), axis=1)  # (n, rows * k)
            near = np.abs(x - x.mean(axis=0)).argmin(axis=0)
            shift = x[near, np.arange(x.shape[1])]
            dev = x - shift
            absolute = np.abs(res)
            columns = [dev, dev * dev, *([absolute] if "sum_abs" in cls.SUMS else [])]
            if cls.CROSS:
                columns.append(dev[:, :k] * dev[:, k : 2 * k])
            if "sum_ape" in cls.SUMS:
                columns.append(absolute / np.maximum(np.abs(yt), EPS))
            f = np.concatenate(columns, axis=1)
            if not np.isfinite(f).all():
                return None
            sums, totals = replicate_sums(counts, weights, f)
            if not np.isfinite(sums).all():
                return None
        return cls._with_batches(states, sums, totals, shift.reshape(len(cls.ROWS), k), n, k)

    @classmethod
    def _with_batches(
        cls, states: list[Moments], sums: np.ndarray, totals: np.ndarray, shift: np.ndarray, n: int, k: int
    ) -> list[Moments]:
        """Copies of ``states``, replicate ``r`` with ``n`` more rows whose weighted sums about
        ``shift`` are ``sums[r]`` (total weight ``totals[r]``): the pairwise combination of
        :func:`_add` for every replicate at once, with the same arithmetic element by element."""
        rows, r = len(cls.ROWS), len(states)
        c = rows * k
        held = np.array([s.weight > 0 for s in states], bool)
        theirs = totals > 0
        with np.errstate(invalid="ignore", divide="ignore"):
            mean_b = sums[:, :c] / totals[:, None]
        mean_b[~theirs] = 0.0
        m2_b = np.maximum(sums[:, c : 2 * c] - totals[:, None] * mean_b * mean_b, 0.0)
        parts, at = {}, 2 * c
        if "sum_abs" in cls.SUMS:
            parts["sum_abs"] = sums[:, at : at + k]
            at += k
        if cls.CROSS:
            parts["cross"] = sums[:, at : at + k] - totals[:, None] * mean_b[:, :k] * mean_b[:, k : 2 * k]
            at += k
        if "sum_ape" in cls.SUMS:
            parts["sum_ape"] = sums[:, at : at + k]

        def ours(name: str, shape: tuple[int, ...]) -> np.ndarray:
            out = np.zeros((r, *shape))
            for i in np.flatnonzero(held):
                out[i] = getattr(states[i], name)
            return out

        w_a = np.array([s.weight for s in states], np.float64)
        shift_a = ours("shift", (rows, k))
        shift_a[~held] = shift  # a state without weight takes the batch's shift
        mean_b = mean_b.reshape(r, rows, k) + (shift - shift_a)  # their means about our shift
        mean_a, m2_a = ours("mean", (rows, k)), ours("m2", (rows, k))
        total = w_a + totals
        with np.errstate(invalid="ignore", divide="ignore"):
            frac = np.where(theirs & held, totals / total, 0.0)[:, None, None]
            factor = np.where(theirs & held, w_a * totals / total, 0.0)
        # one side without weight: the result is the other side, as _add returns it
        delta = np.where((theirs & held)[:, None, None], mean_b - mean_a, 0.0)
        mean = np.where(held[:, None, None], mean_a + delta * frac, mean_b)
        m2 = np.where(
            held[:, None, None], m2_a + m2_b.reshape(r, rows, k) + delta * delta * factor[:, None, None], 0.0
        )
        m2 = np.where((~held & theirs)[:, None, None], m2_b.reshape(r, rows, k), m2)
        fields = {"shift": shift_a, "mean": mean, "m2": m2}
        if cls.CROSS:
            cross_a = ours("cross", (k,))
            cross = cross_a + parts["cross"] + delta[:, 0] * delta[:, 1] * factor[:, None]
            fields["cross"] = np.where(
                held[:, None], np.where(theirs[:, None], cross, cross_a), parts["cross"]
            )
        for name in cls.SUMS:
            fields[name] = ours(name, (k,)) + parts[name]
        empty = ~held & ~theirs  # no weight on either side: the empty fields
        out = []
        for i, state in enumerate(states):
            new = copy.copy(state)  # every field is replaced below (states never change arrays in place)
            if empty[i]:
                values = state._empty(k)
            else:
                values = {"weight": float(total[i]), **{name: a[i] for name, a in fields.items()}}
            new._commit(
                _n=state._n + n, n_outputs=k if state.n_outputs is None else state.n_outputs, **values
            )
            out.append(new)
        return out

    def revert(self, y_true: np.ndarray, y_pred: np.ndarray, weights: np.ndarray | None) -> None:
        """Remove a batch that was added before (the inverse of :meth:`update`)."""
        self.update(y_true, y_pred, weights, sign=-1)

    def scale(self, factor: float) -> None:
        """Multiply every weight by ``factor`` (exponential forgetting); means are unchanged.

        Examples:
            >>> s = CoMoments()
            >>> s.update(np.array([1.0, 3.0]), np.array([1.0, 2.0]), None)
            >>> s.scale(0.5)
            >>> s.weight, s.ss_true.tolist(), s.mean_true.tolist()
            (1.0, [1.0], [2.0])
        """
        check_factor(factor)
        if factor == 0 or self.weight == 0:
            self._commit(**self._empty(self.n_outputs or 0))
            return
        scaled = {name: getattr(self, name) * factor for name in self.arrays()[2:]}  # shift, mean stay
        self._commit(weight=self.weight * factor, **scaled)

    def _fields(self) -> dict[str, Any]:
        return {"weight": self.weight, **{name: getattr(self, name) for name in self.arrays()}}

    def _assigned(self, fields: dict[str, Any] | None, k: int) -> dict[str, Any]:
        """The attributes to commit for ``fields`` (``None``: no weight over ``k`` outputs)."""
        if fields is None:
            return self._empty(k)
        return {"weight": float(fields["weight"]), **{name: fields[name] for name in self.arrays()}}

    # ------------------------------------------------------------------ merge / serialize
    def merge(self, other: State) -> None:
        self.check_mergeable(other)
        assert isinstance(other, Moments)
        if other.n_outputs is not None and self.n_outputs is not None and other.n_outputs != self.n_outputs:
            raise MergeError(
                f"cannot merge {self.NAME} of {other.n_outputs} outputs into {self.NAME} of {self.n_outputs}"
            )
        theirs, ours = other._fields(), self._fields()
        if other.weight > 0 and self.weight > 0:
            # Re-express their means relative to our shift: K_b - K_a is exact for nearby shifts.
            theirs["mean"] = other.mean + (other.shift - self.shift)
            theirs["shift"] = self.shift
            if not all_finite(theirs["mean"]):  # shifts too far apart (near the float maximum)
                far = ~np.isfinite(theirs["mean"])  # (those about 0)
                ours["shift"] = theirs["shift"] = np.where(far, 0.0, self.shift)
                ours["mean"] = np.where(far, self.shift + self.mean, self.mean)
                theirs["mean"] = np.where(far, other.shift + other.mean, theirs["mean"])
        new = _add(ours, theirs)
        k = other.n_outputs if self.n_outputs is None else self.n_outputs
        fields = self._assigned(None if new is None else {n: _copy(v) for n, v in new.items()}, k or 0)
        self._commit(n_outputs=k, _n=self._n + other._n, **fields)

    def to_dict(self) -> dict[str, Any]:
        return {
            "n_samples": self._n,
            "n_outputs": self.n_outputs,
            "weight": self.weight,
            **{name: getattr(self, name) for name in self.arrays()},
        }

    @classmethod
    def _schema(cls) -> Schema:
        """The fields of this state's dict."""
        return _schema_of(cls)

    @classmethod
    def _stored(cls) -> tuple[str, ...]:
        """The per-output arrays of this state's dict."""
        return cls.arrays()

    def load_dict(self, data: dict[str, Any]) -> None:
        values = self._schema().read(data)
        self._commit(
            _n=values["n_samples"],
            n_outputs=values["n_outputs"],
            weight=values["weight"],
            **{name: values[name] for name in self._stored()},
        )

    def check(self) -> None:
        fields = self._schema()
        fields.check(self.to_dict())
        if self._n == 0 and (self.weight != 0 or self.n_outputs is not None):
            raise StateError(f"{fields.where}: no rows but a weight or an output count")
        if self._n and self.n_outputs is None:
            raise StateError(f"{fields.where}: rows but no output count")
        arrays = [getattr(self, name) for name in self.arrays()]
        if self.weight == 0 and any(a.any() for a in arrays):
            raise StateError(f"{fields.where}: moments without weight")
        if self.CROSS:  # Cauchy-Schwarz: |C| <= sqrt(M2_t M2_p), up to rounding
            bound = np.sqrt(self.m2[0]) * np.sqrt(self.m2[1])  # (the product may underflow)
            if np.any(np.isnan(self.cross) & np.isfinite(bound)):
                raise StateError(f"{fields.where}: cross co-moment NaN beside finite second moments")
            if np.any(np.abs(self.cross) > bound * (1 + 1e-6) + 1e-300):
                raise StateError(f"{fields.where}: cross co-moment beyond sqrt(m2_true * m2_pred)")


@functools.cache
def _schema_of(cls: type[Moments]) -> Schema:
    """The fields of a moment state's dict: per output, a moment row for each of ``cls.ROWS``."""
    rows = len(cls.ROWS)
    # (the second moments and the sums may have grown past the float range: inf, never NaN;
    # the cross moment, a sum of terms of both signs, NaN where overflows of both signs met)
    moments = {
        "shift": Array("if", dtype="float64", shape=(rows, "n_outputs")),
        "mean": Array("if", dtype="float64", shape=(rows, "n_outputs")),
        "m2": Array("if", dtype="float64", shape=(rows, "n_outputs"), non_negative=True, infinite=True),
        "cross": Array("if", dtype="float64", shape=("n_outputs",), finite=False),
    }
    return Schema(
        f"{cls.__name__} state",
        n_samples=Int(low=0),
        n_outputs=Int(low=1, optional=True),
        weight=Number(low=0),
        **{
            name: moments.get(name)
            or Array("if", dtype="float64", shape=("n_outputs",), non_negative=True, infinite=True)
            for name in cls.arrays()
        },
    )


class _TrueRow(Moments):
    """The views of a moment state whose first row is y_true."""

    @property
    def mean_true(self) -> np.ndarray:
        """Weighted mean of y_true per output."""
        return self.shift[0] + self.mean[0]

    @property
    def ss_true(self) -> np.ndarray:
        """``sum w (y_true - mean_true)^2`` per output."""
        return self.m2[0]


def _earlier_state(data: Any, full_kind: type[Moments], kind: type[Moments], transform: str | None) -> Any:
    """``data`` itself, or, for a dict of ``full_kind`` (a state kept by earlier versions, with
    more rows and sums), the rows and sums of ``kind`` in it, after every check of a
    ``full_kind`` state (the cross moment's bound included); other fields (a range) pass."""
    if not (
        isinstance(data, dict) and set(data) >= {"n_samples", "n_outputs", "weight", *full_kind.arrays()}
    ):
        return data
    full = full_kind(transform)
    full.load_dict(data)
    full.check()
    rows = [full_kind.ROWS.index(name) for name in kind.ROWS]
    part = {name: value for name, value in full.to_dict().items() if name not in full_kind.arrays()}
    part.update({name: getattr(full, name)[rows] for name in ("shift", "mean", "m2")})
    part.update({name: getattr(full, name) for name in kind.arrays() if name not in part})
    return part


class CoMoments(_TrueRow):
    """Weighted co-moments of (y_true, y_pred, residual) per output column, mergeable exactly.

    ``transform="log1p"`` stores the moments of ``log1p(y)`` instead of ``y``. Rows ``t``,
    ``p``, ``r`` of the ``(3, n_outputs)`` arrays ``shift``, ``mean`` and ``m2`` are y_true,
    y_pred and the residual ``y_true - y_pred``. The state of R², explained variance, the
    correlations and MAPE.

    Examples:
        >>> import numpy as np
        >>> s = CoMoments()
        >>> s.update(np.array([1.0, 2.0, 3.0]), np.array([1.5, 2.0, 2.0]), None)
        >>> s.n_samples, s.weight, s.mean_true.tolist(), s.ss_true.tolist()
        (3, 3.0, [2.0], [2.0])
        >>> s.ss_residual.tolist()  # sum of squared residuals: 0.25 + 0 + 1
        [1.25]
    """

    ROWS = ("true", "pred", "residual")
    CROSS = True
    SUMS = ("sum_abs", "sum_ape")
    NAME = "co-moments"

    @property
    def mean_pred(self) -> np.ndarray:
        """Weighted mean of y_pred per output."""
        return self.shift[1] + self.mean[1]

    @property
    def ss_pred(self) -> np.ndarray:
        """``sum w (y_pred - mean_pred)^2`` per output."""
        return self.m2[1]


class ResidualMoments(Moments):
    """Weighted moments of the residual ``y_true - y_pred`` alone, and the sum of ``|residual|``.

    The state of the error metrics (MAE, MSE, RMSE, the mean error; MSLE and RMSLE with
    ``transform="log1p"``): everything they read, a third of the work of :class:`CoMoments`
    per batch, and one number per row on the per-sample path. ``shift``, ``mean`` and ``m2``
    are ``(1, n_outputs)``.

    Examples:
        >>> import numpy as np
        >>> s = ResidualMoments()
        >>> s.update(np.array([1.0, 2.0, 3.0]), np.array([1.5, 2.0, 2.0]), None)
        >>> s.weight, s.ss_residual.tolist(), s.sum_abs.tolist()  # residuals -0.5, 0, 1
        (3.0, [1.25], [1.5])
    """

    ROWS = ("residual",)
    SUMS = ("sum_abs",)
    NAME = "residual moments"

    def load_dict(self, data: dict[str, Any]) -> None:
        """Load a state dict; a :class:`CoMoments` dict (the state the error metrics kept in
        earlier versions) is read too: its residual part is exactly this state."""
        super().load_dict(_earlier_state(data, CoMoments, ResidualMoments, self._transform))


class TargetMoments(_TrueRow):
    """Weighted moments of y_true and of the residual ``y_true - y_pred`` per output column.

    The state of NRMSE: its mean, standard deviation and L2 norm of y_true and its sum of squared
    residuals, and nothing it does not read (two moment rows of the three of :class:`CoMoments`,
    no cross moment, no MAE/MAPE sums). ``shift``, ``mean`` and ``m2`` are ``(2, n_outputs)``.

    Examples:
        >>> import numpy as np
        >>> s = TargetMoments()
        >>> s.update(np.array([1.0, 2.0, 3.0]), np.array([1.5, 2.0, 2.0]), None)
        >>> s.mean_true.tolist(), s.ss_true.tolist(), s.ss_residual.tolist()
        ([2.0], [2.0], [1.25])
    """

    ROWS = ("true", "residual")
    NAME = "target moments"

    def load_dict(self, data: dict[str, Any]) -> None:
        """Load a state dict; a :class:`CoMoments` dict (the state NRMSE kept in earlier
        versions) is read too: its y_true and residual rows are exactly this state."""
        super().load_dict(_earlier_state(data, CoMoments, TargetMoments, self._transform))


# ---------------------------------------------------------------------- batch reduction
#: Elements per scratch array: a batch is reduced in chunks of at most this many values, in
#: per-thread work arrays reused across calls (no page faults for fresh temporaries, cache-sized).
CHUNK = 1 << 17


def _scratch(shape: tuple[int, ...]) -> list[np.ndarray]:
    return list(work(("moments",), (5, *shape)))


def _wsum(x: np.ndarray, w: np.ndarray | None, tmp: np.ndarray) -> np.ndarray:
    """Column sums of ``w * x`` (pairwise summation for 1-D; no BLAS threads)."""
    if w is None:
        return _colsum(x)
    np.multiply(x, w if x.ndim == 1 else w[:, None], out=tmp)
    return _colsum(tmp)


def _wdot(a: np.ndarray, b: np.ndarray, w: np.ndarray | None, tmp: np.ndarray) -> np.ndarray:
    """Column sums of ``w * a * b`` (unweighted 1-D: a BLAS dot product, one pass without a
    temporary; its blocked sums over a chunk of :data:`CHUNK` values are as accurate as the
    pairwise sum's for these purposes, well within 1e-12)."""
    if w is None and a.ndim == 1:
        return np.dot(a, b).reshape(1)
    np.multiply(a, b, out=tmp)
    if w is not None:
        tmp *= w if a.ndim == 1 else w[:, None]
    return _colsum(tmp)


def _colsum(x: np.ndarray) -> np.ndarray:
    """Column sums: pairwise ``sum`` for 1-D; ``einsum`` for 2-D (several times faster than
    ``sum(axis=0)`` over a short inner axis)."""
    if x.ndim == 1:
        return x.sum(keepdims=True)
    return np.einsum("ij->j", x)


def _batch_stats(
    y_true: np.ndarray,
    y_pred: np.ndarray,
    w: np.ndarray | None,
    shift: np.ndarray | None,
    kind: type[Moments],
) -> dict[str, Any] | None:
    """Weighted moments (of ``kind``) of one batch relative to ``shift`` (or to its first
    weighted row).

    Chunks of at most :data:`CHUNK` values are reduced two-pass and combined pairwise.
    """
    n = len(y_true)
    k = 1 if y_true.ndim == 1 else y_true.shape[1]
    rows = max(1, CHUNK // k)
    out = None
    for lo in range(0, n, rows):
        hi = min(n, lo + rows)
        part = _chunk_stats(y_true[lo:hi], y_pred[lo:hi], None if w is None else w[lo:hi], shift, kind)
        if part is not None:
            shift = part["shift"]
            out = part if out is None else _add(out, part)
    return out


def _chunk_stats(
    y_true: np.ndarray,
    y_pred: np.ndarray,
    w: np.ndarray | None,
    shift: np.ndarray | None,
    kind: type[Moments],
) -> dict[str, Any] | None:
    if not len(y_true):
        return None
    if (
        rowkernels is not None
        and y_true.ndim == 1
        and len(y_true) <= KERNEL_ROWS
        and _all_float64(y_true, y_pred, w)
    ):
        status, out = _compiled_chunk(y_true, y_pred, w, shift, kind)
        if status != OVERFLOWED:
            return out
    total = float(len(y_true)) if w is None else float(w.sum())
    if total <= 0:
        return None
    res, dt, dp, dr, tmp = _scratch(y_true.shape)
    np.subtract(y_true, y_pred, out=res)
    columns = kind.columns(y_true, y_pred, res)
    devs = (dt, dp, dr)[-len(columns) :]  # (the residual's always dr)
    if shift is None:
        first = 0 if w is None else int(np.argmax(w > 0))
        shift = np.stack([np.atleast_1d(x[first]) for x in columns]).astype(np.float64)
    one = y_true.ndim == 1
    means = []
    for x, dev, k in zip(columns, devs, shift, strict=True):
        np.subtract(x, k[0] if one else k, out=dev)
        m = _wsum(dev, w, tmp) / total
        dev -= m[0] if one else m
        means.append(m)
    mean = np.array(means)  # (equal shapes: np.stack's result, at a quarter of its cost)
    # the hot path's only cost: a few numbers tested in Python (a NumPy reduction costs 2 µs)
    if not (all(map(math.isfinite, mean.ravel().tolist())) if mean.size <= 16 else math.isfinite(mean.sum())):
        # A difference overflowed (a residual or a deviation beyond float range): redo the chunk
        # with those rows scaled down by a power of two, so that sums give inf, not NaN.
        return _overflowed_chunk(y_true, y_pred, w, shift, kind, total, ~np.isfinite(mean))
    out = {
        "weight": total,
        "shift": shift,
        "mean": mean,
        "m2": np.array([_wdot(d, d, w, tmp) for d in devs]),
    }
    if kind.CROSS:
        out["cross"] = _wdot(dt, dp, w, tmp)
    if "sum_abs" in kind.SUMS or "sum_ape" in kind.SUMS:
        np.abs(res, out=res)
    if "sum_abs" in kind.SUMS:
        out["sum_abs"] = _wsum(res, w, tmp)
    if "sum_ape" in kind.SUMS:
        np.abs(y_true, out=dt)
        np.maximum(dt, EPS, out=dt)
        res /= dt
        out["sum_ape"] = _wsum(res, w, tmp)
    return out


#: The series codes of the compiled moments kernel (``_rowkernels.moments_1d``).
_SERIES = {"true": 0, "pred": 1, "residual": 2}
#: The kernel's status where a mean is not finite (a difference overflowed): the NumPy path then
#: takes the chunk (:func:`_overflowed_chunk`).
OVERFLOWED = 2
#: The longest 1-D chunk the kernel takes: a training step's batch, where NumPy's dozen calls, not
#: the arithmetic, are the cost; longer ones keep NumPy's passes, as fast per value.
KERNEL_ROWS = 4096


def _all_float64(*arrays: np.ndarray | None) -> bool:
    """Whether every array given is float64 (the kernel reads no other type; ``None``: no array)."""
    return all(a is None or a.dtype == np.float64 for a in arrays)


def _compiled_chunk(
    y_true: np.ndarray,
    y_pred: np.ndarray,
    w: np.ndarray | None,
    shift: np.ndarray | None,
    kind: type[Moments],
) -> tuple[int, dict[str, Any] | None]:
    """:func:`_chunk_stats` of 1-D values by one compiled call: the same fields, shapes and
    formulas (the sums pairwise, in NumPy's blocking; the unweighted sums of squares too, where
    NumPy's path takes BLAS's dot product: the last bits may differ). The kernel's status, and
    the fields (``None`` for no positive weight, or when a mean overflowed)."""
    rows = len(kind.ROWS)
    buf = np.empty(3 * rows + 4)
    assert rowkernels is not None
    status = rowkernels.moments_1d(
        np.ascontiguousarray(y_true),
        np.ascontiguousarray(y_pred),
        None if w is None else np.ascontiguousarray(w),
        tuple(_SERIES[name] for name in kind.ROWS),
        None if shift is None else np.ascontiguousarray(shift, dtype=np.float64).ravel(),
        kind.CROSS,
        "sum_abs" in kind.SUMS,
        "sum_ape" in kind.SUMS,
        buf,
        len(y_true),
    )
    if status != 1:
        return status, None
    column = buf[1:].reshape(-1, 1)
    out = {
        "weight": float(buf[0]),
        "shift": column[:rows],
        "mean": column[rows : 2 * rows],
        "m2": column[2 * rows : 3 * rows],
    }
    extra = buf[1 + 3 * rows :]
    if kind.CROSS:
        out["cross"] = extra[0:1]
    if "sum_abs" in kind.SUMS:
        out["sum_abs"] = extra[1:2]
    if "sum_ape" in kind.SUMS:
        out["sum_ape"] = extra[2:3]
    return status, out


#: The scale of :func:`_overflowed_chunk`: values near the float64 maximum become about 1e128.
_DOWN = 2.0**-600
_UP = 2.0**600


def _overflowed_chunk(
    y_true: np.ndarray,
    y_pred: np.ndarray,
    w: np.ndarray | None,
    shift: np.ndarray,
    kind: type[Moments],
    total: float,
    bad: np.ndarray,
) -> dict[str, Any]:
    """The moments of a chunk where a difference overflows float64 (rows ``bad`` of the mean).

    Those outputs of those moment rows (y_true, y_pred or the residual) are computed on the
    values times ``2^-600`` (exact but for values below ``1e-127``, negligible beside the values
    beyond ``1e180`` that overflowed) and scaled back, so that what truly exceeds the float64 range is
    ``inf`` (as scikit-learn's ``mean((y - p)^2)`` is), never ``inf - inf = NaN``; a shift
    that overflowed (the first residual) becomes 0. The other rows are computed as usual.
    """
    one = y_true.ndim == 1
    shift = shift.copy()
    with np.errstate(over="ignore", invalid="ignore"):
        res = y_true - y_pred
        columns = kind.columns(y_true, y_pred, res)
        means, devs, ups = [], [], []
        for j, x in enumerate(columns):
            # per output: 2^-600 where a difference overflowed (an overflowed deviation makes
            # that output's sum of squares inf anyway), 1 elsewhere (no underflow of squares)
            down = np.where(bad[j], _DOWN, 1.0)
            d = down[0] if one else down
            if bad[j].any():
                x = (y_true * d - y_pred * d) if x is res else x * d
                shift[j] = np.where(np.isfinite(shift[j]), shift[j], 0.0)
            k = shift[j] * down
            dev = x - (k[0] if one else k)
            m = _wsum(dev, w, np.empty_like(dev)) / total
            dev -= m[0] if one else m
            up = np.where(bad[j], _UP, 1.0)
            means.append(m * up)
            devs.append(dev)
            ups.append(up)
        out = {
            "weight": total,
            "shift": shift,
            "mean": np.stack(means),
            "m2": np.stack(
                [_wdot(d, d, w, np.empty_like(d)) * u * u for d, u in zip(devs, ups, strict=True)]
            ),
        }
        if kind.CROSS:
            out["cross"] = _wdot(devs[0], devs[1], w, np.empty_like(devs[0])) * ups[0] * ups[1]
        np.abs(res, out=res)
        if "sum_abs" in kind.SUMS:
            out["sum_abs"] = _wsum(res, w, np.empty_like(res))
        if "sum_ape" in kind.SUMS:
            out["sum_ape"] = _wsum(res / np.maximum(np.abs(y_true), EPS), w, np.empty_like(res))
    return out


def _copy(v: Any) -> Any:
    return v.copy() if isinstance(v, np.ndarray) else v


#: The fields that add up (and subtract) plainly.
_SUMS = ("sum_abs", "sum_ape")


def _add(a: dict[str, Any], b: dict[str, Any] | None) -> dict[str, Any] | None:
    """Chan/Pébay pairwise combination; ``a`` and ``b`` share one shift (or one is empty)."""
    if b is None or b["weight"] <= 0:
        return None if a["weight"] <= 0 else a
    if a["weight"] <= 0:
        return b
    wa, wb = a["weight"], b["weight"]
    total = wa + wb
    delta = b["mean"] - a["mean"]
    factor = wa * wb / total
    mean = a["mean"] + delta * (wb / total)
    if not all_finite(delta):  # means of opposite signs near the float maximum
        with np.errstate(over="ignore", invalid="ignore"):
            mean = np.where(np.isfinite(delta), mean, a["mean"] * (wa / total) + b["mean"] * (wb / total))
    out = {
        "weight": total,
        "shift": a["shift"],
        "mean": mean,
        "m2": a["m2"] + b["m2"] + delta * delta * factor,
    }
    if "cross" in a:
        out["cross"] = a["cross"] + b["cross"] + delta[0] * delta[1] * factor
    for name in _SUMS:
        if name in a:
            out[name] = a[name] + b[name]
    return out


def _subtract(t: dict[str, Any], b: dict[str, Any] | None) -> dict[str, Any] | None:
    """The inverse of :func:`_add`: the part ``a`` such that ``_add(a, b) == t``."""
    if b is None or b["weight"] <= 0:
        return None if t["weight"] <= 0 else t
    total, wb = t["weight"], b["weight"]
    wa = total - wb
    if wa <= 1e-12 * total:
        if wa < -1e-9 * total:
            raise InputError("sample_weight: reverting more weight than was added")
        return None
    delta_ta = t["mean"] - b["mean"]  # mean_t - mean_b = (mean_a - mean_b) Wa / W
    mean_a = t["mean"] + delta_ta * (wb / wa)
    delta = b["mean"] - mean_a
    factor = wa * wb / total
    out = {
        "weight": wa,
        "shift": t["shift"],
        "mean": mean_a,
        "m2": np.maximum(t["m2"] - b["m2"] - delta * delta * factor, 0.0),
    }
    if "cross" in t:
        out["cross"] = t["cross"] - b["cross"] - delta[0] * delta[1] * factor
    for name in _SUMS:
        if name in t:
            out[name] = np.maximum(t[name] - b[name], 0.0)
    return out
