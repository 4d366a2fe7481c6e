"""The workflow with counterfactual rescoring, neutral scores and two scorers, on tiny local models.

Tiny models write random words, so the scored text is the prompt and continuation
(``score_text: prompt+continuation``): the prompts name their subgroup, and every score has a
neutral variant to compare with.
"""

from __future__ import annotations

import copy
import itertools
import shutil

import pandas as pd
import pytest

from biasflow.cairo.headline import HEADLINE_COLUMNS
from biasflow.cairo.scorer_bias import MODELS_COLUMNS
from workflow_helpers import planned_jobs, snakemake, write_config

pytestmark = pytest.mark.workflow

LABELS = ["profanity", "profanity-neutral", "vader", "vader-neutral"]


@pytest.fixture(scope="module")
def run(finished_workflow, tmp_path_factory):
    """A copy of the finished tiny run (tests/conftest.py) rescored: prompt sets and continuations from its cache."""
    source, finished = finished_workflow
    workdir = tmp_path_factory.mktemp("scorer_bias_run") / "run"
    shutil.copytree(source, workdir, symlinks=True)
    config = copy.deepcopy(finished)
    config["methods"] = ["cairo"]
    config["cairo"]["scoring"] = {
        "scorer": "profanity",
        "scorers": ["vader"],
        "neutralise": True,
        "score_text": "prompt+continuation",
    }
    config["cairo"]["selection"].update(bootstrap=50, null_draws=20, permutations=20)
    write_config(config, workdir)
    snakemake(workdir)
    return workdir, config


def test_every_scorer_gets_its_scorer_bias_tables_and_figure(run):
    workdir, config = run
    for scorer in ("profanity", "vader"):
        folder = workdir / "results/scorer_bias" / scorer
        own = pd.read_csv(folder / "gender_scorer.csv")
        assert set(own["subgroup"]) == {"female", "male"}
        assert (own["n_contents"] > 0).all()
        assert (folder / "gender_scorer.png").stat().st_size > 0
        models = pd.read_csv(folder / "gender_models.csv")
        assert {(m, x) for m, x in zip(models["model"], models["metric"], strict=True)} == set(
            itertools.product(config["models"], config["cairo"]["axes"]["gender"])
        )
        assert models["mention_share"].between(0, 1).all() and models["mention_share"].max() > 0
        assert list(models.columns) == MODELS_COLUMNS
        # A scorer that rates raw and neutral texts alike (VADER: group words carry no valence) leaves the swap
        # test nothing to move: no p, and a scorer's part of exactly 0 (docs/methods.md §9).
        untested = models["scorer_part_p"].isna()
        assert models.loc[~untested, "scorer_part_p"].between(0, 1).all()
        assert (models.loc[untested, "bias_scorer_part"] == 0).all()


def test_neutral_scores_replace_exactly_the_mentioning_continuations(run):
    workdir, config = run
    for model in config["models"]:
        raw = pd.read_parquet(workdir / f"results/scores/profanity/{model}/HolisticBias/gender.parquet")
        neutral = pd.read_parquet(workdir / f"results/scores/profanity-neutral/{model}/HolisticBias/gender.parquet")
        variants = pd.read_parquet(
            workdir / f"results/scorer_bias/profanity/variants/{model}/HolisticBias/gender.parquet"
        )
        placeholder = variants[variants["variant"] == "neutral"].set_index(["prompt_id", "seed", "sample"])["score"]
        joined = raw.merge(neutral, on=["prompt_id", "seed", "sample"], suffixes=("", "_neutral"))
        assert len(joined) == len(raw) and (joined["scorer_neutral"] == "profanity-neutral").all()
        for row in joined.itertuples(index=False):
            key = (row.prompt_id, row.seed, row.sample)
            assert row.score_neutral == (placeholder[key] if key in placeholder.index else row.score)


def test_the_headline_is_on_neutral_scores_and_each_other_run_sits_beside_it(run):
    workdir, _ = run
    stats = {
        label: pd.read_parquet(
            workdir / f"results/cairo/{'' if label == 'profanity-neutral' else f'scorers/{label}/'}stats/gender.parquet"
        )
        for label in LABELS
    }
    for label, table in stats.items():
        assert table["scorer"].unique().tolist() == [label]
    for label in LABELS:
        run_dir = workdir / "results/cairo" / ("" if label == "profanity-neutral" else f"scorers/{label}")
        assert list(pd.read_csv(run_dir / "gender.csv").columns) == HEADLINE_COLUMNS


def test_scorer_agreement_has_every_pair_of_runs_per_metric_and_split(run):
    workdir, config = run
    table = pd.read_csv(workdir / "results/cairo/scorers/gender_agreement.csv")
    assert len(table) == 6 * len(config["cairo"]["axes"]["gender"]) * 2
    assert {frozenset(p) for p in zip(table["scorer_a"], table["scorer_b"], strict=True)} == {
        frozenset(p) for p in itertools.combinations(LABELS, 2)
    }
    assert table["kendall_tau"].dropna().between(-1, 1).all()
    assert (table["n_models"] == len(config["models"])).all()


def test_scorer_agreement_command_writes_the_workflows_table(run, tmp_path):
    """`biasflow scorer-agreement` on the runs' bias tables, by their labels in the workflow's order (the headline
    run's first, the pairs in that order): the workflow's table, byte for byte."""
    from biasflow.cli import main

    workdir, _ = run
    headline = "profanity-neutral"
    tables = [
        f"{label}={workdir / 'results/cairo' / ('' if label == headline else f'scorers/{label}')}/gender.csv"
        for label in [headline, *(label for label in LABELS if label != headline)]
    ]
    assert main(["scorer-agreement", "--bias", *tables, "--out", str(tmp_path / "agreement.csv")]) == 0
    assert (tmp_path / "agreement.csv").read_bytes() == (
        workdir / "results/cairo/scorers/gender_agreement.csv"
    ).read_bytes()


def test_a_rerun_computes_nothing(run):
    workdir, _ = run
    assert planned_jobs(workdir) == {}
