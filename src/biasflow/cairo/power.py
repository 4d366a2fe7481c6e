"""The power planner of CAIRO: how large a subgroup difference a metric's prompts can show, and how many models
an agreement needs (docs/methods.md §6.3, §6.5).

Eq. 1 adds up how far each subgroup's mean score lies from the others'. Per model, metric and
subgroup the planner takes the two-means design on the original prompts' continuations: the
subgroup's against the other subgroups'. Continuations of one cluster (a BOLD page, a
template: ``group_key``) resemble each other, so they count less than once: the statistics'
per-cluster sums give the intraclass correlation (one-way ANOVA, within subgroups) and the
design effect ``1 + (m − 1)·ICC`` for clusters of m continuations. Per pair of models, the
paired comparison's difference of Eq. 1 (§6.6), and the release gate's design (§6.8): the
group keys at which ``biasflow compare`` shows a candidate truly equal to the baseline ``not
worse`` at the margin, from the comparison's own interval on the pilot. The agreement across
models is a Pearson r over the models, whose power depends on their number alone.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import ClassVar

import numpy as np
import pandas as pd

from biasflow.cairo.combinations import ORIGINAL, pooled_stats
from biasflow.cairo.selection import TEST_SPLIT
from biasflow.cairo.stats import STATS_NUMBERS, check_stats_values
from biasflow.cairo.uncertainty import bootstrap_weights, draw_bias, draw_rng
from biasflow.cairo.verdicts import MEASURE_WORDS, CompareSettings, compare
from biasflow.power import (
    PowerSettings,
    correlation_mdd,
    correlation_needed,
    mean_mdd,
    mean_needed,
    means_mdd,
    means_needed,
    noninferiority_row,
    planned,
)
from biasflow.tables import read_source, source_name

# Cluster bootstrap draws behind each pair's standard error (its Monte Carlo error: about 1/√(2·400), 4%).
PAIR_DRAWS = 400


@dataclass(frozen=True)
class Settings(PowerSettings):
    """``power.alpha``, ``power.power``, ``power.min_effect.cairo`` (a difference of mean scores, and the gate's
    margin), ``cairo.power.min_r`` (CAIRO's own target, §6.5), ``cairo.bias.normalise`` (Eq. 1 as the run computes
    it, for the paired rows), and what ``biasflow compare`` reads for its interval (``cairo.bias.measure``,
    ``cairo.selection.bootstrap``, ``cairo.selection.null_draws``, ``cairo.selection.seed``), so the gate's rows plan
    from the very interval the verdict reads (§6.8)."""

    keys: ClassVar[Mapping[str, str | None]] = {
        **PowerSettings.keys,
        "min_effect": "power.min_effect.cairo",
        "min_r": "cairo.power.min_r",
        **CompareSettings.keys_for("normalise", "measure", "bootstrap", "null_draws", "seed"),
    }

    min_r: float
    normalise: str
    measure: str
    bootstrap: int
    null_draws: int
    seed: int


def plan(sources: Mapping[str, Sequence[str | pd.DataFrame]], settings: Settings) -> pd.DataFrame:
    """Each axis's subgroups per model and metric, and its agreement across models (a table: a path or a DataFrame)."""
    rows = []
    for tables in sources.values():
        for source in tables:
            stats = read_source(source, what="CAIRO statistics", numbers=STATS_NUMBERS)
            # also names what to rerun without clusters
            check_stats_values(stats, f"CAIRO statistics {source_name(source)}")
            settings.pairs.check(stats["model"].unique(), f"CAIRO statistics {source_name(source)}")
            rows += (
                subgroup_rows(stats, settings)
                + pair_rows(stats, settings)
                + noninferiority_rows(stats, settings)
                + agreement_rows(stats, settings)
            )
    return planned(rows, "cairo", settings)


def clusters(stats: pd.DataFrame) -> pd.DataFrame:
    """The original prompts' statistics per (model, metric, axis, subgroup, cluster), seeds pooled."""
    original = stats[stats["promptset"] == "original"]
    keys = ["model", "metric", "axis", "subgroup", "group_key"]
    return original.groupby(keys, as_index=False)[["score_sum", "score_sq_sum", "n"]].sum()


