"""The per-sample fast path: one-row updates without creating NumPy arrays per call.

Online loops (river-style) call ``update`` with one sample thousands of times per second. On
that path, building and validating NumPy arrays costs tens of microseconds per call. Instead,
``metric.update(y_true, y_pred)`` with two scalars (and ``update_one``) checks the row with
plain Python (same rules, same error messages as the batch validation, raised at once, the
accumulator unchanged) and appends it to a buffer; the buffer is applied as one vectorized
batch when it is full or before anything reads the state: :class:`OneRowMixin` makes the
metric's ``_state`` a property that applies the buffered rows first, so no reader (the base
class, a family's own ``compute`` arguments, formulas, serialization, copies) can miss one.

This module knows no family: it keeps the generic buffer of one state and the
flush-before-read. Each family's row parser (``<family>/rows.py``, returned by
:meth:`~streammetrics.Metric._row_checker`) checks a row and says how it is stored: as the code
of an admitted ``(y_true, y_pred)`` label pair (one dict look-up and one ``array.append``: the
confusion family, the contingency table, decisions) or as flat values (one ``list.extend``: real
values, residuals, a label and a score), with its own inlined per-row function for the common
case. Both appends are atomic, so concurrent callers need no lock; flushes take the metric's
lock, and rows leave the buffer only once applied. Metrics without a row parser take a one-row
batch.

Examples:
    >>> import streammetrics as sm
    >>> c = sm.MetricCollection([sm.Accuracy(), sm.F1()])
    >>> for y, p in [(0, 0), (1, 1), (1, 0), (0, 0)]:
    ...     _ = c.update_one(y, p)
    >>> c.compute()
    {'accuracy': 0.75, 'f1': 0.6666666666666666}
"""

from __future__ import annotations

import array
import copy
import threading
from collections.abc import Callable
from typing import Any

import numpy as np

from ..errors import InputError
from .metric import SCALAR_TYPES, Metric, roles_of
from .rowvalues import weight_of

#: Rows buffered before a vectorized flush.
FLUSH_EVERY = 16384


def innermost(metric: Metric[Any]) -> Metric[Any]:
    """The metric inside window/decay wrappers (whose input rules a row follows): wrappers that
    pass their rows on unchanged, not those whose rows carry more arguments (a
    :class:`~streammetrics.Sliced` metric's rows end with their keys)."""
    inner = getattr(metric, "metric", None)
    if not isinstance(inner, Metric) or getattr(type(metric), "adds_arguments", False):
        return metric
    return innermost(inner)


# ----------------------------------------------------------------------------- the buffer
#: Distinct (y_true, y_pred) pairs given a code before further new pairs take the checked path.
MAX_PAIRS = 1 << 16


