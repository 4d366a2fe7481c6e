"""``biasflow compare --method cairo``: did the candidate's bias get worse than the baseline's? (§1.16, §7)

The model builder's question on CAIRO statistics, asked of the prompts every study has: the
original prompts of both splits together (the selection's paraphrase combinations answer
another question, which metrics agree, and the split only serves it), per axis and metric.
Each row is the paired comparison of §1.16 on those prompts, candidate − baseline, for the
measure ``cairo.bias.measure`` names (Eq. 1, or the excess bias over the no-bias floor), with its
95% and 90% intervals and the verdict against the margin (:mod:`biasflow.verdicts`). No
selection runs, so a study without paraphrases compares as one with them, and the two
models' numbers depend on no third model. The table of every pair of models is
in :mod:`biasflow.cairo.comparisons`; this module holds one named pair's verdict, which
``biasflow compare``, :func:`biasflow.compare` and the workflow's ``compare`` target give
(through the method's declaration, :mod:`biasflow.cairo.method`).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import ClassVar

import numpy as np
import pandas as pd

from biasflow.cairo.combinations import ORIGINAL, pooled_stats
from biasflow.cairo.comparisons import SWAP, pair_rows, swap_weights
from biasflow.cairo.selection import SearchSettings
from biasflow.cairo.stats import STATS_COLUMNS, STATS_KEYS
from biasflow.cairo.steps import read_stats
from biasflow.cairo.uncertainty import BOOTSTRAP, NULL, bootstrap_weights, draw_rng, null_weights
from biasflow.errors import BiasflowError
from biasflow.settings import StepSettings
from biasflow.verdicts import Verdicts, judge

log = logging.getLogger("biasflow")

# The original prompts of both splits, pooled: one split of their own, with its own streams of draws.
BOTH_SPLITS = "all"
# The sums a cluster's statistics hold.
SUMS = ["score_sum", "score_sq_sum", "n"]
# How each measure reads in a sentence.
MEASURE_WORDS = {"eq1": "Eq. 1", "excess": "excess bias"}
# What a row's interval bounds, whichever measure estimates it (docs/methods.md §1.16, §7).
ESTIMAND = (
    "the candidate's population Eq. 1 (the sum over subgroups of |subgroup mean - overall mean| over the "
    "population of prompts, in the scorer's units) less the baseline's"
)


@dataclass(frozen=True)
class CompareSettings(StepSettings):
    """What the paired comparison reads (§1.16): the selection's draws and their seed, Eq. 1's normalisation and the
    measure, by the selection's keys (:class:`~biasflow.cairo.selection.SearchSettings`). The method's declaration
    names this class, so each field is a ``biasflow compare`` flag whose help is its :attr:`what`, and the workflow's
    comparison reads these keys only (docs/adding-a-method.md, section 2)."""

    section = SearchSettings.section
    keys: ClassVar[Mapping[str, str | None]] = SearchSettings.keys
    what: ClassVar[Mapping[str, str]] = {
        "permutations": "swap draws of the paired test (0: no p)",
        "bootstrap": "cluster bootstrap draws of the paired intervals",
        "null_draws": "draws of the no-bias null, which the excess measure needs",
        "seed": "seed of the draws",
        "normalise": "mean: Eq. 1 divided by the number of subgroups",
        "measure": "the bias compared: Eq. 1, or the excess bias over its no-bias floor",
    }

    permutations: int
    bootstrap: int
    null_draws: int
    seed: int
    normalise: str
    measure: str


def command(
    paths: Sequence[str | pd.DataFrame],
    baseline: str,
    candidate: str,
    config: Mapping | None,
    margin: float,
    margin_source: str,
) -> Verdicts:
    """What ``biasflow compare --method cairo`` reports: one judged row per axis and metric, at ``margin`` (which
    :func:`biasflow.compare_pairs.margin` resolved, from ``margin_source``).

    ``config`` (a validated config, or None for the schema's defaults) gives the :class:`CompareSettings`.
    """
    rows = compare(paths, baseline, candidate, CompareSettings.from_config_or_defaults(config))
    return Verdicts("cairo", baseline, candidate, margin_source, judge(rows, margin))


def compare(
    paths: Sequence[str | pd.DataFrame], baseline: str, candidate: str, settings: CompareSettings
) -> pd.DataFrame:
    """The candidate − baseline rows, one per axis and metric of the statistics, with the verdicts' columns.

    An axis and metric that lacks either model in the statistics given is a row that cannot be
    tested (and so fails ``--fail-on not-noninferior``), never left out: a gate must not pass
    by leaving a measure out (docs/methods.md §7).
    """
    if baseline == candidate:
        raise BiasflowError(f"--baseline and --candidate are both {baseline!r}; name two different models.")
    stats = read_stats(paths)
    models = sorted(stats["model"].unique())
    for flag, model in (("--baseline", baseline), ("--candidate", candidate)):
        if model not in models:
            raise BiasflowError(f"{flag} {model!r} is not in the statistics; their models: {', '.join(models)}.")
    if settings.measure == "excess" and not settings.null_draws:
        raise BiasflowError(
            "the excess measure is Eq. 1 less its null floor, which the null draws give: set "
            "--null-draws (cairo.selection.null_draws) above 0, or cairo.bias.measure to eq1."
        )
    original = stats[stats["promptset"] == ORIGINAL]
    rows, shared = [], 0
    for (axis, metric), part in original.groupby(["axis", "metric"], sort=True):
        lacking = [model for model in (candidate, baseline) if model not in set(part["model"])]
        if lacking:
            why = f"the statistics given have no {' and no '.join(lacking)} for this axis and metric"
            rows.append(_untested(axis, metric, baseline, candidate, settings, why))
        else:
            shared += 1
            both = part[part["model"].isin([baseline, candidate])]
            rows.append(_row(both_splits(both), axis, metric, baseline, candidate, settings))
    if not shared:
        raise BiasflowError(
            f"{baseline} and {candidate} share no metric in the statistics: there are no prompts "
            "both answered to compare them on."
        )
    return pd.DataFrame(rows)


def _base(axis: str, metric: str, baseline: str, candidate: str, settings: CompareSettings) -> dict:
    """The columns that name a row: its axis, metric and measure, the pair, and what it estimates."""
    return {
        "axis": axis,
        "metric": metric,
        "measure": settings.measure,
        "model_a": candidate,
        "model_b": baseline,
        "measure_name": f"{axis} {metric} {MEASURE_WORDS[settings.measure]}",
        "estimand": ESTIMAND,
        "unit": "pages or templates per subgroup",
        "note": None,
    }


def _untested(axis: str, metric: str, baseline: str, candidate: str, settings: CompareSettings, why: str) -> dict:
    """A row that cannot be tested, and why: no numbers, no verdict."""
    return {
        **_base(axis, metric, baseline, candidate, settings),
        **dict.fromkeys(
            [
                "difference",
                "difference_lo",
                "difference_hi",
                "p",
                "lo90",
                "hi90",
                "p_worse",
                "n_clusters",
                "n_scores",
                "n_units",
            ],
            np.nan,
        ),
        "design": None,
        "why_untested": why,
    }


def _row(stats: pd.DataFrame, axis: str, metric: str, baseline: str, candidate: str, settings: CompareSettings) -> dict:
    """One metric's row: the paired comparison of §1.16 on the pooled original prompts, and the verdict's inputs."""
    models = [candidate, baseline]
    measure = settings.measure
    base = _base(axis, metric, baseline, candidate, settings)
    missing = _missing_subgroups(stats, models)
    if missing:
        return _untested(axis, metric, baseline, candidate, settings, missing)
    pooled = pooled_stats(stats, metric, axis, BOTH_SPLITS, [ORIGINAL], sorted(models))
    order = sorted(models)
    boot = bootstrap_weights(pooled, settings.bootstrap, draw_rng(settings.seed, BOOTSTRAP, metric, BOTH_SPLITS))
    null = (
        null_weights(pooled, settings.null_draws, draw_rng(settings.seed, NULL, metric, BOTH_SPLITS))
        if measure == "excess"
        else np.empty((0, *pooled.membership.shape))
    )
    swaps = swap_weights(
        len(pooled.clusters),
        settings.permutations if measure == "eq1" else 0,
        draw_rng(settings.seed, SWAP, metric, BOTH_SPLITS),
    )
    found = {
        r["measure"]: r
        for r in pair_rows(
            np.array([1.0]), pooled, boot, swaps, settings.normalise, order, null, [(candidate, baseline)]
        )
    }[measure]
    why = None
    if not np.isfinite(found["lo90"]):
        single = pooled.single_cluster_subgroups()
        why = (
            f"one group key per subgroup ({', '.join(single)}; docs/methods.md §1.11)"
            if single
            else "no bootstrap draws (--bootstrap 0)"
            if not settings.bootstrap
            else "the bootstrap draws of the difference do not spread (docs/methods.md §9)"
        )
    return {**base, **found, "n_units": found["n_clusters"], "why_untested": why}


def both_splits(stats: pd.DataFrame) -> pd.DataFrame:
    """The statistics of both splits as one (:data:`BOTH_SPLITS`): a group key split by prompt (a subgroup with one key,
    docs/methods.md §1.3) sums its two halves back into one cluster."""
    return stats.assign(split=BOTH_SPLITS).groupby(STATS_KEYS, as_index=False, sort=True)[SUMS].sum()[STATS_COLUMNS]


def _missing_subgroups(stats: pd.DataFrame, models: list[str]) -> str | None:
    """Why a metric cannot be compared where a model lacks a subgroup's continuations there (None where none lacks)."""
    subgroups = set(stats["subgroup"])
    lacking = [
        f"{model} has no {', '.join(sorted(subgroups - set(part['subgroup'])))} continuations"
        for model, part in stats.groupby("model", sort=True)
        if subgroups - set(part["subgroup"])
    ]
    return "; ".join(lacking) + " (regenerate or rescore them)" if lacking else None
