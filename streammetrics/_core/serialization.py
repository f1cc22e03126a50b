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

This module is the only one that knows the layout. Others read it through :func:`read_prefix`
(the fixed prefix), :func:`read_header` (the checked header, no array decoded),
:func:`looks_like_state` (the magic alone) and write it through :func:`encode` or :func:`frame`.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import struct
from typing import Any, NamedTuple

import numpy as np

from ..errors import StateError

MAGIC = b"SMST"
FORMAT_VERSION = 1
_PREFIX = struct.Struct("<4sHHIQ16s")
PREFIX_SIZE = _PREFIX.size  # 36
MAX_HEADER_BYTES = 64 * 1024 * 1024
#: The default limit on the size of a state file read by :func:`read_file` (``sm.load``,
#: ``streammetrics show``): far above any state a metric keeps (a 10,000 x 10,000 contingency
#: table is 800 MB), far below what reading an endless file would exhaust.
MAX_FILE_BYTES = 1 << 30
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


class Prefix(NamedTuple):
    """The fixed prefix of a state, field by field (see the module docstring).

    Examples:
        >>> import streammetrics as sm
        >>> raw = sm.Accuracy().update([0, 1], [0, 1]).to_bytes()
        >>> prefix = read_prefix(raw)
        >>> prefix.version, prefix.flags, prefix.size == len(raw)
        (1, 0, True)
        >>> prefix.pack() == raw[:PREFIX_SIZE]
        True
    """

    version: int
    flags: int
    header_length: int
    payload_length: int
    digest: bytes
    magic: bytes = MAGIC

    @property
    def size(self) -> int:
        """The size, in bytes, of the whole state this prefix announces."""
        return PREFIX_SIZE + self.header_length + self.payload_length

    def pack(self) -> bytes:
        """The prefix as bytes (whatever its fields say: this is also how to forge a bad one)."""
        return _PREFIX.pack(
            self.magic, self.version, self.flags, self.header_length, self.payload_length, self.digest
        )


class Header(NamedTuple):
    """What a state's bytes say about themselves, read without decoding any array.

    ``type`` and ``version`` are the accumulator type and state version named in the state
    dict (``None`` when the dict names none); ``tree`` is that dict with every array replaced
    by a reference into ``arrays``, the table of dtype, shape and payload offset of each array.
    """

    format_version: int
    type: Any
    version: Any
    tree: Any
    arrays: Any


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
    return frame(header, b"".join(chunks))


def frame(header: bytes, payload: bytes, *, version: int = FORMAT_VERSION, flags: int = 0) -> bytes:
    """A state's bytes around a raw JSON ``header`` and ``payload``: the prefix, checksum included.

    :func:`encode` writes every state through this; with other arguments it builds the well
    checksummed but otherwise arbitrary inputs that decoding must refuse (a newer version, a
    hostile header).

    Examples:
        >>> raw = frame(b'{"tree": {"a": 1}, "arrays": []}', b"")
        >>> decode(raw)
        {'a': 1}
        >>> read_prefix(frame(b"{}", b"", version=7)).version
        7
    """
    body = header + payload
    return Prefix(version, flags, len(header), len(payload), _digest(body)).pack() + body


_INT64_MAX = 2**63 - 1


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _short(value: Any) -> str:
    """A value from a header, in a message: cut at 80 characters (it may be huge)."""
    text = repr(value) if not _is_int(value) or abs(value) < 10**80 else f"an int of {len(str(value))} digits"
    return text if len(text) <= 80 else text[:77] + "..."


def _from_jsonable(obj: Any, arrays: list[np.ndarray]) -> Any:
    if isinstance(obj, dict):
        if set(obj) == {_ARRAY_KEY}:
            index = obj[_ARRAY_KEY]
            if not _is_int(index) or not 0 <= index < len(arrays):
                raise StateError(f"array reference {_short(index)} points to no array")
            return arrays[index]
        return {k: _from_jsonable(v, arrays) for k, v in obj.items()}
    if isinstance(obj, list):
        return [_from_jsonable(v, arrays) for v in obj]
    return obj


