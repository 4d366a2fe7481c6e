"""The workflow's answer to "did the candidate get worse?": the config's ``compare`` pairs (docs/methods.md §7).

``biasflow compare`` answers the release question on files a user names; a study that runs
the workflow names its pairs once, in the config's ``compare`` section, and ``snakemake
--cores N compare`` writes per pair and method run the judged rows
(``results/compare/{baseline}_vs_{candidate}/{method}.csv``) and their markdown summary
(``{method}.md``) from the files the workflow already writes. This module holds what that
needs and no method: the pairs whose tables an earlier run wrote (:func:`written_pairs`; the
config's own pairs and their check are :mod:`biasflow.compare_pairs`'s, which the config check
reads without this module), the step (:func:`write_verdicts`, which calls each method's own
``compare.command`` through its declaration), and the report's front-page lines
(:func:`front_lines`). Each method's declaration says which files and systems a pair compares
(``Method.pair_sources``, docs/adding-a-method.md section 2).

A method's comparisons of one pair are one family: FPR compares each classifier's system of
the candidate with the baseline's of the same classifier on each probe set, and its rows of
every probe set and classifier are judged together (:func:`biasflow.verdicts.judge`), so
``p_worse_holm`` and the overall verdict are the gate's over every measure it counts. A
row's verdict reads its own interval only, so it is the verdict ``biasflow compare`` gives on
the same two files with the same margin.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from biasflow.compare_pairs import FOLDER, VS, ComparedPair, compared_pairs
from biasflow.config import settings_config
from biasflow.methods import method

if TYPE_CHECKING:  # the workflow's rules import this module to plan its jobs; pandas comes with the step
    import pandas as pd

    from biasflow.verdicts import Verdicts

# Each pair's files, by role: the judged rows, their markdown summary and the report's page of them, per method.
OUTPUTS = {"table": "{pair}/{method}.csv", "summary": "{pair}/{method}.md", "page": "{pair}/{method}.html"}
# The verdict table's columns the report's page shows, in this order (those a method's rows have).
PAGE_COLUMNS = [
    "measure_name",
    "verdict",
    "difference",
    "lo90",
    "hi90",
    "margin",
    "p_worse_holm",
    "units_needed",
    "unit",
    "why_untested",
    "note",
]


def output(role: str, pair: str = "{pair}", method_name: str = "{method}") -> str:
    """The workflow's path of one of a pair's files (the wildcards left as they are by default)."""
    return FOLDER + OUTPUTS[role].format(pair=pair, method=method_name)


def written_pairs(config: Mapping) -> list[ComparedPair]:
    """The pairs whose verdict tables are under ``results/compare/`` though ``config`` names them not (an earlier run
    given another config file, such as the README's pairs.yaml), each of two models of ``config``: the report
    shows what was compared, whichever config file it is rendered with. Their margins are the ones written."""
    named = {pair.name for pair in compared_pairs(config)}
    models = set(config.get("models") or {})
    found = []
    for folder in sorted(Path(FOLDER).glob(f"*{VS}*")) if Path(FOLDER).is_dir() else []:
        baseline, _, candidate = folder.name.partition(VS)
        if folder.name not in named and {baseline, candidate} <= models and any(folder.glob("*.csv")):
            found.append(ComparedPair(baseline, candidate, {}))
    return found


def comparison_settings(config: Mapping, method_name: str) -> dict:
    """The part of ``config`` the method's comparison reads (the keys of its declaration's ``compare_settings``
    class), nested as in a config: a rule's params, so a change of another key reruns no comparison."""
    declared = method(method_name)
    if declared.compare_settings is None:
        return {}
    settings = declared.part("compare_settings")
    part: dict = {}
    for field in dataclasses.fields(settings):
        *sections, last = settings.key(field.name).split(".")
        source, target = config, part
        for section in sections:
            source, target = source[section], target.setdefault(section, {})
        target[last] = source[last]
    return part


def verdict_page(verdicts: Verdicts, details: Sequence[str]) -> str:
    """The report's page of one method's verdicts of a pair: the summary's first line, the judged rows, the details."""
    from biasflow.html_tables import Section, tables_page

    title = f"{method(verdicts.method).title}: {verdicts.candidate} against {verdicts.baseline}"
    shown = verdicts.rows[[column for column in PAGE_COLUMNS if column in verdicts.rows]]
    words = (
        "One row per measure the gate counts: the candidate's bias less the baseline's with its 90% interval, and "
        "the verdict against the margin (docs/methods.md section 7). " + " ".join(details)
    )
    return tables_page(title, verdicts.report("text").splitlines()[0], [Section("The measures", words, shown)])


