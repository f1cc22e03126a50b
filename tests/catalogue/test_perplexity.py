"""Perplexity beyond the law suite: sequences of logits, blocks of rows, padding, and the
identity with the log loss of the softmax (``tests/law_cases/classification_rows.py`` compares
it with scikit-learn; ``test_peer_agreement.py`` with torchmetrics and torcheval)."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from scipy.special import logsumexp

import streammetrics as sm
from streammetrics.classification import perplexity


def _sequences(seed: int = 0, b: int = 4, s: int = 7, v: int = 30):
    rng = np.random.default_rng(seed)
    return rng.integers(0, v, (b, s)), 2.0 * rng.standard_normal((b, s, v)), rng.uniform(0.5, 2.0, (b, s))


@pytest.mark.parametrize("sequences", [4, 20])  # (20: more than the tests' 16-row parse chunks)
def test_sequences_equal_their_flattened_rows_weights_included(sequences):
    y, x, w = _sequences(b=sequences)
    for weights in (None, w):
        seq = sm.Perplexity().update(y, x, sample_weight=weights)
        flat = sm.Perplexity().update(
            y.reshape(-1),
            x.reshape(-1, x.shape[2]),
            sample_weight=None if weights is None else weights.reshape(-1),
        )
        assert seq.compute() == flat.compute() and seq.n_samples == flat.n_samples == y.size
    nll = logsumexp(x, axis=2) - np.take_along_axis(x, y[..., None], axis=2)[..., 0]
    assert seq.compute() == pytest.approx(math.exp(np.average(nll, weights=w)), rel=1e-13)


def test_blocks_of_rows_and_float32_logits_give_the_same_value(monkeypatch):
    y, x, _ = _sequences(1, v=100)
    whole = sm.Perplexity().update(y, x.astype(np.float32)).compute()
    monkeypatch.setattr(perplexity, "BLOCK_CELLS", 250)  # blocks of 2 rows
    blocks = sm.Perplexity().update(y, x.astype(np.float32)).compute()
    assert blocks == whole
    exact = math.exp(
        np.mean(
            logsumexp(x.astype(np.float32).astype(float), axis=2)
            - np.take_along_axis(x.astype(np.float32).astype(float), y[..., None], axis=2)[..., 0]
        )
    )
    assert whole == pytest.approx(exact, rel=1e-13)


def test_equals_exp_of_the_log_loss_of_the_softmax_and_is_stable_at_large_logits():
    rng = np.random.default_rng(2)
    y, x = rng.integers(0, 5, 40), rng.standard_normal((40, 5))
    loss = sm.LogLoss(input="score").update(y, x).compute()
    assert sm.Perplexity().update(y, x).compute() == pytest.approx(math.exp(loss), rel=1e-13)
    shifted = sm.Perplexity().update(y, x + 1e300 / 3).compute()  # a row's shift leaves the softmax
    assert math.isfinite(shifted)


def test_padding_is_seen_but_adds_nothing_and_all_padding_is_undefined():
    y, x, _ = _sequences(3)
    padded = y.copy()
    padded[:, -2:] = -100
    m = sm.Perplexity(ignore_index=-100).update(padded, x)
    kept = sm.Perplexity().update(y[:, :-2], x[:, :-2])
    assert m.n_samples == y.size and m.compute() == pytest.approx(kept.compute(), rel=1e-13)
    empty = sm.Perplexity(ignore_index=-100).update(np.full(3, -100), np.zeros((3, 4)))
    with pytest.warns(sm.UndefinedMetricWarning, match="every position is ignored"):
        assert math.isnan(empty.compute())
    with pytest.raises(sm.InputError, match=r"y_true: expected classes in 0\.\.3"):
        sm.Perplexity().update(np.full(3, -100), np.zeros((3, 4)))  # no ignore_index: refused


@pytest.mark.parametrize(
    ("y", "x", "kw", "match"),
    [
        (np.zeros((2, 3), int), np.zeros((2, 4, 5)), {}, r"y_true: expected shape \(2, 4\)"),
        (
            np.zeros((2, 4), int),
            np.zeros((2, 4, 5)),
            {"sample_weight": np.ones(8)},
            "sample_weight: expected shape",
        ),
        (np.zeros(2, int), np.zeros((2, 0)), {}, "at least one column"),
        (
            np.zeros(2, int),
            np.array([[0.0, np.nan], [0.0, 1.0]]),
            {},
            "y_score: expected finite values, found nan",
        ),
        (
            np.zeros(2, int),
            np.array([[0.0, -np.inf], [0.0, 1.0]]),
            {},
            "y_score: expected finite values, found -inf",
        ),
        (np.array([0, 5]), np.zeros((2, 5)), {}, r"y_true: expected classes in 0\.\.4"),
        (np.zeros(3, int), np.zeros((2, 5)), {}, "y_score: expected 3 rows"),
    ],
)
def test_bad_input_names_the_argument_and_leaves_the_state(y, x, kw, match):
    m = sm.Perplexity().update([1, 2], np.eye(3)[:2])
    before = m.to_bytes()
    with pytest.raises(sm.InputError, match=match):
        m.update(y, x, **kw)
    assert m.to_bytes() == before


def test_ignore_index_is_an_int():
    with pytest.raises(ValueError, match="ignore_index"):
        sm.Perplexity(ignore_index=1.5)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert sm.Perplexity(ignore_index=np.int64(-1)).ignore_index == -1


def test_transformers_batch_eval_metrics_gives_the_perplexity_of_the_evaluation_set():
    """Token logits ``(batch, seq_len, vocabulary)`` with -100 labels, one call per batch, as
    ``Trainer`` makes them with ``batch_eval_metrics=True`` (the module imports no transformers)."""
    from types import SimpleNamespace

    from streammetrics.integrations.transformers import BatchEvalMetrics

    y, x, _ = _sequences(6)
    y[:, 0] = -100
    compute_metrics = BatchEvalMetrics(sm.Perplexity())
    assert compute_metrics(SimpleNamespace(predictions=x[:2], label_ids=y[:2]), compute_result=False) == {}
    logged = compute_metrics(SimpleNamespace(predictions=x[2:], label_ids=y[2:]), compute_result=True)
    nll = logsumexp(x[:, 1:], axis=2) - np.take_along_axis(x[:, 1:], y[:, 1:, None], axis=2)[..., 0]
    assert logged == {"perplexity": pytest.approx(math.exp(nll.mean()), rel=1e-13)}
