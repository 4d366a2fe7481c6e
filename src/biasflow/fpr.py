"""Group false-positive-rate gaps on template probes (METHODS.md §3; papers 002 and 004).

A probe sample is a template filled with an identity term; its gold label is the
template's label and its ``group`` is the term's group within an attribute
(``category``). Every classifier run (a seed, or a tuned replica) writes one
predictions table; the functions here turn those into:

* per-run, per-group one-vs-rest FPR for the negative and the positive class,
* the gap of each group to the *unweighted* mean over the attribute's groups in the
  same run, averaged over runs with a z (or t) half-width,
* gap spans (paper 004, Table 4), net significance over models (paper 002, Table 1),
* markedness: each group's FPR minus the FPR of the unmarked template variants.

Labels are ternary: 0 negative, 1 neutral, 2 positive.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import stats

from biasflow.errors import BiasflowError
from biasflow.tables import read_table, require_columns

PREDICTION_COLUMNS = ["y_true", "y_pred", "category", "group", "text", "model", "run_id"]
GAP_COLUMNS = [
    "model",
    "group",
    "negative_FPR_gap",
    "negative_FPR_gap_width",
    "positive_FPR_gap",
    "positive_FPR_gap_width",
]
UNMARKED = "(unmarked)"
LABELS = (0, 1, 2)
# The reference adds eps to numerator and denominator; kept so numbers match it exactly.
EPS = 1e-10
# Class name -> label for the two one-vs-rest FPRs that METHODS §3 reports.
CLASSES = {"negative": 0, "positive": 2}
INTERVALS = ("z", "t")

_RUN_KEYS = ["model", "run_id", "category"]


def read_predictions(paths: list[str]) -> pd.DataFrame:
    """Read and validate prediction TSVs (one or more runs/models per file).

    ``model`` is taken from the file stem when the column is absent, so a file per
    model needs no redundant column. Labels are checked here, once, because a stray
    label (say -1 for "unparsed") would silently count as "not class c" in every FPR.
    """
    paths = [str(p) for p in paths]
    if not paths:
        raise BiasflowError("no predictions files given; pass at least one predictions TSV.")
    frames = []
    for path in paths:
        df = read_table(path, what="predictions file")
        if "model" not in df.columns:
            df = df.assign(model=Path(path).stem)
        require_columns(df, PREDICTION_COLUMNS, f"predictions file {path}")
        for col in ("y_true", "y_pred"):
            values = pd.to_numeric(df[col], errors="coerce")
            bad = ~values.isin(LABELS) | df[col].isna()
            if bad.any():
                shown = sorted({str(v) for v in df.loc[bad, col]})[:5]
                raise BiasflowError(
                    f"predictions file {path}: column {col} has values {', '.join(shown)} outside the "
                    f"labels 0 (negative), 1 (neutral), 2 (positive); map the labels to 0/1/2."
                )
            df[col] = values.astype(int)
        df["run_id"] = df["run_id"].astype(str)
        df["model"] = df["model"].astype(str)
        frames.append(df)
    return pd.concat(frames, ignore_index=True)


def group_fpr(preds: pd.DataFrame) -> pd.DataFrame:
    """Per (model, run_id, category, group): one-vs-rest negative and positive FPR, and n.

    ``FPR_c = (FP + eps) / (FP + TN + eps)`` over the group's samples whose gold label is
    not c (METHODS §3). A group with no such samples has no FPR at all, and the eps would
    turn 0/0 into 1.0, a fake rate; that is refused rather than reported.
    """
    require_columns(preds, ["y_true", "y_pred", "category", "group", "model", "run_id"], "predictions")
    keys = ["model", "run_id", "category", "group"]
    rows = []
    for key, g in preds.groupby(keys, sort=True):
        row = dict(zip(keys, key))
        for name, c in CLASSES.items():
            outside = g["y_true"].to_numpy() != c
            if not outside.any():
                raise BiasflowError(
                    f"model {row['model']}, run {row['run_id']}, category {row['category']}, group "
                    f"{row['group']}: every sample has gold label {c} ({name}), so its {name} FPR is "
                    f"undefined; add templates with other gold labels or drop the group."
                )
            fp = int((g["y_pred"].to_numpy()[outside] == c).sum())
            tn = int(outside.sum()) - fp
            row[f"{name}_FPR"] = (fp + EPS) / (fp + tn + EPS)
        row["n"] = len(g)
        rows.append(row)
    return pd.DataFrame(rows, columns=keys + ["negative_FPR", "positive_FPR", "n"])


def _quantile(interval: str, z: float, n_runs: int) -> float:
    if interval == "z":
        return z
    if interval == "t":
        return float(stats.t.ppf(0.975, n_runs - 1)) if n_runs > 1 else math.nan
    raise BiasflowError(f"unknown interval {interval!r}; use one of {', '.join(INTERVALS)}.")


def _over_runs(per_run: pd.DataFrame, keys: list[str], values: dict[str, str], interval: str, z: float) -> pd.DataFrame:
    """Mean over runs and half-width ``q · sd / √R`` (sd with ddof=1; NaN when R = 1)."""
    _quantile(interval, z, 2)  # validate the interval name even when no rows
    rows = []
    for key, g in per_run.groupby(keys, sort=True):
        row = dict(zip(keys, key if isinstance(key, tuple) else (key,)))
        n_runs = int(g["run_id"].nunique())
        q = _quantile(interval, z, n_runs)
        for src, dst in values.items():
            x = g[src].to_numpy(dtype=float)
            row[dst] = float(x.mean())
            row[f"{dst}_width"] = q * float(np.std(x, ddof=1)) / math.sqrt(n_runs) if n_runs > 1 else math.nan
        row["n_runs"] = n_runs
        row["interval"] = interval
        rows.append(row)
    cols = keys + [c for dst in values.values() for c in (dst, f"{dst}_width")] + ["n_runs", "interval"]
    return pd.DataFrame(rows, columns=cols)


def fpr_gaps(preds: pd.DataFrame, interval: str = "z", z: float = 1.96) -> pd.DataFrame:
    """Per (model, category, group): mean FPR gap over runs and its half-width.

    The gap is ``FPR_c(X) − mean_Y FPR_c(Y)`` with the *unweighted* mean over the
    category's groups in the same run (METHODS §3), not the pooled FPR of all rows, so
    a group with many templates does not pull the reference towards itself. Unmarked
    variants are not a group and are left out. ``interval="t"`` uses ``t_{R−1,0.975}``
    instead of ``z`` (wider for few runs).
    """
    _quantile(interval, z, 2)
    g = group_fpr(preds)
    g = g[g["group"] != UNMARKED].copy()
    for name in CLASSES:
        g[f"{name}_FPR_gap"] = g[f"{name}_FPR"] - g.groupby(_RUN_KEYS)[f"{name}_FPR"].transform("mean")
    out = _over_runs(
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
        {
            f"{n}_span": grouped[f"{n}_FPR_gap"].max() - grouped[f"{n}_FPR_gap"].min()
            for n in CLASSES
        }
    ).reset_index()
    spans["n_groups"] = grouped["group"].nunique().to_numpy()
    mean = spans.groupby(["model", "category"], sort=True)[["negative_span", "positive_span"]].mean().reset_index()
    mean["probe"] = "(mean)"
    mean["n_groups"] = np.nan
    return pd.concat([spans, mean[spans.columns]], ignore_index=True)


def net_significance(gaps: pd.DataFrame) -> pd.DataFrame:
    """Per (category, group): Σ over models of +1 / −1 / 0 by where the CI lies (paper 002, Table 1).

    +1 when ``mean − width > 0``, −1 when ``mean + width < 0``, else 0. A NaN width (a
    single run) has no interval, so it counts 0: one run cannot show significance. If
    the table has a ``probe`` column, each probe set is summed separately.
    """
    require_columns(gaps, GAP_COLUMNS + ["category"], "gap table")
    keys = (["probe"] if "probe" in gaps.columns else []) + ["category", "group"]
    df = gaps.copy()
    for n in CLASSES:
        m, w = df[f"{n}_FPR_gap"], df[f"{n}_FPR_gap_width"]
        df[f"{n}_net"] = np.where(m - w > 0, 1, np.where(m + w < 0, -1, 0))
    grouped = df.groupby(keys, sort=True)
    out = grouped[["negative_net", "positive_net"]].sum().reset_index()
    out["n_models"] = grouped["model"].nunique().to_numpy()
    return out


def run_accuracy(preds: pd.DataFrame, floor: float) -> pd.DataFrame:
    """Per (model, run_id): accuracy, n, and whether it is below ``floor``.

    Gaps of a classifier at chance are noise, so reports flag such runs rather than
    read meaning into their gaps.
    """
    require_columns(preds, ["y_true", "y_pred", "model", "run_id"], "predictions")
    correct = (preds["y_true"] == preds["y_pred"]).rename("correct")
    grouped = pd.concat([preds[["model", "run_id"]], correct], axis=1).groupby(["model", "run_id"], sort=True)
    out = grouped["correct"].agg(accuracy="mean", n="size").reset_index()
    out["below_floor"] = out["accuracy"] < floor
    return out


def markedness(preds: pd.DataFrame, interval: str = "z", z: float = 1.96) -> pd.DataFrame:
    """Per (model, category, group): ``FPR_c(X) − FPR_c(UNMARKED)`` per run, over runs.

    Paper 004 explains the White-group anomaly by markedness: identity terms that are
    usually left unsaid read as unusual. Comparing each group with the same templates
    with the identity slot dropped measures that directly (METHODS §3, beyond the
    papers). Pass the predictions of the templates that have an unmarked variant.
    """
    _quantile(interval, z, 2)
    g = group_fpr(preds)
    unmarked = g[g["group"] == UNMARKED]
    marked = g[g["group"] != UNMARKED]
    have = set(map(tuple, unmarked[_RUN_KEYS].to_numpy().tolist()))
    for key in marked[_RUN_KEYS].drop_duplicates().itertuples(index=False):
        if tuple(key) not in have:
            raise BiasflowError(
                f"model {key.model}, run {key.run_id}, category {key.category}: no {UNMARKED} rows, so "
                f"markedness has no reference; classify the templates with the identity slot dropped "
                f"(group {UNMARKED!r})."
            )
    ref = unmarked[_RUN_KEYS + ["negative_FPR", "positive_FPR"]]
    merged = marked.merge(ref, on=_RUN_KEYS, suffixes=("", "_unmarked"))
    for n in CLASSES:
        merged[f"{n}_markedness"] = merged[f"{n}_FPR"] - merged[f"{n}_FPR_unmarked"]
    return _over_runs(
        merged,
        ["model", "category", "group"],
        {f"{n}_markedness": f"{n}_markedness" for n in CLASSES},
        interval,
        z,
    )
