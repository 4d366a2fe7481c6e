"""Counterfactual rescoring: the scorer's own reaction to group words, apart from what a model wrote.

docs/methods.md §5.5. Every scored text that mentions its own subgroup gets one variant per
other subgroup (each mention replaced by that subgroup's word of the same form) and one
neutral variant (a placeholder that names no group), by :class:`biasflow.scorers.identity_lexicon.AxisLexicon`;
the variants are scored by the same scorer through the same cache (key: the variant's text),
so a rerun scores nothing twice. A text that names its group in a form that cannot be swapped
grammatically gets one :data:`~biasflow.scorers.identity_lexicon.UNSWAPPABLE` row instead (no score), so it
is left out of what follows and counted. A text whose mention has no neutral form (a predicate: "She is
no longer Muslim"; "atheism") gets the other subgroups' variants and no neutral one: it counts in C_g
and has no neutral score. From them:

- the scorer's bias per subgroup, C_g = mean over contents of (score with g's word − the mean
  over subgroups of the same content's scores), with a cluster-bootstrap interval over the
  prompts' clusters (a prompt's continuations move together);
- neutral scores: each text's score with its own group's words replaced by the placeholder
  (the raw score where it names none), on which a method's bias no longer holds the
  scorer's reaction to the words.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from pathlib import Path

import numpy as np
import pandas as pd

from biasflow.bootstrap import RAO_WU, cluster_weights
from biasflow.empty_cells import WHY_EMPTY, Reason, why_empty
from biasflow.hashing import named_rng
from biasflow.intervals import estimate_interval, small_sample_factor, without_rounding
from biasflow.scorers.cache import score_texts
from biasflow.scorers.identity_lexicon import NEUTRAL, UNSWAPPABLE, AxisLexicon
from biasflow.scorers.table import ScoringSettings, scored_texts
from biasflow.tables import CONTINUATION_KEY, require_columns

log = logging.getLogger("biasflow")

VARIANT_COLUMNS = [*CONTINUATION_KEY, "subgroup", "variant", "mentions", "variant_text", "score"]
SCORER_BIAS_COLUMNS = [
    "subgroup",
    "scorer_bias",
    "scorer_bias_lo",
    "scorer_bias_hi",
    "n_contents",
    "n_excluded",
    "n_clusters",
    WHY_EMPTY,
]
# What C_g's bootstrap resamples: a prompt's cluster (a BOLD page, a HolisticBias or HONEST template; the
# prompt itself where the data name none), per metric. Every continuation of a prompt lies in one.
CONTENT_CLUSTER = ["metric", "group_key"]
# Bootstrap draws computed at once (memory: draws x clusters).
DRAW_CHUNK = 100
# The fewest clusters an interval is drawn from: with two, a draw holds one cluster, so the draws take two
# values and one side of the interval has no width.
MIN_CLUSTERS = 3


def variant_table(
    table: pd.DataFrame,
    settings: ScoringSettings,
    lexicon: AxisLexicon,
    subgroups: list[str],
    cache_dir: str | Path | None,
) -> pd.DataFrame:
    """Every variant of every row of ``table`` whose scored text mentions its own subgroup, scored.

    ``subgroups``: the axis's subgroups being compared; each row of one of them gets a variant
    per other one and a neutral one. Rows of a subgroup the lexicon does not know get none. A
    row whose mention cannot be swapped grammatically (docs/methods.md §5.5) gets one row with
    ``variant`` :data:`~biasflow.scorers.identity_lexicon.UNSWAPPABLE`, its own text and no score; one
    whose mention has no neutral form gets no ``neutral`` row (a neutral text that changes the
    sense would be scored as the same content without its group). The log counts both by reason.
    """
    require_columns(table, [*CONTINUATION_KEY, "subgroup"], "continuation table")
    texts = scored_texts(table, settings.score_text)
    unknown = sorted(set(table["subgroup"]) - set(lexicon.subgroups))
    if unknown:
        log.warning(
            "identity lexicon, axis %s: no words for subgroup(s) %s; their continuations are not rescored.",
            lexicon.axis,
            ", ".join(map(str, unknown)),
        )
    rows: list[tuple] = []
    unswappable: dict[str, tuple[int, str]] = {}
    no_neutral: dict[str, tuple[int, str]] = {}
    for key, subgroup, text in zip(
        table[CONTINUATION_KEY].itertuples(index=False, name=None), table["subgroup"], texts, strict=True
    ):
        targets = [g for g in subgroups if g != subgroup] + [NEUTRAL]
        found = lexicon.variants(text, subgroup, targets)
        if found.unswappable:
            rows.append((*key, subgroup, UNSWAPPABLE, found.mentions, text))
            _count(unswappable, found.unswappable, text)
        if found.no_neutral:
            _count(no_neutral, found.no_neutral, text)
        rows.extend((*key, subgroup, target, found.mentions, variant) for target, variant in found.texts.items())
    variants = pd.DataFrame(rows, columns=VARIANT_COLUMNS[:-1])
    swapped = (variants["variant"] != UNSWAPPABLE).to_numpy()
    variants["score"] = np.nan
    variants.loc[swapped, "score"] = score_texts(
        settings.build(),
        variants.loc[swapped, "variant_text"].tolist(),
        Path(cache_dir) if cache_dir is not None else None,
    )
    mentioning = variants[CONTINUATION_KEY].drop_duplicates()
    log.info(
        "counterfactual rescoring, axis %s: %d of %d continuations mention their own subgroup; %d variants scored, "
        "so scoring cost x%.2f (%d subgroups + neutral per mentioning continuation).",
        lexicon.axis,
        len(mentioning),
        len(table),
        swapped.sum(),
        cost_multiplier(len(table), int(swapped.sum())),
        len(subgroups) - 1,
    )
    if unswappable:
        log.warning(
            "counterfactual rescoring, axis %s: %d of the mentioning continuations name their group in a form that "
            "cannot be swapped grammatically; they get no variants and are left out of the scorer's bias "
            "(n_excluded; docs/methods.md §5.5): %s.",
            lexicon.axis,
            sum(n for n, _ in unswappable.values()),
            _by_reason(unswappable),
        )
    if no_neutral:
        log.warning(
            "counterfactual rescoring, axis %s: %d of the mentioning continuations name their group where no "
            "neutral word keeps the sense; they are swapped for the other subgroups (C_g counts them) but get no "
            "neutral variant, so Eq. 1 on raw against neutral scores leaves them out (n_no_neutral; "
            "docs/methods.md §5.5): %s.",
            lexicon.axis,
            sum(n for n, _ in no_neutral.values()),
            _by_reason(no_neutral),
        )
    return variants[VARIANT_COLUMNS]


def _count(reasons: dict[str, tuple[int, str]], why: str, text: str) -> None:
    """One more text left out for ``why``; the first is kept as the log's example."""
    count, example = reasons.get(why, (0, text))
    reasons[why] = (count + 1, example)


