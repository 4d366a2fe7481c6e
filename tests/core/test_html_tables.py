"""The report's table pages: every row and column there, numbers rounded for reading, text escaped."""

from __future__ import annotations

from html.parser import HTMLParser

import numpy as np
import pandas as pd

from biasflow.html_tables import Section, write_tables_page


class Cells(HTMLParser):
    """The text of every table cell, row by row, of each table on a page."""

    def __init__(self):
        super().__init__()
        self.tables, self._cell = [], None

    def handle_starttag(self, tag, attrs):
        if tag == "table":
            self.tables.append([])
        elif tag == "tr":
            self.tables[-1].append([])
        elif tag in ("td", "th"):
            self._cell = ""

    def handle_data(self, data):
        if self._cell is not None:
            self._cell += data

    def handle_endtag(self, tag):
        if tag in ("td", "th"):
            self.tables[-1][-1].append(self._cell)
            self._cell = None


def test_a_page_holds_each_table_whole_with_readable_numbers(tmp_path):
    first = pd.DataFrame({"model": ["a<b>", "c"], "n": [1200, 3], "r": [0.123456, np.nan]})
    second = pd.DataFrame({"pair": ["BOLD~HONEST"], "p": [1 / 3]})
    path = tmp_path / "page.html"
    write_tables_page(
        path,
        "Title & more",
        "What it shows.",
        [Section("One", "text", first), Section("Two", "text", second), Section("Empty", "text", first.iloc[:0])],
    )
    page = path.read_text()
    assert page.startswith("<!DOCTYPE html>") and "<script" not in page and "Title &amp; more" in page
    cells = Cells()
    cells.feed(page)
    assert cells.tables == [
        [["model", "n", "r"], ["a<b>", "1,200", "0.123"], ["c", "3", "–"]],
        [["pair", "p"], ["BOLD~HONEST", "0.333"]],
    ]
    assert "No rows." in page, "an empty table says so"
