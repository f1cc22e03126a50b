"""Reading CSV, TSV, Parquet and JSON-lines tables in chunks (pandas / pyarrow, imported lazily).

A :class:`Table` never holds the whole file: :meth:`Table.chunks` yields pandas DataFrames of
at most ``chunksize`` rows. The columns are known before the first row is used (the header, the
Parquet schema, or the first chunk of a JSON-lines file or of stdin), so a missing column is
reported before any work. :meth:`Table.progress_total` estimates the total number of rows (exact
for Parquet; for an uncompressed text file, from the bytes read so far).
"""

from __future__ import annotations

import io
import os
import sys
from collections.abc import Iterator
from typing import Any

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


class Table:
    """A table read in chunks from ``path`` (``"-"``: stdin) in format ``fmt``.

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
        self._first: Any = None  # a chunk read ahead to learn the columns
        self._iter: Iterator[Any] | None = None
        self._handle: Any = None
        if path != "-":
            if not os.path.exists(path):
                raise ReadError(f"cannot read {path!r}: no such file")
            if os.path.isdir(path):
                raise ReadError(f"cannot read {path!r}: it is a directory")
            try:
                with open(path, "rb"):
                    pass
            except OSError as err:
                raise ReadError(f"cannot read {path!r}: {err.strerror or err}") from None
        self.columns = self._open()

    # -------------------------------------------------------------- opening
    def _source(self, text: bool) -> Any:
        """The object handed to pandas: a counting handle for plain files, else the path."""
        if self.path == "-":
            return sys.stdin if text else sys.stdin.buffer
        if self.path.lower().endswith(_COMPRESSED):
            return self.path
        self._size = os.path.getsize(self.path)
        self._counter = _Counting(open(self.path, "rb"))
        buffered = io.BufferedReader(self._counter, buffer_size=1 << 20)
        self._handle = io.TextIOWrapper(buffered, encoding="utf-8") if text else buffered
        return self._handle

    def _open(self) -> list[str]:
        try:
            if self.format == "parquet":
                return self._open_parquet()
            import pandas as pd

            if self.format == "jsonl":
                self._iter = iter(pd.read_json(self._source(True), lines=True, chunksize=self.chunksize))
            else:
                sep = "\t" if self.format == "tsv" else ","
                self._iter = iter(pd.read_csv(self._source(False), sep=sep, chunksize=self.chunksize))
            self._first = next(self._iter, None)
            if self._first is None:
                raise ReadError(f"{self._name()}: no rows")
            return [str(c) for c in self._first.columns]
        except ReadError:
            raise
        except UnicodeDecodeError:
            raise ReadError(f"{self._name()}: not a UTF-8 {self.format.upper()} file") from None
        except Exception as err:  # pandas / pyarrow parse errors have many types
            raise ReadError(
                f"{self._name()}: cannot read as {self.format.upper()}: {_one_line(err)}"
            ) from None

    def _open_parquet(self) -> list[str]:
        import pyarrow.parquet as pq

        source = sys.stdin.buffer.read() if self.path == "-" else self.path
        self._pq = pq.ParquetFile(pa_buffer(source) if isinstance(source, bytes) else source)
        self._rows = self._pq.metadata.num_rows
        return list(self._pq.schema_arrow.names)

    def _name(self) -> str:
        return "stdin" if self.path == "-" else self.path

    # -------------------------------------------------------------- reading
    def chunks(self, columns: list[str]) -> Iterator[Any]:
        """DataFrames of at most ``chunksize`` rows holding ``columns``."""
        try:
            if self.format == "parquet":
                for batch in self._pq.iter_batches(batch_size=self.chunksize, columns=columns):
                    yield batch.to_pandas()
                return
            first, self._first = self._first, None
            if first is not None:
                yield first[columns]
            assert self._iter is not None
            for chunk in self._iter:
                yield chunk[columns]
        except (GeneratorExit, KeyboardInterrupt):
            raise
        except KeyError as err:
            raise ReadError(f"{self._name()}: a later chunk lacks column {_one_line(err)}") from None
        except UnicodeDecodeError:
            raise ReadError(f"{self._name()}: not a UTF-8 {self.format.upper()} file") from None
        except Exception as err:
            raise ReadError(
                f"{self._name()}: cannot read as {self.format.upper()}: {_one_line(err)}"
            ) from None
        finally:
            if self._handle is not None:
                self._handle.close()

    def progress_total(self, rows_done: int) -> int | None:
        """The total rows: exact for Parquet, estimated from the bytes read for plain text files."""
        if self._rows is not None:
            return self._rows
        if self._counter is None or not self._size or not self._counter.count or not rows_done:
            return None
        return max(rows_done, round(rows_done * self._size / self._counter.count))


def pa_buffer(data: bytes) -> Any:
    import pyarrow as pa

    return pa.BufferReader(data)
