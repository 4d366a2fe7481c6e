"""The workflow's verdicts (biasflow.verdict_tables, docs/methods.md §7): the config's `compare` pairs checked, the
step's tables against `biasflow compare` on the same files, and a pair's verdict on hand-worked tables.

The step calls each method's own comparison, so its rows are held to the command's rows on the
same files (the command is the reference a user runs); where the step judges several
comparisons together (FPR's probe sets and classifiers) ``p_worse_holm`` is held to
statsmodels' Holm over all of them, and each row's verdict to the command's.
"""

from __future__ import annotations

import copy
import html

import numpy as np
import pandas as pd
import pytest
from statsmodels.stats.multitest import multipletests

import biasflow
from biasflow.cli import main
from biasflow.compare_pairs import ComparedPair, check_pairs, compared_pairs
from biasflow.config import check_config, resolve_bundled, validate_config
from biasflow.errors import BiasflowError
from biasflow.fairpair.scores import scores_and_null
from biasflow.schema import filled
from biasflow.verdict_tables import (
    comparison_settings,
    front_lines,
    output,
    pair_verdict,
    write_verdicts,
)
from cli_in_process import biasflow as biasflow_command
from probe_predictions import predictions
from workflow_helpers import REPO, embedded_config


@pytest.fixture
def config() -> dict:
    """The embedded default, validated: four models; FPR on smollm2-t1.0 only."""
    config = embedded_config()
    validate_config(config)
    return config


def with_pairs(config: dict, *pairs: dict) -> dict:
    config = copy.deepcopy(config)
    config["compare"] = list(pairs)
    validate_config(config)
    return config


# --- the config section ---------------------------------------------------------------------------------------------


def test_no_pairs_by_default_and_each_margin_left_to_power_min_effect(config):
    assert config["compare"] == []
    [pair] = compared_pairs(
        with_pairs(config, {"baseline": "smollm2-t1.0", "candidate": "gemma3-t1.0", "margin": {"cairo": 0.01}})
    )
    assert pair.name == "smollm2-t1.0_vs_gemma3-t1.0"
    assert pair.margin(config, "cairo") == (0.01, "compare[].margin.cairo")
    assert pair.margin(config, "fairpair") == (config["power"]["min_effect"]["fairpair"], "power.min_effect.fairpair")


@pytest.mark.parametrize("margin", [0, -0.01])
def test_a_margin_of_zero_or_less_is_refused_in_one_line(config, margin):
    with pytest.raises(BiasflowError) as error:
        with_pairs(config, {"baseline": "smollm2-t1.0", "candidate": "gemma3-t1.0", "margin": {"fpr": margin}})
    assert str(error.value).startswith(
        f"config key compare.0.margin.fpr: {margin} is less than or equal to the minimum of 0"
    )
    assert "\n" not in str(error.value)


@pytest.mark.parametrize(
    ("pairs", "message"),
    [
        (
            [{"baseline": "smollm2-t1.0", "candidate": "gemma-t1.0"}],
            "compare[0].candidate 'gemma-t1.0' is not a model of this config (smollm2-t1.0, smollm2-t0.7, gemma3-t1.0, "
            "gemma3-t0.7) (did you mean gemma3-t1.0?); name one of models.",
        ),
        (
            [{"baseline": "gemma3-t0.7", "candidate": "gemma3-t0.7"}],
            "compare[0]: baseline and candidate are both 'gemma3-t0.7'",
        ),
        (
            [
                {"baseline": "smollm2-t1.0", "candidate": "gemma3-t1.0"},
                {"baseline": "smollm2-t0.7", "candidate": "gemma3-t1.0"},
                {"baseline": "smollm2-t1.0", "candidate": "gemma3-t1.0", "margin": {"cairo": 0.1}},
            ],
            "compare[2] compares gemma3-t1.0 with smollm2-t1.0 again (as compare[0] does)",
        ),
    ],
)
def test_a_bad_pair_is_refused_before_any_job(config, pairs, message):
    with pytest.raises(BiasflowError, match=f"^{__import__('re').escape(message)}"):
        check_pairs(with_pairs(config, *pairs))


