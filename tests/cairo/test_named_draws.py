"""Every CAIRO draw is keyed by names: adding a model, or shuffling the rows, moves no other model's number.

docs/methods.md §1.11-1.13, §5.5. ``biasflow cairo-stats`` then ``biasflow cairo-select``, and
``biasflow scorer-bias``, run on models B, C and D, then on a model A (sorting first) added and
every file's rows shuffled; every number of B, C and D must be byte-identical. What is taken
across models by definition is left out: r and everything of the selection curve, the ranks
and their intervals, the comparisons' p-values adjusted over every pair, Kendall's W, and the
scorer's C_g (pooled over every model's contents).
Which combination the headline's CAIRO rows pool is chosen by r across the models too; the
data is drawn so that both runs choose the same, and so those rows are compared.
"""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
from pandas.testing import assert_frame_equal

from biasflow.cairo.outputs import in_folder
from biasflow.cairo.stats import STATS_KEYS
from biasflow.cli import main
from unrendered_figures import unrendered

KEPT = ["B", "C", "D"]
SUBGROUPS = ["female", "male"]
# Columns of the headline table that pool the models: a model's rank among them, and its interval.
RANKS = ["rank", "rank_lo", "rank_hi"]
# Columns of the comparisons adjusted over every pair of models: a family with one model more is another family.
ADJUSTED = ["p_holm", "p_bh"]


def prompts() -> pd.DataFrame:
    """BOLD nested (pages of one subgroup) and HONEST crossed (templates filled for every subgroup), 2 prompt sets."""
    rows = []
    for metric, split, promptset, key, subgroup, i in itertools.product(
        ["BOLD", "HONEST"], ["valid", "test"], ["original", "para-s0"], range(3), SUBGROUPS, range(2)
    ):
        group_key = f"{split}-page{key}-{subgroup}" if metric == "BOLD" else f"{split}-template{key}"
        prompt_id = f"{metric}-{group_key}-{subgroup}-{promptset}-{i}"
        rows.append(
            {
                "prompt_id": prompt_id,
                "metric": metric,
                "axis": "gender",
                "subgroup": subgroup,
                "split": split,
                "group_key": group_key,
                "promptset": promptset,
                "source_id": prompt_id,
                "text": "a prompt",
                "identity_term": subgroup,
            }
        )
    return pd.DataFrame(rows)


def model_rows(model: str) -> tuple[pd.DataFrame, pd.DataFrame]:
    """One model's continuations (2 seeds x 2 samples per prompt) and their scores, from the model's own stream.

    With these streams both runs choose k = 2 (on the data, as r across the models does), so
    the CAIRO rows are compared too.
    """
    rng = np.random.default_rng([0, ord(model)])
    continuations = (
        prompts()
        .merge(pd.DataFrame(itertools.product([0, 1], [0, 1]), columns=["seed", "sample"]), how="cross")
        .assign(model=model, continuation="text")
    )
    scores = continuations[["prompt_id", "model", "seed", "sample"]].assign(
        scorer="profanity", score=rng.beta(1, 4, len(continuations))
    )
    return continuations, scores


def run(tmp_path, models: list[str], shuffle: bool) -> dict[str, pd.DataFrame]:
    """cairo-stats and cairo-select on the models' files (rows shuffled with ``shuffle``): their tables."""
    tmp_path.mkdir()
    files = {"continuations": [], "scores": []}
    for model in models:
        for name, table in zip(files, model_rows(model), strict=True):
            if shuffle:
                table = table.sample(frac=1, random_state=len(models))
            files[name].append(str(tmp_path / f"{model}_{name}.parquet"))
            table.to_parquet(files[name][-1])
    assert (
        main(
            [
                "cairo-stats",
                "--continuations",
                *files["continuations"],
                "--scores",
                *files["scores"],
                "--scorer",
                "profanity",
                "--out-dir",
                str(tmp_path),
            ]
        )
        == 0
    )
    computed, selected = in_folder(tmp_path, "stats", "gender"), in_folder(tmp_path / "select", "select", "gender")
    stats = pd.read_parquet(computed["stats"])
    if shuffle:
        stats.sample(frac=1, random_state=1).to_parquet(computed["stats"])
    assert (
        main(
            [
                "cairo-select",
                "--stats",
                computed["stats"],
                "--out-dir",
                str(tmp_path / "select"),
                "--max-sets",
                "2",
                "--permutations",
                "20",
                "--bootstrap",
                "30",
                "--null-draws",
                "10",
                "--seed",
                "3",
            ]
        )
        == 0
    )
    return {
        "stats": stats.sort_values(STATS_KEYS),
        "bias": pd.read_csv(computed["bias"]),
        "headline": pd.read_csv(selected["table"]),
        "comparisons": pd.read_csv(selected["comparisons"]),
    }


