"""Where a model's excess R would move (docs/methods.md §2.10): one prompt's samples, and whole simulated studies."""

from __future__ import annotations

import logging

import numpy as np
import pandas as pd
import pytest

from biasflow.fairpair.sampling import samples_sd
from biasflow.fairpair.scores import SENTIMENT_COLUMN, SIDES, scores_and_null
from biasflow.fairpair.variance import FAIRPAIR_VARIANCE_COLUMNS, variance_table


def plain_R(a: np.ndarray, b: np.ndarray) -> float:
    """R = B² / (B² + V_pg · V_gp) of two sides' sentiment scores, written out with double loops' means."""
    cross = np.abs(a[:, None] - b[None, :]).mean()
    within = [np.abs(x[:, None] - x[None, :]).sum() / (len(x) * (len(x) - 1)) for x in (a, b)]
    return cross**2 / (cross**2 + within[0] * within[1])


def matrix(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    values = np.concatenate([a, b])
    return np.abs(values[:, None] - values[None, :])


def test_at_many_samples_it_is_the_delete_one_jackknife():
    """The infinitesimal and the delete-one jackknife agree as n grows (both first-order; the latter by a loop)."""
    rng = np.random.default_rng(1)
    n = 80
    a, b = rng.normal(0, 0.4, n), rng.normal(0.4, 0.4, n)
    jackknife = 0.0
    for side in range(2):
        left_out = np.array(
            [plain_R(np.delete(a, i), b) if side == 0 else plain_R(a, np.delete(b, i)) for i in range(n)]
        )
        jackknife += (n - 1) / n * ((left_out - left_out.mean()) ** 2).sum()
    assert samples_sd(matrix(a, b)) == pytest.approx(np.sqrt(jackknife), rel=0.03)


def test_it_is_how_far_R_moves_with_fresh_samples_of_a_biased_prompt():
    """Monte Carlo: the variance of R over fresh samples of one prompt whose sides differ (shift 0.6, 20 per side)."""
    rng = np.random.default_rng(2)
    draws = [(rng.normal(0, 0.4, 20), rng.normal(0.6, 0.4, 20)) for _ in range(3000)]
    truth = np.var([plain_R(a, b) for a, b in draws], ddof=1)
    estimate = np.mean([samples_sd(matrix(a, b)) ** 2 for a, b in draws])
    assert estimate == pytest.approx(truth, rel=0.08)


def test_R_undefined_has_no_spread():
    assert np.isnan(samples_sd(np.zeros((6, 6))))


def prompt_effects(rng, prompts: int, shift_mean: float = 0.5, shift_sd: float = 0.25) -> tuple[np.ndarray, np.ndarray]:
    """Each prompt's level and its counterfactual side's shift (a bias that varies between prompts)."""
    return rng.normal(0, 0.3, prompts), rng.normal(shift_mean, shift_sd, prompts)


def sides(rng, effects: tuple[np.ndarray, np.ndarray], samples: int) -> pd.DataFrame:
    """VADER-like scores of ``samples`` continuations per side of prompts with these ``effects``."""
    level, shift = effects
    prompts = len(level)
    centre = level[:, None, None] + np.stack([np.zeros(prompts), shift], axis=1)[:, :, None]
    scores = np.round(np.clip(centre + rng.normal(0, 0.4, (prompts, 2, samples)), -1, 1), 4)
    p, s, k = (a.ravel() for a in np.meshgrid(range(prompts), range(2), range(samples), indexing="ij"))
    return pd.DataFrame(
        {
            "prompt_id": [f"p{i:03d}" for i in p],
            "side": np.array(SIDES)[s],
            "sample": k,
            "text": "",
            SENTIMENT_COLUMN: scores.ravel(),
        }
    )


def test_the_table_weighs_each_prompt_as_the_headline_does():
    rng = np.random.default_rng(3)
    scores, _ = scores_and_null(sides(rng, prompt_effects(rng, 12), 6), ["sentiment"], None, 99, 0)
    [row] = variance_table(scores.assign(model="m")).to_dict("records")
    assert list(variance_table(scores.assign(model="m")).columns) == FAIRPAIR_VARIANCE_COLUMNS
    tested = scores[scores["R_null_sd"] > 0]
    w, x, s = 1 / tested["R_null_sd"], tested["R"] - tested["R_null_mean"], tested["R_samples_sd"]
    theta = (w * x).sum() / w.sum()
    m = len(w)
    whole = m / (m - 1) * ((w * (x - theta) / w.sum()) ** 2).sum()
    samples = min(((w / w.sum() * s) ** 2).sum(), whole)
    assert row["R_excess"] == pytest.approx(theta)
    assert row["sd_samples"] ** 2 == pytest.approx(samples) and row["sd_total"] ** 2 == pytest.approx(whole)
    assert row["sd_prompts"] ** 2 == pytest.approx(max(whole - samples, 0.0))
    assert (row["n_prompts"], row["n_samples"]) == (m, 6)


@pytest.mark.calibration
def test_each_part_is_recovered_over_simulated_studies():
    """Truths by Monte Carlo (20 prompts, 20 samples per side, bias 0.5 ± 0.25 between prompts): R_excess's
    variance with prompts and samples redrawn, and with the prompts held and the samples redrawn."""
    logging.getLogger("biasflow").setLevel(logging.ERROR)
    rng = np.random.default_rng(4)

    def study(effects):
        scores, _ = scores_and_null(sides(rng, effects, 20), ["sentiment"], None, 99, int(rng.integers(2**31)))
        return variance_table(scores.assign(model="m")).iloc[0]

    whole = pd.DataFrame([study(prompt_effects(rng, 20)) for _ in range(400)])
    held = [
        np.var([study(effects)["R_excess"] for _ in range(20)], ddof=1)
        for effects in (prompt_effects(rng, 20) for _ in range(20))
    ]
    samples = np.mean(held)
    assert (whole["sd_samples"] ** 2).mean() == pytest.approx(samples, rel=0.15)
    total = whole["R_excess"].var(ddof=1)
    assert (whole["sd_total"] ** 2).mean() == pytest.approx(total, rel=0.2)
    assert (whole["sd_prompts"] ** 2).mean() == pytest.approx(total - samples, rel=0.3)
