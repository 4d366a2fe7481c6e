"""docs/adding-a-method.md, walked through: a toy fourth method, a package of its own plus its declaration and
its config section's schema, reaches every place the core asks of a method without a line of the core or of the
three methods changed (issues 31, 42 and 48).

The toy package is written to a temporary folder and registered as an installed package registers its
method, through an entry point of the ``biasflow.methods`` group. Its schema joins the config schema, so the
config check, the defaults, the flags and config/README.md's key table know its keys. Its rules ship inside the
package (its declaration's ``rules``): installed with its distribution's metadata, as `pip install` leaves it, it
is run and reported by this repository's Snakefile, a real Snakemake run in a process of its own. Its schema
declares its smallest effect worth detecting (``x-min-effect``), so the config's ``compare:`` pairs take its
margin and fall back to ``power.min_effect.toy``, and the workflow's ``compare`` target judges its pairs.
"""

from __future__ import annotations

import dataclasses
import os
import re
import sys
import textwrap
from importlib.metadata import EntryPoint
from pathlib import Path

import pytest
import yaml

from biasflow import methods as registry_module
from biasflow.cli import main
from biasflow.config import check_config, used_model_entries, validate_config
from biasflow.config_docs import markdown_table
from biasflow.errors import BiasflowError
from biasflow.methods import REGISTRY, declaration, method, rule_folder
from biasflow.power import planner
from biasflow.registry import Registry
from biasflow.report_front import front_page
from biasflow.schema import choices, config_schema, default
from biasflow.verdict_tables import compared_pairs
from workflow_helpers import REPO, snakemake, write_config

