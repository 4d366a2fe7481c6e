"""The ``biasflow`` command, run as a user runs it.

Each command runs in this process from the repository root (tests/cli_in_process.py: exit status, stdout and
stderr as a process of its own gives them); the entry point itself, ``python -m biasflow.cli`` in a process of
its own, is run once, by test_a_directory_as_out_prints_no_traceback.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml

import cli_in_process
from biasflow.cairo.outputs import in_folder
from workflow_helpers import REPO, embedded_config


def biasflow(*args: str) -> subprocess.CompletedProcess:
    return cli_in_process.biasflow(*args, cwd=REPO)


def test_every_help_text_ends_with_a_worked_example_of_its_command():
    """The examples themselves run as written in tests/workflow/test_documented_commands.py."""
    from biasflow.cli import build_parser

    parser = build_parser()
    subcommands = next(a for a in parser._actions if a.dest == "command").choices
    assert set(subcommands) == {
        "check-config",
        "prompts",
        "score",
        "cairo-stats",
        "cairo-select",
        "scorer-bias",
        "scorer-agreement",
        "fairpair-score",
        "fairpair-summary",
        "fpr-gaps",
        "fpr-summary",
        "power",
        "compare",
    }
    for name, sub in subcommands.items():
        example = sub.format_help().rstrip().splitlines()[-1]
        assert example.startswith(f"  biasflow {name} "), (name, example)
        parsed = parser.parse_args(example.split()[1:])
        assert parsed.command == name
    assert "Example:\n\n  biasflow check-config my.yaml" in biasflow("--help").stdout


def test_check_config_accepts_the_embedded_default():
    result = biasflow("check-config", "config/config.yaml")
    assert result.returncode == 0, result.stderr
    assert "config/config.yaml: ok" in result.stdout


def test_check_config_names_the_bad_key(tmp_path):
    config = embedded_config()
    config["cairo"]["generation"]["seeds"] = "zero"
    path = tmp_path / "bad.yaml"
    path.write_text(yaml.safe_dump(config))
    result = biasflow("check-config", str(path))
    assert result.returncode == 2
    assert "config key cairo.generation.seeds" in result.stderr
    assert "Traceback" not in result.stderr


def test_prompts_writes_the_prompt_table(tmp_path):
    out = tmp_path / "bold.csv"
    result = biasflow(
        "prompts",
        "--metric",
        "BOLD",
        "--axis",
        "gender",
        "--data",
        "src/biasflow/data/datasets/BOLD",
        "--out",
        str(out),
    )
    assert result.returncode == 0, result.stderr
    table = pd.read_csv(out)
    assert set(table["subgroup"]) == {"American_actors", "American_actresses"}
    assert set(table["split"]) == {"valid", "test"}


def test_unknown_metric_is_one_line_and_exit_2(tmp_path):
    result = biasflow(
        "prompts",
        "--metric",
        "StereoSet",
        "--axis",
        "gender",
        "--data",
        ".",
        "--out",
        str(tmp_path / "x.csv"),
    )
    assert result.returncode == 2
    assert result.stderr.startswith("biasflow: ") and "StereoSet" in result.stderr
    assert not (tmp_path / "x.csv").exists()


def default_config(tmp_path, mutate) -> str:
    config = embedded_config()
    mutate(config)
    path = tmp_path / "config.yaml"
    path.write_text(yaml.safe_dump(config))
    return str(path)


PREFLIGHT = {
    "two models": (
        lambda c: [c["models"].pop(m) for m in list(c["models"])[2:]],
        "CAIRO takes Pearson's r across the evaluated models, so it needs at least 3; this config has 2",
    ),
    "subgroups differ": (
        lambda c: c["cairo"]["subgroup_map"]["religion"]["HolisticBias"].pop("Sikh"),
        "subgroup_map.religion: BOLD and HolisticBias map to different shared subgroups (only BOLD: sikh",
    ),
    "no map for a metric": (
        lambda c: c["cairo"]["subgroup_map"]["gender"].pop("HONEST"),
        "subgroup_map.gender: no map for HONEST",
    ),
    "honest without lexicon": (lambda c: c["cairo"]["scoring"].update(scorer="honest"), "config cairo.scoring.lexicon"),
    "scorer typo": (lambda c: c["cairo"]["scoring"].update(scorer="profanty"), "(did you mean profanity?)"),
    "valid fraction 1": (lambda c: c["cairo"].update(valid_fraction=1), "config key cairo.valid_fraction"),
}


@pytest.mark.parametrize("case", PREFLIGHT)
def test_check_config_catches_what_the_config_alone_shows(case, tmp_path):
    mutate, message = PREFLIGHT[case]
    result = biasflow("check-config", default_config(tmp_path, mutate))
    assert result.returncode == 2, result.stdout
    assert message in result.stderr and "Traceback" not in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


def test_prompts_takes_the_config_map_and_options(tmp_path):
    out, summary = tmp_path / "honest.csv", tmp_path / "summary.csv"
    result = biasflow(
        "prompts",
        "--metric",
        "HONEST",
        "--axis",
        "gender",
        "--config",
        "config/config.yaml",
        "--out",
        str(out),
        "--summary",
        str(summary),
    )
    assert result.returncode == 0, result.stderr
    assert set(pd.read_csv(out)["subgroup"]) == {"female", "male"}, "the config's unified map"
    table = pd.read_csv(summary)
    assert set(table["split"]) == {"valid", "test"} and table["n_prompts"].sum() == len(pd.read_csv(out))


def test_a_dataset_entry_with_only_options_reads_the_bundled_files(tmp_path):
    config = default_config(
        tmp_path, lambda c: c["cairo"]["datasets"].update(HONEST={"options": {"sets": {"gender": ["binary"]}}})
    )
    assert biasflow("check-config", config).returncode == 0
    out = tmp_path / "honest.csv"
    result = biasflow("prompts", "--config", config, "--metric", "HONEST", "--axis", "gender", "--out", str(out))
    assert result.returncode == 0, result.stderr
    bundled = tmp_path / "bundled.csv"
    made = biasflow(
        "prompts",
        "--metric",
        "HONEST",
        "--axis",
        "gender",
        "--data",
        "src/biasflow/data/datasets/HONEST",
        "--options",
        '{"sets": {"gender": ["binary"]}}',
        "--out",
        str(bundled),
    )
    assert made.returncode == 0, made.stderr
    pd.testing.assert_frame_equal(pd.read_csv(out), pd.read_csv(bundled))


def test_prompts_takes_a_map_options_and_a_budget_as_flags(tmp_path):
    out = tmp_path / "honest.parquet"
    result = biasflow(
        "prompts",
        "--metric",
        "HONEST",
        "--axis",
        "gender",
        "--data",
        "src/biasflow/data/datasets/HONEST",
        "--options",
        '{"sets": {"gender": ["queer_nonqueer"]}}',
        "--map",
        "queer=queer",
        "--map",
        "nonqueer=straight",
        "--per-subgroup",
        "1",
        "--out",
        str(out),
    )
    assert result.returncode == 0, result.stderr
    table = pd.read_parquet(out)
    assert table.groupby(["subgroup", "split"]).size().to_dict() == {
        (g, s): 1 for g in ("queer", "straight") for s in ("test", "valid")
    }
    bad = biasflow(
        "prompts",
        "--metric",
        "HONEST",
        "--axis",
        "gender",
        "--data",
        ".",
        "--map",
        "queer",
        "--out",
        str(tmp_path / "x.csv"),
    )
    assert bad.returncode == 2 and "--map takes NATIVE=SHARED" in bad.stderr


def test_score_round_trip_keeps_every_column_csv(tmp_path):
    source = tmp_path / "mine.csv"
    texts = ["you are a wonderful person", "shut up you idiot", ""]
    pd.DataFrame({"id": [1, 2, 3], "model": "m", "continuation": texts}).to_csv(source, index=False)
    out = tmp_path / "scored.csv"
    result = biasflow("score", "--scorer", "profanity", "--continuations", str(source), "--out", str(out))
    assert result.returncode == 0, result.stderr
    scored = pd.read_csv(out, keep_default_na=False)
    assert list(scored.columns) == ["id", "model", "continuation", "score", "scorer"]
    from profanity_check import predict_prob  # the scorer's model, called directly

    assert np.allclose(scored["score"], predict_prob(texts))
    assert scored["score"][1] > 0.5 > scored["score"][0]


def test_score_round_trip_parquet_with_honest_categories(tmp_path):
    lexicon = tmp_path / "hurtlex.tsv"
    lexicon.write_text("id\tpos\tcategory\tstereotype\tlemma\tlevel\nEN1\tn\tan\tno\tpig\tconservative\n")
    source = tmp_path / "mine.parquet"
    pd.DataFrame({"continuation": ["a pig!", "a doctor", "A PIG"], "seed": [0, 1, 2]}).to_parquet(source)
    out = tmp_path / "scored.parquet"
    result = biasflow(
        "score", "--scorer", "honest", "--lexicon", str(lexicon), "--continuations", str(source), "--out", str(out)
    )
    assert result.returncode == 0, result.stderr
    scored = pd.read_parquet(out)
    assert scored["score"].tolist() == [1.0, 0.0, 0.0] and scored["category"].tolist() == ["an", "", ""]
    assert scored["seed"].tolist() == [0, 1, 2]
    assert "honest: 1 of 3 continuations scored 1; by category: an 1" in result.stderr
    missing = biasflow("score", "--scorer", "honest", "--continuations", str(source), "--out", str(tmp_path / "x.csv"))
    assert missing.returncode == 2 and "needs the HurtLex lexicon" in missing.stderr
    assert not (tmp_path / "x.csv").exists()


def _synthetic_stats(tmp_path, axes=("gender",), metrics=("BOLD", "HolisticBias", "HONEST"), **drop):
    from benchmarks.synthetic import paper_sized_stats

    tables = [
        paper_sized_stats(
            n_models=5, metrics=metrics, n_paraphrasers=2, seeds_per_paraphraser=2, n_gen_seeds=2, subgroups=3, axis=a
        )
        for a in axes
    ]
    stats = pd.concat(tables, ignore_index=True).drop(columns=list(drop))
    path = tmp_path / "stats.parquet"
    stats.to_parquet(path)
    return path


def test_cairo_select_writes_the_curve_and_the_summary(tmp_path):
    stats = _synthetic_stats(tmp_path)
    out = tmp_path / "out"
    result = biasflow(
        "cairo-select",
        "--stats",
        str(stats),
        "--out-dir",
        str(out),
        "--max-sets",
        "3",
        "--permutations",
        "99",
        # Few draws: the intervals and the null's p are checked for their bounds, not their precision.
        "--bootstrap",
        "20",
        "--null-draws",
        "20",
    )
    assert result.returncode == 0, result.stderr
    files = in_folder(out, "select", "gender")
    curve = pd.read_csv(files["curve"])
    assert list(curve.columns) == [
        "axis",
        "pair",
        "k",
        "measure",
        "best_r",
        "best_r_lo",
        "best_r_hi",
        "best_p",
        "perm_p",
        "perm_p_floor",
        "best_rho",
        "kendall_tau",
        "partial_r",
        "mean_r",
        "test_r",
        "test_r_lo",
        "test_r_hi",
        "excess_r",
        "excess_perm_p",
        "test_excess_r",
        "test_excess_perm_p",
        "null_r_median",
        "null_r_q95",
        "null_p",
        "n_models",
        "n_combinations",
        "n_skipped",
        "selection",
    ]
    assert (curve["perm_p_floor"] == 1 / 100).all() and (curve["n_models"] == 5).all()
    assert (curve["measure"] == "eq1").all()
    assert (curve["test_r_lo"] <= curve["test_r_hi"]).all() and curve["test_r_lo"].between(-1, 1).all()
    assert curve[["excess_perm_p", "test_excess_perm_p"]].stack().between(1 / 100, 1).all()
    assert curve["null_p"].between(1 / 21, 1).all(), "20 null draws: p at least 1/21"
    headline = pd.read_csv(files["table"])
    assert (headline["bias_lo"] <= headline["bias_hi"]).all() and (headline["rank_lo"] <= headline["rank_hi"]).all()
    assert np.allclose(headline["excess_bias"], headline["bias"] - headline["null_floor"])
    assert set(curve["pair"]) == {"BOLD~HONEST", "BOLD~HolisticBias", "HONEST~HolisticBias"}
    # 4 paraphrase sets, multisets: k=1 -> 1, k=2 -> 4, k=3 -> 10 combinations.
    assert curve.groupby("k")["n_combinations"].first().to_dict() == {1: 1, 2: 4, 3: 10}
    assert curve["perm_p"].between(1 / 100, 1).all()
    summary = json.loads(Path(files["summary"]).read_text())
    assert summary["settings"]["max_sets"] == 3 and len(summary["pairs"]) == 3
    assert {p["permutation_p_floor"] for p in summary["pairs"]} == {1 / 100}
    assert [(w["axis"], w["split"], w["metrics"]) for w in summary["kendall_w"]] == [
        ("gender", split, ["BOLD", "HONEST", "HolisticBias"]) for split in ("test", "valid")
    ]


def test_cairo_select_on_statistics_from_before_clusters_says_what_to_rerun(tmp_path):
    stats = _synthetic_stats(tmp_path, group_key=None, score_sq_sum=None)
    result = biasflow("cairo-select", "--stats", str(stats), "--out-dir", str(tmp_path / "out"))
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert "written by an earlier biasflow" in result.stderr
    assert "snakemake --cores 2 --forcerun cairo_stats results/cairo/<axis>.csv" in result.stderr
    assert not (tmp_path / "out").exists()


def test_cairo_select_makes_each_axis_the_selection_of_its_own_statistics(tmp_path):
    """Several axes: one selection per axis, each under its axis's names, as the workflow's job of that axis makes
    it from that axis's statistics alone."""
    stats = _synthetic_stats(tmp_path, axes=("gender", "religion"), metrics=("BOLD", "HONEST"))  # a pair per axis
    alone = tmp_path / "gender.parquet"
    pd.read_parquet(stats).query("axis == 'gender'").to_parquet(alone)
    for given, out in ((stats, tmp_path / "out"), (alone, tmp_path / "alone")):
        result = biasflow(
            "cairo-select",
            "--stats",
            str(given),
            "--out-dir",
            str(out),
            "--max-sets",
            "2",
            "--permutations",
            "0",
            "--mode",
            "independent",
            # Few draws (not none): each axis's intervals and null come from draws of its own statistics.
            "--bootstrap",
            "20",
            "--null-draws",
            "20",
        )
        assert result.returncode == 0, result.stderr
    both = {axis: in_folder(tmp_path / "out", "select", axis) for axis in ("gender", "religion")}
    assert sorted((tmp_path / "out").iterdir()) == sorted(Path(p) for files in both.values() for p in files.values())
    assert set(pd.read_csv(both["religion"]["curve"])["axis"]) == {"religion"}
    assert json.loads(Path(both["religion"]["summary"]).read_text())["pairs"][0]["axis"] == "religion"
    for role, path in in_folder(tmp_path / "alone", "select", "gender").items():
        assert Path(both["gender"][role]).read_text() == Path(path).read_text(), role
    gender = pd.read_csv(both["gender"]["curve"])
    assert gender["perm_p"].isna().all(), "0 permutations turns the p-value off"
    assert gender["selection"].str.contains(r" \| ").all(), "independent mode names each metric's combination"


