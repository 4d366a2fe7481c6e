"""FairPair's permutation null (docs/methods.md §2.5): the same draws recomputed the slow way, every split
enumerated, zeros and ties, streams keyed by name, and the headline's calibration by simulation."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd
import pytest

from biasflow.fairpair import scores as fairpair
from biasflow.fairpair.null import TIE_TOLERANCE, prompt_stream, random_splits
from biasflow.fairpair.steps import with_vader
from biasflow.hashing import stable_hash
from biasflow.schema import choices

WORDS = ["good", "kind", "work", "hard", "late", "nurse", "doctor", "day", "bad", "sad", "happy", "calm"]
QUICK = fairpair.BootstrapSettings(bootstrap=0, seed=0)


def sides(rng: np.random.Generator, prompt: str, n: int, shift: int = 0) -> pd.DataFrame:
    """n samples per side, 4 words each; ``shift`` > 0 draws the counterfactual side from other words (bias)."""
    rows = []
    for side in fairpair.SIDES:
        vocabulary = WORDS[shift:] if side == "counterfactual" and shift else WORDS[: len(WORDS) - shift]
        rows += [(prompt, side, s, " ".join(rng.choice(vocabulary, 4))) for s in range(n)]
    return pd.DataFrame(rows, columns=fairpair.SIDE_COLUMNS)


def scored(values: dict) -> pd.DataFrame:
    """Continuation rows with given VADER scores: {prompt: (first side's scores, second side's)}."""
    rows = [
        (prompt, side, s, "", score)
        for prompt, pair in values.items()
        for side, scores in zip(fairpair.SIDES, pair, strict=True)
        for s, score in enumerate(scores)
    ]
    return pd.DataFrame(rows, columns=[*fairpair.SIDE_COLUMNS, fairpair.SENTIMENT_COLUMN])


def slow_F(first: list[float], second: list[float]) -> float:
    """B² / (V_pg · V_gp) by double loops over the sentiment scores (§2.3); inf or NaN where a V is 0."""
    n = len(first)
    B = sum(abs(a - b) for a in first for b in second) / n**2
    V = [sum(abs(x[i] - x[j]) for i in range(n) for j in range(n) if i != j) / (n * (n - 1)) for x in (first, second)]
    if V[0] * V[1] == 0:
        return math.inf if B > 0 else math.nan
    return B**2 / (V[0] * V[1])


def slow_R(F: float) -> float:
    return 1.0 if math.inf == F else F / (1 + F)


def test_null_draws_equal_rescoring_each_resplit_the_slow_way():
    """Each draw's sides rebuilt as rows and scored by fairpair_scores: same F per draw, null means, spread and p."""
    rng = np.random.default_rng(0)
    table = with_vader(
        pd.concat([sides(rng, "p0", 5), sides(rng, "p1", 5)], ignore_index=True), choices("fairpair.dissimilarities")
    )
    draws, seed = 15, 4
    scores, null = fairpair.scores_and_null(table, choices("fairpair.dissimilarities"), None, draws, seed)
    for prompt in ["p0", "p1"]:
        rows = table[table["prompt_id"] == prompt].sort_values(["side", "sample"])
        pooled = pd.concat([rows[rows["side"] == side] for side in fairpair.SIDES], ignore_index=True)
        key = int(stable_hash("fairpair-null", prompt), 16) & (2**63 - 1)  # the prompt's name, not its position
        splits = random_splits(np.random.default_rng([seed, key]), 5, draws)
        for name in choices("fairpair.dissimilarities"):
            slow = []
            for split in splits:
                resplit = pd.concat(
                    [pooled[split].assign(side=fairpair.SIDES[0]), pooled[~split].assign(side=fairpair.SIDES[1])]
                )
                resplit["sample"] = resplit.groupby("side").cumcount()
                slow.append(fairpair.fairpair_scores(resplit, [name], None)["F"].iloc[0])
            fast = null[(null["prompt_id"] == prompt) & (null["dissimilarity"] == name)].sort_values("draw")
            assert fast["F"].to_numpy() == pytest.approx(np.array(slow), rel=1e-12, nan_ok=True)
            row = scores[(scores["prompt_id"] == prompt) & (scores["dissimilarity"] == name)].iloc[0]
            finite = [f for f in slow if math.isfinite(f)]
            R_draws = [slow_R(f) for f in slow]
            assert row["F_null_mean"] == pytest.approx(sum(finite) / len(finite))
            assert row["R"] == pytest.approx(slow_R(row["F"]))
            assert row["R_null_mean"] == pytest.approx(sum(R_draws) / draws)
            assert row["R_null_sd"] == pytest.approx(np.std([*R_draws, row["R"]]))
            reached = sum(r >= row["R"] * (1 - TIE_TOLERANCE) for r in R_draws)
            assert row["p_perm"] == pytest.approx((1 + reached) / (1 + draws))


