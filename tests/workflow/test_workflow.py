"""End-to-end runs of the Snakemake workflow on tiny local models (``make test-workflow``).

One run builds everything for the gender axis (``finished_workflow``, tests/conftest.py, built
once per pytest run); the tests here work on a copy of it: they read its outputs, rerun parts
of it and change the config the way a user would (adding a model, a paraphrase seed).
The tests run in file order: the incremental ones come last because they change the run.
"""

from __future__ import annotations

import copy
import json
import os
import re
import shutil
from collections import defaultdict
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from biasflow.cairo.comparisons import COMPARISON_COLUMNS
from biasflow.cairo.headline import HEADLINE_COLUMNS
from biasflow.cairo.selection import CURVE_COLUMNS
from biasflow.cairo.stats import STATS_COLUMNS
from biasflow.fairpair.variance import FAIRPAIR_VARIANCE_COLUMNS
from biasflow.fpr.variance import FPR_VARIANCE_COLUMNS
from biasflow.power import POWER_COLUMNS
from biasflow.tables import PROMPT_COLUMNS
from forked_snakemake import workflow
from workflow_helpers import REPO, planned_jobs, snakemake, tiny_config, write_config

pytestmark = pytest.mark.workflow

TARGET = "results/cairo/stats/gender.parquet"
MAIN_JOB = "results/cairo/gender.csv"
# The README's command for the report (tests/workflow/test_documented_commands.py).
REPORT = "snakemake --report report.html"


@pytest.fixture(scope="module")
def run(finished_workflow, tmp_path_factory):
    """A copy of the finished tiny run, which the tests below change (its paths are relative to it)."""
    source, config = finished_workflow
    workdir = tmp_path_factory.mktemp("run") / "run"
    shutil.copytree(source, workdir, symlinks=True)
    return workdir, copy.deepcopy(config)


def test_outputs_have_the_documented_columns(run):
    workdir, config = run
    stats = pd.read_parquet(workdir / TARGET)
    assert list(stats.columns[: len(STATS_COLUMNS)]) == STATS_COLUMNS
    assert set(stats["model"]) == set(config["models"])
    assert set(stats["metric"]) == {"BOLD", "HolisticBias", "HONEST"}
    assert set(stats["subgroup"]) == {"female", "male"}, "unified labels replace native ones"
    assert set(stats["split"]) == {"valid", "test"}
    assert (stats["scorer"] == "profanity").all() and (stats["subgroups"] == "unified").all()
    bias = pd.read_csv(workdir / "results/cairo/bias/gender.csv")
    assert {"model", "metric", "axis", "split", "promptset", "bias"} <= set(bias.columns)
    assert (bias["bias"] >= 0).all()
    summary = pd.read_csv(workdir / "results/prompts/summary.csv")
    assert set(summary["metric"]) == {"BOLD", "HolisticBias", "HONEST"} and set(summary["split"]) == {"valid", "test"}
    assert (summary.groupby(["metric", "subgroup"])["split"].nunique() == 2).all(), "every subgroup in both splits"
    rejections = pd.read_csv(workdir / "results/prompts/rejections.csv")
    assert set(rejections["paraphraser"]) == {"tinychat", "tinycomp"}
    assert (rejections["n_accepted"] + rejections["n_dropped"] == rejections["n_prompts"]).all()
    sets = pd.read_parquet(workdir / "results/prompts/sets/BOLD/gender.parquet")
    assert list(sets.columns) == PROMPT_COLUMNS
    continuations = pd.read_parquet(workdir / "results/continuations/a-t1.0/BOLD/gender.parquet")
    assert len(continuations) == len(sets) * 2 * 2, "prompts x seeds x samples"
    assert (continuations["n_tokens"] <= 6).all()