# The toy method: the share of continuations longer than `toy.min_words` words, per model.
TOY = {
    "toy_method/__init__.py": '"""A toy method: long continuations per model."""\n',
    "toy_method/method.py": '''
        """The toy method as the core sees it."""
        from biasflow.methods import Method, own_models
        from toy_method.outputs import OUTPUTS

        METHOD = Method(
            name="toy",
            title="Toy lengths",
            citation="Nobody, 2026",
            evaluated=lambda config: own_models(config, "toy"),
            loads=lambda config: [("models", name) for name in own_models(config, "toy")],
            finals=lambda config: ["results/toy/summary.csv"],
            summary=lambda config: f"continuations longer than {config['toy']['min_words']} words.",
            check="toy_method.checks:check",
            commands="toy_method.commands:register",
            power="toy_method.power",
            compare="toy_method.compare",
            compare_input=("lengths", "per-model tables of continuation lengths"),
            schema="toy_method:config.schema.yaml",
            api=("toy_method.api:toy_lengths",),
            rules="toy_method:rules",
            targets=lambda config: [OUTPUTS.target("summary", "summary")]
            + [OUTPUTS.target("counts", "counts", metric="words", axis=axis) for axis in ("long", "short")],
            pair_sources=lambda config, baseline, candidate: [
                {"paths": [OUTPUTS.output("summary")], "baseline": baseline, "candidate": candidate}
            ],
        )
    ''',
    "toy_method/config.schema.yaml": """
        type: object
        additionalProperties: false
        default: {}
        description: The toy method, continuations longer than a number of words.
        x-min-effect:
          type: number
          exclusiveMinimum: 0
          exclusiveMaximum: 1
          default: 0.1
          description: "Toy lengths: the share of long continuations worth detecting."
          x-margin: "The toy's margin on the difference of shares of long continuations"
        properties:
          models:
            type: [array, "null"]
            items: {type: string}
            default: null
            description: Evaluated models (names from `models`); `null` evaluates every model.
          min_words: {type: integer, minimum: 1, default: 3, description: "Words a continuation must exceed."}
    """,
    "toy_method/checks.py": """
        from biasflow.errors import BiasflowError

        def check(config, workdir):
            for name in config["toy"]["models"] or []:
                if name not in config["models"]:
                    raise BiasflowError(f"config toy.models: {name!r} is no model under models.")
            return ["toy: a toy method is running"]
    """,
    "toy_method/lengths.py": """
        from dataclasses import dataclass

        from biasflow.settings import StepSettings

        @dataclass(frozen=True)
        class LengthSettings(StepSettings):
            section = "toy"
            min_words: int

        def long_share(texts, settings):
            return sum(len(text.split()) > settings.min_words for text in texts) / len(texts)
    """,
    "toy_method/commands.py": """
        from biasflow.cli import example
        from biasflow.schema import flag

        from toy_method.lengths import LengthSettings, long_share

        def register(commands):
            toy = commands.add_parser("toy-count", help="long texts", **example("biasflow toy-count --text 'a b'"))
            toy.add_argument("--text", required=True, nargs="+")
            flag(toy, "--min-words", "toy.min_words")
            toy.set_defaults(run=lambda args: print(long_share(args.text, LengthSettings(args.min_words))))
    """,
    "toy_method/power.py": """
        from dataclasses import dataclass

        import pandas as pd

        from biasflow.power import PowerSettings, proportions_mdd

        @dataclass(frozen=True)
        class Settings(PowerSettings):
            keys = {**PowerSettings.keys, "min_effect": "power.min_effect.toy"}

        def plan(sources, settings):
            # Per source, the smallest rise of the share of long continuations from one half that its continuations
            # detect against as many of another model's.
            rows = []
            for name, tables in sources.items():
                n = sum(len(table if isinstance(table, pd.DataFrame) else pd.read_csv(table)) for table in tables)
                mdd = proportions_mdd(0.5, n, n, settings.alpha, settings.power)
                rows.append({"method": "toy", "model": name, "n": n, "mdd": mdd, "target": settings.min_effect})
            plan = pd.DataFrame(rows)
            return plan.assign(detectable=plan["mdd"] <= plan["target"])
    """,
    # Its public function, biasflow.toy_lengths: a table in, a table out, its setting a keyword defaulting to the
    # schema's toy.min_words or config='s.
    "toy_method/api.py": '''
        """The toy's public function (``biasflow.toy_lengths``)."""
        import pandas as pd

        from biasflow.api import SCHEMA, ConfigArg, schema_keywords

        from toy_method.lengths import LengthSettings, long_share

        @schema_keywords(LengthSettings)
        def toy_lengths(
            continuations: pd.DataFrame, *, min_words: int = SCHEMA, config: ConfigArg = None
        ) -> pd.DataFrame:
            """Per model, the share of its continuations longer than ``min_words`` words.

            Parameters
            ----------
            continuations : pandas.DataFrame
                ``model`` and ``continuation``, one row per continuation.
            min_words : int
                Words a continuation must exceed.
            config : mapping or path, optional
                Any part of a workflow config (``{"toy": {"min_words": 1}}``), or its YAML file(s).

            Returns
            -------
            pandas.DataFrame
                ``model`` and ``long_share``.

            Examples
            --------
            >>> import pandas as pd
            >>> import biasflow
            >>> texts = pd.DataFrame({"model": ["a", "a"], "continuation": ["one two three four", "one"]})
            >>> biasflow.toy_lengths(texts)
              model  long_share
            0     a         0.5
            """
            settings = LengthSettings(min_words=min_words)
            shares = continuations.groupby("model")["continuation"].agg(lambda texts: long_share(list(texts), settings))
            return shares.rename("long_share").reset_index()
    ''',
    "toy_method/outputs.py": """
        from biasflow.outputs import Outputs

        OUTPUTS = Outputs(
            folder="results/toy/",
            steps={"summary": {"summary": "summary.csv"}, "counts": {"counts": "{metric}/{axis}.csv"}},
            captions={"summary": ("summary.rst", "Toy")},
        )
    """,
    "toy_method/steps.py": """
        import pandas as pd

        def summary(models, settings, outputs):
            pd.DataFrame({"model": models, "min_words": settings.min_words}).to_csv(outputs["summary"], index=False)
    """,
    # Its rules, shipped inside the package: its names and lookups, then its rules, whose scripts, captions and data
    # sit beside them. In its own namespace (rules/method.smk), its `data_dir` and its constraints of {axis} and
    # {metric}, names CAIRO's rules use for other values and other lookups, are its own.
    "toy_method/rules/common.smk": """
        from toy_method import outputs as toy_outputs
        from toy_method.lengths import LengthSettings

        TOY_MODELS = METHOD.evaluated(config)


        def data_dir(wildcards):
            return str(RULE_FOLDER / "data" / wildcards.metric)


        wildcard_constraints:
            axis="long|short",
            metric="words",
    """,
    "toy_method/rules/steps.smk": """
        rule toy_summary:
            output:
                **step_outputs(toy_outputs, "summary"),
            log:
                "logs/toy/summary.log",
            localrule: True
            params:
                models=TOY_MODELS,
                settings=settings_params(LengthSettings),
            script:
                "scripts/toy_summary.py"


        rule toy_counts:
            input:
                lambda wildcards: f"{data_dir(wildcards)}/{wildcards.axis}.txt",
            output:
                **step_outputs(toy_outputs, "counts"),
            localrule: True
            shell:
                "wc -w < {input} | tr -d ' ' > {output}"
    """,
    "toy_method/rules/data/words/long.txt": "one two three four five six\n",
    "toy_method/rules/data/words/short.txt": "one two\n",
    "toy_method/rules/scripts/toy_summary.py": """
        from biasflow.snakemake_adapter import run
        from toy_method.lengths import LengthSettings
        from toy_method.steps import summary

        run(
            lambda sm: summary(sm.params.models, LengthSettings.from_params(sm.params.settings), dict(sm.output)),
            snakemake,
        )
    """,
    "toy_method/rules/summary.rst": "The toy's models and the words a continuation must exceed.\n",
    "toy_method/compare.py": """
        import pandas as pd

        from biasflow.verdicts import Verdicts, judge

        def command(paths, baseline, candidate, config, margin, margin_source):
            rows = pd.DataFrame({"measure_name": ["mean length"], "difference": [0.0], "lo90": [-0.5], "hi90": [0.5],
                                 "p_worse": [0.5], "unit": ["files"], "n_units": [len(paths)], "why_untested": [None],
                                 "note": [None]})
            return Verdicts("toy", baseline, candidate, margin_source, judge(rows, margin))
    """,
}


