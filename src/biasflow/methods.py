"""What the core knows of a method, declared once by the method's own package.

Each method package (CAIRO, FairPair, group FPR gaps) holds a ``method.py`` whose
:class:`Method` names everything the shared core asks of it: its paper, the models its jobs
load, its final tables, the front page's line about its settings, and where its config
section's schema (with its smallest effect worth detecting: its power planner's target and the
margin of its ``compare:`` pairs), config check, commands, power planner and paired comparison
live. The packages register it under the ``biasflow.methods`` entry point group (``pyproject.toml``);
the config schema (:mod:`biasflow.schema`), the config check, the CLI, the power planner, the
report's front page, the public API (:mod:`biasflow.api`) and the rules loop over
:func:`methods`, so the core names no method, and a fourth one is a package, its declaration,
its config section's schema and its rules (``docs/adding-a-method.md``), installed from
anywhere: a package installed from outside brings its rule files inside it (:func:`rule_folder`).

The declaration is a contract (:data:`CONTRACT`), checked when the registry loads a method (:func:`declaration`):
every part present and of its kind, each ``"module:name"`` reference naming a module that is installed, its schema
file there. What a referenced module holds is checked when it is first imported
(:meth:`Method.part`), since importing them all at load would cost every start of the workflow and every library
call (docs/adding-a-method.md, section 2). Either way the first problem is one :class:`BiasflowError` naming the
method, the part and what it should be.
"""

from __future__ import annotations

import dataclasses
import inspect
from collections.abc import Callable
from dataclasses import dataclass
from importlib import import_module, resources
from importlib.resources.abc import Traversable
from importlib.util import find_spec
from pathlib import Path
from typing import Any

from biasflow.errors import BiasflowError
from biasflow.outputs import Target
from biasflow.registry import Registry

# A validated config, as the workflow and the commands hold it (yaml's nested mappings).
Config = dict[str, Any]
# The keyword of a method's schema file (top level) declaring its smallest effect worth detecting, the schema of a
# number that biasflow.schema makes the key power.min_effect.<name>; an `x-` keyword, which JSON schema validators
# ignore, so the file stays a valid schema of the section. Inside it, MARGIN: what a margin of a compare: pair is in
# the method's unit, the description of compare[].margin.<name> (docs/adding-a-method.md, section 4).
MIN_EFFECT = "x-min-effect"
MARGIN = "x-margin"


@dataclass(frozen=True)
class MethodSchemas:
    """The parts of the config schema a method's schema file gives (:meth:`Method.schemas`)."""

    section: dict[str, Any]  # its config section, the key `name`
    # its smallest effect worth detecting, power.min_effect.<name>: what its power planner plans for (docs/methods.md
    # §6) and the margin of a compare: pair that gives none of its own (§7)
    min_effect: dict[str, Any]
    # its margin in a compare: pair, compare[].margin.<name>: above 0 in the unit of its min effect, or null for it
    margin: dict[str, Any]