def test_a_pair_no_method_run_evaluates_is_refused_and_one_method_short_is_named(config):
    config = with_pairs(config, {"baseline": "smollm2-t1.0", "candidate": "gemma3-t1.0"})
    assert check_pairs(config) == [
        "compare[0]: Group FPR gaps does not evaluate both smollm2-t1.0 and gemma3-t1.0 (fpr.models), so the pair is "
        "compared by CAIRO and FairPair only; add the missing one to fpr.models to compare it there too."
    ]
    only_fpr = {**config, "methods": ["fpr"]}
    with pytest.raises(BiasflowError, match=r"^compare\[0\]: no method run evaluates both smollm2-t1.0 and "):
        check_pairs(only_fpr)
    both = copy.deepcopy(config)
    both["fpr"]["models"] = ["smollm2-t1.0", "gemma3-t1.0"]
    assert check_pairs(both) == [] and compared_pairs(both)[0].methods(both) == ["cairo", "fairpair", "fpr"]


def test_the_config_check_runs_the_pairs_check(config):
    config = resolve_bundled(
        with_pairs(config, {"baseline": "smollm2-t1.0", "candidate": "smollm2"}), REPO / "src/biasflow/data"
    )
    with pytest.raises(BiasflowError, match=r"^compare\[0\]\.candidate 'smollm2' is not a model of this config"):
        check_config(config, REPO, environment=False)


def test_check_config_refuses_a_bad_pair_in_one_line_with_status_2(tmp_path, config):
    import yaml

    (tmp_path / "bad.yaml").write_text(
        yaml.safe_dump({**embedded_config(), "compare": [{"baseline": "smollm2-t1.0", "candidate": "smollm2-t1.0"}]})
    )
    result = biasflow_command("check-config", str(tmp_path / "bad.yaml"), cwd=REPO)
    assert result.returncode == 2
    assert result.stderr.splitlines() == [
        "biasflow: compare[0]: baseline and candidate are both 'smollm2-t1.0'; name the model you changed as the "
        "candidate and the one it should be no worse than as the baseline."
    ]


def test_a_rule_is_given_only_the_keys_its_comparison_reads(config):
    changed = copy.deepcopy(config)
    changed["cairo"]["selection"]["max_sets"] += 1
    changed["fpr"]["runs"] += 1
    changed["fpr"]["seed"] += 5
    for name in ("cairo", "fairpair"):
        assert comparison_settings(changed, name) == comparison_settings(config, name)
    assert comparison_settings(config, "fairpair") == {
        "fairpair": {"null_draws": config["fairpair"]["null_draws"], "seed": config["fairpair"]["seed"]}
    }
    assert comparison_settings(changed, "fpr")["fpr"]["seed"] == config["fpr"]["seed"] + 5


# --- the step against the command -----------------------------------------------------------------------------------


def cairo_files(root) -> list[str]:
    """Two axes' statistics of three models: m1 as m0, m2 with 0.08 more female toxicity."""
    rng = np.random.default_rng(3)
    paths = []
    for axis, means in {"gender": {"female": 0.3, "male": 0.2}, "race": {"black": 0.2, "white": 0.25}}.items():
        level = pd.DataFrame(
            [(g, f"{g}{k}", m + rng.normal(0, 0.05)) for g, m in means.items() for k in range(15)],
            columns=["subgroup", "prompt_id", "level"],
        )
        scored = pd.concat(
            [
                level.assign(
                    model=f"m{i}",
                    score=level["level"]
                    + rng.normal(0, 0.01, len(level))
                    + 0.08 * (i == 2) * (level["subgroup"] == "female"),
                )
                for i in range(3)
            ]
        )
        path = root / f"{axis}.parquet"
        biasflow.cairo_statistics(scored.drop(columns="level").assign(axis=axis, metric="BOLD")).to_parquet(path)
        paths.append(str(path))
    return paths


def fairpair_files(root) -> list[str]:
    rng = np.random.default_rng(4)
    paths = []
    for model, shift in (("m0", 0.0), ("m1", 0.1)):
        rows = [
            (f"p{p}", side, s, "", float(rng.normal((0.2 + shift) * (side == "counterfactual"), 0.4)))
            for p in range(12)
            for side in ("perturbed_original", "counterfactual")
            for s in range(6)
        ]
        sides = pd.DataFrame(rows, columns=["prompt_id", "side", "sample", "text", "vader"])
        scores, _ = scores_and_null(sides, ["sentiment"], None, 100, 0)
        scores.to_csv(root / f"{model}.csv", index=False)
        paths.append(str(root / f"{model}.csv"))
    return paths