def _by_reason(reasons: dict[str, tuple[int, str]]) -> str:
    return "; ".join(f"{why}: {n}, e.g. {_excerpt(example)!r}" for why, (n, example) in sorted(reasons.items()))


def _excerpt(text: str, limit: int = 80) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def cost_multiplier(n_texts: int, n_variants: int) -> float:
    """Texts scored with counterfactual rescoring per text scored without it."""
    return (n_texts + n_variants) / n_texts if n_texts else 1.0


def neutral_scores(scores: pd.DataFrame, variants: pd.DataFrame) -> pd.DataFrame:
    """``scores`` with each score replaced by its neutral variant's where the text names its own group.

    A text that names its group but has no neutral variant has no neutral score (NaN): one
    whose words cannot be swapped (an :data:`~biasflow.scorers.identity_lexicon.UNSWAPPABLE` row),
    and one whose words have no neutral form (docs/methods.md §5.5).
    """
    neutral = variants.loc[variants["variant"] == NEUTRAL, [*CONTINUATION_KEY, "score"]]
    named = variants[CONTINUATION_KEY].drop_duplicates().assign(_named=True)
    merged = scores.merge(
        neutral.rename(columns={"score": "neutral"}), on=CONTINUATION_KEY, how="left", validate="one_to_one"
    ).merge(named, on=CONTINUATION_KEY, how="left", validate="many_to_one")
    merged["score"] = merged["neutral"].where(merged["_named"].notna(), merged["score"])
    return merged[scores.columns]


def excluded_counts(variants: pd.DataFrame) -> dict[str, int]:
    """Per subgroup, its continuations that name it in a form that cannot be swapped (left out of the contents)."""
    out = variants.loc[variants["variant"] == UNSWAPPABLE].drop_duplicates(CONTINUATION_KEY)
    return {str(group): int(n) for group, n in out.groupby("subgroup").size().items()}


def content_scores(scored: pd.DataFrame, variants: pd.DataFrame, groups: list[str]) -> pd.DataFrame:
    """One row per content: its prompt's cluster (:data:`CONTENT_CLUSTER`) and its score carrying each group's words.

    ``scored`` has the continuation key, the cluster's columns, each row's own ``subgroup``
    and its raw ``score``; a content is a continuation with a variant for every other group
    (its own text is its own group's).
    """
    swapped = variants.loc[variants["variant"].isin(groups), [*CONTINUATION_KEY, "variant", "score"]]
    own = scored[[*CONTINUATION_KEY, "subgroup", "score"]].rename(columns={"subgroup": "variant"})
    own = own.merge(swapped[CONTINUATION_KEY].drop_duplicates(), on=CONTINUATION_KEY)
    wide = (
        pd.concat([own, swapped])
        .pivot_table(index=CONTINUATION_KEY, columns="variant", values="score")
        .reindex(columns=groups)
        .dropna()
    )
    clusters = scored[[*CONTINUATION_KEY, *CONTENT_CLUSTER]].drop_duplicates(CONTINUATION_KEY)
    return wide.reset_index().merge(clusters, on=CONTINUATION_KEY)[[*CONTENT_CLUSTER, *groups]]