def write_toy(root: Path) -> None:
    for name, text in TOY.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))


@pytest.fixture
def toy(tmp_path, monkeypatch):
    """The toy package on the path and registered beside the three methods, as `pip install` would register it."""
    write_toy(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    installed = [
        EntryPoint(name=n, value=f"biasflow.{n}.method:METHOD", group="biasflow.methods") for n in REGISTRY.names()
    ]
    installed.append(EntryPoint(name="toy", value="toy_method.method:METHOD", group="biasflow.methods"))
    monkeypatch.setattr("biasflow.registry.entry_points", lambda group: installed)
    monkeypatch.setattr(registry_module, "REGISTRY", Registry("method", group="biasflow.methods"))
    yield
    for module in [m for m in sys.modules if m.startswith("toy_method")]:
        del sys.modules[module]


def toy_config() -> dict:
    return {
        "methods": ["toy"],
        "models": {"a": {"backend": "transformers", "model": "x"}, "b": {}},
        "paraphrasers": {},
        "toy": {"models": ["b"], "min_words": 3},
    }


def test_the_toy_is_registered_and_its_declaration_is_what_the_core_reads(toy):
    assert registry_module.REGISTRY.names() == ("cairo", "fairpair", "fpr", "toy")
    config = toy_config()
    assert used_model_entries(config) == [("models", "b")]
    assert method("toy").finals(config) == ["results/toy/summary.csv"]
    page = front_page(config, ["toy"], "data")
    assert page["methods"] == [
        {
            "name": "Toy lengths",
            "citation": "Nobody, 2026",
            "models": ["b"],
            "settings": "continuations longer than 3 words.",
            "pages": [],
            "comparisons": [],
            "variance": [],
        }
    ]
    assert page["not_run"] == ["CAIRO", "FairPair", "Group FPR gaps"] and page["data"] == []


def test_the_schema_holds_the_toys_section_and_its_name(toy):
    """The toy's file joins the schema: its section is validated and filled, `methods` takes its name, and the
    schema's defaults, flags and generated key table are the toy's too."""
    config = {"methods": ["toy"], "models": {"b": {"model": "x"}}, "toy": {"models": ["b"]}}
    validate_config(config)
    assert config["toy"] == {"models": ["b"], "min_words": 3}
    assert choices("methods") == ("cairo", "fairpair", "fpr", "toy") and default("toy.min_words") == 3
    from toy_method.lengths import LengthSettings

    assert LengthSettings.defaults() == LengthSettings(min_words=3)
    rows = markdown_table(config_schema()).splitlines()
    assert rows[-3:] == [
        "| `toy` | object | `{}` | The toy method, continuations longer than a number of words. |",
        "| `toy.models` | list of string or null | `null` | Evaluated models (names from `models`); `null` evaluates "
        "every model. |",
        "| `toy.min_words` | integer ≥ 1 | `3` | Words a continuation must exceed. |",
    ]


@pytest.mark.parametrize(
    ("section", "message"),
    [
        (
            {"min_words": 0},
            "config key toy.min_words: 0 is less than the minimum of 1. See config/README.md for the allowed values.",
        ),
        (
            {"min_word": 2},
            "config key toy: unknown key 'min_word' (did you mean min_words?); the keys allowed here are models, "
            "min_words. See config/README.md for the allowed values.",
        ),
    ],
)
def test_the_schema_refuses_a_bad_toy_setting_with_the_usual_message(toy, section, message):
    with pytest.raises(BiasflowError) as refused:
        validate_config({"methods": ["toy"], "models": {"b": {"model": "x"}}, "toy": section})
    assert str(refused.value) == message


def test_the_core_still_refuses_a_key_no_method_brings(toy):
    with pytest.raises(BiasflowError, match=r"config key \(top level\): unknown key 'tyo' \(did you mean toy\?\)"):
        validate_config({"models": {"b": {"model": "x"}}, "tyo": {}})
    with pytest.raises(
        BiasflowError, match=r"config key methods\.0: 'tyo' is not one of \['cairo', 'fairpair', 'fpr', 'toy'\]"
    ):
        validate_config({"methods": ["tyo"], "models": {"b": {"model": "x"}}})


def test_without_the_toy_installed_its_section_and_name_are_refused():
    """The schema is the registry's: the same config is refused where no package registers the toy."""
    with pytest.raises(BiasflowError, match=r"unknown key 'toy'"):
        validate_config({"models": {"b": {"model": "x"}}, "toy": {"min_words": 3}})
    with pytest.raises(BiasflowError, match=r"config key compare\.0\.margin: unknown key 'toy'"):
        validate_config({key: value for key, value in compare_config().items() if key not in ("methods", "toy")})
    with pytest.raises(BiasflowError, match=r"config key methods\.0: 'toy' is not one of"):
        validate_config({"methods": ["toy"], "models": {"b": {"model": "x"}}})


@pytest.mark.parametrize(
    ("file", "message"),
    [
        ("missing.yaml", "method 'toy' declares its config schema 'toy_method:missing.yaml', which names no file"),
        ("listed.yaml", "method 'toy': its config schema toy_method:listed.yaml is no JSON schema of an object"),
    ],
)
def test_a_declared_schema_that_is_no_section_is_named(toy, tmp_path, file, message):
    (tmp_path / "toy_method" / "listed.yaml").write_text("- min_words\n")
    declared = dataclasses.replace(method("toy"), schema=f"toy_method:{file}")
    with pytest.raises(BiasflowError, match=re.escape(message)):
        declared.schemas()


def test_a_method_cannot_take_a_core_keys_name(toy, monkeypatch):
    declared = dataclasses.replace(method("toy"), name="power")
    monkeypatch.setattr(registry_module, "REGISTRY", Registry("method", builtin=[("power", declared)]))
    with pytest.raises(BiasflowError, match=r"method 'power': its config section would replace the core's key 'power'"):
        config_schema()


def compare_config() -> dict:
    """Three models the toy evaluates and two release pairs: one giving the toy's own margin, one leaving it to
    ``power.min_effect.toy``."""
    return {
        "methods": ["toy"],
        "models": {name: {"backend": "openai", "model": "served"} for name in ("a", "b", "c")},
        "toy": {"min_words": 4},
        "compare": [{"baseline": "a", "candidate": "b", "margin": {"toy": 0.3}}, {"baseline": "a", "candidate": "c"}],
    }


def test_the_toys_min_effect_is_its_power_effect_and_the_margin_of_its_compare_pairs(toy, tmp_path, monkeypatch):
    """The toy's x-min-effect is the key power.min_effect.toy, which its planner reads and a pair without a margin
    of its own takes; compare[].margin.toy is the pair's own. Both are in the generated key table."""
    config = compare_config()
    validate_config(config)
    assert config["power"]["min_effect"] == {"cairo": 0.05, "fairpair": 0.025, "fpr": 0.05, "toy": 0.1}
    given, left = compared_pairs(config)
    assert given.margin(config, "toy") == (0.3, "compare[].margin.toy")
    assert left.margin(config, "toy") == (0.1, "power.min_effect.toy")
    config["power"]["min_effect"]["toy"] = 0.2
    assert left.margin(config, "toy") == (0.2, "power.min_effect.toy")
    assert planner("toy").Settings.from_config(config).min_effect == 0.2 and default("power.min_effect.toy") == 0.1
    monkeypatch.setenv("OPENAI_API_KEY", "x")
    assert check_config(config, tmp_path) == ["toy: a toy method is running"], "its pairs pass the config check"
    rows = markdown_table(config_schema()).splitlines()
    assert (
        "| `compare[].margin.toy` | number > 0 or null | `null` | The toy's margin on the difference of shares of long "
        "continuations; null: `power.min_effect.toy`. |"
    ) in rows
    assert (
        "| `power.min_effect.toy` | number > 0, < 1 | `0.1` | Toy lengths: the share of long continuations worth "
        "detecting. |"
    ) in rows


@pytest.mark.parametrize(
    ("changed", "message"),
    [
        (
            {"compare": [{"baseline": "a", "candidate": "b", "margin": {"toy": 0}}]},
            "config key compare.0.margin.toy: 0 is less than or equal to the minimum of 0",
        ),
        (
            {"compare": [{"baseline": "a", "candidate": "b", "margin": {"tyo": 0.1}}]},
            "config key compare.0.margin: unknown key 'tyo' (did you mean toy?)",
        ),
        ({"power": {"min_effect": {"toy": 1}}}, "config key power.min_effect.toy: 1 is greater than or equal to"),
    ],
)
def test_the_schema_refuses_a_bad_toy_margin_or_power_effect(toy, changed, message):
    with pytest.raises(BiasflowError, match=re.escape(message)):
        validate_config(compare_config() | changed)


@pytest.mark.parametrize(
    ("declared", "message"),
    [
        (
            "",
            "method 'toy': its config schema toy_method:bare.yaml declares no x-min-effect, its smallest effect worth "
            "detecting, which its power planner plans for and its compare: pairs take as their margin "
            "(power.min_effect.toy); add x-min-effect: {type: number, exclusiveMinimum: 0, default: ..., description: "
            "..., x-margin: ...} at its top level (docs/adding-a-method.md, section 4).",
        ),
        (
            "x-min-effect: {type: integer, default: 1, description: Long texts.}\n",
            "method 'toy': the x-min-effect of its config schema toy_method:bare.yaml lacks type: number, x-margin; "
            "give the schema of a number with its default, its description and, as x-margin, what a margin of "
            "compare: pairs is in its unit (docs/adding-a-method.md, section 4).",
        ),
    ],
)
def test_a_method_without_its_min_effect_is_refused_when_the_schema_is_assembled(
    toy, tmp_path, monkeypatch, declared, message
):
    """Every method has a power planner and a paired comparison, and both need its smallest effect worth detecting:
    one whose schema does not declare it stops every config check and command, naming it, before anything runs."""
    (tmp_path / "toy_method" / "bare.yaml").write_text(f"type: object\nproperties: {{}}\n{declared}")
    bare = dataclasses.replace(method("toy"), schema="toy_method:bare.yaml")
    monkeypatch.setattr(registry_module, "REGISTRY", Registry("method", builtin=[("toy", bare)]))
    with pytest.raises(BiasflowError) as refused:
        validate_config({"methods": ["toy"], "models": {"b": {"model": "x"}}})
    assert str(refused.value) == message


def test_the_config_check_runs_the_toys_own_check(toy, tmp_path, monkeypatch):
    config = toy_config()
    config["models"] = {"b": {"backend": "openai", "model": "served"}}
    monkeypatch.setenv("OPENAI_API_KEY", "x")
    assert check_config(config, tmp_path) == ["toy: a toy method is running"]
    config["toy"]["models"] = ["c"]
    with pytest.raises(BiasflowError, match=r"config toy\.models: 'c' is no model"):
        check_config(config, tmp_path)


def test_the_cli_has_the_toys_command_comparison_and_planner(toy, capsys):
    assert main(["toy-count", "--text", "one two three four", "a b"]) == 0
    assert capsys.readouterr().out.strip() == "0.5"
    assert main(["toy-count", "--text", "a b", "--min-words", "0"]) == 2
    assert capsys.readouterr().err.strip() == (
        "biasflow: --min-words 0: 0 is less than the minimum of 1; the config key toy.min_words takes the same "
        "values (config/README.md)."
    )
    assert (
        main(
            [
                "compare",
                "--method",
                "toy",
                "--lengths",
                "x.csv",
                "--baseline",
                "a",
                "--candidate",
                "b",
                "--margin",
                "1",
                "--fail-on",
                "not-noninferior",
            ]
        )
        == 0
    )
    assert capsys.readouterr().out.splitlines() == [
        "toy: candidate b against baseline a: not worse (margin ±1 from --margin; 1 measure(s) given, 1 judged; each a "
        "one-sided test at 0.05; 'not worse' overall needs every measure non-inferior, 'worse' any after Holm)",
        "mean length: candidate b: equivalent to a within ±1 (90% interval -0.5000 to +0.5000, inside −1 to +1)",
    ]
    assert planner("toy").Settings.defaults().min_effect == 0.1


def test_the_toys_public_function_comparison_and_planner_are_biasflows_api(toy, caplog):
    """Its declaration's ``api`` makes ``toy_lengths`` ``biasflow.toy_lengths``, listed in ``biasflow.__all__`` and
    ``dir(biasflow)``, with the schema's ``toy.min_words`` in its signature, ``config=`` meaning the toy's section and
    its example running as a doctest; ``biasflow.compare`` and ``biasflow.plan_power`` reach its comparison and its
    planner, the planner's target ``power.min_effect.toy``."""
    import doctest
    import inspect

    import pandas as pd

    import biasflow
    from biasflow.power import proportions_mdd

    assert "toy_lengths" in biasflow.__all__ and biasflow.__all__ == sorted(biasflow.__all__)
    assert "toy_lengths" in dir(biasflow)
    from toy_method.api import toy_lengths

    assert biasflow.toy_lengths is toy_lengths
    assert inspect.signature(toy_lengths).parameters["min_words"].default == 3
    texts = pd.DataFrame(
        {
            "model": ["a", "a", "b", "b"],
            "continuation": ["one two three four", "one", "one two", "one two three four five"],
        }
    )
    assert biasflow.toy_lengths(texts).to_dict("list") == {"model": ["a", "b"], "long_share": [0.5, 0.5]}
    with caplog.at_level("WARNING", logger="biasflow"):
        by_config = biasflow.toy_lengths(texts, config={"toy": {"min_words": 1}})
    assert by_config["long_share"].tolist() == [0.5, 1.0] and "biasflow note" not in caplog.text
    runner = doctest.DocTestRunner()
    for test in doctest.DocTestFinder().find(toy_lengths, "biasflow.toy_lengths", globs={}):
        runner.run(test)
    assert runner.tries >= 3 and runner.failures == 0

    verdicts = biasflow.compare("toy", texts, baseline="a", candidate="b", margin=1.0)
    assert verdicts.overall == "not worse" and verdicts.rows["n_units"].tolist() == [1]
    pilot = pd.concat([texts] * 10, ignore_index=True)
    plan = biasflow.plan_power("toy", {"texts": pilot})
    assert plan[["model", "n", "target"]].to_dict("records") == [{"model": "texts", "n": 40, "target": 0.1}]
    assert plan["mdd"].tolist() == [proportions_mdd(0.5, 40, 40, 0.05, 0.8)] and 0.1 < plan["mdd"][0] < 0.5
    assert biasflow.plan_power("toy", pilot, config={"power": {"min_effect": {"toy": 0.4}}})["target"].tolist() == [0.4]


def test_without_the_toy_installed_biasflow_has_no_function_of_it():
    import biasflow

    assert "toy_lengths" not in biasflow.__all__
    with pytest.raises(AttributeError, match="no attribute 'toy_lengths'"):
        biasflow.toy_lengths  # noqa: B018


def test_the_toys_rules_are_the_folder_its_package_ships_and_the_three_methods_keep_theirs(toy, tmp_path, monkeypatch):
    assert rule_folder("toy", REPO) == tmp_path / "toy_method" / "rules"
    assert [rule_folder(name, REPO) for name in ("cairo", "fairpair", "fpr")] == [
        REPO / "rules" / name for name in ("cairo", "fairpair", "fpr")
    ]
    undeclared = dataclasses.replace(method("toy"), rules=None)
    assert undeclared.rule_folder() is None
    monkeypatch.setattr(registry_module, "REGISTRY", Registry("method", builtin=[("toy", undeclared)]))
    checkout = tmp_path / "checkout"
    assert rule_folder("toy", checkout) is None, "a method with no rule folder anywhere has no rules, as before"
    (checkout / "rules" / "toy").mkdir(parents=True)
    (checkout / "rules" / "toy" / "common.smk").write_text("")
    assert rule_folder("toy", checkout) == checkout / "rules" / "toy", "one declaring none has the checkout's"


@pytest.mark.parametrize(
    ("rules", "message"),
    [
        (
            "toy_method:rulez",
            "method 'toy' declares its rules 'toy_method:rulez', which names no folder of the package 'toy_method'; "
            'give "package:folder", a folder shipped inside the package that holds its common.smk and stage files',
        ),
        (
            "toy_mehtod:rules",
            "method 'toy' declares its rules 'toy_mehtod:rules', which names no folder of the package 'toy_mehtod'",
        ),
        (
            "toy_method:rules/scripts",
            "method 'toy': its rule folder toy_method:rules/scripts ({folder}) in the package 'toy_method' holds no "
            "common.smk; put the method's names and lookups there",
        ),
    ],
)
def test_a_declared_rule_folder_that_is_none_is_named(toy, tmp_path, rules, message):
    declared = dataclasses.replace(method("toy"), rules=rules)
    folder = tmp_path / "toy_method" / "rules" / "scripts"
    with pytest.raises(BiasflowError, match=re.escape(message.format(folder=folder))):
        declared.rule_folder()


def held_to_the_contract(monkeypatch, **changes) -> None:
    """The toy registered with ``changes`` to its declaration, the registry holding each method to the contract as
    biasflow's own does (biasflow.methods.REGISTRY)."""
    import toy_method.method

    monkeypatch.setattr(toy_method.method, "METHOD", dataclasses.replace(toy_method.method.METHOD, **changes))
    monkeypatch.setattr(registry_module, "REGISTRY", Registry("method", group="biasflow.methods", accept=declaration))


def test_the_toys_declaration_meets_the_contract(toy, monkeypatch):
    held_to_the_contract(monkeypatch)
    assert method("toy").name == "toy"
    assert [method("toy").part(part) is not None for part in ("check", "commands", "power", "compare")] == [True] * 4


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        (
            {"check": "toy_method.checks"},
            "method 'toy': its check 'toy_method.checks' is no \"module:function\"; give \"module:function\" of "
            "function(config, workdir), which returns warnings and raises BiasflowError for the first problem in its "
            "settings (docs/adding-a-method.md, section 2).",
        ),
        (
            {"compare": "toy_method.comparison"},
            "method 'toy': its compare 'toy_method.comparison' names the module 'toy_method.comparison', which is not "
            'installed; give "module" with its paired comparison, command(paths, baseline, candidate, config, '
            "margin, margin_source) (docs/adding-a-method.md, section 2).",
        ),
        (
            {"summary": "continuations longer than 3 words."},
            "method 'toy': its summary 'continuations longer than 3 words.' is no function; give summary(config), its "
            "settings in a sentence (docs/adding-a-method.md, section 2).",
        ),
    ],
)
def test_a_toy_declaration_missing_a_part_is_refused_when_the_registry_loads_it(toy, monkeypatch, changes, message):
    """A missing or mistaken part stops the method where the registry loads it, before a user calls that part: with
    one line naming the method, the part and what it should be, for the first thing that loads it (here the config
    schema, which every command and the workflow assemble first)."""
    held_to_the_contract(monkeypatch, **changes)
    assert registry_module.REGISTRY.names()[-1] == "toy", "listing the methods loads none"
    with pytest.raises(BiasflowError) as refused:
        method("toy")
    assert str(refused.value) == message
    with pytest.raises(BiasflowError) as refused:
        validate_config({"methods": ["toy"], "models": {"b": {"model": "x"}}})
    assert str(refused.value) == message


