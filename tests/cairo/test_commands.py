"""CAIRO's steps and ``biasflow cairo-*`` commands on bad input: one line, exit 2, nothing written."""

from __future__ import annotations

import itertools
import logging
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from biasflow.cairo import headline, steps
from biasflow.cairo.outputs import SELECT, in_folder
from biasflow.cairo.selection import SearchSettings
from biasflow.cli import main
from biasflow.config import check_config, resolve_bundled, validate_config
from biasflow.errors import BiasflowError
from biasflow.model_pairs import SKIPPED
from stats_helpers import drawn_stats
from workflow_helpers import embedded_config

SETTINGS = SearchSettings.defaults(max_sets=2, permutations=0, bootstrap=50, null_draws=20)


def stats_file(tmp_path, nan_at=None):
    """Statistics of 2 metrics and 4 models; ``nan_at``: (metric, promptset, split) whose first score_sum is NaN."""
    stats = drawn_stats(np.random.default_rng(5), [f"m{i}" for i in range(4)], ["BOLD", "HONEST"], ["p0", "p1"])
    if nan_at:
        metric, promptset, split = nan_at
        at = stats.index[(stats.metric == metric) & (stats.promptset == promptset) & (stats.split == split)][0]
        stats.loc[at, "score_sum"] = np.nan
    path = tmp_path / "stats.parquet"
    stats.to_parquet(path)
    return path


def test_one_nan_in_a_valid_bold_cell_is_an_error_not_an_empty_selection(tmp_path, capsys):
    """It used to exit 0 with every BOLD pair's rows empty and counted as skipped. (In this process: the entry point's
    exit status and stderr as a shell sees them are tests/core/test_cli.py's.)"""
    stats = stats_file(tmp_path, nan_at=("BOLD", "p1", "valid"))
    out = tmp_path / "out"
    command = ["cairo-select", "--stats", str(stats), "--out-dir", str(out), "--permutations", "0", "--max-sets", "2"]
    assert main(command) == 2
    [line] = capsys.readouterr().err.strip().splitlines()
    assert line.startswith(f"biasflow: CAIRO statistics {stats}: column score_sum must be a finite number")
    assert "1 row(s)" in line and "model=m0, metric=BOLD, promptset=p1, subgroup=g0, split=valid" in line
    assert "Recompute the statistics with `biasflow cairo-stats`" in line
    assert not out.exists()


def test_the_workflow_step_checks_the_same_way(tmp_path):
    stats = stats_file(tmp_path, nan_at=("HONEST", "original", "test"))
    outputs = {role: str(tmp_path / "out" / name.format(run="", axis="gender")) for role, name in SELECT.items()}
    with pytest.raises(BiasflowError, match=r"column score_sum must be a finite number.*metric=HONEST"):
        steps.cairo_select(
            stats_paths=[str(stats)], settings=SETTINGS, prompt_summary=str(tmp_path / "summary.csv"), outputs=outputs
        )
    assert not (tmp_path / "out").exists()


def test_a_failure_after_the_search_leaves_earlier_results_untouched(tmp_path, monkeypatch):
    """The files are written together once everything is computed: none of them, or all."""
    stats = stats_file(tmp_path)
    out = tmp_path / "out"
    out.mkdir()
    (out / "gender_curve.csv").write_text("earlier run\n")

    def broken(*args):
        raise RuntimeError("summary failed")

    monkeypatch.setattr(headline, "summary", broken)
    with pytest.raises(RuntimeError):
        steps.select_to_directory(stats_paths=[str(stats)], settings=SETTINGS, out_dir=str(out))
    assert sorted(p.name for p in out.iterdir()) == ["gender_curve.csv"]
    assert (out / "gender_curve.csv").read_text() == "earlier run\n"
    monkeypatch.undo()
    steps.select_to_directory(stats_paths=[str(stats)], settings=SETTINGS, out_dir=str(out))
    written = in_folder(out, "select", "gender")
    assert sorted(out.iterdir()) == sorted(map(Path, written.values()))
    assert [Path(written[role]).name for role in ("table", "curve", "summary")] == [
        "gender.csv",
        "gender_curve.csv",
        "gender.json",
    ]
    assert len(pd.read_csv(written["curve"])) == 2


@pytest.mark.parametrize("command", ["cairo-select", "cairo-stats"])
def test_an_out_dir_that_is_a_file_is_refused_before_any_work(tmp_path, capsys, command):
    target = tmp_path / "results.csv"
    target.write_text("keep\n")
    inputs = (
        ["--stats", str(tmp_path / "missing.parquet")]
        if command == "cairo-select"
        else ["--continuations", "c.csv", "--scores", "s.csv", "--scorer", "vader"]
    )
    assert main([command, *inputs, "--out-dir", str(target)]) == 2
    err = capsys.readouterr().err
    assert f"biasflow: --out-dir {target} is a file, not a folder; name a folder" in err
    assert target.read_text() == "keep\n"


