"""Saved states: ``m.save(path)`` / ``sm.load(path)`` and the documented file format (docs/format.md)."""

from __future__ import annotations

import hashlib
import json
import os
import struct

import numpy as np
import pytest

import streammetrics as sm
from streammetrics._core import serialization

from .engine_cases import CASES, assert_engine_equal, make_data, single_process

PREFIX = struct.Struct("<4sHHIQ16s")


@pytest.mark.parametrize("case", CASES, ids=str)
def test_save_load_round_trip_keeps_merging(case, tmp_path):
    data = make_data(case, seed=37, n_parts=4)
    paths = []
    for i, s in enumerate(data.parts):
        w = None if data.weight is None else data.weight[s]
        path = tmp_path / f"shard-{i}.state"
        case.make().update(data.y_true[s], data.y_pred[s], sample_weight=w).save(path)
        paths.append(path)
    loaded = [sm.load(p) for p in paths]
    merged = loaded[0]
    for m in loaded[1:]:
        merged.merge(m)
    assert_engine_equal(case, merged, single_process(case, data), str(case))
    assert sorted(os.listdir(tmp_path)) == sorted(p.name for p in paths)  # no temporary files left


def test_the_file_layout_is_as_documented(tmp_path):
    m = sm.ConfusionMatrix().update([0, 1, 2, 2], [0, 2, 2, 1])
    path = tmp_path / "cm.state"
    m.save(path)
    raw = path.read_bytes()
    # The one place that reads the prefix by hand, from the layout docs/format.md documents, so
    # that the library's reader (``read_prefix`` / ``read_header``) is checked against the spec.
    magic, version, flags, header_len, payload_len, digest = PREFIX.unpack_from(raw)
    assert serialization.read_prefix(raw) == (version, flags, header_len, payload_len, digest, magic)
    assert (magic, version, flags) == (b"SMST", 1, 0)
    assert PREFIX.size == 36 and len(raw) == 36 + header_len + payload_len
    assert digest == hashlib.blake2b(raw[36:], digest_size=16).digest()
    header = json.loads(raw[36 : 36 + header_len])
    assert serialization.read_header(raw)[1:] == ("ConfusionMatrix", 1, header["tree"], header["arrays"])
    assert header["tree"]["type"] == "ConfusionMatrix" and header["tree"]["version"] == 1
    assert header["tree"]["state"]["n_samples"] == 4
    (matrix_ref,) = [e for e in header["arrays"] if e["shape"] == [3, 3]]
    payload = raw[36 + header_len :]
    assert payload_len % 8 == 0
    matrix = np.frombuffer(payload, "<i8", count=9, offset=matrix_ref["offset"]).reshape(3, 3)
    np.testing.assert_array_equal(matrix, m.compute())


def _state_bytes() -> bytes:
    return sm.F1(average="macro").update([0, 1, 2, 2, 1], [0, 2, 2, 1, 1]).to_bytes()


@pytest.mark.parametrize("cut", [0, 1, 4, 20, 35, 36, 60, -9, -1])
def test_truncated_files_raise_state_error(tmp_path, cut):
    raw = _state_bytes()
    path = tmp_path / "t.state"
    path.write_bytes(raw[:cut])
    with pytest.raises(sm.StateError, match=r"truncated|corrupt"):
        sm.load(path)


def test_every_flipped_byte_is_detected(tmp_path):
    raw = _state_bytes()
    path = tmp_path / "c.state"
    for i in range(len(raw)):
        bad = bytearray(raw)
        bad[i] ^= 0x5A
        path.write_bytes(bytes(bad))
        with pytest.raises(sm.StateError):
            sm.load(path)


def test_other_bad_files(tmp_path):
    path = tmp_path / "x.state"
    path.write_bytes(b"PK\x03\x04 this is a zip file, not a state")
    with pytest.raises(sm.StateError, match="not a streammetrics state: magic"):
        sm.load(path)
    raw = _state_bytes()
    newer = serialization.read_prefix(raw)._replace(version=2)
    path.write_bytes(newer.pack() + raw[serialization.PREFIX_SIZE :])
    with pytest.raises(sm.StateError, match="newer"):
        sm.load(path)
    with pytest.raises(FileNotFoundError):
        sm.load(tmp_path / "missing.state")


def test_states_of_different_metrics_or_configs_raise_merge_error_naming_the_difference(tmp_path):
    sm.FBeta(beta=0.5).update([0, 1], [0, 1]).save(tmp_path / "a")
    sm.FBeta(beta=2.0).update([0, 1], [1, 1]).save(tmp_path / "b")
    sm.Recall().update([0, 1], [1, 1]).save(tmp_path / "c")
    a, b, c = (sm.load(tmp_path / n) for n in "abc")
    with pytest.raises(sm.MergeError, match=r"beta=0\.5 vs beta=2\.0"):
        a.merge(b)
    with pytest.raises(sm.MergeError, match="Recall into FBeta"):
        a.merge(c)
    assert a.n_samples == 2  # unchanged by the failed merges
