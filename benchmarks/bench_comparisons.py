"""Every method's paired comparisons and variance split at the paper's size, against the step they are added to.

Usage (from the repository root)::

    .venv/bin/python -m benchmarks.bench_comparisons            # paper size, a few minutes on 2 cores
    .venv/bin/python -m benchmarks.bench_comparisons --quick    # seconds

Ten models give 45 pairs. Each method's comparison table (docs/methods.md §1.16, §2.9,
§3.8) is timed beside the work of the step that writes it, on the same inputs, so the ratio
says what the comparisons add to a run:

- CAIRO: ``paper_sized_stats()`` (10 models, 3 metrics, 15 paraphrase sets, 5 seeds, 4
  subgroups of 6 clusters), shared mode, multisets, k ≤ 6, 1000 permutations, 1000
  bootstrap and 200 null draws: the selection and headline table against
  :func:`biasflow.cairo.comparisons.comparison_table` (1000 swaps);
- FPR gaps: one probe set, 10 systems, 5 runs, 60 templates × 8 groups × 2 terms: the
  gaps with their template bootstrap (1000 draws) against the comparisons (1000 bootstrap
  draws, 1000 swaps);
- FairPair: 10 models × 60 prompts (the paper's occupations), each prompt's null of 1000
  draws: the summary (2000 bootstrap draws) against the comparisons (1000 swaps).

Beside the comparisons, each method's variance split on the same inputs (§1.17, §2.10, §3.9;
CAIRO's with 1000 bootstrap draws, on every axis, metric and split of the statistics).
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np
import pandas as pd

from benchmarks.synthetic import paper_sized_stats

MODELS = 10


def timed(function, *args, **kwargs) -> tuple[float, object]:
    start = time.perf_counter()
    result = function(*args, **kwargs)
    return time.perf_counter() - start, result


def cairo(quick: bool) -> dict:
    from biasflow.cairo.comparisons import comparison_table
    from biasflow.cairo.headline import bias_table
    from biasflow.cairo.selection import SearchSettings, select
    from biasflow.cairo.variance import variance_table

    stats = paper_sized_stats(n_models=MODELS, n_paraphrasers=1 if quick else 3,
                              seeds_per_paraphraser=2 if quick else 5)
    settings = SearchSettings.defaults(mode="shared", combinations="multisets", max_sets=2 if quick else 6,
                                       permutations=50 if quick else 1000, bootstrap=50 if quick else 1000,
                                       null_draws=20 if quick else 200, seed=0)

    def step():
        selection = select(stats, settings)
        bias_table(stats, selection, settings)
        return selection

    baseline, selection = timed(step)
    seconds, table = timed(comparison_table, stats, selection, settings)
    variance, _ = timed(variance_table, stats, settings.bootstrap, settings.seed, "none")
    return {"method": "CAIRO", "size": f"{len(stats):,} statistics rows, {MODELS} models",
            "baseline": "selection and headline table", "baseline_s": baseline, "comparisons_s": seconds,
            "variance_s": variance, "rows": len(table)}


def fpr(quick: bool) -> dict:
    from biasflow.fpr.comparisons import comparison_table
    from biasflow.fpr.gaps import fpr_gaps
    from biasflow.fpr.resampling import bootstrap_gaps
    from biasflow.fpr.variance import variance_table

    rng = np.random.default_rng(0)
    templates, groups, runs, draws = (12, 4, 2, 50) if quick else (60, 8, 5, 1000)
    frames = []
    for m in range(MODELS):
        r, t, g, k = (a.ravel() for a in np.meshgrid(range(runs), range(templates), range(groups), range(2),
                                                     indexing="ij"))
        gold = t % 3
        wrong = rng.random(len(t)) < 0.25
        frames.append(pd.DataFrame({"y_true": gold, "y_pred": np.where(wrong, (gold + 1 + (k % 2)) % 3, gold),
                                    "category": "race", "group": np.char.add("g", g.astype(str)),
                                    "text": [f"template {a} term {b} of group {c}" for a, b, c in zip(t, k, g)],
                                    "model": f"system{m:02d}", "run_id": np.char.add("r", r.astype(str)),
                                    "template_id": np.char.add("t", t.astype(str))}))
    preds = pd.concat(frames, ignore_index=True)

    def step():
        fpr_gaps(preds, "t", 1.96)
        return bootstrap_gaps(preds, draws, 0)

    baseline, _ = timed(step)
    seconds, table = timed(comparison_table, preds, draws, draws, 0)
    variance, _ = timed(variance_table, {"probe": preds})
    return {"method": "FPR gaps", "size": f"{len(preds):,} predictions, {MODELS} systems",
            "baseline": "gaps with their template bootstrap", "baseline_s": baseline, "comparisons_s": seconds,
            "variance_s": variance, "rows": len(table)}


def fairpair(quick: bool) -> dict:
    from biasflow.fairpair.comparisons import comparison_table
    from biasflow.fairpair.null import NULL_DRAW_COLUMNS
    from biasflow.fairpair.scores import PROMPT_SCORE_COLUMNS, BootstrapSettings, summarise
    from biasflow.fairpair.variance import variance_table

    rng = np.random.default_rng(1)
    prompts, draws, bootstrap = (20, 100, 100) if quick else (60, 1000, 2000)
    scores, nulls = [], []
    for m in range(MODELS):
        ids = [f"p{i:02d}" for i in range(prompts)]
        F = rng.gamma(2.0, 0.6, prompts)
        null_F = rng.gamma(2.0, 0.5, (draws, prompts))
        R, null_R = F / (1 + F), null_F / (1 + null_F)
        table = pd.DataFrame({column: 1.0 for column in PROMPT_SCORE_COLUMNS}, index=range(prompts))
        scores.append(table.assign(prompt_id=ids, dissimilarity="sentiment", F=F, R=R, p_perm=0.5,
                                   F_null_mean=null_F.mean(axis=0), R_null_mean=null_R.mean(axis=0),
                                   R_null_sd=np.vstack([null_R, R]).std(axis=0), model=f"model{m:02d}"))
        nulls.append(pd.DataFrame({"prompt_id": np.tile(ids, draws), "dissimilarity": "sentiment",
                                   "draw": np.repeat(np.arange(draws), prompts), "F": null_F.ravel(),
                                   "model": f"model{m:02d}"})[[*NULL_DRAW_COLUMNS, "model"]])
    scores = pd.concat(scores, ignore_index=True)
    baseline, _ = timed(summarise, scores, pd.concat(nulls, ignore_index=True),
                        BootstrapSettings(bootstrap=bootstrap, seed=0))
    seconds, table = timed(comparison_table, scores, draws, 0)
    variance, _ = timed(variance_table, scores)
    return {"method": "FairPair", "size": f"{prompts} prompts, {MODELS} models",
            "baseline": "summary with its bootstrap", "baseline_s": baseline, "comparisons_s": seconds,
            "variance_s": variance, "rows": len(table)}


def markdown_table(rows: list[dict]) -> str:
    lines = ["| method | size | baseline: the step's own work | baseline | comparisons (45 pairs) | ratio | rows "
             "| variance split |", "|---|---|---|---|---|---|---|---|"]
    for row in rows:
        lines.append(f"| {row['method']} | {row['size']} | {row['baseline']} | {row['baseline_s']:.1f} s | "
                     f"{row['comparisons_s']:.1f} s | {row['comparisons_s'] / row['baseline_s']:.2f} | "
                     f"{row['rows']:,} | {row['variance_s']:.1f} s |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sizes, seconds")
    parser.add_argument("--json", type=Path, help="write the rows here")
    args = parser.parse_args(argv)
    rows = [function(args.quick) for function in (cairo, fpr, fairpair)]
    print(markdown_table(rows))
    if args.json:
        args.json.write_text(json.dumps(rows, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