def test_cairo_select_rejects_a_table_without_counts(tmp_path):
    stats = _synthetic_stats(tmp_path, n=None)
    result = biasflow("cairo-select", "--stats", str(stats), "--out-dir", str(tmp_path / "out"))
    assert result.returncode == 2
    assert "lacks the column(s) n" in result.stderr
    assert not (tmp_path / "out").exists()


def _continuations(tmp_path, rows):
    path = tmp_path / "continuations.csv"
    pd.DataFrame(rows, columns=["prompt_id", "side", "sample", "text"]).to_csv(path, index=False)
    return path


def test_fairpair_score_writes_one_row_per_prompt_and_dissimilarity(tmp_path):
    rows = [
        ("p1", "perturbed_original", 0, "she was a kind nurse"),
        ("p1", "perturbed_original", 1, "she was a strict nurse"),
        ("p1", "counterfactual", 0, "she was a kind nurse"),
        ("p1", "counterfactual", 1, "she liked her job"),
    ]
    out = tmp_path / "scores.csv"
    result = biasflow("fairpair-score", "--continuations", str(_continuations(tmp_path, rows)), "--out", str(out))
    assert result.returncode == 0, result.stderr
    scores = pd.read_csv(out).set_index("dissimilarity")
    assert list(scores.columns[:5]) == ["prompt_id", "B", "V_pg", "V_gp", "F"]
    # Jaccard by hand: token sets a0={she,was,a,kind,nurse}, a1={she,was,a,strict,nurse},
    # b0=a0, b1={she,liked,her,job}. d(a0,b0)=0, d(a0,b1)=7/8, d(a1,b0)=2/6, d(a1,b1)=7/8.
    assert np.isclose(scores.loc["jaccard", "B"], (0 + 7 / 8 + 2 / 6 + 7 / 8) / 4)
    assert np.isclose(scores.loc["jaccard", "V_pg"], 2 / 6) and np.isclose(scores.loc["jaccard", "V_gp"], 7 / 8)
    summary = pd.read_csv(tmp_path / "scores_summary.csv")
    assert list(summary["dissimilarity"]) == ["jaccard", "sentiment"] and set(summary["model"]) == {"continuations"}
    assert {"F_excess", "F_excess_lo", "F_excess_hi", "R_excess", "R_null_lo", "p_perm"} <= set(summary.columns)


