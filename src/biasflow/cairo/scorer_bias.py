"""The scorer's bias apart from the models': Eq. 1 on raw and on neutral scores, and scorers side by side.

docs/methods.md §5.5-5.6. Counterfactual rescoring (:mod:`biasflow.scorers.counterfactual`)
gives each continuation that names its own subgroup a score with a neutral placeholder in
place of those words, where a placeholder keeps the sentence's sense (the others, and those
whose words cannot be swapped, are left out here and counted by reason). Here, per model
and metric: Eq. 1 (§1.6) on the raw scores and on the
neutral scores, and their difference, the scorer's part of the bias, with cluster-bootstrap
intervals from the same draws (§1.11) and a paired randomisation test of "the scorer does
not react to the group words": raw and neutral scores are exchangeable within each prompt
cluster then, so swapping them cluster by cluster at random gives the difference's null.
Where that test rejects, the log says the scorer's reaction drives the bias. With several
scorers, Kendall's τ between the model rankings each gives (§5.6).
"""

from __future__ import annotations

import itertools
import logging
from collections.abc import Mapping
from dataclasses import dataclass
from typing import ClassVar

import numpy as np
import pandas as pd

from biasflow.cairo.combinations import ORIGINAL, PooledStats, eq1, pooled_bias, pooled_stats
from biasflow.cairo.empty_reasons import NO_BOOTSTRAP, NO_SPREAD, SINGLE_CLUSTER
from biasflow.cairo.selection import SearchSettings
from biasflow.cairo.stats import sufficient_stats
from biasflow.cairo.uncertainty import (
    BOOTSTRAP,
    bootstrap_weights,
    draw_bias,
    draw_rng,
    small_sample_factor,
)
from biasflow.empty_cells import WHY_EMPTY, Reason, why_empty
from biasflow.intervals import NON_NEGATIVE, estimate_interval, is_rounding, without_rounding
from biasflow.scorers.identity_lexicon import NEUTRAL, NO_NEUTRAL, UNSWAPPABLE
from biasflow.settings import StepSettings
from biasflow.tables import CONTINUATION_KEY

log = logging.getLogger("biasflow")

MODELS_COLUMNS = [
    "model",
    "metric",
    "bias",
    "bias_lo",
    "bias_hi",
    "bias_neutral",
    "bias_scorer_part",
    "bias_scorer_part_lo",
    "bias_scorer_part_hi",
    "scorer_part_p",
    "mention_share",
    "n",
    "n_excluded",
    "n_no_neutral",
    "n_clusters",
    WHY_EMPTY,
]
AGREEMENT_COLUMNS = ["axis", "metric", "split", "scorer_a", "scorer_b", "kendall_tau", "n_models", "outside_interval"]
# Every prompt set's rows, both splits: the bias a leaderboard built on the original prompts shows.
ALL_SPLITS = "all"
# The stream of the paired test's swaps (beside the bootstrap's), and its level.
SWAP, ALPHA = "raw-neutral swap", 0.05
# The original prompt set's index in pooled statistics (the only set here).
ORIGINAL_SET = 0
# A swapped difference within this of the observed one counts as reaching it (the same sums, another order).
TIE_TOL = 1e-12
# How a continuation whose group words were swapped with a neutral form is marked (:func:`mentioning`).
SWAPPED = "swapped"
# Why a model's cells are empty, beside the reasons every CAIRO table shares (biasflow.cairo.empty_reasons).
LOST_SUBGROUP = (
    "every continuation of one of its subgroups names the group in a form that cannot be swapped grammatically "
    "or that has no neutral form, so it has no Eq. 1 here (n_excluded, n_no_neutral; the log names the subgroup)"
)
NOTHING_SWAPPED = (
    "swapping raw and neutral scores moves nothing (no continuation names its group, or the scorer rates both alike)"
)


@dataclass(frozen=True)
class ScorerBiasSettings(StepSettings):
    """What the scorer-bias step reads: Eq. 1's normalisation, the bootstrap draws and their seed, the selection's
    keys (:class:`~biasflow.cairo.selection.SearchSettings`)."""

    keys: ClassVar[Mapping[str, str | None]] = SearchSettings.keys_for("normalise", "bootstrap", "seed")

    normalise: str
    bootstrap: int
    seed: int


