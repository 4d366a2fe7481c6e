"""CAIRO's public functions (``biasflow.cairo_statistics``, ``cairo_bias``, ``cairo_select``, ``scorer_bias``).

Each takes a table a notebook holds, fills the columns the workflow would have written where
they are missing (:func:`biasflow.cairo.steps.with_workflow_columns`), and returns the
workflow's table (docs/tables.md, "CAIRO").
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from biasflow.cairo.scorer_bias import ScorerBiasSettings
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
from biasflow.schema import default
from biasflow.tables import require_columns


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


def cairo_bias(stats: pd.DataFrame, normalise: str | None = None) -> pd.DataFrame:
    """CAIRO's Eq. 1 bias per model, metric, split and prompt set: how far the subgroups' mean scores spread.

    Parameters
    ----------
    stats : pandas.DataFrame
        A statistics table (:func:`cairo_statistics`, or the workflow's ``results/cairo/stats/<axis>.parquet``).
    normalise : str, optional
        ``none`` (Eq. 1's sum over subgroups of |subgroup mean − overall mean|) or ``mean``
        (divided by the number of subgroups); default: the config's ``bias.normalise``.

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
    return complete_bias(stats, normalise or default("bias.normalise"))


def cairo_select(stats: pd.DataFrame, **settings: Any) -> dict[str, Any]:
    """CAIRO's selection: the prompt-set combination that makes the metrics agree across models (§1.7-1.17).

    Parameters
    ----------
    stats : pandas.DataFrame
        A statistics table (:func:`cairo_statistics`, or the workflow's
        ``results/cairo/stats/<axis>.parquet``) with at least two metrics, the ``valid`` and
        ``test`` splits and three models (a correlation across models needs them).
    **settings
        The config's ``selection`` keys (``mode``, ``combinations``, ``max_sets``,
        ``permutations``, ``bootstrap``, ``null_draws``, ``seed``) and ``normalise`` and
        ``measure`` (``bias.normalise``, ``bias.measure``), each defaulting as the config does.

    Returns
    -------
    dict
        The tables ``biasflow cairo-select`` writes, by name (docs/tables.md, "CAIRO"):
        ``curve`` (per axis, pair of metrics and k, the best correlation, its held-out check
        and the selection-aware p-value), ``bias`` (each model's Eq. 1 on the selected
        prompts, with its interval, excess over the no-bias null and rank), ``comparisons``
        (every pair of models, paired), ``variance`` (where each model's bias would move), and
        ``summary`` (the settings and selections, as ``selection.json``).

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
    >>> tables = biasflow.cairo_select(stats, max_sets=2, permutations=99, bootstrap=200, null_draws=200)
    >>> tables["curve"][["pair", "k", "selection", "best_r", "test_r"]].round(3)
              pair  k    selection  best_r  test_r
    0  BOLD~HONEST  1     original   0.993   0.941
    1  BOLD~HONEST  2  original+p1   0.993   0.960
    """
    chosen = SearchSettings.for_call("cairo_select", **settings)
    require_columns(
        stats, ["model", "metric", "axis", "split", "promptset", "subgroup", "score_sum", "n"], "CAIRO statistics"
    )
    return selection_tables(checked_stats(stats, "CAIRO statistics"), chosen)


def scorer_bias(
    continuations: pd.DataFrame, axis: str, scorer: str | None = None, *, lexicon: str | None = None, **settings: Any
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The scorer's own bias: how its scores move when a continuation's group words are swapped (§5.5).

    Parameters
    ----------
    continuations : pandas.DataFrame
        ``model``, ``subgroup`` and ``continuation``, one row per continuation; the
        workflow's other columns where it has them.
    axis : str
        The axis the subgroups belong to (``gender``, ``religion``, ``race``), whose words the
        identity lexicon swaps.
    scorer : str, optional
        The scorer whose own bias is measured (as in :func:`biasflow.score`; default: the
        config's ``scoring.scorer``).
    lexicon : str, optional
        An identity lexicon file (default: the bundled one, ``scoring.identity_lexicon``).
    **settings
        ``normalise``, ``bootstrap`` and ``seed`` (default: the config's ``bias.normalise``,
        ``selection.bootstrap`` and ``selection.seed``).

    Returns
    -------
    scorer_table, models_table : pandas.DataFrame
        Per subgroup, the scorer's own bias (its mean deviation when the group words are swapped)
        with its interval; per model, Eq. 1 on raw and on neutral scores and the scorer's part
        of it (docs/tables.md, "Scorer bias").

    Examples
    --------
    >>> import pandas as pd
    >>> import biasflow
    >>> rows = [("m", group, text.format(word)) for group, word in (("muslim", "Muslim"), ("christian", "Christian"))
    ...         for text in ("My {} neighbour is a damn good cook.", "The {} family was kind.", "It rained.")]
    >>> own, models = biasflow.scorer_bias(pd.DataFrame(rows, columns=["model", "subgroup", "continuation"]),
    ...                                    "religion", bootstrap=200)
    >>> own[["subgroup", "scorer_bias"]].round(3)  # the profanity model's own reaction to the group word
        subgroup  scorer_bias
    0  christian       -0.082
    1     muslim        0.082
    """
    from biasflow.bundled import resolve
    from biasflow.scorers.table import ScoringSettings

    chosen = ScorerBiasSettings.for_call("scorer_bias", **settings)
    scored, variants, groups = rescored(
        continuations,
        scoring=ScoringSettings.defaults(scorer=scorer),
        axis=axis,
        lexicon_path=lexicon or resolve(default("scoring.identity_lexicon")),
        cache_dir=None,
    )
    return scorer_bias_tables(scored, variants, groups, chosen)
