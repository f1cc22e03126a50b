"""Reading CSV, TSV, Parquet and JSON-lines tables in chunks (pandas / pyarrow, imported lazily).

A :class:`Table` never holds the whole file: :meth:`Table.chunks` yields pandas DataFrames of
at most ``chunksize`` rows. The columns are known before the first row is used (the header, the
Parquet schema, or the first chunk of a JSON-lines file or of stdin), so a missing column is
reported before any work. :meth:`Table.progress_total` estimates the total number of rows (exact
for Parquet; for an uncompressed text file, from the bytes read so far).
"""

from __future__ import annotations

import bz2
import csv
import gzip
import io
import lzma
import os
import stat
import sys
from collections.abc import Iterator
from typing import Any

import numpy as np

FORMATS = ("csv", "tsv", "parquet", "jsonl")
_SUFFIXES = {
    ".csv": "csv",
    ".tsv": "tsv",
    ".tab": "tsv",
    ".parquet": "parquet",
    ".pq": "parquet",
    ".jsonl": "jsonl",
    ".ndjson": "jsonl",
    ".json": "jsonl",
}
_COMPRESSED = (".gz", ".bz2", ".xz", ".zst", ".zip")


class ReadError(Exception):
    """A file that cannot be opened or parsed (the message is one line naming it)."""


def detect_format(path: str, fmt: str | None = None) -> str:
    """The table format: ``fmt`` when given, else from the file name (``-`` is CSV).

    Examples:
        >>> detect_format("scores.parquet"), detect_format("x.csv.gz"), detect_format("-")
        ('parquet', 'csv', 'csv')
    """
    if fmt:
        return fmt
    if path == "-":
        return "csv"
    name = path.lower()
    for ext in _COMPRESSED:
        if name.endswith(ext):
            name = name[: -len(ext)]
    for suffix, found in _SUFFIXES.items():
        if name.endswith(suffix):
            return found
    raise ReadError(f"cannot tell the format of {path!r} from its name; pass --format ({', '.join(FORMATS)})")


def _one_line(err: BaseException) -> str:
    text = str(err).strip().splitlines()
    return text[0] if text else type(err).__name__


class _Counting(io.RawIOBase):
    """A binary file that counts the bytes read through it (for the progress estimate)."""

    def __init__(self, raw: Any) -> None:
        self.raw, self.count = raw, 0

    def readable(self) -> bool:
        return True

    def readinto(self, b: Any) -> int:
        n = self.raw.readinto(b)
        self.count += n or 0
        return n

    def close(self) -> None:
        self.raw.close()
        super().close()


#: the longest header line read (a 300,000-column header is ~3 MB)
HEADER_LIMIT = 64 << 20
#: bytes pyarrow parses at once (a chunk of rows is cut from these blocks)
BLOCK_SIZE = 4 << 20


