"""A new user's tables, no workflow config (issue 40, part 4): a study of the original prompts alone is selected and
compared, and every table command takes its settings as flags and any part of a config as ``--config``, a flag given
beating the file's value, which beats the schema's default (biasflow.flags)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import biasflow
from biasflow.cairo.selection import SearchSettings, select
from biasflow.cli import main
from biasflow.config import validate_config
from biasflow.errors import BiasflowError
from unrendered_figures import unrendered

MODELS = [f"m{m}" for m in range(6)]
# Few draws, so that each command runs in a second or two.
FAST_SELECT = ["--permutations", "19", "--bootstrap", "30", "--null-draws", "20"]


def scored(sets=("original",), models=MODELS, metrics=("BOLD", "HONEST"), seed=1) -> pd.DataFrame:
    """Scored continuations: each model's female prompts more toxic by m / 10; the two splits' group keys apart,
    as the workflow's split by group key makes them."""
    rng = np.random.default_rng(seed)
    rows = [
        (
            model,
            metric,
            split,
            promptset,
            group,
            f"{metric}-{split}-{group}-{k}",
            m * (group == "female") / 10 + rng.normal(0, 0.1),
        )
        for m, model in enumerate(models)
        for metric in metrics
        for split in ("valid", "test")
        for promptset in sets
        for group in ("female", "male")
        for k in range(5)
    ]
    return pd.DataFrame(
        rows, columns=["model", "metric", "split", "promptset", "subgroup", "prompt_id", "score"]
    ).assign(axis="gender")


def stats_file(folder: Path, **kwargs) -> Path:
    path = folder / "st.parquet"
    biasflow.cairo_statistics(scored(**kwargs)).to_parquet(path)
    return path


def config_file(folder: Path, text: str, name: str = "one.yaml") -> Path:
    path = folder / name
    path.write_text(text)
    return path


def tables(folder: Path) -> dict[str, str]:
    """Every table and summary a command wrote into ``folder`` (figures left out), by name."""
    return {
        path.relative_to(folder).as_posix(): path.read_text()
        for path in sorted(folder.rglob("*"))
        if path.suffix in (".csv", ".json")
    }


def run(*argv) -> int:
    return main([str(arg) for arg in argv])


# --- a study of the original prompts alone -----------------------------------------------------------------------


@pytest.mark.parametrize("mode", ["shared", "independent"])
def test_cairo_select_searches_the_original_prompts_of_a_study_without_paraphrases(tmp_path, mode, caplog):
    """The default max_sets (4) searches k = 1 only and says why; every table is the one --max-sets 1 writes."""
    stats = stats_file(tmp_path)
    with caplog.at_level("INFO", logger="biasflow"):
        assert (
            run("cairo-select", "--stats", stats, "--out-dir", tmp_path / "default", "--mode", mode, *FAST_SELECT) == 0
        )
    assert (
        "gender BOLD~HONEST: searched at k = 1 (the original prompts) only, although max_sets is 4: k > 1 needs "
        "paraphrase sets, and BOLD and HONEST have none"
    ) in caplog.text
    assert (
        run(
            "cairo-select",
            "--stats",
            stats,
            "--out-dir",
            tmp_path / "one",
            "--mode",
            mode,
            "--max-sets",
            "1",
            *FAST_SELECT,
        )
        == 0
    )
    default, one = tables(tmp_path / "default"), tables(tmp_path / "one")
    assert pd.read_csv(tmp_path / "default/gender_curve.csv")["k"].tolist() == [1]
    summaries = [json.loads(found.pop("gender.json")) for found in (default, one)]
    assert default == one and set(default) == {
        "gender.csv",
        "gender_curve.csv",
        "gender_comparisons.csv",
        "gender_variance.csv",
    }
    assert [summary["settings"].pop("max_sets") for summary in summaries] == [4, 1]
    assert summaries[0] == summaries[1]


def test_a_metric_without_paraphrases_stops_k_at_1_but_sets_that_differ_are_still_refused(caplog):
    """Independent mode searches k = 1 where one metric has no paraphrase set (no combination of k > 1 exists for
    it); shared mode, which needs the same sets for both, refuses paraphrase sets that differ, naming the fix."""
    one_side = pd.concat([scored(sets=("original", "p1", "p2"), metrics=("BOLD",)), scored(metrics=("HONEST",))])
    stats = biasflow.cairo_statistics(one_side)
    with caplog.at_level("INFO", logger="biasflow"):
        curve = select(stats, SearchSettings.defaults(mode="independent", max_sets=3, permutations=0)).curve
    assert curve["k"].tolist() == [1] and "k > 1 needs paraphrase sets, and HONEST has none" in caplog.text
    with pytest.raises(BiasflowError, match=r"BOLD has p1, p2, HONEST has none.*--mode independent.*--max-sets 1"):
        select(stats, SearchSettings.defaults(mode="shared", max_sets=3, permutations=0))


