"""A merge is refused when an update with both shards' rows would be; undefined kappa (issue 15)."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.metrics import f1_score

import streammetrics as sm


@pytest.mark.parametrize("cls", [sm.F1, sm.Precision, sm.Recall, sm.Jaccard])
def test_binary_merge_of_three_labels_is_refused_and_changes_nothing(cls):
    a, b = cls().update([0, 1, 1], [0, 1, 0]), cls().update([1, 2], [1, 2])
    with pytest.raises(sm.InputError, match="at most 2 labels"):
        cls().update([0, 1, 1, 1, 2], [0, 1, 0, 1, 2])  # the rows together: refused
    before = a.to_bytes()
    with pytest.raises(sm.InputError, match="at most 2 labels"):
        a.merge(b)
    assert a.to_bytes() == before


def test_binary_merge_of_two_labels_still_works():
    a, b = sm.F1().update([0, 1], [0, 1]), sm.F1().update([1, 1, 0], [1, 0, 0])
    assert a.merge(b).compute() == pytest.approx(f1_score([0, 1, 1, 1, 0], [0, 1, 1, 0, 0]))


def test_kappa_with_no_row_among_the_chosen_labels_is_replace_undefined_by():
    from sklearn.metrics import cohen_kappa_score

    y1, y2 = [1] * 5 + [2] * 5, [3] * 10
    expected = cohen_kappa_score(y1, y2, labels=[1, 2], replace_undefined_by=0.0)
    m = sm.CohenKappa(labels=[1, 2], unlisted="count", replace_undefined_by=0.0)
    with pytest.warns(sm.UndefinedMetricWarning):
        assert m.update(y1, y2).compute() == expected == 0.0


def test_more_classes_than_a_confusion_matrix_holds_are_refused(monkeypatch):
    """Beyond 2^14 classes the dense K x K table (2 GiB at the limit) is refused, not allocated:
    30,000 classes once asked for 7 GiB a batch (MemoryError, or the process killed)."""
    from streammetrics.classification import counts

    rng = np.random.default_rng(0)
    m = sm.Accuracy().update([0, 1], [0, 1])
    before = m.to_bytes()
    many = rng.permutation(counts.MAX_CLASSES + 10)
    with pytest.raises(sm.InputError, match="16,384 classes") as refused:
        m.update(many, many)
    assert m.to_bytes() == before
    # the message names the metrics that take any number of classes, and they do
    assert "ZeroOneLoss" in str(refused.value) and "TopKAccuracy(1)" in str(refused.value)
    labels = np.concatenate([many, [0, 1]])
    assert 1 - sm.ZeroOneLoss().update(labels, labels).compute() == 1.0
    monkeypatch.setattr(counts, "MAX_CLASSES", 12)  # a merge past the limit, on small tables
    half = np.arange(7)
    a, b = sm.F1(average="macro").update(half, half), sm.F1(average="macro").update(-half - 1, -half - 1)
    with pytest.raises(sm.MergeError, match="at most 12 classes"):
        a.merge(b)
    assert a.compute() == 1.0 and a.update(half, half).n_samples == 14
