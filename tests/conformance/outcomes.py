"""How one of scikit-learn's tests failed against streammetrics, as a kind and a one-line detail.

Kinds (the expectations file lists each failing test with one):

- ``unsupported``: the shim met a keyword or input kind streammetrics does not take;
- ``message``: the right exception, its text is not what scikit-learn's ``match=`` wants;
- ``warning-message``: the right warning, other text; ``no-warning``: no such warning at all;
- ``no-error``: streammetrics accepted what scikit-learn refuses;
- ``refused``: streammetrics raised one of its own errors where scikit-learn gives a value (or
  raises another exception type);
- ``value``: an assertion on the result failed (a different value, shape or type);
- ``error``: any other exception (its type is in the detail).
"""

from __future__ import annotations

from typing import Any

from streammetrics.errors import StreamMetricsError
from tests.conformance.shim import ShimUnsupported


def _chain(exc: BaseException) -> list[BaseException]:
    seen: list[BaseException] = []
    while exc is not None and exc not in seen:
        seen.append(exc)
        exc = exc.__cause__ or exc.__context__  # type: ignore[assignment]
    return seen


def _first_line(text: str) -> str:
    line = text.strip().splitlines()[0] if text.strip() else ""
    return line[:160]


def classify(excinfo: Any) -> tuple[str, str]:
    """``(kind, detail)`` of a failed test's exception."""
    if excinfo is None:
        return "error", "no exception information"
    exc = excinfo.value
    text = str(exc)
    for e in _chain(exc):
        if isinstance(e, ShimUnsupported):
            return "unsupported", str(e)
    if "Regex pattern did not match any of" in text or "DID NOT WARN" in text:
        if "Emitted warnings: []" in text or ("DID NOT WARN" in text and "Emitted warnings" not in text):
            return "no-warning", _first_line(text)
        return ("no-warning" if "DID NOT WARN" in text else "warning-message"), _first_line(text)
    if "Regex pattern did not match" in text:
        return "message", _first_line(text.split("\n", 1)[-1])
    if "DID NOT RAISE" in text:
        return "no-error", _first_line(text)
    if isinstance(exc, StreamMetricsError):
        return "refused", f"{type(exc).__name__}: {_first_line(text)}"
    if isinstance(exc, AssertionError):
        return "value", _first_line(text) or "assertion failed"
    if isinstance(exc, Warning):
        return "no-warning" if "Undefined" not in type(exc).__name__ else "warning-message", _first_line(text)
    return "error", f"{type(exc).__name__}: {_first_line(text)}"
