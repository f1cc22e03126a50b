"""The conformance machinery itself: the shim streams, forwards and refuses as it says, failures
are classified by kind, and the expectations file is well-formed."""

from __future__ import annotations

import inspect
import warnings

import numpy as np
import pytest
import sklearn.metrics as skm
from sklearn.exceptions import UndefinedMetricWarning as SkUndefinedMetricWarning

import streammetrics as sm
from tests.conformance import report
from tests.conformance.conftest import EXPECTED_FILE, load_expected, load_not_covering
from tests.conformance.loader import patched
from tests.conformance.outcomes import classify
from tests.conformance.shim import ORIGINALS, SHIMS, ShimUnsupported, stream


def test_stream_cuts_three_uneven_shards_round_trips_and_merges(monkeypatch):
    log = []

    def make():
        m = sm.MAE()
        update = m.update

        def spy(y_true, y_pred, sample_weight=None):
            log.append(("update", len(y_true)))
            return update(y_true, y_pred, sample_weight=sample_weight)

        m.update = spy
        return m

    merge = sm.MAE.merge

    def spy_merge(self, other):
        log.append(("merge", other.n_samples))
        return merge(self, other)

    monkeypatch.setattr(sm.MAE, "merge", spy_merge)
    monkeypatch.setattr(sm, "from_bytes", _logged(sm.from_bytes, log, "from_bytes"))
    monkeypatch.setattr(sm, "from_state_dict", _logged(sm.from_state_dict, log, "from_state_dict"))
    y = np.arange(30.0)
    m = stream(make, (y, y + 1.5), None)
    assert [e for e in log if e[0] == "update"] == [("update", 6), ("update", 16), ("update", 8)]
    assert [e[0] for e in log].count("from_bytes") == 2 and [e[0] for e in log].count("from_state_dict") == 2
    assert [e[0] for e in log].count("merge") == 2  # three shards, two merges
    assert m.n_samples == 30
    assert m.compute() == ORIGINALS["mean_absolute_error"](y, y + 1.5)


def _logged(func, log, name):
    def wrapper(*args, **kwargs):
        log.append((name, None))
        return func(*args, **kwargs)

    return wrapper


def test_last_shard_takes_the_rest_so_a_length_mismatch_is_refused():
    with pytest.raises(sm.InputError):
        SHIMS["mean_absolute_error"]([1.0, 2.0, 3.0, 4.0, 5.0], [1.0, 2.0, 3.0, 4.0, 5.0, 6.0])


def test_shim_values_match_scikit_learn_and_keep_its_signature():
    rng = np.random.default_rng(0)
    y, p = rng.integers(0, 3, 50), rng.integers(0, 3, 50)
    for name in ("f1_score", "precision_score", "recall_score", "jaccard_score"):
        assert SHIMS[name](y, p, average="macro") == pytest.approx(ORIGINALS[name](y, p, average="macro"))
    prfs = SHIMS["precision_recall_fscore_support"](y, p)
    expected = ORIGINALS["precision_recall_fscore_support"](y, p)
    for ours, theirs in zip(prfs, expected, strict=True):
        np.testing.assert_allclose(ours, theirs)
    assert inspect.signature(SHIMS["f1_score"]) == inspect.signature(ORIGINALS["f1_score"])


def test_keywords_are_forwarded_by_name_or_refused_as_unsupported():
    assert SHIMS["fbeta_score"]([0, 1, 1, 0], [0, 1, 0, 0], beta=2.0) == pytest.approx(
        skm.fbeta_score([0, 1, 1, 0], [0, 1, 0, 0], beta=2.0)  # scikit-learn's: only its tests are patched
    )
    with pytest.raises(ShimUnsupported, match=r"brier_score_loss\(scale_by_half=True\)"):
        SHIMS["brier_score_loss"]([0, 1], [0.2, 0.7], scale_by_half=True)


def test_sparse_input_is_unsupported():
    sparse = pytest.importorskip("scipy.sparse")
    with pytest.raises(ShimUnsupported, match="sparse"):
        SHIMS["accuracy_score"](sparse.csr_matrix(np.eye(3)), sparse.csr_matrix(np.eye(3)))


def test_undefined_metric_warning_is_reissued_as_scikit_learns():
    with pytest.warns(SkUndefinedMetricWarning):
        SHIMS["precision_score"]([0, 0, 1], [0, 0, 0])


def test_patched_restores_scikit_learn():
    original = skm.f1_score
    with patched():
        assert skm.f1_score is SHIMS["f1_score"]
    assert skm.f1_score is original is ORIGINALS["f1_score"]


def _kind(func) -> str:
    with pytest.raises(BaseException) as info:
        func()
    return classify(info)[0]


@pytest.mark.filterwarnings("ignore:other text")
def test_failures_are_classified_by_kind():
    def message():
        with pytest.raises(ValueError, match="scikit-learn's words"):
            raise ValueError("other words")

    def no_error():
        with pytest.raises(ValueError):
            pass

    def no_warning():
        with pytest.warns(UserWarning):
            pass

    def wrong_text_warning():
        with pytest.warns(UserWarning, match="expected text"):
            warnings.warn("other text", UserWarning, stacklevel=1)

    def refused():
        sm.MAE().update([1.0], [np.nan])

    def unsupported():
        SHIMS["brier_score_loss"]([0, 1], [0.2, 0.7], scale_by_half=True)

    def value():
        np.testing.assert_allclose(1.0, 2.0)

    assert _kind(message) == "message"
    assert _kind(no_error) == "no-error"
    assert _kind(no_warning) == "no-warning"
    assert _kind(wrong_text_warning) == "warning-message"
    assert _kind(refused) == "refused"
    assert _kind(unsupported) == "unsupported"
    assert _kind(value) == "value"
    assert _kind(lambda: {}["x"]) == "error"


def test_expectations_file_is_reviewed_and_consistent():
    expected = load_expected()
    assert expected, f"{EXPECTED_FILE} lists no test"
    assert {e["category"] for e in expected.values()} <= set(report.DESCRIPTION) - {"unreviewed"}
    assert all(e["reason"].strip() and e["kind"] for e in expected.values())
    assert not set(expected) & load_not_covering()
