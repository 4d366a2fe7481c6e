"""Every method's paired comparisons and variance split at the paper's size, against the step they are added to.

Usage (from the repository root)::

    .venv/bin/python -m benchmarks.bench_comparisons            # paper size, a few minutes on 2 cores
    .venv/bin/python -m benchmarks.bench_comparisons --quick    # seconds
    .venv/bin/python -m benchmarks.bench_comparisons --quick --models 4   # 6 pairs: tests/cairo/test_benchmarks.py
    .venv/bin/python -m benchmarks.bench_comparisons --leaderboard fpr   # 10, 50 and 200 systems, 4 minutes

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

With ``--leaderboard``, each method's whole step at 10, 50 and 200 models with every pair,
against a baseline and with none (docs/methods.md §7), the ratio taken to the step with none;
``figure`` times the comparison figure alone against the matrix view it replaces above 30
models (benchmarks/README.md, "Paired comparisons at leaderboard size").
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


def cairo(quick: bool, models: int = MODELS) -> dict:
    from biasflow.cairo.comparisons import comparison_table
    from biasflow.cairo.headline import bias_table
    from biasflow.cairo.selection import SearchSettings, select
    from biasflow.cairo.variance import variance_table

    stats = paper_sized_stats(
        n_models=models, n_paraphrasers=1 if quick else 3, seeds_per_paraphraser=2 if quick else 5
    )
    settings = SearchSettings.defaults(
        mode="shared",
        combinations="multisets",
        max_sets=2 if quick else 6,
        permutations=50 if quick else 1000,
        bootstrap=50 if quick else 1000,
        null_draws=20 if quick else 200,
        seed=0,
    )

    def step():
        selection = select(stats, settings)
        bias_table(stats, selection, settings)
        return selection

    baseline, selection = timed(step)
    seconds, table = timed(comparison_table, stats, selection, settings)
    variance, _ = timed(variance_table, stats, settings.bootstrap, settings.seed, "none")
    return {
        "method": "CAIRO",
        "size": f"{len(stats):,} statistics rows, {models} models",
        "baseline": "selection and headline table",
        "baseline_s": baseline,
        "comparisons_s": seconds,
        "variance_s": variance,
        "rows": len(table),
    }


def fpr(quick: bool, models: int = MODELS) -> dict:
    from biasflow.fpr.comparisons import comparison_table
    from biasflow.fpr.gaps import fpr_gaps
    from biasflow.fpr.resampling import bootstrap_gaps
    from biasflow.fpr.variance import variance_table

    templates, groups, runs, draws = (12, 4, 2, 50) if quick else (60, 8, 5, 1000)
    preds = pd.concat(fpr_predictions(models, templates, groups, runs), ignore_index=True)

    def step():
        fpr_gaps(preds, "t", 1.96)
        return bootstrap_gaps(preds, draws, 0)

    baseline, _ = timed(step)
    seconds, table = timed(comparison_table, preds, draws, draws, 0)
    variance, _ = timed(variance_table, {"probe": preds})
    return {
        "method": "FPR gaps",
        "size": f"{len(preds):,} predictions, {models} systems",
        "baseline": "gaps with their template bootstrap",
        "baseline_s": baseline,
        "comparisons_s": seconds,
        "variance_s": variance,
        "rows": len(table),
    }


def fpr_predictions(systems: int, templates: int, groups: int, runs: int, seed: int = 0) -> list[pd.DataFrame]:
    """One probe set's predictions per system: ``templates`` × ``groups`` × 2 terms per run, a quarter mislabelled."""
    rng = np.random.default_rng(seed)
    frames = []
    for m in range(systems):
        r, t, g, k = (
            a.ravel() for a in np.meshgrid(range(runs), range(templates), range(groups), range(2), indexing="ij")
        )
        gold = t % 3
        wrong = rng.random(len(t)) < 0.25
        frames.append(
            pd.DataFrame(
                {
                    "y_true": gold,
                    "y_pred": np.where(wrong, (gold + 1 + (k % 2)) % 3, gold),
                    "category": "race",
                    "group": np.char.add("g", g.astype(str)),
                    "text": [f"template {a} term {b} of group {c}" for a, b, c in zip(t, k, g, strict=True)],
                    "model": f"system{m:03d}",
                    "run_id": np.char.add("r", r.astype(str)),
                    "template_id": np.char.add("t", t.astype(str)),
                }
            )
        )
    return frames