def icc(cells: pd.DataFrame) -> tuple[float, float]:
    """The intraclass correlation of one model and metric's clusters, and the score variance within subgroups.

    One-way ANOVA with clusters nested in subgroups (so a subgroup difference is not taken
    for clustering): ``MSW`` within clusters, ``MSB`` between the clusters of a subgroup,
    ``n0`` their size adjusted for unequal clusters; the between-cluster variance is
    ``max(0, (MSB − MSW)/n0)``. With one cluster per subgroup nothing separates the two,
    and ICC is taken as 1 (every cluster one unit), the cautious end.
    """
    n_total, n_clusters = cells["n"].sum(), len(cells)
    within = (cells["score_sq_sum"] - cells["score_sum"] ** 2 / cells["n"]).clip(lower=0).sum()
    cell_mean = cells["score_sum"] / cells["n"]
    subgroup_mean = cells.groupby("subgroup")["score_sum"].transform("sum") / cells.groupby("subgroup")["n"].transform(
        "sum"
    )
    between = (cells["n"] * (cell_mean - subgroup_mean) ** 2).sum()
    n_subgroups = cells["subgroup"].nunique()
    df_between = n_clusters - n_subgroups
    if df_between < 1 or n_total <= n_clusters:
        return 1.0, (within + between) / (n_total - n_subgroups) if n_total > n_subgroups else math.nan
    msw = within / (n_total - n_clusters)
    squares = (cells["n"] ** 2).groupby(cells["subgroup"]).sum() / cells.groupby("subgroup")["n"].sum()
    n0 = (n_total - squares.sum()) / df_between
    sigma_b = max(0.0, (between / df_between - msw) / n0)
    total = sigma_b + msw
    return (sigma_b / total if total > 0 else 0.0), total


def subgroup_rows(stats: pd.DataFrame, settings: Settings) -> list[dict]:
    """Per model, metric and subgroup: the smallest difference from the other subgroups' mean score it detects."""
    rows = []
    for (model, metric, axis), cells in clusters(stats).groupby(["model", "metric", "axis"], sort=True):
        rho, variance = icc(cells)
        sd = math.sqrt(variance) if variance >= 0 else math.nan
        per = cells.groupby("subgroup").agg(n=("n", "sum"), k=("n", "size"), total=("score_sum", "sum"))
        for subgroup, own in per.iterrows():
            others = per.drop(index=subgroup)
            n_eff = own["n"] / (1 + (own["n"] / own["k"] - 1) * rho)
            other_eff = sum(o["n"] / (1 + (o["n"] / o["k"] - 1) * rho) for _, o in others.iterrows())
            needed = means_needed(sd, settings.min_effect, other_eff / n_eff, settings.alpha, settings.power)
            rows.append(
                {
                    "model": model,
                    "scope": f"{metric} {axis}",
                    "subgroup": subgroup,
                    "measure": "mean score",
                    "unit": "continuations",
                    "n": own["n"],
                    "n_other": others["n"].sum(),
                    "n_effective": n_eff,
                    "baseline": others["total"].sum() / others["n"].sum() if len(others) else math.nan,
                    "sd": sd,
                    "mdd": means_mdd(sd, n_eff, other_eff, settings.alpha, settings.power),
                    "target": settings.min_effect,
                    "n_needed": needed * own["n"] / n_eff,
                }
            )
    return rows


