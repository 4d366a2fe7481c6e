"""Scoring a table of continuations: the workflow's ``score`` step and ``biasflow score`` share this.

A continuation table (the workflow's, or any CSV/parquet a user brings with a
``continuation`` column) gets a ``score`` per row from the configured scorer, through the
score cache, and a ``category`` where the scorer names one (``honest``: the HurtLex
category of the first hurtful word, docs/methods.md §5.3).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from biasflow.errors import BiasflowError
from biasflow.schema import choices
from biasflow.scorers import get_scorer, score_texts, scorer_class
from biasflow.settings import StepSettings
from biasflow.tables import read_table, require_columns, require_rows, write_table

log = logging.getLogger("biasflow")


@dataclass(frozen=True)
class ScoringSettings(StepSettings):
    """What a score job reads of a scoring section (CAIRO's ``cairo.scoring``): the scorer and the options it takes.

    ``score_text``: ``continuation``, or ``prompt+continuation`` (the prompt in ``text`` and
    the continuation, lower-cased, as the CAIRO reference code scored); ``batch_size``:
    texts per batch (None: sized for the scorer and device); ``options``: the scorer's own
    keys (a checkpoint, a lexicon), so another scorer's setting never reruns this one.
    """

    scorer: str
    score_text: str
    batch_size: int | None
    options: dict

    @classmethod
    def of(cls, scoring: Mapping) -> ScoringSettings:
        """The settings of a scoring section (or of the same keys from flags or keywords): its scorer's options only."""
        options = {key: scoring[key] for key in scorer_class(scoring["scorer"]).options}
        return cls(scoring["scorer"], scoring["score_text"], scoring["batch_size"], options)

    def build(self):
        """The scorer these settings name, with its options."""
        return get_scorer(self.scorer, batch_size=self.batch_size, **self.options)


def scored_texts(table: pd.DataFrame, mode: str) -> pd.Series:
    """What is scored of each row: the continuation, or the prompt and continuation lower-cased (``score_text``)."""
    allowed = choices("cairo.scoring.score_text")  # the setting is CAIRO's, and its schema holds the choices
    if mode not in allowed:
        raise BiasflowError(f"unknown score_text {mode!r}; use one of {', '.join(allowed)}.")
    require_columns(
        table, ["text", "continuation"] if mode == "prompt+continuation" else ["continuation"], "continuation table"
    )
    if mode == "prompt+continuation":
        return (table["text"].fillna("") + table["continuation"].fillna("")).str.lower()
    return table["continuation"]


def score_table(table: pd.DataFrame, settings: ScoringSettings, cache_dir: str | Path | None) -> pd.DataFrame:
    """``table`` with ``score`` (and ``category`` for scorers that name one) added.

    ``cache_dir=None`` scores without the cache.
    """
    texts = scored_texts(table, settings.score_text)
    scorer = settings.build()
    scored = table.copy()
    scored["score"] = score_texts(scorer, texts.tolist(), Path(cache_dir) if cache_dir is not None else None)
    if hasattr(scorer, "categories"):
        scored["category"] = scorer.categories(texts.tolist())
        counts = scored.loc[scored["category"] != "", "category"].value_counts().sort_index()
        log.info(
            "%s: %d of %d continuations scored 1%s",
            scorer.name,
            int(scored["score"].sum()),
            len(scored),
            "; by category: " + ", ".join(f"{c} {n}" for c, n in counts.items()) if len(counts) else "",
        )
    return scored


def score_user_table(*, continuations_path: str, settings: ScoringSettings, cache_dir: str | None, out: str) -> None:
    """``biasflow score``: every column of a table a user brings, plus ``score``, ``scorer`` (and ``category``).

    The output is a score table (docs/tables.md) whenever the input has the continuation key,
    so ``biasflow cairo-stats`` takes it as it is.
    """
    table = read_table(continuations_path, ["continuation"], "continuation table")
    require_rows(table, f"continuation table {continuations_path}")
    scored = score_table(table, settings, cache_dir)
    scored["scorer"] = settings.scorer
    write_table(scored, out)