def continuation_table(models=("m1", "m2", "m3", "m4")) -> pd.DataFrame:
    """Continuations of two metrics on gender, two subgroups with two group keys per split, original and one
    paraphrase set: every column the workflow's continuation tables have."""
    rng = np.random.default_rng(3)
    words = ["you are an idiot", "what a lovely day", "shut up, stupid", "she is kind", "he works hard", "damn it"]
    rows = []
    for model, metric, subgroup, split, key, promptset in itertools.product(
        models, ("BOLD", "HONEST"), ("female", "male"), ("valid", "test"), ("k1", "k2"), ("original", "para-s0")
    ):
        prompt_id = f"{metric}-{subgroup}-{split}-{key}-{promptset}"
        rows.append(
            {
                "prompt_id": prompt_id,
                "metric": metric,
                "axis": "gender",
                "subgroup": subgroup,
                "split": split,
                "group_key": key,
                "promptset": promptset,
                "source_id": prompt_id,
                "text": f"the {subgroup} worked as",
                "identity_term": subgroup,
                "model": model,
                "seed": 0,
                "sample": 0,
                "continuation": str(rng.choice(words)),
                "n_tokens": 4,
            }
        )
    return pd.DataFrame(rows)


def test_the_documented_commands_chain_on_their_own_outputs(tmp_path):
    """README: score continuations, pool them into statistics, select on those statistics, each on the last's files."""
    continuation_table().to_parquet(tmp_path / "continuations.parquet")
    assert (
        main(
            [
                "score",
                "--scorer",
                "profanity",
                "--continuations",
                str(tmp_path / "continuations.parquet"),
                "--out",
                str(tmp_path / "scores.parquet"),
            ]
        )
        == 0
    )
    scored = pd.read_parquet(tmp_path / "scores.parquet")
    assert (scored["scorer"] == "profanity").all() and scored["score"].between(0, 1).all()
    assert (
        main(
            [
                "cairo-stats",
                "--continuations",
                str(tmp_path / "continuations.parquet"),
                "--scores",
                str(tmp_path / "scores.parquet"),
                "--scorer",
                "profanity",
                "--out-dir",
                str(tmp_path / "stats"),
            ]
        )
        == 0
    )
    stats = pd.read_parquet(tmp_path / "stats" / "stats" / "gender.parquet")
    pooled = stats.groupby(["model", "metric", "split", "promptset", "subgroup"])["score_sum"].sum()
    direct = scored.groupby(["model", "metric", "split", "promptset", "subgroup"])["score"].sum()
    pd.testing.assert_series_equal(pooled, direct, check_names=False)
    assert (
        main(
            [
                "cairo-select",
                "--stats",
                str(tmp_path / "stats" / "stats" / "gender.parquet"),
                "--out-dir",
                str(tmp_path / "out"),
                "--permutations",
                "19",
                "--bootstrap",
                "20",
                "--null-draws",
                "10",
            ]
        )
        == 0
    )
    curve = pd.read_csv(tmp_path / "out" / "gender_curve.csv")
    assert list(curve["pair"].unique()) == ["BOLD~HONEST"] and list(curve["k"]) == [1, 2, 3, 4]


def test_check_config_refuses_the_excess_measure_without_null_draws():
    """What the config alone shows is refused before any job runs (docs/methods.md §1.13)."""
    config = embedded_config()
    config["cairo"]["bias"] = {**config["cairo"]["bias"], "measure": "excess"}
    config["cairo"]["selection"] = {**config["cairo"]["selection"], "null_draws": 0}
    validate_config(config)
    resolve_bundled(config)
    with pytest.raises(BiasflowError, match=r"set cairo.selection.null_draws \(--null-draws\) above 0"):
        check_config(config, environment=False)
    config["cairo"]["selection"]["null_draws"] = 10
    check_config(config, environment=False)


@pytest.mark.parametrize("role", ["table", "curve", "comparisons", "variance"])
def test_cairo_select_refuses_statistics_it_would_overwrite(role, tmp_path, monkeypatch, capsys):
    """Every file cairo-select writes of each axis is checked against its inputs (cairo/outputs.py in_folder),
    before the search."""
    monkeypatch.chdir(tmp_path)
    written = in_folder("out", "select", "gender")[role]
    Path(written).parent.mkdir()
    pd.read_parquet(stats_file(tmp_path)).to_csv(written, index=False)
    before = Path(written).read_text()
    assert main(["cairo-select", "--stats", written, "--out-dir", "out"]) == 2
    assert f"--out-dir {written} is also the input given as --stats" in capsys.readouterr().err
    assert Path(written).read_text() == before


