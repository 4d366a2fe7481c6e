"""Markedness: each group's FPR against the same templates with the identity word dropped.

Beyond the papers (docs/methods.md §3.5): paper 004 explains the White-group anomaly by
markedness (identity terms usually left unsaid read as unusual); comparing each group
with the unmarked sentence measures that directly.
"""

from __future__ import annotations

import logging

import pandas as pd

from biasflow.errors import BiasflowError
from biasflow.fpr.predictions import UNMARKED
from biasflow.fpr.rates import CLASSES, RUN_KEYS, group_fpr, over_runs, quantile

log = logging.getLogger("biasflow")

MARKEDNESS_COLUMNS = [
    "model",
    "category",
    "group",
    "negative_markedness",
    "negative_markedness_width",
    "negative_markedness_p",
    "positive_markedness",
    "positive_markedness_width",
    "positive_markedness_p",
    "n_runs",
    "interval",
]


def markedness(preds: pd.DataFrame, interval: str, z: float) -> pd.DataFrame:
    """Per (model, category, group): ``FPR_c(X) − FPR_c(UNMARKED)`` per run, over runs.

    Paper 004 explains the White-group anomaly by markedness: identity terms that are
    usually left unsaid read as unusual. Comparing each group with the same templates
    with the identity slot dropped measures that directly (docs/methods.md §3.5, beyond the
    papers). Pass the predictions of the templates that have an unmarked variant. Runs that
    all agree give no width and no p, as gaps do (§3.3).
    """
    quantile(interval, z, 2)
    g = group_fpr(preds)
    unmarked = g[g["group"] == UNMARKED]
    marked = g[g["group"] != UNMARKED]
    have = set(map(tuple, unmarked[RUN_KEYS].to_numpy().tolist()))
    for key in marked[RUN_KEYS].drop_duplicates().itertuples(index=False):
        if tuple(key) not in have:
            raise BiasflowError(
                f"model {key.model}, run {key.run_id}, category {key.category}: no {UNMARKED} rows, so "
                f"markedness has no reference; classify the templates with the identity slot dropped "
                f"(group {UNMARKED!r})."
            )
    ref = unmarked[RUN_KEYS + ["negative_FPR", "positive_FPR"]]
    merged = marked.merge(ref, on=RUN_KEYS, suffixes=("", "_unmarked"))
    for n in CLASSES:
        merged[f"{n}_markedness"] = merged[f"{n}_FPR"] - merged[f"{n}_FPR_unmarked"]
    return over_runs(
        merged,
        ["model", "category", "group"],
        {f"{n}_markedness": f"{n}_markedness" for n in CLASSES},
        interval,
        z,
    )


def markedness_table(preds: pd.DataFrame, interval: str, z: float) -> pd.DataFrame:
    """Markedness on the templates that have an unmarked variant, per probe file's categories.

    Only templates whose identity slot could be dropped are compared, so each group's FPR
    and the unmarked FPR come from the same sentences but for the identity word.
    """
    if "template_id" in preds.columns:
        droppable = set(preds.loc[preds["group"] == UNMARKED, "template_id"])
        preds = preds[preds["template_id"].isin(droppable)]
    categories = set(preds.loc[preds["group"] == UNMARKED, "category"])
    preds = preds[preds["category"].isin(categories)]
    if preds.empty:
        log.warning("no probe set has unmarked template variants; markedness table is empty")
        return pd.DataFrame(columns=MARKEDNESS_COLUMNS)
    return markedness(preds, interval=interval, z=z)
