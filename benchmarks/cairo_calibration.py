"""CAIRO's intervals and no-bias null calibrated by simulation at 1000 repetitions (docs/methods.md §1.11-1.13).

Usage (from the repository root)::

    .venv/bin/python -m benchmarks.cairo_calibration                      # 1000 repetitions, a few minutes
    .venv/bin/python -m benchmarks.cairo_calibration --repetitions 100    # quicker, coarser

Studies are drawn by :func:`benchmarks.synthetic.toxicity_study`. Three scenarios:

- *intervals*: four models on one metric with known subgroup rates: how often the Eq. 1
  interval covers E[Eq. 1] (the estimator's own mean at these sizes, by simulation) and the
  excess interval the population value Σ_g |μ_g − μ_all|;
- *toxicity levels only*: ten models that differ only in how often they are toxic, no
  subgroup difference: how often each p-value falls below 0.05 (the false alarms); and the
  same with every model equally toxic, where the models are exchangeable;
- *shared group bias*: subgroups multiply the toxic rate alike in both metrics, more in some
  models than others: how often each p-value falls below 0.05 (the power).

The test suite runs the same scenarios at quick sizes (tests/cairo/test_calibration.py).
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

from benchmarks.synthetic import GROUPS, RATES, cluster_sums, expected_score, toxicity_study
from biasflow.cairo.combinations import pooled_stats
from biasflow.cairo.selection import SearchSettings, select
from biasflow.cairo.uncertainty import (
    bootstrap_weights,
    draw_bias,
    group_difference_interval,
    null_weights,
    percentile_interval,
)

# The intervals scenario: four models, one metric (6 clusters of 20 continuations per subgroup);
# group differences clear in models 0 and 2, absent in 1, small in 3.
MODEL_RATES = np.array([0.05, 0.05, 0.1, 0.2])
EFFECTS = np.array([[1.0, 1.0, 2.0, 3.0], [1.0, 1.0, 1.0, 1.0], [1.0, 0.5, 1.5, 2.5], [1.0, 1.2, 1.0, 1.4]])
ONE_METRIC = {"A": (6, 20)}
# The p-value scenarios: a shared pattern over the four subgroups, scaled per model.
SHARED_PATTERN = np.array([0.0, 0.3, 1.0, -0.5])
SHARED_STRENGTH = np.linspace(0.5, 2.0, len(RATES))
P_VALUES = ["perm_p", "excess_perm_p", "test_excess_perm_p", "null_p"]


def no_group_difference(rng) -> np.ndarray:
    return np.ones((len(RATES), len(GROUPS)))


def equal_toxicity(rng) -> np.ndarray:
    """No subgroup difference and every model toxic at RATES' geometric mean: the models are exchangeable."""
    return np.ones((len(RATES), len(GROUPS))) * np.sqrt(RATES.min() * RATES.max()) / RATES[:, None]


def shared_group_bias(rng) -> np.ndarray:
    return 1 + SHARED_STRENGTH[:, None] * SHARED_PATTERN[None, :]


def one_metric(rng) -> pd.DataFrame:
    """The intervals scenario's statistics: the valid split of one metric, original prompts only."""
    stats = toxicity_study(rng, MODEL_RATES, EFFECTS, sets=(), shapes=ONE_METRIC)
    return stats[stats["split"] == "valid"]


def population_value() -> np.ndarray:
    """Σ_g |μ_g − μ_all| per model of the intervals scenario (subgroups of equal size)."""
    mean = expected_score(np.clip(MODEL_RATES[:, None] * EFFECTS, 0, 1))
    return np.abs(mean - mean.mean(axis=1, keepdims=True)).sum(axis=1)


def expected_eq1(repetitions: int, seed: int) -> np.ndarray:
    """E[Eq. 1] per model of the intervals scenario by simulation, with numpy on the drawn sums."""
    (clusters, size), = ONE_METRIC.values()
    score_sum, _ = cluster_sums(np.random.default_rng(seed), MODEL_RATES, EFFECTS, clusters, size, (repetitions,))
    group_sum = score_sum.reshape(repetitions, len(MODEL_RATES), len(GROUPS), clusters).sum(axis=-1)
    overall = group_sum.sum(axis=-1, keepdims=True) / (len(GROUPS) * clusters * size)
    return np.abs(group_sum / (clusters * size) - overall).sum(axis=-1).mean(axis=0)