def test_main_job_writes_every_selection_output(run):
    workdir, config = run
    table = pd.read_csv(workdir / MAIN_JOB)
    assert list(table.columns) == HEADLINE_COLUMNS
    resampled = table["n_clusters"] >= 2
    intervals = ["bias_lo", "bias_hi", "excess_bias_lo", "excess_bias_hi", "rank_lo", "rank_hi"]
    assert table.loc[~resampled, intervals].isna().all().all(), "one cluster: no interval, never a zero-width one"
    kept = table[resampled]
    assert ((kept["bias_lo"] <= kept["bias"]) & (kept["bias"] <= kept["bias_hi"])).all()
    assert (kept["rank_lo"] <= kept["rank_hi"]).all() and table["excess_p"].between(0, 1).all()
    assert set(table.loc[table["metric"] == "BOLD", "design"]) == {"nested"}
    assert set(table.loc[table["metric"] != "BOLD", "design"]) <= {"crossed", "mixed"}
    assert np.allclose(table["excess_bias"], table["bias"] - table["null_floor"])
    assert set(table["pair"]) <= {"BOLD~HolisticBias", "BOLD~HONEST", "HONEST~HolisticBias"}
    assert set(table["prompts"]) == {"original", "cairo"} and set(table["split"]) == {"valid", "test"}
    ranks = table.groupby(["pair", "metric", "split", "prompts"])["rank"].agg(["min", "max"])
    assert (ranks["min"] == 1).all() and (ranks["max"] <= len(config["models"])).all()
    curve = pd.read_csv(workdir / "results/cairo/gender_curve.csv")
    assert list(curve.columns) == CURVE_COLUMNS
    assert (curve["n_models"] == 3).all() and curve["perm_p_floor"].gt(0.05).all(), "3 models: floor about 1/6"
    assert "permutation p-value cannot fall below" in (workdir / "logs/cairo/select_gender.log").read_text()
    assert set(curve["k"]) == {1, 2, 3}
    assert (curve.loc[curve["k"] == 1, "selection"] == "original").all()
    assert curve["perm_p"].dropna().between(1 / 51, 1).all()
    summary = json.loads((workdir / "results/cairo/gender.json").read_text())
    assert {p["pair"] for p in summary["pairs"]} == set(table["pair"])
    assert {
        "r_original",
        "r_selected",
        "r_selected_interval",
        "permutation_p",
        "excess_permutation_p",
        "null_best_r",
        "selection",
    } <= set(summary["pairs"][0])
    for figure in ("gender_curve.png", "gender_bias.png", "gender_paraphrasers.png", "bias/gender.png"):
        assert (workdir / "results/cairo" / figure).read_bytes()[:4] == b"\x89PNG"
    comparisons = pd.read_csv(workdir / "results/cairo/gender_comparisons.csv")
    assert list(comparisons.columns) == COMPARISON_COLUMNS
    keys = ["pair", "metric", "split", "prompts"]
    assert len(comparisons) == len(table.drop_duplicates(keys)) * 3 * 2, "3 pairs of 3 models, 2 measures per cell"
    for measure, column in (("eq1", "bias"), ("excess", "excess_bias")):
        own_value = table.set_index([*keys, "model"])[column]
        rows = comparisons[comparisons["measure"] == measure]
        own = rows.apply(
            lambda r, own_value=own_value: (
                own_value[(r["pair"], r["metric"], r["split"], r["prompts"], r["model_a"])]
                - own_value[(r["pair"], r["metric"], r["split"], r["prompts"], r["model_b"])]
            ),
            axis=1,
        )
        assert np.allclose(rows["difference"], own, equal_nan=True), f"the headline's {column} differenced"
    eq1_p = comparisons.loc[comparisons["measure"] == "eq1", ["p", "p_holm"]]
    assert eq1_p["p"].between(1 / 51, 1).all() and (eq1_p["p_holm"] >= eq1_p["p"]).all()


def test_stats_equal_a_per_row_recomputation(run):
    """Every (model, metric, split, prompt set, seed, subgroup, group key) cell: sum, sum of squares and count."""
    workdir, config = run
    expected = defaultdict(lambda: [0.0, 0.0, 0])
    for model in config["models"]:
        for metric in config["cairo"]["axes"]["gender"]:
            rows = pd.read_parquet(workdir / f"results/continuations/{model}/{metric}/gender.parquet")
            scores = pd.read_parquet(workdir / f"results/scores/profanity/{model}/{metric}/gender.parquet")
            lookup = {(r.prompt_id, r.seed, r.sample): r.score for r in scores.itertuples(index=False)}
            for r in rows.itertuples(index=False):
                cell = expected[(model, metric, r.split, r.promptset, r.seed, r.subgroup, r.group_key)]
                score = lookup[(r.prompt_id, r.seed, r.sample)]
                cell[0] += score
                cell[1] += score**2
                cell[2] += 1
    stats = pd.read_parquet(workdir / TARGET)
    assert len(stats) == len(expected)
    for r in stats.itertuples(index=False):
        score_sum, score_sq_sum, n = expected[
            (r.model, r.metric, r.split, r.promptset, r.seed, r.subgroup, r.group_key)
        ]
        assert r.n == n
        assert np.isclose(r.score_sum, score_sum) and np.isclose(r.score_sq_sum, score_sq_sum)


def test_a_finished_run_has_nothing_left_to_do(run):
    workdir, _ = run
    assert planned_jobs(workdir, MAIN_JOB) == {}


