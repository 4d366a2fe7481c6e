"""CAIRO: per-cluster sufficient statistics and the pooled bias of Eq. 1 (docs/methods.md §1.4, §1.6).

Bias of every prompt-set combination is computed from per-(set, seed, subgroup, cluster)
sums, sums of squares and counts, never from raw rows: pooling sets is then exact addition
of ``score_sum`` and ``n`` (docs/methods.md §1.5), which is what makes searching thousands
of combinations cheap. A cluster is one ``group_key`` of a subgroup (BOLD page,
HolisticBias or HONEST template): prompts of a cluster, their paraphrases and samples are
correlated, so the bootstrap and the no-bias null act on clusters (§1.11-1.12), and
``score_sq_sum`` gives each cluster's spread.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import ClassVar

import numpy as np
import pandas as pd

from biasflow.cairo.datasets import AXES, METRICS
from biasflow.errors import BiasflowError
from biasflow.schema import choices
from biasflow.settings import StepSettings
from biasflow.tables import require_columns

CELL = ["model", "metric", "axis", "split", "promptset", "seed"]
SUBGROUP_KEYS = [*CELL, "subgroup"]
STATS_KEYS = [*SUBGROUP_KEYS, "group_key"]
STATS_COLUMNS = [*STATS_KEYS, "score_sum", "score_sq_sum", "n"]
# The statistics' columns that hold numbers (read with ``numbers=``).
STATS_NUMBERS = ["seed", "score_sum", "score_sq_sum", "n"]
# What statistics written before clusters were kept lack (see require_clusters).
CLUSTER_COLUMNS = ["group_key", "score_sq_sum"]
BIAS_COLUMNS = ["model", "metric", "axis", "split", "promptset", "bias", "n_subgroups", "n_seeds"]
# How a statistics row is shown in an error: the cell a user can find in their files.
EXAMPLE_KEYS = ["model", "metric", "promptset", "subgroup", "split"]


@dataclass(frozen=True)
class StatsSettings(StepSettings):
    """What the statistics step reads: the scorer whose scores it pools, Eq. 1's normalisation and the labels.

    ``subgroups`` (``unified`` or ``native``) is recorded in the tables, so a reader knows
    which labels the subgroups are.
    """

    keys: ClassVar[Mapping[str, str | None]] = {
        "scorer": "cairo.scoring.scorer",
        "normalise": "cairo.bias.normalise",
        "subgroups": "cairo.subgroups",
    }

    scorer: str
    normalise: str
    subgroups: str


RECOMPUTE = (
    "Recompute the statistics with `biasflow cairo-stats` (the workflow's cairo_stats step) from complete score tables."
)


def sufficient_stats(scored: pd.DataFrame) -> pd.DataFrame:
    """``S`` (sum of scores), ``Q`` (sum of squared scores) and ``N`` (row count) per cell, subgroup and cluster.

    ``scored`` is the prompt table joined with continuations and scores (one row per
    sampled continuation). Returns :data:`STATS_COLUMNS`, sorted by the keys. Each cell's
    scores are summed in the order of their values, not of the rows: a float sum depends on
    its order, and a model's sums must not move when other models' rows are added or the
    rows come shuffled (docs/methods.md §1.11).
    """
    require_columns(scored, [*STATS_KEYS, "score"], "scored continuations")
    n_missing = int(scored["score"].isna().sum())
    if n_missing:
        raise BiasflowError(
            f"{n_missing} scored continuation(s) have no score; rerun the scoring step so every row has one."
        )
    n_infinite = int(np.isinf(scored["score"].to_numpy(dtype="float64")).sum())
    if n_infinite:
        raise BiasflowError(
            f"{n_infinite} scored continuation(s) have an infinite score; a score must be a finite number. "
            "Rerun the scoring step, or fix the scores of the table you brought."
        )
    scored = scored.sort_values("score", kind="stable")
    scored = scored.assign(score_sq=scored["score"] ** 2)
    stats = (
        scored.groupby(STATS_KEYS, observed=True, sort=True)
        .agg(score_sum=("score", "sum"), score_sq_sum=("score_sq", "sum"), n=("score", "size"))
        .reset_index()
    )
    stats[["score_sum", "score_sq_sum"]] = stats[["score_sum", "score_sq_sum"]].astype("float64")
    stats["n"] = stats["n"].astype("int64")
    return stats[STATS_COLUMNS]


def check_stats_values(stats: pd.DataFrame, what: str = "CAIRO statistics") -> None:
    """Every row must hold numbers Eq. 1 can pool (docs/methods.md §1.4-1.6); raise naming the first bad column.

    Keys must be present; ``n`` a whole number >= 0; ``score_sum`` and ``score_sq_sum`` finite,
    and 0 where ``n`` is 0; ``score_sq_sum`` at least ``score_sum² / n`` (a sum of squares
    cannot be smaller). A bad value does not fail by itself later: a NaN or inf ``score_sum`` spreads
    through the pooled sums (§1.5) into every combination containing its set, whose bias rows
    then look constant and are skipped, so the selection ends empty without a word; a NaN
    count breaks casts with a traceback. The message names the column, the number of rows,
    one row's cell and the fix.
    """
    require_clusters(stats, what)
    require_columns(stats, STATS_COLUMNS, what)
    n = pd.to_numeric(stats["n"], errors="coerce").to_numpy(dtype="float64", na_value=np.nan)
    score_sum = pd.to_numeric(stats["score_sum"], errors="coerce").to_numpy(dtype="float64", na_value=np.nan)
    sq_sum = pd.to_numeric(stats["score_sq_sum"], errors="coerce").to_numpy(dtype="float64", na_value=np.nan)
    with np.errstate(invalid="ignore"):
        checks = [
            (column, "must be present (the row's cell)", stats[column].isna().to_numpy()) for column in STATS_KEYS
        ]
        checks += [
            ("n", "must be a finite number (the cell's count of continuations)", ~np.isfinite(n)),
            ("n", "must be a whole number", np.isfinite(n) & (n != np.round(n))),
            ("n", "must be >= 0", n < 0),
            ("score_sum", "must be a finite number (the cell's sum of scores)", ~np.isfinite(score_sum)),
            ("score_sum", "must be 0 where n is 0 (no continuations, no scores)", (n == 0) & (score_sum != 0)),
            ("score_sq_sum", "must be a finite number (the cell's sum of squared scores)", ~np.isfinite(sq_sum)),
            (
                "score_sq_sum",
                "must be at least score_sum² / n (a sum of squares)",
                (n > 0) & (sq_sum * n < score_sum**2 * (1 - 1e-9) - 1e-12),
            ),
        ]
    for column, rule, bad in checks:
        if bad.any():
            row = stats.loc[bad].iloc[0]
            shown = EXAMPLE_KEYS + ([] if column in EXAMPLE_KEYS else [column])
            cell = ", ".join(f"{key}={row[key]}" for key in shown)
            raise BiasflowError(
                f"{what}: column {column} {rule}, but {int(bad.sum())} row(s) are not, e.g. {cell}. {RECOMPUTE}"
            )


def require_clusters(stats: pd.DataFrame, what: str = "CAIRO statistics") -> None:
    """Statistics written before clusters were kept (no ``group_key``) cannot be resampled: say what to rerun."""
    if not set(CLUSTER_COLUMNS) <= set(stats.columns):
        raise BiasflowError(
            f"{what} has no group_key or score_sq_sum column: it was written by an earlier biasflow, before the "
            "statistics kept each cluster for the intervals and the no-bias null. Rebuild it from the scores: "
            "`snakemake --cores 2 --forcerun cairo_stats results/cairo/<axis>.csv` in the workflow, or "
            "`biasflow cairo-stats --continuations ... --scores ... --scorer ... --out-dir ...`."
        )


def check_stats_names(stats: pd.DataFrame, what: str = "CAIRO statistics") -> None:
    """Every metric and axis must be one biasflow knows: another name (a typo, a renamed metric) would be
    correlated as if it were a metric of its own."""
    for column, known in (("metric", METRICS), ("axis", AXES)):
        unknown = sorted(set(stats[column].astype(str)) - set(known))
        if unknown:
            raise BiasflowError(
                f"{what}: column {column} names {', '.join(map(repr, unknown))}, which is not one of "
                f"{', '.join(known)}; fix the {column} of those rows (or recompute the statistics with `biasflow "
                f"cairo-stats`)."
            )


def bias_from_stats(stats: pd.DataFrame, normalise: str, skip_incomplete: bool = False) -> pd.DataFrame:
    """Eq. 1 in its pooled form, averaged over generation seeds.

    Per (model, metric, axis, split, promptset, seed): ``mu_all = sum_g S_g / sum_g N_g``
    (the all-group mean weighted by row counts, as the reference code does) and
    ``bias = sum_g |mu_all - S_g / N_g|``; ``normalise="mean"`` divides by the number of
    subgroups. The result is the mean over seeds, with columns :data:`BIAS_COLUMNS`.

    A cell lacking a subgroup (say, a paraphrase set whose prompts of one subgroup were all
    rejected in one split) is an error, or with ``skip_incomplete`` left out of the result:
    its Eq. 1 would have fewer terms and not be comparable. Such sets still pool exactly
    with complete ones in a combination, so the statistics table keeps them.
    """
    if normalise not in choices("cairo.bias.normalise"):
        raise BiasflowError(
            f"unknown bias normalisation {normalise!r}; choose one of: {', '.join(choices('cairo.bias.normalise'))}."
        )
    require_columns(stats, STATS_COLUMNS, "CAIRO statistics")
    _check_unique(stats)
    if skip_incomplete:
        gaps = incomplete_cells(stats)
        stats = stats.merge(gaps, on=CELL, how="left", indicator=True)
        stats = stats[stats.pop("_merge") == "left_only"]
    stats = subgroup_totals(stats)
    _check_stats(stats)
    per_seed = _bias_per_seed(stats)
    if normalise == "mean":
        per_seed["bias"] = per_seed["bias"] / per_seed["n_subgroups"]
    keys = [c for c in CELL if c != "seed"]
    bias = (
        per_seed.groupby(keys, observed=True, sort=True)
        .agg(bias=("bias", "mean"), n_subgroups=("n_subgroups", "max"), n_seeds=("seed", "nunique"))
        .reset_index()
    )
    bias[["n_subgroups", "n_seeds"]] = bias[["n_subgroups", "n_seeds"]].astype("int64")
    return bias[BIAS_COLUMNS]


def subgroup_totals(stats: pd.DataFrame) -> pd.DataFrame:
    """The statistics summed over each subgroup's clusters: one row per cell and subgroup."""
    return (
        stats.groupby(SUBGROUP_KEYS, observed=True, sort=True)[["score_sum", "score_sq_sum", "n"]].sum().reset_index()
    )


