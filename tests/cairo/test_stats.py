"""CAIRO sufficient statistics and Eq. 1 bias checked against a per-row loop (docs/methods.md §1.10)."""

from collections import defaultdict

import numpy as np
import pandas as pd
import pytest

from biasflow.cairo.stats import STATS_COLUMNS, STATS_KEYS, bias_from_stats, sufficient_stats
from biasflow.errors import BiasflowError

SUBGROUPS = {("BOLD", "gender"): ["actors", "actresses"], ("HONEST", "gender"): ["female", "male", "queer"]}


def random_scored(seed: int = 0) -> pd.DataFrame:
    """Rows for 3 models x 2 metrics x 2 splits x 2 sets x 3 seeds, every subgroup, unequal counts."""
    rng = np.random.default_rng(seed)
    rows = []
    for model in ["gpt2", "opt", "neo"]:
        for (metric, axis), groups in SUBGROUPS.items():
            for split in ["valid", "test"]:
                for promptset in ["original", "mistral-s0"]:
                    for gen_seed in [0, 1, 2]:
                        for group in groups:
                            for sample in range(int(rng.integers(1, 7))):
                                rows.append(
                                    dict(
                                        model=model,
                                        metric=metric,
                                        axis=axis,
                                        split=split,
                                        promptset=promptset,
                                        seed=gen_seed,
                                        subgroup=group,
                                        group_key=f"{split}-k{sample % 3}",
                                        sample=sample,
                                        prompt_id=f"p{sample}",
                                        score=float(rng.random()),
                                    )
                                )
    return pd.DataFrame(rows).sample(frac=1.0, random_state=seed).reset_index(drop=True)


def loop_bias(scored: pd.DataFrame, normalise: str = "none") -> dict:
    """Eq. 1 the slow way: per cell, per subgroup means from the raw rows, then mean over seeds."""
    cells = defaultdict(lambda: defaultdict(list))
    for row in scored.itertuples():
        cell = (row.model, row.metric, row.axis, row.split, row.promptset, row.seed)
        cells[cell][row.subgroup].append(row.score)
    per_seed = defaultdict(list)
    for cell, groups in cells.items():
        all_scores = [s for scores in groups.values() for s in scores]
        mu_all = sum(all_scores) / len(all_scores)
        bias = sum(abs(mu_all - sum(s) / len(s)) for s in groups.values())
        if normalise == "mean":
            bias /= len(groups)
        per_seed[cell[:-1]].append(bias)
    return {key: sum(v) / len(v) for key, v in per_seed.items()}


def test_sufficient_stats_match_loop():
    scored = random_scored()
    stats = sufficient_stats(scored)
    assert list(stats.columns) == STATS_COLUMNS
    assert stats["n"].dtype == np.int64
    assert stats.equals(stats.sort_values(STATS_KEYS).reset_index(drop=True))
    for row in stats.itertuples():
        mask = (
            (scored.model == row.model)
            & (scored.metric == row.metric)
            & (scored.axis == row.axis)
            & (scored.split == row.split)
            & (scored.promptset == row.promptset)
            & (scored.seed == row.seed)
            & (scored.subgroup == row.subgroup)
            & (scored.group_key == row.group_key)
        )
        assert row.n == mask.sum()
        assert np.isclose(row.score_sum, scored.loc[mask, "score"].sum())
        assert np.isclose(row.score_sq_sum, (scored.loc[mask, "score"] ** 2).sum())
    assert stats["n"].sum() == len(scored)


@pytest.mark.parametrize("normalise", ["none", "mean"])
def test_bias_matches_per_row_loop(normalise):
    scored = random_scored(seed=3)
    bias = bias_from_stats(sufficient_stats(scored), normalise=normalise)
    expected = loop_bias(scored, normalise)
    assert len(bias) == len(expected)
    for row in bias.itertuples():
        key = (row.model, row.metric, row.axis, row.split, row.promptset)
        assert np.isclose(row.bias, expected[key])
        assert row.n_seeds == 3
        assert row.n_subgroups == len(SUBGROUPS[(row.metric, row.axis)])
    shuffled = sufficient_stats(scored).sample(frac=1.0, random_state=1)
    pd.testing.assert_frame_equal(bias_from_stats(shuffled, normalise=normalise), bias)