class Table:
    """A table read in chunks from ``path`` (``"-"``: stdin) in format ``fmt``.

    The path is opened once (so a named pipe works) and decompressed by its name. CSV and TSV
    are parsed by pyarrow with every used column read as text, then typed per chunk (integers,
    floats, booleans, else strings): a cell that is not a number stays visible, with its row,
    for the message. A row with more or fewer fields than the header is refused.

    Examples:
        >>> import os, tempfile
        >>> path = os.path.join(tempfile.mkdtemp(), "t.csv")
        >>> _ = open(path, "w").write("y,p\\n1,0.9\\n0,0.2\\n1,0.4\\n")
        >>> t = Table(path, chunksize=2)
        >>> t.columns
        ['y', 'p']
        >>> [len(c) for c in t.chunks(["y", "p"])]
        [2, 1]
    """

    def __init__(self, path: str, fmt: str | None = None, chunksize: int = 100_000) -> None:
        self.path, self.chunksize = path, int(chunksize)
        self.format = detect_format(path, fmt)
        if self.format not in FORMATS:
            raise ReadError(f"--format: expected one of {', '.join(FORMATS)}, found {self.format!r}")
        self._counter: _Counting | None = None
        self._size: int | None = None
        self._rows: int | None = None
        self._first: Any = None  # a JSON-lines chunk read ahead to learn the columns
        self._iter: Iterator[Any] | None = None
        self._stream: Any = None
        self._seekable = False
        self._open_stream()
        try:
            self.columns = self._open()
        except BaseException:
            self.close()
            raise

    # -------------------------------------------------------------- opening
    def _open_stream(self) -> None:
        """Open the path once (a FIFO cannot be opened twice) and decompress by its name."""
        if self.path == "-":
            raw: Any = sys.stdin.buffer
        else:
            if os.path.isdir(self.path):
                raise ReadError(f"cannot read {self.path!r}: it is a directory, not a file")
            try:
                raw = open(self.path, "rb")  # closed by close(), after the last chunk
            except FileNotFoundError:
                raise ReadError(f"cannot read {self.path!r}: no such file") from None
            except OSError as err:
                raise ReadError(f"cannot read {self.path!r}: {err.strerror or err}") from None
            info = os.fstat(raw.fileno())
            if stat.S_ISREG(info.st_mode):
                self._size, self._seekable = info.st_size, True
        self._counter = _Counting(raw)
        stream: Any = io.BufferedReader(self._counter, buffer_size=1 << 20)
        name = self.path.lower()
        try:
            if name.endswith(".gz"):
                stream = gzip.GzipFile(fileobj=stream, mode="rb")
            elif name.endswith(".bz2"):
                stream = bz2.BZ2File(stream)
            elif name.endswith(".xz"):
                stream = lzma.LZMAFile(stream)
            elif name.endswith(".zst"):
                try:
                    import zstandard
                except ImportError:
                    raise ReadError(
                        f"{self._name()}: reading .zst files needs the zstandard package"
                    ) from None
                stream = io.BufferedReader(zstandard.ZstdDecompressor().stream_reader(stream))
            elif name.endswith(".zip"):
                stream = self._unzip(stream)
        except ReadError:
            self._counter.close()
            raise
        if name.endswith(_COMPRESSED):
            self._seekable = False
        self._stream = stream

    def _unzip(self, stream: Any) -> Any:
        import zipfile

        if not self._seekable:
            raise ReadError(f"{self._name()}: a .zip archive must be a regular file (not a pipe)")
        try:
            archive = zipfile.ZipFile(stream)
            names = [n for n in archive.namelist() if not n.endswith("/")]
        except zipfile.BadZipFile as err:
            raise ReadError(f"{self._name()}: not a zip archive ({_one_line(err)})") from None
        if len(names) != 1:
            raise ReadError(f"{self._name()}: expected one file in the zip archive, found {len(names)}")
        return archive.open(names[0])

    def close(self) -> None:
        """Close the file (not stdin)."""
        if self._counter is not None and self.path != "-":
            self._counter.close()

    def _open(self) -> list[str]:
        try:
            if self.format == "parquet":
                return self._open_parquet()
            if self.format == "jsonl":
                import pandas as pd

                text = io.TextIOWrapper(self._stream, encoding="utf-8")
                self._iter = iter(pd.read_json(text, lines=True, chunksize=self.chunksize))
                self._first = next(self._iter, None)
                if self._first is None:
                    raise ReadError(f"{self._name()}: no rows")
                return [str(c) for c in self._first.columns]
            return self._read_header()
        except ReadError:
            raise
        except UnicodeDecodeError:
            raise ReadError(f"{self._name()}: not a UTF-8 {self.format.upper()} file") from None
        except Exception as err:  # pandas / pyarrow parse errors have many types
            raise ReadError(
                f"{self._name()}: cannot read as {self.format.upper()}: {_one_line(err)}"
            ) from None

    def _read_header(self) -> list[str]:
        """The column names from the first line, parsed here (fast even for 300,000 columns)."""
        raw = b""
        while not raw.strip():  # blank lines before the header are skipped, as pandas does
            raw = self._stream.readline(HEADER_LIMIT)
            if not raw:
                raise ReadError(f"{self._name()}: empty file, expected a header line naming the columns")
        while raw.count(b'"') % 2 and len(raw) < HEADER_LIMIT:  # a quoted newline in a name
            more = self._stream.readline(HEADER_LIMIT - len(raw))
            if not more:
                break
            raw += more
        if len(raw) >= HEADER_LIMIT and not raw.endswith(b"\n"):
            raise ReadError(
                f"{self._name()}: the header line is longer than {HEADER_LIMIT >> 20} MiB; "
                "is this a CSV file with one header line?"
            )
        try:
            text = raw.decode("utf-8-sig")
        except UnicodeDecodeError:
            raise ReadError(f"{self._name()}: not a UTF-8 {self.format.upper()} file") from None
        csv.field_size_limit(HEADER_LIMIT)
        try:
            names = next(csv.reader(io.StringIO(text.rstrip("\r\n")), delimiter=self._sep()), [])
        except csv.Error as err:
            raise ReadError(f"{self._name()}: cannot read the header line: {_one_line(err)}") from None
        self._header = _unique_names(names)
        return self._header

    def _sep(self) -> str:
        return "\t" if self.format == "tsv" else ","

    def _open_parquet(self) -> list[str]:
        import pyarrow.parquet as pq

        # a regular file is read by pyarrow directly (it seeks); a pipe or stdin is read whole
        source = self._counter.raw if self._seekable else pa_buffer(self._stream.read())
        self._pq = pq.ParquetFile(source)
        self._rows = self._pq.metadata.num_rows
        return list(self._pq.schema_arrow.names)

    @property
    def name(self) -> str:
        """The path, or ``stdin``."""
        return "stdin" if self.path == "-" else self.path

    def _name(self) -> str:
        return self.name

    # -------------------------------------------------------------- reading
    def chunks(self, columns: list[str]) -> Iterator[Any]:
        """DataFrames of at most ``chunksize`` rows holding ``columns``, indexed by row number
        (0 for the first data row) so that a message can name the row of a bad cell."""
        done = 0
        try:
            for frame in self._frames(columns):
                frame.index = range(done, done + len(frame))
                done += len(frame)
                yield frame
        except (GeneratorExit, KeyboardInterrupt, ReadError):
            raise
        except KeyError as err:
            raise ReadError(f"{self._name()}: a later chunk lacks column {_one_line(err)}") from None
        except UnicodeDecodeError:
            raise ReadError(f"{self._name()}: not a UTF-8 {self.format.upper()} file") from None
        except Exception as err:
            message = _one_line(err)
            if "invalid UTF8" in message:
                raise ReadError(f"{self._name()}: not a UTF-8 {self.format.upper()} file") from None
            raise ReadError(f"{self._name()}: cannot read as {self.format.upper()}: {message}") from None
        finally:
            self.close()

    def _frames(self, columns: list[str]) -> Iterator[Any]:
        if self.format == "parquet":
            for batch in self._pq.iter_batches(batch_size=self.chunksize, columns=columns):
                yield batch.to_pandas()
            return
        if self.format in ("csv", "tsv"):
            yield from self._csv_frames(columns)
            return
        first, self._first = self._first, None
        if first is not None:
            yield first[columns]
        assert self._iter is not None
        for chunk in self._iter:
            yield chunk[columns]

    def _csv_frames(self, columns: list[str]) -> Iterator[Any]:
        import pyarrow as pa
        import pyarrow.csv as pacsv

        header = self._header
        bad: list[Any] = []

        def invalid_row(row: Any) -> str:
            bad.append(row)
            return "error"

        wanted = list(dict.fromkeys(columns))
        try:
            reader = pacsv.open_csv(
                self._stream,
                read_options=pacsv.ReadOptions(column_names=header, block_size=BLOCK_SIZE, use_threads=False),
                parse_options=pacsv.ParseOptions(
                    delimiter=self._sep(), newlines_in_values=True, invalid_row_handler=invalid_row
                ),
                convert_options=pacsv.ConvertOptions(
                    include_columns=wanted,
                    column_types={c: pa.string() for c in wanted},
                    strings_can_be_null=True,
                ),
            )
        except pa.ArrowInvalid as err:
            if "Empty CSV file" in str(err):
                return  # a header and no rows
            raise self._parse_error(err, bad) from None
        pending: list[Any] = []
        count = 0
        try:
            for batch in reader:
                pending.append(batch)
                count += batch.num_rows
                while count >= self.chunksize:
                    table = pa.Table.from_batches(pending)
                    yield typed_frame(table.slice(0, self.chunksize))
                    rest = table.slice(self.chunksize)
                    pending, count = rest.to_batches(), rest.num_rows
        except pa.ArrowInvalid as err:
            raise self._parse_error(err, bad) from None
        if count:
            yield typed_frame(pa.Table.from_batches(pending))

    def _parse_error(self, err: Exception, bad: list[Any]) -> ReadError:
        if bad:
            row = bad[-1]
            text = row.text if len(row.text) <= 80 else row.text[:77] + "..."
            return ReadError(
                f"{self._name()}: a ragged row: the header has {row.expected_columns} fields, a row "
                f"has {row.actual_columns}: {text!r}"
            )
        message = _one_line(err)
        if "invalid UTF8" in message:
            return ReadError(f"{self._name()}: not a UTF-8 {self.format.upper()} file")
        return ReadError(f"{self._name()}: cannot read as {self.format.upper()}: {message}")

    def progress_total(self, rows_done: int) -> int | None:
        """The total rows: exact for Parquet, estimated from the bytes read for regular files."""
        if self._rows is not None:
            return self._rows
        if self._counter is None or not self._size or not self._counter.count or not rows_done:
            return None
        return max(rows_done, round(rows_done * self._size / self._counter.count))