#: How deep a state's JSON may nest: a collection of windows of metrics is 10 levels deep; a
#: hostile header nested hundreds deep is refused before anything recurses into it.
MAX_DEPTH = 64
#: The most dimensions an array may have (NumPy's own limit is 64).
MAX_NDIM = 32


def check_depth(tree: Any) -> None:
    """Raise :class:`StateError` if ``tree`` nests deeper than :data:`MAX_DEPTH` (no recursion).

    Examples:
        >>> check_depth({"a": [1, [2]]})
        >>> nested = []
        >>> for _ in range(100):
        ...     nested = [nested]
        >>> check_depth(nested)
        Traceback (most recent call last):
        ...
        streammetrics.errors.StateError: corrupt state: nested deeper than 64 levels
    """
    level = [tree]
    for _ in range(MAX_DEPTH + 1):
        level = [
            child
            for node in level
            if isinstance(node, (dict, list))
            for child in (node.values() if isinstance(node, dict) else node)
        ]
        if not level:
            return
    raise StateError(f"corrupt state: nested deeper than {MAX_DEPTH} levels")


def _read_arrays(table: Any, payload: memoryview) -> list[np.ndarray]:
    if not isinstance(table, list):
        raise StateError("state header: 'arrays' must be a list")
    arrays = []
    for entry in table:
        if not isinstance(entry, dict) or set(entry) != {"dtype", "shape", "offset"}:
            raise StateError(f"state header: malformed array entry {_short(entry)}")
        name, shape, offset = entry["dtype"], entry["shape"], entry["offset"]
        dtype = _ALLOWED_DTYPES.get(name) if isinstance(name, str) else None
        if dtype is None:
            raise StateError(f"state header: array dtype {_short(name)} is not allowed")
        if (
            not isinstance(shape, list)
            or len(shape) > MAX_NDIM
            or not all(_is_int(s) and 0 <= s <= _INT64_MAX for s in shape)
            or math.prod(s for s in shape if s) > _INT64_MAX  # NumPy's limit, even when empty
        ):
            raise StateError(f"state header: bad array shape {_short(shape)}")
        if not _is_int(offset) or offset < 0:
            raise StateError(f"state header: bad array offset {_short(offset)}")
        nbytes = math.prod(shape) * np.dtype(dtype).itemsize  # exact Python ints, no overflow
        if offset + nbytes > len(payload):
            raise StateError(
                f"state payload: array of {nbytes} bytes at offset {offset} exceeds the "
                f"{len(payload)}-byte payload"
            )
        flat = np.frombuffer(payload[offset : offset + nbytes], dtype=np.dtype(dtype).newbyteorder("<"))
        arrays.append(flat.astype(dtype).reshape(shape))
    return arrays


def looks_like_state(data: bytes | bytearray | memoryview) -> bool:
    """Whether ``data`` starts with the magic of a state (nothing else is checked).

    Examples:
        >>> import streammetrics as sm
        >>> looks_like_state(sm.Accuracy().to_bytes()), looks_like_state(b"PK\x03\x04")
        (True, False)
    """
    return bytes(memoryview(data).cast("B")[: len(MAGIC)]) == MAGIC


def read_prefix(data: bytes | bytearray | memoryview) -> Prefix:
    """The fixed prefix of a state; :class:`StateError` unless ``data`` is bytes that start
    with the magic and hold the whole prefix. The fields are returned as they are: use
    :func:`read_header` to check them."""
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
    return Prefix(version, flags, header_len, payload_len, digest, magic)