def test_report_after_the_main_job_alone_shows_what_it_computed(run, tmp_path):
    """The README's report command, right after the main job: the default target's other methods are not run yet.

    That state is a copy of the run without the other methods' results (FairPair, FPR gaps, power), its config
    naming a second axis, religion, as the embedded default does, whose selection `make demo` does not run: the
    front page lists the gender axis it computed and links the report's own page of its tables (issue 39).
    """
    workdir = tmp_path / "main-job-alone"
    shutil.copytree(run[0], workdir, symlinks=True)
    for method in ("fairpair", "fpr", "power"):
        shutil.rmtree(workdir / "results" / method)
    config = copy.deepcopy(run[1])
    config["cairo"]["axes"]["religion"] = ["BOLD", "HolisticBias"]
    config["cairo"]["subgroup_map"]["religion"] = {
        "BOLD": {"christianity": "christian", "islam": "muslim"},
        "HolisticBias": {"Christian": "christian", "Muslim": "muslim"},
    }
    write_config(config, workdir)
    result = snakemake(workdir, *REPORT.split()[1:])
    page = (workdir / "report.html").read_text()
    for item in (
        "gender_curve.png",
        "gender_bias.png",
        "gender_paraphrasers.png",
        "gender_tables.html",
        "What was run",
    ):
        assert item in page, item
    assert "fairpair/summary" not in page
    assert "Not run, so not shown: FairPair, Group FPR gaps" in page and "continuations per side" not in page
    assert "BOLD: the files in data/datasets/BOLD" in page and "Zayed et al., 2024" in page, "the data, the paper"
    assert "System Message" not in page, "the front page is valid reStructuredText as Snakemake renders it"
    for words, table in (
        ("Is one model less biased than another:", "gender_comparisons.csv"),
        ("Where each number would move:", "gender_variance.csv"),
    ):  # where to read the answers
        assert re.search(re.escape(words) + r".{0,300}?results/cairo/" + re.escape(table), page, re.DOTALL), words
    assert re.search(
        r"Its tables in this report:.{0,200}?<a [^>]*showResultInfo[^>]*>gender_tables.html</a>",
        page.replace('\\"', '"'),
        re.DOTALL,
    ), "the page of the tables, linked in the report"
    assert "religion" not in page.split("What was run", 1)[1].split("The data", 1)[0], "what was computed only"
    assert "religion_comparisons" not in page and "religion_variance" not in page
    [not_yet] = [line for line in result.stderr.splitlines() if "The report shows what has been computed" in line]
    assert "results/cairo/religion.csv" in not_yet and "results/fairpair/summary.csv" in not_yet


def test_report_on_results_of_an_earlier_version_says_how_to_bring_them_up_to_date(run):
    """Results written before the table pages existed: the report leaves them out and names the command."""
    workdir, _ = run
    page = workdir / "results/cairo/gender_tables.html"
    page.unlink()
    result = snakemake(workdir, *REPORT.split()[1:])
    assert "gender_tables.html" not in (workdir / "report.html").read_text()
    advice = (
        "Left out of the report: results/cairo/gender.csv was written by an earlier biasflow without "
        "results/cairo/gender_tables.html; `snakemake --cores 2 results/cairo/gender_tables.html` writes it"
    )
    assert advice in result.stderr
    rerun = snakemake(workdir, "results/cairo/gender_tables.html")
    assert "cairo_select" in rerun.stderr and "generate" not in rerun.stderr, "only the selection reruns"
    snakemake(workdir, *REPORT.split()[1:])
    assert page.exists() and "gender_tables.html" in (workdir / "report.html").read_text()


