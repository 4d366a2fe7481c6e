"""Checks of the workflow config that a JSON schema cannot express.

The Snakefile validates the config against ``workflow/schemas/config.schema.yaml`` (types and
defaults), then calls :func:`check_config`, which stops before any job runs with one message
naming the key and the fix: unknown metrics, axes, backends or scorers, dataset directories
that do not exist, model specs that do not resolve.
"""

from __future__ import annotations

from pathlib import Path

from biasflow.datasets import AXES, METRICS
from biasflow.errors import BiasflowError
from biasflow.models import ModelSpec, model_spec
from biasflow.models.sources import resolve_source
from biasflow.scorers import SCORERS


def check_config(config: dict, workdir: str | Path = ".") -> None:
    """Raise :class:`BiasflowError` for the first problem found in a schema-valid config."""
    workdir = Path(workdir)
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
        source = config["datasets"].get(metric, {})
        if not source.get("url") and not (workdir / dataset_dir(config, metric)).is_dir():
            raise BiasflowError(
                f"config datasets.{metric}.path: directory {dataset_dir(config, metric)} does not exist; "
                "point it at the official files, or set datasets.{metric}.url to download them."
            )
    if config["scoring"]["scorer"] not in SCORERS:
        raise BiasflowError(
            f"config scoring.scorer: unknown scorer {config['scoring']['scorer']!r}; use {', '.join(SCORERS)}."
        )
    if config["subgroups"] == "unified":
        for axis in config["axes"]:
            if axis not in config.get("subgroup_map", {}):
                raise BiasflowError(
                    f"config subgroups is 'unified' but subgroup_map has no entry for axis {axis}; "
                    "add one, or set subgroups: native."
                )
    if len(config["models"]) < 1:
        raise BiasflowError("config models: no evaluated model; add at least one.")
    _check_fairpair(config, workdir)
    _check_fpr(config, workdir)
    for section in ("paraphrasers", "models"):
        for name in config[section]:
            spec = spec_for(config, section, name)
            if spec.backend in ("transformers", "vllm"):
                resolve_source(spec.model, workdir / config["cache_dir"])


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
    for key in ("file", "occupations_file"):
        if settings[key] and not (workdir / settings[key]).is_file():
            raise BiasflowError(f"config fairpair.{key}: file {settings[key]} does not exist.")


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
            raise BiasflowError(f"config {key}: file {path} does not exist.")


def used_metrics(config: dict) -> list[str]:
    return sorted({m for metrics in config["axes"].values() for m in metrics})


def dataset_dir(config: dict, metric: str) -> str:
    """The directory a metric's files are read from (a download target when a URL is set)."""
    source = config["datasets"].get(metric, {})
    if source.get("url"):
        return f"data/downloads/{metric}"
    return source["path"]


def spec_for(config: dict, section: str, name: str) -> ModelSpec:
    """The :class:`ModelSpec` of ``config[section][name]`` (section: paraphrasers or models)."""
    try:
        entry = config[section][name]
    except KeyError:
        raise BiasflowError(f"config {section}: no entry named {name!r}.") from None
    return model_spec(name, entry)


def load_config(path: str | Path, schema: str | Path) -> dict:
    """Read a YAML config, validate it (filling defaults) and check it, as the workflow does."""
    import yaml

    path = Path(path)
    if not path.is_file():
        raise BiasflowError(f"config file not found: {path}.")
    try:
        config = yaml.safe_load(path.read_text()) or {}
    except yaml.YAMLError as exc:
        raise BiasflowError(f"config {path} is not valid YAML: {exc}") from exc
    validate_config(config, schema)
    check_config(config)
    return config


def validate_config(config: dict, schema: str | Path) -> None:
    """Check ``config`` against the JSON schema and fill in its defaults (in place).

    The first violation becomes one message naming the key, instead of jsonschema's
    multi-line report.
    """
    import jsonschema
    import yaml
    from snakemake.utils import validate

    rules = yaml.safe_load(Path(schema).read_text())
    errors = sorted(
        jsonschema.Draft202012Validator(rules).iter_errors(config), key=lambda e: [str(p) for p in e.absolute_path]
    )
    if errors:
        error = errors[0]
        key = ".".join(str(p) for p in error.absolute_path) or "(top level)"
        raise BiasflowError(f"config key {key}: {error.message}. See config/README.md for the allowed values.")
    validate(config, str(schema))
