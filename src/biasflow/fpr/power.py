"""The power planner of FPR gaps: how large a gap each group's sentences can show (docs/methods.md §6.2).

A group's gap is its false-positive rate against the other groups'. Its planner is the
two-proportion design: a group's sentences whose gold label is not the class, against the
other groups' together, at the other groups' rate. Runs classify the same sentences again,
so a sentence counts once however many runs there are: more runs narrow the interval over
runs, not what the written sentences can show.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping, Sequence

import pandas as pd

from biasflow.fpr.predictions import UNMARKED, check_unique, read_predictions
from biasflow.fpr.rates import CLASSES
from biasflow.power import PowerSettings, planned, proportions_mdd, proportions_needed


@dataclass(frozen=True)
class Settings(PowerSettings):
    """``power.alpha``, ``power.power`` and ``power.min_effect.fpr`` (an FPR difference)."""

    keys = {"min_effect": "power.min_effect.fpr"}


def plan(sources: Mapping[str, Sequence[str]], settings: Settings) -> pd.DataFrame:
    """Per probe set (a source), model, category, class and group: the smallest FPR rise it detects, and n needed."""
    rows = []
    for probe, paths in sources.items():
        preds = read_predictions(list(paths))
        check_unique(preds)
        rows += group_rows(preds, probe, settings)
    return planned(rows, "fpr", settings)


def group_rows(preds: pd.DataFrame, probe: str, settings: Settings) -> list[dict]:
    """The planner's rows of one probe set's predictions (unmarked sentences are not a group)."""
    rows = []
    preds = preds[preds["group"] != UNMARKED]
    for (model, category), part in preds.groupby(["model", "category"], sort=True):
        runs = part["run_id"].nunique()
        for name, c in CLASSES.items():
            counted = part[part["y_true"] != c]
            false_positive = (counted["y_pred"] == c).groupby(counted["group"]).agg(["sum", "size"])
            for group, (fp, size) in false_positive.iterrows():
                others = false_positive.drop(index=group)
                n, n_other = size / runs, others["size"].sum() / runs
                p0 = others["sum"].sum() / others["size"].sum() if len(others) else float("nan")
                rows.append({
                    "model": model, "scope": f"{probe} {category}", "subgroup": group, "measure": f"{name} FPR",
                    "unit": "sentences", "n": n, "n_other": n_other, "n_effective": n, "baseline": p0,
                    "sd": (p0 * (1 - p0)) ** 0.5,
                    "mdd": proportions_mdd(p0, n, n_other, settings.alpha, settings.power),
                    "target": settings.min_effect,
                    "n_needed": proportions_needed(p0, settings.min_effect, n_other / n, settings.alpha,
                                                   settings.power),
                })
    return rows
