"""The config's `compare` pairs in the workflow (docs/methods.md §7): the `compare` target plans a verdict table per
pair and method, the default target adds them only where pairs are named, a bad pair stops before planning, and on the
finished tiny run the tables are the verdicts `biasflow compare` gives on the same files, the report's front page
stating the pair's verdict first. The dry runs each run in a forked Snakemake process (tests/forked_snakemake.py).
"""

from __future__ import annotations

import copy
import re
import shutil
import subprocess
import sys

import pandas as pd
import pytest
from statsmodels.stats.multitest import multipletests

from biasflow.config import validate_config
from biasflow.methods import method as declared_method
from biasflow.schema import default
from forked_snakemake import workflow
from workflow_helpers import REPO, embedded_config, job_stats, snakemake, write_config

PAIR = {"baseline": "smollm2-t1.0", "candidate": "smollm2-t0.7", "margin": {"cairo": 0.02}}


def planned(workdir, config: dict, *targets: str) -> dict[str, int]:
    write_config(config, workdir)
    result = workflow(workdir, "--dry-run", *targets)
    return job_stats(result.stdout + result.stderr)


def test_the_compare_target_plans_a_table_per_method_that_evaluates_both(tmp_path):
    """The embedded default runs FPR on smollm2-t1.0 alone, so the pair gets CAIRO's and FairPair's tables."""
    config = {**embedded_config(), "compare": [PAIR]}
    write_config(config, tmp_path)
    result = workflow(tmp_path, "--dry-run", "compare")
    text = result.stdout + result.stderr
    jobs = job_stats(text)
    assert jobs["compare_verdicts"] == 2 and jobs["compare"] == 1 and "cairo_select" not in jobs, jobs
    assert set(re.findall(r"results/compare/\S+\.(?:csv|md)", text)) == {
        f"results/compare/smollm2-t1.0_vs_smollm2-t0.7/{method}.{ext}"
        for method in ("cairo", "fairpair")
        for ext in ("csv", "md")
    }
    assert "compare[0]: Group FPR gaps does not evaluate both smollm2-t1.0 and smollm2-t0.7" in result.stderr
    # what each reads: CAIRO the statistics of both axes, FairPair the two models' scores
    assert {"results/cairo/stats/gender.parquet", "results/cairo/stats/religion.parquet"} <= set(
        re.findall(r"results/cairo/stats/\w+\.parquet", text)
    )


def test_the_default_target_adds_the_tables_only_where_pairs_are_named(tmp_path):
    without = planned(tmp_path / "none", embedded_config())
    with_pairs = planned(tmp_path / "pairs", {**embedded_config(), "compare": [PAIR]})
    assert with_pairs == {**without, "compare_verdicts": 2}


def test_a_bad_pair_stops_before_planning_with_one_line(tmp_path):
    config = {**embedded_config(), "compare": [{**PAIR, "candidate": "smollm2-t0.5"}]}
    write_config(config, tmp_path)  # its models in name order
    result = workflow(tmp_path, "--dry-run", "compare", check=False)
    assert result.returncode != 0 and "Job stats" not in result.stdout and "Traceback" not in result.stderr
    [line] = [line for line in result.stderr.splitlines() if line.startswith("biasflow config error:")]
    assert line == (
        "biasflow config error: compare[0].candidate 'smollm2-t0.5' is not a model of this config "
        "(gemma3-t0.7, gemma3-t1.0, smollm2-t0.7, smollm2-t1.0) (did you mean smollm2-t0.7?); name one "
        "of models."
    )


