"""`biasflow fpr-summary`'s refusals: one line naming the problem and the fix, status 2, nothing written."""

from __future__ import annotations

import logging

import pandas as pd
import pytest

from biasflow.cli import main
from biasflow.model_pairs import SKIPPED
from probe_predictions import predictions
from unrendered_figures import PNG_SIGNATURE, unrendered


@pytest.mark.parametrize(
    ("probe_sets", "message"),
    [
        ([["race"]], "--probe-set race: give the probe set's prediction files after its name."),
        ([["r ace", "a.tsv"]], "--probe-set 'r ace': a probe set's name becomes part of file names"),
        ([["race", "a.tsv"], ["race", "b.tsv"]], "--probe-set race is given twice"),
        ([["race", "a.tsv"]], "--probe-set a.tsv: no such file"),
        ([["age", "age.tsv"], ["race", "a.tsv"]], "--probe-set a.tsv: no such file"),  # before age's tables are written
        ([["race", "out/race_gaps.csv"]], "--out-dir out/race_gaps.csv is also the input given as --probe-set"),
    ],
)
def test_bad_probe_sets_are_refused_before_anything_is_written(probe_sets, message, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "race_gaps.csv").write_text("model\n")
    rows = [
        {
            "y_true": y,
            "y_pred": (y + r) % 3,
            "category": "age",
            "group": g,
            "text": f"t{t} {g}",
            "model": "m",
            "run_id": r,
            "template_id": f"t{t}",
        }
        for r in range(2)
        for g in ("young", "old")
        for t, y in enumerate([0, 1, 2])
    ]
    pd.DataFrame(rows).to_csv(tmp_path / "age.tsv", sep="\t", index=False)
    args = [part for probe_set in probe_sets for part in ("--probe-set", *probe_set)]
    assert main(["fpr-summary", *args, "--out-dir", "out"]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err and len(err.strip().splitlines()) == 1, err
    assert [path.name for path in (tmp_path / "out").iterdir()] == ["race_gaps.csv"]


def probe_files(tmp_path, systems=("X", "Y", "Z")) -> list[str]:
    """One probe set's prediction files, one per system (the shared probe predictions, each its own labels)."""
    paths = []
    for i, model in enumerate(systems):
        path = tmp_path / f"{model}.tsv"
        predictions(i, templates=6, runs=2, bias=0.3 * i, model=model).to_csv(path, sep="\t", index=False)
        paths.append(path.name)
    return paths


def test_pairs_none_writes_no_comparisons_and_the_rest_as_before(tmp_path, monkeypatch, caplog):
    """docs/methods.md §7: --pairs none writes no comparison table or figure, says so in one line, and every other
    table is the all-pairs run's, byte for byte. The all-pairs run's figures are rendered in full (the command's
    only run that renders them: tests/unrendered_figures.py)."""
    monkeypatch.chdir(tmp_path)
    files = probe_files(tmp_path)
    flags = ["--bootstrap", "30", "--null-draws", "30"]
    caplog.set_level(logging.INFO, logger="biasflow")
    assert main(["fpr-summary", "--probe-set", "race", *files, "--out-dir", "every", *flags]) == 0
    assert (tmp_path / "every" / "race_comparisons.png").read_bytes()[:8] == PNG_SIGNATURE
    assert (tmp_path / "every" / "race_comparisons.png").stat().st_size > 10_000
    caplog.clear()
    unrendered(monkeypatch)
    assert main(["fpr-summary", "--probe-set", "race", *files, "--out-dir", "none", "--pairs", "none", *flags]) == 0
    assert [line for line in caplog.messages if "comparison" in line] == [SKIPPED]
    written = {path.name for path in (tmp_path / "none").iterdir()}
    assert written == {path.name for path in (tmp_path / "every").iterdir()} - {
        "race_comparisons.csv",
        "race_comparisons.png",
    }
    for name in ("race_gaps.csv", "gap_spans.csv", "net_significance.csv", "variance.csv"):
        assert (tmp_path / "none" / name).read_text() == (tmp_path / "every" / name).read_text(), name
    assert "Every pair of systems" not in (tmp_path / "none" / "summary.html").read_text()


def test_a_baseline_compares_each_system_with_it_only(tmp_path, monkeypatch):
    """Figures unrendered: the view against a baseline is rendered in tests/core/test_separations.py."""
    monkeypatch.chdir(tmp_path)
    unrendered(monkeypatch)
    files = probe_files(tmp_path)
    assert (
        main(
            [
                "fpr-summary",
                "--probe-set",
                "race",
                *files,
                "--out-dir",
                "out",
                "--baseline",
                "Y",
                "--bootstrap",
                "30",
                "--null-draws",
                "30",
            ]
        )
        == 0
    )
    table = pd.read_csv(tmp_path / "out" / "race_comparisons.csv")
    assert sorted(set(zip(table["model_a"], table["model_b"], strict=True))) == [("X", "Y"), ("Z", "Y")]
    assert (tmp_path / "out" / "race_comparisons.png").exists()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["fpr-summary", "--probe-set", "race", "X.tsv", "Y.tsv", "--out-dir", "out", "--baseline", "W"],
            "biasflow: the baseline 'W' is not a model of probe set race (its models: X, Y); name one of them "
            "(--baseline MODEL on a command, comparisons.baseline in the config).",
        ),
        (
            [
                "fpr-gaps",
                "--predictions",
                "X.tsv",
                "Y.tsv",
                "--out",
                "out/gaps.csv",
                "--comparisons",
                "out/c.csv",
                "--baseline",
                "W",
            ],
            "biasflow: the baseline 'W' is not a model of the predictions X.tsv, Y.tsv (its models: X, "
            "Y); name one of them",
        ),
        (
            ["fpr-gaps", "--predictions", "X.tsv", "--out", "out/gaps.csv", "--baseline", "X"],
            "biasflow: --baseline X chooses the pairs of --comparisons; add --comparisons PATH.",
        ),
        (
            [
                "fpr-gaps",
                "--predictions",
                "X.tsv",
                "--out",
                "out/gaps.csv",
                "--comparisons",
                "out/c.csv",
                "--pairs",
                "none",
            ],
            "biasflow: --comparisons asks for the comparison table and --pairs none for none; leave out one.",
        ),
    ],
)
def test_a_bad_baseline_is_refused_before_anything_is_written(args, message, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    probe_files(tmp_path, ("X", "Y"))
    (tmp_path / "out").mkdir()
    assert main(args) == 2
    err = capsys.readouterr().err
    assert err.startswith(message) and len(err.strip().splitlines()) == 1 and "Traceback" not in err, err
    assert not list((tmp_path / "out").iterdir())


def test_baseline_and_pairs_are_one_or_the_other(tmp_path, capsys):
    with pytest.raises(SystemExit) as stop:
        main(["fpr-summary", "--probe-set", "race", "X.tsv", "--out-dir", "out", "--baseline", "X", "--pairs", "all"])
    assert stop.value.code == 2
    assert "argument --pairs: not allowed with argument --baseline" in capsys.readouterr().err