def test_the_null_averages_over_the_explicit_splits():
    """With 3 samples per side there are 20 splits; 4000 draws' mean R lies within 4 standard errors of their mean."""
    first, second = [0.1, 0.0, 0.7], [0.0, 0.4, 0.0]
    scores, _ = fairpair.scores_and_null(scored({"p": (first, second)}), ["sentiment"], None, 4000, 1)
    pooled = first + second
    every = []
    for chosen in itertools.combinations(range(6), 3):
        rest = [i for i in range(6) if i not in chosen]
        every.append(slow_R(slow_F([pooled[i] for i in chosen], [pooled[i] for i in rest])))
    row = scores.iloc[0]
    assert row["R_null_mean"] == pytest.approx(np.mean(every), abs=4 * np.std(every) / math.sqrt(4000))
    assert row["R"] == pytest.approx(every[0]), "the observed split is the first of the enumeration"


def test_no_f_is_negative_with_exact_zeros_and_ties():
    """Neutral texts (VADER 0) and repeated scores: a side whose scores are all alike has F = inf, never huge or < 0."""
    values = {
        "zeros": ([0.0, 0.0, 0.0, 0.0, 0.5], [0.0, 0.0, 0.5, 0.5, 0.0]),
        "ties": ([0.3, 0.3, 0.3, -0.2, -0.2], [0.3, 0.3, 0.3, 0.3, 0.3]),
        "thirds": ([0.1, 0.2, 0.3, 0.0, 0.0], [0.1 + 0.2, 0.3, 0.0, 0.0, 0.0]),
    }
    draws, seed = 300, 2
    scores, null = fairpair.scores_and_null(scored(values), ["sentiment"], None, draws, seed)
    assert ((null["F"] >= 0) | null["F"].isna()).all()
    assert (scores["F_null_mean"] >= 0).all() and (scores["F_null_mean"] < 100).all()
    for prompt, (first, second) in values.items():
        pooled = first + second
        splits = random_splits(prompt_stream(seed, prompt), 5, draws)
        expected = [
            slow_F([pooled[i] for i in np.flatnonzero(s)], [pooled[i] for i in np.flatnonzero(~s)]) for s in splits
        ]
        fast = null[null["prompt_id"] == prompt].sort_values("draw")["F"].to_numpy()
        assert fast == pytest.approx(np.array(expected), rel=1e-9, nan_ok=True)
        assert np.array_equal(np.isinf(fast), np.isinf(expected)), "a V of exactly 0 stays exactly 0"
    assert math.isinf(scores.set_index("prompt_id").loc["ties", "F"])


def test_identical_texts_give_no_r_and_are_left_out_of_the_headline():
    values = {
        "same": ([0.2] * 4, [0.2] * 4),
        "a": ([0.1, 0.5, 0.0, 0.3], [0.4, 0.0, 0.6, 0.2]),
        "b": ([0.0, 0.0, 0.2, 0.1], [0.3, 0.0, 0.0, 0.5]),
    }
    scores, draws = fairpair.scores_and_null(scored(values), ["sentiment"], None, 99, 0)
    same = scores.set_index("prompt_id").loc["same"]
    assert math.isnan(same["R"]) and math.isnan(same["R_null_mean"]) and math.isnan(same["p_perm"])
    row = fairpair.summarise(scores.assign(model="m"), draws.assign(model="m"), QUICK).iloc[0]
    assert row["n_tested"] == 2