def fairpair(quick: bool, models: int = MODELS) -> dict:
    from biasflow.fairpair.comparisons import comparison_table
    from biasflow.fairpair.scores import BootstrapSettings, summarise
    from biasflow.fairpair.variance import variance_table

    prompts, draws, bootstrap = (20, 100, 100) if quick else (60, 1000, 2000)
    scores, nulls = fairpair_scores(models, prompts, draws)
    scores = pd.concat(scores, ignore_index=True)
    baseline, _ = timed(
        summarise, scores, pd.concat(nulls, ignore_index=True), BootstrapSettings(bootstrap=bootstrap, seed=0)
    )
    seconds, table = timed(comparison_table, scores, draws, 0)
    variance, _ = timed(variance_table, scores)
    return {
        "method": "FairPair",
        "size": f"{prompts} prompts, {models} models",
        "baseline": "summary with its bootstrap",
        "baseline_s": baseline,
        "comparisons_s": seconds,
        "variance_s": variance,
        "rows": len(table),
    }


def fairpair_scores(
    models: int, prompts: int, draws: int, seed: int = 1
) -> tuple[list[pd.DataFrame], list[pd.DataFrame]]:
    """Per model, per-prompt scores as the score step writes them, and each prompt's ``draws`` null draws of F."""
    from biasflow.fairpair.null import NULL_DRAW_COLUMNS
    from biasflow.fairpair.scores import PROMPT_SCORE_COLUMNS

    rng = np.random.default_rng(seed)
    scores, nulls = [], []
    for m in range(models):
        ids = [f"p{i:02d}" for i in range(prompts)]
        F = rng.gamma(2.0, 0.6, prompts)
        null_F = rng.gamma(2.0, 0.5, (draws, prompts))
        R, null_R = F / (1 + F), null_F / (1 + null_F)
        table = pd.DataFrame(dict.fromkeys(PROMPT_SCORE_COLUMNS, 1.0), index=range(prompts))
        scores.append(
            table.assign(
                prompt_id=ids,
                dissimilarity="sentiment",
                F=F,
                R=R,
                p_perm=0.5,
                F_null_mean=null_F.mean(axis=0),
                R_null_mean=null_R.mean(axis=0),
                R_null_sd=np.vstack([null_R, R]).std(axis=0),
                model=f"model{m:03d}",
            )
        )
        nulls.append(
            pd.DataFrame(
                {
                    "prompt_id": np.tile(ids, draws),
                    "dissimilarity": "sentiment",
                    "draw": np.repeat(np.arange(draws), prompts),
                    "F": null_F.ravel(),
                    "model": f"model{m:03d}",
                }
            )[[*NULL_DRAW_COLUMNS, "model"]]
        )
    return scores, nulls


# --- at leaderboard size: every pair, against a baseline, none (docs/methods.md §7) ---------------------

# Models (systems) per leaderboard measurement, and the pair choices each is timed with.
SIZES = (10, 50, 200)
QUICK_SIZES = (3, 5)
CHOICES = ("none", "baseline", "all")
# Each size runs once more first, with no pairs and not recorded, so that no choice pays for reading its inputs
# from disk the first time.
WARM = ("warm", *CHOICES)


def clocked(function, **kwargs) -> tuple[float, float]:
    """Wall and CPU seconds of one call: other processes on a shared machine stretch the first, much less the second."""
    wall, cpu = time.perf_counter(), time.process_time()
    function(**kwargs)
    return time.perf_counter() - wall, time.process_time() - cpu


def choice(name: str, baseline: str):
    from biasflow.model_pairs import PairChoice

    return PairChoice(pairs="none" if name == "warm" else name, baseline=baseline if name == "baseline" else None)


