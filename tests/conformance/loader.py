"""Load one of scikit-learn's test modules with the covered functions replaced by the shim.

The module is executed from its installed file under a name of our own, while ``sklearn.metrics``
and ``sklearn.metrics.cluster`` hold the shims: its ``from sklearn.metrics import f1_score`` and
the function lists in its ``parametrize`` decorators then bind the shims. The modules it imports
are imported first, unpatched, so that nothing else keeps a shim; scikit-learn is restored at once.
"""

from __future__ import annotations

import ast
import contextlib
import importlib
import importlib.util
from collections.abc import Iterator
from typing import Any

import sklearn.metrics
import sklearn.metrics.cluster

from tests.conformance.shim import ORIGINALS, SHIMS

NAMESPACES = (sklearn.metrics, sklearn.metrics.cluster)


@contextlib.contextmanager
def patched() -> Iterator[None]:
    """``sklearn.metrics`` (and ``.cluster``) names point at the shims inside the block."""
    saved = []
    for space in NAMESPACES:
        for name, shim in SHIMS.items():
            if getattr(space, name, None) is ORIGINALS[name]:
                saved.append((space, name))
                setattr(space, name, shim)
    try:
        yield
    finally:
        for space, name in saved:
            setattr(space, name, ORIGINALS[name])


def _preimport(source: str) -> None:
    for node in ast.parse(source).body:
        if isinstance(node, ast.Import):
            for alias in node.names:
                importlib.import_module(alias.name)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            module = importlib.import_module(node.module)
            for alias in node.names:
                if not hasattr(module, alias.name):
                    importlib.import_module(f"{node.module}.{alias.name}")


def load(module_name: str) -> dict[str, Any]:
    """The public names of scikit-learn's test module ``module_name``, loaded with the shims."""
    spec = importlib.util.find_spec(module_name)
    assert spec is not None and spec.origin is not None, module_name
    with open(spec.origin, encoding="utf-8") as f:
        source = f.read()
    _preimport(source)
    ours = importlib.util.spec_from_file_location(f"streammetrics_conformance.{module_name}", spec.origin)
    assert ours is not None and ours.loader is not None
    module = importlib.util.module_from_spec(ours)
    with patched():
        ours.loader.exec_module(module)
    return {k: v for k, v in vars(module).items() if not k.startswith("__")}
