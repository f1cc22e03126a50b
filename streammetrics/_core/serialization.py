"""The binary state format: versioned, checksummed, and free of executable content.

Layout (all integers little-endian)::

    offset  size  field
    0       4     magic b"SMST"
    4       2     format version (uint16), currently 1
    6       2     flags (uint16), reserved, 0
    8       4     header length H (uint32)
    12      8     payload length P (uint64)
    20      16    BLAKE2b-128 digest of the H + P bytes that follow
    36      H     header: UTF-8 JSON, the state dict with each array replaced by a reference
    36+H    P     payload: the raw bytes of every array, C order, little-endian, 8-byte aligned

Decoding checks the magic, the format version, that the lengths add up to the size of the input
(so no size read from the input can make it allocate more than the input holds), then the digest,
and only then parses the JSON. Arrays are restricted to a whitelist of plain numeric dtypes; the
header is parsed by :func:`json.loads`, so nothing in a state is ever executed.
"""

from __future__ import annotations

import hashlib
import json
import math
import struct
from typing import Any

import numpy as np

from ..errors import StateError

MAGIC = b"SMST"
FORMAT_VERSION = 1
_PREFIX = struct.Struct("<4sHHIQ16s")
PREFIX_SIZE = _PREFIX.size  # 36
MAX_HEADER_BYTES = 64 * 1024 * 1024
_ARRAY_KEY = "__ndarray__"
# Plain numeric dtypes only: no object arrays, no structured dtypes, nothing that can carry code.
_ALLOWED_DTYPES = {
    "<i8": np.int64,
    "<f8": np.float64,
    "<u8": np.uint64,
    "|b1": np.bool_,
    # Narrow unsigned integers let sparse states (e.g. the score sketch) store small counts and
    # id deltas compactly; they are kept as they are, every other integer widens to int64.
    "|u1": np.uint8,
    "<u2": np.uint16,
    "<u4": np.uint32,
}
_KEPT_INTEGERS = (np.uint8, np.uint16, np.uint32, np.uint64)


def _digest(data: bytes | memoryview) -> bytes:
    return hashlib.blake2b(data, digest_size=16).digest()


def _to_jsonable(obj: Any, arrays: list[np.ndarray]) -> Any:
    """Replace arrays by references and NumPy scalars by Python ones."""
    if isinstance(obj, np.ndarray):
        arr = np.ascontiguousarray(obj)
        if arr.dtype.kind in "iu" and arr.dtype.type not in _KEPT_INTEGERS:
            arr = arr.astype(np.int64)
        elif arr.dtype.kind == "f":
            arr = arr.astype(np.float64)
        elif arr.dtype.kind == "U" or arr.dtype == object:
            return [_to_jsonable(v, arrays) for v in arr.tolist()]
        arr = arr.astype(arr.dtype.newbyteorder("<"), copy=False)
        arrays.append(arr)
        return {_ARRAY_KEY: len(arrays) - 1}
    if isinstance(obj, dict):
        out = {}
        for key, value in obj.items():
            if not isinstance(key, str):
                raise TypeError(f"state dict keys must be strings, found {key!r}")
            out[key] = _to_jsonable(value, arrays)
        return out
    if isinstance(obj, (list, tuple)):
        return [_to_jsonable(v, arrays) for v in obj]
    if isinstance(obj, np.generic):
        return obj.item()
    if obj is None or isinstance(obj, (bool, int, float, str)):
        return obj
    raise TypeError(f"cannot serialize a value of type {type(obj).__name__} in a state")


def encode(state_dict: dict[str, Any]) -> bytes:
    """Encode a state dict (nested dicts, lists, scalars, numeric arrays) as bytes."""
    arrays: list[np.ndarray] = []
    tree = _to_jsonable(state_dict, arrays)
    chunks: list[bytes] = []
    table = []
    offset = 0
    for arr in arrays:
        raw = arr.tobytes()
        table.append({"dtype": arr.dtype.str, "shape": list(arr.shape), "offset": offset})
        padding = (-len(raw)) % 8
        chunks.append(raw + b"\0" * padding)
        offset += len(raw) + padding
    header = json.dumps({"tree": tree, "arrays": table}, separators=(",", ":")).encode()
    payload = b"".join(chunks)
    body = header + payload
    return _PREFIX.pack(MAGIC, FORMAT_VERSION, 0, len(header), len(payload), _digest(body)) + body