def scorer_bias(
    contents: pd.DataFrame,
    groups: list[str],
    axis: str,
    draws: int,
    seed: int,
    *,
    excluded: Mapping[str, int] | None = None,
) -> pd.DataFrame:
    """C_g per group with a 95% interval from a cluster bootstrap over the contents' prompts (docs/methods.md §5.5).

    C_g = mean over contents of (score carrying g's words − the mean over groups of that
    content's scores): how much higher the scorer rates the same content when it names g.
    ``contents``: :func:`content_scores`. The continuations of one prompt share its words and
    with them much of the scorer's reaction, so a draw resamples the prompts' clusters
    (:data:`CONTENT_CLUSTER`), every content of a cluster together, in the order of their
    names, and the draws are keyed by ``seed`` and the axis's name. C_g pools the contents of
    every model (a content is one model's continuation), so adding a model moves C_g and its
    interval by definition; each model's own numbers are
    :func:`biasflow.cairo.scorer_bias.models_table`'s. An interval needs ``draws`` > 0 and
    :data:`MIN_CLUSTERS` clusters; else it is NaN (never of zero width), and the log and
    ``why_empty`` say why.
    ``excluded``: each group's continuations left out of ``contents`` because their words
    could not be swapped grammatically (:func:`excluded_counts`; ``n_excluded``, 0 where none
    are given). A content without a neutral form is not left out: C_g compares the subgroups'
    variants, not the neutral one.
    """
    scores = contents[groups].to_numpy(dtype=np.float64)
    # A content scored alike whatever group it names deviates by rounding at most: exactly 0 (§9).
    deviation = without_rounding(
        scores - scores.mean(axis=1, keepdims=True), np.abs(scores).max(axis=1, keepdims=True, initial=0.0)
    )
    cluster = contents.groupby(CONTENT_CLUSTER, sort=True, dropna=False).ngroup().to_numpy()
    n_clusters = int(cluster.max()) + 1 if len(cluster) else 0
    sums = np.zeros((n_clusters, len(groups)))
    np.add.at(sums, cluster, deviation)
    sizes = np.bincount(cluster, minlength=n_clusters).astype(np.float64)
    with np.errstate(invalid="ignore"):  # no contents: NaN
        estimate = sums.sum(axis=0) / sizes.sum()
    low = high = np.full(len(groups), np.nan)
    if 0 < n_clusters < MIN_CLUSTERS:
        named = contents[CONTENT_CLUSTER].drop_duplicates().astype(str).agg("/".join, axis=1)
        log.warning(
            "scorer's bias, axis %s: its %d contents come from %d prompt cluster(s) (%s), fewer than the %d "
            "a resample needs, so C_g's interval is left empty (docs/methods.md §5.5).",
            axis,
            len(contents),
            n_clusters,
            ", ".join(named),
            MIN_CLUSTERS,
        )
    elif n_clusters and draws:
        drawn = _cluster_draws(sums, sizes, draws, named_rng(seed, "scorer-bias", axis))
        low, high = estimate_interval(estimate, drawn, small_sample_factor(n_clusters - 1))
    table = pd.DataFrame(
        {
            "subgroup": groups,
            "scorer_bias": estimate,
            "scorer_bias_lo": low,
            "scorer_bias_hi": high,
            "n_contents": len(contents),
            "n_excluded": [(excluded or {}).get(g, 0) for g in groups],
            "n_clusters": n_clusters,
        }
    )
    interval = ["scorer_bias_lo", "scorer_bias_hi"]
    table[WHY_EMPTY] = why_empty(
        table,
        [
            Reason(
                ["scorer_bias", *interval],
                "no continuation of the axis names its subgroup in a swappable form",
                table["scorer_bias"].isna(),
            ),
            Reason(
                interval,
                f"fewer than {MIN_CLUSTERS} prompt clusters, which a resample needs",
                n_clusters < MIN_CLUSTERS,
            ),
            Reason(interval, "no bootstrap draws (cairo.selection.bootstrap is 0)", not draws),
            Reason(interval, "the bootstrap's draws do not spread: every draw gives the same C_g (docs/methods.md §9)"),
        ],
    )
    return table[SCORER_BIAS_COLUMNS]


def _cluster_draws(sums: np.ndarray, sizes: np.ndarray, draws: int, rng: np.random.Generator) -> np.ndarray:
    """(draws x groups): the mean deviation with c − 1 of the c clusters drawn with replacement (Rao and Wu).

    Drawing c − 1 keeps the variance of a mean of clusters unbiased
    (:func:`biasflow.bootstrap.cluster_weights`, every method's one; docs/methods.md §9).
    """
    n = len(sizes)
    chunks = []
    for start in range(0, draws, DRAW_CHUNK):
        weights = cluster_weights(rng, [range(n)], n, min(DRAW_CHUNK, draws - start), RAO_WU)
        chunks.append((weights @ sums) / (weights @ sizes)[:, None])
    return np.concatenate(chunks)
