"""The optional compiled parts, and the switch that turns them off.

``setup.py`` builds :mod:`streammetrics._core._fastrows` (the aggregators' one-value
``update``), :mod:`streammetrics._core._rowkernels` (per-row kernels of the ranking metrics on short rows,
CRPS, Jensen-Shannon and a small batch's cosines; a small batch's regression moments; the
finiteness test of float64 batches) and :mod:`streammetrics._core._divergences` (the KL and
Jensen-Shannon divergences of rows in one pass, where AVX-512 or AVX2 and glibc's vector
logarithms are found) where a C compiler is found. Without them (or with the environment
variable ``STREAMMETRICS_PURE_PYTHON`` set to anything but ``""`` or ``"0"`` when streammetrics is
imported) the same paths run in pure Python and NumPy:

- one value at a time is about twice as slow, with the same results;
- the kernels' metrics are slower, and their values may differ in the last bits (a sum is
  sequential or pairwise in C, in BLAS's order in NumPy). Either way, a ranking row's value does
  not depend on the batch it came in.
"""

from __future__ import annotations

import os
from types import ModuleType
from typing import Any

ValueBuffer: Any = None
#: :mod:`streammetrics._core._rowkernels`, or ``None`` where it is not built or switched off.
rowkernels: ModuleType | None = None
#: :mod:`streammetrics._core._divergences` where it is built and its kernels run here, or ``None``.
divergences: ModuleType | None = None
if os.environ.get("STREAMMETRICS_PURE_PYTHON", "") in ("", "0"):
    try:
        from ._fastrows import ValueBuffer
    except ImportError:  # not built (no compiler at install): the pure-Python paths run
        pass
    try:
        from . import _rowkernels as rowkernels
    except ImportError:  # not built: the NumPy formulas run
        pass
    try:
        from . import _divergences
    except ImportError:  # not built: the NumPy formulas run
        pass
    else:  # (built everywhere; its kernels run with AVX-512 or AVX2 and glibc's vector logarithms)
        divergences = _divergences if _divergences.VECTOR_LOGS else None

#: Whether the compiled one-value path is in use.
COMPILED = ValueBuffer is not None
#: Whether the compiled row kernels are in use.
ROW_KERNELS = rowkernels is not None
#: Whether the one-pass divergence kernels are in use.
ONE_PASS_DIVERGENCES = divergences is not None
