"""An empty batch is valid whatever the number of outputs (issue 15)."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.metrics import mean_absolute_error, mean_squared_error, r2_score

import streammetrics as sm


@pytest.mark.parametrize(
    ("cls", "reference"), [(sm.MSE, mean_squared_error), (sm.MAE, mean_absolute_error), (sm.R2, r2_score)]
)
def test_an_empty_batch_with_multioutput_weights_is_accepted(cls, reference):
    rng = np.random.default_rng(0)
    y, p = rng.normal(size=(6, 2)), rng.normal(size=(6, 2))
    m = cls(multioutput=[0.4, 0.6]).update([], [])
    assert m.n_samples == 0
    m.update(y, p)
    assert m.compute() == pytest.approx(reference(y, p, multioutput=[0.4, 0.6]), rel=1e-12)
    assert m.to_bytes() == cls(multioutput=[0.4, 0.6]).update(y, p).to_bytes()
