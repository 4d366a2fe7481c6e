"""Group FPR gaps, gap spans and net significance (papers 002 and 004; docs/methods.md §3.3-3.4).

A probe sample is a template filled with an identity term; its gold label is the
template's label and its ``group`` is the term's group within an attribute
(``category``). From every run's predictions:

* the gap of each group's FPR to the *unweighted* mean over the attribute's groups in the
  same run, averaged over runs with a z (or t) half-width,
* gap spans (paper 004, Table 4) and net significance over models (paper 002, Table 1), the
  latter also after Holm and Benjamini-Hochberg correction for the number of gaps tested.

Labels are ternary: 0 negative, 1 neutral, 2 positive.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from biasflow.fpr.predictions import UNMARKED
from biasflow.fpr.rates import CLASSES, RUN_KEYS, group_fpr, over_runs, quantile
from biasflow.tables import require_columns

GAP_COLUMNS = [
    "model",
    "group",
    "negative_FPR_gap",
    "negative_FPR_gap_width",
    "negative_FPR_gap_p",
    "positive_FPR_gap",
    "positive_FPR_gap_width",
    "positive_FPR_gap_p",
]
# The level of the corrected counts of net significance (Holm, Benjamini-Hochberg).
ALPHA = 0.05


def fpr_gaps(preds: pd.DataFrame, interval: str, z: float) -> pd.DataFrame:
    """Per (model, category, group): mean FPR gap over runs and its half-width.

    The gap is ``FPR_c(X) − mean_Y FPR_c(Y)`` with the *unweighted* mean over the
    category's groups in the same run (docs/methods.md §3.3), not the pooled FPR of all rows, so
    a group with many templates does not pull the reference towards itself. Unmarked
    variants are not a group and are left out. ``interval="t"`` uses ``t_{R−1,0.975}``
    instead of ``z`` (wider for few runs).
    """
    quantile(interval, z, 2)
    g = group_fpr(preds)
    g = g[g["group"] != UNMARKED].copy()
    for name in CLASSES:
        g[f"{name}_FPR_gap"] = g[f"{name}_FPR"] - g.groupby(RUN_KEYS)[f"{name}_FPR"].transform("mean")
    out = over_runs(
        g,
        ["model", "category", "group"],
        {f"{n}_FPR_gap": f"{n}_FPR_gap" for n in CLASSES},
        interval,
        z,
    )
    return out[GAP_COLUMNS + ["category", "n_runs", "interval"]]


def gap_spans(gaps_by_probe: pd.DataFrame) -> pd.DataFrame:
    """Per (model, probe, category): max − min mean gap over groups (paper 004, Table 4).

    Rows with ``probe == "(mean)"`` average each model's spans over its probe sets, the
    figure Table 4 ranks models by.
    """
    require_columns(
        gaps_by_probe, ["model", "probe", "category", "group", "negative_FPR_gap", "positive_FPR_gap"], "gap table"
    )
    keys = ["model", "probe", "category"]
    grouped = gaps_by_probe.groupby(keys, sort=True)
    spans = pd.DataFrame(
        {f"{n}_span": grouped[f"{n}_FPR_gap"].max() - grouped[f"{n}_FPR_gap"].min() for n in CLASSES}
    ).reset_index()
    spans["n_groups"] = grouped["group"].nunique().to_numpy()
    mean = spans.groupby(["model", "category"], sort=True)[["negative_span", "positive_span"]].mean().reset_index()
    mean["probe"] = "(mean)"
    mean["n_groups"] = np.nan
    return pd.concat([spans, mean[spans.columns]], ignore_index=True)


def net_significance(gaps: pd.DataFrame) -> pd.DataFrame:
    """Per (category, group): Σ over models of +1 / −1 / 0 by where the CI lies (paper 002, Table 1), raw and corrected.

    Raw (``<class>_net``, the paper's): +1 when ``mean − width > 0``, −1 when
    ``mean + width < 0``, else 0. Every gap of the table is a test, and the raw count does
    not correct for their number; ``<class>_net_holm`` (family-wise error) and
    ``<class>_net_bh`` (false discovery rate, Benjamini-Hochberg) count the same way where
    the gap's p-value stays below :data:`ALPHA` after correcting over all ``n_tests`` tests
    of both classes in the table (docs/methods.md §3.4). A gap without a p-value (a single
    run, or runs that all agree: §3.3) was not tested: it is in none of the counts nor in
    the family, and ``<class>_untested`` counts such gaps apart, so a reader sees how many
    models could not be judged rather than a 0 that looks like "no bias". If the table has
    a ``probe`` column, each probe set is summed separately (the correction is still over
    all of them).
    """
    from statsmodels.stats.multitest import multipletests  # here: the rules import this module at every start

    require_columns(gaps, GAP_COLUMNS + ["category"], "gap table")
    keys = (["probe"] if "probe" in gaps.columns else []) + ["category", "group"]
    df = gaps.copy()
    p_values = df[[f"{n}_FPR_gap_p" for n in CLASSES]].to_numpy(dtype=float)
    tested = np.isfinite(p_values)
    for method, suffix in (("holm", "holm"), ("fdr_bh", "bh")):
        rejected = np.zeros_like(tested)
        if tested.any():
            rejected[tested] = multipletests(p_values[tested], alpha=ALPHA, method=method)[0]
        for i, n in enumerate(CLASSES):
            df[f"{n}_net_{suffix}"] = np.where(rejected[:, i], np.sign(df[f"{n}_FPR_gap"]), 0).astype(int)
    for i, n in enumerate(CLASSES):
        m, w = df[f"{n}_FPR_gap"], df[f"{n}_FPR_gap_width"]
        df[f"{n}_net"] = np.where(tested[:, i] & (m - w > 0), 1, np.where(tested[:, i] & (m + w < 0), -1, 0))
        df[f"{n}_untested"] = (~tested[:, i]).astype(int)
    counted = [f"{n}_net{suffix}" for suffix in ("", "_holm", "_bh") for n in CLASSES]
    grouped = df.groupby(keys, sort=True)
    out = grouped[counted + [f"{n}_untested" for n in CLASSES]].sum().reset_index()
    out["n_models"] = grouped["model"].nunique().to_numpy()
    out["n_tests"] = int(tested.sum())
    return out


def with_span_null(spans: pd.DataFrame, nulls: pd.DataFrame) -> pd.DataFrame:
    """The spans with their null's 95th percentile, p-value and whether the span exceeds it (§3.4).

    ``nulls``: :func:`biasflow.fpr.resampling.span_null` per probe set (a ``probe`` column).
    The rows averaging the probe sets have no null of their own.
    """
    out = spans.merge(nulls, on=["model", "probe", "category"], how="left", validate="many_to_one")
    for n in CLASSES:
        out[f"{n}_span_exceeds"] = out[f"{n}_span"] > out[f"{n}_span_null_q95"]
    return out