class RowBuffer:
    """One-row updates of one accumulator, buffered and applied as vectorized batches.

    ``owner`` validates and applies the flushed batch to ``owner._state`` (a plain metric, the
    leader of a collection group, a window); ``rules`` is the metric whose input rules the rows
    follow (the innermost metric of a window). The family's row parser (``rules._row_checker``,
    in the family's ``rows.py``) says how a row is checked and stored; the buffer knows two
    encodings:

    * ``"codes"``: rows of two labels from a small set (the confusion family, the contingency
      table, decisions) get one small integer per distinct admitted pair; a row costs one dict
      look-up and one ``array.append``;
    * ``"values"``: ``width`` values per row in a flat list (one ``list.extend``); the parser
      encodes a checked row (:meth:`encode`), decodes the buffered values into the batch
      arguments (``decode``), and may give its own inlined per-row function (``hot_function``)
      and collection pusher (``pusher``).

    Both appends are atomic, so concurrent callers need no lock. Rows the parser does not take
    as is go through its full check under the owner's lock; weighted rows are applied at once.
    Metrics without a row parser get each row applied at once through ``owner.update``. The
    order of rows is kept (windows depend on it).
    """

    __slots__ = (
        "checker",
        "coded",
        "codes",
        "decode",
        "every",
        "fast",
        "flushing",
        "name",
        "owner",
        "pair_p",
        "pair_t",
        "pairs",
        "rows",
        "width",
    )

    def __init__(self, owner: Metric[Any], rules: Metric[Any] | None = None, name: str = "") -> None:
        self.owner = owner
        #: The member this buffer feeds, named in errors (collections).
        self.name = name
        self.checker = (rules or innermost(owner))._row_checker(owner._state)
        self.fast: Callable[[Any, Any], bool] = self.checker.fast_test() if self.checker else _never
        #: Whether rows are pair codes (else flat values).
        self.coded = getattr(self.checker, "encoding", None) == "codes"
        #: Values per buffered row (``"values"`` encoding).
        self.width: int = getattr(self.checker, "width", 2)
        #: Buffered rows as flat values, ``width`` per row.
        self.rows: list[Any] = []
        #: Buffered pair codes (``"codes"`` encoding).
        self.codes = array.array("q")
        #: The admitted pairs -> code (cleared on refresh); every pair ever coded -> code, and
        #: the pairs by code (the decoding lists).
        self.pairs: dict[tuple[Any, Any], int] = {}
        self.every: dict[tuple[Any, Any], int] = {}
        self.pair_t: list[Any] = []
        self.pair_p: list[Any] = []
        self.decode: tuple[int, np.ndarray, np.ndarray] = (0, np.empty(0), np.empty(0))
        #: Set while :meth:`flush` applies rows (a read of the state from inside returns at once).
        self.flushing = False

    def __len__(self) -> int:
        return len(self.codes) + len(self.rows) // self.width

    def check(self, y_true: Any, y_pred: Any, w: Any = None) -> tuple[Any, ...]:
        """Validate one row (raises :class:`InputError`); returns it ready for :meth:`push`."""
        weight = weight_of(w)
        if self.checker is None:
            return (y_true, y_pred, weight, None)
        yt, yp, labels = self.checker.check(y_true, y_pred)
        return (yt, yp, weight, self.checker.admit(labels))

    def _code(self, yt: Any, yp: Any) -> int | None:
        """The code of an admitted pair, giving it one if new (``None`` past :data:`MAX_PAIRS`)."""
        key = (yt, yp)
        code = self.every.get(key)
        if code is None:
            if len(self.pair_t) >= MAX_PAIRS:
                return None
            code = len(self.pair_t)
            self.pair_t.append(yt)  # the decoding lists first: a code is never ahead of them
            self.pair_p.append(yp)
            self.every[key] = code
        self.pairs[key] = code
        return code

    def push(self, row: tuple[Any, ...]) -> None:
        """Append a row made by :meth:`check` (call with the owner's lock held).

        A weighted row, or one the parser does not buffer, is applied at once (after the
        buffered rows, keeping the order).
        """
        yt, yp, weight, new = row
        if self.checker is not None and weight is None:
            self.checker.commit(new)
            if self.coded:
                code = self._code(yt, yp)
                if code is not None:
                    self.codes.append(code)
                    if len(self.codes) >= FLUSH_EVERY:
                        self.flush()
                    return
            else:
                encode = getattr(self.checker, "encode", None)
                values = (yt, yp) if encode is None else encode(yt, yp)
                if values is not None:
                    self.rows.extend(values)
                    if len(self.rows) >= self.width * FLUSH_EVERY:
                        self.flush()
                    return
        self.flush()
        self.owner.update([yt], [yp], sample_weight=None if weight is None else [weight])

    def add(self, y_true: Any, y_pred: Any, w: Any = None) -> None:
        """Check and append one row (the checked path)."""
        with self.owner._lock:
            self.push(_checked(self, y_true, y_pred, w))

    def _decoder(self) -> tuple[np.ndarray, np.ndarray]:
        n, t, p = self.decode
        if n != len(self.pair_t):
            n = len(self.pair_t)
            t, p = np.array(self.pair_t[:n]), np.array(self.pair_p[:n])
            decode_pairs = getattr(self.checker, "decode_pairs", None)
            if decode_pairs is not None:  # a pair may stand for several inputs (a score's label)
                t, p = decode_pairs(t, p)
            self.decode = (n, t, p)
        return t, p

    def flush(self) -> None:
        """Apply the buffered rows as one batch.

        The rows leave the buffer only once applied (the state change is atomic): whatever is
        raised meanwhile (an error, a KeyboardInterrupt), they stay buffered and nothing
        acknowledged is lost. Rows appended by other threads meanwhile wait for the next flush.
        """
        owner = self.owner
        with owner._lock:
            if self.flushing:  # a read of the state from inside this flush
                return
            self.flushing = True
            try:
                self._flush_codes(owner)
                self._flush_rows(owner)
            finally:
                self.flushing = False

    def _flush_codes(self, owner: Metric[Any]) -> None:
        codes = self.codes
        n = len(codes)
        if n:
            t, p = self._decoder()
            idx = np.frombuffer(codes[:n], dtype=np.int64)
            owner._apply(owner._state, owner._validate(t[idx], p[idx]))
            del codes[:n]

    def _flush_rows(self, owner: Metric[Any]) -> None:
        rows = self.rows
        n = len(rows)
        n -= n % self.width  # a row being appended by another thread waits
        if not n:
            return
        flat = rows[:n]
        decode = getattr(self.checker, "decode", None)
        args = (np.asarray(flat[0::2]), np.asarray(flat[1::2])) if decode is None else decode(flat)
        owner._apply(owner._state, owner._validate(*args))
        del rows[:n]

    def refresh(self) -> None:
        """Re-read what the checker knows from the owner's state (after a batch update, a
        revert, a merge or a reset); pairs are admitted again through the checked path."""
        if self.checker is not None and self.checker.refresh(self.owner._state) is not False:
            self.pairs.clear()  # (``False``: the checker says nothing changed, the pairs still hold)

    def pusher(self) -> Callable[[Any, Any], bool]:
        """A function ``(y_true, y_pred) -> bool`` appending the row when it is of the fast kind
        as is (``True``), or changing nothing (``False``); it never flushes nor raises. For
        collections, with their lock held: all buffers take the row, or :meth:`undo` takes it
        back from those that did."""
        family = getattr(self.checker, "pusher", None)
        push = None if family is None else family(self)
        if push is not None:
            return push
        if self.coded:
            get, append = self.pairs.get, self.codes.append

            def push_code(t: Any, p: Any) -> bool:
                try:
                    code = get((t, p))
                except TypeError:  # unhashable (an array-like): the check says why
                    return False
                if code is None:
                    return False
                append(code)
                return True

            return push_code
        rows, fast = self.rows, self.fast

        def push_pair(t: Any, p: Any) -> bool:
            try:
                if not fast(t, p):
                    return False
            except (TypeError, ValueError, OverflowError):  # unhashable, array-like or huge
                return False
            rows.extend((t, p))
            return True

        return push_pair

    def undo(self) -> None:
        """Take back the row the :meth:`pusher` appended last."""
        if self.coded:
            self.codes.pop()
        else:
            del self.rows[-self.width :]

    def updater(self, result: Any, fallback: Callable[..., Any] | None = None) -> Callable[..., Any]:
        """A function ``(y_true, y_pred, sample_weight=None, w=None) -> result``: the per-row hot path.

        ``w`` is river's name of the weight (either name works).

        ``fallback(y_true, y_pred, sample_weight)`` takes every call the hot path does not
        (default: the checked one-row path). Admitted label pairs are written out here (the
        ``"codes"`` encoding); a family's parser may give its own inlined function for the
        ``"values"`` encoding (``hot_function``), else the generic test-and-append is used.
        """
        slow = fallback or self.add
        flush, limit = self.flush, FLUSH_EVERY
        family = getattr(self.checker, "hot_function", None)
        if self.coded and family is not None:
            hot = family(self, limit, flush, slow, result)
            if hot is not None:
                return hot
        if self.coded:
            codes, append, get = self.codes, self.codes.append, self.pairs.get

            def update(y_true: Any, y_pred: Any, sample_weight: Any = None, w: Any = None) -> Any:
                if sample_weight is w is None:
                    try:
                        append(get((y_true, y_pred)))  # a miss appends None: TypeError
                    except TypeError:  # unknown pair, or unhashable / array-like values
                        pass
                    else:
                        if len(codes) >= limit:
                            flush()
                        return result
                slow(y_true, y_pred, sample_weight if w is None else w)
                return result

            return update
        rows = self.rows
        if family is not None:
            hot = family(self, self.width * limit, flush, slow, result)
            if hot is not None:
                return hot
        extend, fast = rows.extend, self.fast
        limit *= self.width

        def update(y_true: Any, y_pred: Any, sample_weight: Any = None, w: Any = None) -> Any:
            try:
                ok = sample_weight is w is None and fast(y_true, y_pred)
            except (
                TypeError,
                ValueError,
                OverflowError,
            ):  # unhashable, array-like or huge: the check says why
                ok = False
            if ok:
                extend((y_true, y_pred))
                if len(rows) >= limit:
                    flush()
            else:
                slow(y_true, y_pred, sample_weight if w is None else w)
            return result

        return update