def test_the_headline_against_a_slow_weighted_loop():
    """R_excess, its null band and p_perm recomputed draw by draw with plain loops over prompts."""
    rng = np.random.default_rng(2)
    values = {
        f"p{i}": (list(np.round(rng.normal(0, 0.4, 5), 4)), list(np.round(rng.normal(0.1, 0.4, 5), 4)))
        for i in range(12)
    }
    scores, draws = fairpair.scores_and_null(scored(values), ["sentiment"], None, 99, 0)
    row = fairpair.summarise(scores.assign(model="m"), draws.assign(model="m"), QUICK).iloc[0]
    weight = {r.prompt_id: 1 / r.R_null_sd for r in scores.itertuples()}
    R = {r.prompt_id: r.R for r in scores.itertuples()}
    centre = {r.prompt_id: r.R_null_mean for r in scores.itertuples()}
    total = sum(weight.values())
    observed = sum(weight[p] * R[p] for p in R) / total
    per_draw = []
    for _, part in draws.groupby("draw"):
        per_draw.append(sum(weight[p] * slow_R(f) for p, f in zip(part["prompt_id"], part["F"], strict=True)) / total)
    excess = sum(weight[p] * (R[p] - centre[p]) for p in R) / total
    null_centre = sum(weight[p] * centre[p] for p in R) / total
    ordered = np.sort(np.array(per_draw) - null_centre)  # the 2.5% and 97.5% points of 99 draws, no interpolation
    assert row["R_excess"] == pytest.approx(excess)
    assert (row["R_null_lo"], row["R_null_hi"]) == pytest.approx((ordered[2], ordered[96]))
    assert row["p_perm"] == pytest.approx((1 + sum(d >= observed * (1 - TIE_TOLERANCE) for d in per_draw)) / 100)
    finite = scores[np.isfinite(scores["F"] - scores["F_null_mean"])]
    assert row["F_excess"] == pytest.approx((finite["F"] - finite["F_null_mean"]).mean())
    assert row["F_null_mean"] == pytest.approx(finite["F_null_mean"].mean())
    assert math.isnan(row["R_excess_lo"]), "no bootstrap draws: no interval, not a zero-width one"


def test_p_perm_is_calibrated_under_exchangeable_sides_and_finds_a_shift():
    """400 prompts whose two sides come from one distribution: p_perm < 0.05 for 3-7% of them."""
    rng = np.random.default_rng(1)
    null_table = pd.concat([sides(rng, f"p{i}", 6) for i in range(400)], ignore_index=True)
    scores, _ = fairpair.scores_and_null(null_table, ["jaccard"], None, 199, 0)
    assert 0.03 <= np.mean(scores["p_perm"] < 0.05) <= 0.07
    biased = pd.concat([sides(rng, f"q{i}", 6, shift=6) for i in range(40)], ignore_index=True)
    scores, _ = fairpair.scores_and_null(biased, ["jaccard"], None, 199, 0)
    assert np.mean(scores["p_perm"] < 0.05) >= 0.8


def simulated(
    rng: np.random.Generator, prompts: int, shift: float = 0.0, zeros: float = 0.0, cut: float = 0.0, prefix: str = ""
) -> pd.DataFrame:
    """VADER-like scores, 5 per side: a prompt level, a side shift, noise; zeros at random or below ``cut``."""
    level = rng.normal(0, 0.3, (prompts, 1, 1))
    latent = np.round(
        np.clip(level + np.array([0, shift])[None, :, None] + rng.normal(0, 0.4, (prompts, 2, 5)), -1, 1), 4
    )
    latent = np.where((rng.random(latent.shape) < zeros) | (np.abs(latent) < cut), 0.0, latent)
    p, side, sample = (a.ravel() for a in np.meshgrid(range(prompts), range(2), range(5), indexing="ij"))
    return pd.DataFrame(
        {
            "prompt_id": [f"{prefix}p{i}" for i in p],
            "side": np.array(fairpair.SIDES)[side],
            "sample": sample,
            "text": "",
            fairpair.SENTIMENT_COLUMN: latent.ravel(),
        }
    )


