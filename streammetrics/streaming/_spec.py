"""Turning user specifications (metric objects, names, state-dict fragments) into metrics."""

from __future__ import annotations

import re
from typing import Any

from .._core.metric import Metric
from .._core.registry import registered_types
from .._core.state import equal_configs


def snake_case(name: str) -> str:
    """``"BalancedAccuracy"`` -> ``"balanced_accuracy"``, ``"ROCAUC"`` -> ``"rocauc"``, ``"F1"`` -> ``"f1"``.

    Examples:
        >>> snake_case("BalancedAccuracy"), snake_case("ROCAUC"), snake_case("MCC")
        ('balanced_accuracy', 'rocauc', 'mcc')
    """
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", name).lower()


def _lookup(name: str) -> type[Metric]:
    types = registered_types()
    if name in types:
        return types[name]
    wanted = name.replace("_", "").lower()
    for type_name, cls in types.items():
        if type_name.lower() == wanted:
            return cls
    known = sorted(snake_case(n) for n in types)
    raise ValueError(f"metrics: unknown metric name {name!r}; known names are {known}")


def resolve(spec: Any, where: str = "metrics") -> Metric:
    """A fresh metric from a :class:`Metric` (used as a template), a registered name, or a
    ``{"type": name, "config": {...}}`` dict (as stored in a collection's configuration)."""
    if isinstance(spec, Metric):
        return spec
    if isinstance(spec, str):
        return _lookup(spec)()
    if isinstance(spec, dict) and isinstance(spec.get("type"), str) and set(spec) <= {"type", "config"}:
        cls = _lookup(spec["type"])
        config = spec.get("config", {})
        if not isinstance(config, dict):
            raise ValueError(f"{where}: expected a dict 'config', found {type(config).__name__}")
        return cls(**config)
    raise ValueError(
        f"{where}: expected a Metric, a metric name or a {{'type', 'config'}} dict, found {spec!r}"
    )


def describe(metric: Metric) -> dict[str, Any]:
    """``{"type", "config"}``: a JSON-compatible description that :func:`resolve` rebuilds."""
    return {"type": metric.type_name(), "config": metric.get_config()}


def same_config(a: Metric, b: Metric) -> bool:
    return type(a) is type(b) and equal_configs(a.get_config(), b.get_config())