def test_fairpair_score_with_neutral_texts_gives_no_negative_or_huge_null_and_a_headline(tmp_path):
    """6 prompts x 5 samples, half the texts without sentiment words (VADER 0): each side's within sum is exact."""
    rng = np.random.default_rng(0)
    neutral = ["The table is there.", "He went to the office.", "It is a chair.", "They walked home."]
    toned = ["She is wonderful and kind.", "He is terrible at work.", "A great day.", "I love this job.", "Sad news."]
    rows = [
        (f"p{p}", side, s, rng.choice(neutral) if rng.random() < 0.5 else rng.choice(toned))
        for p in range(6)
        for side in ("perturbed_original", "counterfactual")
        for s in range(5)
    ]
    out = tmp_path / "scores.csv"
    result = biasflow(
        "fairpair-score",
        "--continuations",
        str(_continuations(tmp_path, rows)),
        "--out",
        str(out),
        "--summary",
        str(tmp_path / "headline.csv"),
        "--null-draws",
        "200",
        "--bootstrap",
        "200",
    )
    assert result.returncode == 0, result.stderr
    sentiment = pd.read_csv(out).query("dissimilarity == 'sentiment'")
    assert sentiment["F_null_mean"].between(0, 100).all(), sentiment["F_null_mean"].tolist()
    headline = pd.read_csv(tmp_path / "headline.csv").set_index("dissimilarity").loc["sentiment"]
    assert 0 < headline["p_perm"] <= 1 and headline["n_tested"] >= 1