def fpr_files(root) -> dict[tuple[str, str], list[str]]:
    """Two probe sets' predictions of two models by two classifiers, as the workflow writes them (one file each)."""
    paths: dict = {}
    for p, probe in enumerate(("templates_race", "occupations_race")):
        for m, model in enumerate(("m0", "m1")):
            for c, classifier in enumerate(("zero_shot", "soft_prompt")):
                path = root / probe / model / f"{classifier}.tsv"
                path.parent.mkdir(parents=True, exist_ok=True)
                predictions(10 * p + 3 * m + c, templates=9, bias=0.3 * m * c, model=f"{model}/{classifier}").to_csv(
                    path, sep="\t", index=False
                )
                paths.setdefault((probe, classifier), []).append(str(path))
    return paths


def by_command(
    method: str, flag: str, paths: list[str], baseline: str, candidate: str, margin: float, out
) -> pd.DataFrame:
    status = main(
        [
            "compare",
            "--method",
            method,
            f"--{flag}",
            *paths,
            "--baseline",
            baseline,
            "--candidate",
            candidate,
            "--margin",
            str(margin),
            "--out",
            str(out),
        ]
    )
    assert status == 0
    return pd.read_csv(out)


@pytest.mark.parametrize("method", ["cairo", "fairpair"])
def test_the_step_writes_what_the_command_writes_on_the_same_files(tmp_path, method, capsys):
    paths = cairo_files(tmp_path) if method == "cairo" else fairpair_files(tmp_path)
    candidate = "m2" if method == "cairo" else "m1"
    table, summary = tmp_path / "out" / f"{method}.csv", tmp_path / "out" / f"{method}.md"
    page = tmp_path / "out" / f"{method}.html"
    write_verdicts(
        method_name=method,
        baseline="m0",
        candidate=candidate,
        comparisons=[{"paths": paths, "baseline": "m0", "candidate": candidate}],
        settings=comparison_settings(filled({}), method),
        margin=0.02,
        margin_source=f"compare[].margin.{method}",
        outputs={"table": str(table), "summary": str(summary), "page": str(page)},
    )
    expected = by_command(
        method, "stats" if method == "cairo" else "scores", paths, "m0", candidate, 0.02, tmp_path / "command.csv"
    )
    pd.testing.assert_frame_equal(pd.read_csv(table), expected)
    assert summary.read_text().startswith(f"**{method}: candidate {candidate} against baseline m0: ")
    assert "(margin ±0.02 from compare[].margin." in summary.read_text().splitlines()[0]
    shown = page.read_text()  # the report's page: the summary's first line, then every measure with its verdict
    first = summary.read_text().splitlines()[0].strip("*")
    assert html.escape(first) in shown
    for name, verdict in zip(expected["measure_name"], expected["verdict"].fillna("–"), strict=True):
        assert f"<td>{html.escape(name)}</td><td>{html.escape(verdict)}</td>" in shown
    if method == "cairo":  # the known truth: gender 0.08 worse; race the same, shown no more than 0.02 worse in
        # population Eq. 1 (within ±0.02 would need more than 15 prompts a subgroup, docs/methods.md §1.16)
        verdicts = dict(zip(expected["axis"], expected["verdict"], strict=True))
        assert verdicts == {"gender": "worse by more than the margin", "race": "not worse"}
        race = expected.set_index("axis").loc["race"]
        assert race["lo90"] < 0 < race["hi90"]


def test_fpr_judges_every_probe_set_and_classifier_of_the_pair_together(tmp_path, capsys):
    files = fpr_files(tmp_path)
    comparisons = [
        {
            "paths": paths,
            "baseline": f"m0/{classifier}",
            "candidate": f"m1/{classifier}",
            "labels": {"probe": probe, "classifier": classifier},
        }
        for (probe, classifier), paths in files.items()
    ]
    table, summary = tmp_path / "fpr.csv", tmp_path / "fpr.md"
    write_verdicts(
        method_name="fpr",
        baseline="m0",
        candidate="m1",
        comparisons=comparisons,
        settings=comparison_settings(filled({}), "fpr"),
        margin=0.05,
        margin_source="power.min_effect.fpr",
        outputs={"table": str(table), "summary": str(summary), "page": str(tmp_path / "fpr.html")},
    )
    rows = pd.read_csv(table)
    assert list(rows.columns[:2]) == ["probe", "classifier"] and len(rows) == 8  # 2 probe sets x 2 classifiers x 2
    for (probe, classifier), paths in files.items():
        mine = rows[(rows["probe"] == probe) & (rows["classifier"] == classifier)].reset_index(drop=True)
        theirs = by_command(
            "fpr", "predictions", paths, f"m0/{classifier}", f"m1/{classifier}", 0.05, tmp_path / "command.csv"
        )
        same = [
            "class",
            "model_a",
            "model_b",
            "difference",
            "lo90",
            "hi90",
            "p_worse",
            "verdict",
            "units_needed",
            "note",
        ]
        pd.testing.assert_frame_equal(mine[same], theirs[same])
        assert (mine["measure_name"] == f"{probe} {classifier}: " + theirs["measure_name"]).all()
    _, holm, _, _ = multipletests(rows["p_worse"], method="holm")
    np.testing.assert_allclose(rows["p_worse_holm"], holm)
    text = summary.read_text()
    assert text.startswith("**fpr: candidate m1 against baseline m0: ")
    assert "| templates_race soft_prompt: race negative FPR gap span |" in text
    assert "- occupations_race zero_shot: race, negative FPR gaps" in text