def test_fairpair_job_writes_per_prompt_scores_and_the_summary(run):
    workdir, _ = run
    snakemake(workdir, "results/fairpair/summary.csv")
    summary = pd.read_csv(workdir / "results/fairpair/summary.csv")
    assert list(summary.columns) == [
        "model",
        "dissimilarity",
        "n_prompts",
        "mean_F",
        "F_ci_low",
        "F_ci_high",
        "n_infinite_F",
        "n_undefined_F",
        "F_null_mean",
        "F_excess",
        "F_excess_lo",
        "F_excess_hi",
        "n_tested",
        "R_excess",
        "R_excess_lo",
        "R_excess_hi",
        "R_null_lo",
        "R_null_hi",
        "p_perm",
        "mean_B",
        "mean_V_pg",
        "mean_V_gp",
        "F_of_means",
        "welch_t",
        "welch_p",
    ]
    assert summary["p_perm"].between(0, 1, inclusive="right").all()
    assert (summary["R_null_lo"] <= summary["R_null_hi"]).all()
    assert set(summary["model"]) == {"a-t1.0", "b-t1.0"}
    assert set(summary["dissimilarity"]) == {"jaccard", "sentiment"}
    per_prompt = pd.read_csv(workdir / "results/fairpair/a-t1.0.csv")
    assert {"prompt_id", "dissimilarity", "B", "V_pg", "V_gp", "F"} <= set(per_prompt.columns)
    assert per_prompt["prompt_id"].nunique() == 4, "one row per occupation and dissimilarity"
    finite = per_prompt.dropna(subset=["F"])
    finite = finite[np.isfinite(finite["F"])]
    assert np.allclose(finite["F"], finite["B"] ** 2 / (finite["V_pg"] * finite["V_gp"]))
    pairs = pd.read_parquet(workdir / "results/fairpair/pairs/a-t1.0.parquet")
    assert set(pairs["side"]) == {"perturbed_original", "counterfactual"}
    generated = pd.read_parquet(workdir / "results/fairpair/continuations/a-t1.0.parquet")
    male = r"\b(?:he|man|his)\b"
    assert generated.loc[generated["side"] == "original", "text"].str.contains(male).any(), "a male word to swap"
    assert not pairs.loc[pairs["side"] == "perturbed_original", "text"].str.contains(male).any()
    rejections = pd.read_csv(workdir / "results/fairpair/perturbation_rejections.csv")
    assert (rejections["rejection_rate"] == 0).all(), "the rule-based swapper never rejects"
    # The two models compared on the prompts both tested, each with its own summary's excess where they are all.
    [compared] = (
        pd.read_csv(workdir / "results/fairpair/comparisons.csv").query("dissimilarity == 'jaccard'").to_dict("records")
    )
    assert (compared["model_a"], compared["model_b"]) == ("a-t1.0", "b-t1.0")
    jaccard = summary.set_index(["model", "dissimilarity"])
    if (
        compared["n_prompts"]
        == jaccard.loc[("a-t1.0", "jaccard"), "n_tested"]
        == jaccard.loc[("b-t1.0", "jaccard"), "n_tested"]
    ):
        assert compared["R_excess_a"] == pytest.approx(jaccard.loc[("a-t1.0", "jaccard"), "R_excess"])
    assert 0 < compared["p"] <= 1
    assert (workdir / "results/fairpair/a-t1.0_ngrams.csv").exists()
    # Where each model's excess R would move: the parts add up to the whole, the headline's excess beside them.
    variance = pd.read_csv(workdir / "results/fairpair/variance.csv").set_index(["model", "dissimilarity"])
    assert list(variance.reset_index().columns) == FAIRPAIR_VARIANCE_COLUMNS
    assert np.allclose(
        variance["R_excess"], summary.set_index(["model", "dissimilarity"]).loc[variance.index, "R_excess"]
    )
    known = variance.dropna(subset=["sd_total"])
    assert np.allclose(known["sd_total"] ** 2, known["sd_prompts"] ** 2 + known["sd_samples"] ** 2)
    for figure in ("summary.png", "a-t1.0_ngrams.png", "variance.png"):
        assert (workdir / "results/fairpair" / figure).read_bytes()[:4] == b"\x89PNG"


