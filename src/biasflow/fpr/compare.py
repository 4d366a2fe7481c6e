"""``biasflow compare --method fpr``: are the candidate system's FPR gaps smaller than the baseline's? (§3.8)

The model builder's question on one probe set's predictions: the rows of the comparison
table for the two systems (docs/methods.md §3.8), turned to read "candidate − baseline",
and per attribute and class one sentence on the gap span and one naming the groups whose
gaps differ after Holm's correction over the pair's tests.
"""

from __future__ import annotations

from typing import Mapping, Sequence

import pandas as pd

from biasflow.errors import BiasflowError
from biasflow.fpr.comparisons import FAMILY, FPR_COMPARISON_COLUMNS, comparison_table
from biasflow.fpr.predictions import check_unique, read_predictions
from biasflow.multiplicity import adjust
from biasflow.schema import default
from biasflow.verdicts import ALPHA, judged


def command(paths: Sequence[str | pd.DataFrame], baseline: str, candidate: str,
            config: Mapping | None) -> tuple[pd.DataFrame, list[str]]:
    """What ``biasflow compare --method fpr`` prints and writes: the pair's rows and its sentences.

    ``config`` (a validated config, or None for the schema's defaults) gives the bootstrap
    and swap draws (``fpr.bootstrap``, ``fpr.null_draws``), ``fpr.seed`` and
    ``power.min_effect.fpr``, the difference worth detecting.
    """
    fpr = config["fpr"] if config is not None else {key: default(f"fpr.{key}")
                                                     for key in ("bootstrap", "null_draws", "seed")}
    min_effect = config["power"]["min_effect"]["fpr"] if config is not None else default("power.min_effect.fpr")
    rows = compare(paths, baseline, candidate, fpr["bootstrap"], fpr["null_draws"], fpr["seed"])
    return rows, sentences(rows, min_effect)


def compare(paths: Sequence[str | pd.DataFrame], baseline: str, candidate: str, draws: int, swaps: int,
            seed: int) -> pd.DataFrame:
    """The comparison rows of ``candidate`` against ``baseline``, adjusted over the pair's own tests."""
    if baseline == candidate:
        raise BiasflowError(f"--baseline and --candidate are both {baseline!r}; name two different systems.")
    preds = read_predictions(list(paths))
    check_unique(preds)
    systems = sorted(preds["model"].unique())
    for flag, system in (("--baseline", baseline), ("--candidate", candidate)):
        if system not in systems:
            raise BiasflowError(f"{flag} {system!r} is not in the predictions; their systems (the model column, or "
                                f"else the file name): {', '.join(systems)}.")
    if "template_id" not in preds:
        raise BiasflowError("the predictions have no template_id column, so nothing pairs the two systems' sentences "
                            "(docs/methods.md §3.8); add the template of each sentence, as the workflow writes it.")
    rows = comparison_table(preds, draws, swaps, seed, pairs=[(candidate, baseline)])
    if not (rows["n_templates"] > 0).any():
        raise BiasflowError(f"{candidate} and {baseline} share no template of any attribute in the predictions: "
                            "they did not classify the same probe set, so there is nothing to compare them on.")
    return adjust(rows.drop(columns=["p_holm", "p_bh"]), FAMILY)[FPR_COMPARISON_COLUMNS]


def sentences(rows: pd.DataFrame, min_effect: float) -> list[str]:
    """Per attribute and class: the gap span's difference, then the groups whose gaps differ after Holm's correction."""
    lines = []
    for (category, name), part in rows.groupby(["category", "class"], sort=True):
        span = part[part["measure"] == "span"].iloc[0]
        where = (f"{category}, {name} FPR gap span ({span.n_templates} shared templates, {span.n_runs_a} and "
                 f"{span.n_runs_b} runs)")
        word, words = judged(span.difference, span.difference_lo, span.difference_hi, span.p, min_effect, "fpr",
                             "the bootstrap draws do not vary (docs/methods.md §3.8)")
        if word:
            lines.append(f"{where}: candidate {span.model_a}'s is {abs(span.difference):.4f} {word} than baseline "
                         f"{span.model_b}'s ({words})")
        else:
            lines.append(f"{where}: no difference detectable between candidate {span.model_a} and baseline "
                         f"{span.model_b}: {span.difference:+.4f}, {words} (paired p = {span.p:.3g})")
        gaps = part[part["measure"] == "gap"]
        found = gaps[gaps["p_holm"] <= ALPHA]
        if len(found):
            named = "; ".join(f"{row.group} {row.difference:+.4f} (95% interval {row.difference_lo:+.4f} to "
                              f"{row.difference_hi:+.4f}, Holm p = {row.p_holm:.3g})" for row in found.itertuples())
            lines.append(f"{category}, {name} FPR gaps, candidate less baseline, where they differ: {named}")
        else:
            lines.append(f"{category}, {name} FPR gaps: no group's gap differs detectably between candidate "
                         f"{span.model_a} and baseline {span.model_b} (Holm over the pair's "
                         f"{int(rows.loc[rows['measure'] == 'gap', 'p'].notna().sum())} gap tests)")
    return lines