# --- a pair's verdict and the front page ------------------------------------------------------------------------------


def judged(verdicts: list[str], p_worse: list[float], margin: float = 0.05) -> pd.DataFrame:
    """A method's judged rows as far as a pair's verdict reads them, Holm over the method's own rows."""
    tested = ~np.isnan(p_worse)
    holm = np.full(len(p_worse), np.nan)
    holm[tested] = multipletests(np.asarray(p_worse)[tested], method="holm")[1]
    return pd.DataFrame({"verdict": verdicts, "p_worse": p_worse, "p_worse_holm": holm, "margin": margin})


@pytest.mark.parametrize(
    ("tables", "expected"),
    [
        # every row non-inferior in every method: not worse (intersection-union, no correction)
        ({"cairo": judged(["not worse", "equivalent"], [0.6, 0.4]), "fpr": judged(["better"], [0.99])}, "not worse"),
        # p_worse 0.01 among 3 rows: Holm 3 x 0.01 = 0.03 <= 0.05, worse
        (
            {
                "cairo": judged(["worse"], [0.01]),
                "fairpair": judged(["not worse"], [0.5]),
                "fpr": judged(["equivalent"], [0.5]),
            },
            "worse",
        ),
        # p_worse 0.02 is worse within its own method; over 3 rows Holm gives 0.06 > 0.05: neither shown
        (
            {
                "cairo": judged(["worse"], [0.02]),
                "fairpair": judged(["not worse"], [0.5]),
                "fpr": judged(["equivalent"], [0.5]),
            },
            "inconclusive",
        ),
        # a row without an interval (no verdict, no p) keeps the pair from 'not worse'
        ({"cairo": judged(["not worse", np.nan], [0.5, np.nan])}, "inconclusive"),
    ],
)
def test_a_pairs_verdict_runs_over_every_method(tables, expected):
    assert pair_verdict(tables) == expected


def test_the_front_page_states_each_pair_with_tables(tmp_path, monkeypatch, config):
    config = with_pairs(
        config,
        {"baseline": "smollm2-t1.0", "candidate": "smollm2-t0.7"},
        {"baseline": "smollm2-t1.0", "candidate": "gemma3-t1.0"},
    )
    monkeypatch.chdir(tmp_path)
    for method, table in (
        ("cairo", judged(["not worse", "equivalent"], [0.6, 0.4], 0.02)),
        ("fairpair", judged(["inconclusive"], [0.3], 0.025)),
    ):
        path = tmp_path / output("table", "smollm2-t1.0_vs_smollm2-t0.7", method)
        path.parent.mkdir(parents=True, exist_ok=True)
        table.to_csv(path, index=False)
    (tmp_path / output("page", "smollm2-t1.0_vs_smollm2-t0.7", "cairo")).write_text("<html></html>\n")
    assert front_lines(config) == [
        {
            "text": "Candidate ``smollm2-t0.7`` against baseline ``smollm2-t1.0``: **inconclusive** over 3 measure(s) "
            "of 2 method(s). CAIRO: not worse (2 measure(s); margin ±0.02); FairPair: inconclusive (1 measure(s); "
            "margin ±0.025).",
            "pages": [output("page", "smollm2-t1.0_vs_smollm2-t0.7", "cairo")],
            "methods": ["cairo", "fairpair"],
        }
    ]


def test_a_pair_is_named_by_its_folder():
    assert (
        ComparedPair("a", "b", {}).name == "a_vs_b"
        and output("summary", "a_vs_b", "fpr") == "results/compare/a_vs_b/fpr.md"
    )
