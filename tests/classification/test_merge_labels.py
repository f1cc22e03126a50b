"""A merge is refused when an update with both shards' rows would be; undefined kappa (issue 15)."""

from __future__ import annotations

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
