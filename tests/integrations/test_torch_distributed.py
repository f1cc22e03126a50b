"""torch.distributed: gather states and merge; the DistributedSampler padding problem and its fix."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

import streammetrics as sm
from streammetrics.integrations import torch_distributed as smt

from .engine_cases import CASES, assert_engine_equal, make_data, one_per_type, single_process


def test_module_does_not_import_torch():
    code = "import sys, streammetrics.integrations.torch_distributed; print('torch' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


class FakeWorld:
    """All ranks in one process: all_gather hands every rank's object to everyone."""

    def __init__(self, world_size):
        self.objects = [None] * world_size

    def gather_for(self, rank):
        def all_gather(output, obj):
            self.objects[rank] = obj
            output[:] = self.objects

        return all_gather


# one case per metric class: the merges themselves are the law suite's; this is the gather's plumbing
@pytest.mark.parametrize("case", one_per_type(CASES), ids=str)
def test_gather_merge_over_fake_ranks(case):
    data = make_data(case, seed=31, n_parts=7)
    ranks = [
        case.make().update(
            data.y_true[s], data.y_pred[s], sample_weight=None if data.weight is None else data.weight[s]
        )
        for s in data.parts
    ]
    world = FakeWorld(len(ranks))
    for r, m in enumerate(ranks):  # every rank contributes before the last one reads
        world.objects[r] = m.to_bytes()
    merged = [
        smt.gather_merge(m, all_gather=world.gather_for(r), world_size=len(ranks))
        for r, m in enumerate(ranks)
    ]
    for got in merged:
        assert_engine_equal(case, got, single_process(case, data), str(case))


def test_gather_merge_needs_a_world_size_with_a_custom_gather():
    with pytest.raises(ValueError, match="world_size"):
        smt.gather_merge(sm.Accuracy(), all_gather=lambda out, obj: None)


def test_different_configurations_on_ranks_raise_merge_error():
    a, b = sm.FBeta(beta=1.0), sm.FBeta(beta=2.0)

    def all_gather(out, obj):
        out[:] = [a.to_bytes(), b.to_bytes()]

    with pytest.raises(sm.MergeError, match=r"rank 2: .*beta"):
        smt.gather_merge(a, all_gather=all_gather, world_size=2)


@pytest.mark.engine
@pytest.mark.parametrize(
    ("n", "world", "drop_last"),
    [
        (10, 4, False),
        (10, 3, False),
        (12, 4, False),
        (3, 4, False),
        (10, 4, True),
        (3, 4, True),
        (1, 1, False),
    ],
)
def test_padding_mask_matches_distributed_sampler(n, world, drop_last):
    torch_data = pytest.importorskip("torch.utils.data")
    for shuffle in (False, True):
        seen = []
        for rank in range(world):
            sampler = torch_data.DistributedSampler(
                range(n), num_replicas=world, rank=rank, shuffle=shuffle, drop_last=drop_last, seed=3
            )
            idx = list(sampler)
            mask = smt.sampler_padding_mask(sampler)
            assert len(mask) == len(idx)
            np.testing.assert_array_equal(mask, smt.padding_mask(n, world, rank, drop_last=drop_last))
            seen.extend(i for i, keep in zip(idx, mask, strict=True) if keep)
        # real rows are each seen exactly once (all of them unless drop_last drops some)
        assert len(seen) == len(set(seen))
        if not drop_last:
            assert sorted(seen) == list(range(n))


@pytest.mark.engine
def test_the_padding_problem_and_its_fix():
    """DistributedSampler pads 10 rows to 12 for 4 ranks by repeating rows 0 and 1.

    Counting the padded duplicates (what torchmetrics does) gives a different result than one
    process; weight 0 on them gives the same result.
    """
    torch_data = pytest.importorskip("torch.utils.data")
    y_true = np.array([1, 1, 0, 0, 1, 0, 1, 0, 0, 1])
    y_pred = np.array([1, 1, 0, 1, 0, 0, 1, 0, 1, 1])
    world = 4
    naive, fixed = [], []
    for rank in range(world):
        sampler = torch_data.DistributedSampler(range(10), num_replicas=world, rank=rank, shuffle=False)
        idx = np.array(list(sampler))
        naive.append(sm.F1().update(y_true[idx], y_pred[idx]))
        fixed.append(
            sm.F1().update(y_true[idx], y_pred[idx], sample_weight=smt.sampler_padding_mask(sampler))
        )
    single = sm.F1().update(y_true, y_pred).compute()
    assert sum(naive).n_samples == 12
    assert sum(naive).compute() != single  # the duplicated rows 0 and 1 (two true positives) count twice
    assert sum(fixed).compute() == single


WORKER = r"""
import sys, numpy as np, torch.distributed as dist
import streammetrics as sm
from streammetrics.integrations import torch_distributed as smt
rank, world, init = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
dist.init_process_group("gloo", init_method=init, rank=rank, world_size=world)
rng = np.random.default_rng(0)
y, p = rng.integers(0, 3, 101), rng.integers(0, 3, 101)
keep = smt.padding_mask(len(y), world, rank)
idx = np.arange(rank, len(keep) * world, world) % len(y)  # DistributedSampler(shuffle=False) order
m = sm.F1(average="macro").update(y[idx], p[idx], sample_weight=keep)
merged = smt.gather_merge(m)
assert merged.compute() == sm.F1(average="macro").update(y, p).compute(), merged.compute()
print("rank", rank, "ok", merged.n_samples)
dist.destroy_process_group()
"""


@pytest.mark.engine
def test_real_torch_distributed_gloo_world_size_2(tmp_path):
    pytest.importorskip("torch.distributed")
    init = f"file://{tmp_path / 'rendezvous'}"
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", WORKER, str(r), "2", init],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for r in range(2)
    ]
    outs = [p.communicate(timeout=120) for p in procs]
    for p, (out, err) in zip(procs, outs, strict=True):
        assert p.returncode == 0, err[-2000:]
        assert "ok 102" in out