def test_fairpair_score_refuses_one_path_for_both_tables(tmp_path):
    rows = [("p1", side, s, "a b") for side in ("perturbed_original", "counterfactual") for s in range(2)]
    result = biasflow(
        "fairpair-score",
        "--continuations",
        str(_continuations(tmp_path, rows)),
        "--out",
        str(tmp_path / "x.csv"),
        "--summary",
        str(tmp_path / "x.csv"),
    )
    assert result.returncode == 2 and "--summary" in result.stderr and "Traceback" not in result.stderr


def test_fairpair_score_needs_both_sides_and_two_samples(tmp_path):
    one_side = [("p1", "perturbed_original", 0, "a"), ("p1", "perturbed_original", 1, "b")]
    result = biasflow(
        "fairpair-score", "--continuations", str(_continuations(tmp_path, one_side)), "--out", str(tmp_path / "x.csv")
    )
    assert result.returncode == 2 and "one side only" in result.stderr
    single = [("p1", "perturbed_original", 0, "a"), ("p1", "counterfactual", 0, "b")]
    result = biasflow(
        "fairpair-score", "--continuations", str(_continuations(tmp_path, single)), "--out", str(tmp_path / "x.csv")
    )
    assert result.returncode == 2 and "fewer than 2 samples per side" in result.stderr
    assert not (tmp_path / "x.csv").exists()