@dataclass(frozen=True)
class Method:
    """A method as the core sees it. The ``check``, ``commands``, ``power``, ``compare`` and ``compare_settings``
    parts are ``"module:name"`` (or ``"module"``) references, imported only when used, so that listing the
    methods stays cheap; what each part must be is :data:`CONTRACT` (docs/adding-a-method.md, section 2)."""

    name: str  # its key in the config's `methods:` list and the name of its config section
    title: str  # how the report and the CLI name it
    citation: str  # its paper(s), as every page of the report cites them
    evaluated: Callable[[Config], list[str]]  # the models whose bias it measures, in config order
    loads: Callable[[Config], list[tuple[str, str]]]  # (section, name) of every model entry its jobs load
    finals: Callable[[Config], list[str]]  # its final tables: the report shows the method once one exists
    summary: Callable[[Config], str]  # its settings, in a sentence for the report's front page
    check: str  # function (config, workdir) -> warnings, raising BiasflowError on the first problem
    commands: str  # function (argparse subparsers) that adds its `biasflow` commands
    power: str  # module with its power planner's `Settings` and `plan` (docs/methods.md §6)
    compare: str  # module with its paired comparison's `command` (biasflow compare)
    compare_input: tuple[str, str]  # the `biasflow compare` flag naming its input files, and the flag's help
    # "package:file" of the JSON schema of its config section (the key `name`), a YAML file inside that package,
    # which biasflow.schema adds to the core schema, with its smallest effect worth detecting (MIN_EFFECT): every
    # method has one, which its power planner plans for and its paired comparison takes as its default margin
    schema: str
    # "module:Class" of the settings its comparison reads, a biasflow.settings.StepSettings (None: it reads none):
    # each field a `biasflow compare` flag named after it (`seed`: `--seed`), its help the class's `what`, and the
    # keys the workflow's comparison rule passes (the class names each key once)
    compare_settings: str | None = None
    comparisons: Callable[[Config], list[str]] = lambda config: []  # its tables of every pair of models compared (§7)
    variance: Callable[[Config], list[str]] = lambda config: []  # its tables of where each number would move (§8)
    pages: Callable[[Config], list[str]] = lambda config: []  # its pages of tables in the report (the front page links)
    computed: Callable[[Config], Config] = lambda config: (
        config
    )  # the config as far as its results exist (the front page)
    # a sentence per source of its prompts that the front page lists (the config as far as computed, and the folder of
    # the bundled files, to tell a bundled set from the user's)
    data: Callable[[Config, str | Path], list[str]] = lambda config, data_root: []
    # fills, in place, what its section's schema cannot default, before bundled files are resolved (CAIRO: a metric
    # with neither a path nor a url reads its bundled set)
    fill: Callable[[Config], None] = lambda config: None
    # keys of its section that configs once gave outside it, each by its old dotted path (`axes` at the top level,
    # CAIRO's `power.min_r`), which is its path inside the section: still read there, moved into the section with a
    # one-line note (biasflow.config.lift_moved_keys)
    moved_keys: tuple[str, ...] = ()
    named: tuple[tuple[str, ...], ...] = ()  # config keys of its maps whose names become parts of result paths
    api: tuple[str, ...] = ()  # "module:function" of its public functions, re-exported as biasflow.<function>
    # "package:folder" of its rule files, a folder inside that package holding common.smk (its names and lookups) and
    # its stage files, with their scripts and report captions beside them; the workflow includes them from there.
    # None: rules/<name>/ of the workflow's checkout, where biasflow's own methods keep theirs (or no rules at all)
    rules: str | None = None
    # What it adds to the workflow's targets, each from the validated config (docs/adding-a-method.md, section 5), so
    # the core reads them of every method alike and a method with no rules adds none: its final tables, each a
    # biasflow.outputs.Target (the default target, and under --report what its jobs have written)
    targets: Callable[[Config], list[Target]] = lambda config: []
    # what its power planner reads, by source (an axis, a model, a probe set) its files; none: no power table (§6)
    power_sources: Callable[[Config], dict[str, list[str]]] = lambda config: {}
    # what one compare: pair's comparison reads (§7), (config, baseline, candidate) -> comparisons, each
    # {"paths": [...], "baseline": name, "candidate": name} and, where several are judged, "labels"; none: no verdicts
    pair_sources: Callable[[Config, str, str], list[dict[str, Any]]] = lambda config, baseline, candidate: []

    def part(self, name: str) -> Any:
        """One of the referenced parts (``"check"``, ``"commands"``, ``"power"``, ``"compare"``,
        ``"compare_settings"``), imported, once it holds what the core calls (:data:`PARTS`): else one line naming
        the method, the part and what it should be (docs/adding-a-method.md, section 2)."""
        reference = getattr(self, name)
        module, _, attribute = reference.partition(":")
        if attribute and not hasattr(import_module(module), attribute):
            raise BiasflowError(
                f"method {self.name!r}: its {name} {reference!r} names nothing, {module} having no {attribute}; "
                f"{_asked(name)}"
            )
        loaded = self.load(reference)
        problem = PARTS[name](loaded)
        if problem:
            raise BiasflowError(f"method {self.name!r}: its {name} {reference!r} {problem}; {_asked(name)}")
        return loaded

    def schemas(self) -> MethodSchemas:
        """What its schema file (:attr:`schema`) gives the config schema: its section, and from its
        :data:`MIN_EFFECT` the keys ``power.min_effect.<name>`` and ``compare[].margin.<name>``. Every method has a
        power planner and a paired comparison (:attr:`power`, :attr:`compare`), and both read that effect, so a file
        without it is refused with one line naming the method and what the file lacks, before any config is read
        (docs/adding-a-method.md, section 4)."""
        section = self._schema_file()
        declared = section.pop(MIN_EFFECT, None)
        if not isinstance(declared, dict):
            raise BiasflowError(
                f"method {self.name!r}: its config schema {self.schema} declares no {MIN_EFFECT}, its smallest effect "
                f"worth detecting, which its power planner plans for and its compare: pairs take as their margin "
                f"(power.min_effect.{self.name}); add {MIN_EFFECT}: {{type: number, exclusiveMinimum: 0, default: ..., "
                f"description: ..., {MARGIN}: ...}} at its top level (docs/adding-a-method.md, section 4)."
            )
        lacking = [key for key in ("default", "description", MARGIN) if key not in declared]
        if declared.get("type") != "number":
            lacking.insert(0, "type: number")
        if lacking:
            raise BiasflowError(
                f"method {self.name!r}: the {MIN_EFFECT} of its config schema {self.schema} lacks "
                f"{', '.join(lacking)}; give the schema of a number with its default, its description and, as "
                f"{MARGIN}, what a margin of compare: pairs is in its unit (docs/adding-a-method.md, section 4)."
            )
        margin = {
            "type": ["number", "null"],
            "exclusiveMinimum": 0,
            "default": None,
            "description": f"{declared.pop(MARGIN)}; null: `power.min_effect.{self.name}`.",
        }
        return MethodSchemas(section=section, min_effect=declared, margin=margin)

    def _schema_file(self) -> dict[str, Any]:
        """The YAML of the file :attr:`schema` names, refused unless it is the JSON schema of an object."""
        import yaml

        path = packaged(self.schema)
        if path is None or not path.is_file():
            raise BiasflowError(
                f"method {self.name!r} declares its config schema {self.schema!r}, which names no file; give "
                '"package:file", a YAML file shipped inside the package (docs/adding-a-method.md, section 4).'
            )
        section = yaml.safe_load(path.read_text())
        if not isinstance(section, dict) or section.get("type") != "object":
            raise BiasflowError(
                f"method {self.name!r}: its config schema {self.schema} is no JSON schema of an object (type: "
                "object); write the schema of its config section there (docs/adding-a-method.md, section 4)."
            )
        return section

    def rule_folder(self) -> Path | None:
        """The folder of its rule files that :attr:`rules` names inside its package (None: it names none)."""
        if self.rules is None:
            return None
        package = self.rules.partition(":")[0]
        found = packaged(self.rules)
        if found is None or not found.is_dir():
            raise BiasflowError(
                f"method {self.name!r} declares its rules {self.rules!r}, which names no folder of the package "
                f'{package!r}; give "package:folder", a folder shipped inside the package that holds its common.smk '
                "and stage files (docs/adding-a-method.md, section 5)."
            )
        folder = Path(str(found))
        if not (folder / "common.smk").is_file():
            raise BiasflowError(
                f"method {self.name!r}: its rule folder {self.rules} ({folder}) in the package {package!r} holds no "
                "common.smk; put the method's names and lookups there, which the workflow includes before its stage "
                "files (docs/adding-a-method.md, section 5)."
            )
        return folder

    @staticmethod
    def load(reference: str) -> Any:
        """What a ``"module:name"`` (or ``"module"``) reference names, imported."""
        module, _, attribute = reference.partition(":")
        loaded = import_module(module)
        return getattr(loaded, attribute) if attribute else loaded