def interval_draws(repetitions: int, seed: int, bootstrap: int = 400, null_draws: int = 100) -> dict[str, np.ndarray]:
    """Eq. 1, its null floor and both 95% intervals of the four models on ``repetitions`` datasets."""
    rng = np.random.default_rng(seed)
    models = [f"m{i:02d}" for i in range(len(MODEL_RATES))]
    rows = {name: [] for name in ("eq1", "floor", "eq1_lo", "eq1_hi", "excess_lo", "excess_hi")}
    counts = np.array([1.0])
    for _ in range(repetitions):
        pooled = pooled_stats(one_metric(rng), "A", "religion", "valid", ["original"], models)
        boot = bootstrap_weights(pooled, bootstrap, rng)
        rows["eq1"].append(draw_bias(counts, pooled, pooled.membership[None], "none")[0])
        rows["floor"].append(draw_bias(counts, pooled, null_weights(pooled, null_draws, rng), "none").mean(axis=0))
        for name, (low, high) in (("eq1", percentile_interval(draw_bias(counts, pooled, boot, "none"))),
                                  ("excess", group_difference_interval(counts, pooled, boot, "none"))):
            rows[f"{name}_lo"].append(low)
            rows[f"{name}_hi"].append(high)
    return {name: np.array(values) for name, values in rows.items()}


def study_curves(effect_of, seed: int, repetitions: int) -> pd.DataFrame:
    """The k = 2 curve row (original plus one of two paraphrase sets, selection-aware) of simulated studies."""
    rng = np.random.default_rng(seed)
    rows = []
    logger = logging.getLogger("biasflow")
    level = logger.level
    logger.setLevel(logging.ERROR)  # the toxicity-level warning fires in most null studies: expected here
    try:
        for repetition in range(repetitions):
            stats = toxicity_study(rng, RATES, effect_of(rng), sets=("p0", "p1"))
            settings = SearchSettings.defaults(mode="shared", max_sets=2, permutations=199, bootstrap=0,
                                               null_draws=100, seed=repetition)
            curve = select(stats, settings).curve
            rows.append(curve[curve["k"] == 2].iloc[0])
    finally:
        logger.setLevel(level)
    return pd.DataFrame(rows).reset_index(drop=True)


def run(repetitions: int) -> dict:
    """Every scenario at ``repetitions``: coverage per model, and how often each p-value falls below 0.05."""
    draws = interval_draws(repetitions, seed=1)
    expected, truth = expected_eq1(20 * repetitions, seed=2), population_value()
    intervals = [{
        "model": i, "expected_eq1": expected[i], "population": truth[i],
        "eq1_coverage": float(np.mean((draws["eq1_lo"][:, i] <= expected[i]) & (expected[i] <= draws["eq1_hi"][:, i]))),
        "excess_coverage": float(np.mean((draws["excess_lo"][:, i] <= truth[i]) & (truth[i] <= draws["excess_hi"][:, i]))),
    } for i in range(len(MODEL_RATES))]
    studies = []
    for name, effect_of, seed in (("toxicity levels only", no_group_difference, 3),
                                  ("equal toxicity, no group difference", equal_toxicity, 5),
                                  ("shared group bias", shared_group_bias, 4)):
        curves = study_curves(effect_of, seed, repetitions)
        studies.append({"scenario": name, "mean_best_r": curves["best_r"].mean(),
                        "mean_excess_r": curves["excess_r"].mean(),
                        **{p: float((curves[p] < 0.05).mean()) for p in P_VALUES}})
    return {"repetitions": repetitions, "intervals": intervals, "studies": studies}


def markdown_tables(result: dict) -> str:
    lines = ["| model | E[Eq. 1] | Eq. 1 interval covers it | population Σ_g abs(μ_g − μ_all) | excess interval covers it |",
             "|---|---|---|---|---|"]
    lines += [f"| {row['model']} | {row['expected_eq1']:.4f} | {row['eq1_coverage']:.1%} | {row['population']:.4f} "
              f"| {row['excess_coverage']:.1%} |" for row in result["intervals"]]
    lines += ["", "| studies | mean best r | mean excess r | " + " | ".join(f"{p} < 0.05" for p in P_VALUES) + " |",
              "|---" * (3 + len(P_VALUES)) + "|"]
    lines += [f"| {row['scenario']} | {row['mean_best_r']:.2f} | {row['mean_excess_r']:.2f} | "
              + " | ".join(f"{row[p]:.1%}" for p in P_VALUES) + " |" for row in result["studies"]]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repetitions", type=int, default=1000)
    parser.add_argument("--json", help="also write the results to this JSON file")
    args = parser.parse_args(argv)
    start = time.perf_counter()
    result = run(args.repetitions)
    print(markdown_tables(result))
    if args.json:
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        with open(args.json, "w") as handle:
            json.dump(result, handle, indent=2)
    print(f"{args.repetitions} repetitions per scenario, {time.perf_counter() - start:.0f} s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