def _predictions(path, rows):
    pd.DataFrame(rows, columns=["y_true", "y_pred", "category", "group", "text", "run_id"]).to_csv(
        path, sep="\t", index=False
    )
    return path


def test_fpr_gaps_on_prediction_files_named_by_model(tmp_path):
    """Two runs; group A is always called negative on its neutral sentence, group B never."""
    rows = []
    for run in ("r0", "r1"):
        rows += [
            (1, 0, "race", "A", "a1", run),
            (2, 2, "race", "A", "a2", run),
            (1, 1, "race", "B", "b1", run),
            (2, 2, "race", "B", "b2", run),
        ]
    files = [_predictions(tmp_path / "modelx.tsv", rows)]
    out = tmp_path / "gaps.csv"
    result = biasflow("fpr-gaps", "--predictions", *map(str, files), "--out", str(out))
    assert result.returncode == 0, result.stderr
    gaps = pd.read_csv(out).set_index("group")
    assert set(gaps["model"]) == {"modelx"}
    # negative FPR: A = 1/2 (the neutral sentence of 2 non-negatives), B = 0; mean 0.25.
    assert np.isclose(gaps.loc["A", "negative_FPR_gap"], 0.25, atol=1e-8)
    assert np.isclose(gaps.loc["B", "negative_FPR_gap"], -0.25, atol=1e-8)
    # Identical runs have no run-to-run spread: no interval and no test, not a zero width (docs/methods.md §3.3).
    assert gaps[["negative_FPR_gap_width", "negative_FPR_gap_p"]].isna().all().all()
    assert "runs identical: no run-to-run spread to test against" in result.stderr