def test_fpr_job_writes_gaps_spans_significance_and_markedness(run):
    workdir, _ = run
    snakemake(workdir, "results/fpr/gap_spans.csv")
    predictions = pd.read_csv(workdir / "results/fpr/templates_race/a-t1.0/three_shot.tsv", sep="\t")
    assert {"y_true", "y_pred", "category", "group", "text", "model", "run_id"} <= set(predictions.columns)
    assert predictions["run_id"].nunique() == 2 and predictions["y_pred"].isin([0, 1, 2]).all()
    gaps = pd.read_csv(workdir / "results/fpr/templates_race_gaps.csv")
    assert list(gaps.columns[:8]) == [
        "model",
        "group",
        "negative_FPR_gap",
        "negative_FPR_gap_width",
        "negative_FPR_gap_p",
        "positive_FPR_gap",
        "positive_FPR_gap_width",
        "positive_FPR_gap_p",
    ]
    assert (gaps["interval"] == "t").all(), "Student t is the default interval"
    # The workflow's predictions name each sentence's template, so every gap has its template bootstrap interval.
    for cls in ("negative", "positive"):
        assert (gaps[f"{cls}_FPR_gap_lo"] <= gaps[f"{cls}_FPR_gap_hi"]).all()
    # Gaps are deviations from the unweighted mean of the groups in each run: they sum to 0.
    sums = gaps.groupby(["model", "category"])[["negative_FPR_gap", "positive_FPR_gap"]].sum()
    assert np.allclose(sums.to_numpy(), 0, atol=1e-9)
    assert "(unmarked)" not in set(gaps["group"])
    assert set(gaps["model"]) == {f"{m}/{c}" for m in ("a-t1.0", "b-t1.0") for c in ("zero_shot", "three_shot")}
    assert (gaps["n_runs"] == 2).all(), "each classifier is its own system, with its own runs"
    spans = pd.read_csv(workdir / "results/fpr/gap_spans.csv")
    assert {"templates_race", "occupations_race", "(mean)"} <= set(spans["probe"])
    assert (spans["negative_span"] >= 0).all()
    per_probe = spans[spans["probe"] != "(mean)"]
    assert per_probe["negative_span_p"].between(0, 1, inclusive="right").all()
    assert (
        per_probe["negative_span_exceeds"] == (per_probe["negative_span"] > per_probe["negative_span_null_q95"])
    ).all()
    net = pd.read_csv(workdir / "results/fpr/net_significance.csv")
    for column in ("negative_net", "negative_net_holm", "negative_net_bh", "positive_net_holm"):
        assert (net[column].abs() <= net["n_models"]).all()
    markedness = pd.read_csv(workdir / "results/fpr/markedness.csv")
    assert set(markedness["group"]) == set(gaps["group"])
    assert (workdir / "results/fpr/templates_race_gaps.png").read_bytes()[:4] == b"\x89PNG"
    # Every pair of the four systems compared on the probe set, gap by gap: the gap table's numbers differenced.
    comparisons = pd.read_csv(workdir / "results/fpr/templates_race_comparisons.csv")
    assert len(comparisons.drop_duplicates(["model_a", "model_b"])) == 6
    own = gaps.set_index(["model", "category", "group"])
    compared = comparisons[comparisons["measure"] == "gap"]
    expected = compared.apply(
        lambda r: (
            own.loc[(r["model_a"], r["category"], r["group"]), f"{r['class']}_FPR_gap"]
            - own.loc[(r["model_b"], r["category"], r["group"]), f"{r['class']}_FPR_gap"]
        ),
        axis=1,
    )
    assert np.allclose(compared["difference"], expected)
    assert comparisons["p"].between(0, 1, inclusive="right").all() and (comparisons["p_holm"] >= comparisons["p"]).all()
    # Where each gap would move: one row per probe set, system, class and group, its gap the gap table's.
    variance = pd.read_csv(workdir / "results/fpr/variance.csv")
    assert list(variance.columns) == FPR_VARIANCE_COLUMNS
    race = variance[variance["probe"] == "templates_race"].set_index(["model", "category", "group"])
    for name in ("negative", "positive"):
        rows = race[race["class"] == name]
        assert np.allclose(rows["gap"], own.loc[rows.index, f"{name}_FPR_gap"])
    assert set(variance.loc[variance["category"] == "race", "n_probe_sets"]) == {2}, "two probe sets of race"
    assert (workdir / "results/fpr/variance.png").read_bytes()[:4] == b"\x89PNG"


def test_fpr_summary_writes_the_workflows_fpr_tables_from_its_predictions(run, tmp_path, monkeypatch):
    """A researcher holding prediction files gets every FPR table the workflow writes, byte for byte (issue 31):
    `biasflow fpr-summary` on the finished run's predictions, given in name order rather than the config's."""
    from biasflow.cli import main
    from biasflow.fpr import outputs

    workdir, config = run
    snakemake(workdir, "results/fpr/gap_spans.csv")
    args = []
    for probe in config["fpr"]["probes"]:
        args += ["--probe-set", probe, *map(str, sorted((workdir / "results/fpr" / probe).glob("*/*.tsv")))]
    monkeypatch.chdir(tmp_path)
    assert main(["fpr-summary", *args, "--out-dir", "mine"]) == 0
    names = [
        *outputs.SUMMARY.values(),
        *(name.format(probe=probe) for probe in config["fpr"]["probes"] for name in outputs.PER_PROBE.values()),
    ]
    assert sorted(path.name for path in (tmp_path / "mine").iterdir()) == sorted(names)
    for name in names:
        if name.endswith(".csv"):
            assert (tmp_path / "mine" / name).read_bytes() == (workdir / "results/fpr" / name).read_bytes(), name