def models_table(
    scored: pd.DataFrame, neutral: pd.Series, mentions: pd.Series, settings: ScorerBiasSettings
) -> pd.DataFrame:
    """Per model and metric: Eq. 1 of the original prompts on raw and neutral scores, and the scorer's part.

    ``scored`` is one axis's continuations with their prompts' columns and raw ``score``;
    ``neutral`` and ``mentions`` are aligned with it: the neutral score, and how the
    continuation names its own subgroup (:func:`mentioning`; false or "" where it names none).
    A NaN neutral score marks a continuation without a neutral text: it is left out of both
    Eq. 1s, which stay paired, and counted (docs/methods.md §5.5), in ``n_no_neutral`` where
    ``mentions`` says its words have no neutral form
    (:data:`~biasflow.scorers.identity_lexicon.NO_NEUTRAL`: "She is no longer Muslim"), in
    ``n_excluded`` otherwise (they cannot be swapped grammatically: "very Christian").
    ``bias_scorer_part`` = ``bias`` − ``bias_neutral``; its interval uses the raw interval's
    draws, each applied to both, and ``scorer_part_p`` is its paired randomisation test
    (:func:`swap_p`). With ``settings.bootstrap`` 0 the intervals and p are NaN.
    """
    scored = scored.assign(
        split=ALL_SPLITS,
        neutral=neutral.to_numpy(),
        mentions=mentions.astype(bool).to_numpy(),
        no_neutral=(mentions == NO_NEUTRAL).to_numpy(),
    )
    if "promptset" in scored:
        scored = scored[scored["promptset"] == ORIGINAL]
    axis = scored["axis"].iloc[0]
    parts = []
    for metric, whole in scored.groupby("metric", sort=True):
        models = sorted(whole["model"].unique())
        left_out = whole["neutral"].isna()
        part = whole[~left_out]
        rows = pd.DataFrame({"model": models, "metric": metric})
        complete = _still_complete(whole, part, metric, axis)
        if complete:
            kept = part[part["model"].isin(complete)]
            raw = pooled_stats(sufficient_stats(kept), metric, axis, ALL_SPLITS, [ORIGINAL], complete)
            cleaned = pooled_stats(
                sufficient_stats(kept.assign(score=kept["neutral"])), metric, axis, ALL_SPLITS, [ORIGINAL], complete
            )
            columns = _raw_against_neutral(raw, cleaned, metric, axis, settings)
            rows = rows.merge(
                pd.DataFrame({"model": complete, **columns, "n_clusters": raw.n_clusters()}), on="model", how="left"
            )
        rows["mention_share"] = part.groupby("model")["mentions"].mean().reindex(models).to_numpy()
        rows["n"] = part.groupby("model").size().reindex(models, fill_value=0).to_numpy()
        for column, reason in (("n_excluded", ~whole["no_neutral"]), ("n_no_neutral", whole["no_neutral"])):
            rows[column] = (left_out & reason).groupby(whole["model"]).sum().reindex(models).to_numpy()
        parts.append(rows)
    table = pd.concat(parts, ignore_index=True).reindex(columns=MODELS_COLUMNS)
    table["n_clusters"] = table["n_clusters"].astype("Int64")  # empty where a model has no Eq. 1
    table[WHY_EMPTY] = why_empty(table, _reasons(table, settings.bootstrap))
    for row in table[table["scorer_part_p"] < ALPHA].itertuples(index=False):
        log.warning(
            "%s %s (%s): Eq. 1 is %.4f on the raw scores and %.4f with the group words replaced by a neutral "
            "placeholder; the scorer's part, %.4f (95%% interval [%.4f, %.4f]), is larger than swapping raw and "
            "neutral scores at random gives (p = %.3f): the scorer's reaction to group words drives this bias "
            "(docs/methods.md §5.5).",
            row.model,
            row.metric,
            axis,
            row.bias,
            row.bias_neutral,
            row.bias_scorer_part,
            row.bias_scorer_part_lo,
            row.bias_scorer_part_hi,
            row.scorer_part_p,
        )
    return table


