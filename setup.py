"""The optional compiled part: the aggregators' one-value ``update`` (streammetrics/_core/_fastrows.c).

``optional=True``: where no C compiler or Python headers are found, the build warns and installs
the package without it, and the same path runs in pure Python (slower per row, same results).
Everything else is declared in pyproject.toml.
"""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "streammetrics._core._fastrows",
            sources=["streammetrics/_core/_fastrows.c"],
            optional=True,
        )
    ]
)
