"""The binary state format: round trips, corruption, truncation, unknown types, newer versions."""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import streammetrics as sm
from streammetrics._core import serialization


def sample_metric() -> sm.Metric:
    return sm.F1(average="macro").update(
        ["a", "b", "c", "a"], ["a", "c", "c", "b"], sample_weight=[1, 2, 0.5, 1]
    )


def test_round_trip_is_exact():
    m = sample_metric()
    restored = sm.from_bytes(m.to_bytes())
    assert restored.to_bytes() == m.to_bytes()
    assert restored.get_config() == m.get_config()


@settings(max_examples=300, deadline=None)
@given(data=st.data())
def test_random_bit_flips_always_raise_state_error(data):
    raw = bytearray(sample_metric().to_bytes())
    n_flips = data.draw(st.integers(1, 8))
    for _ in range(n_flips):
        bit = data.draw(st.integers(0, len(raw) * 8 - 1))
        raw[bit // 8] ^= 1 << (bit % 8)
    if bytes(raw) == sample_metric().to_bytes():  # flips cancelled out
        return
    with pytest.raises(sm.StateError):
        sm.from_bytes(bytes(raw))


@settings(max_examples=100, deadline=None)
@given(cut=st.integers(0, 10_000))
def test_truncated_input_raises_state_error(cut):
    raw = sample_metric().to_bytes()
    cut = cut % len(raw)
    with pytest.raises(sm.StateError):
        sm.from_bytes(raw[:cut])


def _forge(tree: dict, arrays_table: list | None = None, payload: bytes = b"", version: int = 1) -> bytes:
    """Build a well-checksummed blob around an arbitrary header (an attacker can do this too)."""
    header = json.dumps({"tree": tree, "arrays": arrays_table or []}).encode()
    return serialization.frame(header, payload, version=version)


def test_unknown_type_newer_version_and_bad_dtypes_are_refused():
    good = sample_metric().state_dict()
    with pytest.raises(sm.StateError, match="unknown accumulator type"):
        sm.from_bytes(_forge({**good, "type": "os.system", "state": {}}))
    with pytest.raises(sm.StateError, match="newer"):
        sm.from_bytes(_forge({**good, "version": 99, "state": {}}))
    with pytest.raises(sm.StateError, match="format version"):
        sm.from_bytes(_forge({}, version=7))
    with pytest.raises(sm.StateError, match="not allowed"):
        sm.from_bytes(
            _forge({"x": {"__ndarray__": 0}}, [{"dtype": "|O", "shape": [1], "offset": 0}], b"\0" * 8)
        )


def test_absurd_sizes_are_refused_before_allocating():
    huge = [{"dtype": "<f8", "shape": [2**40, 2**20], "offset": 0}]
    with pytest.raises(sm.StateError, match="exceeds"):
        sm.from_bytes(_forge({"x": {"__ndarray__": 0}}, huge, b"\0" * 8))
    prefix = serialization.Prefix(1, 0, 10, 2**60, b"\0" * 16).pack()
    with pytest.raises(sm.StateError, match="truncated"):
        sm.from_bytes(prefix + b"\0" * 10)


def test_inconsistent_state_payloads_are_refused():
    m = sample_metric()
    d = m.state_dict()
    bad_shape = {**d, "state": {**d["state"], "matrix": np.zeros((2, 2), np.int64)}}
    with pytest.raises(sm.StateError, match="shape"):
        sm.from_bytes(serialization.encode(bad_shape))
    negative = sm.Accuracy().update([0, 1], [0, 1]).state_dict()
    negative["state"]["matrix"] = np.array([[-1, 0], [0, 3]])
    with pytest.raises(sm.StateError, match="negative"):
        sm.from_state_dict(negative)
    with pytest.raises(sm.StateError, match="holds a"):
        sm.Accuracy.from_state_dict(d)
    with pytest.raises(sm.StateError, match="configuration"):
        sm.from_state_dict({**d, "config": {**d["config"], "average": "nope"}})


def test_not_bytes_and_wrong_magic():
    with pytest.raises(sm.StateError):
        sm.from_bytes("not bytes")  # type: ignore[arg-type]
    with pytest.raises(sm.StateError, match="magic"):
        sm.from_bytes(b"PK\x03\x04" + b"\0" * 40)


def test_save_and_load(tmp_path):
    m = sample_metric()
    path = tmp_path / "f1.smstate"
    m.save(path)
    assert sm.load(path).to_bytes() == m.to_bytes()


def test_read_header_peeks_without_decoding_arrays():
    m = sample_metric()
    raw = m.to_bytes()
    header = serialization.read_header(raw)
    d = m.state_dict()
    assert (header.format_version, header.type, header.version) == (1, d["type"], d["version"])
    assert header.tree["config"] == d["config"]
    # The arrays are not read: a table naming a forbidden dtype still peeks, and only decodes fail.
    bad_table = _forge({**d, "state": {}}, [{"dtype": "|O", "shape": [1], "offset": 0}], b"\0" * 8)
    assert serialization.read_header(bad_table).type == d["type"]
    with pytest.raises(sm.StateError, match="not allowed"):
        sm.from_bytes(bad_table)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda raw: raw[:20], "truncated"),
        (lambda raw: raw[:-1], "truncated"),
        (lambda raw: raw + b"\0", "corrupt"),
        (lambda raw: b"PK\x03\x04" + raw[4:], "magic"),
        (lambda raw: raw[:-1] + bytes([raw[-1] ^ 1]), "checksum"),
        (lambda raw: serialization.read_prefix(raw)._replace(version=2).pack() + raw[36:], "newer"),
        (lambda raw: serialization.read_prefix(raw)._replace(flags=1).pack() + raw[36:], "flags"),
    ],
)
def test_read_header_refuses_what_decode_refuses(change, message):
    bad = change(sample_metric().to_bytes())
    with pytest.raises(sm.StateError, match=message):
        serialization.read_header(bad)
    with pytest.raises(sm.StateError, match=message):
        sm.from_bytes(bad)


def test_the_prefix_reads_back_what_frame_writes():
    raw = serialization.frame(b'{"tree": {}, "arrays": []}', b"\1" * 8, version=3)
    prefix = serialization.read_prefix(raw)
    assert (prefix.magic, prefix.version, prefix.flags) == (serialization.MAGIC, 3, 0)
    assert (prefix.header_length, prefix.payload_length, prefix.size) == (26, 8, len(raw))
    assert prefix.pack() + raw[serialization.PREFIX_SIZE :] == raw
    assert serialization.looks_like_state(raw) and not serialization.looks_like_state(raw[1:])
    with pytest.raises(sm.StateError, match="expected bytes"):
        serialization.read_prefix("SMST")  # type: ignore[arg-type]
