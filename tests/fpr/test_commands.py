"""`biasflow fpr-summary`'s refusals: one line naming the problem and the fix, status 2, nothing written."""

from __future__ import annotations

import pandas as pd
import pytest

from biasflow.cli import main


@pytest.mark.parametrize("probe_sets, message", [
    ([["race"]], "--probe-set race: give the probe set's prediction files after its name."),
    ([["r ace", "a.tsv"]], "--probe-set 'r ace': a probe set's name becomes part of file names"),
    ([["race", "a.tsv"], ["race", "b.tsv"]], "--probe-set race is given twice"),
    ([["race", "a.tsv"]], "--probe-set a.tsv: no such file"),
    ([["age", "age.tsv"], ["race", "a.tsv"]], "--probe-set a.tsv: no such file"),  # before age's tables are written
    ([["race", "out/race_gaps.csv"]], "--out-dir out/race_gaps.csv is also the input given as --probe-set"),
])
def test_bad_probe_sets_are_refused_before_anything_is_written(probe_sets, message, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "race_gaps.csv").write_text("model\n")
    rows = [{"y_true": y, "y_pred": (y + r) % 3, "category": "age", "group": g, "text": f"t{t} {g}", "model": "m",
             "run_id": r, "template_id": f"t{t}"} for r in range(2) for g in ("young", "old") for t, y in enumerate([0, 1, 2])]
    pd.DataFrame(rows).to_csv(tmp_path / "age.tsv", sep="\t", index=False)
    args = [part for probe_set in probe_sets for part in ("--probe-set", *probe_set)]
    assert main(["fpr-summary", *args, "--out-dir", "out"]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err and len(err.strip().splitlines()) == 1, err
    assert [path.name for path in (tmp_path / "out").iterdir()] == ["race_gaps.csv"]
