"""FairPair's permutation null (docs/methods.md §2.5): the same draws recomputed the slow way, and its calibration."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from biasflow.fairpair import scores as fairpair
from biasflow.fairpair.null import random_splits
from biasflow.fairpair.steps import with_vader

WORDS = ["good", "kind", "work", "hard", "late", "nurse", "doctor", "day", "bad", "sad", "happy", "calm"]


def sides(rng: np.random.Generator, prompt: str, n: int, shift: int = 0) -> pd.DataFrame:
    """n samples per side, 4 words each; ``shift`` > 0 draws the counterfactual side from other words (bias)."""
    rows = []
    for side in fairpair.SIDES:
        vocabulary = WORDS[shift:] if side == "counterfactual" and shift else WORDS[:len(WORDS) - shift]
        rows += [(prompt, side, s, " ".join(rng.choice(vocabulary, 4))) for s in range(n)]
    return pd.DataFrame(rows, columns=fairpair.SIDE_COLUMNS)


def test_null_draws_equal_rescoring_each_resplit_the_slow_way():
    """Each draw's sides rebuilt as rows and scored by fairpair_scores: the same F per draw, mean and p."""
    rng = np.random.default_rng(0)
    table = with_vader(pd.concat([sides(rng, "p0", 5), sides(rng, "p1", 5)], ignore_index=True),
                       fairpair.DISSIMILARITIES)
    draws, seed = 30, 4
    scores, null = fairpair.scores_and_null(table, fairpair.DISSIMILARITIES, None, draws, seed)
    for index, prompt in enumerate(["p0", "p1"]):
        rows = table[table["prompt_id"] == prompt].sort_values(["side", "sample"])
        pooled = pd.concat([rows[rows["side"] == side] for side in fairpair.SIDES], ignore_index=True)
        splits = random_splits(np.random.default_rng([seed, index]), 5, draws)
        for name in fairpair.DISSIMILARITIES:
            slow = []
            for split in splits:
                resplit = pd.concat([pooled[split].assign(side=fairpair.SIDES[0]),
                                     pooled[~split].assign(side=fairpair.SIDES[1])])
                resplit["sample"] = resplit.groupby("side").cumcount()
                slow.append(fairpair.fairpair_scores(resplit, [name], None)["F"].iloc[0])
            fast = null[(null["prompt_id"] == prompt) & (null["dissimilarity"] == name)].sort_values("draw")
            assert fast["F"].to_numpy() == pytest.approx(np.array(slow), abs=1e-12, nan_ok=True)
            row = scores[(scores["prompt_id"] == prompt) & (scores["dissimilarity"] == name)].iloc[0]
            slow = np.array(slow)
            assert row["F_null_mean"] == pytest.approx(slow[np.isfinite(slow)].mean())
            assert row["p_perm"] == pytest.approx((1 + np.sum(slow >= row["F"])) / (1 + draws))


def test_p_perm_is_calibrated_under_exchangeable_sides_and_finds_a_shift():
    """400 prompts whose two sides come from one distribution: p_perm < 0.05 for 3-7% of them."""
    rng = np.random.default_rng(1)
    null_table = pd.concat([sides(rng, f"p{i}", 6) for i in range(400)], ignore_index=True)
    scores, _ = fairpair.scores_and_null(null_table, ["jaccard"], None, 199, 0)
    assert 0.03 <= np.mean(scores["p_perm"] < 0.05) <= 0.07
    biased = pd.concat([sides(rng, f"q{i}", 6, shift=6) for i in range(40)], ignore_index=True)
    scores, _ = fairpair.scores_and_null(biased, ["jaccard"], None, 199, 0)
    assert np.mean(scores["p_perm"] < 0.05) >= 0.8


def test_model_null_is_the_mean_over_prompts_under_each_draw():
    rng = np.random.default_rng(2)
    table = with_vader(pd.concat([sides(rng, f"p{i}", 6) for i in range(12)], ignore_index=True), ["jaccard"])
    scores, draws = fairpair.scores_and_null(table, ["jaccard"], None, 99, 0)
    row = fairpair.summarise(scores.assign(model="m"), draws.assign(model="m")).iloc[0]
    finite = scores[np.isfinite(scores["F"])]
    per_draw = draws.pivot(index="draw", columns="prompt_id", values="F")[finite["prompt_id"]].mean(axis=1)
    assert row["p_perm"] == pytest.approx((1 + np.sum(per_draw >= finite["F"].mean())) / 100)
    ordered = np.sort(per_draw.to_numpy())  # the draws at the 2.5% and 97.5% points of 99, no interpolation
    assert (row["F_null_lo"], row["F_null_hi"]) == pytest.approx((ordered[2], ordered[96]))
    excess = finite["F"] - finite["F_null_mean"]
    assert row["F_excess"] == pytest.approx(excess.mean())
    low, high = excess.mean() + np.array([-1, 1]) * pytest.importorskip("scipy.stats").t.ppf(0.975, 11) * excess.sem()
    assert (row["F_excess_lo"], row["F_excess_hi"]) == pytest.approx((low, high))
