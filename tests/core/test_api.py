"""The public Python API (issue 31): each function documented in numpydoc sections, its examples run as doctests."""

from __future__ import annotations

import doctest
import subprocess
import sys

import pandas as pd
import pytest

import biasflow
from workflow_helpers import REPO

NAMES = biasflow.__all__


def test_the_api_is_the_core_functions_and_each_methods_declared_ones():
    assert NAMES == ["score", "compare", "plan_power", "cairo_statistics", "cairo_bias", "cairo_select",
                     "scorer_bias", "fairpair_scores", "probe_sentences", "fpr_gaps"]
    assert set(NAMES) <= set(dir(biasflow))
    with pytest.raises(AttributeError, match="no attribute 'nothing'"):
        biasflow.nothing  # noqa: B018


def test_importing_biasflow_loads_no_method_nor_pandas():
    code = "import sys, biasflow; print(sorted(m for m in sys.modules if m.startswith(('biasflow', 'pandas'))))"
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip() == \
        "['biasflow']"


@pytest.mark.parametrize("name", NAMES)
def test_each_function_has_numpydoc_sections_and_its_examples_run(name):
    function = getattr(biasflow, name)
    text = function.__doc__
    for section in ("Parameters", "Returns", "Examples"):
        assert f"\n    {section}\n    {'-' * len(section)}\n" in text, f"biasflow.{name} lacks its {section} section"
    tests = doctest.DocTestFinder().find(function, f"biasflow.{name}", globs={})
    assert sum(len(test.examples) for test in tests) >= 2, f"biasflow.{name}'s example is too short to show use"
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE)
    for test in tests:
        runner.run(test)
    assert runner.failures == 0, f"biasflow.{name}: {runner.failures} example(s) failed (output above)"


def test_the_readme_notebook_session_runs_as_written(tmp_path, monkeypatch, capsys):
    """README "Use it from Python": its block, run on a continuations file of the columns it names."""
    readme = (REPO / "README.md").read_text()
    section = readme.split("## Use it from Python", 1)[1]
    block = section.split("```python\n", 1)[1].split("```", 1)[0]
    rows = [(model, group, text) for model in ("m1", "m2") for group in ("female", "male")
            for text in ("She was kind.", "What a damn mess." if model == "m1" and group == "male" else "It rained.")]
    pd.DataFrame(rows, columns=["model", "subgroup", "continuation"]).to_csv(tmp_path / "my_continuations.csv",
                                                                              index=False)
    monkeypatch.chdir(tmp_path)
    exec(compile(block, "README.md", "exec"), {})
    lines = capsys.readouterr().out.strip().splitlines()
    assert lines[0].split() == ["model", "bias"] and [line.split()[1] for line in lines[1:]] == ["m1", "m2"]
    assert float(lines[1].split()[2]) > float(lines[2].split()[2])


def test_cairo_select_gives_the_tables_the_command_writes(tmp_path):
    """``biasflow.cairo_select`` on a statistics table, and ``biasflow cairo-select`` on the same table as a file."""
    import json

    import numpy as np

    from biasflow.cli import main

    rng = np.random.default_rng(1)
    rows = [(f"m{m}", metric, split, promptset, group, f"{group}-{k}", m * (group == "female") / 10 + rng.normal(0, .1))
            for m in range(4) for metric in ("BOLD", "HolisticBias", "HONEST") for split in ("valid", "test")
            for promptset in ("original", "p1") for group in ("female", "male") for k in range(5)]
    scored = pd.DataFrame(rows, columns=["model", "metric", "split", "promptset", "subgroup", "prompt_id", "score"])
    stats = biasflow.cairo_statistics(scored.assign(axis="gender"))
    stats.to_parquet(tmp_path / "stats.parquet")
    settings = {"permutations": 49, "bootstrap": 100, "null_draws": 100}
    tables = biasflow.cairo_select(stats, **settings)
    assert main(["cairo-select", "--stats", str(tmp_path / "stats.parquet"), "--out-dir", str(tmp_path / "out"),
                 *(f"--{key.replace('_', '-')}={value}" for key, value in settings.items())]) == 0
    for name in ("curve", "bias", "comparisons", "variance"):
        tables[name].to_csv(tmp_path / f"{name}.csv", index=False)
        assert (tmp_path / f"{name}.csv").read_text() == (tmp_path / "out" / f"{name}.csv").read_text(), name
    assert json.loads(json.dumps(tables["summary"])) == json.loads((tmp_path / "out" / "selection.json").read_text())
