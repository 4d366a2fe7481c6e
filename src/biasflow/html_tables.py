"""Result tables as one self-contained HTML page, for the report a person reads.

Snakemake's report shows a CSV as a download link only; an HTML page it shows in place.
Each method's final step writes its tables a second time as such a page (beside the CSVs,
which stay the data): a heading, a paragraph on what was computed and how to read it, and
the table, numbers rounded for reading. No scripts, no external files.
"""

from __future__ import annotations

import html
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from biasflow.tables import atomic_path

STYLE = """
body { font-family: system-ui, sans-serif; margin: 1.5em; color: #222; }
h1 { font-size: 1.3em; } h2 { font-size: 1.1em; margin-top: 1.6em; }
p { max-width: 60em; line-height: 1.4; }
table { border-collapse: collapse; font-size: 0.85em; }
th, td { border: 1px solid #ccc; padding: 0.25em 0.6em; text-align: left; }
td.number { text-align: right; font-variant-numeric: tabular-nums; }
th { background: #f0f0f0; position: sticky; top: 0; }
tr:nth-child(even) td { background: #fafafa; }
"""


@dataclass(frozen=True)
class Section:
    """One table on the page: its heading, what it shows and how to read it, and the rows (None: not computed in
    this run, such as the comparisons with ``comparisons.pairs`` none; the page then leaves the section out)."""

    heading: str
    text: str
    table: pd.DataFrame | None


def write_tables_page(path: str | Path, title: str, intro: str, sections: list[Section]) -> None:
    """Write ``sections`` under ``title`` as one HTML page at ``path`` (atomically), those with a table."""
    with atomic_path(path) as tmp:
        tmp.write_text(tables_page(title, intro, sections), encoding="utf-8")


def tables_page(title: str, intro: str, sections: list[Section]) -> str:
    """The HTML of ``sections`` under ``title``, those with a table (for a step that writes it with other files)."""
    parts = [f"<h1>{html.escape(title)}</h1>", f"<p>{html.escape(intro)}</p>"]
    for section in (section for section in sections if section.table is not None):
        parts += [
            f"<h2>{html.escape(section.heading)}</h2>",
            f"<p>{html.escape(section.text)}</p>",
            _table(section.table),
        ]
    return (
        f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>{html.escape(title)}</title>'
        f"<style>{STYLE}</style></head><body>\n" + "\n".join(parts) + "\n</body></html>\n"
    )


def _table(table: pd.DataFrame) -> str:
    if table.empty:
        return "<p><em>No rows.</em></p>"
    numeric = [pd.api.types.is_float_dtype(dtype) or pd.api.types.is_integer_dtype(dtype) for dtype in table.dtypes]
    head = "".join(f"<th>{html.escape(str(column))}</th>" for column in table.columns)
    rows = []
    for values in table.itertuples(index=False):
        cells = [
            f'<td class="number">{_number(value)}</td>' if is_number else f"<td>{html.escape(_text(value))}</td>"
            for value, is_number in zip(values, numeric, strict=True)
        ]
        rows.append("<tr>" + "".join(cells) + "</tr>")
    return f"<table><thead><tr>{head}</tr></thead><tbody>\n" + "\n".join(rows) + "\n</tbody></table>"


def _number(value) -> str:
    """Integers as they are, other numbers to 3 significant digits; a missing value as a dash."""
    if pd.isna(value):
        return "–"
    if float(value).is_integer() and abs(value) < 1e15:
        return f"{int(value):,}"
    return f"{value:.3g}"


def _text(value) -> str:
    return "–" if value is None or (isinstance(value, float) and pd.isna(value)) else str(value)
