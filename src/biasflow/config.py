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

import difflib
from pathlib import Path

from biasflow import bundled
from biasflow.datasets import AXES, METRICS, LoaderSettings
from biasflow.errors import BiasflowError
from biasflow.models import ModelSpec, backend_class, model_spec
from biasflow.models.sources import resolve_source
from biasflow.schema import config_schema, filling_validator
from biasflow.scorers import SCORERS

# CAIRO's r is taken across evaluated models; with fewer than 3 it is ±1 or undefined.
MIN_MODELS = 3


def check_config(config: dict, workdir: str | Path = ".", environment: bool = True) -> None:
    """Raise :class:`BiasflowError` for the first problem found in a schema-valid config.

    Nothing is written (packaged weights are found, not reassembled). ``environment``
    also checks what the machine must provide: installed model packages and the API keys
    of OpenAI-compatible models (``snakemake --lint`` leaves both out).
    """
    workdir = Path(workdir)
    methods = config["methods"]
    if "cairo" in methods:
        _check_cairo(config, workdir)
    if "fairpair" in methods:
        _check_fairpair(config, workdir)
    if "fpr" in methods:
        _check_fpr(config, workdir)
    for section, name in used_model_entries(config):
        entry = config[section][name]
        cls = backend_class(entry["backend"], f"config key {section}.{name}.backend: ")
        spec = spec_for(config, section, name)
        if not environment:
            continue
        if cls.local_weights:
            resolve_source(spec.model, workdir / config["cache_dir"], assemble=False)
        cls.check_environment(spec, f"config {section}.{name}")


def used_model_entries(config: dict) -> list[tuple[str, str]]:
    """(section, name) of every model entry a job of the configured methods loads."""
    methods = config["methods"]
    used = []
    if "cairo" in methods:
        used += [("paraphrasers", name) for name in config["paraphrasers"]]
        used += [("models", name) for name in config["models"]]
    if "fairpair" in methods:
        used += [("models", name) for name in config["fairpair"]["models"] or config["models"]]
        perturbation = config["fairpair"]["perturbation"]
        if perturbation["method"] == "llm":
            used.append(("paraphrasers" if perturbation["model"] in config["paraphrasers"] else "models",
                         perturbation["model"]))
    if "fpr" in methods:
        used += [("models", name) for name in config["fpr"]["models"] or config["models"]]
    return list(dict.fromkeys(used))


def _check_cairo(config: dict, workdir: Path) -> None:
    for axis, metrics in config["axes"].items():
        if axis not in AXES:
            raise BiasflowError(f"config axes: unknown axis {axis!r}; use {', '.join(AXES)}.")
        for metric in metrics:
            if metric not in METRICS:
                raise BiasflowError(f"config axes.{axis}: unknown metric {metric!r}; use {', '.join(METRICS)}.")
            if metric == "HONEST" and axis != "gender":
                raise BiasflowError(
                    f"config axes.{axis}: HONEST covers gender only; use BOLD and HolisticBias for {axis}."
                )
    for metric in used_metrics(config):
        if not config["datasets"][metric]["url"] and not (workdir / dataset_dir(config, metric)).is_dir():
            raise BiasflowError(
                f"config datasets.{metric}.path: directory {dataset_dir(config, metric)} does not exist; "
                f"point it at the official files, or set datasets.{metric}.url to download them."
            )
    _check_scoring(config["scoring"], workdir)
    _check_subgroups(config)
    if len(config["models"]) < MIN_MODELS:
        names = ", ".join(config["models"]) or "none"
        raise BiasflowError(
            f"config models: CAIRO takes Pearson's r across the evaluated models, so it needs at least {MIN_MODELS}; "
            f"this config has {len(config['models'])} ({names}). Add models (two decoding settings of one model "
            "count as two systems), or leave cairo out of `methods` for a FairPair or FPR study."
        )
    paraphrase_templates = Path(config["paraphrase"]["templates"])
    if config["paraphrasers"] and not (workdir / paraphrase_templates).is_dir():
        raise BiasflowError(
            f"config paraphrase.templates: folder {paraphrase_templates} does not exist; fix the path, or leave the "
            "key out for the bundled templates."
        )


