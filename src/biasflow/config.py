"""The workflow config: validated against its schema, bundled files resolved, and the checks a schema cannot express.

The schema ships inside the package (:mod:`biasflow.schema`), so ``biasflow check-config``
works from an installed wheel as well as from a checkout. :func:`validate_config` checks a
config against it with ``jsonschema`` and fills in its defaults; :func:`resolve_bundled`
turns every ``bundled:<name>`` into a path; :func:`check_config` then stops before any job
runs with one message naming the key and the fix: unknown metrics, axes, backends or
scorers, dataset directories that do not exist, model specs that do not resolve. Each
method's settings are checked only when ``methods`` runs it. The Snakefile and the
command call all three.
"""

from __future__ import annotations

import logging
from pathlib import Path

from biasflow import bundled
from biasflow.compare_pairs import check_pairs
from biasflow.errors import BiasflowError, did_you_mean
from biasflow.methods import methods
from biasflow.model_pairs import BASELINE, PairChoice
from biasflow.models import ModelSpec, backend_class, model_spec
from biasflow.models.sources import resolve_source
from biasflow.schema import config_schema, filling_validator

log = logging.getLogger("biasflow")

# The core's maps whose names become parts of result paths (each method declares its own).
NAMED = (("models",), ("paraphrasers",))


def check_config(config: dict, workdir: str | Path = ".", environment: bool = True) -> list[str]:
    """Raise :class:`BiasflowError` for the first problem found in a schema-valid config; return warnings.

    Nothing is written (packaged weights are found, not reassembled). ``environment``
    also checks what the machine must provide: installed model packages and the API keys
    of OpenAI-compatible models (``snakemake --lint`` leaves both out). A warning names
    what may be meant but is unusual (a HolisticBias release other than the supported one).
    """
    workdir = Path(workdir)
    warnings = []
    check_names(config)
    check_comparisons(config)
    warnings += check_pairs(config)
    for method in methods(config["methods"]):  # each method checks its own settings
        warnings += method.part("check")(config, workdir) or []
    for section, name in used_model_entries(config):
        entry = config[section][name]
        cls = backend_class(entry["backend"], f"config key {section}.{name}.backend: ")
        spec = spec_for(config, section, name)
        if not environment:
            continue
        if cls.local_weights:
            resolve_source(spec.model, workdir / config["cache_dir"], assemble=False)
        cls.check_environment(spec, f"config {section}.{name}")
    return warnings


def check_names(config: dict) -> None:
    """Refuse names of one map that differ only in case: they would make two outputs one file.

    A case-insensitive file system (macOS, Windows) has one file for ``Tiny`` and ``tiny``.
    """
    for path in [*NAMED, *(path for method in methods() for path in method.named)]:
        names = config
        for part in path:
            names = names.get(part) or {}
        seen: dict[str, str] = {}
        for name in names:
            other = seen.setdefault(name.lower(), name)
            if other != name:
                raise BiasflowError(
                    f"config {'.'.join(path)}: {other!r} and {name!r} differ only in case, and name the same files on "
                    "file systems that ignore case (macOS, Windows); rename one."
                )


def check_comparisons(config: dict) -> None:
    """Refuse a ``comparisons`` section whose baseline is no model of the study, or not one every method run evaluates.

    A method compares only the models it evaluates (its own ``models`` list where it has one),
    so the baseline must be among them for each method in ``methods`` (docs/methods.md §7). A
    config without the section (not filled with the schema's defaults) compares every pair.
    """
    if "comparisons" not in config:
        return
    choice = PairChoice.from_config(config)
    if choice.pairs != BASELINE or choice.baseline is None:  # PairChoice: a baseline exactly with pairs baseline
        return
    models = list(config["models"])
    if choice.baseline not in models:
        raise BiasflowError(
            f"comparisons.baseline {choice.baseline!r} is not a model of this config "
            f"({', '.join(models)}){did_you_mean(choice.baseline, models)}; name one of models."
        )
    for method in methods(config["methods"]):
        evaluated = method.evaluated(config)
        if choice.baseline not in evaluated:
            raise BiasflowError(
                f"comparisons.baseline {choice.baseline!r} is not among the models {method.title} "
                f"evaluates ({', '.join(evaluated)}); add it to {method.name}.models, or name one of "
                "those as the baseline."
            )


def used_model_entries(config: dict) -> list[tuple[str, str]]:
    """(section, name) of every model entry a job of the configured methods loads."""
    return list(dict.fromkeys(entry for method in methods(config["methods"]) for entry in method.loads(config)))


def resolve_bundled(config: dict, root: str | Path | None = None) -> dict:
    """Turn every ``bundled:<name>`` of a validated config into a path under ``root`` (in place; returns it).

    ``root`` is the data folder files are read from (:mod:`biasflow.bundled`: the checkout's
    for the workflow, the installed package's by default). Each method first fills what its
    schema cannot default (:attr:`biasflow.methods.Method.fill`: CAIRO's metrics with neither
    ``path`` nor ``url`` read their bundled prompt sets).
    """
    for method in methods():
        method.fill(config)

    def walk(node):
        if isinstance(node, dict):
            return {key: walk(value) for key, value in node.items()}
        if isinstance(node, list):
            return [walk(value) for value in node]
        return bundled.resolve(node, root)

    config.update(walk(config))
    return config