def test_a_toy_declaration_without_a_required_part_is_refused_when_the_registry_loads_it(toy, tmp_path, monkeypatch):
    declared = tmp_path / "toy_method" / "method.py"
    declared.write_text(declared.read_text().replace('compare="toy_method.compare",', ""))
    monkeypatch.setattr(registry_module, "REGISTRY", Registry("method", group="biasflow.methods", accept=declaration))
    with pytest.raises(BiasflowError) as refused:
        method("toy")
    assert str(refused.value) == (
        "method 'toy': its entry point 'toy_method.method:METHOD' (group biasflow.methods) cannot be loaded "
        "(TypeError: Method.__init__() missing 1 required positional argument: 'compare'); fix or reinstall the "
        "package that registers it."
    )


def test_a_toy_power_module_without_its_plan_is_refused_when_first_imported(toy, tmp_path, monkeypatch):
    """What a module holds is checked when it is first imported (docs/adding-a-method.md, section 2): the toy
    loads, and its planner is refused in one line when the power command or the workflow's power rule asks for it."""
    (tmp_path / "toy_method" / "bare_power.py").write_text(
        "from toy_method.power import Settings  # noqa: F401, the planner's settings and no plan\n"
    )
    held_to_the_contract(monkeypatch, power="toy_method.bare_power")
    assert method("toy").power == "toy_method.bare_power"
    with pytest.raises(BiasflowError) as refused:
        planner("toy")
    assert str(refused.value) == (
        "method 'toy': its power 'toy_method.bare_power' has no plan(sources, settings); give \"module\" with its "
        "power planner's Settings, a biasflow.power.PowerSettings, and plan(sources, settings) "
        "(docs/adding-a-method.md, section 2)."
    )


