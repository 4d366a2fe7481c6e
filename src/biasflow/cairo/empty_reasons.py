"""Why a cell of a CAIRO table is empty: the reasons its `why_empty` column gives (docs/tables.md, docs/methods.md §9).

The causes, first to last: a model with no Eq. 1 (a subgroup without its scores), a setting
at 0, a subgroup with a single group key (a bootstrap cannot resample it, §1.11), and data
whose draws do not spread (§9). :func:`biasflow.empty_cells.why_empty` gives each empty cell
the first that applies.
"""

from __future__ import annotations

import pandas as pd

from biasflow.empty_cells import Reason

NO_EQ1 = "Eq. 1 is undefined: a subgroup has no scored continuation of this model"
NO_BOOTSTRAP = "no bootstrap draws (cairo.selection.bootstrap is 0)"
NO_NULL = "no null draws (cairo.selection.null_draws is 0)"
NO_SWAPS = "no swap draws (cairo.selection.permutations is 0)"
SINGLE_CLUSTER = (
    "a subgroup has prompts of a single group key, so nothing says how far its mean would move on "
    "other prompts; give each subgroup two or more group keys per split"
)
NO_SPREAD = "the bootstrap's draws do not spread: every draw gives the same value (docs/methods.md §9)"
NULL_UNDEFINED = "the no-bias null's draws give no Eq. 1 (a permuted subgroup without scores)"
SWAPS_UNDEFINED = "the swapped differences are undefined (a subgroup without scores in a swap)"

# The headline's columns a bootstrap gives, and those the no-bias null gives.
HEADLINE_INTERVALS = ["bias_lo", "bias_hi", "excess_bias_lo", "excess_bias_hi", "rank_lo", "rank_hi"]
HEADLINE_NULL = ["null_floor", "excess_bias", "excess_p"]
# The comparison's columns a bootstrap gives, and what names a pair's two rows (``eq1`` and ``excess``).
COMPARISON_INTERVALS = ["difference_lo", "difference_hi", "lo90", "hi90", "p_worse"]
PAIR_KEYS = ["axis", "pair", "metric", "split", "prompts", "model_a", "model_b"]


def headline(table: pd.DataFrame, bootstrap: int, null_draws: int) -> list[Reason]:
    """The reasons of the headline table (:func:`biasflow.cairo.headline.bias_table`)."""
    every = ["bias", *HEADLINE_INTERVALS, *HEADLINE_NULL]
    return [
        Reason(every, NO_EQ1, table["bias"].isna()),
        Reason(HEADLINE_INTERVALS, NO_BOOTSTRAP, not bootstrap),
        Reason(HEADLINE_INTERVALS, SINGLE_CLUSTER, table["n_clusters"] < 2),
        Reason(HEADLINE_INTERVALS, NO_SPREAD),
        Reason(HEADLINE_NULL, NO_NULL, not null_draws),
        Reason(HEADLINE_NULL, NULL_UNDEFINED),
    ]


def comparisons(table: pd.DataFrame, bootstrap: int, null_draws: int, permutations: int) -> list[Reason]:
    """The reasons of the comparison table (:func:`biasflow.cairo.comparisons.comparison_table`).

    An ``eq1`` row's p is the swap test's; an ``excess`` row's difference needs the null and its
    p reads the bootstrap's bound; the adjusted p-values are empty where p is. A pair whose
    Eq. 1 difference is undefined has both its rows empty for that reason.
    """
    eq1, excess = table["measure"] == "eq1", table["measure"] == "excess"
    p = ["p", "p_holm", "p_bh"]
    every = ["difference", *COMPARISON_INTERVALS, *p]
    undefined = (table["difference"].isna() & eq1).groupby([table[c] for c in PAIR_KEYS]).transform("any")
    return [
        Reason(every, NO_EQ1, undefined),
        Reason(["difference"], NO_NULL, excess & (not null_draws)),
        Reason(["difference"], NULL_UNDEFINED, excess),
        Reason(p, NO_SWAPS, eq1 & (not permutations)),
        Reason(p, SWAPS_UNDEFINED, eq1),
        Reason([*COMPARISON_INTERVALS, *p], NO_BOOTSTRAP, not bootstrap),
        Reason([*COMPARISON_INTERVALS, *p], SINGLE_CLUSTER, table["n_clusters"] < 2),
        Reason([*COMPARISON_INTERVALS, *p], NO_SPREAD),
    ]