def test_fairpair_summary_writes_the_workflows_fairpair_tables_from_its_sides(run, tmp_path, monkeypatch):
    """A researcher holding each model's two sides gets every FairPair table the workflow writes from them (issue
    31), byte for byte: `biasflow fairpair-summary` on the finished run's sides, the perturbation's rejections aside."""
    from biasflow.cli import main
    from biasflow.fairpair import outputs

    workdir, config = run
    snakemake(workdir, "results/fairpair/summary.csv")
    results = workdir / "results/fairpair"
    monkeypatch.chdir(tmp_path)
    assert (
        main(
            [
                "fairpair-summary",
                "--sides",
                *map(str, sorted((results / "pairs").glob("*.parquet"))),
                "--out-dir",
                "mine",
            ]
        )
        == 0
    )
    models = config["fairpair"]["models"]
    names = [outputs.relative(role, model) for model in models for role in ("scores", "ngrams", "ngrams_plot", "null")]
    names += [name for role, name in outputs.SUMMARY.items() if role != "rejections"]
    assert sorted(str(path.relative_to("mine")) for path in Path("mine").rglob("*.*")) == sorted(names)
    for name in names:
        if name.endswith(".csv"):
            assert (tmp_path / "mine" / name).read_bytes() == (results / name).read_bytes(), name
        if name.endswith(".parquet"):
            pd.testing.assert_frame_equal(pd.read_parquet(tmp_path / "mine" / name), pd.read_parquet(results / name))


def test_power_tables_say_what_each_method_can_detect(run):
    """The planner on the run's own results: every subgroup a row, and the log names those too small."""
    workdir, config = run
    snakemake(workdir, *(f"results/power/{method}.csv" for method in ("cairo", "fairpair", "fpr")))
    cairo = pd.read_csv(workdir / "results/power/cairo.csv")
    assert list(cairo.columns) == POWER_COLUMNS
    means = cairo[cairo["measure"] == "mean score"]
    assert set(means["subgroup"]) == {"female", "male"} and set(means["model"]) == set(config["models"])
    agreement = cairo[cairo["measure"] == "Pearson r"].iloc[0]
    assert agreement["n"] == 3 and agreement["n_needed"] == 30, "r = 0.5 needs 30 models"
    fpr = pd.read_csv(workdir / "results/power/fpr.csv")
    assert set(fpr["scope"].str.split().str[0]) == set(config["fpr"]["probes"])
    groups = fpr[~fpr["measure"].str.startswith(("paired", "non-inferiority"))]
    assert (groups["n"] < groups["n_needed"]).all() and not groups["detectable"].any(), "a tiny probe set shows no gap"
    paired = fpr[fpr["measure"].str.startswith("paired")]
    assert set(paired["unit"]) == {"templates"} and paired["model"].nunique() == 6, "4 systems: 6 pairs"
    assert (paired["sd"].isna() == paired["n_needed"].isna()).all(), "no spread to plan from: no size"
    pairs = cairo[cairo["measure"] == "paired Eq. 1 difference"]
    assert len(pairs) == 3 * 3 and (pairs["unit"] == "group keys per subgroup").all(), "3 pairs of models, 3 metrics"
    gate = cairo[cairo["measure"] == "non-inferiority margin (Eq. 1)"]  # the release gate's plan (docs/methods.md §6.8)
    assert sorted(gate["model"]) == sorted(pairs["model"]) and (gate["unit"] == "pages or templates per subgroup").all()
    assert set(gate["scope"].str.split().str[-2:].str.join(" ")) == {"both splits"}
    fairpair = pd.read_csv(workdir / "results/power/fairpair.csv")
    assert set(fairpair["model"]) == {"a-t1.0", "b-t1.0", "a-t1.0 vs b-t1.0"} and (fairpair["n"] <= 4).all()
    log = (workdir / "logs/power/fpr.log").read_text()
    assert "short of the 0.05 worth detecting" in log
    assert "<table>" in (workdir / "results/power/fpr.html").read_text()