def spec_for(config: dict, section: str, name: str) -> ModelSpec:
    """The :class:`ModelSpec` of ``config[section][name]`` (section: paraphrasers or models)."""
    try:
        entry = config[section][name]
    except KeyError:
        raise BiasflowError(f"config {section}: no entry named {name!r}.") from None
    return model_spec(name, entry)


def load_config(paths) -> tuple[dict, list[str]]:
    """Read YAML configs as ``--configfile`` merges them, validate (filling defaults), resolve bundled files, check.

    ``paths`` is one file or several, later ones overriding earlier ones key by key, as
    Snakemake merges ``--configfile a.yaml b.yaml``. Returns the config, and the notes of
    keys moved into a method's section (:func:`lift_moved_keys`) with the check's warnings.
    """
    config = read_config_files([paths] if isinstance(paths, (str, Path)) else list(paths))
    notes = validate_config(config)
    resolve_bundled(config)
    return config, notes + check_config(config)


def load_settings(paths) -> dict:
    """Config files for a command that reads tables rather than models: any part of a workflow config.

    The files are merged as :func:`load_config` merges them, and the sections they give are
    taken over the schema's defaults (:func:`settings_config`).
    """
    return settings_config(read_config_files([paths] if isinstance(paths, (str, Path)) else list(paths)))


def settings_config(config) -> dict:
    """A copy of ``config``, any part of a workflow config, validated and filled with the schema's defaults.

    ``cairo: {selection: {max_sets: 1}}`` alone is such a config. It is validated as a workflow config
    is (an unknown key is named with the closest allowed one, a wrong type with its key), but
    what the schema requires of a workflow run only, the ``models`` it evaluates, is not
    required, and the checks of what a run loads (:func:`check_config`) do not run: the
    commands that read tables load no model (config/README.md, "Settings for one command").
    Bundled files are resolved.
    """
    import copy

    config = copy.deepcopy(dict(config))
    for note in validate_config(config, workflow=False):
        log.warning("biasflow note: %s", note)
    return resolve_bundled(config)


def read_config_files(paths: list) -> dict:
    """The merge of YAML files, each read strictly: a key given twice in one mapping is an error, not the last one."""
    merged: dict = {}
    for path in map(Path, paths):
        _merge(merged, read_yaml(path))
    return merged


def read_yaml(path: Path) -> dict:
    """One config file; a file that is missing, not YAML, not a mapping or repeats a key is a :class:`BiasflowError`."""
    import yaml

    if not path.is_file():
        raise BiasflowError(f"config file not found: {path}; check the path (relative paths start where you run).")
    try:
        data = yaml.load(path.read_text(), Loader=_strict_loader()) or {}
    except _RepeatedKey as exc:
        key, first, second = exc.args
        raise BiasflowError(
            f"config {path}: the key {key!r} appears twice in one mapping (lines {first} and {second}), and YAML would "
            "keep only the last; remove one."
        ) from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        problem = getattr(exc, "problem", None) or type(exc).__name__
        raise BiasflowError(f"config {path} is not valid YAML{where}: {problem}; fix the file there.") from None
    if not isinstance(data, dict):
        raise BiasflowError(
            f"config {path} holds a {type(data).__name__}, not a mapping of keys; see config/config.yaml."
        )
    return data


class _RepeatedKey(Exception):
    """A key given twice in one YAML mapping: (key, first line, second line)."""


def _strict_loader():
    import yaml

    class StrictLoader(yaml.SafeLoader):
        """PyYAML keeps the last of two equal keys without a word; this loader stops there."""

        def construct_mapping(self, node, deep=False):
            seen = {}
            for key_node, _ in node.value:
                key = self.construct_object(key_node, deep=deep)
                if key in seen:
                    raise _RepeatedKey(key, seen[key] + 1, key_node.start_mark.line + 1)
                seen[key] = key_node.start_mark.line
            return super().construct_mapping(node, deep=deep)

    return StrictLoader


def _merge(base: dict, overlay: dict) -> None:
    """``overlay`` into ``base`` key by key, mappings recursively, as Snakemake merges config files."""
    for key, value in overlay.items():
        if isinstance(value, dict) and isinstance(base.get(key), dict):
            _merge(base[key], value)
        else:
            base[key] = value


