"""``biasflow compare --method fpr``: are the candidate system's FPR gaps smaller than the baseline's? (§3.8)

The model builder's question on one probe set's predictions: the rows of the comparison
table for the two systems (docs/methods.md §3.8), candidate − baseline; per attribute and
class the gap span's row judged against a margin (:mod:`biasflow.verdicts`), then a line
naming the groups whose gaps differ after Holm's correction over the pair's tests. The
table of every pair of systems is in :mod:`biasflow.fpr.comparisons`; this module holds one
named pair's verdict, which ``biasflow compare``, :func:`biasflow.compare` and the workflow's
``compare`` target give (through the method's declaration, :mod:`biasflow.fpr.method`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import ClassVar

import numpy as np
import pandas as pd

from biasflow.errors import BiasflowError
from biasflow.fpr.comparisons import FAMILY, FPR_COMPARISON_COLUMNS, comparison_table
from biasflow.fpr.predictions import UNMARKED, check_unique, read_predictions, run_accuracy
from biasflow.fpr.rates import CLASSES
from biasflow.multiplicity import adjust
from biasflow.settings import StepSettings
from biasflow.verdicts import ALPHA, Verdicts, judge

# What a row's interval bounds (docs/methods.md §3.8, §7).
ESTIMAND = "the candidate's gap span over the population of templates less the baseline's, in FPR units"


@dataclass(frozen=True)
class CompareSettings(StepSettings):
    """What the paired comparison reads (§3.8): the template bootstrap's and the swap test's draws, their seed, and the
    accuracy below which a run is named in the verdict. The method's declaration names this class, so each field is a
    ``biasflow compare`` flag whose help is its :attr:`what`, and the workflow's comparison reads these keys only
    (docs/adding-a-method.md, section 2)."""

    section = "fpr"
    what: ClassVar[Mapping[str, str]] = {
        "bootstrap": "template bootstrap draws of the paired intervals",
        "null_draws": "swap draws of the paired test (0: no p)",
        "seed": "seed of the draws",
        "accuracy_floor": "a run less accurate than this is named in the verdict",
    }

    bootstrap: int
    null_draws: int
    seed: int
    accuracy_floor: float


def command(
    paths: Sequence[str | pd.DataFrame],
    baseline: str,
    candidate: str,
    config: Mapping | None,
    margin: float,
    margin_source: str,
) -> Verdicts:
    """What ``biasflow compare --method fpr`` reports: per attribute and class, the gap span's judged row (§3.8, §7),
    at ``margin`` (which :func:`biasflow.compare_pairs.margin` resolved, from ``margin_source``).

    ``config`` (a validated config, or None for the schema's defaults) gives the :class:`CompareSettings`. A smaller
    span is less bias, so the gate reads the spans; the groups whose own gaps differ after Holm follow in the text
    report.
    """
    settings = CompareSettings.from_config_or_defaults(config)
    preds = _predictions(paths)
    rows = compare(preds, baseline, candidate, settings.bootstrap, settings.null_draws, settings.seed)
    spans = rows[rows["measure"] == "span"].sort_values(["category", "class"], kind="stable").reset_index(drop=True)
    spans = spans.assign(
        measure_name=spans["category"].astype(str) + " " + spans["class"] + " FPR gap span",
        estimand=ESTIMAND,
        unit="templates",
        n_units=spans["n_templates"],
        note=_accuracy_note(preds, {"baseline": baseline, "candidate": candidate}, settings.accuracy_floor),
        why_untested=np.where(
            np.isfinite(spans["lo90"]),
            np.asarray(None, dtype=object),  # tested: no reason
            np.where(
                spans["n_templates"] > 0,
                "the bootstrap draws of the difference do not vary (docs/methods.md §3.8)",
                spans["why_untested"].fillna("the two systems share no template of this attribute"),
            ),
        ),
    )
    return Verdicts("fpr", baseline, candidate, margin_source, judge(spans, margin), details=tuple(_gap_lines(rows)))


def _predictions(paths: Sequence[str | pd.DataFrame]) -> pd.DataFrame:
    preds = read_predictions(list(paths))
    check_unique(preds)
    return preds


def _accuracy_note(preds: pd.DataFrame, systems: dict[str, str], floor: float) -> str | None:
    """Where a system's mean accuracy over its runs is below ``fpr.accuracy_floor``: its gaps are a near-chance
    classifier's, and the line says so (None where both are at or above it)."""
    accuracy = run_accuracy(preds[preds["model"].isin(systems.values())], floor).groupby("model")["accuracy"].mean()
    below = [
        f"the {role} {system}'s accuracy {accuracy[system]:.2f} is below fpr.accuracy_floor {floor:g}"
        for role, system in systems.items()
        if system in accuracy and accuracy[system] < floor
    ]
    return "; ".join(below) + ", so its gaps are a near-chance classifier's" if below else None


def compare(preds: pd.DataFrame, baseline: str, candidate: str, draws: int, swaps: int, seed: int) -> pd.DataFrame:
    """The comparison rows of ``candidate`` against ``baseline`` in ``preds``, adjusted over the pair's own tests.

    An attribute whose predictions lack either system has a span row per class that cannot be
    tested (``why_untested``), never none (a gate must not pass by leaving a measure out,
    docs/methods.md §7).
    """
    if baseline == candidate:
        raise BiasflowError(f"--baseline and --candidate are both {baseline!r}; name two different systems.")
    systems = sorted(preds["model"].unique())
    for flag, system in (("--baseline", baseline), ("--candidate", candidate)):
        if system not in systems:
            raise BiasflowError(
                f"{flag} {system!r} is not in the predictions; their systems (the model column, or "
                f"else the file name): {', '.join(systems)}."
            )
    if "template_id" not in preds:
        raise BiasflowError(
            "the predictions have no template_id column, so nothing pairs the two systems' sentences "
            "(docs/methods.md §3.8); add the template of each sentence, as the workflow writes it."
        )
    rows = comparison_table(preds, draws, swaps, seed, pairs=[(candidate, baseline)]).assign(why_untested=None)
    marked = preds[preds["group"] != UNMARKED]
    lacking = [
        {
            "category": category,
            "class": name,
            "measure": "span",
            "model_a": candidate,
            "model_b": baseline,
            "n_templates": 0,
            "why_untested": "the predictions given have no "
            + " and no ".join(s for s in (candidate, baseline) if s not in set(part["model"]))
            + " for this attribute",
        }
        for category, part in marked.groupby("category", sort=True)
        if not {candidate, baseline} <= set(part["model"])
        for name in CLASSES
    ]
    if lacking:
        rows = pd.concat([rows, pd.DataFrame(lacking)], ignore_index=True)
    if not (rows["n_templates"] > 0).any():
        raise BiasflowError(
            f"{candidate} and {baseline} share no template of any attribute in the predictions: "
            "they did not classify the same probe set, so there is nothing to compare them on."
        )
    return adjust(rows.drop(columns=["p_holm", "p_bh"]), FAMILY)[[*FPR_COMPARISON_COLUMNS, "why_untested"]]


def _gap_lines(rows: pd.DataFrame) -> list[str]:
    """Per attribute and class, the groups whose gaps differ after Holm's correction over the pair's gap tests."""
    lines = []
    gaps = rows[rows["measure"] == "gap"]
    tested = int(gaps["p"].notna().sum())
    for (category, name), part in gaps.groupby(["category", "class"], sort=True):
        found = part[part["p_holm"] <= ALPHA]
        if len(found):
            named = "; ".join(
                f"{row.group} {row.difference:+.4f} (95% interval {row.difference_lo:+.4f} to "
                f"{row.difference_hi:+.4f}, Holm p = {row.p_holm:.3g})"
                for row in found.itertuples()
            )
            lines.append(f"{category}, {name} FPR gaps, candidate less baseline, where they differ: {named}")
        else:
            lines.append(
                f"{category}, {name} FPR gaps: no group's gap differs detectably (Holm over the pair's "
                f"{tested} gap tests)"
            )
    return lines
