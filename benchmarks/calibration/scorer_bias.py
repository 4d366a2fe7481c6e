"""The scorer-bias step's scenarios of the calibration table (docs/methods.md §5.5).

Datasets are score tables as counterfactual rescoring leaves them, drawn without a scorer:

- *C_g*: contents of prompts, each content scored once per subgroup's words, score =
  content level + the scorer's reaction r_g + a reaction shared by the prompt's contents +
  one of the content's own; the share of the reaction's variance at the prompt level is the
  design. The truth, C_g = r_g − mean_h r_h, is set here; the contents (as
  :func:`biasflow.scorers.counterfactual.content_scores` lays them out) go through
  :func:`~biasflow.scorers.counterfactual.scorer_bias`.
- *The scorer's part of Eq. 1*: several models' continuations of nested pages or crossed
  templates, some naming their subgroup; such a continuation's raw and neutral scores are its
  toxicity plus a word-level noise each (drawn alike for both, per prompt and per
  continuation), plus, on the raw score, the scorer's reaction to its subgroup's words. With
  no reaction raw and neutral are exchangeable, the null of ``scorer_part_p``; the tables go
  through :func:`biasflow.cairo.scorer_bias.models_table`.
"""

from __future__ import annotations

import logging

import numpy as np
import pandas as pd
from scipy.special import expit

from benchmarks.calibration import COVERAGE, REJECTION, Scenario
from biasflow.cairo.scorer_bias import ALPHA, ScorerBiasSettings, models_table
from biasflow.scorers.counterfactual import scorer_bias

GROUPS = ["g0", "g1", "g2", "g3"]
# The scorer's reaction to each subgroup's words (score units) where it reacts, and the spread of the
# reaction around it from content to content (sd).
REACTION, REACTION_SD = np.array([0.04, 0.0, -0.01, -0.03]), 0.1
# The bootstrap draws (and swaps) of one dataset.
DRAWS = 200
# The scorer's part: models' toxicity levels (logit), pages or templates per subgroup, samples, the share of
# continuations naming their subgroup, and the word-level noise of a score (sd, per prompt and per continuation).
LEVELS = np.array([-2.0, -1.5, -1.0])
PAGES, PART_SAMPLES, MENTION_SHARE, WORD_SD = 8, 4, 0.6, 0.03


def contents_trial(rng, prompts: int, per_prompt: int, prompt_share: float) -> np.ndarray:
    """One dataset's C_g intervals, checked per subgroup: does each cover r_g − mean_h r_h?"""
    prompt = np.repeat(np.arange(prompts), per_prompt)
    shared = rng.normal(0.0, REACTION_SD * np.sqrt(prompt_share), (prompts, len(GROUPS)))[prompt]
    own = rng.normal(0.0, REACTION_SD * np.sqrt(1 - prompt_share), (len(prompt), len(GROUPS)))
    scores = rng.uniform(0.0, 0.5, (len(prompt), 1)) + REACTION + shared + own
    contents = pd.DataFrame(scores, columns=GROUPS).assign(metric="M", group_key=[f"p{p}" for p in prompt])
    table = scorer_bias(contents, GROUPS, "religion", DRAWS, int(rng.integers(2**31)))
    truth = REACTION - REACTION.mean()
    return ((table["scorer_bias_lo"] <= truth) & (truth <= table["scorer_bias_hi"])).to_numpy()


def part_trial(rng, design: str, reaction: float) -> np.ndarray:
    """One dataset's ``scorer_part_p`` per model: did the paired test reject at 0.05?

    ``reaction``: how much higher the scorer rates the first subgroup's words than the
    placeholder (0: no reaction, raw and neutral exchangeable).
    """
    model, group, page, sample = (
        a.ravel()
        for a in np.meshgrid(
            np.arange(len(LEVELS)), np.arange(len(GROUPS)), np.arange(PAGES), np.arange(PART_SAMPLES), indexing="ij"
        )
    )
    prompt = group * PAGES + page
    key = page if design == "crossed" else prompt
    logit = LEVELS[model] + rng.normal(0.0, 0.8, key.max() + 1)[key] + rng.normal(0.0, 1.0, len(model))
    toxicity = expit(logit)
    mentions = rng.random(len(model)) < MENTION_SHARE

    def word_noise():
        return rng.normal(0.0, WORD_SD, prompt.max() + 1)[prompt] + rng.normal(0.0, WORD_SD, len(model))

    raw = toxicity + mentions * (word_noise() + reaction * (group == 0))
    neutral = toxicity + mentions * word_noise()
    scored = pd.DataFrame(
        {
            "prompt_id": [f"p{p}" for p in prompt],
            "model": [f"m{m}" for m in model],
            "seed": 0,
            "sample": sample,
            "metric": "M",
            "axis": "religion",
            "promptset": "original",
            "subgroup": np.array(GROUPS)[group],
            "group_key": [f"k{k}" for k in key],
            "score": raw,
        }
    )
    settings = ScorerBiasSettings(normalise="none", bootstrap=DRAWS, seed=int(rng.integers(2**31)))
    logger = logging.getLogger("biasflow")
    level, logger.level = logger.level, logging.ERROR  # the warning fires wherever the test rejects
    try:
        table = models_table(scored, pd.Series(neutral), pd.Series(mentions), settings)
    finally:
        logger.level = level
    return (table["scorer_part_p"] < ALPHA).to_numpy()


def _contents(statistic, prompts, per_prompt, share, lower, upper, quick=100, full=800):
    return Scenario(
        "scorer bias",
        statistic,
        f"{prompts} prompts × {per_prompt} contents, {share:.0%} of the "
        "reaction's variance shared by a prompt's contents",
        "C_g of the simulated reaction",
        COVERAGE,
        0.95,
        lower,
        upper,
        contents_trial,
        dict(prompts=prompts, per_prompt=per_prompt, prompt_share=share),
        quick,
        full,
    )


def _part(design, reaction, nominal, lower, upper, quick=40, full=300):
    clusters = f"{PAGES} templates shared by" if design == "crossed" else f"{PAGES} pages per subgroup,"
    truth = "no reaction to group words" if not reaction else f"first subgroup's words +{reaction:g} (score units)"
    return Scenario(
        "scorer bias",
        "scorer_part_p < 0.05" + (" (power)" if reaction else ""),
        f"{len(LEVELS)} models, {clusters} {len(GROUPS)} subgroups, {MENTION_SHARE:.0%} name their subgroup",
        truth,
        REJECTION,
        nominal,
        lower,
        upper,
        part_trial,
        dict(design=design, reaction=reaction),
        quick,
        full,
    )


C_G = "C_g interval covers C_g"
SCENARIOS = [
    # C_g's interval resamples prompts: it covers whether the reaction varies by content or by prompt.
    *(_contents(C_G, 40, 10, share, 0.92, 0.98) for share in (0.0, 0.5, 1.0)),
    # Few prompts: the t factor keeps it near nominal down to 3 (2 give no interval).
    *(_contents(C_G, prompts, 10, 0.5, 0.90, 0.98) for prompts in (3, 6)),
    # The paired raw-against-neutral test: at its level without a reaction, nested or crossed; its power (a
    # reaction moves Eq. 1 only as far as it moves a subgroup's mean away from the others').
    *(_part(design, 0.0, 0.05, 0.0, 0.06) for design in ("nested", "crossed")),
    *(
        _part(design, 0.15, np.nan, lower, 1.0, quick=30, full=150)
        for design, lower in (("nested", 0.45), ("crossed", 0.55))
    ),
]
