"""The aggregators' one-value ``update``, compiled (``_core/_fastrows.c``) and in pure Python.

Both paths are run on the same streams and must leave byte-identical states, equal to one batch of
the same values and to exact references (``math.fsum``, ``max``). In CI the compiled path must be
built: a missing compiler there would otherwise leave it untested.
"""

from __future__ import annotations

import copy
import gc
import math
import os
import pickle
import threading
import weakref

import numpy as np
import pytest

import streammetrics as sm
from streammetrics import InputError
from streammetrics._core import compiled
from streammetrics.aggregation import metrics as aggregation

AGGREGATORS = [sm.Mean, sm.Sum, sm.Min, sm.Max]
PATHS = ["compiled", "python"]


@pytest.fixture(params=PATHS)
def path(request, monkeypatch):
    """Which one-value path the aggregators built inside the test install."""
    if request.param == "compiled":
        if not compiled.COMPILED:
            pytest.skip("streammetrics._core._fastrows is not built here")
    else:
        monkeypatch.setattr(compiled, "ValueBuffer", None)
    return request.param


def test_ci_builds_the_compiled_path():
    if os.environ.get("CI") != "true":
        pytest.skip("checked in CI, where the compiler is installed")
    assert compiled.COMPILED, "the C extension was not built: setup.py's optional build failed"
    assert type(sm.Sum().update).__name__ == "ValueBuffer"


def test_the_path_in_use_is_the_one_asked_for(path):
    kind = type(sm.Mean().update).__name__
    assert kind == ("ValueBuffer" if path == "compiled" else "function")


def _stream(rng: np.random.Generator, n: int) -> list[float]:
    return (rng.standard_normal(n) * 10.0 ** rng.integers(-5, 6, n)).tolist()


@pytest.mark.parametrize("cls", AGGREGATORS)
@pytest.mark.parametrize("seed", range(4))
def test_values_one_at_a_time_equal_their_batches_and_the_exact_reference(cls, seed, path, monkeypatch):
    """Buffered values are folded in as batches of ``FLUSH_EVERY``: the state is that of those
    batches, bit for bit, and the value that of exact arithmetic."""
    every = 37  # many flushes, the last one partly filled
    monkeypatch.setattr(aggregation, "FLUSH_EVERY", every)
    rng = np.random.default_rng(seed)
    values = _stream(rng, 1000)
    m = cls()
    for x in values:
        assert m.update(x) is m
    batches = cls()
    for lo in range(0, len(values), every):
        batches.update(np.array(values[lo : lo + every]))
    assert m.to_bytes() == batches.to_bytes()
    want = {
        sm.Sum: math.fsum(values),
        sm.Mean: math.fsum(values) / len(values),
        sm.Min: min(values),
        sm.Max: max(values),
    }[cls]
    assert m.compute() == pytest.approx(want, rel=1e-15, abs=0)


@pytest.mark.parametrize("cls", AGGREGATORS)
def test_both_paths_leave_the_same_bytes_through_mixed_calls(cls, monkeypatch):
    """Floats, refused values, weighted values, batches and reads, interleaved."""
    if not compiled.COMPILED:
        pytest.skip("streammetrics._core._fastrows is not built here")
    monkeypatch.setattr(aggregation, "FLUSH_EVERY", 5)
    rng = np.random.default_rng(7)
    fast = cls()
    monkeypatch.setattr(compiled, "ValueBuffer", None)
    slow = cls()
    assert type(fast.update) is not type(slow.update)
    for i in range(400):
        kind = i % 7
        x = float(rng.standard_normal())
        for m in (fast, slow):
            if kind == 0:
                m.update(x)
                m.update(x, None)
            elif kind == 1:
                for bad in (math.nan, math.inf, -math.inf):
                    before = m.to_bytes()
                    with pytest.raises(InputError, match="values"):
                        m.update(bad)
                    assert m.to_bytes() == before
            elif kind == 2:
                m.update(2.5, sample_weight=3.0)
                m.update_one(-1.5, 2.0)
            elif kind == 3:
                m.update([1.0, -4.0, 0.25], sample_weight=[1, 0, 2])
            elif kind == 4:
                m.update(3)  # an int: the batch path
                m.update(np.float64(0.5))  # a float subclass: the batch path too
            elif kind == 5:
                m.update(float(i))
            else:
                m.compute()
        assert fast.to_bytes() == slow.to_bytes()