def _bias_per_seed(stats: pd.DataFrame) -> pd.DataFrame:
    """Bias of each (model, metric, axis, split, promptset, seed) cell, with its subgroup count."""
    cells = stats.groupby(CELL, observed=True, sort=False)
    mu_all = cells["score_sum"].transform("sum") / cells["n"].transform("sum")
    deviation = (mu_all - stats["score_sum"] / stats["n"]).abs()
    return (
        deviation.groupby([stats[c] for c in CELL], observed=True, sort=True)
        .agg(bias="sum", n_subgroups="size")
        .reset_index()
    )


def _check_unique(stats: pd.DataFrame) -> None:
    """Each (cell, subgroup, cluster) appears once: a repeat would count its continuations twice."""
    duplicated = stats.duplicated(STATS_KEYS, keep=False)
    if duplicated.any():
        first = stats.loc[duplicated, STATS_KEYS].iloc[0].to_dict()
        raise BiasflowError(
            f"CAIRO statistics have {int(duplicated.sum())} duplicate rows, e.g. {first}; "
            "each (model, metric, axis, split, promptset, seed, subgroup, group_key) must appear once. "
            "Were statistics files concatenated twice?"
        )


def _check_stats(stats: pd.DataFrame) -> None:
    """Every cell must have each subgroup that its metric and axis have elsewhere, once, with n > 0.

    A missing subgroup would silently change Eq. 1 (fewer terms, a different mu_all), so
    bias values of different cells would not be comparable. ``stats`` holds subgroup totals.
    """
    if (stats["n"] <= 0).any():
        first = stats.loc[stats["n"] <= 0, SUBGROUP_KEYS].iloc[0].to_dict()
        raise BiasflowError(
            f"CAIRO statistics have a subgroup with no rows (n <= 0), e.g. {first}; drop or rescore it."
        )
    _check_complete(stats)


