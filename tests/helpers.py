"""Comparison helpers shared by the test suite."""

from __future__ import annotations

import dataclasses
import warnings
from typing import Any

import numpy as np


def plain_value(value: Any) -> Any:
    """Turn result objects (reports, named tuples, dataclasses) into comparable plain data."""
    if hasattr(value, "to_dict"):
        return plain_value(value.to_dict())
    if hasattr(value, "_asdict"):
        return plain_value(value._asdict())
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return plain_value(dataclasses.asdict(value))
    if isinstance(value, dict):
        return {str(k): plain_value(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)) and value and not np.isscalar(value[0]):
        return [plain_value(v) for v in value]
    return value


def assert_same(
    actual: Any,
    expected: Any,
    *,
    rtol: float = 1e-9,
    atol: float = 1e-12,
    exact: bool = False,
    where: str = "",
) -> None:
    """Equal values (NaN equals NaN); exact equality of integer arrays when ``exact``."""
    actual, expected = plain_value(actual), plain_value(expected)
    if isinstance(expected, dict):
        assert isinstance(actual, dict), f"{where}: expected a dict, found {actual!r}"
        for key in expected:
            assert key in actual, f"{where}: missing key {key!r} in {sorted(actual)}"
            assert_same(
                actual[key], expected[key], rtol=rtol, atol=atol, exact=exact, where=f"{where}[{key}]"
            )
        return
    if isinstance(expected, list) and expected and isinstance(expected[0], (dict, list)):
        assert len(actual) == len(expected), where
        for i, (a, e) in enumerate(zip(actual, expected, strict=False)):
            assert_same(a, e, rtol=rtol, atol=atol, exact=exact, where=f"{where}[{i}]")
        return
    if expected is None or isinstance(expected, (str, bool)):
        assert actual == expected, f"{where}: {actual!r} != {expected!r}"
        return
    a, e = np.asarray(actual), np.asarray(expected)
    assert a.shape == e.shape, f"{where}: shape {a.shape} != {e.shape}"
    if exact and a.dtype.kind in "iu" and e.dtype.kind in "iu":
        np.testing.assert_array_equal(a, e, err_msg=where)
    elif a.dtype.kind in "OUS" or e.dtype.kind in "OUS":
        np.testing.assert_array_equal(a, e, err_msg=where)
    else:
        np.testing.assert_allclose(
            a.astype(float), e.astype(float), rtol=rtol, atol=atol, equal_nan=True, err_msg=where
        )


def quiet_compute(metric: Any) -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return metric.compute()


def fed_in_batches(
    make: Any, args: tuple[Any, ...], weights: Any = None, *, defined: bool = False, batches: int = 3
) -> Any:
    """A fresh ``make()`` fed ``args`` (and ``weights``) in ``batches`` consecutive batches, then
    computed: warnings ignored, or (``defined``) raised, for data where every value is defined."""
    m = make()
    for rows in np.array_split(np.arange(len(args[0])), batches):
        m.update(*(a[rows] for a in args), sample_weight=None if weights is None else weights[rows])
    with warnings.catch_warnings():
        warnings.simplefilter("error" if defined else "ignore")
        return m.compute()