def fpr_leaderboard(n: int, quick: bool, folder: Path) -> list[dict]:
    """``biasflow fpr-summary`` on one probe set of ``n`` systems (one prediction file each), once per pair choice.

    24 templates × 4 groups × 2 terms, 3 runs, 1000 bootstrap draws and 1000 swaps (the
    defaults): the whole step the command runs (gaps, accuracy, comparisons and their figure,
    spans with their null, net significance, markedness, variance, the tables page).
    """
    from biasflow.fpr.steps import GapSettings, tables_from_predictions

    templates, groups, runs, draws = (6, 3, 2, 20) if quick else (24, 4, 3, 1000)
    paths = []
    for frame in fpr_predictions(n, templates, groups, runs):
        path = folder / f"{frame['model'].iloc[0]}.tsv"
        frame.to_csv(path, sep="\t", index=False)
        paths.append(str(path))
    settings = GapSettings(interval="t", z=1.96, accuracy_floor=0.4, bootstrap=draws, null_draws=draws, seed=0)
    rows = []
    for name in WARM:
        out = folder / name
        seconds, cpu = clocked(
            tables_from_predictions,
            prediction_paths={"race": paths},
            settings=settings,
            out_dir=str(out),
            pairs=choice(name, "system000"),
        )
        compared = out / "race_comparisons.csv"
        rows.append(
            {
                "method": "FPR gaps (fpr-summary)",
                "models": n,
                "pairs": name,
                "seconds": seconds,
                "cpu_s": cpu,
                "rows": len(pd.read_csv(compared)) if compared.exists() else 0,
                "size": f"{templates} templates x {groups} groups x 2 terms, {runs} runs, {draws} draws",
            }
        )
    return rows


def fairpair_leaderboard(n: int, quick: bool, folder: Path) -> list[dict]:
    """FairPair's summary step (``biasflow fairpair-summary`` after scoring) on ``n`` models, once per pair choice.

    60 prompts (the paper's occupations) with 1000 null draws each; the summary's 2000-draw
    bootstrap, 1000 swaps; the summary, comparisons, variance, their figures and the page.
    """
    from biasflow.fairpair.comparisons import ComparisonSettings
    from biasflow.fairpair.scores import BootstrapSettings
    from biasflow.fairpair.steps import summary

    prompts, draws, bootstrap = (10, 50, 50) if quick else (60, 1000, 2000)
    scores, nulls = fairpair_scores(n, prompts, draws)
    score_paths, null_paths = {}, {}
    for table, null in zip(scores, nulls, strict=True):
        model = table["model"].iloc[0]
        score_paths[model], null_paths[model] = str(folder / f"{model}.csv"), str(folder / f"{model}_null.parquet")
        table.drop(columns="model").to_csv(score_paths[model], index=False)
        null.drop(columns="model").to_parquet(null_paths[model])
    rows = []
    for name in WARM:
        out = folder / name
        out.mkdir()
        compares = name not in ("none", "warm")
        roles = ("summary", "plot", "variance", "variance_plot", "tables_page")
        files = {
            role: str(out / f"{role}.{'png' if role.endswith('plot') else 'html' if role == 'tables_page' else 'csv'}")
            for role in (*roles, "comparisons", "comparisons_plot")
            if compares or role in roles
        }
        seconds, cpu = clocked(
            summary,
            score_paths=score_paths,
            null_paths=null_paths,
            rejection_paths={},
            settings=BootstrapSettings(bootstrap=bootstrap, seed=0),
            comparison=ComparisonSettings(null_draws=draws, seed=0),
            outputs=files,
            pairs=choice(name, "model000"),
        )
        rows.append(
            {
                "method": "FairPair (summary step)",
                "models": n,
                "pairs": name,
                "seconds": seconds,
                "cpu_s": cpu,
                "rows": len(pd.read_csv(files["comparisons"])) if compares else 0,
                "size": f"{prompts} prompts, {draws} null draws, {bootstrap} bootstrap",
            }
        )
    return rows