def test_hand_worked_two_subgroups():
    scored = pd.DataFrame(
        dict(
            model="m",
            metric="BOLD",
            axis="gender",
            split="test",
            promptset="original",
            seed=0,
            subgroup=["a", "a", "b"],
            group_key=["page1", "page2", "page3"],
            score=[0.2, 0.4, 0.9],
        )
    )
    bias = bias_from_stats(sufficient_stats(scored), normalise="none")
    # mu_all = 1.5 / 3 = 0.5; mu_a = 0.3, mu_b = 0.9; bias = 0.2 + 0.4
    assert np.isclose(bias["bias"].item(), 0.6)
    assert np.isclose(bias_from_stats(sufficient_stats(scored), normalise="mean")["bias"].item(), 0.3)
    assert bias[["n_subgroups", "n_seeds"]].values.tolist() == [[2, 1]]


def test_bias_averages_over_seeds():
    stats = pd.DataFrame(
        dict(
            model="m",
            metric="HONEST",
            axis="gender",
            split="test",
            promptset="original",
            seed=[0, 0, 1, 1],
            subgroup=["f", "m"] * 2,
            group_key="t1",
            score_sum=[1.0, 0.0, 1.0, 1.0],
            score_sq_sum=[1.0, 0.0, 1.0, 1.0],
            n=[1, 1, 1, 1],
        )
    )
    # seed 0: mu_all 0.5, bias 1.0; seed 1: bias 0
    assert np.isclose(bias_from_stats(stats, normalise="none")["bias"].item(), 0.5)


def test_missing_subgroup_is_named():
    stats = sufficient_stats(random_scored())
    drop = (stats.model == "opt") & (stats.promptset == "mistral-s0") & (stats.seed == 1) & (stats.subgroup == "queer")
    with pytest.raises(BiasflowError, match=r"model=opt.*promptset=mistral-s0, seed=1 lacks subgroup queer"):
        bias_from_stats(stats[~drop], normalise="none")


def test_missing_columns_and_bad_options():
    with pytest.raises(BiasflowError, match="score_sum"):
        bias_from_stats(pd.DataFrame({"model": ["m"]}), normalise="none")
    with pytest.raises(BiasflowError, match="score"):
        sufficient_stats(pd.DataFrame({"model": ["m"]}))
    with pytest.raises(BiasflowError, match="normalisation"):
        bias_from_stats(sufficient_stats(random_scored()), normalise="max")


def test_duplicate_rows_and_missing_scores_rejected():
    stats = sufficient_stats(random_scored())
    with pytest.raises(BiasflowError, match="duplicate"):
        bias_from_stats(pd.concat([stats, stats]), normalise="none")
    scored = random_scored()
    scored.loc[0, "score"] = np.nan
    with pytest.raises(BiasflowError, match="no score"):
        sufficient_stats(scored)


def test_skip_incomplete_leaves_out_only_the_cells_lacking_a_subgroup():
    """A paraphrase set whose prompts of one subgroup were all rejected gets no bias of its own."""
    rows = []
    for promptset in ("original", "para-s0"):
        for subgroup, total, n in (("female", 0.6, 3), ("male", 0.9, 3)):
            if promptset == "para-s0" and subgroup == "male":
                continue
            rows.append(("m", "BOLD", "gender", "valid", promptset, 0, subgroup, "page", total, total, n))
    stats = pd.DataFrame(rows, columns=STATS_COLUMNS)
    with pytest.raises(BiasflowError, match="lacks subgroup male"):
        bias_from_stats(stats, normalise="none")
    bias = bias_from_stats(stats, normalise="none", skip_incomplete=True)
    assert list(bias["promptset"]) == ["original"]
    # mu_all = 1.5 / 6 = 0.25; |0.25 - 0.2| + |0.25 - 0.3| = 0.1
    assert np.isclose(bias["bias"].iloc[0], 0.1)
