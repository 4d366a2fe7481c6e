"""Where a gap would move: probe sets, templates, runs, sentences (docs/methods.md §3.9).

Per probe set, system, attribute, class and group, the variance of the mean gap over runs
(§3.3) is split into four parts, in the gap's units:

- ``templates``, ``runs``, ``sentences``: from a two-way crossed analysis of variance of the
  gap's linearised contributions y_rt, one per run r and template t. With FP_rh and N_rh a
  group's false positives and counted sentences in run r, and p_h = Σ_r FP_rh / Σ_r N_rh, the
  gap of group g in run r is Σ_t u_rtg (plus a constant) with
  u_rtg = Σ_h (δ_gh − 1/G) (fp_rth − p_h n_rth) / N_rh, exactly for the sentences written and
  to first order when templates are drawn anew (N_rh moves with them), so the mean gap over
  runs is, up to a constant, the mean over (r, t) of y_rt = T · u_rtg.
  With MS_T, MS_R and MS_E the mean squares of templates, runs and their interaction,
  the components σ²_T = (MS_T − MS_E) / R, σ²_R = (MS_R − MS_E) / T and σ²_E = MS_E give
  Var(gap) = σ²_T / T + σ²_R / R + σ²_E / (R·T): which templates were written, an effect a
  run shares over its sentences (a replica biased as a whole), and the labels each run
  gives each template's sentences beyond both. Unlike the cluster bootstrap over templates
  and runs (§3.3), which counts the interaction twice, each part counts once. With one run
  only the templates' part can be had, and it then holds the sentences' too (MS_T / T);
- ``probe_sets``: another probe set for the same attribute and group, the variance of the
  system's gap across the probe sets that have it, less the mean of what each one's own
  templates, runs and sentences give (NaN with fewer than two probe sets).

Each is clipped at 0 (:func:`biasflow.variance_components.split_columns`). Predictions without
``template_id`` get the gap alone (§3.3's other resamplings need it too).
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from biasflow.fpr.predictions import UNMARKED
from biasflow.fpr.resampling import class_counts, mean_gaps
from biasflow.variance_components import component_columns, split_columns

SOURCES = ("probe_sets", "templates", "runs", "sentences")
FPR_VARIANCE_COLUMNS = [
    "probe",
    "model",
    "category",
    "class",
    "group",
    "gap",
    *component_columns(SOURCES),
    "n_probe_sets",
    "n_templates",
    "n_runs",
]
KEYS = ["model", "category", "class", "group"]


def variance_table(by_probe: Mapping[str, pd.DataFrame]) -> pd.DataFrame:
    """Every gap's variance components (docs/methods.md §3.9) from each probe set's predictions (``by_probe``)."""
    parts = pd.DataFrame(
        [row for probe, preds in sorted(by_probe.items()) for row in _within(probe, preds)],
        columns=["probe", *KEYS, "gap", "templates", "runs", "sentences", "n_templates", "n_runs"],
    )
    own = parts[["templates", "runs", "sentences"]].sum(axis=1, min_count=1)
    across = (
        parts.assign(_own=own)
        .groupby(KEYS, sort=False)
        .agg(
            _spread=("gap", lambda gaps: gaps.var(ddof=1) if len(gaps) > 1 else np.nan),
            _noise=("_own", "mean"),
            n_probe_sets=("gap", "size"),
        )
    )
    parts = parts.join(across, on=KEYS)
    rows = [
        {
            **{key: row[key] for key in ["probe", *KEYS, "gap"]},
            **split_columns(
                {
                    "probe_sets": row["_spread"] - row["_noise"],
                    "templates": row["templates"],
                    "runs": row["runs"],
                    "sentences": row["sentences"],
                }
            ),
            "n_probe_sets": row["n_probe_sets"],
            "n_templates": row["n_templates"],
            "n_runs": row["n_runs"],
        }
        for row in parts.to_dict("records")
    ]
    return pd.DataFrame(rows, columns=FPR_VARIANCE_COLUMNS)


def _within(probe: str, preds: pd.DataFrame) -> list[dict]:
    """One probe set's rows: per (model, category, class, group), the gap and its within-probe-set parts."""
    rows = []
    marked = preds[preds["group"] != UNMARKED]
    for (model, category), part in marked.groupby(["model", "category"], sort=True):
        groups, group_index = np.unique(part["group"].astype(str), return_inverse=True)
        runs, run_index = np.unique(part["run_id"].astype(str), return_inverse=True)
        # Without template_id every sentence is in one template, which leaves no part to estimate.
        template_keys = part["template_id"].astype(str) if "template_id" in part else np.zeros(len(part))
        templates, template_index = np.unique(template_keys, return_inverse=True)
        counts = class_counts(part, (run_index, template_index, group_index), (len(runs), len(templates), len(groups)))
        for name, (fp, counted) in counts.items():
            gaps = mean_gaps(fp.sum(axis=1), counted.sum(axis=1), np.ones(len(runs)))
            parts = crossed_parts(contributions(fp, counted))
            rows += [
                {
                    "probe": probe,
                    "model": model,
                    "category": category,
                    "class": name,
                    "group": group,
                    "gap": float(gaps[g]),
                    "templates": parts[0, g],
                    "runs": parts[1, g],
                    "sentences": parts[2, g],
                    "n_templates": len(templates) if "template_id" in part else np.nan,
                    "n_runs": len(runs),
                }
                for g, group in enumerate(groups)
            ]
    return rows