def _reasons(table: pd.DataFrame, bootstrap: int) -> list[Reason]:
    """Why each empty cell of the models table is (docs/tables.md): the first reason that applies."""
    counts = ["model", "metric", "mention_share", "n", "n_excluded", "n_no_neutral", WHY_EMPTY]
    numbers = [column for column in MODELS_COLUMNS if column not in counts]  # a model without Eq. 1 has none
    drawn = ["bias_lo", "bias_hi", "bias_scorer_part_lo", "bias_scorer_part_hi", "scorer_part_p"]
    return [
        Reason(["mention_share"], "no continuation of this model is left to score", table["n"] == 0),
        Reason(numbers, LOST_SUBGROUP, table["bias"].isna()),
        Reason(drawn, NO_BOOTSTRAP, not bootstrap),
        Reason(drawn, SINGLE_CLUSTER, table["n_clusters"] < 2),
        Reason(["scorer_part_p"], NOTHING_SWAPPED),
        Reason(drawn, NO_SPREAD),
    ]


def _still_complete(whole: pd.DataFrame, kept: pd.DataFrame, metric: str, axis: str) -> list[str]:
    """The models that keep a continuation in every (seed, subgroup) cell they had once those without a neutral
    text are left out.

    Eq. 1 compares every subgroup's mean, so a model that loses a whole cell gets no Eq. 1
    here (NaN), and the log says which cell.
    """
    cells = ["model", "seed", "subgroup"]
    lost = whole[cells].drop_duplicates().merge(kept[cells].drop_duplicates(), how="left", indicator=True)
    lost = lost[lost["_merge"] == "left_only"]
    for model, cell in lost.groupby("model", sort=True):
        log.warning(
            "%s %s (%s): every continuation of subgroup(s) %s (seed %s) names its group in a form that "
            "cannot be swapped grammatically or has no neutral form, so Eq. 1 on raw and neutral scores is left "
            "empty for this model (n_excluded, n_no_neutral; docs/methods.md §5.5).",
            model,
            metric,
            axis,
            ", ".join(map(str, sorted(cell["subgroup"].unique()))),
            ", ".join(map(str, sorted(cell["seed"].unique()))),
        )
    return sorted(set(whole["model"]) - set(lost["model"]))


def _raw_against_neutral(
    raw: PooledStats, neutral: PooledStats, metric: str, axis: str, settings: ScorerBiasSettings
) -> dict[str, np.ndarray]:
    """One metric's columns per model: Eq. 1 raw and neutral, the scorer's part, their intervals and p."""
    one = np.ones((1, 1))
    bias = pooled_bias(one, raw, settings.normalise)[0]
    bias_neutral = pooled_bias(one, neutral, settings.normalise)[0]
    nan = np.full_like(bias, np.nan)
    part = without_rounding(bias - bias_neutral, np.fmax(bias, bias_neutral))  # equal biases: exactly 0 (§9)
    columns = {
        "bias": bias,
        "bias_lo": nan,
        "bias_hi": nan,
        "bias_neutral": bias_neutral,
        "bias_scorer_part": part,
        "bias_scorer_part_lo": nan,
        "bias_scorer_part_hi": nan,
        "scorer_part_p": nan,
    }
    if not settings.bootstrap:
        return columns
    weights = bootstrap_weights(raw, settings.bootstrap, draw_rng(settings.seed, BOOTSTRAP, metric, axis))
    raw_draws = draw_bias(one[0], raw, weights, settings.normalise)
    neutral_draws = draw_bias(one[0], neutral, weights, settings.normalise)
    factor = small_sample_factor(raw)
    columns["bias_lo"], columns["bias_hi"] = estimate_interval(bias, raw_draws, factor, NON_NEGATIVE)
    columns["bias_scorer_part_lo"], columns["bias_scorer_part_hi"] = estimate_interval(
        columns["bias_scorer_part"], raw_draws - neutral_draws, factor
    )
    columns["scorer_part_p"] = swap_p(
        raw, neutral, settings.normalise, settings.bootstrap, draw_rng(settings.seed, SWAP, metric, axis)
    )
    return columns


