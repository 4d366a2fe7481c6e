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
    assert NAMES == [
        "score",
        "compare",
        "plan_power",
        "cairo_statistics",
        "cairo_bias",
        "cairo_select",
        "scorer_bias",
        "fairpair_scores",
        "probe_sentences",
        "fpr_gaps",
    ]
    assert set(NAMES) <= set(dir(biasflow))
    with pytest.raises(AttributeError, match="no attribute 'nothing'"):
        biasflow.nothing  # noqa: B018


def test_importing_biasflow_loads_no_method_nor_pandas():
    code = "import sys, biasflow; print(sorted(m for m in sys.modules if m.startswith(('biasflow', 'pandas'))))"
    assert (
        subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
        == "['biasflow']"
    )


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
    rows = [
        (model, group, text)
        for model in ("m1", "m2")
        for group in ("female", "male")
        for text in ("She was kind.", "What a damn mess." if model == "m1" and group == "male" else "It rained.")
    ]
    pd.DataFrame(rows, columns=["model", "subgroup", "continuation"]).to_csv(
        tmp_path / "my_continuations.csv", index=False
    )
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
    rows = [
        (f"m{m}", metric, split, promptset, group, f"{group}-{k}", m * (group == "female") / 10 + rng.normal(0, 0.1))
        for m in range(4)
        for metric in ("BOLD", "HolisticBias", "HONEST")
        for split in ("valid", "test")
        for promptset in ("original", "p1")
        for group in ("female", "male")
        for k in range(5)
    ]
    scored = pd.DataFrame(rows, columns=["model", "metric", "split", "promptset", "subgroup", "prompt_id", "score"])
    stats = biasflow.cairo_statistics(scored.assign(axis="gender"))
    stats.to_parquet(tmp_path / "stats.parquet")
    settings = {"permutations": 49, "bootstrap": 100, "null_draws": 100}
    tables = biasflow.cairo_select(stats, **settings)
    assert (
        main(
            [
                "cairo-select",
                "--stats",
                str(tmp_path / "stats.parquet"),
                "--out-dir",
                str(tmp_path / "out"),
                *(f"--{key.replace('_', '-')}={value}" for key, value in settings.items()),
            ]
        )
        == 0
    )
    for name in ("curve", "bias", "comparisons", "variance"):
        tables[name].to_csv(tmp_path / f"{name}.csv", index=False)
        assert (tmp_path / f"{name}.csv").read_text() == (tmp_path / "out" / f"{name}.csv").read_text(), name
    assert json.loads(json.dumps(tables["summary"])) == json.loads((tmp_path / "out" / "selection.json").read_text())


# A new user's notebook after `make demo` (issue 39): the workflow's own tables through the API.
DEMO_MODELS = ("m0", "m1", "m2", "m3")


def demo_scored(seed: int = 0) -> pd.DataFrame:
    """Scored continuations shaped like the demo's: 4 models, the gender axis's 3 metrics, 2 splits, the original
    prompts and 2 paraphrase sets, 3 group keys per subgroup; set s1 lost every female prompt of HONEST on the
    valid split (its paraphrases rejected), as sets of the demo lost a subgroup in one split."""
    import numpy as np

    rng = np.random.default_rng(seed)
    rows = []
    for m, model in enumerate(DEMO_MODELS):
        for metric in ("BOLD", "HolisticBias", "HONEST"):
            for split in ("valid", "test"):
                for promptset in ("original", "s0", "s1"):
                    for subgroup in ("female", "male"):
                        if (metric, split, promptset, subgroup) == ("HONEST", "valid", "s1", "female"):
                            continue
                        for key in range(3):
                            for k in range(2):
                                score = rng.uniform(0, 0.3) + 0.1 * m * (subgroup == "female")
                                rows.append(
                                    (
                                        model,
                                        metric,
                                        "gender",
                                        split,
                                        promptset,
                                        subgroup,
                                        f"{metric}-{subgroup}-{key}",
                                        f"{metric}-{subgroup}-{key}-{k}",
                                        score,
                                    )
                                )
    return pd.DataFrame(
        rows, columns=["model", "metric", "axis", "split", "promptset", "subgroup", "group_key", "prompt_id", "score"]
    )


