"""What FairPair needs of a config, checked before any job runs (the ``check`` of its declaration, method.py), and of
the per-prompt score tables its comparison and power planner read.

Its models and perturbing model are entries of the config; every file it reads exists; the
occupations hold no repeat (each would be a prompt built twice, docs/methods.md §2.7); and no
model's results would be written to a file another model or the summary writes. A score
table names its model by its file name, or by a ``model`` column where it is a DataFrame,
and has rows.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import pandas as pd

from biasflow.errors import BiasflowError
from biasflow.fairpair import outputs
from biasflow.fairpair.comparisons import TESTED_COLUMNS, TESTED_NUMBERS
from biasflow.fairpair.prompts import load_occupations
from biasflow.tables import read_source, require_rows, source_name


def scores_by_model(sources: Iterable[tuple[str | None, str | pd.DataFrame]]) -> dict[str, pd.DataFrame]:
    """Each model's per-prompt scores, from ``(name, table)`` pairs: a table is a path or a DataFrame.

    A file's rows are the model ``name`` (its file name, as the workflow writes
    ``results/fairpair/<model>.csv``); a DataFrame with a ``model`` column is split by it, one
    without takes ``name``. A table with a header and no rows is refused here, before any
    check of its columns' values would misread the emptiness.
    """
    tables: dict[str, list[pd.DataFrame]] = {}
    for name, source in sources:
        table = read_source(source, TESTED_COLUMNS, "FairPair scores", numbers=TESTED_NUMBERS)
        require_rows(table, f"FairPair scores {source_name(source)}")
        if isinstance(source, pd.DataFrame) and "model" in table:
            parts = {str(model): part for model, part in table.groupby("model", sort=False)}
        elif name is None:
            raise BiasflowError(
                "FairPair scores given as a DataFrame need a model column naming each row's model "
                "(a file's name gives it); add one."
            )
        else:
            parts = {name: table}
        for model, part in parts.items():
            tables.setdefault(model, []).append(part)
    return {model: pd.concat(parts, ignore_index=True) for model, parts in tables.items()}


def check_null(scores: pd.DataFrame, model: str, what: str) -> None:
    """A model's scores must hold the permutation null that the excess R is measured against (§2.6)."""
    if scores["R_null_mean"].isna().all():
        raise BiasflowError(
            f"FairPair scores of {model} have no permutation null (R_null_mean is empty), which {what} "
            "measures the excess R against; score them with fairpair.null_draws above 0 (and no "
            "folds)."
        )


def check(config: dict, workdir: Path) -> list[str]:
    """Raise :class:`BiasflowError` for the first problem of FairPair's settings; FairPair has no warnings."""
    settings = config["fairpair"]
    for name in settings["models"] or []:
        if name not in config["models"]:
            raise BiasflowError(
                f"config fairpair.models: {name!r} is not an entry of models:; use one of "
                f"{', '.join(config['models'])}."
            )
    perturbation = settings["perturbation"]
    if perturbation["method"] == "llm":
        name = perturbation["model"]
        if name not in config["paraphrasers"] and name not in config["models"]:
            raise BiasflowError(
                "config fairpair.perturbation.model: with method llm, name a model of paraphrasers: or models: "
                f"(got {name!r})."
            )
    files = [
        ("file", settings["file"]),
        ("occupations_file", settings["occupations_file"]),
        ("perturbation.swaps", perturbation["swaps"]),
    ]
    if perturbation["method"] == "llm":
        files.append(("perturbation.template", perturbation["template"]))
    for key, path in files:
        if path and not (workdir / path).is_file():
            raise BiasflowError(f"config fairpair.{key}: file {path} does not exist; fix the path.")
    if settings["occupations"] is not None:
        _check_unique(settings["occupations"], "config fairpair.occupations")
    elif not settings["file"]:
        _check_unique(
            load_occupations(workdir / settings["occupations_file"]),
            f"config fairpair.occupations_file: {settings['occupations_file']}",
        )
    _check_file_names(settings["models"] or list(config["models"]))
    return []


def _check_unique(occupations: list[str], where: str) -> None:
    seen = set()
    for occupation in occupations:
        if occupation.lower() in seen:
            raise BiasflowError(f"{where} lists {occupation!r} twice, which would build its prompts twice; keep one.")
        seen.add(occupation.lower())


def _check_file_names(models: list[str]) -> None:
    """results/fairpair/ holds each model's files beside the summary's, of fixed names (fairpair/outputs.py): a
    model named like a fixed file, or like another model's file, would make two jobs write one file."""
    owner: dict[str, str | None] = {name.lower(): None for name in (outputs.PROMPTS, *outputs.SUMMARY.values())}
    for model in models:
        for pattern in outputs.PER_MODEL.values():
            name = pattern.format(model=model).lower()
            if name in owner and owner[name] != model:
                writer = f"model {owner[name]!r}" if owner[name] else "the FairPair summary"
                raise BiasflowError(
                    f"config models: the FairPair results of model {model!r} would be written to "
                    f"{outputs.FOLDER}{pattern.format(model=model)}, a file {writer} writes too; rename the model."
                )
            owner[name] = model
