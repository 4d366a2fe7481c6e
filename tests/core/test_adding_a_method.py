"""docs/adding-a-method.md, walked through: a toy fourth method, a package of its own plus its declaration,
reaches every place the core asks of a method without a line of the core changed (issue 31).

The toy package is written to a temporary folder and registered as an installed package registers its
method, through an entry point of the ``biasflow.methods`` group. Its config section and the workflow's rule
file are the two steps this test leaves to the page (they need the schema and a Snakemake run).
"""

from __future__ import annotations

import sys
import textwrap
from importlib.metadata import EntryPoint

import pytest

from biasflow import methods as registry_module
from biasflow.cli import main
from biasflow.config import check_config, used_model_entries
from biasflow.errors import BiasflowError
from biasflow.methods import REGISTRY, method
from biasflow.power import planner
from biasflow.registry import Registry
from biasflow.report_front import front_page

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
        )
    ''',
    "toy_method/checks.py": """
        from biasflow.errors import BiasflowError

        def check(config, workdir):
            if config["toy"]["min_words"] < 1:
                raise BiasflowError("config toy.min_words: must be at least 1.")
            return ["toy: a toy method is running"]
    """,
    "toy_method/commands.py": """
        from biasflow.cli import example

        def register(commands):
            toy = commands.add_parser("toy-count", help="count words", **example("biasflow toy-count --text 'a b'"))
            toy.add_argument("--text", required=True)
            toy.set_defaults(run=lambda args: print(len(args.text.split())))
    """,
    "toy_method/power.py": """
        from dataclasses import dataclass

        from biasflow.power import PowerSettings

        @dataclass(frozen=True)
        class Settings(PowerSettings):
            keys = {"min_effect": "power.min_effect.fpr"}

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


def test_the_config_check_runs_the_toys_own_check(toy, tmp_path, monkeypatch):
    config = toy_config()
    config["models"] = {"b": {"backend": "openai", "model": "served"}}
    monkeypatch.setenv("OPENAI_API_KEY", "x")
    assert check_config(config, tmp_path) == ["toy: a toy method is running"]
    config["toy"]["min_words"] = 0
    with pytest.raises(BiasflowError, match=r"config toy\.min_words"):
        check_config(config, tmp_path)


def test_the_cli_has_the_toys_command_comparison_and_planner(toy, capsys):
    assert main(["toy-count", "--text", "one two three"]) == 0
    assert capsys.readouterr().out.strip() == "3"
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
    assert planner("toy").Settings.keys == {"min_effect": "power.min_effect.fpr"}