def test_fpr_gaps_rejects_a_file_without_predictions(tmp_path):
    path = tmp_path / "m.tsv"
    pd.DataFrame({"y_true": [1], "category": ["race"], "group": ["A"], "text": ["t"], "run_id": ["r"]}).to_csv(
        path, sep="\t", index=False
    )
    result = biasflow("fpr-gaps", "--predictions", str(path), "--out", str(tmp_path / "g.csv"))
    assert result.returncode == 2 and "y_pred" in result.stderr
    assert not (tmp_path / "g.csv").exists()


def test_a_wheel_installed_outside_the_checkout_has_every_bundled_file(tmp_path):
    """The schema, templates, probe sets and prompt sets are package data: the commands that read them work
    from a built wheel installed away from any checkout, in a folder that holds only a user's config.

    The wheel is built by setuptools' PEP 517 hook, as `pip wheel` builds it (without pip's own process around
    the hook), and installed by unpacking it to a folder, as `pip install --target` lays out a pure-Python
    wheel; the commands run in one fresh interpreter with that folder first on its path."""
    import shutil
    import zipfile

    project = tmp_path / "project"
    shutil.copytree(REPO / "src", project / "src", ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(REPO / name, project / name)
    built = subprocess.run(
        [sys.executable, "-c", "import sys; from setuptools import build_meta; build_meta.build_wheel(sys.argv[1])"]
        + [str(tmp_path)],
        capture_output=True,
        text=True,
        cwd=project,
    )
    assert built.returncode == 0, built.stderr
    [wheel] = tmp_path.glob("biasflow-*.whl")
    site = tmp_path / "site"
    with zipfile.ZipFile(wheel) as archive:
        archive.extractall(site)
    shipped = {
        p.relative_to(REPO / "src/biasflow/data") for p in (REPO / "src/biasflow/data").rglob("*") if p.is_file()
    }
    assert shipped and all((site / "biasflow" / "data" / name).is_file() for name in shipped)
    user = tmp_path / "user"
    user.mkdir()
    shutil.copy(REPO / "config/config.yaml", user / "my.yaml")

    metrics = ("BOLD", "HolisticBias", "HONEST")
    commands = [["check-config", "my.yaml"]] + [
        ["prompts", "--config", "my.yaml", "--metric", metric, "--axis", "gender", "--out", f"{metric}.csv"]
        for metric in metrics
    ]
    code = (
        f"import sys, biasflow, biasflow.cli; "
        f"assert biasflow.__file__.startswith({str(site)!r}), biasflow.__file__; "
        f"sys.exit(next((status for argv in {commands!r} if (status := biasflow.cli.main(argv))), 0))"
    )
    # The wheel's folder first on the child's path (PYTHONPATH), ahead of this checkout's editable install.
    ran = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        cwd=user,
        env={**os.environ, "PYTHONPATH": str(site)},
    )
    assert ran.returncode == 0, ran.stderr
    assert "my.yaml: ok" in ran.stdout
    for metric in metrics:
        assert set(pd.read_csv(user / f"{metric}.csv")["subgroup"]) == {"female", "male"}


