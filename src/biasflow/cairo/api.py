"""CAIRO's public functions (``biasflow.score``, ``cairo_statistics``, ``cairo_bias``, ``cairo_select``,
``scorer_bias``).

Each takes a table a notebook holds, fills the columns the workflow would have written where
they are missing (:func:`biasflow.cairo.steps.with_workflow_columns`), and returns the
workflow's table, or its tables as one result object (docs/tables.md, "CAIRO"); the settings
are keywords defaulting to the schema's, or to ``config=``'s (:mod:`biasflow.api`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pandas as pd

from biasflow.api import SCHEMA, ConfigArg, config_value, schema_keywords
from biasflow.cairo.scorer_bias import ScorerBiasSettings
from biasflow.cairo.scorer_runs import SCORING, scoring_keys, scoring_settings
from biasflow.cairo.selection import SearchSettings
from biasflow.cairo.stats import sufficient_stats
from biasflow.cairo.steps import (
    checked_stats,
    complete_bias,
    rescored,
    scorer_bias_tables,
    selection_tables,
    with_workflow_columns,
)
from biasflow.scorers.table import ScoringSettings, score_table
from biasflow.tables import require_columns


@schema_keywords(scoring_keys())
def score(
    table: pd.DataFrame,
    *,
    scorer: str = SCHEMA,
    score_text: str = SCHEMA,
    batch_size: int | None = SCHEMA,
    device: str = SCHEMA,
    checkpoint: str | None = SCHEMA,
    huggingface_config: str | None = SCHEMA,
    lexicon: str | None = SCHEMA,
    lowercase: bool = SCHEMA,
    config: ConfigArg = None,
) -> pd.DataFrame:
    """Score every row's continuation, as the workflow's score step does.

    Every setting defaults to the schema's ``cairo.scoring`` key of its name, or to ``config``'s
    where ``config`` is given; a keyword given beats both.

    Parameters
    ----------
    table : pandas.DataFrame
        One row per continuation, its text in ``continuation`` (and the prompt in ``text``
        where ``score_text`` is ``prompt+continuation``); every other column is kept.
    scorer : str
        ``profanity`` (offline toxicity proxy), ``detoxify-unbiased`` (the CAIRO paper's
        classifier), ``vader`` (sentiment) or ``honest`` (HurtLex; give ``lexicon=``).
    score_text : str
        ``continuation``, or ``prompt+continuation`` (lower-cased, as the CAIRO reference code
        scored).
    batch_size : int or None
        Texts per batch (None: sized for the scorer and device).
    device, checkpoint, huggingface_config : str or None
        ``detoxify-unbiased``'s device and model files (config/README.md, ``cairo.scoring``).
    lexicon : str or None
        ``honest``'s HurtLex file.
    lowercase : bool
        ``honest``: lower-case the text before matching.
    config : mapping or path, optional
        Any part of a workflow config (``{"cairo": {"scoring": {"scorer": "vader"}}}``), or its YAML file(s).

    Returns
    -------
    pandas.DataFrame
        ``table`` with ``score`` added (and ``category`` for ``honest``).

    Examples
    --------
    >>> import pandas as pd
    >>> import biasflow
    >>> mine = pd.DataFrame({"model": ["m1", "m1"], "continuation": ["was kind to everyone.", "is a damn idiot."]})
    >>> biasflow.score(mine, scorer="profanity")[["continuation", "score"]].round(2)
                continuation  score
    0  was kind to everyone.   0.03
    1       is a damn idiot.   1.00
    """
    # ScoringSettings.of takes the scoring section's keys, which the keywords are, and keeps the scorer's own.
    return score_table(table, ScoringSettings.of(locals()), cache_dir=None)


@dataclass(frozen=True)
class SelectionTables:
    """:func:`cairo_select`'s tables, each as ``biasflow cairo-select`` writes it per axis (docs/tables.md, "CAIRO").

    ``curve``: per axis, pair of metrics and k, the best correlation, its held-out check and
    the selection-aware p-value; ``bias``: each model's Eq. 1 on the selected prompts, with its
    interval, excess over the no-bias null and rank; ``comparisons``: every pair of models,
    paired; ``variance``: where each model's bias would move; ``summary``: the settings and
    selections, as ``<axis>.json`` holds them. ``bias`` is the table the commands and the
    workflow write as ``<axis>.csv``, each of the others as ``<axis>_<name>.csv``.
    """

    curve: pd.DataFrame
    bias: pd.DataFrame
    comparisons: pd.DataFrame
    variance: pd.DataFrame
    summary: dict[str, Any]


@dataclass(frozen=True)
class ScorerBiasTables:
    """:func:`scorer_bias`'s tables (docs/tables.md, "Scorer bias").

    ``scorer``: per subgroup, the scorer's own bias (its mean deviation when the group words
    are swapped) with its interval; ``models``: per model, Eq. 1 on raw and on neutral scores
    and the scorer's part of it.
    """

    scorer: pd.DataFrame
    models: pd.DataFrame


def cairo_statistics(scored: pd.DataFrame) -> pd.DataFrame:
    """CAIRO's sufficient statistics of scored continuations: per cell, subgroup and cluster, S, Q and N.

    Parameters
    ----------
    scored : pandas.DataFrame
        One row per scored continuation with ``model``, ``subgroup`` and ``score``, and where
        it has them the workflow's ``metric``, ``axis``, ``split``, ``promptset``, ``seed``,
        ``prompt_id`` and ``group_key`` (filled where missing: one metric and split, the k-th
        row of a subgroup the same prompt for every model, each prompt its own cluster).

    Returns
    -------
    pandas.DataFrame
        The statistics table (docs/tables.md): ``score_sum``, ``score_sq_sum`` and ``n`` per
        model, metric, axis, split, prompt set, seed, subgroup and group key (docs/methods.md §1.4).

    Examples
    --------
    >>> import pandas as pd
    >>> import biasflow
    >>> scored = pd.DataFrame({"model": ["a"] * 4 + ["b"] * 4, "subgroup": ["female", "male"] * 4,
    ...                        "score": [0.1, 0.5, 0.3, 0.7, 0.2, 0.2, 0.4, 0.4]})
    >>> stats = biasflow.cairo_statistics(scored)
    >>> stats[["model", "subgroup", "group_key", "score_sum", "n"]]
      model subgroup group_key  score_sum  n
    0     a   female  female-0        0.1  1
    1     a   female  female-1        0.3  1
    2     a     male    male-0        0.5  1
    3     a     male    male-1        0.7  1
    4     b   female  female-0        0.2  1
    5     b   female  female-1        0.4  1
    6     b     male    male-0        0.2  1
    7     b     male    male-1        0.4  1
    """
    require_columns(scored, ["model", "subgroup", "score"], "scored continuations")
    return sufficient_stats(with_workflow_columns(scored))


@schema_keywords(SearchSettings)
def cairo_bias(stats: pd.DataFrame, *, normalise: str = SCHEMA, config: ConfigArg = None) -> pd.DataFrame:
    """CAIRO's Eq. 1 bias per model, metric, split and prompt set: how far the subgroups' mean scores spread.

    ``normalise`` defaults to the schema's ``cairo.bias.normalise``, or to ``config``'s where
    ``config`` is given; a keyword given beats both.

    Parameters
    ----------
    stats : pandas.DataFrame
        A statistics table (:func:`cairo_statistics`, or the workflow's ``results/cairo/stats/<axis>.parquet``).
    normalise : str
        ``none`` (Eq. 1's sum over subgroups of |subgroup mean − overall mean|) or ``mean``
        (divided by the number of subgroups).
    config : mapping or path, optional
        Any part of a workflow config (``{"cairo": {"bias": {"normalise": "mean"}}}``), or its YAML file(s).

    Returns
    -------
    pandas.DataFrame
        ``model, metric, axis, split, promptset, bias, n_subgroups, n_seeds`` (docs/methods.md §1.6),
        the mean over generation seeds. A cell lacking one of its subgroups (a paraphrase set
        whose prompts of a subgroup were all rejected in a split) has no Eq. 1: it is left out
        and named in a warning, as the workflow's statistics step does.

    Examples
    --------
    >>> import pandas as pd
    >>> import biasflow
    >>> scored = pd.DataFrame({"model": ["a"] * 4 + ["b"] * 4, "subgroup": ["female", "male"] * 4,
    ...                        "score": [0.1, 0.5, 0.3, 0.7, 0.2, 0.2, 0.4, 0.4]})
    >>> biasflow.cairo_bias(biasflow.cairo_statistics(scored))[["model", "bias", "n_subgroups"]].round(3)
      model  bias  n_subgroups
    0     a   0.4            2
    1     b   0.0            2
    """
    return complete_bias(stats, normalise)


@schema_keywords(SearchSettings)
def cairo_select(
    stats: pd.DataFrame,
    *,
    mode: str = SCHEMA,
    combinations: str = SCHEMA,
    max_sets: int = SCHEMA,
    permutations: int = SCHEMA,
    bootstrap: int = SCHEMA,
    null_draws: int = SCHEMA,
    seed: int = SCHEMA,
    normalise: str = SCHEMA,
    measure: str = SCHEMA,
    config: ConfigArg = None,
) -> SelectionTables:
    """CAIRO's selection: the prompt-set combination that makes the metrics agree across models (§1.7-1.17).

    Each setting defaults to the schema's key (``cairo.selection.<name>``; ``cairo.bias.normalise``,
    ``cairo.bias.measure``), or to ``config``'s where ``config`` is given; a keyword given beats
    both. The schema searches up to k = 4 (``max_sets``) where the embedded default's config,
    sized for its demo, searches up to 3: ``config="config/config.yaml"`` searches as the
    workflow does.

    Parameters
    ----------
    stats : pandas.DataFrame
        A statistics table (:func:`cairo_statistics`) with at least two metrics, the ``valid``
        and ``test`` splits and three models (a correlation across models needs them).
    mode : str
        ``shared`` (both metrics the same prompt sets) or ``independent``.
    combinations : str
        ``multisets`` (the reference code's: a set may repeat) or ``subsets`` (the paper's text).
    max_sets : int
        K: combinations of k = 1..K prompt sets, the original prompts included.
    permutations : int
        Draws of the selection-aware p-value (0: none).
    bootstrap, null_draws : int
        Cluster bootstrap draws of the intervals (§1.11) and draws of the no-bias null (§1.12).
    seed : int
        The seed of every draw.
    normalise : str
        Eq. 1 as a sum over subgroups (``none``) or their mean (``mean``).
    measure : str
        What the selection maximises: ``eq1`` (the paper) or ``excess`` (Eq. 1 less its null floor, §1.13).
    config : mapping or path, optional
        Any part of a workflow config (``{"cairo": {"selection": {"max_sets": 3}}}``), or its YAML file(s).

    Returns
    -------
    SelectionTables
        ``curve``, ``bias``, ``comparisons``, ``variance`` and ``summary``: the tables
        ``biasflow cairo-select`` writes, by the names of its files (docs/tables.md, "CAIRO").

    Examples
    --------
    >>> import numpy as np
    >>> import pandas as pd
    >>> import biasflow
    >>> rng = np.random.default_rng(0)
    >>> rows = [(f"m{m}", metric, split, promptset, group, f"{group}-{k}", m * (group == "female") / 10
    ...          + rng.normal(0, 0.05)) for m in range(5) for metric in ("BOLD", "HONEST")
    ...         for split in ("valid", "test") for promptset in ("original", "p1", "p2") for group in ("female", "male")
    ...         for k in range(6)]
    >>> scored = pd.DataFrame(rows, columns=["model", "metric", "split", "promptset", "subgroup", "prompt_id", "score"])
    >>> stats = biasflow.cairo_statistics(scored.assign(axis="gender"))
    >>> selection = biasflow.cairo_select(stats, max_sets=2, permutations=99, bootstrap=200, null_draws=200)
    >>> selection.curve[["pair", "k", "selection", "best_r", "test_r"]].round(3)
              pair  k    selection  best_r  test_r
    0  BOLD~HONEST  1     original   0.993   0.941
    1  BOLD~HONEST  2  original+p1   0.993   0.960
    """
    # The keywords are the selection's settings, field by field.
    chosen = SearchSettings.from_params(locals())
    require_columns(
        stats, ["model", "metric", "axis", "split", "promptset", "subgroup", "score_sum", "n"], "CAIRO statistics"
    )
    return SelectionTables(**selection_tables(checked_stats(stats, "CAIRO statistics"), chosen))


@schema_keywords({"lexicon": f"{SCORING}.identity_lexicon"}, scoring_keys(), ScorerBiasSettings)
def scorer_bias(
    continuations: pd.DataFrame,
    axis: str,
    *,
    scorer: str = SCHEMA,
    lexicon: str = SCHEMA,
    normalise: str = SCHEMA,
    bootstrap: int = SCHEMA,
    seed: int = SCHEMA,
    config: ConfigArg = None,
) -> ScorerBiasTables:
    """The scorer's own bias: how its scores move when a continuation's group words are swapped (§5.5).

    Each setting defaults to the schema's key (``cairo.scoring.scorer``,
    ``cairo.scoring.identity_lexicon``, ``cairo.bias.normalise``, ``cairo.selection.bootstrap``,
    ``cairo.selection.seed``), or to ``config``'s where ``config`` is given (whose ``cairo.scoring``
    section also gives the scorer's own settings); a keyword given beats both.

    Parameters
    ----------
    continuations : pandas.DataFrame
        ``model``, ``subgroup`` and ``continuation``, one row per continuation; the
        workflow's other columns where it has them.
    axis : str
        The axis the subgroups belong to (``gender``, ``religion``, ``race``), whose words the
        identity lexicon swaps.
    scorer : str
        The scorer whose own bias is measured (as in :func:`biasflow.score`).
    lexicon : str
        The identity lexicon file whose words are swapped (the schema's: the bundled one).
    normalise : str
        Eq. 1 as a sum over subgroups (``none``) or their mean (``mean``).
    bootstrap, seed : int
        The bootstrap draws of the intervals, and their seed.
    config : mapping or path, optional
        Any part of a workflow config (``{"cairo": {"scoring": {"scorer": "vader"}}}``), or its YAML file(s).

    Returns
    -------
    ScorerBiasTables
        ``scorer``: per subgroup, the scorer's own bias (its mean deviation when the group words
        are swapped) with its interval; ``models``: per model, Eq. 1 on raw and on neutral
        scores and the scorer's part of it (docs/tables.md, "Scorer bias").

    Examples
    --------
    >>> import pandas as pd
    >>> import biasflow
    >>> rows = [("m", group, text.format(word)) for group, word in (("muslim", "Muslim"), ("christian", "Christian"))
    ...         for text in ("My {} neighbour is a damn good cook.", "The {} family was kind.", "It rained.")]
    >>> tables = biasflow.scorer_bias(pd.DataFrame(rows, columns=["model", "subgroup", "continuation"]),
    ...                               "religion", bootstrap=200)
    >>> tables.scorer[["subgroup", "scorer_bias"]].round(3)  # the profanity model's own reaction to the group word
        subgroup  scorer_bias
    0  christian       -0.082
    1     muslim        0.082
    """
    loaded = config if isinstance(config, dict) else None  # schema_keywords loaded it
    scoring = scoring_settings(None if loaded is None else config_value(loaded, SCORING), scorer=scorer)
    scored, variants, groups = rescored(continuations, scoring=scoring, axis=axis, lexicon_path=lexicon, cache_dir=None)
    # The keywords are the step's settings, field by field.
    return ScorerBiasTables(*scorer_bias_tables(scored, variants, groups, ScorerBiasSettings.from_params(locals())))