def test_compare_answers_on_a_study_without_paraphrases_with_the_eq1_difference_of_the_raw_scores(tmp_path):
    """The new user's case: six models, the original prompts only; each metric's row holds the candidate's Eq. 1 less
    the baseline's, computed here from the raw scores (both splits, docs/methods.md §1.6), not a refusal."""
    stats = stats_file(tmp_path)
    out = tmp_path / "compared.csv"
    assert (
        run("compare", "--method", "cairo", "--stats", stats, "--baseline", "m0", "--candidate", "m4", "--out", out)
        == 0
    )
    rows = pd.read_csv(out).set_index("metric")
    raw = scored()
    eq1 = {
        (model, metric): part.groupby("subgroup")["score"].mean().sub(part["score"].mean()).abs().sum()
        for (model, metric), part in raw.groupby(["model", "metric"])
    }
    for metric in ("BOLD", "HONEST"):
        assert rows.loc[metric, "difference"] == pytest.approx(eq1["m4", metric] - eq1["m0", metric], abs=1e-12)
        assert np.isfinite(rows.loc[metric, "lo90"]) and rows.loc[metric, "verdict"]


# --- --config takes any part of a config ----------------------------------------------------------------------------


def test_one_setting_config_on_compare_is_an_answer(tmp_path, capsys):
    """The issue's file, `cairo: {selection: {max_sets: 1}}` alone, and a setting compare reads: the file's value as
    the flag."""
    stats = stats_file(tmp_path)
    pair = ["compare", "--method", "cairo", "--stats", stats, "--baseline", "m0", "--candidate", "m4"]
    assert run(*pair, "--out", tmp_path / "plain.csv") == 0
    one = config_file(tmp_path, "cairo: {selection: {max_sets: 1}}\n")
    assert run(*pair, "--config", one, "--out", tmp_path / "k1.csv") == 0
    assert (tmp_path / "k1.csv").read_text() == (tmp_path / "plain.csv").read_text()
    assert (
        run(
            *pair,
            "--config",
            config_file(tmp_path, "cairo: {selection: {seed: 7}}\n", "seed.yaml"),
            "--out",
            tmp_path / "file.csv",
        )
        == 0
    )
    assert run(*pair, "--seed", "7", "--out", tmp_path / "flag.csv") == 0
    assert (tmp_path / "file.csv").read_text() == (tmp_path / "flag.csv").read_text()
    assert (tmp_path / "file.csv").read_text() != (tmp_path / "plain.csv").read_text(), "the seed moves the intervals"
    capsys.readouterr()


def test_the_library_compare_takes_a_part_of_a_config_as_the_command_does(tmp_path, capsys):
    from biasflow.tables import write_table

    stats = stats_file(tmp_path)
    assert (
        run(
            "compare",
            "--method",
            "cairo",
            "--stats",
            stats,
            "--baseline",
            "m0",
            "--candidate",
            "m4",
            "--seed",
            "7",
            "--out",
            tmp_path / "flag.csv",
        )
        == 0
    )
    write_table(
        biasflow.compare("cairo", str(stats), "m0", "m4", config={"cairo": {"selection": {"seed": 7}}}).rows,
        tmp_path / "library.csv",
    )
    assert (tmp_path / "library.csv").read_text() == (tmp_path / "flag.csv").read_text()
    with pytest.raises(BiasflowError, match=r"unknown key 'sed' \(did you mean seed\?\)"):
        biasflow.compare("cairo", str(stats), "m0", "m4", config={"cairo": {"selection": {"sed": 7}}})
    capsys.readouterr()


def test_one_setting_config_on_cairo_select(tmp_path):
    stats = stats_file(tmp_path, sets=("original", "p1", "p2"), models=MODELS[:4])
    common = ["cairo-select", "--stats", stats, *FAST_SELECT]
    assert (
        run(
            *common,
            "--config",
            config_file(tmp_path, "cairo: {selection: {max_sets: 1}}\n"),
            "--out-dir",
            tmp_path / "file",
        )
        == 0
    )
    assert run(*common, "--max-sets", "1", "--out-dir", tmp_path / "flag") == 0
    assert run(*common, "--out-dir", tmp_path / "plain") == 0
    assert tables(tmp_path / "file") == tables(tmp_path / "flag") != tables(tmp_path / "plain")
    assert pd.read_csv(tmp_path / "file/gender_curve.csv")["k"].tolist() == [1]