def cairo_leaderboard(n: int, quick: bool, folder: Path) -> list[dict]:
    """``biasflow cairo-select`` on ``n`` models' statistics, once per pair choice: none is the selection alone.

    2 metrics (one metric pair), 1 paraphraser × 2 seeds, 2 generation seeds, 4 subgroups of 6
    clusters; k ≤ 2, 200 permutations (and swaps), 200 bootstrap and 50 null draws: the paper
    size's three metrics and 1000 draws would keep 200 models' every pair running most of an
    hour here.
    """
    from biasflow.cairo.outputs import in_folder
    from biasflow.cairo.selection import SearchSettings
    from biasflow.cairo.steps import select_to_directory

    stats = paper_sized_stats(
        n_models=n,
        metrics=("BOLD", "HONEST"),
        n_paraphrasers=1,
        seeds_per_paraphraser=2,
        n_gen_seeds=2,
        clusters=3 if quick else 6,
    )
    path = folder / "stats.parquet"
    stats.to_parquet(path)
    draws = (20, 20, 5) if quick else (200, 200, 50)
    settings = SearchSettings.defaults(
        mode="shared",
        combinations="multisets",
        max_sets=2,
        permutations=draws[0],
        bootstrap=draws[1],
        null_draws=draws[2],
        seed=0,
    )
    models = sorted(stats["model"].unique())
    rows = []
    for name in WARM:
        out = folder / name
        seconds, cpu = clocked(
            select_to_directory,
            stats_paths=[str(path)],
            settings=settings,
            out_dir=str(out),
            pairs=choice(name, models[0]),
        )
        compared = Path(in_folder(out, "select", "gender")["comparisons"])
        rows.append(
            {
                "method": "CAIRO (cairo-select)",
                "models": n,
                "pairs": name,
                "seconds": seconds,
                "cpu_s": cpu,
                "rows": len(pd.read_csv(compared)) if compared.exists() else 0,
                "size": f"{len(stats):,} statistics rows, {draws[0]} permutations, {draws[1]} bootstrap",
            }
        )
    return rows


def figure_leaderboard(n: int, quick: bool, folder: Path) -> list[dict]:
    """The comparison figure alone (:func:`biasflow.plotting.plot_separations`) of ``n`` models: every pair in the
    view the figure has at that size, the same pairs in the matrix view (the only view before, at any size), and the
    baseline's pairs. Two panels, as an FPR probe set of one attribute has (one per class)."""
    from biasflow import plotting

    rng = np.random.default_rng(2)
    names = [f"model{i:03d}" for i in range(n)]
    estimate = rng.normal(0, 1, n)
    estimates = pd.DataFrame({"model": names, "estimate": estimate, "low": estimate - 0.3, "high": estimate + 0.3})
    a, b = np.triu_indices(n, 1)
    difference = estimate[a] - estimate[b]
    pairs = pd.DataFrame(
        {
            "model_a": np.array(names)[a],
            "model_b": np.array(names)[b],
            "difference": difference,
            "difference_lo": difference - 0.4,
            "difference_hi": difference + 0.4,
            "p_holm": np.where(np.abs(difference) > 0.4, 0.001, 0.6),
        }
    )
    against = pairs[pairs["model_a"] == names[0]].assign(
        model_a=lambda t: t["model_b"], model_b=names[0], difference=lambda t: -t["difference"]
    )
    views = {"all": (pairs, False), "all, matrix view": (pairs, False), "baseline": (against, True)}
    rows = []
    for name, (shown, baseline) in views.items():
        limit = plotting.MATRIX_MAX
        plotting.MATRIX_MAX = n if name.endswith("matrix view") else limit
        try:
            seconds, cpu = clocked(
                plotting.plot_separations,
                panels=[("negative", estimates, shown), ("positive", estimates, shown)],
                xlabel="gap span",
                path=folder / f"{len(rows)}.png",
                against_baseline=baseline,
            )
        finally:
            plotting.MATRIX_MAX = limit
        rows.append(
            {
                "method": "comparison figure",
                "models": n,
                "pairs": name,
                "seconds": seconds,
                "cpu_s": cpu,
                "rows": len(shown),
                "size": "two panels",
            }
        )
    return rows


