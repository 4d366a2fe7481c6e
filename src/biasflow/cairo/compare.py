"""``biasflow compare --method cairo``: did the candidate model come out less biased than the baseline? (§1.16)

The model builder's question on CAIRO statistics: the selection runs on every model of the
tables (so its combination is the workflow's), and the rows of the comparison table for
the two models are turned to read "candidate − baseline", one sentence per axis, metric,
split and measure (Eq. 1, and the excess bias over the no-bias floor) with the original
prompts (docs/methods.md §1.16).
"""

from __future__ import annotations

from typing import Mapping, Sequence

import pandas as pd

from biasflow.cairo.comparisons import comparison_table
from biasflow.cairo.selection import SearchSettings, select
from biasflow.cairo.steps import read_stats
from biasflow.errors import BiasflowError
from biasflow.schema import default
from biasflow.verdicts import judged

# How each measure of the comparison table reads in a sentence.
MEASURE_WORDS = {"eq1": "Eq. 1", "excess": "excess bias"}
# Why a measure's row can have no interval.
NO_INTERVAL = {"eq1": "a subgroup has a single group key (docs/methods.md §1.11)",
               "excess": "a subgroup has a single group key, or selection.null_draws is 0 (docs/methods.md §1.11, "
                         "§1.13)"}


def command(paths: Sequence[str | pd.DataFrame], baseline: str, candidate: str,
            config: Mapping | None) -> tuple[pd.DataFrame, list[str]]:
    """What ``biasflow compare --method cairo`` prints and writes: the rows and one sentence per metric and split.

    ``config`` (a validated config, or None for the schema's defaults) gives the selection's
    settings and ``power.min_effect.cairo``, the difference worth detecting.
    """
    if config is None:
        settings, min_effect = SearchSettings.defaults(), default("power.min_effect.cairo")
    else:
        settings, min_effect = SearchSettings.from_config(config), config["power"]["min_effect"]["cairo"]
    rows = compare(paths, baseline, candidate, settings)
    return rows, sentences(rows, min_effect)


def compare(paths: Sequence[str | pd.DataFrame], baseline: str, candidate: str,
            settings: SearchSettings) -> pd.DataFrame:
    """The comparison rows of ``candidate`` against ``baseline``: ``difference`` is the candidate's less the baseline's."""
    if baseline == candidate:
        raise BiasflowError(f"--baseline and --candidate are both {baseline!r}; name two different models.")
    stats = read_stats(paths)
    models = sorted(stats["model"].unique())
    for flag, model in (("--baseline", baseline), ("--candidate", candidate)):
        if model not in models:
            raise BiasflowError(f"{flag} {model!r} is not in the statistics; their models: {', '.join(models)}.")
    both = stats[stats["model"].isin([baseline, candidate])]
    shared = both.groupby(["axis", "metric", "split"])["model"].nunique()
    if not (shared == 2).any():
        raise BiasflowError(f"{baseline} and {candidate} share no metric and split in the statistics: there are no "
                            "prompts both answered to compare them on.")
    table = comparison_table(stats, select(stats, settings), settings)
    return oriented(table, baseline, candidate)


def oriented(table: pd.DataFrame, baseline: str, candidate: str) -> pd.DataFrame:
    """The rows of the pair, turned so that ``model_a`` is the candidate and ``model_b`` the baseline."""
    rows = table[table["model_a"].isin([baseline, candidate]) & table["model_b"].isin([baseline, candidate])].copy()
    turn = rows["model_a"] == baseline
    low, high = rows["difference_lo"].copy(), rows["difference_hi"].copy()
    rows.loc[turn, "difference"] = -rows.loc[turn, "difference"]
    rows.loc[turn, "difference_lo"], rows.loc[turn, "difference_hi"] = -high[turn], -low[turn]
    rows["model_a"], rows["model_b"] = candidate, baseline
    return rows.reset_index(drop=True)


def sentences(rows: pd.DataFrame, min_effect: float) -> list[str]:
    """One line per axis, metric, split and measure (original prompts): what the paired comparison can and cannot tell."""
    lines = []
    original = rows[rows["prompts"] == "original"].drop_duplicates(["axis", "metric", "split", "measure"])
    original = original.assign(order=original["measure"].map(list(MEASURE_WORDS).index))
    for row in original.sort_values(["axis", "metric", "split", "order"]).itertuples(index=False):
        where = f"{row.axis} {row.metric}, {row.split} split, original prompts"
        measure = MEASURE_WORDS[row.measure]
        size = f"{row.n_scores} scored continuations per model and seed, {row.n_clusters} group keys where fewest"
        word, words = judged(row.difference, row.difference_lo, row.difference_hi, row.p, min_effect, "cairo",
                             NO_INTERVAL[row.measure])
        if word:
            lines.append(f"{where}: candidate {row.model_a}: {measure} {abs(row.difference):.4f} {word} than baseline "
                         f"{row.model_b} ({words}, {size})")
        else:
            lines.append(f"{where}: no difference detectable between candidate {row.model_a} and baseline "
                         f"{row.model_b}: {measure} {row.difference:+.4f}, {words} (paired p = {row.p:.3g}, {size})")
    return lines