def lift_moved_keys(config: dict) -> list[str]:
    """Move the keys a method's section now holds from their old places into that section (in place); a note naming
    them.

    A config written before a method's keys became its section (CAIRO's ``axes``, ``selection``,
    ... before ``cairo:``, and ``power.min_r`` before ``cairo.power.min_r``,
    :attr:`biasflow.methods.Method.moved_keys`) still runs: each such key is merged into the
    section key by key, at the same path there, over what the section gives, since stacked files
    (``--configfile config/config.yaml mine.yaml``) reach biasflow merged and the old-layout
    file is the user's overlay on the shipped one. The note names the new place of each.
    """
    notes = []
    for method in methods():
        moved = {key: holder for key in method.moved_keys if (holder := _holder(config, key)) is not None}
        section = config.setdefault(method.name, {}) if moved else None
        if not isinstance(section, dict):
            continue  # nothing moved, or a section of the wrong type, which the schema then names
        lifted = []
        for key, holder in moved.items():
            *parents, last = key.split(".")
            place: object = section
            for part in parents:
                place = place.setdefault(part, {}) if isinstance(place, dict) else None
            if not isinstance(place, dict):
                continue  # the section gives a non-mapping on the way, which the schema then names
            value = holder.pop(last)
            if isinstance(value, dict) and isinstance(place.get(last), dict):
                _merge(place[last], value)
            else:
                place[last] = value
            lifted.append(key)
        if lifted:
            notes.append(
                f"the config key(s) {', '.join(lifted)} are {method.title}'s settings and were read as "
                f"{', '.join(f'{method.name}.{key}' for key in lifted)}; move them under `{method.name}:` "
                "(config/README.md)."
            )
    return notes


def _holder(config: dict, key: str) -> dict | None:
    """The mapping of ``config`` that holds the dotted ``key`` (``power`` for ``power.min_r``), or None where it has
    no such key."""
    *parents, last = key.split(".")
    node: object = config
    for part in parents:
        node = node.get(part) if isinstance(node, dict) else None
    return node if isinstance(node, dict) and last in node else None


def validate_config(config: dict, *, workflow: bool = True) -> list[str]:
    """Check ``config`` against the schema and fill in its defaults (in place); return the notes of moved keys.

    Keys a method's section now holds are moved there first, each method's with a note
    (:func:`lift_moved_keys`).

    The first violation becomes one message naming the key, instead of jsonschema's
    multi-line report. Defaults are filled while validating, so the defaults of a
    default (``decoding: {}`` gets every decoding key) are filled too. ``workflow=False``
    checks a part of a config (:func:`settings_config`): the top-level keys the schema
    requires of a workflow run (``models``) may be absent.
    """
    import jsonschema

    notes = lift_moved_keys(config)
    schema = config_schema()
    if not workflow:
        schema.pop("required", None)
    errors = sorted(
        jsonschema.Draft202012Validator(schema).iter_errors(config), key=lambda e: [str(p) for p in e.absolute_path]
    )
    if errors:
        error = errors[0]
        key = ".".join(str(p) for p in error.absolute_path) or "(top level)"
        raise BiasflowError(
            f"config key {key}: {_explain(error, config)}. See config/README.md for the allowed values."
        )
    filling_validator(jsonschema)(schema).validate(config)
    return notes


def _explain(error, config: dict) -> str:
    """jsonschema's message, or for a key not allowed there: the key, the closest allowed name, all of them.

    A key can be unknown everywhere (``additionalProperties``) or only with the entry's
    ``method`` (a classifier's ``propertyNames``, which the message then names). A key
    that was renamed says so.
    """
    if error.validator == "additionalProperties" and isinstance(error.instance, dict):
        allowed = list(error.schema.get("properties", {}))
        unknown = [name for name in error.instance if name not in allowed]
        if unknown and allowed:
            # At the top level a misspelt key may be one a method's section took over (`generaton:`): named there.
            moved = {} if error.absolute_path else moved_places()
            return _unknown_key(unknown[0], allowed, moved=moved)
    if error.validator == "required" and not error.absolute_path:
        return (
            f"{error.message} of a workflow config (the commands that read tables, such as compare and "
            "cairo-select, take any part of a config with --config)"
        )
    if error.validator == "enum" and "propertyNames" in error.schema_path:
        entry = config
        for part in error.absolute_path:
            entry = entry[part]
        return _unknown_key(error.instance, error.validator_value, f" for method {entry.get('method')}")
    return error.message


# Keys renamed in a release: old name -> new name (the message for the old one names the new).
RENAMED = {"scorers": "dissimilarities"}


def moved_places() -> dict[str, str]:
    """Each key a method's section took over from the top level, with its place there (``axes``: ``cairo.axes``);
    a moved key that was not top-level (``power.min_r``) is no top-level name to suggest."""
    return {key: f"{method.name}.{key}" for method in methods() for key in method.moved_keys if "." not in key}


def _unknown_key(name: str, allowed: list[str], where: str = "", moved: dict[str, str] | None = None) -> str:
    """The message for an unknown key: the closest allowed one, or the closest moved key's new place."""
    if RENAMED.get(name) in allowed:
        return f"key {name!r} was renamed {RENAMED[name]!r}; rename it"
    moved = moved or {}
    hint = did_you_mean(name, [*allowed, *moved], said=moved)
    return f"unknown key {name!r}{where}{hint}; the keys allowed here are {', '.join(allowed)}"