def test_cairo_stats_refuses_continuations_it_would_overwrite(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    written = in_folder("out", "stats", "gender")["stats"]
    Path(written).parent.mkdir(parents=True)
    continuations = continuation_table()
    continuations.to_parquet(written)
    continuations[["prompt_id", "model", "seed", "sample"]].assign(scorer="x", score=0.5).to_parquet("scores.parquet")
    before = Path(written).read_bytes()
    command = ["cairo-stats", "--continuations", written, "--scores", "scores.parquet", "--scorer", "x"]
    assert main([*command, "--out-dir", "out"]) == 2
    assert f"--out-dir {written} is also the input given as --continuations" in capsys.readouterr().err
    assert Path(written).read_bytes() == before


@pytest.mark.parametrize(
    ("given", "message"),
    [
        (["a=a.csv"], "--bias: give two or more scorers' bias tables"),
        (["a=a.csv", "a.csv"], "--bias a.csv: give a scorer's name and its bias table as SCORER=CSV."),
        (["a=a.csv", "a=b.csv"], "--bias names scorer 'a' twice"),
        (["a=a.csv", "b=missing.csv"], "--bias missing.csv: no such file"),
        (["a=a.csv", "b=out.csv"], "--out out.csv is also the input given as --bias"),
    ],
)
def test_scorer_agreement_refuses_bad_tables_before_writing(given, message, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    for name in ("a.csv", "b.csv", "out.csv"):
        (tmp_path / name).write_text("model\n")
    assert main(["scorer-agreement", "--bias", *given, "--out", "out.csv"]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err and len(err.strip().splitlines()) == 1, err
    assert (tmp_path / "out.csv").read_text() == "model\n"


def test_pairs_none_writes_no_comparisons_and_a_baseline_only_its_pairs(tmp_path, caplog):
    """docs/methods.md §7: cairo-select --pairs none writes no <axis>_comparisons.csv (the other files as all pairs' run
    writes them, and one line says so); --baseline m2 writes each model against m2."""
    stats = stats_file(tmp_path)
    caplog.set_level(logging.INFO, logger="biasflow")
    runs = {
        "every": ([], "comparisons: every pair of models"),
        "none": (["--pairs", "none"], SKIPPED),
        "against": (["--baseline", "m2"], "comparisons: every model against the baseline m2"),
    }
    for name, (flags, line) in runs.items():
        caplog.clear()
        assert (
            main(
                [
                    "cairo-select",
                    "--stats",
                    str(stats),
                    "--out-dir",
                    str(tmp_path / name),
                    "--max-sets",
                    "2",
                    "--permutations",
                    "19",
                    "--bootstrap",
                    "30",
                    "--null-draws",
                    "10",
                    *flags,
                ]
            )
            == 0
        )
        assert [message for message in caplog.messages if "compar" in message] == [line]
    none = in_folder(tmp_path / "none", "select", "gender", compares=False)
    every = in_folder(tmp_path / "every", "select", "gender")
    assert sorted((tmp_path / "none").iterdir()) == sorted(map(Path, none.values()))
    assert sorted((tmp_path / "every").iterdir()) == sorted(map(Path, every.values()))
    assert set(every) - set(none) == {"comparisons"}
    for role in ("table", "curve", "variance"):
        assert Path(none[role]).read_text() == Path(every[role]).read_text(), role
    against = pd.read_csv(in_folder(tmp_path / "against", "select", "gender")["comparisons"])
    assert sorted(set(zip(against["model_a"], against["model_b"], strict=True))) == [
        ("m0", "m2"),
        ("m1", "m2"),
        ("m3", "m2"),
    ]


def test_a_baseline_that_is_no_model_is_refused_before_the_search(tmp_path, capsys):
    stats = stats_file(tmp_path)
    out = tmp_path / "out"
    assert main(["cairo-select", "--stats", str(stats), "--out-dir", str(out), "--baseline", "m9"]) == 2
    err = capsys.readouterr().err
    assert err.strip() == (
        "biasflow: the baseline 'm9' is not a model of --stats (its models: m0, m1, m2, m3); name one "
        "of them (--baseline MODEL on a command, comparisons.baseline in the config)."
    )
    assert not out.exists()
