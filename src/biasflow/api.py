"""The public Python API: what a notebook calls, re-exported as ``biasflow.<name>``.

The core's own functions are here (scoring a table, comparing two models, planning a
study); each method adds its own through its declaration's ``api`` (:mod:`biasflow.methods`),
so ``biasflow.fpr_gaps`` is found without the core naming a method. Every function takes
and returns pandas tables, takes the workflow's settings as keywords (each defaulting to
the config schema's default), and says in its docstring what it computes, with an example
that runs as a doctest (``tests/core/test_api.py``).
"""

from __future__ import annotations

from typing import Mapping, NamedTuple, Sequence

import pandas as pd

from biasflow.methods import method, methods

# The core's public functions; the methods' come from their declarations.
CORE = ("score", "compare", "plan_power")


def score(table: pd.DataFrame, scorer: str | None = None, *, score_text: str | None = None,
          batch_size: int | None = None, **options) -> pd.DataFrame:
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
    from biasflow.scorers.table import ScoringSettings, score_table

    settings = ScoringSettings.defaults(**options, scorer=scorer, score_text=score_text, batch_size=batch_size)
    return score_table(table, settings, cache_dir=None)


class Comparison(NamedTuple):
    """A paired comparison: its rows (the workflow's comparison table) and one sentence per result."""

    rows: pd.DataFrame
    verdicts: list[str]


def compare(method_name: str, files: Sequence[str], baseline: str, candidate: str,
            config: Mapping | None = None) -> Comparison:
    """Is the candidate less biased than the baseline? The paired comparison ``biasflow compare`` makes.

    Parameters
    ----------
    method_name : str
        ``cairo``, ``fairpair`` or ``fpr`` (any registered method).
    files : sequence of str
        The method's files as the workflow writes them: CAIRO statistics
        (``results/cairo/stats/<axis>.parquet``), FairPair per-prompt scores
        (``results/fairpair/<model>.csv``, the file name being the model) or one probe set's
        FPR predictions (``results/fpr/<probe>/<model>/<classifier>.tsv``).
    baseline, candidate : str
        The two models (FPR: systems, ``<model>/<classifier>``) compared; the difference is the candidate's less
        the baseline's.
    config : mapping, optional
        A validated config whose settings the comparison uses (default: the schema's defaults).

    Returns
    -------
    Comparison
        ``rows``: the comparison table (docs/tables.md); ``verdicts``: one sentence per metric,
        dissimilarity or gap, saying whether the candidate is separated from the baseline.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> import numpy as np, pandas as pd
    >>> import biasflow
    >>> folder = Path(tempfile.mkdtemp())
    >>> rng = np.random.default_rng(0)
    >>> words = ["the nurse was kind", "the nurse was rude"]
    >>> for model, rude in (("before", 0.8), ("after", 0.5)):  # how often the swapped side turns rude
    ...     sides = pd.DataFrame([(f"p{p}", side, s, rng.choice(words, p=[1 - r, r])) for p in range(12)
    ...                           for side, r in (("perturbed_original", 0.5), ("counterfactual", rude))
    ...                           for s in range(6)], columns=["prompt_id", "side", "sample", "text"])
    ...     biasflow.fairpair_scores(sides, null_draws=200).to_csv(folder / f"{model}.csv", index=False)
    >>> result = biasflow.compare("fairpair", [str(folder / "before.csv"), str(folder / "after.csv")],
    ...                           baseline="before", candidate="after")
    >>> result.rows[["dissimilarity", "model_a", "model_b", "difference", "p"]].round(3)
      dissimilarity model_a model_b  difference      p
    0       jaccard   after  before      -0.037  0.587
    1     sentiment   after  before      -0.037  0.591
    >>> result.verdicts[0][:89]
    'jaccard (12 prompts both models tested): no difference detectable between candidate after'
    """
    rows, verdicts = method(method_name).part("compare").command(list(files), baseline, candidate, config)
    return Comparison(rows, verdicts)


def plan_power(method_name: str, pilot: Mapping[str, Sequence[str]], **settings) -> pd.DataFrame:
    """How large a difference a pilot's sizes can show, and the sizes a difference needs (docs/methods.md §6).

    Parameters
    ----------
    method_name : str
        ``cairo``, ``fairpair`` or ``fpr`` (any registered method).
    pilot : mapping of str to sequence of str
        Each source's name and files, as the workflow's power step reads them: CAIRO
        statistics per axis, FairPair per-prompt scores per model, FPR predictions per probe set.
    **settings
        ``alpha``, ``power`` and ``min_effect`` (the difference worth detecting, in the
        method's unit); CAIRO also ``min_r``. Each defaults to the config's ``power`` section.

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
    return module.plan({name: list(files) for name, files in pilot.items()}, module.Settings.defaults(**settings))


def public(name: str):
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
