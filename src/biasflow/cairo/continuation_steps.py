"""CAIRO's generation and scoring steps: its prompt sets' continuations and their scores (docs/methods.md §1, §5.5).

Prompt table → continuations of one evaluated model (through the generation cache) → scores of one scorer (through the
score cache) → with counterfactual rescoring, the scored variants of the continuations that name their own group, and
neutral scores (§5.5). CAIRO's ``generate``, ``score``, ``counterfactual`` and ``neutral_scores`` rules call these
(rules/cairo/); FairPair and the FPR classifiers have steps of their own over the same core
:class:`~biasflow.generation.CachedGenerator` and scorers. Each step reads its inputs, computes through the library
and writes its output atomically (:mod:`biasflow.tables`); the Snakemake scripts call them by keyword, handing on
the rule's files by role (:data:`biasflow.cairo.outputs.EARLIER`) whole.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from pathlib import Path

import pandas as pd

from biasflow.cairo.continuations import GenerationSettings, continuation_table
from biasflow.cairo.outputs import NEUTRAL_SUFFIX
from biasflow.errors import BiasflowError
from biasflow.generation import CachedGenerator
from biasflow.models import spec_from_entry
from biasflow.scorers.counterfactual import VARIANT_COLUMNS, neutral_scores, variant_table
from biasflow.scorers.identity_lexicon import IdentityLexicon
from biasflow.scorers.table import ScoringSettings, score_table
from biasflow.tables import (
    CONTINUATION_KEY,
    PROMPT_COLUMNS,
    SCORE_COLUMNS,
    read_table,
    table_writer,
    write_table,
    write_together,
)

log = logging.getLogger("biasflow")

# A column marking which prompt table a row came from, while several share one generation.
_PART = "__part__"


def generate(
    *, tables: Mapping[str, Mapping[str, str]], entry: dict, settings: GenerationSettings, cache_dir: str
) -> None:
    """Sample continuations of every prompt set of several prompt tables from one evaluated model (docs/methods.md
    §5.1).

    ``tables`` maps each table's name (the workflow's: its metric) to its ``prompts`` file and
    the ``continuations`` file it gets: the workflow gives one job the tables of every metric of
    an axis, so the model loads once, and their requests share batches (each request's draws
    are seeded by the request itself). The files are written together, all or none.
    """
    spec = spec_from_entry(entry)
    name = spec.name
    prompts = pd.concat(
        [
            read_table(files["prompts"], PROMPT_COLUMNS, "prompt table").assign(**{_PART: key})
            for key, files in tables.items()
        ],
        ignore_index=True,
    )
    generator = CachedGenerator(spec, cache_dir, description=f"generate {name}")
    table = continuation_table(prompts, generator, settings)
    if len(table) and not table["continuation"].str.strip().astype(bool).any():
        raise BiasflowError(
            f"model {name}: all {len(table)} continuations are empty, so every score would be of nothing; check its "
            "chat setting (a chat model needs chat: true), decoding.max_new_tokens and the model itself."
        )
    write_together(
        {
            files["continuations"]: table_writer(
                table[table[_PART] == key].drop(columns=_PART).reset_index(drop=True), files["continuations"]
            )
            for key, files in tables.items()
        }
    )


def score(*, continuations_path: str, settings: ScoringSettings, cache_dir: str, outputs: Mapping[str, str]) -> None:
    """Score every continuation of one model, metric and axis (docs/methods.md §5.2) into ``outputs["scores"]``."""
    table = read_table(continuations_path, [*CONTINUATION_KEY, "text", "continuation"], "continuation table")
    scored = score_table(table, settings, Path(cache_dir) / "scores")
    scored["scorer"] = settings.scorer
    extra = ["category"] if "category" in scored else []
    write_table(scored[[*SCORE_COLUMNS, *extra]], outputs["scores"])


def counterfactual(
    *,
    continuations_path: str,
    settings: ScoringSettings,
    lexicon_path: str,
    axis: str,
    cache_dir: str,
    outputs: Mapping[str, str],
) -> None:
    """Score every variant of the continuations that name their own subgroup (docs/methods.md §5.5) into
    ``outputs["variants"]``.

    The subgroups compared are those of the table the lexicon has words for: each mentioning
    continuation gets a variant per other one and a neutral one.
    """
    table = read_table(
        continuations_path, [*CONTINUATION_KEY, "subgroup", "text", "continuation"], "continuation table"
    )
    lexicon = IdentityLexicon.from_file(lexicon_path).axis(axis)
    variants = variant_table(table, settings, lexicon, lexicon.compared(table["subgroup"]), Path(cache_dir) / "scores")
    write_table(variants, outputs["variants"])


def neutral(*, scores_path: str, variants_path: str, outputs: Mapping[str, str]) -> None:
    """A score table of the neutral scores, labelled ``<scorer>-neutral``, into ``outputs["scores"]`` (docs/methods.md
    §5.5).

    CAIRO needs a score for every continuation, so one whose group words cannot be swapped
    grammatically, or have no neutral form that keeps the sentence's sense ("She is no longer
    Muslim"), keeps its raw score here, and the log counts them.
    """
    scores = read_table(scores_path, SCORE_COLUMNS, "score table")
    variants = read_table(variants_path, VARIANT_COLUMNS, "variant table")
    table = neutral_scores(scores[SCORE_COLUMNS], variants)
    raw = table["score"].isna()
    if raw.any():
        log.warning(
            "neutral scores %s: %d of %d continuations name their group in a form that cannot be swapped "
            "grammatically or has no neutral form, and keep their raw score (docs/methods.md §5.5).",
            outputs["scores"],
            raw.sum(),
            len(table),
        )
        table.loc[raw, "score"] = scores.loc[raw.to_numpy(), "score"].to_numpy()
    table["scorer"] = table["scorer"] + NEUTRAL_SUFFIX
    write_table(table, outputs["scores"])