def installed_toy(root: Path) -> dict[str, str]:
    """The toy package written to ``root`` with its distribution's metadata, as `pip install` leaves a package: a
    process with ``root`` on its path finds the toy's entry point there. The environment for such a process."""
    write_toy(root)
    info = root / "toy_method-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: toy-method\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text("[biasflow.methods]\ntoy = toy_method.method:METHOD\n")
    path = os.pathsep.join(filter(None, [str(root), os.environ.get("PYTHONPATH")]))
    return {"PYTHONPATH": path, "OPENAI_API_KEY": "x"}


def write_toy_config(workdir: Path) -> None:
    config = {"methods": ["toy"], "models": {"b": {"backend": "openai", "model": "served"}}, "toy": {"min_words": 4}}
    write_config(config, workdir)


def test_the_workflow_includes_the_installed_toys_rules_from_its_package(tmp_path):
    env = installed_toy(tmp_path / "site")
    write_toy_config(tmp_path / "run")
    listed = snakemake(tmp_path / "run", "--list-rules", env=env).stdout.split()
    assert "toy_summary" in listed and not [rule for rule in listed if rule.startswith(("cairo", "fairpair", "fpr"))]
    (tmp_path / "site" / "toy_method" / "rules" / "common.smk").unlink()
    refused = snakemake(tmp_path / "run", "--list-rules", env=env, check=False)
    assert refused.returncode != 0
    assert "biasflow error: method 'toy': its rule folder toy_method:rules" in refused.stderr