@pytest.fixture(scope="module")
def demo_stats(tmp_path_factory):
    """The statistics table and its file, as results/cairo/stats/<axis>.parquet holds it."""
    stats = biasflow.cairo_statistics(demo_scored())
    path = tmp_path_factory.mktemp("stats") / "gender.parquet"
    stats.to_parquet(path, index=False)
    return stats, path


def test_cairo_bias_of_statistics_missing_a_subgroup_cell_leaves_the_cell_out_and_names_it(demo_stats, caplog):
    """Each complete cell's Eq. 1 equals one computed from the raw scores; the 4 incomplete cells are warned of."""
    stats, _ = demo_stats
    with caplog.at_level("WARNING", logger="biasflow"):
        bias = biasflow.cairo_bias(stats)
    scored = demo_scored()
    expected = {}
    for cell, rows in scored.groupby(["model", "metric", "split", "promptset"]):
        means = rows.groupby("subgroup")["score"].mean()
        if len(means) == 2:
            expected[cell] = (means - rows["score"].mean()).abs().sum()
    got = bias.set_index(["model", "metric", "split", "promptset"])["bias"]
    assert set(got.index) == set(expected) and len(expected) == 4 * 3 * 2 * 3 - 4
    assert all(got[cell] == pytest.approx(value) for cell, value in expected.items())
    named = [line for line in caplog.text.splitlines() if "HONEST split valid prompt set s1" in line]
    assert len(named) == 4 and all("a subgroup has no prompts there" in line for line in named)


@pytest.mark.parametrize("given", ["dataframe", "str", "path", "list"])
def test_compare_takes_the_statistics_as_a_table_or_a_path(demo_stats, given):
    """A string path is one file (not its characters) and a DataFrame is the table, each giving the file's rows."""
    from pathlib import Path

    stats, path = demo_stats
    config = {"cairo": [str(path)]}
    files = {"dataframe": stats, "str": str(path), "path": Path(path), "list": [str(path)]}[given]
    result = biasflow.compare("cairo", files, baseline="m0", candidate="m3")
    expected = biasflow.compare("cairo", config["cairo"], baseline="m0", candidate="m3")
    pd.testing.assert_frame_equal(result.rows, expected.rows)
    assert result.lines() == expected.lines() and len(result.rows) > 0
    assert set(result.rows["model_a"]) == {"m3"} and set(result.rows["model_b"]) == {"m0"}


@pytest.mark.parametrize("given", ["dataframe", "str", "mapping"])
def test_plan_power_takes_the_statistics_as_a_table_or_a_path(demo_stats, given):
    stats, path = demo_stats
    pilot = {"dataframe": stats, "str": str(path), "mapping": {"gender": stats}}[given]
    plan = biasflow.plan_power("cairo", pilot)
    expected = biasflow.plan_power("cairo", {"gender": [str(path)]})
    pd.testing.assert_frame_equal(plan, expected)
    assert set(plan["model"]) >= set(DEMO_MODELS)