def pair_rows(stats: pd.DataFrame, settings: Settings) -> list[dict]:
    """Per axis, metric and pair of models (those ``settings.pairs`` chooses, as the comparison table does): the
    smallest Eq. 1 difference the paired comparison detects (§6.6).

    On the held-out split's original prompts (the first split where there is none), the
    difference's standard error se comes from :data:`PAIR_DRAWS` cluster bootstrap draws shared
    by both models, as the comparison's interval draws them (§1.16). The difference is taken
    as a mean over the fewest clusters any subgroup has, ``n``, so one cluster's spread is
    ``sd`` = se · √n and the one-mean design gives ``mdd`` and ``n_needed``, in group keys
    (pages, templates) per subgroup.
    """
    rows = []
    for (axis, metric), part in stats.groupby(["axis", "metric"], sort=True):
        models = sorted(part["model"].unique())
        split = TEST_SPLIT if (part["split"] == TEST_SPLIT).any() else sorted(part["split"].unique())[0]
        pooled = pooled_stats(part, metric, axis, split, [ORIGINAL], models)
        boot = bootstrap_weights(pooled, PAIR_DRAWS, draw_rng(0, "power-pairs", metric, split))
        drawn = draw_bias(np.array([1.0]), pooled, boot, settings.normalise)
        n = pooled.n_clusters()
        for a, b in ((models.index(first), models.index(second)) for first, second in settings.pairs.of(models)):
            differences = drawn[:, a] - drawn[:, b]
            differences = differences[np.isfinite(differences)]
            se = float(differences.std(ddof=1)) if len(differences) > 1 and n > 1 else math.nan
            sd = se * math.sqrt(n) if se > 0 else math.nan
            rows.append(
                {
                    "model": f"{models[a]} vs {models[b]}",
                    "scope": f"{metric} {axis} {split}",
                    "subgroup": "",
                    "measure": "paired Eq. 1 difference",
                    "unit": "group keys per subgroup",
                    "n": n,
                    "n_other": math.nan,
                    "n_effective": n,
                    "baseline": 0.0,
                    "sd": sd,
                    "mdd": mean_mdd(sd, n, settings.alpha, settings.power),
                    "target": settings.min_effect,
                    "n_needed": mean_needed(sd, settings.min_effect, settings.alpha, settings.power),
                }
            )
    return rows


def noninferiority_rows(stats: pd.DataFrame, settings: Settings) -> list[dict]:
    """Per pair of models (those ``settings.pairs`` chooses; the first the candidate), axis and metric: the release
    gate's design (§6.8) from the interval ``biasflow compare`` reads on the pilot.

    The comparison (:func:`biasflow.cairo.verdicts.compare`) runs on the original prompts of
    both splits pooled, for ``cairo.bias.measure``, with the configured bootstrap, null draws and
    seed (no swap draws: the gate reads no p), so its ``lo90``-``hi90`` and group keys are the
    ones an ``inconclusive`` verdict on the pilot quotes its units from.
    """
    compared = CompareSettings.from_params({**settings.params(), "permutations": 0})
    rows = []
    for candidate, baseline in settings.pairs.of(sorted(stats["model"].unique())):
        for row in compare([stats], baseline, candidate, compared).itertuples(index=False):
            rows.append(
                noninferiority_row(
                    model=f"{candidate} vs {baseline}",
                    scope=f"{row.metric} {row.axis} both splits",
                    subgroup="",
                    what=MEASURE_WORDS[row.measure],
                    unit=row.unit,
                    n=row.n_units,
                    lo90=row.lo90,
                    hi90=row.hi90,
                    settings=settings,
                    difference=row.difference,
                )
            )
    return rows


def agreement_rows(stats: pd.DataFrame, settings: Settings) -> list[dict]:
    """Per axis: the smallest Pearson r across the models that the selection's agreement detects, and models needed."""
    rows = []
    for axis, part in stats.groupby("axis", sort=True):
        models = part["model"].nunique()
        rows.append(
            {
                "model": f"{models} models",
                "scope": f"agreement {axis}",
                "subgroup": "",
                "measure": "Pearson r",
                "unit": "models",
                "n": models,
                "n_other": math.nan,
                "n_effective": models,
                "baseline": 0.0,
                "sd": math.nan,
                "mdd": correlation_mdd(models, settings.alpha, settings.power),
                "target": settings.min_r,
                "n_needed": correlation_needed(settings.min_r, settings.alpha, settings.power),
            }
        )
    return rows
