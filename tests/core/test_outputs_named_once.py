"""Each file role is named once: in its method's ``outputs`` module, never spelled in a rule or a script.

Each method's ``outputs`` module holds one :class:`biasflow.outputs.Outputs` (docs/adding-a-method.md, section 5),
which names every file it writes by step and role, and which every rule and step reads through the same accessors.
A rule's ``output:`` is the mapping of ``step_outputs(<method>_outputs, step)`` (rules/common.smk),
the script hands ``snakemake.output`` on whole and the step writes ``outputs[role]``; so a path
of ``biasflow/<method>/outputs.py``, or of the core's own steps (``biasflow/power.py``,
``biasflow/verdict_tables.py``), written out in a rule file or a workflow script is a second
place to keep in step, and this test names it: every role's, since every file name the module spells is a role of
its ``OUTPUTS``.
"""

from __future__ import annotations

import importlib
import re
from pathlib import Path
from types import ModuleType, SimpleNamespace

import pytest

from biasflow import power, verdict_tables
from biasflow.errors import BiasflowError
from biasflow.methods import REGISTRY
from biasflow.outputs import Outputs
from workflow_helpers import REPO

PACKAGE = REPO / "src" / "biasflow"
# The registered methods whose package ships here (one installed from elsewhere has its package there).
METHODS = tuple(name for name in REGISTRY.names() if (PACKAGE / name / "method.py").is_file())

# The methods that ship here with an outputs module, and the files that must not spell their paths.
OUTPUTS = {name: importlib.import_module(f"biasflow.{name}.outputs") for name in METHODS}
WIRING = sorted([*(REPO / "rules").rglob("*.smk"), REPO / "Snakefile", *(REPO / "workflow" / "scripts").rglob("*.py")])


def role_paths(outputs: Outputs) -> set[str]:
    """Every role's workflow path of every step, wildcards left as wildcards, and each role's file name where it
    holds a wildcard and a word of its own (a bare ``summary.csv`` or ``{axis}.parquet`` names nothing in
    particular)."""
    paths = set()
    for step in outputs.roles:
        for path in outputs.of_step(step).values():
            paths.add(path)
            name = path.rsplit("/", 1)[-1]
            if "{" in name and re.sub(r"\{\w+\}", "", name).split(".")[0]:
                paths.add(name)
    return paths


# The core's own steps' files by role: each method's power table and page, and each compared pair's verdicts.
CORE = {
    "power.py": set(power.OUTPUTS.values()),
    "verdict_tables.py": {verdict_tables.output(role) for role in verdict_tables.OUTPUTS},
}
SPELLINGS = {
    spelling: owner
    for owner, paths in [
        *((f"{name}/outputs.py", role_paths(outputs.OUTPUTS)) for name, outputs in OUTPUTS.items()),
        *CORE.items(),
    ]
    for path in paths
    # As written in a plain string, and in an f-string with its wildcards' braces doubled.
    for spelling in (path, path.replace("{", "{{").replace("}", "}}"))
}
# The one script that reads a role of snakemake.output itself: the download's folder, which the step fills with
# the dataset's files as its source lays them out (a directory output, no table of a step's roles).
READS_ITS_OUTPUT = {"download_dataset.py"}


def spelled(text: str) -> list[str]:
    """The outputs modules' paths that ``text`` spells out, each with the module that owns it."""
    return sorted(f"{spelling} ({SPELLINGS[spelling]})" for spelling in SPELLINGS if spelling in text)


def test_every_shipped_method_declares_its_steps_outputs():
    """Each method's outputs module holds its Outputs (what rules/common.smk's step_outputs reads), and the short
    names its helpers and rules read are the Outputs' own."""
    assert set(OUTPUTS) == set(METHODS) and {path.parent.name for path in PACKAGE.glob("*/outputs.py")} == set(METHODS)
    for name, outputs in OUTPUTS.items():
        declared = outputs.OUTPUTS
        assert isinstance(declared, Outputs) and role_paths(declared), f"{name}/outputs.py gives no step's files"
        assert outputs.of_step == declared.of_step and declared.roles == outputs.STEPS, name


def spelled_names(module: ModuleType | SimpleNamespace) -> set[str]:
    """Every file name an outputs module spells in its constants (a text ending in a suffix such as ``.csv``, in a
    constant or a table of them, at any depth)."""
    found = set()
    stack = [value for key, value in vars(module).items() if key.isupper()]
    while stack:
        value = stack.pop()
        if isinstance(value, dict):
            stack += value.values()
        elif isinstance(value, str) and re.search(r"\.\w+$", value):
            found.add(value)
    return found