def contributions(fp: np.ndarray, counted: np.ndarray) -> np.ndarray:
    """y_rtg = T · u_rtg, each (run, template)'s contribution to each group's mean gap (runs × templates × groups).

    ``fp`` and ``counted`` are (runs × templates × groups) counts; every group has counted
    sentences in every run (:func:`biasflow.fpr.rates.group_fpr` refuses anything else).
    """
    totals = counted.sum(axis=1, keepdims=True)  # N_rh
    with np.errstate(invalid="ignore", divide="ignore"):  # a class no sentence counts in: NaN throughout
        rate = fp.sum(axis=(0, 1)) / counted.sum(axis=(0, 1))  # p_h
        deviation = (fp - rate * counted) / totals  # (fp_rth − p_h n_rth) / N_rh
    n_groups = fp.shape[-1]
    contrast = np.eye(n_groups) - 1 / n_groups  # δ_gh − 1/G
    return fp.shape[1] * deviation @ contrast.T


def crossed_parts(y: np.ndarray) -> np.ndarray:
    """Each source's variance in the mean of ``y`` (runs × templates × groups): templates, runs, sentences × groups.

    The method of moments for a two-way crossed design with one observation per cell
    (docs/methods.md §3.9): σ²_T / T, σ²_R / R and σ²_E / (R·T). With one run only the first
    can be had, as MS_T / T (holding the sentences' part too); with one template none can.
    """
    runs, templates = y.shape[:2]
    grand = y.mean(axis=(0, 1))
    by_template, by_run = y.mean(axis=0), y.mean(axis=1)
    nan = np.full(y.shape[-1], np.nan)
    if templates < 2:
        return np.stack([nan, nan, nan])
    ms_t = runs * ((by_template - grand) ** 2).sum(axis=0) / (templates - 1)
    if runs < 2:
        return np.stack([ms_t / templates, nan, nan])
    ms_r = templates * ((by_run - grand) ** 2).sum(axis=0) / (runs - 1)
    residual = y - by_template[None] - by_run[:, None] + grand
    ms_e = (residual**2).sum(axis=(0, 1)) / ((runs - 1) * (templates - 1))
    return np.stack([(ms_t - ms_e) / runs / templates, (ms_r - ms_e) / templates / runs, ms_e / (runs * templates)])
