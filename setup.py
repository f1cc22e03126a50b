"""The optional compiled parts (``optional=True``: where no C compiler or Python headers are found,
the build warns and installs the package without them, and the same paths run in NumPy and pure
Python: the same results, slower). Everything else is declared in pyproject.toml.

- ``streammetrics/_core/_fastrows.c``: the aggregators' one-value ``update``;
- ``streammetrics/_core/_rowkernels.c``: per-row kernels of the row-value metrics (DCG and NDCG
  of short rows, Jensen-Shannon, the pooled regression sums), built with ``-ffp-contract=off`` so that no product and sum are
  fused into one rounding (the NumPy formulas round each);
- ``streammetrics/_core/_divergences.c``: the KL and Jensen-Shannon divergences of rows in one
  pass, with glibc's vector logarithms (``libmvec``, loaded at import: ``dlopen`` is in ``libdl``
  before glibc 2.34).

The two kernel modules share ``streammetrics/_core/_kernels.h``.
"""

import os
import sys

from setuptools import Extension, setup

#: Flags for GCC and Clang (MSVC neither contracts by default nor reads these).
UNIX_FLAGS = ["-O3", "-ffp-contract=off"] if os.name != "nt" else []
SHARED = ["streammetrics/_core/_kernels.h"]

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
            depends=SHARED,
            extra_compile_args=UNIX_FLAGS,
            optional=True,
        ),
        Extension(
            "streammetrics._core._divergences",
            sources=["streammetrics/_core/_divergences.c"],
            depends=SHARED,
            extra_compile_args=UNIX_FLAGS,
            libraries=["dl"] if sys.platform.startswith("linux") else [],
            optional=True,
        ),
    ]
)