def _never(t: Any, p: Any) -> bool:
    return False


def _checked(buffer: RowBuffer, y_true: Any, y_pred: Any, w: Any) -> tuple[Any, ...]:
    try:
        return buffer.check(y_true, y_pred, w)
    except InputError as err:
        if not buffer.name:
            raise
        raise InputError(f"{err} (member {buffer.name!r})") from None


def _group_updater(
    buffers: list[RowBuffer], lock: Any, result: Any, fallback: Callable[..., Any] | None = None
) -> Callable[..., Any]:
    """The hot path of several buffers fed the same row: all accept it, or none changes.

    Under the lock, each buffer's pusher appends the row if it is of its fast kind; if one
    declines, the buffers that took it give it back and the row takes the checked path (or,
    when it is not one row of scalars, ``fallback(y_true, y_pred, sample_weight)``: the batch
    update). Every :data:`FLUSH_EVERY` rows taken this way, all buffers are flushed.
    """
    pushes = [b.pusher() for b in buffers]
    acquire, release = lock.acquire, lock.release  # cheaper than a with statement
    left = FLUSH_EVERY

    def update_one(y_true: Any, y_pred: Any, sample_weight: Any = None, w: Any = None) -> Any:
        nonlocal left
        if w is not None:
            sample_weight = w
        acquire()
        try:
            if sample_weight is None:
                taken = 0
                for push in pushes:
                    if not push(y_true, y_pred):
                        break
                    taken += 1
                else:
                    left -= 1
                    if left <= 0:
                        left = FLUSH_EVERY
                        for b in buffers:
                            b.flush()
                    return result
                for b in buffers[:taken]:
                    b.undo()
            if fallback is None or (type(y_true) in SCALAR_TYPES and type(y_pred) in _ROW_PREDICTIONS):
                rows = [
                    _checked(b, y_true, y_pred, sample_weight) for b in buffers
                ]  # all checked, then pushed
                for b, row in zip(buffers, rows, strict=True):
                    b.push(row)
                return result
        finally:
            release()
        return fallback(y_true, y_pred, sample_weight)

    return update_one