def headline_p(rng: np.random.Generator, models: int, **design) -> np.ndarray:
    """The headline p_perm of ``models`` simulated models of 12 prompts, scored and summarised in one call each."""
    table = pd.concat([simulated(rng, 12, prefix=f"m{j:03d}/", **design) for j in range(models)], ignore_index=True)
    scores, draws = fairpair.scores_and_null(table, ["sentiment"], None, 99, int(rng.integers(2**31)))
    model = {prompt: prompt.split("/")[0] for prompt in scores["prompt_id"]}
    summary = fairpair.summarise(
        scores.assign(model=scores["prompt_id"].map(model)), draws.assign(model=draws["prompt_id"].map(model)), QUICK
    )
    return summary["p_perm"].to_numpy()


def test_headline_with_half_the_scores_zero_and_no_bias_rejects_2_to_8_percent_of_models():
    """Before, a prompt with an infinite F in a draw made that draw's mean infinite, and p never fell below 0.4."""
    p = headline_p(np.random.default_rng(11), 300, zeros=0.5)
    assert 0.02 <= np.mean(p <= 0.05) <= 0.08


def test_power_with_35_percent_zeros_is_within_10_points_of_none():
    """A side shift of 0.4 at 12 prompts: zeros where the sentiment is weak (|latent| < 0.227, 35% with no bias)."""
    rng = np.random.default_rng(12)
    plain = np.mean(headline_p(rng, 150, shift=0.4) <= 0.05)
    zeros = np.mean(headline_p(rng, 150, shift=0.4, cut=0.227) <= 0.05)
    assert 0.5 <= plain <= 0.95, "a shift the test neither misses nor always finds"
    assert plain - zeros <= 0.10, (plain, zeros)


def test_adding_prompts_or_models_and_shuffling_rows_changes_no_other_number():
    """Every stream is keyed by names: other prompts' draws and other models' intervals stay byte-identical."""
    rng = np.random.default_rng(3)
    base = simulated(rng, 6)
    extra = simulated(np.random.default_rng(4), 7).query("prompt_id == 'p6'")
    settings = fairpair.BootstrapSettings(bootstrap=200, seed=5)
    scores, draws = fairpair.scores_and_null(base, ["sentiment"], None, 50, 9)
    more_scores, more_draws = fairpair.scores_and_null(pd.concat([extra, base]), ["sentiment"], None, 50, 9)
    pd.testing.assert_frame_equal(
        more_scores[more_scores["prompt_id"] != "p6"].reset_index(drop=True), scores, check_exact=True
    )
    pd.testing.assert_frame_equal(
        more_draws[more_draws["prompt_id"] != "p6"].reset_index(drop=True), draws, check_exact=True
    )
    shuffled = base.sample(frac=1, random_state=0)
    again_scores, again_draws = fairpair.scores_and_null(shuffled, ["sentiment"], None, 50, 9)
    pd.testing.assert_frame_equal(again_scores, scores, check_exact=True)
    pd.testing.assert_frame_equal(again_draws, draws, check_exact=True)
    one = fairpair.summarise(scores.assign(model="a"), draws.assign(model="a"), settings)
    both = fairpair.summarise(
        pd.concat([more_scores.assign(model="b"), scores.assign(model="a")]),
        pd.concat([more_draws.assign(model="b"), draws.assign(model="a")]),
        settings,
    )
    pd.testing.assert_frame_equal(both[both["model"] == "a"].reset_index(drop=True), one, check_exact=True)
    reordered = fairpair.summarise(
        scores.assign(model="a").sample(frac=1, random_state=1),
        draws.assign(model="a").sample(frac=1, random_state=2),
        settings,
    )
    pd.testing.assert_frame_equal(reordered, one, check_exact=True)