def _check_scoring(scoring: dict, workdir: Path) -> None:
    if scoring["scorer"] not in SCORERS:
        close = difflib.get_close_matches(scoring["scorer"], SCORERS, n=1)
        hint = f" (did you mean {close[0]}?)" if close else ""
        raise BiasflowError(f"config scoring.scorer: unknown scorer {scoring['scorer']!r}{hint}; use {', '.join(SCORERS)}.")
    for key in ("checkpoint", "huggingface_config"):
        if scoring[key] and not (workdir / scoring[key]).exists():
            raise BiasflowError(f"config scoring.{key}: {scoring[key]} does not exist; fix the path or set it to null.")
    if scoring["scorer"] == "honest":
        lexicon = scoring["lexicon"]
        if not lexicon:
            raise BiasflowError(
                "config scoring.lexicon: the honest scorer reads the HurtLex lexicon from a file you give (its licence "
                "forbids shipping it): set scoring.lexicon to the path of hurtlex_EN.tsv."
            )
        if not (workdir / lexicon).is_file():
            raise BiasflowError(f"config scoring.lexicon: file {lexicon} does not exist; give the path of hurtlex_EN.tsv.")


def _check_subgroups(config: dict) -> None:
    """In unified mode every metric of an axis needs a map, and all of them the same shared subgroups.

    CAIRO correlates the metrics' Eq. 1 bias, a sum over subgroups: metrics that cover
    different groups would not measure the same thing (docs/methods.md §1.1).
    """
    if config["subgroups"] != "unified":
        return
    for axis, metrics in config["axes"].items():
        maps = config["subgroup_map"].get(axis)
        if maps is None:
            raise BiasflowError(
                f"config subgroups is 'unified' but subgroup_map has no entry for axis {axis}; "
                "add one, or set subgroups: native."
            )
        shared = {}
        for metric in metrics:
            if not maps.get(metric):
                raise BiasflowError(
                    f"config subgroup_map.{axis}: no map for {metric}, so none of its prompts would be kept; "
                    f"add subgroup_map.{axis}.{metric} (native label: shared label), or set subgroups: native."
                )
            shared[metric] = set(maps[metric].values())
        first, *others = metrics
        for metric in others:
            if shared[metric] != shared[first]:
                only_first = ", ".join(sorted(shared[first] - shared[metric])) or "none"
                only_other = ", ".join(sorted(shared[metric] - shared[first])) or "none"
                raise BiasflowError(
                    f"config subgroup_map.{axis}: {first} and {metric} map to different shared subgroups "
                    f"(only {first}: {only_first}; only {metric}: {only_other}); the metrics being correlated "
                    "must cover the same subgroups. Map the same shared labels for every metric of the axis."
                )


def _check_fairpair(config: dict, workdir: Path) -> None:
    settings = config["fairpair"]
    for name in settings["models"] or []:
        if name not in config["models"]:
            raise BiasflowError(f"config fairpair.models: {name!r} is not an entry of models:; use one of {', '.join(config['models'])}.")
    perturbation = settings["perturbation"]
    if perturbation["method"] == "llm":
        name = perturbation["model"]
        if name not in config["paraphrasers"] and name not in config["models"]:
            raise BiasflowError(
                "config fairpair.perturbation.model: with method llm, name a model of paraphrasers: or models: "
                f"(got {name!r})."
            )
    files = [("file", settings["file"]), ("occupations_file", settings["occupations_file"]),
             ("perturbation.swaps", perturbation["swaps"])]
    if perturbation["method"] == "llm":
        files.append(("perturbation.template", perturbation["template"]))
    for key, path in files:
        if path and not (workdir / path).is_file():
            raise BiasflowError(f"config fairpair.{key}: file {path} does not exist; fix the path.")