# The jobs after a CAIRO prompt set changes, given the jobs of the prompt set itself.
CAIRO_DOWNSTREAM = {"cairo_stats": 1, "cairo_select": 1, "rejections": 1, "power": 1, "all": 1}
FPR_DOWNSTREAM = {"fpr_gaps": 2, "fpr_summary": 1, "power": 1, "all": 1}
# File (relative to the run's workdir) -> the jobs a dry run plans after it is edited: exactly
# those that read it and those downstream of them (2 FairPair and FPR models, 2 classifiers,
# 2 probe sets, 3 evaluated models, a chat and a completion paraphraser, 3 metrics on gender).
EDITS = {
    "data/paraphrase/chat.txt": {
        "paraphrase_gender": 1,
        "prompt_sets": 3,
        "generate_gender": 3,
        "score": 9,
        **CAIRO_DOWNSTREAM,
    },
    "data/paraphrase/completion.txt": {
        "paraphrase_gender": 1,
        "prompt_sets": 3,
        "generate_gender": 3,
        "score": 9,
        **CAIRO_DOWNSTREAM,
    },
    "data/paraphrase/chat_batch.txt": {},
    # One job per model (and paraphraser) and axis writes every metric's file: all three rerun.
    "data/datasets/BOLD/gender_prompt.json": {
        "original_prompts": 1,
        "prompt_summary": 1,
        "paraphrase_gender": 2,
        "prompt_sets": 3,
        "generate_gender": 3,
        "score": 9,
        **CAIRO_DOWNSTREAM,
    },
    "data/classify/zero_shot.txt": {"fpr_classify": 2, **FPR_DOWNSTREAM},
    "data/classify/k_shot.txt": {"fpr_classify": 2, **FPR_DOWNSTREAM},
    "data/classify/cot_reason.txt": {},
    "data/probes/sentiment_labelled.csv": {"fpr_classify": 2, **FPR_DOWNSTREAM},
    "data/probes/templates.csv": {"fpr_classify": 4, **FPR_DOWNSTREAM},
    "data/probes/identity_terms.csv": {"fpr_classify": 4, **FPR_DOWNSTREAM},
    "data/occupations.txt": {
        "fairpair_prompts": 1,
        "fairpair_generate": 2,
        "fairpair_pairs": 2,
        "fairpair_score": 2,
        "fairpair_summary": 1,
        "power": 1,
        "all": 1,
    },
    "data/fairpair/swaps.yaml": {"fairpair_pairs": 2, "fairpair_score": 2, "fairpair_summary": 1, "power": 1, "all": 1},
    "data/fairpair/llm_perturbation.txt": {},
}


@pytest.mark.parametrize("edited", EDITS)
def test_editing_a_file_reruns_exactly_the_jobs_that_read_it(run, edited):
    """Every file a step reads is an input of its rule; the run's config points at its own copies."""
    workdir, _ = run
    path = workdir / edited
    before, content = path.stat(), path.read_bytes()
    path.write_bytes(content + b"\n")  # an edit every format allows: a trailing newline
    try:
        assert planned_jobs(workdir) == EDITS[edited]
    finally:
        path.write_bytes(content)
        os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))


def test_adding_a_model_schedules_only_its_jobs(run):
    workdir, config = run
    config["models"]["b-t0.5"] = {**config["models"]["b-t1.0"], "decoding": {"temperature": 0.5, "max_new_tokens": 6}}
    write_config(config, workdir)
    assert planned_jobs(workdir, TARGET) == {"generate_gender": 1, "score": 3, "cairo_stats": 1}
    snakemake(workdir, TARGET)
    assert "b-t0.5" in set(pd.read_parquet(workdir / TARGET)["model"])


def test_adding_a_paraphrase_seed_computes_only_new_rows(run):
    workdir, config = run
    before = gender_continuations(workdir, "a-t1.0")
    config["cairo"]["paraphrase"]["seeds"] = [0, 1]
    write_config(config, workdir)
    planned = planned_jobs(workdir, TARGET)
    assert planned["paraphrase_gender"] == 2 and planned["generate_gender"] == 4, "one job per model and axis"
    snakemake(workdir, TARGET)
    after = gender_continuations(workdir, "a-t1.0")
    new_sets = set(after["promptset"]) - set(before["promptset"])
    assert new_sets and all(s.endswith("-s1") for s in new_sets)
    log = (workdir / "logs/generate/a-t1.0/gender.log").read_text()
    n_new = int((after["promptset"].isin(new_sets)).sum())
    assert f"{len(before)} of {len(after)} rows from cache, {n_new} to compute" in log
    # The old rows are unchanged.
    key = ["prompt_id", "seed", "sample"]
    merged = before.merge(after, on=key, suffixes=("", "_after"))
    assert len(merged) == len(before) and (merged["continuation"] == merged["continuation_after"]).all()


def gender_continuations(workdir, model):
    """Every metric's continuations of a model on the gender axis, as its one generation job wrote them."""
    return pd.concat(
        [
            pd.read_parquet(workdir / f"results/continuations/{model}/{metric}/gender.parquet")
            for metric in ("BOLD", "HolisticBias", "HONEST")
        ],
        ignore_index=True,
    )


