"""Nested collections keep their members' views live across round trips and merges."""

from __future__ import annotations

import numpy as np
from sklearn.metrics import confusion_matrix

import streammetrics as sm


def test_nested_member_views_follow_round_trips_and_merges():
    y, p = [0, 1, 1, 0, 1], [0, 1, 0, 0, 0]
    outer = sm.MetricCollection({"labels": sm.MetricCollection({"cm": sm.ConfusionMatrix()}), "f1": sm.F1()})
    outer.update(y, p)
    restored = sm.from_bytes(outer.to_bytes())
    np.testing.assert_array_equal(restored["labels"]["cm"].compute(), confusion_matrix(y, p))
    merged = sum([outer, restored])
    np.testing.assert_array_equal(merged["labels"]["cm"].compute(), 2 * confusion_matrix(y, p))
