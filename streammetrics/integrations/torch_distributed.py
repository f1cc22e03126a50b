"""torch.distributed: gather every rank's state and merge, and mask the sampler's padded rows.

The recipe for data-parallel evaluation (each rank sees a shard of the validation set)::

    import torch.distributed as dist
    import streammetrics as sm
    from streammetrics.integrations import torch_distributed as smt

    sampler = DistributedSampler(dataset, shuffle=False)     # pads to equal shard sizes
    keep = smt.padding_mask(len(dataset), dist.get_world_size(), dist.get_rank())
    metric, seen = sm.F1(average="macro"), 0
    for x, y in DataLoader(dataset, batch_size=256, sampler=sampler):
        pred = model(x).argmax(1)
        metric.update(y, pred, sample_weight=keep[seen : seen + len(y)])   # padding weighs 0
        seen += len(y)
    merged = smt.gather_merge(metric)          # same merged accumulator on every rank
    if dist.get_rank() == 0:
        print(merged.compute())

``DistributedSampler`` repeats the first rows of its index list so that every rank gets the
same number of rows; counting those duplicates changes the result (torchmetrics counts them).
:func:`padding_mask` gives weight 0 to exactly those rows, so the merged result equals the
single-process one. Torch is imported only when :func:`gather_merge` runs without an explicit
``all_gather`` function.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from . import _shards

__all__ = ["gather_merge", "padding_mask", "sampler_padding_mask"]


def gather_merge(
    metric: Any,
    *,
    group: Any = None,
    all_gather: Callable[[list[Any], Any], Any] | None = None,
    world_size: int | None = None,
) -> Any:
    """Gather the state of ``metric`` from every rank and merge them, in rank order.

    Every rank must call it (a collective). Each rank ships ``metric.to_bytes()`` (a few hundred
    bytes), never its predictions. Returns a new merged accumulator (the same on every rank);
    ``metric`` itself is unchanged.

    Args:
        metric: this rank's metric or collection.
        group: the process group (``torch.distributed`` default group when ``None``).
        all_gather: a function with the signature of ``torch.distributed.all_gather_object``
            (``all_gather(output_list, obj)``, filling ``output_list`` with every rank's object);
            defaults to ``torch.distributed.all_gather_object``. Pass your own to use another
            framework's collective (or a fake in tests).
        world_size: the number of ranks (defaults to ``torch.distributed.get_world_size``).

    Examples:
        >>> import streammetrics as sm
        >>> from streammetrics.integrations.torch_distributed import gather_merge
        >>> ranks = [sm.Accuracy().update([0, 1], [0, 1]), sm.Accuracy().update([1, 1], [0, 1])]
        >>> def fake_all_gather(output, obj):  # every rank's bytes, as a real collective would
        ...     output[:] = [r.to_bytes() for r in ranks]
        >>> gather_merge(ranks[0], all_gather=fake_all_gather, world_size=2).compute()
        0.75
    """
    _shards.check_accumulator(metric)
    blob = _shards.dump(metric)
    if all_gather is None:
        import torch.distributed as dist

        def all_gather(output: list[Any], obj: Any) -> Any:
            return dist.all_gather_object(output, obj, group=group)

        if world_size is None:
            world_size = dist.get_world_size(group)
    if world_size is None:
        raise ValueError("world_size: expected the number of ranks with a custom all_gather, found None")
    if isinstance(world_size, bool) or not isinstance(world_size, int) or world_size < 1:
        raise ValueError(f"world_size: expected a positive integer, found {world_size!r}")
    output: list[Any] = [None] * world_size
    all_gather(output, blob)
    if any(b is None for b in output):
        raise RuntimeError("all_gather: some ranks sent nothing")
    merged = _shards.empty_like(metric)
    return _shards.merge_all([merged, *(_shards.load(b) for b in output)], where="rank")


def padding_mask(n_rows: int, world_size: int, rank: int, *, drop_last: bool = False) -> np.ndarray:
    """Weights (1.0 real row, 0.0 padding) for the rows ``DistributedSampler`` gives ``rank``.

    ``DistributedSampler`` pads its (possibly shuffled) index list to ``total_size =
    ceil(n_rows / world_size) * world_size`` by repeating its first indices, then gives rank
    ``r`` the positions ``r, r + world_size, ...``. Position ``p`` is padding when ``p >=
    n_rows``, whatever the shuffling. With ``drop_last=True`` the sampler drops rows instead of
    padding, so every weight is 1.

    Examples:
        >>> from streammetrics.integrations.torch_distributed import padding_mask
        >>> padding_mask(10, 4, 2), padding_mask(10, 4, 1)
        (array([1., 1., 0.]), array([1., 1., 1.]))
    """
    for name, value, low in (("n_rows", n_rows, 0), ("world_size", world_size, 1), ("rank", rank, 0)):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < low:
            raise ValueError(f"{name}: expected an integer >= {low}, found {value!r}")
    if rank >= world_size:
        raise ValueError(f"rank: expected an integer < world_size ({world_size}), found {rank}")
    if drop_last and n_rows % world_size:
        per_rank = (n_rows - world_size) // world_size + 1 if n_rows >= world_size else 0
        return np.ones(per_rank)
    per_rank = -(-n_rows // world_size)
    positions = rank + world_size * np.arange(per_rank)
    return (positions < n_rows).astype(np.float64)


def sampler_padding_mask(sampler: Any) -> np.ndarray:
    """:func:`padding_mask` for a ``torch.utils.data.DistributedSampler`` (reads its settings).

    Examples:
        >>> from types import SimpleNamespace
        >>> from streammetrics.integrations.torch_distributed import sampler_padding_mask
        >>> fake = SimpleNamespace(dataset=range(5), num_replicas=2, rank=1, drop_last=False)
        >>> sampler_padding_mask(fake)
        array([1., 1., 0.])
    """
    return padding_mask(
        len(sampler.dataset), int(sampler.num_replicas), int(sampler.rank), drop_last=bool(sampler.drop_last)
    )