def packaged(reference: str) -> Traversable | None:
    """What a ``"package:path"`` reference names inside an importable package (None: no such package or path)."""
    package, _, inside = reference.partition(":")
    if not package or not inside:
        return None
    try:
        return resources.files(package).joinpath(inside)
    except ModuleNotFoundError:
        return None


def _text(value: object) -> str | None:
    return None if isinstance(value, str) and value.strip() else "is no text"


def _function(value: object) -> str | None:
    return None if callable(value) else "is no function"


def _texts(value: object) -> str | None:
    return None if isinstance(value, tuple) and all(_text(x) is None for x in value) else "is no tuple of texts"


def _text_pair(value: object) -> str | None:
    return None if isinstance(value, tuple) and len(value) == 2 and not _texts(value) else "is no pair of texts"


def _key_paths(value: object) -> str | None:
    return None if isinstance(value, tuple) and not any(map(_texts, value)) else "is no tuple of tuples of keys"


def _installed(module: str) -> bool:
    """Whether ``module`` can be imported, found without importing it (its parent packages are imported)."""
    try:
        return find_spec(module) is not None
    except (ImportError, ValueError):  # a parent package missing, or no module name
        return False


def _reference(value: object, function: bool) -> str | None:
    """The problem with a ``"module:function"`` reference (``function``), or a ``"module"`` or ``"module:name"``
    one: the form, then whether the module is installed."""
    if not isinstance(value, str):
        return "is no text"
    module, colon, name = value.partition(":")
    if (function or colon) and not name.isidentifier():
        return 'is no "module:function"' if function else 'is no "module" or "module:name"'
    if not _installed(module):
        return f"names the module {module!r}, which is not installed"
    return None