def role_names(outputs: Outputs) -> set[str]:
    return {name for files in outputs.steps.values() for name in files.values()}


@pytest.mark.parametrize("name", METHODS)
def test_every_file_an_outputs_module_names_is_a_role(name: str):
    """The roles the check above looks for are all of a method's files: each name its outputs module spells is a
    role of some step of its OUTPUTS (CAIRO's scorer agreement and FPR's predictions included), so no path
    escapes the check by living beside the steps."""
    outputs = OUTPUTS[name]
    assert spelled_names(outputs) <= role_names(outputs.OUTPUTS), spelled_names(outputs) - role_names(outputs.OUTPUTS)


def test_a_file_name_beside_the_roles_is_found():
    module = SimpleNamespace(
        OUTPUTS=Outputs(folder="results/x/", steps={"summary": {"table": "summary.csv"}}),
        AGREEMENT="scorers/{axis}_agreement.csv",
        NAMES={"table": "summary.csv"},
        FOLDER="results/x/",
    )
    assert spelled_names(module) - role_names(module.OUTPUTS) == {"scorers/{axis}_agreement.csv"}


# An Outputs of every kind of step: one under the method's folder, with a compared role, and one elsewhere.
EXAMPLE = Outputs(
    folder="results/x/",
    steps={
        "prepare": {"table": "results/prepared/{axis}.parquet"},
        "score": {"scores": "{model}/{axis}.csv", "plot": "{model}/{axis}.png"},
        "summary": {"table": "summary.csv", "comparisons": "comparisons.csv"},
    },
    folders={"prepare": ""},
    compared=("comparisons",),
    captions={"plot": ("plot.rst", "X")},
)


def test_the_accessors_give_a_steps_files_in_the_workflow_or_under_a_folder():
    """The one set of accessors every method's rules, steps and commands use (docs/adding-a-method.md, section 5):
    a wildcard given is filled and one not given stays a wildcard; ``under`` puts the step's names under a folder
    (what a command writes to --out-dir); ``compares=False`` leaves out the compared roles."""
    assert EXAMPLE.roles == {"prepare": ("table",), "score": ("scores", "plot"), "summary": ("table", "comparisons")}
    assert EXAMPLE.of_step("score", axis="gender") == {
        "scores": "results/x/{model}/gender.csv",
        "plot": "results/x/{model}/gender.png",
    }
    assert EXAMPLE.of_step("prepare") == {"table": "results/prepared/{axis}.parquet"}
    assert EXAMPLE.of_step("summary", compares=False) == {"table": "results/x/summary.csv"}
    assert EXAMPLE.of_step("summary", under="mine") == {
        "table": "mine/summary.csv",
        "comparisons": "mine/comparisons.csv",
    }
    assert EXAMPLE.of_step("score", under=Path("./out"), model="m") == {
        "scores": "out/m/{axis}.csv",
        "plot": "out/m/{axis}.png",
    }
    assert EXAMPLE.output("scores", model="m", axis="a", unused="u") == "results/x/m/a.csv"
    assert EXAMPLE.output("plot", under="", model="m") == "m/{axis}.png"
    assert EXAMPLE.output("table", step="prepare", axis="a") == "results/prepared/a.parquet"
    assert EXAMPLE.output("comparisons") == "results/x/comparisons.csv", "output gives a compared role too"


@pytest.mark.parametrize(
    ("role", "message"),
    [("table", "'table' is a role of 2 steps of results/x/ (prepare, summary)"), ("tabel", "'tabel' is a role of 0")],
)
def test_a_role_of_no_step_or_of_two_needs_its_step(role: str, message: str):
    with pytest.raises(KeyError, match=re.escape(message)):
        EXAMPLE.output(role)