def _from_jsonable(obj: Any, arrays: list[np.ndarray]) -> Any:
    if isinstance(obj, dict):
        if set(obj) == {_ARRAY_KEY}:
            index = obj[_ARRAY_KEY]
            if not isinstance(index, int) or not 0 <= index < len(arrays):
                raise StateError(f"array reference {index!r} points to no array")
            return arrays[index]
        return {k: _from_jsonable(v, arrays) for k, v in obj.items()}
    if isinstance(obj, list):
        return [_from_jsonable(v, arrays) for v in obj]
    return obj


def _read_arrays(table: Any, payload: memoryview) -> list[np.ndarray]:
    if not isinstance(table, list):
        raise StateError("state header: 'arrays' must be a list")
    arrays = []
    for entry in table:
        if not isinstance(entry, dict) or set(entry) != {"dtype", "shape", "offset"}:
            raise StateError(f"state header: malformed array entry {entry!r}")
        dtype = _ALLOWED_DTYPES.get(entry["dtype"])
        shape, offset = entry["shape"], entry["offset"]
        if dtype is None:
            raise StateError(f"state header: array dtype {entry['dtype']!r} is not allowed")
        if not isinstance(shape, list) or not all(isinstance(s, int) and s >= 0 for s in shape):
            raise StateError(f"state header: bad array shape {shape!r}")
        if not isinstance(offset, int) or offset < 0:
            raise StateError(f"state header: bad array offset {offset!r}")
        nbytes = math.prod(shape) * np.dtype(dtype).itemsize  # exact Python ints, no overflow
        if offset + nbytes > len(payload):
            raise StateError(
                f"state payload: array of {nbytes} bytes at offset {offset} exceeds the "
                f"{len(payload)}-byte payload"
            )
        flat = np.frombuffer(payload[offset : offset + nbytes], dtype=np.dtype(dtype).newbyteorder("<"))
        arrays.append(flat.astype(dtype).reshape(shape))
    return arrays


def decode(data: bytes | bytearray | memoryview) -> dict[str, Any]:
    """Decode bytes made by :func:`encode`; raise :class:`StateError` on anything else."""
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise StateError(f"expected bytes, found {type(data).__name__}")
    view = memoryview(data).cast("B")
    if len(view) >= len(MAGIC) and bytes(view[: len(MAGIC)]) != MAGIC:
        raise StateError(f"not a streammetrics state: magic {bytes(view[:4])!r}, expected {MAGIC!r}")
    if len(view) < PREFIX_SIZE:
        raise StateError(f"truncated state: {len(view)} bytes, the fixed prefix alone is {PREFIX_SIZE}")
    magic, version, flags, header_len, payload_len, digest = _PREFIX.unpack(view[:PREFIX_SIZE])
    if magic != MAGIC:
        raise StateError(f"not a streammetrics state: magic {bytes(magic)!r}, expected {MAGIC!r}")
    if version > FORMAT_VERSION:
        raise StateError(
            f"state format version {version} is newer than this library reads ({FORMAT_VERSION})"
        )
    if version < 1 or flags != 0:
        raise StateError(f"corrupt state: format version {version}, flags {flags}")
    if header_len > MAX_HEADER_BYTES:
        raise StateError(f"corrupt state: header of {header_len} bytes exceeds the limit")
    expected = PREFIX_SIZE + header_len + payload_len
    if expected != len(view):
        kind = "truncated" if expected > len(view) else "corrupt"
        raise StateError(f"{kind} state: the prefix announces {expected} bytes, found {len(view)}")
    body = view[PREFIX_SIZE:]
    if _digest(body) != digest:
        raise StateError("corrupt state: checksum mismatch")
    try:
        header = json.loads(bytes(body[:header_len]).decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as err:
        raise StateError(f"corrupt state header: {err}") from None
    if not isinstance(header, dict) or set(header) != {"tree", "arrays"}:
        raise StateError("corrupt state header: expected the keys 'tree' and 'arrays'")
    arrays = _read_arrays(header["arrays"], body[header_len:])
    tree = _from_jsonable(header["tree"], arrays)
    if not isinstance(tree, dict):
        raise StateError("corrupt state: the top level is not a dict")
    return tree
