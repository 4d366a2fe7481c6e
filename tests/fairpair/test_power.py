"""FairPair's power planner: the excess F over prompts, checked by resampling a skewed pilot (docs/methods.md §6.4)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from biasflow.errors import BiasflowError
from biasflow.fairpair.power import Settings, model_rows, plan
from biasflow.fairpair.scores import PROMPT_SCORE_COLUMNS

SETTINGS = Settings.defaults()


def scores(f: np.ndarray, null_mean: np.ndarray) -> pd.DataFrame:
    table = pd.DataFrame({column: np.nan for column in PROMPT_SCORE_COLUMNS}, index=range(len(f)))
    table["prompt_id"] = [f"p{i}" for i in range(len(f))]
    table["dissimilarity"] = "jaccard"
    table["F"], table["F_null_mean"] = f, null_mean
    return table


def test_the_excess_is_counted_over_prompts_with_a_finite_f():
    f = np.array([1.5, 1.1, np.inf, 1.3, np.nan, 0.9])
    row = model_rows(scores(f, np.full(6, 1.13)), "m", SETTINGS)[0]
    excess = np.array([1.5, 1.1, 1.3, 0.9]) - 1.13
    assert row["n"] == 4 and row["sd"] == pytest.approx(excess.std(ddof=1))
    assert row["baseline"] == pytest.approx(1.13) and row["unit"] == "prompts"


def test_scores_without_the_null_are_refused_with_the_setting_that_adds_it(tmp_path):
    path = tmp_path / "m.csv"
    scores(np.array([1.0, 1.2]), np.array([np.nan, np.nan])).to_csv(path, index=False)
    with pytest.raises(BiasflowError, match="fairpair.null_draws above 0"):
        plan({"m": [str(path)]}, SETTINGS)


def test_a_simulated_excess_at_the_mdd_is_detected_about_80_percent_of_the_time():
    """Studies resampled from a skewed pilot's excess, shifted to the planner's mdd; detected when its t interval
    excludes 0 (the summary's F_excess interval)."""
    rng = np.random.default_rng(2)
    prompts = 60
    null_mean = np.full(prompts, 1.13)
    pilot = null_mean * rng.gamma(8.0, 0.125, prompts)  # F spread around its null, right-skewed as F is
    row = model_rows(scores(pilot, null_mean), "m", SETTINGS)[0]
    # The pilot's excess, centred and scaled so that a draw from it has the pilot's sample sd.
    centred = ((pilot - null_mean) - (pilot - null_mean).mean()) * math.sqrt(prompts / (prompts - 1))
    draws = rng.choice(centred, size=(4000, prompts)) + row["mdd"]
    half = stats.t.ppf(0.975, prompts - 1) * draws.std(axis=1, ddof=1) / math.sqrt(prompts)
    detected = np.mean(np.abs(draws.mean(axis=1)) > half)
    assert 0.75 <= detected <= 0.85, detected