@pytest.mark.parametrize(
    ("given", "message"),
    [
        (
            {"compared": ("comparison",)},
            "the outputs of results/x/: compared names 'comparison', which no step writes; give each role in the "
            "files of the step that writes it (docs/adding-a-method.md, section 5).",
        ),
        (
            {"captions": {"plots": ("plot.rst", "X")}},
            "the outputs of results/x/: captions names 'plots', which no step writes; give each role in the files of "
            "the step that writes it (docs/adding-a-method.md, section 5).",
        ),
        (
            {"folders": {"scores": ""}},
            "the outputs of results/x/: folders names the step(s) 'scores', which have no files; give a folder only "
            "to a step of steps (docs/adding-a-method.md, section 5).",
        ),
    ],
)
def test_an_outputs_naming_a_role_or_step_it_lacks_is_refused(given: dict, message: str):
    with pytest.raises(BiasflowError) as refused:
        Outputs(folder="results/x/", steps={"score": {"scores": "{model}.csv", "plot": "{model}.png"}}, **given)
    assert str(refused.value) == message


@pytest.mark.parametrize("path", WIRING, ids=lambda p: str(p.relative_to(REPO)))
def test_no_rule_or_script_spells_a_roles_path(path: Path):
    found = spelled(path.read_text())
    assert not found, f"{path.relative_to(REPO)} spells paths its method's outputs module names: {found}"


@pytest.mark.parametrize(
    "sample",
    [
        'rule x:\n    output:\n        scores="results/fairpair/{model}.csv",\n',
        'rule x:\n    output:\n        gaps=f"results/fpr/{{probe}}_gaps.csv",\n',
        "out = Path(folder) / '{run}{axis}_curve.csv'\n",
        'plot="results/scorer_bias/{scorer}/{axis}_scorer.png"',
        'continuations="results/continuations/{model}/{metric}/{axis}.parquet",',
        'scores=f"results/scores/{{scorer}}-neutral/{{model}}/{{metric}}/{{axis}}.parquet",',
        'return [f"results/prompts/original/{metric}/{axis}_summary.csv" for metric in metrics]',
        'table="results/power/{method}.csv",',
        'summary="results/compare/{pair}/{method}.md",',
        'table="results/cairo/scorers/{axis}_agreement.csv",',
        "out / '{axis}_agreement.csv'",
        'predictions=f"results/fpr/{{probe}}/{{model}}/{{classifier}}.tsv",',
    ],
)
def test_the_check_names_a_spelled_path(sample: str):
    """The check is no formality: each of these samples spells one role's path, and it is found."""
    assert spelled(sample)


def test_the_check_passes_paths_taken_from_the_outputs_module():
    sample = 'rule x:\n    output:\n        **step_outputs(fairpair_outputs, "score"),\n    log:\n        "x.log"\n'
    assert spelled(sample) == []


def scripts_of_mapped_rules() -> dict[str, Path]:
    """Each rule whose ``output:`` is a step's mapping from its method's outputs module, with the script it runs."""
    scripts = {}
    for path in WIRING:
        if path.suffix != ".smk":
            continue
        for block in re.split(r"^\s*rule\b", path.read_text(), flags=re.MULTILINE)[1:]:
            script = re.search(r"workflow/scripts/([\w/]+\.py)", block)
            if "**step_outputs(" in block and script:
                name = block.split(":", 1)[0].strip() or script.group(1)
                scripts[name] = REPO / "workflow" / "scripts" / script.group(1)
    return scripts


MAPPED = scripts_of_mapped_rules()


def test_rules_with_a_steps_mapping_are_found():
    assert {"original_prompts", "prompt_sets", "score", "neutral_scores", "cairo_select"} <= set(MAPPED)


@pytest.mark.parametrize("rule", sorted(MAPPED))
def test_a_mapped_rules_script_hands_its_outputs_on_whole(rule: str):
    """The step, not the script, picks its files by role: a script reading ``sm.output.<role>`` names a role a
    second time."""
    text = MAPPED[rule].read_text()
    assert "outputs=dict(sm.output)" in text and not re.search(r"sm\.output\.\w", text), (
        f"{MAPPED[rule].relative_to(REPO)} (rule {rule}) should pass outputs=dict(sm.output) to its step"
    )


@pytest.mark.parametrize(
    "script", sorted((REPO / "workflow" / "scripts").rglob("*.py")), ids=lambda p: str(p.relative_to(REPO))
)
def test_no_script_picks_a_role_of_its_outputs(script: Path):
    """Every step gets its files as one mapping by role (``outputs=dict(sm.output)``) or, where it writes one set
    per metric or probe set, as such mappings from its params; no script names a role of ``sm.output`` but the
    download's (:data:`READS_ITS_OUTPUT`)."""
    reads = re.search(r"sm\.output\.\w", script.read_text())
    assert bool(reads) == (script.name in READS_ITS_OUTPUT), f"{script.name} picks a role of sm.output"
