"""streammetrics: streaming, mergeable metric accumulators.

Every metric is a small object with ``update`` / ``merge`` / ``compute`` over sufficient
statistics, so it can be computed over batches, over an endless stream, or over shards merged
exactly.

Examples:
    >>> import streammetrics as sm
    >>> shard_a = sm.F1().update([0, 1, 1], [0, 1, 0])
    >>> shard_b = sm.F1().update([1, 0], [1, 1])
    >>> round((shard_a + shard_b).compute(), 4)
    0.6667
"""

from . import (
    aggregation,
    classification,
    clustering,
    fairness,
    keyed,
    nominal,
    probabilistic,
    ranking,
    regression,
    retrieval,
    streaming,
    uncertainty,
)
from ._core import Metric, State, from_bytes, from_state_dict, load, registered_types
from .aggregation import *  # noqa: F403
from .classification import *  # noqa: F403
from .clustering import *  # noqa: F403
from .errors import InputError, MergeError, StateError, StreamMetricsError, UndefinedMetricWarning
from .fairness import *  # noqa: F403
from .integrations.sklearn import scorer
from .keyed import *  # noqa: F403
from .nominal import *  # noqa: F403
from .probabilistic import *  # noqa: F403
from .ranking import *  # noqa: F403
from .regression import *  # noqa: F403
from .retrieval import *  # noqa: F403
from .streaming import *  # noqa: F403
from .uncertainty import *  # noqa: F403

__version__ = "0.1.0"

__all__ = [
    "Metric",
    "State",
    "from_bytes",
    "from_state_dict",
    "load",
    "registered_types",
    "InputError",
    "MergeError",
    "StateError",
    "StreamMetricsError",
    "UndefinedMetricWarning",
    *classification.__all__,
    *ranking.__all__,
    *probabilistic.__all__,
    *regression.__all__,
    *clustering.__all__,
    *streaming.__all__,
    *uncertainty.__all__,
    *aggregation.__all__,
    *nominal.__all__,
    *keyed.__all__,
    *fairness.__all__,
    *retrieval.__all__,
    "scorer",
]
