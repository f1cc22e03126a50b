"""Association between two nominal variables: formulas on a :class:`ContingencyState`.

Cramér's V, Tschuprow's T, Pearson's contingency coefficient (all three from the chi-squared
statistic of the table) and Theil's uncertainty coefficient (from entropies), as torchmetrics'
``nominal`` package and :func:`scipy.stats.contingency.association` define them; rows are the
first labeling (``labels_true``), columns the second (``labels_pred``). The table holds only
labels with a count, so torchmetrics' "drop empty rows and columns" is the table itself.

``bias_correction`` (Cramér, Tschuprow; torchmetrics' default ``True``) applies Yates'
continuity correction to a 2 x 2 table, as :func:`scipy.stats.chi2_contingency` does (each cell
moved towards its expected count by ``min(0.5, |E - O|)``), and Bergsma's (2013) correction of
``phi^2`` and of the table's dimensions.

Examples:
    >>> from streammetrics.clustering.external.contingency import contingency
    >>> t = contingency([0, 0, 1, 1, 2, 2], [0, 0, 1, 1, 1, 0])
    >>> round(cramers_v(t, bias_correction=False), 6), round(pearsons_contingency_coefficient(t), 6)
    (0.816497, 0.632456)
"""

from __future__ import annotations

import numpy as np

from .contingency import ContingencyState

#: Tables up to this many cells get chi-squared cell by cell (no cancellation); larger ones use
#: ``N (sum n_ij^2 / (a_i b_j) - 1)`` over the stored cells.
_DENSE_CELLS = 1 << 22


def chi_squared(table: ContingencyState, correction: bool = False) -> float:
    """Pearson's chi-squared statistic of independence ``sum (n_ij - E_ij)^2 / E_ij``.

    ``E_ij = a_i b_j / N``. With ``correction=True`` and one degree of freedom (a 2 x 2 table),
    Yates' correction as :func:`scipy.stats.chi2_contingency`. 0.0 when the table has one row
    or one column (no degree of freedom).

    Examples:
        >>> from streammetrics.clustering.external.contingency import contingency
        >>> chi_squared(contingency([0, 0, 1, 1], [0, 0, 1, 1]))
        4.0
    """
    r, c = table.shape
    if r <= 1 or c <= 1:
        return 0.0
    a = table.row_sums().astype(np.float64)
    b = table.col_sums().astype(np.float64)
    n = float(a.sum())
    if r * c > _DENSE_CELLS:
        v = table.values.astype(np.float64)
        ratio = np.sum(v * v / (a[table.rows] * b[table.cols]))
        return max(float(n * (ratio - 1.0)), 0.0)
    observed = table.dense().astype(np.float64)
    expected = np.outer(a, b) / n
    if correction and (r - 1) * (c - 1) == 1:
        diff = expected - observed
        observed = observed + np.sign(diff) * np.minimum(0.5, np.abs(diff))
    return float(np.sum((observed - expected) ** 2 / expected))


def _phi_squared(table: ContingencyState, bias_correction: bool) -> tuple[float, float, float]:
    """``(phi^2, rows, cols)``: Bergsma-corrected when asked (NaN where undefined)."""
    r, c = table.shape
    n = float(table.total())
    phi2 = chi_squared(table, correction=bias_correction) / n
    if not bias_correction:
        return phi2, float(r), float(c)
    with np.errstate(divide="ignore", invalid="ignore"):
        m = np.float64(n - 1.0)
        phi2c = max(0.0, float(phi2 - (r - 1) * (c - 1) / m)) if m > 0 else float("nan")
        rc = float(r - (r - 1) ** 2 / m) if m > 0 else float("nan")
        cc = float(c - (c - 1) ** 2 / m) if m > 0 else float("nan")
    return phi2c, rc, cc


