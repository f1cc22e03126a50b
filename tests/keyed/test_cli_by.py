"""``streammetrics evaluate --by`` keeps Sliced states, saves them, and ``merge`` merges them."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import f1_score

import streammetrics as sm
from streammetrics.cli import main


def test_by_saves_sliced_states_that_merge_group_by_group(capsys, tmp_path):
    rng = np.random.default_rng(0)
    frames = []
    for part in range(2):
        n = 200
        y = rng.integers(0, 2, n)
        frames.append(
            pd.DataFrame(
                {"y": y, "p": np.where(rng.random(n) < 0.8, y, 1 - y), "c": rng.choice(["de", "fr", 3], n)}
            )
        )
        frames[-1].to_csv(tmp_path / f"part{part}.csv", index=False)
    states = []
    for part in range(2):
        state = tmp_path / f"part{part}.state"
        argv = ["evaluate", str(tmp_path / f"part{part}.csv"), "--task", "binary", "--y-true", "y", "--y-pred", "p",
                "--by", "c", "--save-state", str(state), "--chunksize", "64", "--json"]  # fmt: skip
        assert main(argv) == 0
        doc = json.loads(capsys.readouterr().out)
        states.append(state)
    groups = doc["groups"]
    assert len(groups) == 3
    saved = sm.load(states[1])
    assert isinstance(saved["pred"], sm.Sliced)
    assert main(["merge", *map(str, states), "--json"]) == 0
    merged = json.loads(capsys.readouterr().out)["value"]
    both = pd.concat(frames)
    key = both["c"].astype(str)
    for group in ("de", "fr", "3"):
        rows = key == group
        assert merged[f"pred/{group}/f1"] == pytest.approx(
            f1_score(both["y"][rows], both["p"][rows]), abs=1e-12
        )
