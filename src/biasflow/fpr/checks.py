"""What the FPR gaps need of a config, checked before any job runs (the ``check`` of its declaration, method.py).

Its models are entries of the config, and every file a classification job reads exists:
the probe sets' templates and terms, the labelled set and the prompting templates'
folder (docs/methods.md §3).
"""

from __future__ import annotations

from pathlib import Path

from biasflow.errors import BiasflowError


def check(config: dict, workdir: Path) -> list[str]:
    """Raise :class:`BiasflowError` for the first problem of the FPR settings; they have no warnings."""
    settings = config["fpr"]
    for name in settings["models"] or []:
        if name not in config["models"]:
            raise BiasflowError(
                f"config fpr.models: {name!r} is not an entry of models:; use one of {', '.join(config['models'])}."
            )
    files = [("fpr.labelled", settings["labelled"])] if settings["probes"] else []
    for probe, spec in settings["probes"].items():
        files += [(f"fpr.probes.{probe}.templates", spec["templates"]), (f"fpr.probes.{probe}.terms", spec["terms"])]
    for key, path in files:
        if not (workdir / path).is_file():
            raise BiasflowError(f"config {key}: file {path} does not exist; fix the path.")
    if settings["probes"] and not (workdir / settings["templates"]).is_dir():
        raise BiasflowError(f"config fpr.templates: folder {settings['templates']} does not exist; fix the path.")
    return []
