"""Inter-rater agreement on per-subject category counts: Fleiss' kappa (issue 17).

The association measures of two nominal labelings (Cramér's V, Tschuprow's T, Pearson's
contingency coefficient, Theil's U) are formulas on the contingency table and live with it in
:mod:`streammetrics.clustering.external`.
"""

from .fleiss import FleissKappa

__all__ = ["FleissKappa"]  # FleissState and fleiss_kappa: streammetrics.nominal.fleiss
