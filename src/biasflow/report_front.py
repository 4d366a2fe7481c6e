"""The report's front page: what data it shows and which methods and models made it.

``snakemake --report`` renders ``workflow/report/workflow.rst`` with the config; this module
prepares, from the validated config and the methods whose results exist, the lines that
page lists: first the verdict of each pair the config's ``compare`` section names (did the
candidate get worse than the baseline?, docs/methods.md §7), then where each method's
prompts came from (CAIRO: each metric's data, bundled, a folder or a URL, and the prompt budget), the methods run
and the models each ran, and the report's own pages of each method's tables. A method whose
results are not there is named as not run, so a CAIRO-only run shows no FairPair or FPR
settings; within a method run, only what was computed is listed (``make demo`` runs CAIRO's
gender axis, not its religion axis).
"""

from __future__ import annotations

from pathlib import Path

from biasflow.methods import methods
from biasflow.verdict_tables import front_lines


def front_page(config: dict, reported: list[str], data_root: str | Path) -> dict:
    """``{"verdicts": [...], "data": [...], "methods": [...], "compared_only": [...], "not_run": [...]}``: the front
    page's contents.

    ``verdicts`` holds a line (``text``) and the report's pages of its tables (``pages``) per
    pair whose verdict tables exist, the config's and those an earlier run wrote
    (:func:`biasflow.verdict_tables.front_lines`), which the page states first. A method whose
    own tables are not there but whose verdicts are is ``compared_only``, never ``not_run``: the
    page does not say a method did not run right under its verdict.

    ``methods`` holds per method run its ``name``, ``citation``, ``models`` and ``settings``
    (text) of the config as far as its results exist (the declaration's ``computed``), its
    pages of tables in the report (``pages``), and the tables that compare its models pair by
    pair (``comparisons``) and say where its numbers would move (``variance``), each listed
    only where the file exists (:class:`biasflow.methods.Method`); ``data`` the sentences
    each method run gives of where its prompts came from (its declaration's ``data``); ``reported``
    names the methods whose final tables exist; ``data_root`` is the bundled files' folder
    (to tell a bundled prompt set from one the user gave). Paths are relative to the working
    directory, where Snakemake renders the report.
    """
    page, data = [], []
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
        data += [line for line in method.data(own, data_root) if line not in data]
    verdicts = front_lines(config)
    judged = {name for line in verdicts for name in line["methods"]}
    return {
        "verdicts": verdicts,
        "data": data,
        "methods": page,
        "compared_only": [m.title for m in methods() if m.name not in reported and m.name in judged],
        "not_run": [m.title for m in methods() if m.name not in reported and m.name not in judged],
    }


def _existing(paths: list[str]) -> list[str]:
    return [path for path in paths if Path(path).exists()]
