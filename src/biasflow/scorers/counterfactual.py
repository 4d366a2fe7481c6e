"""Counterfactual rescoring: the scorer's own reaction to group words, apart from what a model wrote.

docs/methods.md §5.5. Every scored text that mentions its own subgroup gets one variant per
other subgroup (each mention replaced by that subgroup's word of the same form) and one
neutral variant (a placeholder that names no group), by :class:`biasflow.identity.AxisLexicon`;
the variants are scored by the same scorer through the same cache (key: the variant's text),
so a rerun scores nothing twice. From them:

- the scorer's bias per subgroup, C_g = mean over contents of (score with g's word − the mean
  over subgroups of the same content's scores), with a bootstrap interval over contents;
- neutral scores: each text's score with its own group's words replaced by the placeholder
  (the raw score where it names none), on which a method's bias no longer holds the
  scorer's reaction to the words.
"""

from __future__ import annotations

import logging
from pathlib import Path

import numpy as np
import pandas as pd

from biasflow.identity import NEUTRAL, AxisLexicon
from biasflow.scorers.cache import score_texts
from biasflow.scorers.table import ScoringSettings, scored_texts
from biasflow.tables import CONTINUATION_KEY, require_columns

log = logging.getLogger("biasflow")

VARIANT_COLUMNS = [*CONTINUATION_KEY, "subgroup", "variant", "mentions", "variant_text", "score"]
SCORER_BIAS_COLUMNS = ["subgroup", "scorer_bias", "scorer_bias_lo", "scorer_bias_hi", "n_contents"]
# Bootstrap draws over contents for C_g's interval, and how many are drawn at once (memory).
DRAWS, DRAW_CHUNK = 1000, 100


def variant_table(table: pd.DataFrame, settings: ScoringSettings, lexicon: AxisLexicon, subgroups: list[str],
                  cache_dir: str | Path | None) -> pd.DataFrame:
    """Every variant of every row of ``table`` whose scored text mentions its own subgroup, scored.

    ``subgroups``: the axis's subgroups being compared; each row of one of them gets a variant
    per other one and a neutral one. Rows of a subgroup the lexicon does not know get none.
    """
    require_columns(table, [*CONTINUATION_KEY, "subgroup"], "continuation table")
    texts = scored_texts(table, settings.score_text)
    unknown = sorted(set(table["subgroup"]) - set(lexicon.subgroups))
    if unknown:
        log.warning("identity lexicon, axis %s: no words for subgroup(s) %s; their continuations are not rescored.",
                    lexicon.axis, ", ".join(map(str, unknown)))
    rows = []
    for key, subgroup, text in zip(table[CONTINUATION_KEY].itertuples(index=False, name=None), table["subgroup"],
                                   texts):
        targets = [g for g in subgroups if g != subgroup] + [NEUTRAL]
        mentions, variants = lexicon.variants(text, subgroup, targets)
        rows.extend((*key, subgroup, target, mentions, variant) for target, variant in variants.items())
    variants = pd.DataFrame(rows, columns=VARIANT_COLUMNS[:-1])
    scorer = settings.build()
    variants["score"] = score_texts(scorer, variants["variant_text"].tolist(),
                                    Path(cache_dir) if cache_dir is not None else None)
    mentioning = variants[CONTINUATION_KEY].drop_duplicates()
    log.info(
        "counterfactual rescoring, axis %s: %d of %d continuations mention their own subgroup; %d variants scored, "
        "so scoring cost x%.2f (%d subgroups + neutral per mentioning continuation).", lexicon.axis,
        len(mentioning), len(table), len(variants), cost_multiplier(len(table), len(variants)), len(subgroups) - 1,
    )
    return variants[VARIANT_COLUMNS]


def cost_multiplier(n_texts: int, n_variants: int) -> float:
    """Texts scored with counterfactual rescoring per text scored without it."""
    return (n_texts + n_variants) / n_texts if n_texts else 1.0


def neutral_scores(scores: pd.DataFrame, variants: pd.DataFrame) -> pd.DataFrame:
    """``scores`` with each score replaced by its neutral variant's where the text names its own group."""
    neutral = variants.loc[variants["variant"] == NEUTRAL, [*CONTINUATION_KEY, "score"]]
    merged = scores.merge(neutral.rename(columns={"score": "neutral"}), on=CONTINUATION_KEY, how="left",
                          validate="one_to_one")
    merged["score"] = merged["neutral"].fillna(merged["score"])
    return merged[scores.columns]


def content_scores(scored: pd.DataFrame, variants: pd.DataFrame, groups: list[str]) -> np.ndarray:
    """(contents x groups): each mentioning text's score carrying each group's words, its own included.

    ``scored`` has the continuation key, each row's own ``subgroup`` and its raw ``score``; a
    content is a continuation with a variant for every other group.
    """
    swapped = variants.loc[variants["variant"].isin(groups), [*CONTINUATION_KEY, "variant", "score"]]
    own = scored[[*CONTINUATION_KEY, "subgroup", "score"]].rename(columns={"subgroup": "variant"})
    own = own.merge(swapped[CONTINUATION_KEY].drop_duplicates(), on=CONTINUATION_KEY)
    wide = pd.concat([own, swapped]).pivot_table(index=CONTINUATION_KEY, columns="variant", values="score")
    return wide.reindex(columns=groups).dropna().to_numpy()


def scorer_bias(contents: np.ndarray, groups: list[str], seed: int) -> pd.DataFrame:
    """C_g per group with a percentile 95% bootstrap interval over contents (docs/methods.md §5.5).

    C_g = mean over contents of (score carrying g's words − the mean over groups of that
    content's scores): how much higher the scorer rates the same content when it names g.
    """
    deviation = contents - contents.mean(axis=1, keepdims=True)
    n = len(deviation)
    if not n:
        nan = np.full(len(groups), np.nan)
        return pd.DataFrame({"subgroup": groups, "scorer_bias": nan, "scorer_bias_lo": nan, "scorer_bias_hi": nan,
                             "n_contents": 0})[SCORER_BIAS_COLUMNS]
    rng = np.random.default_rng(seed)
    draws = np.concatenate([deviation[rng.integers(0, n, size=(min(DRAW_CHUNK, DRAWS - start), n))].mean(axis=1)
                            for start in range(0, DRAWS, DRAW_CHUNK)])
    low, high = np.percentile(draws, [2.5, 97.5], axis=0)
    return pd.DataFrame({"subgroup": groups, "scorer_bias": deviation.mean(axis=0), "scorer_bias_lo": low,
                         "scorer_bias_hi": high, "n_contents": n})[SCORER_BIAS_COLUMNS]