def _function_reference(value: object) -> str | None:
    return _reference(value, function=True)


def _module_reference(value: object) -> str | None:
    return _reference(value, function=False)


def _settings_reference(value: object) -> str | None:
    if value is None:
        return None
    if isinstance(value, str) and not value.partition(":")[2].isidentifier():
        return 'is no "module:Class"'
    return _reference(value, function=True)


def _function_references(value: object) -> str | None:
    if not isinstance(value, tuple):
        return "is no tuple"
    return next(filter(None, map(_function_reference, value)), None)


def _packaged_file(value: object) -> str | None:
    found = packaged(value) if isinstance(value, str) else None
    return None if found is not None and found.is_file() else "names no file shipped inside a package"


def _folder_or_none(value: object) -> str | None:
    return None if value is None or (isinstance(value, str) and ":" in value) else 'is no "package:folder"'


# The contract: each part of a declaration, the problem its value may have (None: none), checked when the registry
# loads the method (declaration), and what it should be, as docs/adding-a-method.md's section 2 lists them. It holds
# every field of Method (tests/core/test_methods.py), so no part escapes the check.
CONTRACT: dict[str, tuple[Callable[[object], str | None], str]] = {
    "name": (_text, "its key in the config's methods: list and its config section's name"),
    "title": (_text, "how the report and the CLI name it"),
    "citation": (_text, "its paper(s)"),
    "evaluated": (_function, "evaluated(config), the models it measures"),
    "loads": (_function, "loads(config), (section, name) of every model entry its jobs load"),
    "finals": (_function, "finals(config), its final tables"),
    "summary": (_function, "summary(config), its settings in a sentence"),
    "check": (
        _function_reference,
        '"module:function" of function(config, workdir), which returns warnings and raises BiasflowError for the '
        "first problem in its settings",
    ),
    "commands": (_function_reference, '"module:function" of function(subparsers), which adds its biasflow commands'),
    "power": (
        _module_reference,
        '"module" with its power planner\'s Settings, a biasflow.power.PowerSettings, and plan(sources, settings)',
    ),
    "compare": (
        _module_reference,
        '"module" with its paired comparison, command(paths, baseline, candidate, config, margin, margin_source)',
    ),
    "compare_input": (_text_pair, "(flag, help): the biasflow compare flag naming its input files, and its help"),
    "schema": (_packaged_file, '"package:file", the JSON schema of its config section, a YAML file in its package'),
    "compare_settings": (
        _settings_reference,
        'None or "module:Class" of a biasflow.settings.StepSettings, the settings its comparison reads',
    ),
    "comparisons": (_function, "comparisons(config), its tables of every pair of models compared"),
    "variance": (_function, "variance(config), its tables of where each number would move"),
    "pages": (_function, "pages(config), its pages of tables in the report"),
    "computed": (_function, "computed(config), the config as far as its results exist"),
    "data": (_function, "data(config, data_root), a sentence per source of its prompts"),
    "fill": (_function, "fill(config), which fills in place what its section's schema cannot default"),
    "moved_keys": (_texts, "the dotted paths of the keys of its section that configs once gave outside it"),
    "named": (_key_paths, "the config keys, each a tuple of names, of its maps whose names become parts of paths"),
    "api": (_function_references, '"module:function" of each of its public functions'),
    "rules": (_folder_or_none, 'None or "package:folder", its rule folder inside its package'),
    "targets": (_function, "targets(config), its final tables, each a biasflow.outputs.Target"),
    "power_sources": (_function, "power_sources(config), its power planner's files by source"),
    "pair_sources": (_function, "pair_sources(config, baseline, candidate), what a compare: pair's comparison reads"),
}