def _read(data: bytes | bytearray | memoryview) -> tuple[Header, memoryview]:
    """The checked header and the payload (every check but the arrays')."""
    prefix = read_prefix(data)
    view = memoryview(data).cast("B")
    version, flags, header_len = prefix.version, prefix.flags, prefix.header_length
    if version > FORMAT_VERSION:
        raise StateError(
            f"state format version {version} is newer than this library reads ({FORMAT_VERSION})"
        )
    if version < 1 or flags != 0:
        raise StateError(f"corrupt state: format version {version}, flags {flags}")
    if header_len > MAX_HEADER_BYTES:
        raise StateError(f"corrupt state: header of {header_len} bytes exceeds the limit")
    expected = prefix.size
    if expected != len(view):
        kind = "truncated" if expected > len(view) else "corrupt"
        raise StateError(f"{kind} state: the prefix announces {expected} bytes, found {len(view)}")
    body = view[PREFIX_SIZE:]
    if _digest(body) != prefix.digest:
        raise StateError("corrupt state: checksum mismatch")
    try:
        header = json.loads(bytes(body[:header_len]).decode("utf-8"))
    except (ValueError, RecursionError) as err:  # bad UTF-8 or JSON, an int of > 4300 digits
        raise StateError(f"corrupt state header: {err}") from None
    check_depth(header)
    if not isinstance(header, dict) or set(header) != {"tree", "arrays"}:
        raise StateError("corrupt state header: expected the keys 'tree' and 'arrays'")
    tree = header["tree"]
    named = tree if isinstance(tree, dict) else {}
    return Header(version, named.get("type"), named.get("version"), tree, header["arrays"]), body[header_len:]


def read_file(path: str | os.PathLike[str], *, max_bytes: int = MAX_FILE_BYTES) -> bytes:
    """The bytes of a state file, read no further than the state its prefix announces.

    The fixed prefix is read first: a file that does not start with the magic (``/dev/zero``),
    or whose prefix announces more than ``max_bytes`` bytes, is refused before anything else
    is read; then exactly the announced bytes are read, and one more to make sure the file ends
    there (an endless file is refused after ``max_bytes + 1`` bytes at most). The bytes are not
    checked further: :func:`decode` does that.

    Raises :class:`StateError` naming the limit or what is wrong (and :class:`OSError` when the
    file cannot be read).

    Examples:
        >>> import os, tempfile, streammetrics as sm
        >>> path = os.path.join(tempfile.mkdtemp(), "acc.smstate")
        >>> sm.Accuracy().update([0, 1], [0, 0]).save(path)
        >>> len(read_file(path)) == os.path.getsize(path)
        True
        >>> read_file(path, max_bytes=500)  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        streammetrics.errors.StateError: state file of ... bytes exceeds the limit max_bytes=500
    """
    if isinstance(max_bytes, bool) or not isinstance(max_bytes, int) or max_bytes < PREFIX_SIZE:
        raise ValueError(f"max_bytes: expected an int >= {PREFIX_SIZE}, found {max_bytes!r}")
    with open(path, "rb") as fh:
        head = fh.read(PREFIX_SIZE)
        prefix = read_prefix(head)  # the magic and a whole prefix, or StateError
        if prefix.size > max_bytes:
            raise StateError(f"state file of {prefix.size} bytes exceeds the limit max_bytes={max_bytes}")
        rest = fh.read(prefix.size - PREFIX_SIZE + 1)
    data = head + rest
    if len(data) > prefix.size:
        raise StateError(f"corrupt state file: more bytes follow the {prefix.size} its prefix announces")
    return data


def read_header(data: bytes | bytearray | memoryview) -> Header:
    """Check a state's prefix, lengths, checksum and JSON header, and return what it says,
    without decoding its arrays; raise :class:`StateError` as :func:`decode` does.

    Examples:
        >>> import streammetrics as sm
        >>> header = read_header(sm.F1().update([0, 1], [1, 1]).to_bytes())
        >>> header.format_version, header.type, header.version
        (1, 'F1', 1)
    """
    return _read(data)[0]


def decode(data: bytes | bytearray | memoryview) -> dict[str, Any]:
    """Decode bytes made by :func:`encode`; raise :class:`StateError` on anything else."""
    header, payload = _read(data)
    arrays = _read_arrays(header.arrays, payload)
    tree = _from_jsonable(header.tree, arrays)
    if not isinstance(tree, dict):
        raise StateError("corrupt state: the top level is not a dict")
    return tree