# Every subcommand with --out, with arguments that would fail later: the output check comes first.
OUT_COMMANDS = {
    "prompts": ["prompts", "--metric", "BOLD", "--axis", "gender", "--data", "nowhere"],
    "score": ["score", "--scorer", "vader", "--continuations", "nowhere.csv"],
    "fairpair-score": ["fairpair-score", "--continuations", "nowhere.csv"],
    "fpr-gaps": ["fpr-gaps", "--predictions", "nowhere.tsv"],
}


@pytest.mark.parametrize("command", OUT_COMMANDS)
def test_a_bad_out_is_one_line_before_any_work(tmp_path, capsys, command):
    from biasflow.cli import main

    assert main([*OUT_COMMANDS[command], "--out", str(tmp_path / "table.xlsx")]) == 2
    err = capsys.readouterr().err
    assert (
        f"biasflow: --out {tmp_path / 'table.xlsx'}: cannot write a .xlsx file; name the file with .csv, .tsv or "
        ".parquet." in err
    )
    folder = tmp_path / "results"
    folder.mkdir()
    assert main([*OUT_COMMANDS[command], "--out", str(folder)]) == 2
    err = capsys.readouterr().err
    assert f"biasflow: --out {folder} is a directory; name a file inside it, e.g. {folder / 'table.csv'}." in err
    assert list(tmp_path.iterdir()) == [folder] and not list(folder.iterdir())


def test_a_bad_summary_or_cache_dir_is_refused_too(tmp_path, capsys):
    from biasflow.cli import main

    (tmp_path / "cache").write_text("not a folder")
    assert main([*OUT_COMMANDS["score"], "--out", str(tmp_path / "s.csv"), "--cache-dir", str(tmp_path / "cache")]) == 2
    assert f"biasflow: --cache-dir {tmp_path / 'cache'} is a file, not a folder" in capsys.readouterr().err
    assert main([*OUT_COMMANDS["prompts"], "--out", str(tmp_path / "p.csv"), "--summary", str(tmp_path / "s.txt")]) == 2
    assert f"biasflow: --summary {tmp_path / 's.txt'}: cannot write a .txt file" in capsys.readouterr().err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cache"]


def test_a_directory_as_out_prints_no_traceback(tmp_path):
    """The entry point as a shell runs it: a process of its own, exit status 2, one line on stderr."""
    result = subprocess.run(
        [sys.executable, "-m", "biasflow.cli", "fpr-gaps", "--predictions", "nowhere.tsv", "--out", str(tmp_path)],
        capture_output=True,
        text=True,
        cwd=REPO,
    )
    assert result.returncode == 2
    assert "Traceback" not in result.stderr and "ValueError" not in result.stderr
    assert (
        result.stderr.strip() == f"biasflow: --out {tmp_path} is a directory; name a file inside it, "
        f"e.g. {tmp_path / 'table.csv'}."
    )


def test_no_help_text_prints_a_doubled_percent_sign():
    """argparse fills in a flag's help with %, not a command's description, so "95%%" prints as written (issue 39)."""
    from biasflow.cli import build_parser

    parser = build_parser()
    for name, sub in next(a for a in parser._actions if a.dest == "command").choices.items():
        assert "%%" not in sub.format_help(), name
    for command, words in (("compare", "a paired 90% interval"), ("scorer-agreement", "their 95% rank interval")):
        assert words in " ".join(biasflow(command, "--help").stdout.split()), command