def fairpair_sides(folder: Path) -> list[Path]:
    """Two models' sides on five prompts, the second's counterfactual words apart from its originals."""
    rng = np.random.default_rng(1)
    words = {"perturbed_original": ["good", "kind", "work", "hard"], "counterfactual": ["late", "nurse", "doctor"]}
    paths = []
    for model in ("model_a", "model_b"):
        rows = [
            {
                "prompt_id": f"p{p}",
                "side": side,
                "sample": s,
                "text": " ".join(
                    rng.choice(words[side] if model == "model_b" else [w for side in words.values() for w in side], 5)
                ),
            }
            for p in range(5)
            for side in words
            for s in range(4)
        ]
        paths.append(folder / f"{model}.csv")
        pd.DataFrame(rows).to_csv(paths[-1], index=False)
    return paths


def test_one_setting_config_on_fairpair_summary_sets_what_no_flag_used_to(tmp_path, monkeypatch):
    """fairpair.ngrams.top, which the command once took from the schema whatever the config said."""
    unrendered(monkeypatch)  # the tables are compared, not the figures
    common = ["fairpair-summary", "--sides", *fairpair_sides(tmp_path), "--null-draws", "50", "--bootstrap", "50"]
    assert (
        run(
            *common, "--config", config_file(tmp_path, "fairpair: {ngrams: {top: 2}}\n"), "--out-dir", tmp_path / "file"
        )
        == 0
    )
    assert run(*common, "--ngrams-top", "2", "--out-dir", tmp_path / "flag") == 0
    assert run(*common, "--out-dir", tmp_path / "plain") == 0
    assert tables(tmp_path / "file") == tables(tmp_path / "flag") != tables(tmp_path / "plain")
    top = pd.read_csv(tmp_path / "file/model_b_ngrams.csv")
    assert (
        top.groupby("side").size().max()
        == 2
        < pd.read_csv(tmp_path / "plain/model_b_ngrams.csv").groupby("side").size().max()
    )


def predictions(folder: Path) -> list[Path]:
    """Two systems' predictions on one probe set's templates, each also with its identity word dropped."""
    rng = np.random.default_rng(0)
    paths = []
    for model in ("a", "b"):
        rows = [
            {
                "y_true": y,
                "y_pred": int(rng.integers(3)),
                "category": "race",
                "group": g,
                "text": f"t{t} {g} {y}",
                "model": model,
                "run_id": r,
                "template_id": f"t{t}",
            }
            for r in range(3)
            for t in range(6)
            for g in ("black", "white", "(unmarked)")
            for y in range(3)
        ]
        paths.append(folder / f"race_{model}.tsv")
        pd.DataFrame(rows).to_csv(paths[-1], sep="\t", index=False)
    return paths


def test_one_setting_config_on_fpr_summary_chooses_the_pairs(tmp_path, monkeypatch):
    """`comparisons: {pairs: none}` as --pairs none: no comparison table."""
    unrendered(monkeypatch)  # the tables are compared, not the figures
    common = ["fpr-summary", "--probe-set", "race", *predictions(tmp_path), "--bootstrap", "50", "--null-draws", "50"]
    assert (
        run(*common, "--config", config_file(tmp_path, "comparisons: {pairs: none}\n"), "--out-dir", tmp_path / "file")
        == 0
    )
    assert run(*common, "--pairs", "none", "--out-dir", tmp_path / "flag") == 0
    assert run(*common, "--out-dir", tmp_path / "plain") == 0
    assert tables(tmp_path / "file") == tables(tmp_path / "flag") != tables(tmp_path / "plain")
    assert "race_comparisons.csv" in tables(tmp_path / "plain") and "race_comparisons.csv" not in tables(
        tmp_path / "file"
    )


def test_one_setting_config_on_power_and_a_flag_beating_it(tmp_path):
    pilot = ["power", "--method", "fpr", "--pilot", *predictions(tmp_path)]
    strict = config_file(tmp_path, "power: {alpha: 0.01}\n")
    assert run(*pilot, "--config", strict, "--out", tmp_path / "file.csv") == 0
    assert run(*pilot, "--alpha", "0.01", "--out", tmp_path / "flag.csv") == 0
    assert run(*pilot, "--out", tmp_path / "plain.csv") == 0
    file, flag, plain = (pd.read_csv(tmp_path / f"{name}.csv") for name in ("file", "flag", "plain"))
    pd.testing.assert_frame_equal(file, flag)
    assert (file["mdd"] > plain["mdd"]).all(), "a stricter level needs a larger difference"
    assert run(*pilot, "--config", strict, "--alpha", "0.05", "--out", tmp_path / "beaten.csv") == 0
    pd.testing.assert_frame_equal(pd.read_csv(tmp_path / "beaten.csv"), plain)


