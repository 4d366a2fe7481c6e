"""Per-group false-positive rates and their mean over runs (docs/methods.md §3.2-3.3).

Gaps and markedness both start from each group's one-vs-rest FPR in each run and end in
a mean over runs with a z (or t) half-width; both steps live here once, and so does the
rule that runs without any spread give no interval and no test (§3.3).
"""

from __future__ import annotations

import logging
import math
import numbers

import pandas as pd

from biasflow.errors import BiasflowError
from biasflow.intervals import standard_error, t_quantile
from biasflow.schema import choices
from biasflow.tables import require_columns

log = logging.getLogger("biasflow")

# The reference adds eps to numerator and denominator; kept so numbers match it exactly.
EPS = 1e-10
# Rates and gaps lie in [−1, 1], so rounding is told at that size (biasflow.intervals.is_rounding, 1e-9):
# an interval that narrow holds only eps's own traces (an FPR of 0 is eps / n, which differs between
# groups of different sizes), not a spread of the data, and is empty (docs/methods.md §3.3, §9).
RATE_SCALE = 1.0
# Class name -> label for the two one-vs-rest FPRs that are reported.
CLASSES = {"negative": 0, "positive": 2}
# A run's groups are compared within one model, run and category.
RUN_KEYS = ["model", "run_id", "category"]


def group_fpr(preds: pd.DataFrame) -> pd.DataFrame:
    """Per (model, run_id, category, group): one-vs-rest negative and positive FPR, and n.

    ``FPR_c = (FP + eps) / (FP + TN + eps)`` over the group's samples whose gold label is
    not c (docs/methods.md §3.2). A group with no such samples has no FPR at all, and the eps would
    turn 0/0 into 1.0, a fake rate; that is refused rather than reported.
    """
    require_columns(preds, ["y_true", "y_pred", "category", "group", "model", "run_id"], "predictions")
    keys = ["model", "run_id", "category", "group"]
    rows = []
    for key, g in preds.groupby(keys, sort=True):
        row = dict(zip(keys, key, strict=True))
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


def quantile(interval: str, z: float, n_runs: int) -> float:
    """The q of the half-width ``q · sd / √R`` (docs/methods.md §3.3): ``z``, or t_{R−1, 0.975}.

    ``z`` is checked whatever the interval: a z that is not a positive finite number is a
    config mistake even while ``interval: t`` leaves it unused.
    """
    if not (isinstance(z, numbers.Real) and math.isfinite(z) and z > 0):
        raise BiasflowError(
            f"interval z {z!r} is not a positive number; set fpr.z to the normal quantile of the interval, "
            "1.96 for 95%."
        )
    if interval == "z":
        return z
    if interval == "t":
        return t_quantile(n_runs - 1)
    raise BiasflowError(f"unknown interval {interval!r}; use one of {', '.join(choices('fpr.interval'))}.")


def over_runs(per_run: pd.DataFrame, keys: list[str], values: dict[str, str], interval: str, z: float) -> pd.DataFrame:
    """Mean over runs, half-width ``q · sd / √R`` (sd with ddof=1) and the two-sided p of mean 0.

    The p-value is the interval's own test (docs/methods.md §3.3): Student t with R − 1
    degrees of freedom for ``t``, the normal for ``z``, of mean / (sd/√R); with the default
    quantiles an interval excludes 0 exactly when p < 0.05. Width and p are NaN where there
    is no spread to measure: a single run, or runs that all give the same value (identical
    predictions). An sd of 0 is not certainty but the absence of any run-to-run variation
    to test against, so such a value gets neither a zero-width interval nor p = 0; one
    warning per value names how many and whose (``n_runs`` says how many runs agreed).
    """
    quantile(interval, z, 2)  # validate the interval name even when no rows
    rows = []
    identical: dict[str, list[dict]] = {dst: [] for dst in values.values()}
    for key, g in per_run.groupby(keys, sort=True):
        row = dict(zip(keys, key if isinstance(key, tuple) else (key,), strict=True))
        n_runs = int(g["run_id"].nunique())
        q = quantile(interval, z, n_runs)
        for src, dst in values.items():
            x = g[src].to_numpy(dtype=float)
            row[dst] = float(x.mean())
            se = standard_error(x)
            if n_runs > 1 and math.isnan(se):
                identical[dst].append(row)
            row[f"{dst}_width"] = q * se
            row[f"{dst}_p"] = _p_value(row[dst], se, interval, n_runs)
        row["n_runs"] = n_runs
        row["interval"] = interval
        rows.append(row)
    for dst, where in identical.items():
        _warn_identical(dst, where, len(rows))
    cols = keys + [c for dst in values.values() for c in (dst, f"{dst}_width", f"{dst}_p")] + ["n_runs", "interval"]
    return pd.DataFrame(rows, columns=cols)


def _warn_identical(value: str, rows: list[dict], total: int) -> None:
    """One warning for the ``value`` statistics whose runs all agree, naming the models they belong to."""
    if not rows:
        return
    models = sorted({str(row["model"]) for row in rows if "model" in row})
    where = (
        f" (model {', '.join(models[:5])}{f' and {len(models) - 5} more' if len(models) > 5 else ''})" if models else ""
    )
    log.warning(
        "runs identical: no run-to-run spread to test against for %d of %d %s values%s; their width and p "
        "are left empty and they are not tested (docs/methods.md §3.3)",
        len(rows),
        total,
        value,
        where,
    )


def _p_value(mean: float, se: float, interval: str, n_runs: int) -> float:
    """Two-sided p of a mean of 0 by the interval's distribution; NaN without a standard error (no spread)."""
    if not math.isfinite(se):
        return math.nan
    statistic = abs(mean) / se
    from scipy import stats  # here: the rules import this module at every Snakemake start

    return float(2 * (stats.t.sf(statistic, n_runs - 1) if interval == "t" else stats.norm.sf(statistic)))
