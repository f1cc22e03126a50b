"""The accumulator core: the Metric base, the state protocol, serialization and validation."""

from .metric import Metric
from .registry import from_bytes, from_state_dict, load, registered_types
from .state import State

__all__ = ["Metric", "State", "from_bytes", "from_state_dict", "load", "registered_types"]