def test_the_compare_target_plans_the_installed_toys_verdicts_of_every_pair(tmp_path):
    env = installed_toy(tmp_path / "site")
    write_config(compare_config(), tmp_path / "run")
    planned = snakemake(tmp_path / "run", "--dry-run", "compare", env=env).stdout
    assert "toy_summary" in planned and "compare_verdicts" in planned
    assert "results/compare/a_vs_b/toy.csv" in planned and "results/compare/a_vs_c/toy.csv" in planned


@pytest.mark.workflow
def test_the_installed_toys_pairs_are_judged_at_their_own_margin_or_its_power_effect(tmp_path):
    """The real workflow's `compare` target runs the toy's summary, then judges each pair with the toy's comparison:
    at the pair's compare[].margin.toy, else at the config's power.min_effect.toy."""
    env = installed_toy(tmp_path / "site")
    workdir = tmp_path / "run"
    write_config(compare_config() | {"power": {"min_effect": {"toy": 0.2}}}, workdir)
    snakemake(workdir, "compare", env=env)
    folder = workdir / "results" / "compare"
    for pair, margin, source in (("a_vs_b", 0.3, "compare[].margin.toy"), ("a_vs_c", 0.2, "power.min_effect.toy")):
        rows = (folder / pair / "toy.csv").read_text().splitlines()
        assert dict(zip(rows[0].split(","), rows[1].split(","), strict=True))["margin"] == str(margin)
        assert f"margin ±{margin:g} from {source}" in (folder / pair / "toy.md").read_text()


