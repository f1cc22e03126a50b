"""scikit-learn's `sklearn/metrics/tests/test_common.py`, run against streammetrics (see conftest)."""

from tests.conformance.loader import load

globals().update(load("sklearn.metrics.tests.test_common"))
