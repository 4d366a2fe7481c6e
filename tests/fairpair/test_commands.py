"""`biasflow fairpair-summary`: its refusals (one line naming the problem and the fix, status 2, nothing
written), and its tables against the workflow's own functions run on the same sides."""

from __future__ import annotations

import logging

import numpy as np
import pandas as pd
import pytest

from biasflow.cli import main
from biasflow.model_pairs import SKIPPED
from unrendered_figures import PNG_SIGNATURE, unrendered


def sides(path, seed: int) -> None:
    rng = np.random.default_rng(seed)
    words = ["good", "kind", "work", "hard", "late", "nurse", "doctor", "day"]
    rows = [
        {"prompt_id": f"p{p}", "side": side, "sample": s, "text": " ".join(rng.choice(words, 5))}
        for p in range(5)
        for side in ("perturbed_original", "counterfactual")
        for s in range(3)
    ]
    pd.DataFrame(rows).to_csv(path, index=False)


@pytest.mark.parametrize(
    ("given", "message"),
    [
        (["a.csv", "other/a.csv"], "--sides a.csv and other/a.csv both name model 'a' (a file's stem); rename one"),
        (["out/summary.csv"], "--out-dir out/summary.csv is also the input given as --sides"),
        (["a.csv", "missing.csv"], "--sides missing.csv: no such file"),  # before a.csv's tables are written
    ],
)
def test_bad_sides_are_refused_before_anything_is_written(given, message, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    for folder in ("out", "other"):
        (tmp_path / folder).mkdir()
    for path in ("a.csv", "other/a.csv", "out/summary.csv"):
        sides(tmp_path / path, 0)
    assert main(["fairpair-summary", "--sides", *given, "--out-dir", "out"]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err and len(err.strip().splitlines()) == 1, err
    assert [path.name for path in (tmp_path / "out").iterdir()] == ["summary.csv"]


def test_the_tables_are_the_workflow_steps_on_the_same_sides(tmp_path, monkeypatch):
    """Each model scored by the score step and all of them summarised by the summary step, by the workflow's names."""
    from biasflow.fairpair import outputs
    from biasflow.fairpair.comparisons import ComparisonSettings
    from biasflow.fairpair.scores import BootstrapSettings, ScoreSettings
    from biasflow.fairpair.steps import score, summary

    monkeypatch.chdir(tmp_path)
    unrendered(monkeypatch)
    for model, seed in (("m1", 1), ("m2", 2)):
        sides(tmp_path / f"{model}.csv", seed)
    assert (
        main(
            [
                "fairpair-summary",
                "--sides",
                "m1.csv",
                "m2.csv",
                "--out-dir",
                "mine",
                "--null-draws",
                "99",
                "--bootstrap",
                "99",
            ]
        )
        == 0
    )
    settings = ScoreSettings.defaults(null_draws=99)
    for model in ("m1", "m2"):
        score(
            pairs_path=f"{model}.csv",
            model=model,
            settings=settings,
            outputs={
                "scores": f"ref/{model}.csv",
                "null": f"ref/null/{model}.parquet",
                "ngrams": f"ref/{model}_ngrams.csv",
                "ngrams_plot": f"ref/{model}_ngrams.png",
            },
        )
    final = {role: f"ref/{name}" for role, name in outputs.SUMMARY.items() if role != "rejections"}
    summary(
        score_paths={m: f"ref/{m}.csv" for m in ("m1", "m2")},
        null_paths={m: f"ref/null/{m}.parquet" for m in ("m1", "m2")},
        rejection_paths={},
        settings=BootstrapSettings.defaults(bootstrap=99),
        comparison=ComparisonSettings.defaults(null_draws=99),
        outputs=final,
    )
    for name in ("m1.csv", "m2_ngrams.csv", "summary.csv", "comparisons.csv", "variance.csv"):
        assert (tmp_path / "mine" / name).read_text() == (tmp_path / "ref" / name).read_text(), name
    assert not (tmp_path / "mine" / outputs.SUMMARY["rejections"]).exists(), "no perturbation ran: no rejection rates"
    assert len(pd.read_csv(tmp_path / "mine" / "comparisons.csv")) == 2, "one pair, two dissimilarities"


def test_pairs_none_writes_no_comparisons_and_the_rest_as_before(tmp_path, monkeypatch, caplog):
    """docs/methods.md §7: --pairs none writes no comparison table or figure, says so in one line, and every other
    table is the all-pairs run's, byte for byte. The all-pairs run's figures are rendered in full (the command's
    only run that renders them: tests/unrendered_figures.py)."""
    from biasflow.fairpair import outputs

    monkeypatch.chdir(tmp_path)
    for model, seed in (("m1", 1), ("m2", 2)):
        sides(tmp_path / f"{model}.csv", seed)
    command = ["fairpair-summary", "--sides", "m1.csv", "m2.csv", "--null-draws", "49", "--bootstrap", "49"]
    caplog.set_level(logging.INFO, logger="biasflow")
    assert main([*command, "--out-dir", "every"]) == 0
    assert (tmp_path / "every" / "comparisons.png").read_bytes()[:8] == PNG_SIGNATURE
    assert (tmp_path / "every" / "comparisons.png").stat().st_size > 10_000
    caplog.clear()
    unrendered(monkeypatch)
    assert main([*command, "--out-dir", "none", "--pairs", "none"]) == 0
    assert [line for line in caplog.messages if "comparison" in line] == [SKIPPED]
    written = {path.name for path in (tmp_path / "none").iterdir()}
    assert written == {path.name for path in (tmp_path / "every").iterdir()} - {
        outputs.SUMMARY["comparisons"],
        outputs.SUMMARY["comparisons_plot"],
    }
    for name in ("summary.csv", "variance.csv", "m2.csv"):
        assert (tmp_path / "none" / name).read_text() == (tmp_path / "every" / name).read_text(), name
    page = (tmp_path / "none" / outputs.SUMMARY["tables_page"]).read_text()
    assert (
        "compared on the same prompts" not in page
        and "compared on the same prompts" in (tmp_path / "every" / outputs.SUMMARY["tables_page"]).read_text()
    )


def test_a_baseline_that_is_no_model_is_refused_before_anything_is_written(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    for model, seed in (("m1", 1), ("m2", 2)):
        sides(tmp_path / f"{model}.csv", seed)
    assert main(["fairpair-summary", "--sides", "m1.csv", "m2.csv", "--out-dir", "out", "--baseline", "m9"]) == 2
    err = capsys.readouterr().err
    assert err.strip() == (
        "biasflow: the baseline 'm9' is not a model of --sides (each file's stem) (its models: m1, "
        "m2); name one of them (--baseline MODEL on a command, comparisons.baseline in the config)."
    )
    assert not (tmp_path / "out").exists()


def test_a_baseline_compares_each_model_with_it_only(tmp_path, monkeypatch):
    """Figures unrendered: the view against a baseline is rendered in tests/core/test_separations.py."""
    monkeypatch.chdir(tmp_path)
    unrendered(monkeypatch)
    for model, seed in (("m1", 1), ("m2", 2), ("m3", 3)):
        sides(tmp_path / f"{model}.csv", seed)
    assert (
        main(
            [
                "fairpair-summary",
                "--sides",
                "m1.csv",
                "m2.csv",
                "m3.csv",
                "--out-dir",
                "out",
                "--baseline",
                "m2",
                "--null-draws",
                "49",
                "--bootstrap",
                "49",
            ]
        )
        == 0
    )
    table = pd.read_csv(tmp_path / "out" / "comparisons.csv")
    assert sorted(set(zip(table["model_a"], table["model_b"], strict=True))) == [("m1", "m2"), ("m3", "m2")]
    assert (tmp_path / "out" / "comparisons.png").exists()
