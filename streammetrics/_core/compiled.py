"""The optional compiled parts, and the switch that turns them off.

``setup.py`` builds :mod:`streammetrics._core._fastrows` where a C compiler is found; without it
(or with the environment variable ``STREAMMETRICS_PURE_PYTHON`` set to anything but ``""`` or
``"0"`` when streammetrics is imported) the same paths run in pure Python: the results are the
same, one value at a time is about twice as slow.
"""

from __future__ import annotations

import os
from typing import Any

ValueBuffer: Any = None
if os.environ.get("STREAMMETRICS_PURE_PYTHON", "") in ("", "0"):
    try:
        from ._fastrows import ValueBuffer
    except ImportError:  # not built (no compiler at install): the pure-Python paths run
        pass

#: Whether the compiled one-value path is in use.
COMPILED = ValueBuffer is not None
