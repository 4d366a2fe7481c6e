"""docs/adding-a-method.md, walked through: a toy fourth method, a package of its own plus its declaration and
its config section's schema, reaches every place the core asks of a method without a line of the core or of the
three methods changed (issues 31 and 42).

The toy package is written to a temporary folder and registered as an installed package registers its
method, through an entry point of the ``biasflow.methods`` group. Its schema joins the config schema, so the
config check, the defaults, the flags and config/README.md's key table know its keys. The workflow's rule file
is the step this test leaves to the page (it needs a Snakemake run).
"""

from __future__ import annotations

import dataclasses
import re
import sys
import textwrap
from importlib.metadata import EntryPoint

import pytest

from biasflow import methods as registry_module
from biasflow.cli import main
from biasflow.config import check_config, used_model_entries, validate_config
from biasflow.config_docs import markdown_table
from biasflow.errors import BiasflowError
from biasflow.methods import REGISTRY, method
from biasflow.power import planner
from biasflow.registry import Registry
from biasflow.report_front import front_page
from biasflow.schema import choices, config_schema, default

# The toy method: the share of continuations longer than `toy.min_words` words, per model.
TOY = {
    "toy_method/__init__.py": '"""A toy method: long continuations per model."""\n',
    "toy_method/method.py": '''
        """The toy method as the core sees it."""
        from biasflow.methods import Method, own_models

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
        )
    ''',
    "toy_method/config.schema.yaml": """
        type: object
        additionalProperties: false
        default: {}
        description: The toy method, continuations longer than a number of words.
        properties:
          models:
            type: [array, "null"]
            items: {type: string}
            default: null
            description: Evaluated models (names from `models`); `null` evaluates every model.
          min_words: {type: integer, minimum: 1, default: 3, description: "Words a continuation must exceed."}
          min_effect: {type: number, exclusiveMinimum: 0, default: 0.1, description: "The share worth detecting."}
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

        from biasflow.power import PowerSettings

        @dataclass(frozen=True)
        class Settings(PowerSettings):
            keys = {**PowerSettings.keys, "min_effect": "toy.min_effect"}

        def plan(sources, settings):
            raise NotImplementedError
    """,
    "toy_method/compare.py": """
        import pandas as pd

        from biasflow.verdicts import Verdicts, judge

        def command(paths, baseline, candidate, config, margin=None):
            rows = pd.DataFrame({"measure_name": ["mean length"], "difference": [0.0], "lo90": [-0.5], "hi90": [0.5],
                                 "p_worse": [0.5], "unit": ["files"], "n_units": [len(paths)], "why_untested": [None],
                                 "note": [None]})
            return Verdicts("toy", baseline, candidate, "--margin", judge(rows, margin))
    """,
}


@pytest.fixture
def toy(tmp_path, monkeypatch):
    """The toy package on the path and registered beside the three methods, as `pip install` would register it."""
    for name, text in TOY.items():
        path = tmp_path / name
        path.parent.mkdir(exist_ok=True)
        path.write_text(textwrap.dedent(text))
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
    assert config["toy"] == {"models": ["b"], "min_words": 3, "min_effect": 0.1}
    assert choices("methods") == ("cairo", "fairpair", "fpr", "toy") and default("toy.min_words") == 3
    from toy_method.lengths import LengthSettings

    assert LengthSettings.defaults() == LengthSettings(min_words=3)
    rows = markdown_table(config_schema()).splitlines()
    assert rows[-4:] == [
        "| `toy` | object | `{}` | The toy method, continuations longer than a number of words. |",
        "| `toy.models` | list of string or null | `null` | Evaluated models (names from `models`); `null` evaluates "
        "every model. |",
        "| `toy.min_words` | integer ≥ 1 | `3` | Words a continuation must exceed. |",
        "| `toy.min_effect` | number > 0 | `0.1` | The share worth detecting. |",
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
            "min_words, min_effect. See config/README.md for the allowed values.",
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
        declared.section_schema()


def test_a_method_cannot_take_a_core_keys_name(toy, monkeypatch):
    declared = dataclasses.replace(method("toy"), name="power")
    monkeypatch.setattr(registry_module, "REGISTRY", Registry("method", builtin=[("power", declared)]))
    with pytest.raises(BiasflowError, match=r"method 'power': its config section would replace the core's key 'power'"):
        config_schema()


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
        "toy: candidate b against baseline a: not worse (margin ±1 from --margin; 1 measure(s), each a one-sided test "
        "at 0.05; 'not worse' overall needs every measure non-inferior, 'worse' any after Holm)",
        "mean length: candidate b: equivalent to a within ±1 (90% interval -0.5000 to +0.5000, inside −1 to +1)",
    ]
    assert planner("toy").Settings.defaults().min_effect == 0.1
