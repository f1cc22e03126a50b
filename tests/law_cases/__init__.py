"""The table of law cases: one entry per exported accumulator configuration.

Each family adds a module here exporting ``CASES: list[LawCase]``; ``tests/test_laws.py`` runs
every law of API.md over all of them, so a new metric is tested by being listed.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np


@dataclass(frozen=True)
class LawCase:
    """One configured accumulator and how to feed it.

    ``batch(rng, n)`` returns the positional arguments of ``update`` for ``n`` rows (``n`` may
    be 0). ``reference(*args, sample_weight=w)`` returns what ``compute()`` must equal on those
    rows (scikit-learn, SciPy or exact arithmetic), or is ``None`` when the family's own tests
    hold the reference comparison. ``exact=True`` means integer counts: compared for equality.
    """

    name: str
    make: Callable[[], Any]
    batch: Callable[[np.random.Generator, int], tuple[Any, ...]]
    reference: Callable[..., Any] | None = None
    exact: bool = False
    rtol: float = 1e-9
    atol: float = 1e-12
    weights: bool = True
    #: Minimum rows for a meaningful value (e.g. 2 for a variance); batches are at least this.
    min_rows: int = 1
    #: Tolerance of the revert law when it is looser than ``rtol`` (subtracting moments loses
    #: relative precision in proportion to how much larger the removed part is).
    revert_rtol: float | None = None
    #: Free-form markers: ``"approximate"`` (a sketch or sample: no reference), ``"ordered"``
    #: (a window: merging means "the other's rows came after mine", so merge is associative but
    #: not commutative).
    tags: frozenset[str] = field(default_factory=frozenset)
    #: Laws that do not apply to this accumulator, each with the reason: ``{law: why}``, the law
    #: named as its test in ``tests/test_laws.py`` without ``test_`` (``"round_trips_keep_merging"``).
    #: The law is then skipped for this case (reported as a skip giving the reason), and a test
    #: checks that every name is a law. The family's own tests cover what the law would have.
    not_applicable: Mapping[str, str] = field(default_factory=dict)

    def __str__(self) -> str:
        return self.name


def all_cases() -> list[LawCase]:
    cases: list[LawCase] = []
    for info in pkgutil.iter_modules(__path__):
        module = importlib.import_module(f"{__name__}.{info.name}")
        cases.extend(getattr(module, "CASES", []))
    return cases


def concat(batches: list[tuple[Any, ...]]) -> tuple[Any, ...]:
    """Concatenate the positional arguments of several batches along rows."""
    return tuple(np.concatenate([np.asarray(b[i]) for b in batches]) for i in range(len(batches[0])))


def take(batch: tuple[Any, ...], rows: Any) -> tuple[Any, ...]:
    return tuple(np.asarray(a)[rows] for a in batch)
