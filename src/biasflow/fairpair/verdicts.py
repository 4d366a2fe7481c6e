"""``biasflow compare --method fairpair``: is the candidate's excess R lower than the baseline's? (docs/methods.md §2.9)

The model builder's question on FairPair's per-prompt scores (``results/fairpair/<model>.csv``,
each file's stem naming its model): the pair's rows of the comparison table, with
model_a the candidate, judged against a margin (:mod:`biasflow.verdicts`), one per dissimilarity.
The table of every pair of models is in :mod:`biasflow.fairpair.comparisons`; this module holds
one named pair's verdict, which ``biasflow compare``, :func:`biasflow.compare` and the
workflow's ``compare`` target give (through the method's declaration, :mod:`biasflow.fairpair.method`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from biasflow.errors import BiasflowError
from biasflow.fairpair.checks import check_null, scores_by_model
from biasflow.fairpair.comparisons import ComparisonSettings, comparison_table
from biasflow.fairpair.power import with_plan_inputs
from biasflow.schema import choices
from biasflow.verdicts import Verdicts, judge

# What a row's interval bounds (docs/methods.md §2.9, §7).
ESTIMAND = "the candidate's excess R over the population of prompts less the baseline's"


def command(
    paths: Sequence[str | pd.DataFrame],
    baseline: str,
    candidate: str,
    config: Mapping | None,
    margin: float,
    margin_source: str,
) -> Verdicts:
    """What ``biasflow compare --method fairpair`` reports: one judged row per dissimilarity (docs/methods.md §2.9, §7),
    at ``margin`` (which :func:`biasflow.compare_pairs.margin` resolved, from ``margin_source``).

    ``config`` (a validated config, or None for the schema's defaults) gives the swap draws and their seed
    (:class:`~biasflow.fairpair.comparisons.ComparisonSettings`).
    """
    settings = ComparisonSettings.from_config_or_defaults(config)
    rows = compare(paths, baseline, candidate, settings.null_draws, settings.seed)
    rows = rows.assign(
        measure_name=rows["dissimilarity"] + " excess R",
        estimand=ESTIMAND,
        unit="prompts",
        n_units=rows["n_prompts"],
        note=None,
        why_untested=np.where(
            np.isfinite(rows["lo90"]),
            np.asarray(None, dtype=object),  # tested: no reason
            rows["why_untested"].fillna(
                "fewer than 2 prompts both models tested, or no spread between them (docs/methods.md §2.9)"
            ),
        ),
    )
    return Verdicts("fairpair", baseline, candidate, margin_source, judge(rows, margin))


def compare(paths: Sequence[str | pd.DataFrame], baseline: str, candidate: str, swaps: int, seed: int) -> pd.DataFrame:
    """The comparison rows of ``candidate`` (model_a) against ``baseline`` (model_b), with what the gate's plan reads
    (:func:`biasflow.fairpair.power.with_plan_inputs`) and ``why_untested``.

    A dissimilarity that only one of the two models' scores hold is a row that cannot be
    tested, never left out (a gate must not pass by leaving a measure out, docs/methods.md §7).

    ``paths``: each model's per-prompt scores, a file named after its model or a DataFrame
    with a ``model`` column (:func:`biasflow.fairpair.checks.scores_by_model`).
    """
    if baseline == candidate:
        raise BiasflowError(f"--baseline and --candidate are both {baseline!r}; name two different models.")
    models = scores_by_model((None if isinstance(path, pd.DataFrame) else Path(path).stem, path) for path in paths)
    for flag, model in (("--baseline", baseline), ("--candidate", candidate)):
        if model not in models:
            raise BiasflowError(
                f"{flag} {model!r} is not among the score files, whose names are the models: "
                f"{', '.join(sorted(models))}; give results/fairpair/{model}.csv too."
            )
    for model in (candidate, baseline):
        check_null(models[model], model, "the comparison")
    scores = pd.concat([models[model].assign(model=model) for model in (candidate, baseline)], ignore_index=True)
    rows = with_plan_inputs(comparison_table(scores, swaps, seed, pairs=[(candidate, baseline)]), scores)
    given = [d for d in choices("fairpair.dissimilarities") if d in set(scores["dissimilarity"])]
    lacking = [
        {
            "dissimilarity": name,
            "model_a": candidate,
            "model_b": baseline,
            "n_prompts": 0,
            "why_untested": "the scores given have no "
            + " and no ".join(m for m in (candidate, baseline) if name not in set(models[m]["dissimilarity"]))
            + " for this dissimilarity",
        }
        for name in given
        if name not in set(rows["dissimilarity"])
    ]
    rows = (
        pd.concat([rows.assign(why_untested=None), pd.DataFrame(lacking)], ignore_index=True)
        if lacking
        else (rows.assign(why_untested=None))
    )
    rows = rows.set_index("dissimilarity").loc[given].reset_index()  # in the method's order, as the table's
    if not (rows["n_prompts"] > 0).any():
        raise BiasflowError(
            f"{candidate} and {baseline} share no tested prompt (one whose R re-splitting moves) in "
            "any dissimilarity: they did not continue the same prompts, so there is nothing to "
            "compare them on."
        )
    return rows