def _one_row_of(metric: Any, width: int) -> Callable[..., Any]:
    """``update_one`` of a wrapper whose inner metric's rows are not ``(y_true, y_pred)``: as the
    inner metric's own (``Mean.update_one(value, w)``, ``McNemar.update_one(y, a, b, w)``), the
    first ``width`` values one row and the next, if given, its weight."""

    def update_one(*values: Any, w: Any = None) -> Any:
        if len(values) not in (width, width + 1):
            raise InputError(
                f"row: expected {width} values (then optionally the weight), found {len(values)}"
            )
        weight = values[width] if len(values) > width else w
        row = [[value] for value in values[:width]]
        return metric.update(*row, sample_weight=None if weight is None else [weight])

    return update_one


# ----------------------------------------------------------------------------- the wiring
#: What :meth:`OneRowMixin.hot_path` installs on an instance (never copied nor pickled).
_INSTALLED = ("_buffers", "update_one", "update", "_upstream", "_row_width")
#: Types of ``y_pred`` that make ``update(y_true, y_pred)`` with a scalar ``y_true`` one row.
_ROW_PREDICTIONS = SCALAR_TYPES | {dict}


class OneRowMixin:
    """Adds ``update_one(y_true, y_pred, w=None)`` to a :class:`Metric` subclass.

    The first call builds the row buffers and installs the hot-path function as the instance's
    ``update_one`` (so ``f = m.update_one`` taken once stays valid); every method that reads the
    state first applies the buffered rows (:meth:`_sync`), and every other write lets the
    buffers re-read the labels they know (:meth:`_refresh`). Subclasses with several states (collections) override
    :meth:`_row_buffers` to return one :class:`RowBuffer` per state.
    """

    def __init__(self) -> None:
        super().__init__()  # type: ignore[call-arg]
        self._install()

    # Every read of the state, wherever it happens (the base class, a family's own ``compute``,
    # a formula), first applies the buffered rows: a buffered row is never invisible.
    @property
    def _state(self) -> Any:
        d = self.__dict__
        for b in d.get("_buffers") or ():
            if b.codes or b.rows:
                b.flush()
        return d["_state_"]

    @_state.setter
    def _state(self, value: Any) -> None:
        self.__dict__["_state_"] = value

    def _install(self) -> None:
        """Build the hot path now when it is one buffer, so ``m.update`` found before the first
        call (``u = m.update; u(y, p)``) is already the fast one."""
        if type(self)._row_buffers is OneRowMixin._row_buffers:
            self.hot_path()

    def _row_buffers(self) -> list[RowBuffer]:
        return [RowBuffer(self)]  # type: ignore[arg-type]

    def update_one(self, y_true: Any, y_pred: Any, w: Any = None) -> Any:
        """Add one row (scalars; ``y_pred`` may be a dict of class probabilities); returns ``self``.

        Same rules and errors as ``update([y_true], [y_pred], sample_weight=[w])``, faster:
        no array is created per call. ``w=None`` or ``1`` is an unweighted row. ``update(y_true,
        y_pred)`` with two scalars takes the same path.
        """
        return self.hot_path()(y_true, y_pred, w)

    def hot_path(self) -> Callable[..., Any]:
        """The per-row function ``(y_true, y_pred, w=None) -> self`` (built once, then reused).

        A metric with one buffer also gets the hot path as its instance's ``update``: a call
        with two scalars is a dict look-up and an append, anything else falls through to the
        class's ``update`` (batches, weighted rows, new labels).
        """
        installed = self.__dict__.get("update_one")
        if installed is not None:
            return installed
        with self._lock:  # type: ignore[attr-defined]
            buffers = self._row_buffers()
            batch_update = type(self).update.__get__(self)

            def fallback(y_true: Any, y_pred: Any, sample_weight: Any) -> Any:
                return batch_update(y_true, y_pred, sample_weight=sample_weight)

            if len(buffers) == 1:
                fn = buffers[0].updater(self)
                inner = innermost(self)
                if len(inner.roles) == 2:  # a window of McNemar takes three arguments
                    self.__dict__["update"] = buffers[0].updater(self, fallback)
                # a wrapper (or a collection) of one-value or three-label rows: their update_one
                width = len(roles_of(inner))
                if width and width != 2:
                    fn = _one_row_of(self, width)
                    self.__dict__["_row_width"] = width
            else:
                lock = self._lock  # type: ignore[attr-defined]
                fn = _group_updater(buffers, lock, self)
                width = len(roles_of(self))
                if width and width != 2:  # a collection of one-value or three-label rows
                    fn = _one_row_of(self, width)
                    self.__dict__["_row_width"] = width
                # every member takes (y_true, y_pred): not McNemar's three arguments, which a
                # two-argument update would read as (y_true, y_pred, sample_weight)
                if all(b.checker is not None and len(innermost(b.owner).roles) == 2 for b in buffers):
                    self.__dict__["update"] = _group_updater(buffers, lock, self, fallback)
            self.__dict__["_buffers"] = buffers
            self.__dict__["update_one"] = fn
        return fn

    def row_updater(self, result: Any) -> Callable[..., Any]:
        """Another per-row function on the same buffers, returning ``result`` (e.g. ``None``
        for river's protocol, whose ``update`` returns nothing)."""
        self.hot_path()
        buffers = self.__dict__["_buffers"]
        if len(buffers) == 1:
            return buffers[0].updater(result)
        return _group_updater(buffers, self._lock, result)  # type: ignore[attr-defined]

    def _sync(self) -> None:
        """Apply the buffered rows (first those of the collection this metric is a member of:
        its rows for this member's state wait in the collection's buffers)."""
        upstream = self.__dict__.get("_upstream")
        owner = upstream() if upstream is not None else None
        if owner is not None:
            owner._sync()
        for b in self.__dict__.get("_buffers") or ():
            if b.codes or b.rows:  # flush takes the lock; a row appended after this test waits
                b.flush()

    def _refresh(self) -> None:
        """After a write that did not go through the buffers, let them re-read the state."""
        for b in self.__dict__.get("_buffers") or ():
            b.refresh()

    # every reader syncs first; every other writer also refreshes after
    def update(self, *args: Any, sample_weight: Any = None) -> Any:
        if len(args) == 2 and type(args[0]) in SCALAR_TYPES and type(args[1]) in _ROW_PREDICTIONS:
            fn = self.hot_path()
            if self.__dict__.get("_row_width", 2) == 2:  # (else two values are not a row: a batch)
                return fn(args[0], args[1], sample_weight)  # one sample given as scalars
        self._sync()
        try:
            if args and type(args[0]) is np.ndarray and args[0].ndim and type(self)._plain_update:
                # a batch of arrays (the training-step case): Metric.update without its test for a
                # one-sample call, and the state read once (the buffers were just applied)
                batch = self._validate(*args, sample_weight=sample_weight)  # type: ignore[attr-defined]
                with self._lock:  # type: ignore[attr-defined]
                    self._apply(self.__dict__["_state_"], batch)  # type: ignore[attr-defined]
                return self
            return super().update(*args, sample_weight=sample_weight)  # type: ignore[misc]
        finally:
            self._refresh()

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        # The direct batch path above stands for Metric.update only: a class whose own update
        # (a wrapper's, between this mixin and Metric) does more takes the ordinary path.
        mro = cls.__mro__
        after = mro[mro.index(OneRowMixin) + 1 :]
        owner = next((k for k in after if "update" in k.__dict__), None)
        cls._plain_update = owner is Metric

    def revert(self, *args: Any, sample_weight: Any = None) -> Any:
        self._sync()
        try:
            return super().revert(*args, sample_weight=sample_weight)  # type: ignore[misc]
        finally:
            self._refresh()

    def compute(self, *args: Any, **kwargs: Any) -> Any:
        self._sync()
        return super().compute(*args, **kwargs)  # type: ignore[misc]

    def __call__(self, *args: Any, sample_weight: Any = None) -> Any:
        self._sync()
        try:
            return super().__call__(*args, sample_weight=sample_weight)  # type: ignore[misc]
        finally:
            self._refresh()

    def merge(self, other: Any) -> Any:
        self._sync()
        sync = getattr(other, "_sync", None)
        if callable(sync):
            sync()
        try:
            return super().merge(other)  # type: ignore[misc]
        finally:
            self._refresh()

    def reset(self) -> Any:
        with self._lock:  # type: ignore[attr-defined]
            for b in self.__dict__.get("_buffers") or ():
                del b.rows[:]
                del b.codes[:]
            super().reset()  # type: ignore[misc]
            self._refresh()
        return self

    def state_dict(self) -> dict[str, Any]:
        self._sync()
        return super().state_dict()  # type: ignore[misc]

    @property
    def n_samples(self) -> int:
        self._sync()
        return self._state.n_samples  # type: ignore[attr-defined]

    @property
    def state(self) -> Any:
        self._sync()
        return self._state  # type: ignore[attr-defined]

    def __getstate__(self) -> dict[str, Any]:
        self._sync()
        state = super().__getstate__()  # type: ignore[misc]
        for key in _INSTALLED:
            state.pop(key, None)
        return state

    def __deepcopy__(self, memo: dict[int, Any]) -> Any:
        self._sync()
        new = type(self).__new__(type(self))
        memo[id(self)] = new
        for key, value in self.__dict__.items():
            if key != "_lock" and key not in _INSTALLED:  # the copy builds its own hot path
                new.__dict__[key] = copy.deepcopy(value, memo)
        new._lock = threading.RLock()
        new._install()
        return new

    def __setstate__(self, state: dict[str, Any]) -> None:
        super().__setstate__(state)  # type: ignore[misc]
        self._install()


def update_one(metric: Metric[Any], y_true: Any, y_pred: Any, w: Any = None) -> Metric[Any]:
    """One-row update of any metric: its ``update_one`` when it has one, else a one-row batch.

    Examples:
        >>> import streammetrics as sm
        >>> m = sm.Accuracy()
        >>> _ = update_one(update_one(m, 1, 1), 0, 1)
        >>> m.compute()
        0.5
    """
    method: Callable[..., Any] | None = getattr(metric, "update_one", None)
    if method is not None:
        return method(y_true, y_pred, w)
    buffer = RowBuffer(metric)
    buffer.add(y_true, y_pred, w)
    buffer.flush()
    return metric
