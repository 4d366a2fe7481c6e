"""The power planner of CAIRO: how large a subgroup difference a metric's prompts can show, and how many models
an agreement needs (docs/methods.md §6.3, §6.5).

Eq. 1 adds up how far each subgroup's mean score lies from the others'. Per model, metric and
subgroup the planner takes the two-means design on the original prompts' continuations: the
subgroup's against the other subgroups'. Continuations of one cluster (a BOLD page, a
template: ``group_key``) resemble each other, so they count less than once: the statistics'
per-cluster sums give the intraclass correlation (one-way ANOVA, within subgroups) and the
design effect ``1 + (m − 1)·ICC`` for clusters of m continuations. The agreement across
models is a Pearson r over the models, whose power depends on their number alone.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Mapping, Sequence

import pandas as pd

from biasflow.cairo.stats import STATS_NUMBERS, check_stats_values
from biasflow.power import PowerSettings, correlation_mdd, correlation_needed, means_mdd, means_needed, planned
from biasflow.tables import read_table


@dataclass(frozen=True)
class Settings(PowerSettings):
    """``power.alpha``, ``power.power``, ``power.min_effect.cairo`` (a difference of mean scores) and ``power.min_r``."""

    keys = {"min_effect": "power.min_effect.cairo"}

    min_r: float


def plan(sources: Mapping[str, Sequence[str]], settings: Settings) -> pd.DataFrame:
    """Each axis's subgroups per model and metric, and its agreement across models."""
    rows = []
    for paths in sources.values():
        for path in paths:
            stats = read_table(path, what="CAIRO statistics", numbers=STATS_NUMBERS)
            check_stats_values(stats, f"CAIRO statistics {path}")  # also names what to rerun without clusters
            rows += subgroup_rows(stats, settings) + agreement_rows(stats, settings)
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
    subgroup_mean = cells.groupby("subgroup")["score_sum"].transform("sum") / cells.groupby("subgroup")["n"].transform("sum")
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
            rows.append({
                "model": model, "scope": f"{metric} {axis}", "subgroup": subgroup, "measure": "mean score",
                "unit": "continuations", "n": own["n"], "n_other": others["n"].sum(), "n_effective": n_eff,
                "baseline": others["total"].sum() / others["n"].sum() if len(others) else math.nan, "sd": sd,
                "mdd": means_mdd(sd, n_eff, other_eff, settings.alpha, settings.power),
                "target": settings.min_effect, "n_needed": needed * own["n"] / n_eff,
            })
    return rows


def agreement_rows(stats: pd.DataFrame, settings: Settings) -> list[dict]:
    """Per axis: the smallest Pearson r across the models that the selection's agreement detects, and models needed."""
    rows = []
    for axis, part in stats.groupby("axis", sort=True):
        models = part["model"].nunique()
        rows.append({
            "model": f"{models} models", "scope": f"agreement {axis}", "subgroup": "", "measure": "Pearson r",
            "unit": "models", "n": models, "n_other": math.nan, "n_effective": models, "baseline": 0.0,
            "sd": math.nan, "mdd": correlation_mdd(models, settings.alpha, settings.power), "target": settings.min_r,
            "n_needed": correlation_needed(settings.min_r, settings.alpha, settings.power),
        })
    return rows
