"""Fairness metrics on keyed states (issue 19): selection rate, parity, equalized odds, gaps."""

from .metrics import (
    DemographicParityDifference,
    DemographicParityRatio,
    EqualizedOddsDifference,
    EqualizedOddsRatio,
    EqualOpportunityDifference,
    EqualOpportunityRatio,
    GroupDifference,
    GroupRatio,
    SelectionRate,
)

__all__: list[str] = [
    "SelectionRate",
    "DemographicParityDifference",
    "DemographicParityRatio",
    "EqualizedOddsDifference",
    "EqualizedOddsRatio",
    "EqualOpportunityDifference",
    "EqualOpportunityRatio",
    "GroupDifference",
    "GroupRatio",
]
