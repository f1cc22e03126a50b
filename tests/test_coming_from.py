"""The "coming from" table (docs/_ext/peers.toml) against the peers' installed packages and the
names streammetrics exports; the page docs/guide/coming-from.md is its rendering."""

from __future__ import annotations

import os

import pytest

import streammetrics as sm
from docs._ext import coverage

#: Names of issue 17 (and of the keyed/retrieval issue) being built in other branches at the same
#: time: the table already maps peers to them. Each is removed from here when its branch is merged
#: (the merger empties this set; ``test_pending_names_are_not_exported_yet`` fails until then).
PENDING_IN_OTHER_BRANCHES: frozenset[str] = frozenset()  # every name of the table is exported

TABLE = coverage.load_table()


def _installed(peer: str) -> list[str]:
    try:
        return coverage.peer_names(peer)
    except ImportError:
        if os.environ.get("CI") == "true":
            raise
        pytest.skip(f"{peer} is not installed")


@pytest.mark.parametrize("peer", list(coverage.PEERS))
def test_table_lists_exactly_the_peers_metrics(peer):
    names = set(_installed(peer))
    listed = set(TABLE[peer])
    assert names - listed == set(), f"{peer}: metrics missing from docs/_ext/peers.toml"
    assert listed - names == set(), f"{peer}: names in the table that the installed package lacks"


def test_every_streammetrics_name_in_the_table_is_exported_or_pending():
    exported = set(sm.__all__)
    used = {n for entries in TABLE.values() for v in entries.values() for n in coverage.stream_names(v)}
    assert used - exported - PENDING_IN_OTHER_BRANCHES == set()
    assert PENDING_IN_OTHER_BRANCHES <= used, "a pending name no peer maps to: drop it from the set"


def test_pending_names_are_not_exported_yet():
    """Fails once a pending name is exported (its branch merged): then remove it from the set."""
    assert PENDING_IN_OTHER_BRANCHES & set(sm.__all__) == set()


def test_every_missing_metric_says_why():
    for peer, entries in TABLE.items():
        for name, value in entries.items():
            if isinstance(value, dict):
                assert set(value) == {"none"} and value["none"].strip(), (peer, name)
            else:
                assert value and all(isinstance(v, str) and v for v in value), (peer, name)


def test_page_is_the_rendering_of_the_table():
    assert coverage.PAGE.read_text() == coverage.render(TABLE), (
        "docs/guide/coming-from.md is stale: run python -m docs._ext.coverage --write"
    )


def test_coverage_counts():
    counts = coverage.coverage(TABLE, set(sm.__all__))
    for peer, (today, later, total) in counts.items():
        assert 0 < today <= later <= total == len(TABLE[peer])
    # every name of issue 17 merged: only the deliberate gaps are left; river's one is its
    # Silhouette, another quantity under that name
    assert counts["river"][2] - counts["river"][1] == 1
    assert isinstance(TABLE["river"]["Silhouette"], dict)
