"""The public Python API (issues 31, 42 and 49): tables in and out, keyword-only settings defaulting to the schema's or
config='s, one result convention; each function typed for type checkers (py.typed, and imports and __all__ written
for them in biasflow/__init__.py), listed in __all__ at run time with an installed method's, documented in numpydoc
sections, its examples run as doctests in the current config layout."""

from __future__ import annotations

import ast
import dataclasses
import doctest
import inspect
import re
import subprocess
import sys
import typing
from pathlib import Path

import pandas as pd
import pytest

import biasflow
from biasflow.api import CORE, SCHEMA
from biasflow.cairo.outputs import in_folder
from biasflow.methods import methods
from workflow_helpers import REPO

NAMES = biasflow.__all__


def type_checked_part() -> ast.If:
    """The block of biasflow/__init__.py that type checkers and editors read (``if TYPE_CHECKING:``)."""
    module = ast.parse((REPO / "src" / "biasflow" / "__init__.py").read_text())
    return next(node for node in module.body if isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING")


def test_all_is_the_core_functions_and_each_registered_methods_declared_ones():
    """At run time, the core's and what the registry's methods declare as their public functions (an installed
    method's too: tests/core/test_adding_a_method.py); every one is the package's attribute and its docstring's."""
    declared = [reference.rpartition(":")[2] for method in methods() for reference in method.api]
    assert sorted([*CORE, *declared]) == NAMES, "in ruff's order (RUF022)"
    assert "cairo_select" in NAMES and set(NAMES) <= set(dir(biasflow))
    assert all(f"``{name}``" in biasflow.__doc__ for name in NAMES), "the package docstring names every function"
    with pytest.raises(AttributeError, match="no attribute 'nothing'"):
        biasflow.nothing  # noqa: B018


def test_type_checkers_read_each_function_from_its_module_and_all_as_a_literal():
    """biasflow/__init__.py imports, for type checkers only, each function of the core and of biasflow's own methods
    from the module its declaration names, as an explicit re-export (``import name as name``), and writes __all__ as
    the literal list those names make, in the order __all__ has at run time."""
    block = type_checked_part()
    imported = {
        f"{node.module}:{alias.name}"
        for node in block.body
        if isinstance(node, ast.ImportFrom)
        for alias in node.names
        if alias.asname == alias.name
    }
    declared = {reference for method in methods() for reference in method.api}
    assert imported == {f"biasflow.api:{name}" for name in CORE} | declared
    written = next(
        node.value
        for node in block.body
        if isinstance(node, ast.Assign) and [target.id for target in node.targets] == ["__all__"]
    )
    assert ast.literal_eval(written) == NAMES


def test_a_type_checker_sees_each_functions_signature(tmp_path):
    """mypy on a user's file, outside this checkout's settings, finds the installed package typed (py.typed) and
    reveals each public function's signature, its parameters as they are at run time and not ``Any``; a misspelt
    name is an error, as at run time. About 3 seconds."""
    pytest.importorskip("mypy")
    lines = ["import biasflow", *(f"reveal_type(biasflow.{name})" for name in NAMES), "biasflow.compar"]
    (tmp_path / "mine.py").write_text("\n".join(lines) + "\n")
    checked = subprocess.run(
        [sys.executable, "-m", "mypy", "--no-incremental", "--cache-dir", str(tmp_path / "cache"), "mine.py"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
    )
    revealed = dict(re.findall(r'^mine\.py:(\d+): note: Revealed type is "(.*)"$', checked.stdout, re.M))
    for line, name in enumerate(NAMES, start=2):
        shown = revealed.get(str(line), "")
        assert shown.startswith("def ("), f"biasflow.{name} is {shown or 'not revealed'} to mypy: {checked.stdout}"
        for parameter in inspect.signature(getattr(biasflow, name)).parameters:
            assert f"{parameter}:" in shown, f"mypy's biasflow.{name} lacks {parameter}: {shown}"
    errors = [line for line in checked.stdout.splitlines() if ": error:" in line]
    misspelt = 'error: Module has no attribute "compar"; maybe "compare"?  [attr-defined]'
    assert errors == [f"mine.py:{len(lines)}: {misspelt}"]


@pytest.mark.parametrize(
    ("module", "never"),
    [
        ("biasflow", ("biasflow.", "pandas")),
        # The config check reads the compare pairs (biasflow.compare_pairs), never the verdicts' step, which reads a
        # config: the two import in one direction.
        ("biasflow.config", ("biasflow.verdict",)),
    ],
)
def test_an_import_loads_nothing_it_does_not_use(module, never):
    """``import biasflow`` loads no method nor pandas (the Snakefile and every command import it first); the config
    check loads no verdict module."""
    code = f"import sys, {module}; print(sorted(m for m in sys.modules if m.startswith({never!r})))"
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout == "[]\n"


@pytest.mark.parametrize("name", NAMES)
def test_each_function_has_numpydoc_sections_and_its_examples_run(name, caplog):
    """Its examples are written in the current config layout: none logs the note of a key moved into a method's
    section (biasflow.config.lift_moved_keys)."""
    function = getattr(biasflow, name)
    text = function.__doc__
    for section in ("Parameters", "Returns", "Examples"):
        assert f"\n    {section}\n    {'-' * len(section)}\n" in text, f"biasflow.{name} lacks its {section} section"
    tests = doctest.DocTestFinder().find(function, f"biasflow.{name}", globs={})
    assert sum(len(test.examples) for test in tests) >= 2, f"biasflow.{name}'s example is too short to show use"
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE)
    with caplog.at_level("WARNING", logger="biasflow"):
        for test in tests:
            runner.run(test)
    assert runner.failures == 0, f"biasflow.{name}: {runner.failures} example(s) failed (output above)"
    assert "biasflow note" not in caplog.text


@pytest.mark.parametrize(
    "name", [name for name in NAMES if "config" in inspect.signature(getattr(biasflow, name)).parameters]
)
def test_the_config_a_docstring_shows_is_in_the_current_layout(name, caplog):
    """The ``config=`` example each docstring gives (``{"cairo": {"selection": {"max_sets": 3}}}``) is a part of a
    workflow config read without the note of a moved key, which changes a setting."""
    from biasflow.config import settings_config

    parameter = getattr(biasflow, name).__doc__.split("\n    config : ", 1)[1].split("\n    Returns", 1)[0]
    shown = re.findall(r"``(\{.*?\})``", parameter)
    assert shown, f"biasflow.{name}'s config parameter shows no example"
    for example in map(ast.literal_eval, shown):
        with caplog.at_level("WARNING", logger="biasflow"):
            read = settings_config(example)
        assert "biasflow note" not in caplog.text, f"biasflow.{name}: {example} is in an old layout"
        assert read != settings_config({}), f"biasflow.{name}: {example} sets the schema's defaults"


def test_the_readme_notebook_cell_runs_as_written_and_prints_what_it_shows(monkeypatch, capsys):
    """README "Use it from Python": its cell, run from the repository root on the example table we ship, prints the
    output block that follows it (two models' Eq. 1, and the tuned one compared with the base one)."""
    section = (REPO / "README.md").read_text().split("## Use it from Python", 1)[1].split("\n## ", 1)[0]
    block = section.split("```python\n", 1)[1].split("```", 1)[0]
    shown = section.split("```python\n", 1)[1].split("```", 1)[1].split("```\n", 1)[1].split("```", 1)[0]
    assert "docs/examples/continuations.csv" in block and (REPO / "docs/examples/continuations.csv").is_file()
    monkeypatch.chdir(REPO)
    exec(compile(block, "README.md", "exec"), {})
    assert capsys.readouterr().out == shown


def test_cairo_select_gives_the_tables_the_command_writes(tmp_path):
    """``biasflow.cairo_select`` on a statistics table, and ``biasflow cairo-select`` on the same table as a file."""
    import json

    import numpy as np

    from biasflow.cli import main

    rng = np.random.default_rng(1)
    rows = [
        (f"m{m}", metric, split, promptset, group, f"{group}-{k}", m * (group == "female") / 10 + rng.normal(0, 0.1))
        for m in range(4)
        for metric in ("BOLD", "HONEST")
        for split in ("valid", "test")
        for promptset in ("original", "p1")
        for group in ("female", "male")
        for k in range(5)
    ]
    scored = pd.DataFrame(rows, columns=["model", "metric", "split", "promptset", "subgroup", "prompt_id", "score"])
    stats = biasflow.cairo_statistics(scored.assign(axis="gender"))
    stats.to_parquet(tmp_path / "stats.parquet")
    # One pair of metrics and few draws: the two are held to each other, byte for byte, whatever the sizes.
    settings = {"permutations": 19, "bootstrap": 20, "null_draws": 20}
    selection = biasflow.cairo_select(stats, **settings)
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
    written = in_folder(tmp_path / "out", "select", "gender")
    for name, role in (("curve", "curve"), ("bias", "table"), ("comparisons", "comparisons"), ("variance", "variance")):
        getattr(selection, name).to_csv(tmp_path / f"{name}.csv", index=False)
        assert (tmp_path / f"{name}.csv").read_text() == Path(written[role]).read_text(), name
    assert json.loads(json.dumps(selection.summary)) == json.loads(Path(written["summary"]).read_text())


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


@pytest.fixture(scope="module")
def compared_from_the_file(demo_stats):
    """``compare`` on the statistics file given as a list of paths, the form every other is held to (computed once)."""
    return biasflow.compare("cairo", [str(demo_stats[1])], baseline="m0", candidate="m3")


@pytest.mark.parametrize("given", ["dataframe", "str", "path", "list"])
def test_compare_takes_the_statistics_as_a_table_or_a_path(demo_stats, compared_from_the_file, given):
    """A string path is one file (not its characters) and a DataFrame is the table, each giving the file's rows."""
    from pathlib import Path

    stats, path = demo_stats
    files = {"dataframe": stats, "str": str(path), "path": Path(path), "list": [str(path)]}[given]
    result = biasflow.compare("cairo", files, baseline="m0", candidate="m3")
    pd.testing.assert_frame_equal(result.rows, compared_from_the_file.rows)
    assert result.lines() == compared_from_the_file.lines() and len(result.rows) > 0
    assert set(result.rows["model_a"]) == {"m3"} and set(result.rows["model_b"]) == {"m0"}


@pytest.fixture(scope="module")
def pilot_stats(demo_stats, tmp_path_factory):
    """Three of the demo's models on two metrics, and its file: a pilot whose plan (every subgroup's and every pair's
    rows, planned by root finding) takes a third of the whole table's time."""
    stats = demo_stats[0].query("model in ['m0', 'm1', 'm2'] and metric in ['BOLD', 'HONEST']")
    path = tmp_path_factory.mktemp("pilot") / "gender.parquet"
    stats.to_parquet(path, index=False)
    return stats, path


@pytest.fixture(scope="module")
def planned_from_the_file(pilot_stats):
    """``plan_power`` on the statistics file named by its axis, the form every other is held to (computed once)."""
    return biasflow.plan_power("cairo", {"gender": [str(pilot_stats[1])]})


@pytest.mark.parametrize("given", ["dataframe", "str", "mapping"])
def test_plan_power_takes_the_statistics_as_a_table_or_a_path(pilot_stats, planned_from_the_file, given):
    stats, path = pilot_stats
    pilot = {"dataframe": stats, "str": str(path), "mapping": {"gender": stats}}[given]
    plan = biasflow.plan_power("cairo", pilot)
    pd.testing.assert_frame_equal(plan, planned_from_the_file)
    assert set(plan["model"]) >= {"m0", "m1", "m2", "m0 vs m1", "m0 vs m2", "m1 vs m2"}


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
            r"compare\(\) tables: expected a pandas DataFrame, a path \(str "
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
            lambda stats: biasflow.score(stats, scorer="honest", lexicn="x.tsv"),
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


def positionals(function) -> list[inspect.Parameter]:
    return [p for p in inspect.signature(function).parameters.values() if p.kind is p.POSITIONAL_OR_KEYWORD]


def settings(function) -> list[inspect.Parameter]:
    return [p for p in inspect.signature(function).parameters.values() if p.kind is p.KEYWORD_ONLY]


@pytest.mark.parametrize("name", NAMES)
def test_every_setting_is_keyword_only_with_an_explicit_default_and_a_positional_one_is_a_type_error(name):
    """No **settings: each setting is named in the signature with its value (the schema's, put there from the schema,
    never the marker), and one more positional argument than the data is refused before anything is computed."""
    function = getattr(biasflow, name)
    parameters = inspect.signature(function).parameters.values()
    assert not [p for p in parameters if p.kind in (p.VAR_KEYWORD, p.VAR_POSITIONAL)]
    assert all(p.default is not p.empty and p.default is not SCHEMA for p in settings(function))
    assert all(p.default is p.empty for p in positionals(function)), "a parameter with a default is a setting"
    with pytest.raises(TypeError, match="positional argument"):
        function(*[pd.DataFrame()] * (len(positionals(function)) + 1))


def test_the_defaults_are_the_schemas_through_each_settings_class():
    from biasflow.cairo.selection import SearchSettings
    from biasflow.fpr.steps import GapSettings

    selection = inspect.signature(biasflow.cairo_select).parameters
    assert {
        name: selection[name].default for name in dataclasses.asdict(SearchSettings.defaults())
    } == dataclasses.asdict(SearchSettings.defaults())
    gaps = inspect.signature(biasflow.fpr_gaps).parameters
    assert {name: gaps[name].default for name in dataclasses.asdict(GapSettings.defaults())} == dataclasses.asdict(
        GapSettings.defaults()
    )


def test_config_replaces_the_schemas_defaults_and_a_keyword_given_beats_both(demo_stats):
    """cairo_select searches up to the schema's k = 4; the embedded default's config (a path) up to 3, as the demo's
    workflow does; max_sets given beats the config. A mapping holding one key changes that key (fpr_gaps)."""
    stats, _ = demo_stats
    stats = stats[stats["metric"].isin(["BOLD", "HONEST"])]  # one pair of metrics: a third's pairs add only time
    draws = {"permutations": 0, "bootstrap": 20, "null_draws": 20}
    embedded = REPO / "config" / "config.yaml"
    schema = biasflow.cairo_select(stats, **draws)
    assert schema.curve["k"].max() == inspect.signature(biasflow.cairo_select).parameters["max_sets"].default == 4
    assert biasflow.cairo_select(stats, **draws, config=embedded).curve["k"].max() == 3
    assert biasflow.cairo_select(stats, **draws, config=str(embedded), max_sets=2).curve["k"].max() == 2

    sentences = biasflow.probe_sentences("race")
    predictions = pd.concat(
        [sentences.assign(model="mine", run_id=run, y_pred=(sentences["y_true"] + run) % 3) for run in range(3)]
    )
    by_config = biasflow.fpr_gaps(predictions, bootstrap=20, config={"fpr": {"interval": "z", "z": 3.0}})
    pd.testing.assert_frame_equal(by_config, biasflow.fpr_gaps(predictions, bootstrap=20, interval="z", z=3.0))
    assert not by_config.equals(biasflow.fpr_gaps(predictions, bootstrap=20))
    given = biasflow.fpr_gaps(predictions, bootstrap=20, z=3.0, config={"fpr": {"interval": "z", "z": 1.0}})
    pd.testing.assert_frame_equal(given, by_config)
    with pytest.raises(biasflow.errors.BiasflowError, match="intervall"):
        biasflow.fpr_gaps(predictions, config={"fpr": {"intervall": "z"}})


@pytest.mark.parametrize("name", NAMES)
def test_every_function_returns_a_table_or_a_frozen_result_whose_fields_are_tables(name):
    """The one result convention the package docstring states: a DataFrame, or a frozen dataclass of DataFrames (with
    plain values saying what they were computed from)."""
    function = inspect.unwrap(getattr(biasflow, name))
    returned = typing.get_type_hints(function, sys.modules[function.__module__].__dict__)["return"]
    if returned is not pd.DataFrame:
        assert dataclasses.is_dataclass(returned) and returned.__dataclass_params__.frozen, returned
        tables = [field for field in dataclasses.fields(returned) if field.type in (pd.DataFrame, "pd.DataFrame")]
        assert tables, f"{returned.__name__} holds no table"
        assert returned.__name__ in function.__doc__.split("Returns\n", 1)[1], "its docstring names the result"