def test_a_failing_flush_keeps_every_value(path, monkeypatch):
    """A flush that raises leaves its values buffered (the buffer grows past its limit); the next
    read applies them all."""
    monkeypatch.setattr(aggregation, "FLUSH_EVERY", 4)
    m = sm.Sum()
    real = type(m)._apply
    failures = iter([True, True, False])

    def flaky(self, state, batch):
        if next(failures, False):
            raise MemoryError("the fold failed")
        return real(self, state, batch)

    monkeypatch.setattr(type(m), "_apply", flaky)
    values = [float(i) for i in range(1, 11)]
    raised = 0
    for x in values:
        try:
            m.update(x)
        except MemoryError:
            raised += 1
    assert raised == 2
    assert m.compute() == math.fsum(values)


def test_pickles_and_copies_rebuild_the_path(path):
    m = sm.Mean()
    for x in (1.0, 2.0, 6.0):
        m.update(x)
    for other in (pickle.loads(pickle.dumps(m)), copy.deepcopy(m), m.copy()):
        assert type(other.update) is type(m.update)
        assert other.update is not m.update and other.compute() == 3.0
        other.update(7.0)
        assert other.compute() == 4.0
    assert m.compute() == 3.0


def test_an_aggregator_is_freed_with_its_buffer(path):
    """The installed path refers to its metric (it returns it): the cycle must be collectable."""
    m = sm.Sum()
    m.update(1.0)
    ref = weakref.ref(m)
    del m
    gc.collect()
    assert ref() is None


def test_threads_lose_no_value(path, monkeypatch):
    monkeypatch.setattr(aggregation, "FLUSH_EVERY", 64)
    m = sm.Sum()
    per_thread = 20_000

    def feed():
        for _ in range(per_thread):
            m.update(1.0)

    threads = [threading.Thread(target=feed) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert m.compute() == 4 * per_thread


def test_the_compiled_buffer_forwards_and_refuses_as_asked():
    if not compiled.COMPILED:
        pytest.skip("streammetrics._core._fastrows is not built here")
    calls = []
    owner = object()
    buf = compiled.ValueBuffer(owner, lambda *a, **k: calls.append((a, k)) or "fallback", lambda: None, 8)
    assert buf(1.0) is owner and buf(2.0, None) is owner and len(buf) == 2
    assert buf(math.nan) == "fallback" and buf(1) == "fallback" and buf(1.0, sample_weight=None) == "fallback"
    assert buf(1.0, 2.0) == "fallback" and buf() == "fallback"
    assert calls == [
        ((math.nan,), {}),
        ((1,), {}),
        ((1.0,), {"sample_weight": None}),
        ((1.0, 2.0), {}),
        ((), {}),
    ]
    assert np.frombuffer(buf.peek()).tolist() == [1.0, 2.0] and len(buf) == 2
    with pytest.raises(ValueError, match="cannot drop 3 of 2"):
        buf.drop(3)
    with pytest.raises(ValueError, match="cannot drop -1"):
        buf.drop(-1)
    buf.drop(1)
    assert np.frombuffer(buf.peek()).tolist() == [2.0]
    with pytest.raises(ValueError, match="limit"):
        compiled.ValueBuffer(owner, print, print, 0)
    bare = compiled.ValueBuffer.__new__(compiled.ValueBuffer)  # never initialized: refuses, no crash
    for args in ((1.0,), (1,), ()):
        with pytest.raises(TypeError, match="not initialized"):
            bare(*args)
    assert len(bare) == 0 and bare.peek() == b""
    bare.drop(0)