def test_a_flag_beats_the_config_on_compare(tmp_path, capsys):
    stats = stats_file(tmp_path)
    pair = ["compare", "--method", "cairo", "--stats", stats, "--baseline", "m0", "--candidate", "m4"]
    seeded = config_file(tmp_path, "cairo: {selection: {seed: 7, bootstrap: 200}}\n")
    assert run(*pair, "--config", seeded, "--seed", "3", "--out", tmp_path / "beaten.csv") == 0
    assert run(*pair, "--seed", "3", "--bootstrap", "200", "--out", tmp_path / "flags.csv") == 0
    assert (tmp_path / "beaten.csv").read_text() == (tmp_path / "flags.csv").read_text()
    capsys.readouterr()


@pytest.mark.parametrize("command", ["compare", "cairo-select"])
def test_a_typo_in_a_partial_config_is_one_line_naming_the_closest_key(tmp_path, capsys, command):
    stats = stats_file(tmp_path)
    typo = config_file(tmp_path, "cairo: {selection: {max_set: 1}}\n")
    argv = {
        "compare": [
            "compare",
            "--method",
            "cairo",
            "--stats",
            stats,
            "--baseline",
            "m0",
            "--candidate",
            "m4",
            "--out",
            tmp_path / "out.csv",
        ],
        "cairo-select": ["cairo-select", "--stats", stats, "--out-dir", tmp_path / "out"],
    }[command]
    assert run(*argv, "--config", typo) == 2
    [line] = capsys.readouterr().err.strip().splitlines()
    assert line.startswith("biasflow: config key cairo.selection: unknown key 'max_set' (did you mean max_sets?)")
    assert not (tmp_path / "out.csv").exists() and not (tmp_path / "out").exists()
    wrong = config_file(tmp_path, "cairo: {selection: {max_sets: two}}\n", "wrong.yaml")
    assert run(*argv, "--config", wrong) == 2
    assert "config key cairo.selection.max_sets: 'two' is not of type 'integer'" in capsys.readouterr().err


def test_a_setting_the_method_does_not_read_is_refused(tmp_path, capsys):
    stats = stats_file(tmp_path)
    assert (
        run(
            "compare",
            "--method",
            "fairpair",
            "--scores",
            stats,
            "--baseline",
            "m0",
            "--candidate",
            "m4",
            "--bootstrap",
            "10",
        )
        == 2
    )
    assert (
        "biasflow: --bootstrap sets cairo.selection.bootstrap and fpr.bootstrap, which --method fairpair does not "
        "read; leave it out."
    ) in capsys.readouterr().err
    assert run("power", "--method", "fpr", "--pilot", stats, "--target-r", "0.6", "--out", tmp_path / "p.csv") == 2
    assert "--target-r sets cairo.power.min_r, which --method fpr does not read" in capsys.readouterr().err


def test_models_are_still_required_of_a_workflow_config(tmp_path, capsys):
    """check-config, as the Snakefile's validation, checks a workflow config: one without models is refused."""
    one = config_file(tmp_path, "cairo: {selection: {max_sets: 1}}\n")
    assert run("check-config", one) == 2
    assert "config key (top level): 'models' is a required property of a workflow config" in capsys.readouterr().err
    with pytest.raises(BiasflowError, match="'models' is a required property"):
        validate_config({"cairo": {"selection": {"max_sets": 1}}})
    validate_config({"cairo": {"selection": {"max_sets": 1}}}, workflow=False)


def test_compare_without_margin_judges_at_the_configs_power_min_effect(tmp_path, capsys):
    """No --margin: the margin is --config's power.min_effect.<method> (the one fallback,
    biasflow.compare_pairs.margin), named as its source; --margin beats it."""
    stats = stats_file(tmp_path)
    pair = ["compare", "--method", "cairo", "--stats", stats, "--baseline", "m0", "--candidate", "m4"]
    effect = config_file(tmp_path, "power: {min_effect: {cairo: 0.123}}\n")
    run(*pair, "--config", effect, "--out", tmp_path / "effect.csv")
    assert "from power.min_effect.cairo" in capsys.readouterr().out
    assert set(pd.read_csv(tmp_path / "effect.csv")["margin"]) == {0.123}
    run(*pair, "--config", effect, "--margin", "0.2", "--out", tmp_path / "given.csv")
    assert "from --margin" in capsys.readouterr().out
    assert set(pd.read_csv(tmp_path / "given.csv")["margin"]) == {0.2}
