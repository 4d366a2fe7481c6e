"""What the core knows of a method, declared once by the method's own package.

Each method package (CAIRO, FairPair, group FPR gaps) holds a ``method.py`` whose
:class:`Method` names everything the shared core asks of it: its paper, the models its jobs
load, its final tables, the front page's line about its settings, and where its config
section's schema, config check, commands, power planner and paired comparison live. The
packages register it under the ``biasflow.methods`` entry point group (``pyproject.toml``);
the config schema (:mod:`biasflow.schema`), the config check, the CLI, the power planner, the
report's front page, the public API (:mod:`biasflow.api`) and the rules loop over
:func:`methods`, so the core names no method, and a fourth one is a package, its declaration,
its config section's schema and its rules (``docs/adding-a-method.md``), installed from
anywhere: a package installed from outside brings its rule files inside it (:func:`rule_folder`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from importlib import import_module, resources
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Any

from biasflow.errors import BiasflowError
from biasflow.registry import Registry

# A validated config, as the workflow and the commands hold it (yaml's nested mappings).
Config = dict[str, Any]


@dataclass(frozen=True)
class Method:
    """A method as the core sees it. The ``check``, ``commands``, ``power`` and ``compare`` parts are
    ``"module:name"`` (or ``"module"``) references, imported only when used, so that listing the
    methods stays cheap."""

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
    # (config key, what it is to the comparison) of every setting its comparison reads: `biasflow compare` flags
    # named by the key's last part (`cairo.selection.seed`: `--seed`)
    compare_settings: tuple[tuple[str, str], ...] = ()
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
    # keys of its section that configs once gave at the top level: still read there, moved into the section with a
    # one-line note (biasflow.config.lift_moved_keys)
    moved_keys: tuple[str, ...] = ()
    named: tuple[tuple[str, ...], ...] = ()  # config keys of its maps whose names become parts of result paths
    api: tuple[str, ...] = ()  # "module:function" of its public functions, re-exported as biasflow.<function>
    # "package:file" of the JSON schema of its config section (the key `name`), a YAML file inside that package,
    # which biasflow.schema adds to the core schema; None for a method whose config has no section of its own
    schema: str | None = None
    # "package:folder" of its rule files, a folder inside that package holding common.smk (its names and lookups) and
    # its stage files, with their scripts and report captions beside them; the workflow includes them from there.
    # None: rules/<name>/ of the workflow's checkout, where biasflow's own methods keep theirs (or no rules at all)
    rules: str | None = None

    def part(self, name: str) -> Any:
        """One of the referenced parts (``"check"``, ``"commands"``, ``"power"``, ``"compare"``), imported."""
        return self.load(getattr(self, name))

    def section_schema(self) -> dict[str, Any] | None:
        """The JSON schema of its config section, read from the file :attr:`schema` names (None: it has none)."""
        if self.schema is None:
            return None
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


REGISTRY: Registry[Method] = Registry("method", group="biasflow.methods")


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
