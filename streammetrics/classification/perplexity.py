"""Perplexity: the exponential of the mean negative log-likelihood of the true tokens, from logits.

A per-row value metric (:class:`~streammetrics.aggregation.state.RowSums`): each token's
``-log softmax(x)_y = logsumexp(x) - x_y`` is summed with its weight, so the state is two
numbers whatever the vocabulary, merges and reverts exactly, and never holds the logits.
"""

from __future__ import annotations

import math
import warnings
from typing import Any, ClassVar

import numpy as np

from .._core import validation as v
from .._core.inputs import Inputs
from .._core.workspace import work
from ..aggregation.state import RowSums
from ..errors import InputError, UndefinedMetricWarning
from ..probabilistic.base import _class_index
from .rowlosses import _ClassRows

#: Cells of the block of rows whose log-sum-exp is taken at once (its temporaries stay small
#: whatever the vocabulary: a (8192, 50257) batch of logits is not copied whole).
BLOCK_CELLS = 1 << 20


def _ignore_index(value: Any) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise ValueError(f"ignore_index: expected an int or None, found {value!r}")
    return int(value)


def token_nll(logits: np.ndarray, idx: np.ndarray, name: str = "y_score") -> np.ndarray:
    """``logsumexp(logits[i]) - logits[i, idx[i]]`` per row, a block of rows at a time, each
    block converted to float64 and checked finite on its own (float32 logits of a large
    vocabulary are never copied whole); :class:`~streammetrics.InputError` naming ``name`` on a
    NaN or an infinity.

    Examples:
        >>> token_nll(np.array([[0.0, 0.0], [2.0, 0.0]]), np.array([0, 0])).round(6).tolist()
        [0.693147, 0.126928]
    """
    n, k = logits.shape
    out = np.empty(n)
    step = max(BLOCK_CELLS // max(k, 1), 1)
    for lo in range(0, n, step):
        block = np.asarray(logits[lo : lo + step], dtype=np.float64)
        v.check_finite(block, name)
        top = block.max(axis=1)
        shifted = np.subtract(block, top[:, None], out=work(("perplexity", "shifted"), block.shape))
        np.exp(shifted, out=shifted)
        lse = np.log(shifted.sum(axis=1))
        lse += top
        out[lo : lo + step] = lse - block[np.arange(len(block)), idx[lo : lo + step]]
    return out


class Perplexity(_ClassRows):
    """The perplexity ``exp(sum_i w_i nll_i / sum_i w_i)`` of a language model's next-token
    predictions, ``nll_i = logsumexp(x_i) - x_{i, y_i}`` the negative log-likelihood of the true
    token under the softmax of the logits (torchmetrics and torcheval ``Perplexity``).

    ``update(y_true, y_score)``: token ids ``(n,)`` and logits ``(n, vocabulary)``, or a batch of
    sequences ``(batch, seq_len)`` and ``(batch, seq_len, vocabulary)`` (flattened; weights of
    shape ``(batch, seq_len)`` too). Log-probabilities are logits too (their softmax is the
    probabilities). The state is the weighted sum of the tokens' log-likelihoods and their weight:
    it merges and reverts exactly, whatever the vocabulary.

    Args:
        ignore_index: A token id whose positions do not count (padding; ``-100`` as Hugging Face
            labels it); ``None`` (default): every position counts.

    Examples:
        >>> import streammetrics as sm
        >>> logits = [[2.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 0.0]]
        >>> round(sm.Perplexity().update([0, 1, 2], logits).compute(), 6)
        1.877361
        >>> round(sm.Perplexity(ignore_index=-100).update([0, 1, -100], logits).compute(), 6)
        1.485119
    """

    higher_is_better: ClassVar[bool | None] = False

    def __init__(self, *, ignore_index: int | None = None) -> None:
        self.ignore_index = _ignore_index(ignore_index)
        super().__init__()

    def get_config(self) -> dict[str, Any]:
        return {"ignore_index": self.ignore_index}

    def _parse(self, inputs: Inputs) -> tuple[Any, ...]:
        """Sequences ``(batch, seq_len, vocabulary)`` become rows of tokens before the batch is
        parsed (in chunks of tokens, each token a sample)."""
        raw_true, raw_score = inputs.array(0, "y_true"), inputs.array(1, "y_score")
        if raw_score.ndim == 3:
            if raw_true.shape != raw_score.shape[:2]:
                raise InputError(
                    f"y_true: expected shape {raw_score.shape[:2]} (the logits' first two), found {raw_true.shape}"
                )
            weight = inputs.sample_weight
            if weight is not None:
                weight = v.to_array(weight, "sample_weight")
                if weight.shape != raw_true.shape:
                    raise InputError(
                        f"sample_weight: expected shape {raw_true.shape} (that of y_true), found {weight.shape}"
                    )
                weight = weight.reshape(-1)
            inputs = Inputs((raw_true.reshape(-1), raw_score.reshape(-1, raw_score.shape[2])), weight)
        return super()._parse(inputs)

    def _parse_rows(self, inputs: Inputs) -> tuple[Any, ...]:
        yt = inputs.labels(0, "y_true")
        s = inputs.array(1, "y_score")
        v.check_ndim(s, "y_score", (2,))
        if s.dtype.kind not in "fiu":  # (anything else converted whole, with its usual errors)
            s = inputs.floats(1, "y_score", (2,))
        v.check_length(s, len(yt), "y_score")
        if not s.shape[1]:
            raise InputError("y_score: expected at least one column (the vocabulary), found 0")
        counted = None
        if self.ignore_index is not None and len(yt) and yt.dtype.kind == "i":
            ignored = yt == self.ignore_index
            if ignored.any():  # (an ignored position's id: any valid column, its value dropped)
                counted = ~ignored
                yt = np.where(ignored, 0, yt)
        idx = _class_index(yt, s.shape[1], None)
        return token_nll(s, idx), counted, inputs.weights(len(yt))

    def _row_values(self, batch: tuple[Any, ...]) -> np.ndarray:
        # (the log-likelihood of a counted position, and whether it counts: the mean is their
        # ratio, so an ignored position is seen, in n_samples, but adds nothing)
        nll, counted, _ = batch
        out = np.ones((len(nll), 2))
        out[:, 0] = nll
        if counted is not None:
            out[~counted] = 0.0
        return out

    def _compute(self, state: RowSums) -> float:
        total, weight = (float(t) for t in state.totals)
        if not weight > 0:
            warnings.warn(
                "Perplexity is undefined when every position is ignored; returning NaN",
                UndefinedMetricWarning,
                stacklevel=4,
            )
            return math.nan
        mean = total / weight
        return math.exp(mean) if mean < 709.0 else math.inf  # (exp overflows past ~709.78)
