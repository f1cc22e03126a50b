"""Hugging Face Transformers: BatchEvalMetrics inside a real Trainer (batch_eval_metrics=True).

A tiny BERT built from a config (random weights, no download), 45 evaluation rows in batches of
8: the values equal scikit-learn on all the evaluation logits (gathered by a second Trainer
without compute_metrics).
"""

from __future__ import annotations

import numpy as np
import pytest
from sklearn import metrics as skm

import streammetrics as sm
from streammetrics.integrations.transformers import BatchEvalMetrics

from .frameworks import require_torch_framework

pytestmark = pytest.mark.engine
K = 3


def _dataset(torch, n, seed):
    g = torch.Generator().manual_seed(seed)
    ids = torch.randint(1, 50, (n, 6), generator=g)
    labels = torch.randint(0, K, (n,), generator=g)

    class Rows(torch.utils.data.Dataset):
        def __len__(self):
            return n

        def __getitem__(self, i):
            return {
                "input_ids": ids[i],
                "attention_mask": torch.ones(6, dtype=torch.long),
                "labels": labels[i],
            }

    return Rows()


def test_trainer_batch_eval_metrics_equal_sklearn_on_all_predictions(tmp_path):
    transformers = require_torch_framework("transformers")
    import torch

    torch.manual_seed(0)
    config = transformers.BertConfig(
        vocab_size=50,
        hidden_size=16,
        num_hidden_layers=2,
        num_attention_heads=2,
        intermediate_size=32,
        max_position_embeddings=16,
        num_labels=K,
    )
    model = transformers.BertForSequenceClassification(config)
    compute_metrics = BatchEvalMetrics(
        sm.MetricCollection(
            {
                "accuracy": sm.Accuracy(input="score"),
                "f1": sm.F1(average="macro", input="score"),
                "auc": sm.ROCAUC(input="score"),
                "log_loss": sm.LogLoss(input="score"),
            }
        )
    )
    common = dict(output_dir=str(tmp_path), per_device_eval_batch_size=8, report_to=[], use_cpu=True)
    val = _dataset(torch, 45, 1)
    trainer = transformers.Trainer(
        model=model,
        args=transformers.TrainingArguments(batch_eval_metrics=True, **common),
        eval_dataset=val,
        compute_metrics=compute_metrics,
    )
    values = trainer.evaluate()
    values_again = trainer.evaluate()  # a second evaluation starts empty
    assert compute_metrics.result.n_samples == 45

    reference = transformers.Trainer(model=model, args=transformers.TrainingArguments(**common))
    out = reference.predict(val)
    logits, y = out.predictions.astype(np.float64), out.label_ids
    proba = np.exp(logits - logits.max(axis=1, keepdims=True))
    proba /= proba.sum(axis=1, keepdims=True)
    expected = {
        "eval_accuracy": skm.accuracy_score(y, logits.argmax(1)),
        "eval_f1": skm.f1_score(y, logits.argmax(1), average="macro"),
        "eval_auc": np.mean([skm.roc_auc_score(y == c, logits[:, c]) for c in range(K)]),
        "eval_log_loss": skm.log_loss(y, proba),
    }
    for name, value in expected.items():
        assert values[name] == pytest.approx(value, rel=1e-9), name
        assert values_again[name] == pytest.approx(value, rel=1e-9), name


def test_token_rows_and_ignore_index():
    from types import SimpleNamespace

    m = BatchEvalMetrics(sm.Accuracy(input="score"))
    logits = np.array([[[2.0, 0.0], [0.0, 1.0]], [[0.0, 3.0], [1.0, 0.0]]])  # (2 rows, 2 tokens, 2 classes)
    labels = np.array([[0, -100], [1, 1]])
    out = m(SimpleNamespace(predictions=(logits,), label_ids=labels), compute_result=True)
    assert out == {"accuracy": pytest.approx(2 / 3)}
