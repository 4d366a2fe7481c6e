"""Every FairPair draw is keyed by names: adding a model, or shuffling the rows, moves no other model's number.

docs/methods.md §2.5. The workflow's score step (per model: B, V, F and the permutation
null, whose streams are keyed by prompt id) and summary step (the bootstrap over prompts,
keyed by model and dissimilarity) run on models B and C, then on a model A (sorting first)
added and every file's rows shuffled; every number of B and C must be byte-identical.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from pandas.testing import assert_frame_equal

from biasflow.fairpair.comparisons import ComparisonSettings
from biasflow.fairpair.scores import BootstrapSettings, ScoreSettings
from biasflow.fairpair.steps import score, summary
from unrendered_figures import unrendered

WORDS = ["good", "bad", "kind", "rude", "calm", "loud", "happy", "sad", "the", "a", "doctor", "nurse", "was", "is"]
SETTINGS = ScoreSettings.defaults(dissimilarities=["jaccard", "sentiment"], folds=None, null_draws=30, seed=2)
SUMMARY = BootstrapSettings.defaults(bootstrap=40, seed=2)


def sides(model: str, prompts: int = 6, samples: int = 4) -> pd.DataFrame:
    """One model's two sides of every prompt: short random sentences, drawn from the model's own stream."""
    rng = np.random.default_rng(ord(model))
    rows = [
        (f"p{p}", side, s, " ".join(rng.choice(WORDS, 5)))
        for p in range(prompts)
        for side in ("perturbed_original", "counterfactual")
        for s in range(samples)
    ]
    return pd.DataFrame(rows, columns=["prompt_id", "side", "sample", "text"])


def run(tmp_path, models: list[str], shuffle: bool) -> dict[str, pd.DataFrame]:
    """Per-prompt scores and null draws (score step per model) and the summary, of B and C, sorted."""
    tmp_path.mkdir()
    paths = {kind: {} for kind in ("scores", "null", "rejections")}
    for model in models:
        table = sides(model)
        if shuffle:
            table = table.sample(frac=1, random_state=len(models))
        table.to_parquet(tmp_path / f"{model}_pairs.parquet")
        for kind in paths:
            paths[kind][model] = str(tmp_path / f"{model}_{kind}.parquet")
        pd.DataFrame({"n": [1], "n_accepted": [1]}).to_parquet(paths["rejections"][model])
        score(
            pairs_path=str(tmp_path / f"{model}_pairs.parquet"),
            model=model,
            settings=SETTINGS,
            outputs={
                "scores": paths["scores"][model],
                "null": paths["null"][model],
                "ngrams": str(tmp_path / f"{model}_ngrams.csv"),
                "ngrams_plot": str(tmp_path / f"{model}_ngrams.png"),
            },
        )
    summary(
        score_paths=paths["scores"],
        null_paths=paths["null"],
        rejection_paths=paths["rejections"],
        settings=SUMMARY,
        comparison=ComparisonSettings(null_draws=30, seed=2),
        outputs={
            "summary": str(tmp_path / "summary.csv"),
            "comparisons": str(tmp_path / "comparisons.csv"),
            "comparisons_plot": str(tmp_path / "comparisons.png"),
            "plot": str(tmp_path / "summary.png"),
            "variance": str(tmp_path / "variance.csv"),
            "variance_plot": str(tmp_path / "variance.png"),
            "rejections": str(tmp_path / "rejections.csv"),
            "tables_page": str(tmp_path / "tables.html"),
        },
    )
    # The adjusted p-values correct over every pair of the table, which pools the models by definition.
    compared = pd.read_csv(tmp_path / "comparisons.csv").drop(columns=["p_holm", "p_bh"])
    tables = {
        "summary": pd.read_csv(tmp_path / "summary.csv"),
        "variance": pd.read_csv(tmp_path / "variance.csv"),
        "comparisons": compared[(compared["model_a"] == "B") & (compared["model_b"] == "C")].assign(model="B"),
    }
    for kind in ("scores", "null"):
        tables[kind] = pd.concat([pd.read_parquet(paths[kind][model]).assign(model=model) for model in ("B", "C")])
    keys = {
        "summary": ["model", "dissimilarity"],
        "variance": ["model", "dissimilarity"],
        "comparisons": ["dissimilarity"],
        "scores": ["model", "prompt_id", "dissimilarity"],
        "null": ["model", "prompt_id", "dissimilarity", "draw"],
    }
    return {
        name: table[table["model"].isin(["B", "C"])].sort_values(keys[name]).reset_index(drop=True)
        for name, table in tables.items()
    }


def test_adding_a_model_and_shuffling_rows_moves_no_number_of_the_others(tmp_path, monkeypatch):
    unrendered(monkeypatch)
    alone = run(tmp_path / "bc", ["B", "C"], shuffle=False)
    added = run(tmp_path / "abc", ["C", "A", "B"], shuffle=True)
    assert alone["summary"][["R_excess_lo", "F_excess_lo", "p_perm"]].notna().all().all(), "the draws are made"
    for name, table in alone.items():
        assert_frame_equal(added[name], table, check_exact=True, obj=name)