def missing_subgroups(stats: pd.DataFrame) -> pd.DataFrame:
    """(cell, subgroup) pairs absent from ``stats`` although the cell's metric and axis have the subgroup."""
    expected = stats[["metric", "axis", "subgroup"]].drop_duplicates()
    cells = stats[CELL].drop_duplicates()
    full = cells.merge(expected, on=["metric", "axis"])
    present = full.merge(stats[SUBGROUP_KEYS].drop_duplicates(), on=SUBGROUP_KEYS, how="left", indicator=True)
    return present.loc[present["_merge"] == "left_only", SUBGROUP_KEYS].reset_index(drop=True)


def incomplete_cells(stats: pd.DataFrame) -> pd.DataFrame:
    """The cells (model, metric, axis, split, promptset, seed) that lack a subgroup."""
    return missing_subgroups(stats)[CELL].drop_duplicates().reset_index(drop=True)


def _check_complete(stats: pd.DataFrame) -> None:
    missing = missing_subgroups(stats)
    if len(missing):
        examples = "; ".join(
            f"{', '.join(f'{c}={row[c]}' for c in CELL)} lacks subgroup {row['subgroup']}"
            for _, row in missing.head(3).iterrows()
        )
        raise BiasflowError(
            f"CAIRO statistics are incomplete ({len(missing)} missing subgroup cell(s)): {examples}. "
            "Every model, split, prompt set and seed needs every subgroup of its metric and axis; "
            "regenerate or rescore the missing ones, or drop the subgroup everywhere."
        )
