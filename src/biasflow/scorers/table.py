"""Scoring a table of continuations: the workflow's ``score`` step and ``biasflow score`` share this.

A continuation table (the workflow's, or any CSV/parquet a user brings with a
``continuation`` column) gets a ``score`` per row from the configured scorer, through the
score cache, and a ``category`` where the scorer names one (``honest``: the HurtLex
category of the first hurtful word, docs/methods.md §5.3).
"""

from __future__ import annotations

import logging
from pathlib import Path

import pandas as pd

from biasflow.errors import BiasflowError
from biasflow.scorers import scorer_from_settings, score_texts
from biasflow.tables import read_table, require_columns, write_table

log = logging.getLogger("biasflow")

TEXT_MODES = ("continuation", "prompt+continuation")


def score_table(table: pd.DataFrame, scoring: dict, cache_dir: str | Path | None) -> pd.DataFrame:
    """``table`` with ``score`` (and ``category`` for scorers that name one) added.

    ``scoring`` is the config's ``scoring`` section: ``scorer``, ``score_text``
    (``continuation``, or ``prompt+continuation``: the prompt in ``text`` and the
    continuation, lower-cased, as the CAIRO reference code scored), ``batch_size`` and the
    scorer's own options. ``cache_dir=None`` scores without the cache.
    """
    mode = scoring.get("score_text", "continuation")
    if mode not in TEXT_MODES:
        raise BiasflowError(f"unknown score_text {mode!r}; use one of {', '.join(TEXT_MODES)}.")
    require_columns(table, ["text", "continuation"] if mode == "prompt+continuation" else ["continuation"],
                    "continuation table")
    if mode == "prompt+continuation":
        texts = (table["text"].fillna("") + table["continuation"].fillna("")).str.lower()
    else:
        texts = table["continuation"]
    scorer = scorer_from_settings(scoring)
    scored = table.copy()
    scored["score"] = score_texts(scorer, texts.tolist(), Path(cache_dir) if cache_dir is not None else None)
    if hasattr(scorer, "categories"):
        scored["category"] = scorer.categories(texts.tolist())
        counts = scored.loc[scored["category"] != "", "category"].value_counts().sort_index()
        log.info(
            "%s: %d of %d continuations scored 1%s", scorer.name, int(scored["score"].sum()), len(scored),
            "; by category: " + ", ".join(f"{c} {n}" for c, n in counts.items()) if len(counts) else "",
        )
    return scored


def score_file(*, continuations_path: str, scoring: dict, cache_dir: str | None, out: str) -> None:
    """``biasflow score``: every column of a table a user brings, plus ``score`` (and ``category``)."""
    table = read_table(continuations_path, ["continuation"], "continuation table")
    write_table(score_table(table, scoring, cache_dir), out)