def leaderboard(sizes, methods, quick: bool) -> list[dict]:
    """Every method's step at each size with each pair choice; ``ratio`` is the CPU time over the same step's with none.

    A first run of each method at the quick size, not recorded, pays the imports and
    matplotlib's start, which would otherwise fall on the first choice timed.
    """
    import tempfile

    runs = {
        "fpr": fpr_leaderboard,
        "fairpair": fairpair_leaderboard,
        "cairo": cairo_leaderboard,
        "figure": figure_leaderboard,
    }
    rows = []
    for method in methods:
        with tempfile.TemporaryDirectory() as folder:
            runs[method](QUICK_SIZES[0], True, Path(folder))
        for n in sizes:
            with tempfile.TemporaryDirectory() as folder:
                measured = runs[method](n, quick, Path(folder))
            measured = [row for row in measured if row["pairs"] != "warm"]
            reference = next(row["cpu_s"] for row in measured if row["pairs"] in ("none", "all"))
            for row in measured:
                row["ratio"] = row["cpu_s"] / reference
                print(
                    f"{row['method']}, {n} models, pairs {row['pairs']}: {row['seconds']:.1f} s, CPU "
                    f"{row['cpu_s']:.1f} s",
                    flush=True,
                )
            rows += measured
    return rows


def leaderboard_table(rows: list[dict]) -> str:
    lines = [
        "| method | models | pairs | pairs compared | rows | wall s | CPU s | ratio (CPU) |",
        "|---|---:|---|---:|---:|---:|---:|---:|",
    ]
    for row in rows:
        n = row["models"]
        compared = n - 1 if row["pairs"] == "baseline" else 0 if row["pairs"] == "none" else n * (n - 1) // 2
        lines.append(
            f"| {row['method']} | {n} | {row['pairs']} | {compared:,} | {row['rows']:,} | "
            f"{row['seconds']:.1f} | {row['cpu_s']:.1f} | {row['ratio']:.2f} |"
        )
    return "\n".join(lines)


def markdown_table(rows: list[dict], models: int = MODELS) -> str:
    lines = [
        "| method | size | baseline: the step's own work | baseline | "
        f"comparisons ({models * (models - 1) // 2} pairs) | ratio | rows | variance split |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for row in rows:
        lines.append(
            f"| {row['method']} | {row['size']} | {row['baseline']} | {row['baseline_s']:.1f} s | "
            f"{row['comparisons_s']:.1f} s | {row['comparisons_s'] / row['baseline_s']:.2f} | "
            f"{row['rows']:,} | {row['variance_s']:.1f} s |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sizes, seconds")
    parser.add_argument("--json", type=Path, help="write the rows here")
    parser.add_argument(
        "--models",
        type=int,
        default=MODELS,
        help=f"models (systems) per method, every pair compared (default: {MODELS})",
    )
    parser.add_argument(
        "--leaderboard",
        nargs="+",
        choices=["fpr", "fairpair", "cairo", "figure"],
        help="instead: these methods' steps at --sizes models, with every pair, against a baseline "
        "and with none (figure: the comparison figure alone, against the matrix view)",
    )
    parser.add_argument(
        "--sizes", nargs="+", type=int, help=f"models per leaderboard run (default: {SIZES}; --quick: {QUICK_SIZES})"
    )
    args = parser.parse_args(argv)
    if args.leaderboard:
        rows = leaderboard(args.sizes or (QUICK_SIZES if args.quick else SIZES), args.leaderboard, args.quick)
        print(leaderboard_table(rows))
    else:
        rows = [function(args.quick, args.models) for function in (cairo, fpr, fairpair)]
        print(markdown_table(rows, args.models))
    if args.json:
        args.json.write_text(json.dumps(rows, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