def write_verdicts(
    *,
    method_name: str,
    baseline: str,
    candidate: str,
    comparisons: Sequence[Mapping],
    settings: Mapping,
    margin: float,
    margin_source: str,
    outputs: Mapping[str, str],
) -> None:
    """Judge the pair's comparisons of one method and write, by role (:data:`OUTPUTS`), the rows (``table``), the
    markdown summary (``summary``) and the report's page of them (``page``, :func:`verdict_page`).

    ``comparisons``: each a ``paths`` list (the files the method's ``biasflow compare`` reads),
    the ``baseline`` and ``candidate`` as those files name them (FPR: ``<model>/<classifier>``)
    and ``labels``, columns that tell several comparisons apart (FPR: ``probe`` and
    ``classifier``), which lead the rows and their measure names. ``settings``: the part of a
    config the comparison reads (:func:`comparison_settings`), over the schema's defaults. The
    rows of every comparison are judged together at ``margin`` (one family, docs/methods.md §7).
    """
    import pandas as pd

    from biasflow.tables import table_writer, text_writer, write_together
    from biasflow.verdicts import Verdicts, judge

    config = settings_config(settings)
    compare = method(method_name).part("compare")
    parts, details = [], []
    for comparison in comparisons:
        found = compare.command(
            list(comparison["paths"]), comparison["baseline"], comparison["candidate"], config, margin, margin_source
        )
        labels = dict(comparison.get("labels") or {})
        rows = found.rows
        prefix = " ".join(labels.values())
        if labels:
            rows = rows.assign(**labels, measure_name=prefix + ": " + rows["measure_name"])[[*labels, *rows.columns]]
        parts.append(rows)
        details += [f"{prefix}: {line}" if prefix else line for line in found.details]
    rows = judge(pd.concat(parts, ignore_index=True), margin)
    verdicts = Verdicts(method_name, baseline, candidate, margin_source, rows, tuple(details))
    listed = "\n".join(f"- {line}" for line in details)  # FPR: the groups whose own gaps differ
    text = verdicts.report("markdown") + (f"\n\n{listed}" if listed else "") + "\n"
    table, summary, page = outputs["table"], outputs["summary"], outputs["page"]
    write_together(
        {
            table: table_writer(verdicts.rows, table),
            summary: text_writer(text),
            page: text_writer(verdict_page(verdicts, details)),
        }
    )


def pair_verdict(tables: Mapping[str, pd.DataFrame]) -> str:
    """One pair's verdict over the judged tables of the methods that compared it (method → rows).

    ``not worse`` where every measure of every method is non-inferior (the intersection-union
    rule needs no correction); ``worse`` where one is worse after Holm over every measure of
    every method; else ``inconclusive`` (:func:`biasflow.verdicts.overall` on the union).
    """
    import pandas as pd

    from biasflow.multiplicity import holm
    from biasflow.verdicts import overall

    rows = pd.concat([rows[["verdict", "p_worse"]] for rows in tables.values()], ignore_index=True)
    return overall(rows.assign(p_worse_holm=holm(rows["p_worse"].to_numpy(dtype=float))))


def front_lines(config: dict) -> list[dict]:
    """The report's front page: per pair whose tables exist, ``text``, its verdict then each method's (with the
    measures it judged), and ``pages``, the report's pages of its tables.

    The pairs are the config's, then those written by an earlier run with another config
    (:func:`written_pairs`); read from the written tables (``results/compare/``, relative to
    the working directory), so a pair or method not yet compared is left out.
    """
    import pandas as pd

    from biasflow.verdicts import overall

    lines = []
    for pair in [*compared_pairs(config), *written_pairs(config)]:
        tables = {
            name: pd.read_csv(output("table", pair.name, name))
            for name in pair.methods(config)
            if Path(output("table", pair.name, name)).exists()
        }
        if not tables:
            continue
        each = "; ".join(f"{method(name).title}: {overall(rows)} ({_measures(rows)})" for name, rows in tables.items())
        lines.append(
            {
                "text": f"Candidate ``{pair.candidate}`` against baseline ``{pair.baseline}``: "
                f"**{pair_verdict(tables)}** over {sum(map(len, tables.values()))} measure(s) of "
                f"{len(tables)} method(s). {each}.",
                "pages": [
                    output("page", pair.name, name) for name in tables if Path(output("page", pair.name, name)).exists()
                ],
                "methods": list(tables),
            }
        )
    return lines


def _measures(rows: pd.DataFrame) -> str:
    """A method's measures in a front-page line: how many, which, and the margin."""
    named = f": {', '.join(map(str, rows['measure_name']))}" if "measure_name" in rows else ""
    return f"{len(rows)} measure(s){named}; margin ±{rows['margin'].iloc[0]:.4g}"
