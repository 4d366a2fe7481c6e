"""The report's front page: what data it shows and which methods and models made it.

``snakemake --report`` renders ``workflow/report/workflow.rst`` with the config; this module
prepares, from the validated config and the methods whose results exist, the lines that
page lists: first the verdict of each pair the config's ``compare`` section names (did the
candidate get worse than the baseline?, docs/methods.md §7), then each metric's data
(bundled, a folder or a URL, the HolisticBias release, the prompt budget), the methods run
and the models each ran, and the report's own pages of each method's tables. A method whose
results are not there is named as not run, so a CAIRO-only run shows no FairPair or FPR
settings; within a method run, only what was computed is listed (``make demo`` runs CAIRO's
gender axis, not its religion axis).
"""

from __future__ import annotations

from pathlib import Path

from biasflow import bundled
from biasflow.config import dataset_dir, used_metrics
from biasflow.datasets import holisticbias
from biasflow.methods import methods
from biasflow.verdict_tables import front_lines


def front_page(config: dict, reported: list[str], data_root: str | Path) -> dict:
    """``{"verdicts": [...], "data": [...], "methods": [...], "not_run": [...]}``: the front page's contents.

    ``verdicts`` holds a line per pair of the config's ``compare`` section whose verdict tables
    exist (:func:`biasflow.verdict_tables.front_lines`), which the page states first.

    ``methods`` holds per method run its ``name``, ``citation``, ``models`` and ``settings``
    (text) of the config as far as its results exist (the declaration's ``computed``), its
    pages of tables in the report (``pages``), and the tables that compare its models pair by
    pair (``comparisons``) and say where its numbers would move (``variance``), each listed
    only where the file exists (:class:`biasflow.methods.Method`); ``data`` a sentence per
    metric those methods read, where a method run reads the metrics' datasets; ``reported``
    names the methods whose final tables exist; ``data_root`` is the bundled files' folder
    (to tell a bundled prompt set from one the user gave). Paths are relative to the working
    directory, where Snakemake renders the report.
    """
    page, reading = [], []
    for method in methods(reported):
        own = method.computed(config)
        page.append(
            {
                "name": method.title,
                "citation": method.citation,
                "models": method.evaluated(own),
                "settings": method.summary(own),
                "pages": _existing(method.pages(own)),
                "comparisons": _existing(method.comparisons(own)),
                "variance": _existing(method.variance(own)),
            }
        )
        if method.reads_datasets:
            reading.append(own)
    not_run = [method.title for method in methods() if method.name not in reported]
    metrics = sorted({metric for own in reading for metric in used_metrics(own)})
    return {
        "verdicts": front_lines(config),
        "data": [_source(config, metric, data_root) for metric in metrics],
        "methods": page,
        "not_run": not_run,
    }


def _existing(paths: list[str]) -> list[str]:
    return [path for path in paths if Path(path).exists()]


def _source(config: dict, metric: str, data_root: str | Path) -> str:
    source = config["datasets"][metric]
    folder = Path(dataset_dir(config, metric))
    if not source["path"]:
        where = f"downloaded from {source['url']} into {folder}"
    elif folder.resolve() == (Path(data_root) / "datasets" / metric).resolve():
        where = f"the small bundled set written by biasflow in the official format ({bundled.PREFIX}datasets/{metric})"
    else:
        where = f"the files in {folder}"
    if metric == "HolisticBias" and (folder / "descriptors.json").is_file():
        where += f", release {holisticbias.version(folder)}"
    budget = config["prompts"]["per_subgroup"]
    kept = (
        f"at most {budget} prompts per subgroup and split (seed {config['prompts']['seed']})"
        if budget
        else "every prompt"
    )
    return f"{metric}: {where}; {kept}."
