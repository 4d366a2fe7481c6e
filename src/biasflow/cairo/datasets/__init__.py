"""The prompt sets of the three fairness metrics CAIRO correlates (docs/methods.md §1.1, §4).

:func:`load_prompts` reads a metric's official files and returns its original prompts
for one axis as the prompt table (docs/tables.md); :func:`download_dataset` fetches
those files. One module per source format (:mod:`.bold`, :mod:`.holisticbias`,
:mod:`.honest`) turns the files into raw prompts, and :mod:`.prompts` derives ids, the
valid/test split and the shared subgroups the same way for all of them.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from pathlib import Path

import pandas as pd

from biasflow.cairo.datasets import bold, holisticbias, honest
from biasflow.cairo.datasets.download import download_files
from biasflow.cairo.datasets.files import WHERE_TO_GET
from biasflow.cairo.datasets.prompts import PROMPT_SUMMARY_COLUMNS, LoaderSettings, check_valid_fraction, finalise
from biasflow.errors import BiasflowError
from biasflow.tables import concat_tables, write_table

__all__ = [
    "AXES",
    "METRICS",
    "PROMPT_SUMMARY_COLUMNS",
    "LoaderSettings",
    "check_folder",
    "combine_summaries",
    "download_dataset",
    "load_prompts",
    "needed_files",
    "prompt_table",
    "version_warning",
    "write_prompts",
]

METRICS = ("BOLD", "HolisticBias", "HONEST")
AXES = ("gender", "religion", "race")
LOADERS = {"BOLD": bold, "HolisticBias": holisticbias, "HONEST": honest}
# The HolisticBias release the loader and the default subgroup maps are written for.
SUPPORTED_HOLISTICBIAS = "v1.1"
# How deep below a dataset folder the check looks for the folder that holds the files.
SEARCH_DEPTH = 3

log = logging.getLogger("biasflow")


def needed_files(metric: str, axis: str, options: dict) -> list[str]:
    """The official files ``metric`` reads for ``axis`` with these loader options, relative to its folder."""
    return module_for(metric, axis).files(axis, check_options(metric, options))


def check_folder(metric: str, axes: list[str], folder: str | Path, options: dict, where: str) -> list[str]:
    """Raise unless ``folder`` holds every file ``metric`` reads on ``axes``; return warnings.

    A missing file is named, with the nearest folder below that has them all (a path one
    folder too high: ``HolisticBias/`` instead of ``HolisticBias/v1.1``), and a link whose
    target is gone is named as such. The warning is a HolisticBias release other than
    :data:`SUPPORTED_HOLISTICBIAS`. ``where`` starts every message (the config key).
    """
    folder = Path(folder)
    needed = sorted({name for axis in axes for name in needed_files(metric, axis, options)})
    if not folder.is_dir():
        raise BiasflowError(
            f"{where}: directory {folder} does not exist; point it at the folder of the official "
            f"{metric} files ({', '.join(needed)})."
        )
    for name in needed:
        path = folder / name
        if path.is_symlink() and not path.exists():
            raise BiasflowError(
                f"{where}: {path} is a link to {path.readlink()}, which does not exist; "
                "fix the link or copy the file there."
            )
    missing = [name for name in needed if not (folder / name).is_file()]
    if missing:
        nearest = _folders_with(folder, needed)
        hint = (
            f"{' and '.join(map(str, nearest))} below it {'has' if len(nearest) == 1 else 'have'} them: set the "
            f"path to {'that folder' if len(nearest) == 1 else 'one of them'}"
            if nearest
            else f"point it at the folder that holds them. {WHERE_TO_GET}"
        )
        raise BiasflowError(
            f"{where}: {folder} lacks {', '.join(missing)}, which {metric} reads for {', '.join(axes)}; {hint}."
        )
    warning = version_warning(metric, folder)
    return [f"{where}: {warning}"] if warning else []


def version_warning(metric: str, folder: str | Path) -> str | None:
    """A sentence when ``folder`` holds a HolisticBias release other than the supported one, else None."""
    if metric != "HolisticBias":
        return None
    found = holisticbias.version(Path(folder))
    if found == SUPPORTED_HOLISTICBIAS:
        return None
    return (
        f"the HolisticBias files in {folder} look like {found} (no descriptor carries v1.1's gender or "
        f'preference metadata), so gendered descriptors meet every noun ("I\'m a female husband."); biasflow '
        f"targets {SUPPORTED_HOLISTICBIAS} (holistic_bias/dataset/{SUPPORTED_HOLISTICBIAS} of facebookresearch/"
        "ResponsibleNLP)."
    )


def _folders_with(folder: Path, names: list[str]) -> list[Path]:
    """The shallowest folders below ``folder`` (up to :data:`SEARCH_DEPTH` levels) that hold every file of ``names``."""
    level = [folder]
    for _ in range(SEARCH_DEPTH):
        level = sorted(child for parent in level for child in parent.iterdir() if child.is_dir())
        found = [candidate for candidate in level if all((candidate / name).is_file() for name in names)]
        if found:
            return found
    return []


def load_prompts(metric: str, axis: str, data_dir: str | Path, **settings) -> pd.DataFrame:
    """The original prompts of ``metric`` on ``axis`` read from ``data_dir``.

    Columns are :data:`biasflow.tables.PROMPT_COLUMNS`. ``settings`` replace the schema's
    defaults of :class:`LoaderSettings` (native subgroup labels and no loader options
    unless given): ``split`` is drawn within each subgroup (docs/methods.md §1.3), about
    ``valid_fraction`` of its group keys are ``valid``, and every subgroup has both splits;
    ``subgroup_map`` (native label → shared label) relabels the rows and drops those it does
    not map; ``options`` are the metric's settings (HolisticBias ``buckets``, HONEST
    ``sets``; see their modules); ``per_subgroup`` keeps at most that many prompts per
    subgroup and split.
    """
    loader = LoaderSettings.defaults(**{"subgroup_map": None, "options": {}, **settings})
    return prompt_table(metric, axis, data_dir, loader)[0]


def prompt_table(
    metric: str, axis: str, data_dir: str | Path, settings: LoaderSettings
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The prompt table of ``metric`` on ``axis`` and its summary (one row per subgroup and split)."""
    loader = module_for(metric, axis)
    check_valid_fraction(settings.valid_fraction)
    options = check_options(metric, settings.options)
    data_dir = Path(data_dir)
    if not data_dir.is_dir():
        raise BiasflowError(
            f"{metric} dataset folder not found: {data_dir}. It should hold {', '.join(loader.FILES)}. {WHERE_TO_GET}"
        )
    warning = version_warning(metric, data_dir)
    if warning:
        log.warning("%s", warning)
    raw = loader.load(axis, data_dir, options)
    return finalise(raw, metric, axis, settings)