def kept(table: pd.DataFrame, keys: list[str]) -> pd.DataFrame:
    return table[table["model"].isin(KEPT)].sort_values(keys).reset_index(drop=True)


def test_adding_a_model_and_shuffling_rows_moves_no_number_of_the_others(tmp_path, monkeypatch):
    unrendered(monkeypatch)  # the numbers are compared, not the figures
    alone = run(tmp_path / "bcd", KEPT, shuffle=False)
    added = run(tmp_path / "abcd", ["C", "A", "D", "B"], shuffle=True)
    assert_frame_equal(kept(added["stats"], STATS_KEYS), kept(alone["stats"], STATS_KEYS), check_exact=True)
    keys = ["model", "metric", "axis", "split", "promptset"]
    assert_frame_equal(kept(added["bias"], keys), kept(alone["bias"], keys), check_exact=True)
    keys = ["pair", "metric", "split", "prompts", "model"]
    headline = [kept(tables["headline"], keys).drop(columns=RANKS) for tables in (alone, added)]
    assert headline[0][["bias_lo", "excess_bias_lo", "excess_p"]].notna().all().all(), "the draws are made"
    assert (headline[0]["k"] == 2).all(), "the CAIRO rows pool a paraphrase set"
    assert_frame_equal(headline[1], headline[0], check_exact=True)
    keys = ["pair", "metric", "split", "prompts", "model_a", "model_b"]
    pairs = [tables["comparisons"] for tables in (alone, added)]
    pairs = [
        t[t["model_a"].isin(KEPT) & t["model_b"].isin(KEPT)]
        .sort_values(keys)
        .reset_index(drop=True)
        .drop(columns=ADJUSTED)
        for t in pairs
    ]
    assert len(pairs[0]) and pairs[0][["difference_lo", "p"]].notna().all().all(), "the pairs' draws are made"
    assert_frame_equal(pairs[1], pairs[0], check_exact=True)


def scorer_rows(model: str) -> pd.DataFrame:
    """One model's continuations on religion, some naming their subgroup, one prompt per (subgroup, template)."""
    rng = np.random.default_rng(ord(model))
    templates = [
        "My {adj} neighbour is kind.",
        "The {adj} family cooks damn good food.",
        "{adj} people are fun.",
        "Nothing about the weather.",
        "I met a {adj} doctor today.",
    ]
    words = {"christian": "Christian", "hindu": "Hindu", "muslim": "Muslim"}
    rows = [
        {
            "model": model,
            "subgroup": group,
            "prompt_id": f"{group}-{t}",
            "group_key": f"template-{t}",
            "seed": 0,
            "sample": sample,
            "continuation": template.format(adj=word) + (" Damn." if rng.random() < 0.4 else ""),
        }
        for group, word in words.items()
        for t, template in enumerate(templates)
        for sample in range(3)
    ]
    return pd.DataFrame(rows)


def scorer_run(tmp_path, models: list[str], shuffle: bool) -> dict[str, pd.DataFrame]:
    """``biasflow scorer-bias`` on the models' continuations: C_g, and each model's Eq. 1 on raw and neutral scores."""
    tmp_path.mkdir()
    table = pd.concat([scorer_rows(model) for model in models], ignore_index=True)
    if shuffle:
        table = table.sample(frac=1, random_state=len(models))
    table.to_parquet(tmp_path / "c.parquet")
    assert (
        main(
            [
                "scorer-bias",
                "--continuations",
                str(tmp_path / "c.parquet"),
                "--scorer",
                "profanity",
                "--axis",
                "religion",
                "--bootstrap",
                "40",
                "--seed",
                "3",
                "--out-dir",
                str(tmp_path / "out"),
            ]
        )
        == 0
    )
    return {
        "scorer": pd.read_csv(tmp_path / "out" / "religion_scorer.csv"),
        "models": kept(pd.read_csv(tmp_path / "out" / "religion_models.csv"), ["model", "metric"]),
    }


def test_the_scorers_bias_moves_with_no_row_order_and_each_models_part_with_no_other_model(tmp_path, monkeypatch):
    unrendered(monkeypatch)  # the numbers are compared, not the figures
    alone = scorer_run(tmp_path / "bcd", KEPT, shuffle=False)
    shuffled = scorer_run(tmp_path / "dbc", ["D", "B", "C"], shuffle=True)
    added = scorer_run(tmp_path / "abcd", ["C", "A", "D", "B"], shuffle=True)
    assert alone["scorer"]["scorer_bias_lo"].notna().all(), "C_g's draws are made"
    assert alone["models"][["bias_lo", "bias_scorer_part_lo", "scorer_part_p"]].notna().all().all(), "and the models'"
    assert_frame_equal(shuffled["scorer"], alone["scorer"], check_exact=True)
    assert_frame_equal(shuffled["models"], alone["models"], check_exact=True)
    assert_frame_equal(added["models"], alone["models"], check_exact=True)
