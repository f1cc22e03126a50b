"""Keyed accumulators: one exact state per key (issue 19): Sliced, and the key machinery."""

from .sliced import Sliced

__all__: list[str] = ["Sliced"]
