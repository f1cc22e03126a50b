"""The optional compiled parts (``optional=True``: where no C compiler or Python headers are found,
the build warns and installs the package without them, and the same paths run in NumPy and pure
Python: the same results, slower). Everything else is declared in pyproject.toml.

- ``streammetrics/_core/_fastrows.c``: the aggregators' one-value ``update``;
- ``streammetrics/_core/_rowkernels.c``: per-row kernels of the row-value metrics (DCG and NDCG
  of short rows, Jensen-Shannon), built with ``-ffp-contract=off`` so that no product and sum are
  fused into one rounding (the NumPy formulas round each).
"""

import os

from setuptools import Extension, setup

#: Flags for GCC and Clang (MSVC neither contracts by default nor reads these).
UNIX_FLAGS = ["-O3", "-ffp-contract=off"] if os.name != "nt" else []

setup(
    ext_modules=[
        Extension(
            "streammetrics._core._fastrows",
            sources=["streammetrics/_core/_fastrows.c"],
            optional=True,
        ),
        Extension(
            "streammetrics._core._rowkernels",
            sources=["streammetrics/_core/_rowkernels.c"],
            extra_compile_args=UNIX_FLAGS,
            optional=True,
        ),
    ]
)
