"""The power planner of FPR gaps: how large a gap each group's sentences can show (docs/methods.md §6.2).

A group's gap is its false-positive rate against the other groups'. Its planner is the
two-proportion design: a group's sentences whose gold label is not the class, against the
other groups' together, at the other groups' rate. Runs classify the same sentences again,
so a sentence counts once however many runs there are: more runs narrow the interval over
runs, not what the written sentences can show. Per pair of systems that classified the
same probe set, the paired comparison of each group's gap (§6.6): the swap test's design
over the templates both classified; and the release gate's design (§6.8): per attribute and
class, the templates at which ``biasflow compare`` shows a candidate whose gap span truly
equals the baseline's ``not worse`` at the margin, from the comparison's own interval on the
pilot.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import ClassVar

import pandas as pd

from biasflow.fpr.comparisons import category_systems, comparison_table
from biasflow.fpr.predictions import UNMARKED, check_unique, read_predictions
from biasflow.fpr.rates import CLASSES
from biasflow.fpr.variance import contributions
from biasflow.fpr.verdicts import CompareSettings
from biasflow.power import (
    PowerSettings,
    noninferiority_row,
    planned,
    proportions_mdd,
    proportions_needed,
    swap_mdd,
    swap_needed,
)


@dataclass(frozen=True)
class Settings(PowerSettings):
    """``power.alpha``, ``power.power``, ``power.min_effect.fpr`` (an FPR difference, and the gate's margin), and what
    ``biasflow compare`` reads for its interval (``fpr.bootstrap``, ``fpr.seed``), so the gate's rows plan from the
    very interval the verdict reads (§6.8)."""

    keys: ClassVar[Mapping[str, str | None]] = {
        **PowerSettings.keys,
        "min_effect": "power.min_effect.fpr",
        **CompareSettings.keys_for("bootstrap", "seed"),
    }

    bootstrap: int
    seed: int


def plan(sources: Mapping[str, Sequence[str]], settings: Settings) -> pd.DataFrame:
    """Per probe set (a source), model, category, class and group: the smallest FPR rise it detects, and n needed."""
    rows = []
    for probe, paths in sources.items():
        preds = read_predictions(list(paths))
        check_unique(preds)
        settings.pairs.check(preds["model"].astype(str).unique(), f"the predictions of {probe}")
        rows += (
            group_rows(preds, probe, settings)
            + pair_rows(preds, probe, settings)
            + noninferiority_rows(preds, probe, settings)
        )
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
            for group, (_, size) in false_positive.iterrows():
                others = false_positive.drop(index=group)
                n, n_other = size / runs, others["size"].sum() / runs
                p0 = others["sum"].sum() / others["size"].sum() if len(others) else float("nan")
                rows.append(
                    {
                        "model": model,
                        "scope": f"{probe} {category}",
                        "subgroup": group,
                        "measure": f"{name} FPR",
                        "unit": "sentences",
                        "n": n,
                        "n_other": n_other,
                        "n_effective": n,
                        "baseline": p0,
                        "sd": (p0 * (1 - p0)) ** 0.5,
                        "mdd": proportions_mdd(p0, n, n_other, settings.alpha, settings.power),
                        "target": settings.min_effect,
                        "n_needed": proportions_needed(
                            p0, settings.min_effect, n_other / n, settings.alpha, settings.power
                        ),
                    }
                )
    return rows


def pair_rows(preds: pd.DataFrame, probe: str, settings: Settings) -> list[dict]:
    """Per pair of systems (those ``settings.pairs`` chooses), category, class and group: the smallest difference of
    gaps the paired comparison detects.

    Over the T templates both systems classified, A's gap less B's is, to first order, the
    mean over templates of d_t = ȳ_A,t − ȳ_B,t, each system's contribution of template t to
    the gap averaged over its runs (:func:`biasflow.fpr.variance.contributions`; docs/methods.md
    §3.9), so the planner takes the swap test's design on the mean of d_t with one template's
    spread sd(d_t) (:func:`biasflow.power.swap_mdd`: the effect widens the swap test's null);
    ``n`` and ``n_needed`` count templates, at the pilot's runs (§6.6). Needs ``template_id``.
    """
    rows: list[dict] = []
    marked = preds[preds["group"] != UNMARKED]
    if "template_id" not in marked:
        return rows
    for category, part in marked.groupby("category", sort=True):
        _, groups, systems = category_systems(part, category, 0, 0)
        per_template = {
            model: {name: contributions(*counts).mean(axis=0) for name, counts in system.counts.items()}
            for model, system in systems.items()
        }
        for a, b in settings.pairs.of(systems):
            shared = systems[a].present & systems[b].present
            n = int(shared.sum())
            for name in CLASSES:
                differences = (per_template[a][name] - per_template[b][name])[shared]
                for g, group in enumerate(groups):
                    sd = float(differences[:, g].std(ddof=1)) if n > 1 else math.nan
                    sd = sd if sd > 0 else math.nan
                    rows.append(
                        {
                            "model": f"{a} vs {b}",
                            "scope": f"{probe} {category}",
                            "subgroup": group,
                            "measure": f"paired {name} FPR gap difference",
                            "unit": "templates",
                            "n": n,
                            "n_other": math.nan,
                            "n_effective": n,
                            "baseline": 0.0,
                            "sd": sd,
                            "mdd": swap_mdd(sd, n, settings.alpha, settings.power),
                            "target": settings.min_effect,
                            "n_needed": swap_needed(sd, settings.min_effect, settings.alpha, settings.power),
                        }
                    )
    return rows


def noninferiority_rows(preds: pd.DataFrame, probe: str, settings: Settings) -> list[dict]:
    """Per pair of systems (those ``settings.pairs`` chooses; the first the candidate), attribute and class: the
    release gate's design (§6.8) from the gap span's interval ``biasflow compare`` reads on the pilot.

    The comparison table's span rows (:func:`biasflow.fpr.comparisons.comparison_table`, with
    ``fpr.bootstrap`` draws seeded by ``fpr.seed`` and no swap draws: the gate reads no p) give
    ``lo90``-``hi90`` over the templates both systems classified, the ones an ``inconclusive``
    verdict on the pilot quotes its units from. Needs ``template_id``, as the comparison does.
    """
    pairs = settings.pairs.of(sorted(preds["model"].astype(str).unique()))
    if "template_id" not in preds or not pairs:
        return []
    spans = comparison_table(preds, settings.bootstrap, 0, settings.seed, pairs=pairs).query("measure == 'span'")
    return [
        noninferiority_row(
            model=f"{row['model_a']} vs {row['model_b']}",
            scope=f"{probe} {row['category']}",
            subgroup="",
            what=f"{row['class']} FPR gap span",
            unit="templates",
            n=row["n_templates"],
            lo90=row["lo90"],
            hi90=row["hi90"],
            settings=settings,
            difference=row["difference"],
        )
        for row in spans.to_dict("records")
    ]