def _check_fpr(config: dict, workdir: Path) -> None:
    settings = config["fpr"]
    for name in settings["models"] or []:
        if name not in config["models"]:
            raise BiasflowError(f"config fpr.models: {name!r} is not an entry of models:; use one of {', '.join(config['models'])}.")
    files = [("fpr.labelled", settings["labelled"])] if settings["probes"] else []
    for probe, spec in settings["probes"].items():
        files += [(f"fpr.probes.{probe}.templates", spec["templates"]), (f"fpr.probes.{probe}.terms", spec["terms"])]
    for key, path in files:
        if not (workdir / path).is_file():
            raise BiasflowError(f"config {key}: file {path} does not exist; fix the path.")
    if settings["probes"] and not (workdir / settings["templates"]).is_dir():
        raise BiasflowError(f"config fpr.templates: folder {settings['templates']} does not exist; fix the path.")


def loader_settings(config: dict, metric: str, axis: str) -> LoaderSettings:
    """What the prompt loader of one metric and axis depends on (and nothing else)."""
    subgroup_map = None
    if config["subgroups"] == "unified":
        subgroup_map = config["subgroup_map"].get(axis, {}).get(metric)
        if subgroup_map is None:
            raise BiasflowError(
                f"config subgroup_map has no map for {metric} on axis {axis}; add subgroup_map.{axis}.{metric} "
                "(native label: shared label), or set subgroups: native."
            )
    return LoaderSettings.from_config(config, subgroup_map=subgroup_map, options=config["datasets"][metric]["options"])


def used_metrics(config: dict) -> list[str]:
    return sorted({m for metrics in config["axes"].values() for m in metrics})


def dataset_dir(config: dict, metric: str) -> str:
    """The directory a metric's files are read from: its ``path``, else the download target of its ``url``.

    :func:`resolve_bundled` gives every metric that names neither its bundled set.
    """
    source = config["datasets"][metric]
    if source["path"]:
        return source["path"]
    return f"data/downloads/{metric}"


def resolve_bundled(config: dict, root: str | Path | None = None) -> dict:
    """Turn every ``bundled:<name>`` of a validated config into a path under ``root`` (in place; returns it).

    ``root`` is the data folder files are read from (:mod:`biasflow.bundled`: the checkout's
    for the workflow, the installed package's by default). A metric with neither ``path`` nor
    ``url`` reads its bundled prompt set.
    """
    for metric, source in config["datasets"].items():
        if not source["path"] and not source["url"]:
            source["path"] = f"{bundled.PREFIX}datasets/{metric}"

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


def load_config(path: str | Path) -> dict:
    """Read a YAML config, validate it (filling defaults), resolve its bundled files and check it, as the workflow does."""
    import yaml

    path = Path(path)
    if not path.is_file():
        raise BiasflowError(f"config file not found: {path}; check the path (relative paths start where you run).")
    try:
        config = yaml.safe_load(path.read_text()) or {}
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        problem = getattr(exc, "problem", None) or type(exc).__name__
        raise BiasflowError(f"config {path} is not valid YAML{where}: {problem}; fix the file there.") from None
    validate_config(config)
    resolve_bundled(config)
    check_config(config)
    return config


def validate_config(config: dict) -> None:
    """Check ``config`` against the schema and fill in its defaults (in place).

    The first violation becomes one message naming the key, instead of jsonschema's
    multi-line report. Defaults are filled while validating, so the defaults of a
    default (``decoding: {}`` gets every decoding key) are filled too.
    """
    import jsonschema

    schema = config_schema()
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
            return _unknown_key(unknown[0], allowed)
    if error.validator == "enum" and "propertyNames" in error.schema_path:
        entry = config
        for part in error.absolute_path:
            entry = entry[part]
        return _unknown_key(error.instance, error.validator_value, f" for method {entry.get('method')}")
    return error.message


# Keys renamed in a release: old name -> new name (the message for the old one names the new).
RENAMED = {"scorers": "dissimilarities"}


def _unknown_key(name: str, allowed: list[str], where: str = "") -> str:
    if RENAMED.get(name) in allowed:
        return f"key {name!r} was renamed {RENAMED[name]!r}; rename it"
    close = difflib.get_close_matches(name, allowed, n=1)
    hint = f" (did you mean {close[0]}?)" if close else ""
    return f"unknown key {name!r}{where}{hint}; the keys allowed here are {', '.join(allowed)}"