def _unique_names(names: list[str]) -> list[str]:
    """Header names made unique as pandas does: ``a, a`` -> ``a, a.1``; empty -> ``Unnamed: i``.

    Examples:
        >>> _unique_names(["a", "a", "", "b"])
        ['a', 'a.1', 'Unnamed: 2', 'b']
    """
    taken = set(names)
    if len(taken) == len(names) and "" not in taken:
        return list(names)
    out: list[str] = []
    seen: dict[str, int] = {}
    for i, name in enumerate(names):
        name = name or f"Unnamed: {i}"
        if name in seen:
            k = seen[name]
            while f"{name}.{k}" in taken:
                k += 1
            seen[name] = k + 1
            name = f"{name}.{k}"
            taken.add(name)
        else:
            seen[name] = 1
        out.append(name)
    return out


_TRUE = {"true", "True", "TRUE"}
_FALSE = {"false", "False", "FALSE"}


def _has_line_break(column: Any) -> bool:
    """Whether a text column holds ``\\n`` or ``\\r``: a scan of the raw bytes, then exactly."""
    import pyarrow.compute as pc

    for chunk in column.chunks:
        data = chunk.buffers()[2] if len(chunk.buffers()) > 2 else None
        if data is None:
            continue
        raw = np.frombuffer(data, dtype=np.uint8)
        if ((raw == 10) | (raw == 13)).any() and pc.any(pc.match_substring_regex(chunk, "[\\r\\n]")).as_py():
            return True
    return False