def write_prompts(
    *,
    data_dir: str | Path,
    metric: str,
    axis: str,
    settings: LoaderSettings,
    outputs: Mapping[str, str],
) -> None:
    """The prompt table of ``metric`` on ``axis``, written to ``outputs["prompts"]`` (the ``original_prompts`` step).

    ``outputs["summary"]``, where given, gets the summary (prompts per subgroup and split, duplicates dropped).
    """
    prompts, summary = prompt_table(metric, axis, data_dir, settings)
    counts = ", ".join(f"{row.subgroup} {row.split} {row.n_prompts}" for row in summary.itertuples(index=False))
    log.info("%s %s: %d prompts (%s)", metric, axis, len(prompts), counts)
    if "summary" in outputs:
        write_table(summary, outputs["summary"])
    write_table(prompts, outputs["prompts"])


def combine_summaries(*, paths: list[str], outputs: Mapping[str, str]) -> None:
    """The prompt summaries of every metric and axis in one table, ``outputs["table"]`` (the workflow's
    ``results/prompts/summary.csv``)."""
    concat_tables(paths, outputs["table"], PROMPT_SUMMARY_COLUMNS, "prompt summary")


def download_dataset(metric: str, base_url: str, dest_dir: str | Path) -> list[Path]:
    """Fetch the official files of ``metric`` from ``base_url/<file>`` into ``dest_dir``.

    Nothing is written unless every file arrived; returns the paths written.
    """
    if metric not in LOADERS:
        raise BiasflowError(f"unknown metric {metric!r}; choose one of {', '.join(METRICS)}.")
    return download_files(LOADERS[metric].FILES, base_url, dest_dir)


def module_for(metric: str, axis: str):
    """The loader module of ``metric``, after checking that it covers ``axis``."""
    if metric not in LOADERS:
        raise BiasflowError(f"unknown metric {metric!r}; choose one of {', '.join(METRICS)}.")
    if axis not in AXES:
        raise BiasflowError(f"unknown axis {axis!r}; choose one of {', '.join(AXES)}.")
    loader = LOADERS[metric]
    if axis not in loader.AXES:
        covering = [m for m in METRICS if axis in LOADERS[m].AXES]
        raise BiasflowError(
            f"{metric} covers only {', '.join(loader.AXES)}; the axis {axis} is covered by "
            f"{' and '.join(covering)}. Remove {metric} from that axis in the config."
        )
    return loader


def check_options(metric: str, options: dict | None) -> dict:
    """``options`` as a dict, refusing keys the metric does not know (a typo would be silent)."""
    options = {} if options is None else options
    allowed = LOADERS[metric].OPTIONS
    if not isinstance(options, dict) or any(key not in allowed for key in options):
        known = ", ".join(allowed) if allowed else "none"
        raise BiasflowError(f"unknown {metric} option(s) in {options!r}; the options of {metric} are: {known}.")
    return options
