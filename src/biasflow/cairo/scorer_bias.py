"""The scorer's bias apart from the models': Eq. 1 on raw and on neutral scores, and scorers side by side.

docs/methods.md §5.5-5.6. Counterfactual rescoring (:mod:`biasflow.scorers.counterfactual`)
gives each continuation that names its own subgroup a score with a neutral placeholder in
place of those words. Here, per model and metric: Eq. 1 (§1.6) on the raw scores with its
cluster-bootstrap interval (§1.11), Eq. 1 on the neutral scores, and the share of
continuations that name their subgroup; where the two bias values differ by more than the
raw one's interval, the scorer's reaction to group words drives the result and the log says
so. With several scorers, Kendall's τ between the model rankings each gives (§5.6).
"""

from __future__ import annotations

import itertools
import logging
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats as scipy_stats

from biasflow.cairo.combinations import ORIGINAL, pooled_bias, pooled_stats
from biasflow.cairo.stats import sufficient_stats
from biasflow.cairo.uncertainty import BOOTSTRAP, bootstrap_weights, draw_bias, draw_rng, percentile_interval
from biasflow.settings import StepSettings
from biasflow.tables import CONTINUATION_KEY

log = logging.getLogger("biasflow")

MODELS_COLUMNS = ["model", "metric", "bias", "bias_lo", "bias_hi", "bias_neutral", "mention_share", "n"]
AGREEMENT_COLUMNS = ["axis", "metric", "split", "scorer_a", "scorer_b", "kendall_tau", "n_models",
                     "outside_interval"]
# Every prompt set's rows, both splits: the bias a leaderboard built on the original prompts shows.
ALL_SPLITS = "all"


@dataclass(frozen=True)
class ScorerBiasSettings(StepSettings):
    """What the scorer-bias step reads: Eq. 1's normalisation, the bootstrap draws and their seed."""

    keys = {"normalise": "bias.normalise", "bootstrap": "selection.bootstrap", "seed": "selection.seed"}

    normalise: str
    bootstrap: int
    seed: int


def models_table(scored: pd.DataFrame, neutral: pd.Series, mentions: pd.Series, settings: ScorerBiasSettings
                 ) -> pd.DataFrame:
    """Per model and metric: Eq. 1 of the original prompts on raw scores (with its interval) and on neutral ones.

    ``scored`` is one axis's continuations with their prompts' columns and raw ``score``;
    ``neutral`` and ``mentions`` are aligned with it (the neutral score, and whether the
    continuation names its own subgroup).
    """
    scored = scored.assign(split=ALL_SPLITS, neutral=neutral.to_numpy(), mentions=mentions.to_numpy())
    if "promptset" in scored:
        scored = scored[scored["promptset"] == ORIGINAL]
    axis = scored["axis"].iloc[0]
    rows = []
    for metric, part in scored.groupby("metric", sort=True):
        models = sorted(part["model"].unique())
        raw = pooled_stats(sufficient_stats(part), metric, axis, ALL_SPLITS, [ORIGINAL], models)
        cleaned = pooled_stats(sufficient_stats(part.assign(score=part["neutral"])), metric, axis, ALL_SPLITS,
                               [ORIGINAL], models)
        one = np.ones((1, 1))
        bias = pooled_bias(one, raw, settings.normalise)[0]
        low = high = np.full_like(bias, np.nan)
        if settings.bootstrap:
            weights = bootstrap_weights(raw, settings.bootstrap, draw_rng(settings.seed, BOOTSTRAP, metric, axis))
            low, high = percentile_interval(draw_bias(one[0], raw, weights, settings.normalise))
        share = part.groupby("model")["mentions"].mean().reindex(models).to_numpy()
        n = part.groupby("model").size().reindex(models).to_numpy()
        rows.extend(zip(models, [metric] * len(models), bias, low, high, pooled_bias(one, cleaned,
                                                                                        settings.normalise)[0], share, n))
    table = pd.DataFrame(rows, columns=MODELS_COLUMNS)
    for row in table.itertuples(index=False):
        if np.isfinite(row.bias_lo) and not row.bias_lo <= row.bias_neutral <= row.bias_hi:
            log.warning(
                "%s %s (%s): Eq. 1 is %.4f on the raw scores, 95%% interval [%.4f, %.4f], and %.4f with the group "
                "words replaced by a neutral placeholder: the scorer's reaction to group words drives this bias "
                "(docs/methods.md §5.5).", row.model, row.metric, axis, row.bias, row.bias_lo, row.bias_hi,
                row.bias_neutral,
            )
    return table


def mentioning(scored: pd.DataFrame, variants: pd.DataFrame) -> pd.Series:
    """Whether each row of ``scored`` names its own subgroup (it has variants)."""
    keys = variants[CONTINUATION_KEY].drop_duplicates().assign(mentions=True)
    merged = scored[CONTINUATION_KEY].merge(keys, on=CONTINUATION_KEY, how="left")
    return merged["mentions"].fillna(False).astype(bool)


def agreement_table(headlines: dict[str, pd.DataFrame]) -> pd.DataFrame:
    """Kendall's τ-b between the model rankings of every pair of scorers, per axis, metric and split (§5.6).

    ``headlines``: each scorer's CAIRO headline table (``results/cairo/{axis}.csv``). The
    rankings are by Eq. 1 with the original prompts; ``outside_interval`` counts the models
    whose rank under one scorer lies outside their 95% rank interval under the other.
    """
    rows = []
    original = {label: table[table["prompts"] == ORIGINAL].drop_duplicates(["axis", "metric", "split", "model"])
                .set_index(["axis", "metric", "split", "model"]) for label, table in headlines.items()}
    for first, second in itertools.combinations(headlines, 2):
        both = original[first].merge(original[second], left_index=True, right_index=True, suffixes=("_a", "_b"))
        for (axis, metric, split), part in both.groupby(level=["axis", "metric", "split"], sort=True):
            tau = scipy_stats.kendalltau(part["bias_a"], part["bias_b"]).statistic if len(part) > 1 else np.nan
            outside = ((part["rank_b"] < part["rank_lo_a"]) | (part["rank_b"] > part["rank_hi_a"])
                       | (part["rank_a"] < part["rank_lo_b"]) | (part["rank_a"] > part["rank_hi_b"]))
            rows.append((axis, metric, split, first, second, tau, len(part), int(outside.sum())))
    return pd.DataFrame(rows, columns=AGREEMENT_COLUMNS)
