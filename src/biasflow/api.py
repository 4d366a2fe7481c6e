"""The public Python API: what a notebook calls, re-exported as ``biasflow.<name>``.

The core's own functions are here (scoring a table, comparing two models, planning a
study); each method adds its own through its declaration's ``api`` (:mod:`biasflow.methods`),
so ``biasflow.fpr_gaps`` is found without the core naming a method. Every function takes
and returns pandas tables, takes the workflow's settings as keywords (each defaulting to
the config schema's default), and says in its docstring what it computes, with an example
that runs as a doctest (``tests/core/test_api.py``).
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, TypeAlias

import pandas as pd

from biasflow.errors import BiasflowError, check_keywords
from biasflow.methods import method, methods
from biasflow.verdicts import Verdicts

# The core's public functions; the methods' come from their declarations.
CORE = ("score", "compare", "plan_power")
# A table as compare and plan_power take it: a DataFrame a notebook holds, or the path of a file the workflow wrote.
Table: TypeAlias = pd.DataFrame | str | os.PathLike[str]
# What those two functions accept for their tables, in words.
ACCEPTED = "a pandas DataFrame, a path (str or os.PathLike), or a list of them"


def score(
    table: pd.DataFrame,
    scorer: str | None = None,
    *,
    score_text: str | None = None,
    batch_size: int | None = None,
    **options: Any,
) -> pd.DataFrame:
    """Score every row's continuation, as the workflow's score step does.

    Parameters
    ----------
    table : pandas.DataFrame
        One row per continuation, its text in ``continuation`` (and the prompt in ``text``
        where ``score_text`` is ``prompt+continuation``); every other column is kept.
    scorer : str, optional
        ``profanity`` (offline toxicity proxy), ``detoxify-unbiased`` (the CAIRO paper's
        classifier), ``vader`` (sentiment) or ``honest`` (HurtLex; give ``lexicon=``);
        default: the config's ``scoring.scorer``.
    score_text : str, optional
        ``continuation``, or ``prompt+continuation`` (lower-cased, as the CAIRO reference code
        scored); default: the config's ``scoring.score_text``.
    batch_size : int, optional
        Texts per batch (default: sized for the scorer and device).
    **options
        The scorer's own settings, as the config's ``scoring`` section names them
        (``lexicon``, ``lowercase``, ``device``, ``checkpoint``, ``huggingface_config``).

    Returns
    -------
    pandas.DataFrame
        ``table`` with ``score`` added (and ``category`` for ``honest``).

    Examples
    --------
    >>> import pandas as pd
    >>> import biasflow
    >>> mine = pd.DataFrame({"model": ["m1", "m1"], "continuation": ["was kind to everyone.", "is a damn idiot."]})
    >>> biasflow.score(mine, "profanity")[["continuation", "score"]].round(2)
                continuation  score
    0  was kind to everyone.   0.03
    1       is a damn idiot.   1.00
    """
    from biasflow.scorers import SCORERS, scorer_class
    from biasflow.scorers.table import ScoringSettings, score_table

    check_keywords(
        "score",
        options,
        dict.fromkeys(
            [
                "scorer",
                "score_text",
                "batch_size",
                *(option for name in SCORERS for option in scorer_class(name).options),
            ]
        ),
    )
    settings = ScoringSettings.defaults(**options, scorer=scorer, score_text=score_text, batch_size=batch_size)
    return score_table(table, settings, cache_dir=None)


def compare(
    method_name: str,
    files: Table | Sequence[Table],
    baseline: str,
    candidate: str,
    config: Mapping[str, Any] | None = None,
    *,
    margin: float | None = None,
) -> Verdicts:
    """Did the candidate get worse than the baseline? The paired verdicts of ``biasflow compare`` (docs/methods.md §7).

    Parameters
    ----------
    method_name : str
        ``cairo``, ``fairpair`` or ``fpr`` (any registered method).
    files : pandas.DataFrame, path, or sequence of them
        The method's tables, each a DataFrame or the path of a file as the workflow writes it:
        CAIRO statistics (``results/cairo/stats/<axis>.parquet``), FairPair per-prompt scores
        (``results/fairpair/<model>.csv``, the file name being the model; a DataFrame names
        each row's model in a ``model`` column) or one probe set's FPR predictions
        (``results/fpr/<probe>/<model>/<classifier>.tsv``).
    baseline, candidate : str
        The two models (FPR: systems, ``<model>/<classifier>``) compared; the difference is the candidate's less
        the baseline's.
    config : mapping, optional
        Any part of a config, as ``biasflow compare --config`` takes it: the sections given, over
        the schema's defaults (``{"selection": {"seed": 3}}``; default: the schema's defaults).
    margin : float, optional
        The largest rise of the candidate's bias that does not matter, in the method's unit
        (default: the config's ``power.min_effect.<method>``).

    Returns
    -------
    biasflow.verdicts.Verdicts
        ``rows``: one row per measure (CAIRO: axis and metric; FairPair: dissimilarity; FPR:
        attribute and class's gap span) with the candidate − baseline ``difference``, its 95%
        and 90% intervals and ``verdict`` against ``margin`` (docs/tables.md, "Verdicts");
        ``overall``: ``not worse``, ``worse`` or ``inconclusive``; ``report(fmt)``: the summary
        as text, markdown or JSON; ``exit_code(fail_on)``: the gate's status.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> import biasflow
    >>> rng = np.random.default_rng(0)
    >>> words = ["the nurse was kind", "the nurse was rude"]
    >>> tables = []
    >>> for model, rude in (("before", 0.8), ("after", 0.5)):  # how often the swapped side turns rude
    ...     sides = pd.DataFrame([(f"p{p}", side, s, rng.choice(words, p=[1 - r, r])) for p in range(12)
    ...                           for side, r in (("perturbed_original", 0.5), ("counterfactual", rude))
    ...                           for s in range(6)], columns=["prompt_id", "side", "sample", "text"])
    ...     tables.append(biasflow.fairpair_scores(sides, null_draws=200).assign(model=model))
    >>> result = biasflow.compare("fairpair", pd.concat(tables), baseline="before", candidate="after", margin=0.1)
    >>> result.rows[["dissimilarity", "difference", "lo90", "hi90", "verdict"]].round(3)
      dissimilarity  difference   lo90   hi90    verdict
    0       jaccard      -0.037 -0.168  0.094  not worse
    1     sentiment      -0.037 -0.168  0.094  not worse
    >>> result.overall
    'not worse'
    >>> result.lines()[1]
    'jaccard excess R: candidate after: not worse than before (upper bound +0.0937 < margin 0.1)'
    """
    if config is not None:
        from biasflow.config import settings_config

        config = settings_config(config)
    command = method(method_name).part("compare").command
    verdicts: Verdicts = command(as_tables(files, "compare", "files"), baseline, candidate, config, margin=margin)
    return verdicts


def plan_power(
    method_name: str, pilot: Table | Sequence[Table] | Mapping[str, Table | Sequence[Table]], **settings: Any
) -> pd.DataFrame:
    """How large a difference a pilot's sizes can show, and the sizes a difference needs (docs/methods.md §6).

    Parameters
    ----------
    method_name : str
        ``cairo``, ``fairpair`` or ``fpr`` (any registered method).
    pilot : mapping of str to tables, or tables
        Each source's name and tables (DataFrames or paths of files), as the workflow's power
        step reads them: CAIRO statistics per axis, FairPair per-prompt scores per model, FPR
        predictions per probe set. Tables given without names are named as ``biasflow power``
        names its files: a file by its name without the suffix, a DataFrame ``pilot`` (``pilot
        1``, ``pilot 2``, ... where there are several); a FairPair DataFrame with a ``model``
        column is split by it.
    **settings
        ``alpha``, ``power`` and ``min_effect`` (the difference worth detecting, in the
        method's unit, and the margin of the release gate's rows, §6.8); CAIRO also ``min_r``,
        ``normalise`` and, for the gate's rows, ``measure``, ``bootstrap``, ``null_draws`` and
        ``seed``; FPR ``bootstrap`` and ``seed``. Each defaults to the config's key (``power``,
        ``bias``, ``selection``, ``fpr``).

    Returns
    -------
    pandas.DataFrame
        The power table (docs/tables.md, "Power"): per subgroup or pair, ``mdd`` (the smallest
        difference detectable), ``n_needed`` for ``target`` and whether it is ``detectable``.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> import biasflow
    >>> sentences = biasflow.probe_sentences("race")
    >>> path = Path(tempfile.mkdtemp()) / "race.tsv"
    >>> sentences.assign(model="mine", run_id=0, y_pred=sentences["y_true"]).to_csv(path, sep="\\t", index=False)
    >>> plan = biasflow.plan_power("fpr", {"race": [str(path)]}, min_effect=0.1)
    >>> plan[["subgroup", "measure", "n", "mdd", "detectable"]].head(2).round(3)
      subgroup       measure     n    mdd  detectable
    0    Asian  negative FPR  20.0  0.118       False
    1    Black  negative FPR  40.0  0.080        True
    """
    from biasflow.power import planner

    module = planner(method_name)
    settings = module.Settings.for_call("plan_power", **settings)
    return module.plan(pilot_sources(pilot), settings)


def as_tables(value: object, function: str, parameter: str) -> list[Table]:
    """``value`` (one table or a sequence of them) as a list; a ``TypeError`` says what is accepted otherwise.

    A path given as a string is one table: iterating it would walk its characters.
    """
    single = (pd.DataFrame, str, os.PathLike)
    if isinstance(value, single):
        return [value]
    got = type(value).__name__
    if isinstance(value, Sequence) and not isinstance(value, bytes):
        wrong = next((item for item in value if not isinstance(item, single)), None)
        if wrong is None:
            if not value:
                raise BiasflowError(f"{function}(): {parameter} is empty; give {ACCEPTED}.")
            return list(value)
        got = f"a {got} holding a {type(wrong).__name__}"
    raise TypeError(f"{function}() {parameter}: expected {ACCEPTED}; got {got}.")


def pilot_sources(pilot: object) -> dict[str, list[Table]]:
    """The pilot's tables by source name (:func:`plan_power`): a mapping as given, else each table named as
    ``biasflow power`` names its files."""
    if isinstance(pilot, Mapping):
        return {str(name): as_tables(value, "plan_power", f"pilot[{name!r}]") for name, value in pilot.items()}
    given = as_tables(pilot, "plan_power", "pilot")
    frames = sum(isinstance(table, pd.DataFrame) for table in given)
    names, count = [], 0
    for table in given:
        if isinstance(table, pd.DataFrame):
            count += 1
            names.append("pilot" if frames == 1 else f"pilot {count}")
        else:
            names.append(Path(table).stem)
    repeated = sorted({name for name in names if names.count(name) > 1})
    if repeated:
        raise BiasflowError(
            f"plan_power(): two tables of the pilot are both named {repeated[0]!r} (a file by its "
            "name); give a mapping of source name to tables instead."
        )
    return {name: [table] for name, table in zip(names, given, strict=True)}


def public(name: str) -> Any:
    """The public function called ``name``: the core's, or a method's as its declaration names it."""
    if name in CORE:
        return globals()[name]
    for declared in methods():
        for reference in declared.api:
            if reference.rpartition(":")[2] == name:
                return declared.load(reference)
    raise AttributeError(f"module 'biasflow' has no attribute {name!r}")


def names() -> list[str]:
    """Every public function's name (nothing is imported)."""
    return [*CORE, *(reference.rpartition(":")[2] for declared in methods() for reference in declared.api)]