BAD_CONFIGS = {
    "unknown metric": (lambda c: c["cairo"]["axes"].update(gender=["BOLD", "StereoSet"]), "unknown metric 'StereoSet'"),
    "unknown axis": (lambda c: c["cairo"]["axes"].update(age=["BOLD"]), "unknown axis 'age'"),
    "unknown backend": (lambda c: c["models"]["a-t1.0"].update(backend="llamafile"), "models.a-t1.0.backend"),
    "unknown scorer": (lambda c: c["cairo"]["scoring"].update(scorer="perspective"), "unknown scorer 'perspective'"),
    "missing dataset": (
        lambda c: c["cairo"].update(datasets={"BOLD": {"path": "/nonexistent/bold"}}),
        "/nonexistent/bold does not exist",
    ),
    "unresolvable model": (
        lambda c: c["models"]["a-t1.0"].update(model="pkg:no-such-package/m.gguf"),
        "no-such-package is not installed",
    ),
    "schema violation": (lambda c: c["cairo"]["generation"].update(samples=0), "generation.samples"),
    "HONEST on religion": (lambda c: c["cairo"]["axes"].update(religion=["HONEST"]), "HONEST covers gender only"),
    "missing probe file": (
        lambda c: c["fpr"]["probes"]["templates_race"].update(templates="/nonexistent/t.csv"),
        "fpr.probes.templates_race.templates: file /nonexistent/t.csv does not exist",
    ),
    "unknown classifier method": (
        lambda c: c["fpr"]["classifiers"].update(x={"method": "bert"}),
        "fpr.classifiers.x.method",
    ),
}


@pytest.mark.parametrize("case", BAD_CONFIGS)
def test_bad_config_stops_before_any_work_with_one_message(case, tiny_models, tmp_path):
    mutate, message = BAD_CONFIGS[case]
    config = tiny_config(tiny_models, tmp_path)
    mutate(config)
    write_config(config, tmp_path)
    result = workflow(tmp_path, TARGET, check=False)
    assert result.returncode != 0
    assert message in result.stderr
    assert "Traceback" not in result.stderr
    assert not (tmp_path / "results").exists()


def test_honest_scorer_from_the_config_scores_with_its_lexicon(tiny_models, tmp_path):
    """The HONEST measure in the workflow: a lexicon of the tiny vocabulary's words, given by path."""
    lexicon = tmp_path / "hurtlex_EN.tsv"
    lexicon.write_text(
        "id\tpos\tcategory\tstereotype\tlemma\tlevel\n"
        "EN1\tn\tre\tno\tbread\tconservative\nEN2\tn\tan\tno\tmarket\tconservative\n"
    )
    config = tiny_config(tiny_models, tmp_path)
    config["cairo"]["scoring"] = {"scorer": "honest", "lexicon": str(lexicon)}
    config["paraphrasers"] = {}
    write_config(config, tmp_path)
    target = "results/scores/honest/a-t1.0/BOLD/gender.parquet"
    snakemake(tmp_path, target)
    scores = pd.read_parquet(tmp_path / target)
    continuations = pd.read_parquet(tmp_path / "results/continuations/a-t1.0/BOLD/gender.parquet")
    words = continuations["continuation"].str.split()
    expected = [next((w for w in ws if w in ("bread", "market")), None) for ws in words]
    assert scores["score"].tolist() == [float(e is not None) for e in expected]
    assert scores["category"].tolist() == [{"bread": "re", "market": "an", None: ""}[e] for e in expected]
    assert scores["score"].sum() > 0, "the tiny models' vocabulary holds both words"


def test_subgroup_map_typo_stops_the_first_job_before_any_model_loads(tiny_models, tmp_path):
    config = tiny_config(tiny_models, tmp_path)
    config["cairo"]["subgroup_map"]["gender"]["BOLD"] = {"American_actress": "female", "American_actors": "male"}
    write_config(config, tmp_path)
    result = snakemake(tmp_path, TARGET, check=False)
    assert result.returncode != 0
    assert "'American_actress', which matches no subgroup in the data (closest: American_actresses" in result.stderr
    assert "Traceback" not in result.stderr
    assert not (tmp_path / "results/continuations").exists() and not (tmp_path / "results/prompts/paraphrased").exists()


def test_malformed_dataset_fails_its_job_cleanly(tiny_models, tmp_path):
    broken = tmp_path / "BOLD"
    shutil.copytree(REPO / "src/biasflow/data/datasets/BOLD", broken)
    (broken / "gender_prompt.json").write_text('{"American_actors": ["not", "a", "dict"')
    config = tiny_config(tiny_models, tmp_path)
    config["cairo"]["datasets"] = {"BOLD": {"path": str(broken)}}
    write_config(config, tmp_path)
    target = "results/prompts/original/BOLD/gender.parquet"
    result = snakemake(tmp_path, target, check=False)
    assert result.returncode != 0
    assert "gender_prompt.json" in result.stderr
    assert not (tmp_path / target).exists()
    assert "gender_prompt.json" in (tmp_path / "logs/prompts/original/BOLD/gender.log").read_text()
