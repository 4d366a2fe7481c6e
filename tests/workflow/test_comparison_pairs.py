"""The workflow's `comparisons` setting (docs/methods.md §7): the same jobs, and comparison files only where pairs are
compared. A dry run plans every job of the embedded default without running any; the dry runs here each run in a
forked Snakemake process (tests/forked_snakemake.py)."""

from __future__ import annotations

import re
import shutil

import pandas as pd
import pytest

from baseline_rows import assert_baseline_rows_match
from biasflow.cairo.comparisons import FAMILY as CAIRO_FAMILY
from biasflow.fpr.comparisons import FAMILY as FPR_FAMILY
from forked_snakemake import workflow
from workflow_helpers import embedded_config, job_stats, snakemake, write_config

COMPARISON_FILES = re.compile(r"\S*comparisons\.(?:csv|png)")


def planned(tmp_path, name: str, comparisons: dict) -> tuple[dict[str, int], set[str], str]:
    """A dry run of the embedded default with ``comparisons``: its job counts, the comparison files planned, text."""
    config = embedded_config()
    config["comparisons"] = comparisons
    write_config(config, tmp_path / name)
    result = workflow(tmp_path / name, "--dry-run")
    text = result.stdout + result.stderr
    return job_stats(text), set(COMPARISON_FILES.findall(text)), text


@pytest.fixture(scope="module")
def every(tmp_path_factory):
    return planned(tmp_path_factory.mktemp("every"), "every", {})


def test_no_pairs_plans_the_same_jobs_and_no_comparison_file(every, tmp_path):
    jobs, files, _ = every
    assert {
        "results/cairo/gender_comparisons.csv",
        "results/cairo/gender_comparisons.png",
        "results/fairpair/comparisons.csv",
        "results/fpr/templates_race_comparisons.png",
    } <= files
    none_jobs, none_files, _ = planned(tmp_path, "none", {"pairs": "none"})
    assert none_jobs == jobs
    assert not none_files, "no rule declares, and no rule reads, a comparison table or figure"


def test_a_baseline_plans_the_same_jobs_and_files(every, tmp_path):
    jobs, files, _ = every
    baseline_jobs, baseline_files, _ = planned(tmp_path, "baseline", {"pairs": "baseline", "baseline": "smollm2-t1.0"})
    assert (baseline_jobs, baseline_files) == (jobs, files)


def test_a_baseline_that_is_no_model_stops_before_planning(tmp_path):
    config = embedded_config()
    config["comparisons"] = {"pairs": "baseline", "baseline": "gpt-5"}
    write_config(config, tmp_path)
    result = workflow(tmp_path, "--dry-run", check=False)
    assert result.returncode != 0
    assert "biasflow config error: comparisons.baseline 'gpt-5' is not a model of this config" in result.stderr
    assert "Traceback" not in result.stderr and "Job stats" not in result.stdout


@pytest.mark.workflow
def test_the_tiny_run_against_a_baseline_and_with_no_pairs(finished_workflow, tmp_path):
    """The finished tiny run, its comparisons chosen again (only the steps that compare rerun, from the cache): against
    a-t1.0 each method's table is the all-pairs table's rows of the baseline's pairs, adjusted over them; with none,
    no comparison file is written and the tables pages leave the section out."""
    source, config = finished_workflow
    every = {
        path.relative_to(source / "results"): pd.read_csv(path)
        for path in (source / "results").rglob("*comparisons.csv")
    }
    assert {str(path) for path in every} >= {
        "cairo/gender_comparisons.csv",
        "fairpair/comparisons.csv",
        "fpr/templates_race_comparisons.csv",
    }
    keys = {
        "cairo": (["axis", "pair", "metric", "split", "prompts", "measure"], CAIRO_FAMILY),
        "fairpair": (["dissimilarity"], ["dissimilarity"]),
        "fpr": (["category", "class", "measure", "group"], FPR_FAMILY),
    }

    against = tmp_path / "baseline"
    shutil.copytree(source, against)
    write_config({**config, "comparisons": {"pairs": "baseline", "baseline": "a-t1.0"}}, against)
    planned = snakemake(against, "--dry-run")
    rerun = job_stats(planned.stdout + planned.stderr)
    assert (
        {"cairo_select", "fairpair_summary", "fpr_gaps", "power"}
        <= set(rerun)
        <= {"cairo_select", "fairpair_summary", "fpr_gaps", "fpr_summary", "power", "all"}
    ), rerun
    snakemake(against)
    for path, table in every.items():
        method = path.parts[0]
        models = set(table["model_a"]) | set(table["model_b"])
        if method == "fpr":
            baselines = {m: f"a-t1.0/{m.split('/', 1)[1]}" for m in models if not m.startswith("a-t1.0/")}
        else:
            baselines = {m: "a-t1.0" for m in models if m != "a-t1.0"}
        assert_baseline_rows_match(table, pd.read_csv(against / "results" / path), baselines, *keys[method])

    none = tmp_path / "none"
    shutil.copytree(source, none)
    for path in every:
        (none / "results" / path).unlink()
        (none / "results" / path).with_suffix(".png").unlink()
    write_config({**config, "comparisons": {"pairs": "none"}}, none)
    snakemake(none)
    assert not list((none / "results").rglob("*comparisons.*"))
    for page in ("cairo/gender_tables.html", "fairpair/summary.html", "fpr/summary.html"):
        html = (none / "results" / page).read_text()
        assert "compared on the same" not in html and "<h2>" in html, page