@pytest.mark.workflow
def test_the_installed_toy_runs_and_is_reported(tmp_path):
    """The real workflow of this checkout runs the toy's rule from its package, writes its table, and reports it."""
    env = installed_toy(tmp_path / "site")
    workdir = tmp_path / "run"
    write_toy_config(workdir)
    planned = snakemake(workdir, "--dry-run", env=env)
    assert "toy_summary" in planned.stdout
    snakemake(workdir, env=env)
    assert (workdir / "results" / "toy" / "summary.csv").read_text() == "model,min_words\nb,4\n"
    snakemake(workdir, "--report", "report.html", env=env)
    page = (workdir / "report.html").read_text()
    assert "Toy lengths" in page and "Nobody, 2026" in page, "the front page names the toy and cites it"
    assert "The toy's models and the words a continuation must exceed." in page, "the toy's own caption"


def planned(stdout: str) -> list[tuple[str, str, str]]:
    """Each job of a dry run: its rule, its output files and its wildcards, as Snakemake prints them."""
    jobs: list[list[str]] = []
    for line in stdout.splitlines():
        rule = re.match(r"^(?:local)?rule (\S+):", line)
        if rule:
            jobs.append([rule.group(1), "", ""])
        elif jobs and (field := re.match(r"^\s+(output|wildcards): (.*)", line)):
            jobs[-1][1 if field.group(1) == "output" else 2] = field.group(2)
    return sorted(map(tuple, jobs))


