"""Test-suite configuration.

In CI (``CI=true``) Hypothesis runs derandomized: every CI run explores the same examples, so a
submission that passed keeps passing; locally each run draws new data and keeps searching for
counter-examples (failures found are replayed from the local example database).
"""

from __future__ import annotations

import os

from hypothesis import settings

from streammetrics._core import workspace
from streammetrics.aggregation import base as aggregation_base

settings.register_profile("ci", derandomize=True, print_blob=True)
if os.environ.get("CI") == "true":
    settings.load_profile("ci")

# Every temporary of the batch kernels goes through the per-thread work buffers in the tests
# (in use, requests under 64 KiB are fresh arrays, and the tests' batches are mostly that small):
# the laws, the collections and the engines then run on buffers shared by every metric of a
# thread, where a kernel that kept or shared a slot wrongly would give wrong values. Tests of the
# fresh path set it back.
workspace.FRESH_BYTES = 0
# Batches of more than 16 rows of the per-row value metrics are parsed and summed 16 rows at a
# time (in use, 131,072): the laws, collections, windows, bootstrap replicates and engines then
# see batches of several chunks, most of the law batches holding up to 30 rows.
aggregation_base.CHUNK_ROWS = 16
