"""Test-suite configuration.

In CI (``CI=true``) Hypothesis runs derandomized: every CI run explores the same examples, so a
submission that passed keeps passing; locally each run draws new data and keeps searching for
counter-examples (failures found are replayed from the local example database).
"""

from __future__ import annotations

import os

from hypothesis import settings

settings.register_profile("ci", derandomize=True, print_blob=True)
if os.environ.get("CI") == "true":
    settings.load_profile("ci")