def _root(num: float, den: float) -> float:
    """``sqrt(num / den)`` clipped to [0, 1]; NaN when undefined (0/0, a negative ratio)."""
    if not (np.isfinite(num) and np.isfinite(den)) or den <= 0:
        return float("nan")
    ratio = num / den
    return float(min(max(np.sqrt(ratio), 0.0), 1.0)) if ratio >= 0 else float("nan")


def cramers_v(table: ContingencyState, bias_correction: bool = True) -> float:
    """Cramér's V ``sqrt(phi^2 / min(r - 1, c - 1))``, ``phi^2 = chi^2 / N``.

    With ``bias_correction``: ``sqrt(phi_c^2 / min(r_c - 1, c_c - 1))`` with
    ``phi_c^2 = max(0, phi^2 - (r-1)(c-1)/(N-1))``, ``r_c = r - (r-1)^2/(N-1)`` (and ``c_c``).
    NaN when undefined (one row or column; ``min(r_c, c_c) = 1`` with the correction).

    Examples:
        >>> from streammetrics.clustering.external.contingency import contingency
        >>> cramers_v(contingency([0, 0, 1, 1], [0, 0, 1, 1]), bias_correction=False)
        1.0
    """
    if not table.values.size:
        return float("nan")
    phi2, r, c = _phi_squared(table, bias_correction)
    if bias_correction and min(r, c) == 1:
        return float("nan")
    return _root(phi2, min(r - 1, c - 1))


def tschuprows_t(table: ContingencyState, bias_correction: bool = True) -> float:
    """Tschuprow's T ``sqrt(phi^2 / sqrt((r - 1)(c - 1)))`` (corrected as :func:`cramers_v`).

    Examples:
        >>> from streammetrics.clustering.external.contingency import contingency
        >>> t = contingency([0, 0, 1, 1, 2, 2], [0, 0, 1, 1, 1, 0])
        >>> round(tschuprows_t(t, bias_correction=False), 6)
        0.686589
    """
    if not table.values.size:
        return float("nan")
    phi2, r, c = _phi_squared(table, bias_correction)
    if bias_correction and min(r, c) == 1:
        return float("nan")
    with np.errstate(invalid="ignore"):
        return _root(phi2, float(np.sqrt((r - 1) * (c - 1))))


def pearsons_contingency_coefficient(table: ContingencyState) -> float:
    """Pearson's contingency coefficient ``sqrt(phi^2 / (1 + phi^2))`` (never corrected).

    Examples:
        >>> from streammetrics.clustering.external.contingency import contingency
        >>> round(pearsons_contingency_coefficient(contingency([0, 0, 1, 1], [0, 0, 1, 1])), 6)
        0.707107
    """
    if not table.values.size:
        return float("nan")
    phi2 = chi_squared(table) / float(table.total())
    return _root(phi2, 1.0 + phi2)


def theils_u(table: ContingencyState) -> float:
    """Theil's uncertainty coefficient ``U(K|C) = (H(K) - H(K|C)) / H(K)`` of the columns given the rows.

    The share of the entropy of the second labeling (columns, ``labels_pred``) that knowing the
    first (rows, ``labels_true``) removes; torchmetrics' ``theils_u(preds=labels_pred,
    target=labels_true)``. 0.0 when the columns hold one label (``H(K) = 0``), as torchmetrics.

    Examples:
        >>> from streammetrics.clustering.external.contingency import contingency
        >>> theils_u(contingency([0, 0, 1, 1], [0, 0, 1, 1]))
        1.0
        >>> round(theils_u(contingency([0, 0, 1, 1], [0, 1, 2, 2])), 6)
        0.666667
    """
    v = table.values.astype(np.float64)
    if not v.size:
        return float("nan")
    n = float(v.sum())
    p_xy = v / n
    p_x = table.col_sums().astype(np.float64) / n
    p_y = table.row_sums().astype(np.float64) / n
    s_x = float(-np.sum(p_x * np.log(p_x)))
    if s_x == 0:
        return 0.0
    s_xy = float(np.sum(p_xy * np.log(p_y[table.rows] / p_xy)))
    return (s_x - s_xy) / s_x