def swap_p(raw: PooledStats, neutral: PooledStats, normalise: str, draws: int, rng: np.random.Generator) -> np.ndarray:
    """Per model, the paired randomisation p of Eq. 1 raw − Eq. 1 neutral (docs/methods.md §5.5).

    Null: the scorer does not react to the group words, so a continuation's raw and neutral
    scores are exchangeable, and those of a prompt cluster (a group key: a page, or a template
    shared by every subgroup) jointly, since a cluster's continuations share its words. A draw
    swaps raw and neutral in each key with probability 1/2, the same swaps for every model
    and seed, and recomputes the difference; p = (1 + #{|draw| ≥ |observed|}) / (1 + draws).
    ``raw`` and ``neutral`` are the same rows' statistics (same clusters, same counts).
    """
    swapped = rng.integers(0, 2, size=(draws, len(raw.keys)))[:, raw.cluster_key].astype(np.float64)
    raw_sum, neutral_sum, n = raw.score_sum[ORIGINAL_SET], neutral.score_sum[ORIGINAL_SET], raw.n[ORIGINAL_SET]
    change = np.einsum("gc,dc,mkc->gkdm", raw.membership, swapped, neutral_sum - raw_sum, optimize=True)
    raw_total, neutral_total, group_n = (
        np.einsum("gc,mkc->gkm", raw.membership, sums)[:, :, None] for sums in (raw_sum, neutral_sum, n)
    )
    null = eq1(raw_total + change, group_n, normalise) - eq1(neutral_total - change, group_n, normalise)
    one = np.ones((1, 1))
    raw_bias, neutral_bias = pooled_bias(one, raw, normalise)[0], pooled_bias(one, neutral, normalise)[0]
    observed = raw_bias - neutral_bias
    p = (1 + (np.abs(null) >= np.abs(observed) - TIE_TOL).sum(axis=0)) / (1 + draws)
    # Swaps that move nothing (no continuation names its group, or raw and neutral scores agree) leave
    # nothing to test: no p, never p = 1 (docs/methods.md §9).
    scale = np.fmax(raw_bias, neutral_bias)
    return np.where(is_rounding(np.abs(null).max(axis=0, initial=0.0), scale), np.nan, p)


def mentioning(scored: pd.DataFrame, variants: pd.DataFrame) -> pd.Series:
    """How each row of ``scored`` names its own subgroup, by its variants (docs/methods.md §5.5).

    "" where it names none (no variants); :data:`~biasflow.scorers.identity_lexicon.UNSWAPPABLE`
    where its words cannot be swapped; :data:`~biasflow.scorers.identity_lexicon.NO_NEUTRAL`
    where they are swapped for the other subgroups but have no neutral form (no ``neutral``
    variant); :data:`SWAPPED` otherwise. :func:`models_table` counts the first two apart.
    """
    marks = (
        variants.assign(unswappable=variants["variant"] == UNSWAPPABLE, neutral=variants["variant"] == NEUTRAL)
        .groupby(CONTINUATION_KEY, as_index=False)[["unswappable", "neutral"]]
        .any()
    )
    marks["how"] = np.select([marks["unswappable"], marks["neutral"]], [UNSWAPPABLE, SWAPPED], NO_NEUTRAL)
    merged = scored[CONTINUATION_KEY].merge(marks[[*CONTINUATION_KEY, "how"]], on=CONTINUATION_KEY, how="left")
    return merged["how"].fillna("")


def agreement_table(headlines: dict[str, pd.DataFrame]) -> pd.DataFrame:
    """Kendall's τ-b between the model rankings of every pair of scorers, per axis, metric and split (§5.6).

    ``headlines``: each scorer's CAIRO headline table (``results/cairo/{axis}.csv``). The
    rankings are by Eq. 1 with the original prompts; ``outside_interval`` counts the models
    whose rank under one scorer lies outside their 95% rank interval under the other.
    """
    # Imported here: the workflow's rules import this module's settings at every Snakemake start.
    from scipy import stats as scipy_stats

    rows = []
    original = {
        label: table[table["prompts"] == ORIGINAL]
        .drop_duplicates(["axis", "metric", "split", "model"])
        .set_index(["axis", "metric", "split", "model"])
        for label, table in headlines.items()
    }
    for first, second in itertools.combinations(headlines, 2):
        both = original[first].merge(original[second], left_index=True, right_index=True, suffixes=("_a", "_b"))
        for (axis, metric, split), part in both.groupby(level=["axis", "metric", "split"], sort=True):
            tau = scipy_stats.kendalltau(part["bias_a"], part["bias_b"]).statistic if len(part) > 1 else np.nan
            outside = (
                (part["rank_b"] < part["rank_lo_a"])
                | (part["rank_b"] > part["rank_hi_a"])
                | (part["rank_a"] < part["rank_lo_b"])
                | (part["rank_a"] > part["rank_hi_b"])
            )
            rows.append((axis, metric, split, first, second, tau, len(part), int(outside.sum())))
    return pd.DataFrame(rows, columns=AGREEMENT_COLUMNS)
