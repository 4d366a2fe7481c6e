"""Where each metric's prompts come from, as CAIRO's config section says (``cairo.datasets``, docs/methods.md §1.1).

A metric's files are read from its ``path``, else downloaded from its ``url`` into
``data/downloads/<metric>/``, else from the small set we wrote in its official format
(``bundled:datasets/<metric>``), which :func:`fill_sources` names before bundled files are
resolved. :func:`loader_settings` is what one metric's loader reads of the section for one
axis, and :func:`source_lines` says for the report's front page where each metric came from.
"""

from __future__ import annotations

from pathlib import Path

from biasflow import bundled
from biasflow.cairo.datasets import holisticbias
from biasflow.cairo.datasets.prompts import LoaderSettings
from biasflow.errors import BiasflowError


def used_metrics(config: dict) -> list[str]:
    """Every metric some axis of ``cairo.axes`` measures, sorted."""
    return sorted({m for metrics in config["cairo"]["axes"].values() for m in metrics})


def dataset_dir(config: dict, metric: str) -> str:
    """The directory a metric's files are read from: its ``path``, else the download target of its ``url``.

    :func:`fill_sources` gives every metric that names neither its bundled set.
    """
    source = config["cairo"]["datasets"][metric]
    if source["path"]:
        return source["path"]
    return f"data/downloads/{metric}"


def fill_sources(config: dict) -> None:
    """Name the bundled prompt set of each metric whose source gives neither ``path`` nor ``url`` (in place)."""
    for metric, source in config["cairo"]["datasets"].items():
        if not source["path"] and not source["url"]:
            source["path"] = f"{bundled.PREFIX}datasets/{metric}"


def loader_settings(config: dict, metric: str, axis: str) -> LoaderSettings:
    """What the prompt loader of one metric and axis depends on (and nothing else)."""
    section = config["cairo"]
    subgroup_map = None
    if section["subgroups"] == "unified":
        subgroup_map = section["subgroup_map"].get(axis, {}).get(metric)
        if subgroup_map is None:
            raise BiasflowError(
                f"config cairo.subgroup_map has no map for {metric} on axis {axis}; add "
                f"cairo.subgroup_map.{axis}.{metric} (native label: shared label), or set cairo.subgroups: native."
            )
    return LoaderSettings.from_config(config, subgroup_map=subgroup_map, options=section["datasets"][metric]["options"])


def source_lines(config: dict, data_root: str | Path) -> list[str]:
    """A sentence per metric the axes measure: its files (bundled, a folder or a URL, the HolisticBias release) and
    the prompt budget; ``data_root`` is the bundled files' folder, to tell a bundled set from one the user gave."""
    return [_source(config, metric, data_root) for metric in used_metrics(config)]


def _source(config: dict, metric: str, data_root: str | Path) -> str:
    section = config["cairo"]
    source = section["datasets"][metric]
    folder = Path(dataset_dir(config, metric))
    if not source["path"]:
        where = f"downloaded from {source['url']} into {folder}"
    elif folder.resolve() == (Path(data_root) / "datasets" / metric).resolve():
        where = f"the small bundled set written by biasflow in the official format ({bundled.PREFIX}datasets/{metric})"
    else:
        where = f"the files in {folder}"
    if metric == "HolisticBias" and (folder / "descriptors.json").is_file():
        where += f", release {holisticbias.version(folder)}"
    budget = section["prompts"]["per_subgroup"]
    kept = (
        f"at most {budget} prompts per subgroup and split (seed {section['prompts']['seed']})"
        if budget
        else "every prompt"
    )
    return f"{metric}: {where}; {kept}."