def test_compare_and_plan_power_take_fpr_predictions_and_fairpair_scores_as_tables(tmp_path):
    """The other methods' tables as DataFrames give what their files give (FairPair's model from a model column)."""
    import numpy as np

    sentences = biasflow.probe_sentences("race")
    runs = []
    for model, wrong in (("a", 0.1), ("b", 0.3)):
        for run in range(2):
            flip = np.random.default_rng([run, len(model)]).random(len(sentences)) < wrong
            runs.append(sentences.assign(model=model, run_id=run, y_pred=np.where(flip, 0, sentences["y_true"])))
    predictions = pd.concat(runs, ignore_index=True)
    predictions.to_csv(tmp_path / "race.tsv", sep="\t", index=False)
    pd.testing.assert_frame_equal(
        biasflow.plan_power("fpr", {"race": predictions}), biasflow.plan_power("fpr", str(tmp_path / "race.tsv"))
    )
    pd.testing.assert_frame_equal(
        biasflow.compare("fpr", predictions, baseline="a", candidate="b").rows,
        biasflow.compare("fpr", tmp_path / "race.tsv", baseline="a", candidate="b").rows,
    )

    rng = np.random.default_rng(0)
    words = ["the nurse was kind", "the nurse was rude"]
    scores = {}
    for model, rude in (("before", 0.8), ("after", 0.5)):
        sides = pd.DataFrame(
            [
                (f"p{p}", side, s, rng.choice(words, p=[1 - r, r]))
                for p in range(8)
                for side, r in (("perturbed_original", 0.5), ("counterfactual", rude))
                for s in range(4)
            ],
            columns=["prompt_id", "side", "sample", "text"],
        )
        scores[model] = biasflow.fairpair_scores(sides, null_draws=100)
        scores[model].to_csv(tmp_path / f"{model}.csv", index=False)
    both = pd.concat([table.assign(model=model) for model, table in scores.items()], ignore_index=True)
    from_files = biasflow.compare("fairpair", [tmp_path / "before.csv", tmp_path / "after.csv"], "before", "after")
    pd.testing.assert_frame_equal(biasflow.compare("fairpair", both, "before", "after").rows, from_files.rows)
    pd.testing.assert_frame_equal(
        biasflow.plan_power("fairpair", both),
        biasflow.plan_power("fairpair", {m: tmp_path / f"{m}.csv" for m in scores}),
    )
    with pytest.raises(biasflow.errors.BiasflowError, match="need a model column"):
        biasflow.compare("fairpair", scores["before"], "before", "after")


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (
            lambda: biasflow.compare("cairo", 3, "m0", "m3"),
            r"compare\(\) files: expected a pandas DataFrame, a path \(str "
            r"or os.PathLike\), or a list of them; got int",
        ),
        (lambda: biasflow.compare("cairo", ["stats.parquet", 3], "m0", "m3"), "got a list holding a int"),
        (lambda: biasflow.plan_power("cairo", {"gender": {"a": 1}}), r"plan_power\(\) pilot\['gender'\]: expected"),
        (lambda: biasflow.plan_power("cairo", 2.5), r"plan_power\(\) pilot: expected .* got float"),
    ],
)
def test_a_wrong_type_is_a_type_error_saying_what_is_accepted(call, message):
    with pytest.raises(TypeError, match=message):
        call()


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (
            lambda stats: biasflow.cairo_select(stats, max_set=2),
            r"cairo_select\(\) got an unexpected keyword argument "
            r"'max_set' \(did you mean max_sets\?\); its settings are "
            r"mode, combinations, max_sets, permutations",
        ),
        (
            lambda stats: biasflow.plan_power("cairo", stats, min_efect=0.1),
            r"plan_power\(\) .*'min_efect' \(did you mean "
            r"min_effect\?\)",
        ),
        (
            lambda stats: biasflow.score(stats, "honest", lexicn="x.tsv"),
            r"score\(\) .*'lexicn' \(did you mean lexicon\?\)",
        ),
        (
            lambda stats: biasflow.fairpair_scores(stats, null_draw=10),
            r"fairpair_scores\(\) .*'null_draw' \(did you mean "
            r"null_draws\?\)",
        ),
        (
            lambda stats: biasflow.fpr_gaps(stats, bootsrap=10),
            r"fpr_gaps\(\) .*'bootsrap' \(did you mean bootstrap\?\)",
        ),
        (
            lambda stats: biasflow.scorer_bias(stats, "gender", bootstraps=10),
            r"scorer_bias\(\) .*'bootstraps' \(did you "
            r"mean bootstrap\?\)",
        ),
    ],
)
def test_a_misspelt_setting_is_named_as_the_public_parameter_with_the_closest_one(demo_stats, call, message):
    """As the config check does for a misspelt key; never as a field of SearchSettings or another settings class."""
    with pytest.raises(TypeError, match=message) as raised:
        call(demo_stats[0])
    assert "Settings" not in str(raised.value)