def typed_frame(table: Any) -> Any:
    """A pandas DataFrame of text columns typed as pandas would: int64, float64, bool, else
    strings (object, ``None`` for missing). A column mixing numbers and words stays text, so the
    caller can name the cell that is not a number."""
    import pandas as pd
    import pyarrow as pa
    import pyarrow.compute as pc

    data = {}
    for name, column in zip(table.column_names, table.columns, strict=True):
        data[name] = None
        # a line break in a cell is never a number: keep the text, the caller names the cell
        broken = _has_line_break(column)
        if not broken:
            try:
                floats = pc.cast(column, pa.float64()).to_numpy(zero_copy_only=False)
            except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
                floats = None
            if floats is not None:
                data[name] = floats
                if (
                    not column.null_count
                    and np.all(np.isfinite(floats))
                    and np.all(floats == np.round(floats))
                ):
                    # whole numbers: int64, exactly (a float64 holds integers exactly up to 2**53)
                    big = floats.size and np.abs(floats).max() >= 2.0**53
                    try:
                        data[name] = (
                            pc.cast(column, pa.int64()).to_numpy() if big else floats.astype(np.int64)
                        )
                    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
                        pass  # "1.0" or beyond int64: keep the floats
        if data[name] is None:
            values = column.to_pylist()
            present = {v for v in values if v is not None}
            if present and present <= _TRUE | _FALSE:
                flags = np.array([np.nan if v is None else float(v in _TRUE) for v in values])
                data[name] = flags.astype(bool) if column.null_count == 0 else flags
            else:
                data[name] = np.array(values, dtype=object)
    return pd.DataFrame(data, index=range(table.num_rows))


def pa_buffer(data: bytes) -> Any:
    import pyarrow as pa

    return pa.BufferReader(data)