def _asked(part: str) -> str:
    """What a message refusing ``part`` asks for, and where the docs say it."""
    return f"give {CONTRACT[part][1]} (docs/adding-a-method.md, section 2)."


def _takes(function: object, *args: object, **kwargs: object) -> bool:
    """Whether ``function`` can be called with these arguments (one whose parameters cannot be read, a builtin's,
    is taken at its word)."""
    if not callable(function):
        return False
    try:
        signature = inspect.signature(function)
    except (TypeError, ValueError):
        return True
    try:
        signature.bind(*args, **kwargs)
    except TypeError:
        return False
    return True


def _power_module(module: object) -> str | None:
    from biasflow.power import PowerSettings

    settings = getattr(module, "Settings", None)
    if not (isinstance(settings, type) and issubclass(settings, PowerSettings)):
        return "has no Settings, a biasflow.power.PowerSettings"
    return None if _takes(getattr(module, "plan", None), None, None) else "has no plan(sources, settings)"


def _compare_module(module: object) -> str | None:
    if _takes(getattr(module, "command", None), None, None, None, None, 0.0, ""):
        return None
    return "has no command(paths, baseline, candidate, config, margin, margin_source)"


def _settings_class(found: object) -> str | None:
    from biasflow.settings import StepSettings

    if isinstance(found, type) and issubclass(found, StepSettings) and dataclasses.is_dataclass(found):
        return None
    return "is no biasflow.settings.StepSettings dataclass"


# What each referenced part must hold, as the core calls it, checked when it is first imported (Method.part): the
# problem, or None.
PARTS: dict[str, Callable[[Any], str | None]] = {
    "check": lambda found: None if _takes(found, None, None) else "is no function(config, workdir)",
    "commands": lambda found: None if _takes(found, None) else "is no function(subparsers)",
    "power": _power_module,
    "compare": _compare_module,
    "compare_settings": _settings_class,
}


def declaration(name: str, loaded: object) -> Method:
    """What the entry point ``name`` of the ``biasflow.methods`` group loaded, once it meets the contract: a
    :class:`Method` of that name whose every part is of its kind (:data:`CONTRACT`), each reference naming an
    installed module and its schema file shipped. The first problem is one line naming the method, the part and what
    it should be (docs/adding-a-method.md, section 2). Its rule folder, which only the workflow reads, is checked
    where the workflow includes it, before any job (:meth:`Method.rule_folder`)."""
    if not isinstance(loaded, Method):
        raise BiasflowError(
            f"method {name!r}: its entry point gives a {type(loaded).__name__}, not a biasflow.methods.Method; "
            "point it at the METHOD = Method(...) of its method.py (docs/adding-a-method.md, section 2)."
        )
    if loaded.name != name:
        raise BiasflowError(
            f"method {name!r}: its entry point gives the method {loaded.name!r}; give the entry point the name of "
            "its Method (docs/adding-a-method.md, section 2)."
        )
    for part, (problem_of, _) in CONTRACT.items():
        problem = problem_of(getattr(loaded, part))
        if problem:
            raise BiasflowError(f"method {name!r}: its {part} {getattr(loaded, part)!r} {problem}; {_asked(part)}")
    return loaded


REGISTRY: Registry[Method] = Registry("method", group="biasflow.methods", accept=declaration)


def method(name: str, where: str = "") -> Method:
    """The registered method called ``name``."""
    return REGISTRY.get(name, where)


def methods(names: list[str] | None = None) -> list[Method]:
    """The registered methods (in name order), or those of ``names`` (a config's ``methods``) in its order."""
    return [method(name) for name in (REGISTRY.names() if names is None else names)]


def rule_folder(name: str, checkout: Path) -> Path | None:
    """Where the workflow includes method ``name``'s rule files from: the folder its declaration names inside its
    package, else ``rules/<name>/`` of the workflow's ``checkout`` where that holds a common.smk; None for a method
    with no rules (it adds no job)."""
    declared = method(name).rule_folder()
    if declared is not None:
        return declared
    folder = checkout / "rules" / name
    return folder if (folder / "common.smk").is_file() else None


def own_models(config: Config, section: str) -> list[str]:
    """A method's own ``models`` list where its section gives one, else every model of the config."""
    return list(config[section]["models"] or config["models"])