@pytest.mark.workflow
def test_the_toys_wildcards_and_lookups_stay_its_own_beside_the_three_methods(tmp_path):
    """Each method's rules are a Snakemake module of their own (rules/method.smk): the toy's `data_dir` and its
    constraints of {axis} and {metric}, names CAIRO's rules also use, reach none of the three methods' rules, which plan
    the same jobs with the toy as without it, and the toy's own rules read its own data (docs/adding-a-method.md,
    section 5). With every method's rule files in one namespace, CAIRO's axes would match none of the toy's."""
    env = installed_toy(tmp_path / "site")
    config = yaml.safe_load((REPO / "config" / "config.yaml").read_text()) | {"methods": ["cairo", "fairpair", "fpr"]}
    write_config(config, tmp_path / "three")
    write_config(config | {"methods": [*config["methods"], "toy"], "toy": {"min_words": 4}}, tmp_path / "four")
    three = planned(snakemake(tmp_path / "three", "--dry-run", env=env).stdout)
    four = planned(snakemake(tmp_path / "four", "--dry-run", env=env).stdout)
    assert [job for job in four if not job[0].startswith("toy")] == three
    assert [job[1:] for job in four if job[0] == "toy_counts"] == [
        (f"results/toy/words/{axis}.csv", f"metric=words, axis={axis}") for axis in ("long", "short")
    ]
    snakemake(tmp_path / "four", "results/toy/words/long.csv", "results/toy/words/short.csv", env=env)
    counts = [
        (tmp_path / "four" / "results" / "toy" / "words" / f"{axis}.csv").read_text() for axis in ("long", "short")
    ]
    assert counts == ["6\n", "2\n"], "each count read from the toy's own data_dir"


@pytest.mark.workflow
def test_a_method_declared_without_rules_adds_no_job(tmp_path):
    """A method may come without rules (docs/adding-a-method.md, section 2): what it adds to the targets is read
    from the declarations of the methods with rules only, so the workflow plans nothing for it and fails on nothing
    (the rule files once indexed FINAL_JOBS[name] of every configured method: KeyError)."""
    env = installed_toy(tmp_path / "site")
    declared = tmp_path / "site" / "toy_method" / "method.py"
    declared.write_text(declared.read_text().replace('rules="toy_method:rules",', "rules=None,"))
    write_toy_config(tmp_path / "run")
    assert planned(snakemake(tmp_path / "run", "--dry-run", env=env).stdout) == [("all", "", "")]
