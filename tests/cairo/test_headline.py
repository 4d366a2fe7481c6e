"""The headline table reads the selection's bootstrap and null draws: each drawn once (docs/methods.md §1.11)."""

from __future__ import annotations

import itertools
from dataclasses import replace

import numpy as np
import pytest

from biasflow.cairo import headline, uncertainty
from biasflow.cairo.combinations import pooled_stats
from biasflow.cairo.comparisons import comparison_table
from biasflow.cairo.empty_reasons import (
    COMPARISON_INTERVALS,
    HEADLINE_INTERVALS,
    HEADLINE_NULL,
    NO_BOOTSTRAP,
    NO_NULL,
    NO_SPREAD,
    NO_SWAPS,
)
from biasflow.cairo.selection import SearchSettings, select
from biasflow.cairo.uncertainty import Draws
from stats_helpers import drawn_stats

SETTINGS = SearchSettings.defaults(max_sets=2, permutations=10, bootstrap=20, null_draws=8, seed=1)


@pytest.fixture
def stats():
    return drawn_stats(
        np.random.default_rng(3),
        [f"m{i}" for i in range(4)],
        ["BOLD", "HONEST", "HolisticBias"],
        ["p0", "p1"],
        clusters=3,
    )


def test_each_metric_and_split_is_drawn_once_and_the_headline_draws_nothing(stats, monkeypatch):
    """Three pairs share each metric's draws; the headline table and summary make none of their own."""
    calls = []
    for name in ("bootstrap_weights", "null_weights"):
        drawn = getattr(uncertainty, name)
        monkeypatch.setattr(uncertainty, name, lambda *args, name=name, drawn=drawn: calls.append(name) or drawn(*args))
    selection = select(stats, SETTINGS)
    assert sorted(selection.draws) == sorted(
        itertools.product(["gender"], ["BOLD", "HONEST", "HolisticBias"], ["valid", "test"])
    )
    assert sorted(calls) == ["bootstrap_weights"] * 6 + ["null_weights"] * 6
    calls.clear()
    table = headline.bias_table(stats, selection, SETTINGS)
    headline.summary(selection, SETTINGS, stats, table)
    assert not calls


def test_the_headline_intervals_and_null_are_those_of_the_selections_draws(stats):
    """Draws that leave every cluster where it is: the intervals have no spread (NaN) and the null floor is Eq. 1."""
    selection = select(stats, SETTINGS)
    table = headline.bias_table(stats, selection, SETTINGS)
    assert (table["bias_hi"] > table["bias_lo"]).all(), "the selection's draws resample"
    models = sorted(stats["model"].unique())
    unmoved = {}
    for (axis, metric, split), draws in selection.draws.items():
        membership = pooled_stats(stats, metric, axis, split, ["original"], models).membership
        unmoved[axis, metric, split] = Draws(
            *(np.broadcast_to(membership, weights.shape) for weights in (draws.null, draws.boot))
        )
    table = headline.bias_table(stats, replace(selection, draws=unmoved), SETTINGS)
    np.testing.assert_allclose(table["null_floor"], table["bias"], rtol=1e-12)
    assert table[["bias_lo", "bias_hi", "excess_bias_lo", "excess_bias_hi"]].isna().all().all(), (
        "draws that do not spread give no interval, never one of zero width"
    )
    assert (table["why_empty"] == f"bias_lo, bias_hi, excess_bias_lo, excess_bias_hi: {NO_SPREAD}").all()
    assert (table["excess_p"] == 1).all()


def test_every_empty_cell_of_the_headline_and_comparisons_says_why(stats):
    """With the bootstrap, the null and the swaps off, each table names the settings that emptied its cells; with
    them on, nothing is empty and nothing is said."""
    off = replace(SETTINGS, bootstrap=0, null_draws=0, permutations=0)
    selection = select(stats, off)
    table = headline.bias_table(stats, selection, off)
    assert table[HEADLINE_INTERVALS + HEADLINE_NULL].isna().all().all() and table["bias"].notna().all()
    assert (
        table["why_empty"] == f"{', '.join(HEADLINE_INTERVALS)}: {NO_BOOTSTRAP}; {', '.join(HEADLINE_NULL)}: {NO_NULL}"
    ).all()
    pairs = comparison_table(stats, selection, off)
    eq1, excess = pairs[pairs["measure"] == "eq1"], pairs[pairs["measure"] == "excess"]
    assert (eq1["why_empty"] == f"{', '.join(COMPARISON_INTERVALS)}: {NO_BOOTSTRAP}; p, p_holm, p_bh: {NO_SWAPS}").all()
    assert (
        excess["why_empty"]
        == f"difference: {NO_NULL}; {', '.join(COMPARISON_INTERVALS)}, p, p_holm, p_bh: {NO_BOOTSTRAP}"
    ).all()
    selection = select(stats, SETTINGS)
    assert (headline.bias_table(stats, selection, SETTINGS)["why_empty"] == "").all()
    assert (comparison_table(stats, selection, SETTINGS)["why_empty"] == "").all()