def biasflow_compare(workdir, *args: str) -> pd.DataFrame:
    """`biasflow compare` in the run's folder, with the run's config for its settings, its rows read back."""
    out = workdir / "by_command.csv"
    result = subprocess.run(
        [sys.executable, "-m", "biasflow.cli", "compare", *args, "--config", "config.yaml", "--out", str(out)],
        cwd=workdir,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stderr
    return pd.read_csv(out)


@pytest.mark.workflow
def test_the_tiny_run_writes_each_pairs_verdicts_and_the_report_states_them_first(finished_workflow, tmp_path):
    source, finished = finished_workflow
    workdir = tmp_path / "run"
    shutil.copytree(source, workdir, symlinks=True)
    config = copy.deepcopy(finished)
    config["compare"] = [{"baseline": "a-t1.0", "candidate": "b-t1.0", "margin": {"cairo": 0.05, "fpr": 0.1}}]
    write_config(config, workdir)
    assert job_stats(snakemake(workdir, "--dry-run", "compare").stdout) == {"compare_verdicts": 3, "compare": 1}, (
        "the finished run's results are read, nothing is recomputed"
    )
    snakemake(workdir, "compare")
    folder = workdir / "results/compare/a-t1.0_vs_b-t1.0"
    tables = {method: pd.read_csv(folder / f"{method}.csv") for method in ("cairo", "fairpair", "fpr")}

    cairo = biasflow_compare(
        workdir,
        "--method",
        "cairo",
        "--stats",
        "results/cairo/stats/gender.parquet",
        "--baseline",
        "a-t1.0",
        "--candidate",
        "b-t1.0",
        "--margin",
        "0.05",
    )
    pd.testing.assert_frame_equal(tables["cairo"], cairo)
    fairpair = biasflow_compare(
        workdir,
        "--method",
        "fairpair",
        "--scores",
        "results/fairpair/a-t1.0.csv",
        "results/fairpair/b-t1.0.csv",
        "--baseline",
        "a-t1.0",
        "--candidate",
        "b-t1.0",
    )
    pd.testing.assert_frame_equal(tables["fairpair"], fairpair)
    assert (tables["fairpair"]["margin"] == default("power.min_effect.fairpair")).all(), "the tiny config's own"
    fpr = tables["fpr"]
    assert set(zip(fpr["probe"], fpr["classifier"], strict=True)) == {
        (probe, classifier) for probe in config["fpr"]["probes"] for classifier in config["fpr"]["classifiers"]
    }
    for (probe, classifier), rows in fpr.groupby(["probe", "classifier"]):
        theirs = biasflow_compare(
            workdir,
            "--method",
            "fpr",
            "--predictions",
            *(f"results/fpr/{probe}/{model}/{classifier}.tsv" for model in ("a-t1.0", "b-t1.0")),
            "--baseline",
            f"a-t1.0/{classifier}",
            "--candidate",
            f"b-t1.0/{classifier}",
            "--margin",
            "0.1",
        )
        same = ["class", "difference", "lo90", "hi90", "p_worse", "verdict", "margin"]
        pd.testing.assert_frame_equal(rows[same].reset_index(drop=True), theirs[same])
    for method in tables:
        summary = (folder / f"{method}.md").read_text()
        assert summary.startswith(f"**{method}: candidate b-t1.0 against baseline a-t1.0: ")

    # the pair's verdict worked out here: every row non-inferior, or one worse after Holm over all of them (statsmodels)
    rows = pd.concat(tables.values(), ignore_index=True)
    tested = rows["p_worse"].notna()
    if rows["verdict"].isin(["better", "equivalent", "not worse"]).all():
        verdict = "not worse"
    elif multipletests(rows.loc[tested, "p_worse"], method="holm")[1].min() <= 0.05:
        verdict = "worse"
    else:
        verdict = "inconclusive"
    snakemake(workdir, "--report", "report.html")
    page = (workdir / "report.html").read_text()
    assert "System Message" not in page
    first = page.index("Did the candidate get worse?")
    assert first < page.index("What was run")
    text = re.sub(r"<[^>]+>", "", page[first : page.index("What was run")].replace('\\"', '"'))  # the section's words
    said = (
        f"Candidate b-t1.0 against baseline a-t1.0: {verdict} over {sum(map(len, tables.values()))} measure(s) "
        "of 3 method(s)."
    )
    assert said in text, text
    assert all((folder / f"{method}.html").exists() for method in tables)
    assert "Did the candidate get worse?" in page[page.index("What was run") :], "the verdict pages are in the report"

    # The new user's case: the report rendered with the config that names no pairs (`make report` after a run with
    # pairs.yaml) still states the pair and shows its pages, and says no method it compared did not run.
    write_config(finished, workdir)
    snakemake(workdir, "--report", "report.html")
    page = (workdir / "report.html").read_text()
    first = page.index("Did the candidate get worse?")
    text = re.sub(r"<[^>]+>", "", page[first : page.index("What was run")].replace('\\"', '"'))
    assert said in text, text
    assert "Not run, so not shown" not in page


def test_the_rule_files_name_no_method_in_the_core():
    """rules/compare.smk wires the core's step; each method's declaration says what a pair's comparison reads."""
    text = (REPO / "rules/compare.smk").read_text()
    assert not re.search(r"\b(cairo|fairpair|fpr)\b", text.lower())
    config = {**embedded_config(), "methods": ["cairo", "fairpair", "fpr"]}
    validate_config(config)
    for name in ("cairo", "fairpair", "fpr"):
        assert declared_method(name).pair_sources(config, "a", "b"), name
