"""Import guards of the training-framework tests (Lightning, Transformers, Keras, loggers).

The frameworks built on torch are installed on CI by ``.ci/run`` together with the local CPU
torch wheel (never from the registry: a plain ``pip install torch`` pulls GBs of CUDA), so
their tests follow torch's promise: they skip where torch is missing and, where torch is
installed on CI, a missing framework fails. The loggers (TensorBoard, MLflow) come with the
``dev`` extra and are required on CI.
"""

from __future__ import annotations

import importlib.util
import os
from typing import Any

import pytest

from .engine_cases import require

# Keras reads its backend once, at import: the torch backend, unless the environment chose one.
os.environ.setdefault("KERAS_BACKEND", "torch")


def require_torch_framework(module: str) -> Any:
    """``module`` (lightning, transformers, keras on its torch backend); torch's rule on CI."""
    if importlib.util.find_spec("torch") is None:
        pytest.skip("torch is not installed (CI installs it only from a local CPU wheel)")
    return require(module)
