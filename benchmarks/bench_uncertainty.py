"""CAIRO's error bars and no-bias null at the paper's size, against a per-draw pandas loop, side by side.

Usage (from the repository root)::

    .venv/bin/python -m benchmarks.bench_uncertainty            # paper size, both measures
    .venv/bin/python -m benchmarks.bench_uncertainty --quick    # small version, seconds

The engine runs the whole selection and headline table (:func:`biasflow.cairo.selection.select`,
:func:`biasflow.cairo.headline.bias_table`) with B permutations, bootstrap draws and null
draws, once per measure (``eq1``, ``excess``), each in a fresh spawned process so its peak
resident memory is its own; a run with the bootstrap and null switched off and one cluster
per subgroup (the statistics and search as they were before clusters) gives the memory
baseline. The per-draw loop does what the engine does one draw at a time in pandas: under
a null draw it relabels the clusters of a metric's statistics and pools every combination
with a group-by; under a bootstrap draw it reweights the clusters and pools the chosen
combination; each r is a ``scipy.stats.pearsonr``. It cannot finish at the paper's size
(days), so it is timed on a sample of draws and combinations and extrapolated from its cost
per unit times the units the full run needs; on that sample its Eq. 1 must equal the
engine's (asserted). docs/methods.md §1.11-1.13.
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import multiprocessing
import resource
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import stats as sps

from benchmarks.baseline_pandas import enumerate_combinations, paraphrase_sets, pooled_bias
from benchmarks.bench_selection import combinations_per_k
from benchmarks.synthetic import paper_sized_stats

TARGET_SECONDS = 120.0


def _peak_rss_bytes() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def _engine(stats: pd.DataFrame, settings: dict) -> dict:
    """Body of a spawned process: the selection and headline table, timed, with the process's peak memory."""
    from biasflow.cairo import headline
    from biasflow.cairo.selection import SearchSettings, select

    rss_before = _peak_rss_bytes()
    search = SearchSettings.defaults(**settings)
    start = time.perf_counter()
    selection = select(stats, search)
    table = headline.bias_table(stats, selection, search)
    seconds = time.perf_counter() - start
    return {
        "seconds": seconds,
        "peak_rss": _peak_rss_bytes(),
        "rss_before": rss_before,
        "curve": selection.curve,
        "table": table,
    }


def _spawned(function, *args) -> dict:
    with ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("spawn")) as pool:
        return pool.submit(function, *args).result()


def relabelled(
    cell: pd.DataFrame, clusters: list[tuple[str, str]], subgroups: list[str], weights: np.ndarray
) -> pd.DataFrame:
    """A metric's statistics under one draw: every cluster's rows weighted and given the subgroup the draw gives it."""
    drawn = [
        (clusters[c][0], clusters[c][1], subgroups[g], weights[g, c]) for g, c in zip(*np.nonzero(weights), strict=True)
    ]
    mapping = pd.DataFrame(drawn, columns=["subgroup", "group_key", "drawn_subgroup", "weight"])
    rows = cell.merge(mapping, on=["subgroup", "group_key"])
    return rows.assign(
        subgroup=rows["drawn_subgroup"], score_sum=rows["score_sum"] * rows["weight"], n=rows["n"] * rows["weight"]
    )


def _per_draw_costs(stats: pd.DataFrame, draws: int, combos: int, seed: int, check) -> dict:
    """Seconds per unit of the per-draw loop, timed on ``draws`` draws of each kind and ``combos`` combinations."""
    from biasflow.cairo.combinations import pooled_bias as engine_bias
    from biasflow.cairo.combinations import pooled_stats
    from biasflow.cairo.uncertainty import bootstrap_weights, null_weights

    metric = sorted(stats["metric"].unique())[0]
    cell = stats[(stats["metric"] == metric) & (stats["split"] == "valid")]
    sets = paraphrase_sets(stats)
    models = sorted(stats["model"].unique())
    rng = np.random.default_rng(seed)
    every = enumerate_combinations(sets, 3, "multisets")
    sample = [every[i] for i in rng.choice(len(every), size=min(combos, len(every)), replace=False)]
    pooled = pooled_stats(stats, metric, cell["axis"].iloc[0], "valid", ["original", *sets], models)
    costs = {}
    for kind, weights in (
        ("null", null_weights(pooled, draws, rng)),
        ("bootstrap", bootstrap_weights(pooled, draws, rng)),
    ):
        start = time.perf_counter()
        biases = [
            [
                pooled_bias(relabelled(cell, pooled.clusters, pooled.subgroups, w), c).reindex(models).to_numpy()
                for c in sample
            ]
            for w in weights
        ]
        costs[kind] = (time.perf_counter() - start) / (draws * len(sample))
        counts = np.array([[c.count(name) for name in ["original", *sets]] for c in sample], dtype=np.float64)
        check(np.array([engine_bias(counts, pooled, "none", w) for w in weights]), np.array(biases))
    vectors = [b for draw in biases for b in draw]
    start = time.perf_counter()
    for x, y in itertools.pairwise(vectors):
        sps.pearsonr(x, y)
    costs["pearsonr"] = (time.perf_counter() - start) / max(1, len(vectors) - 1)
    return costs


def full_units(
    stats: pd.DataFrame, max_sets: int, permutations: int, bootstrap: int, null_draws: int, measure: str
) -> dict:
    """Units of work of each kind the whole run needs, counted as the per-draw loop would do them."""
    metrics = stats["metric"].nunique()
    pairs = math.comb(metrics, 2)
    per_k = combinations_per_k(len(paraphrase_sets(stats)), max_sets, "multisets")
    searched = pairs * sum(per_k)
    passes = 2 if measure == "excess" else 1
    # headline: 2 metrics per pair x 2 splits x (original, cairo)
    headline = pairs * 2 * 2 * 2
    return {
        "null": passes * 2 * searched * null_draws + headline * null_draws + pairs * max_sets * 2 * 2 * null_draws,
        "bootstrap": pairs * max_sets * 2 * 2 * bootstrap + headline * bootstrap,
        # the search under every null draw; perm_p, excess_perm_p; the r intervals on both splits, test_excess_perm_p
        "pearsonr": searched * null_draws
        + 2 * searched * permutations
        + pairs * max_sets * (2 * bootstrap + permutations),
    }


def run(args: argparse.Namespace) -> list[dict]:
    stats = paper_sized_stats(
        n_models=args.models,
        n_paraphrasers=args.paraphrasers,
        seeds_per_paraphraser=args.seeds_per_paraphraser,
        clusters=args.clusters,
    )
    before = paper_sized_stats(
        n_models=args.models,
        n_paraphrasers=args.paraphrasers,
        seeds_per_paraphraser=args.seeds_per_paraphraser,
        clusters=1,
    )
    common = dict(
        mode="shared", combinations="multisets", max_sets=args.max_sets, permutations=args.permutations, seed=0
    )
    search_only = _spawned(_engine, before, {**common, "bootstrap": 0, "null_draws": 0})

    def check(engine: np.ndarray, loop: np.ndarray) -> None:
        np.testing.assert_allclose(engine, loop, rtol=1e-9, err_msg="the per-draw loop and the engine disagree")

    costs = _per_draw_costs(stats, args.baseline_draws, args.baseline_combinations, 1, check)
    rows = []
    for measure in ("eq1", "excess"):
        settings = {**common, "bootstrap": args.bootstrap, "null_draws": args.null_draws, "measure": measure}
        engine = _spawned(_engine, stats, settings)
        units = full_units(stats, args.max_sets, args.permutations, args.bootstrap, args.null_draws, measure)
        baseline = sum(costs[kind] * units[kind] for kind in units)
        rows.append(
            {
                "measure": measure,
                "permutations": args.permutations,
                "bootstrap": args.bootstrap,
                "null_draws": args.null_draws,
                "stats_rows": len(stats),
                "stats_mib": stats.memory_usage(deep=True).sum() / 2**20,
                "stats_rows_before": len(before),
                "stats_mib_before": before.memory_usage(deep=True).sum() / 2**20,
                "engine_seconds": engine["seconds"],
                "engine_peak_rss_mib": engine["peak_rss"] / 2**20,
                "search_only_seconds": search_only["seconds"],
                "search_only_peak_rss_mib": search_only["peak_rss"] / 2**20,
                "baseline_per_unit_seconds": costs,
                "baseline_units": units,
                "baseline_seconds": baseline,
                "speedup": baseline / engine["seconds"],
                "target_seconds": TARGET_SECONDS,
                "target_met": engine["seconds"] < TARGET_SECONDS,
            }
        )
    return rows


def _duration(seconds: float) -> str:
    for unit, size in (("h", 3600), ("min", 60)):
        if seconds >= 2 * size:
            return f"{seconds / size:,.1f} {unit}"
    return f"{seconds:.1f} s"


def markdown_table(rows: list[dict]) -> str:
    lines = [
        "| measure | statistics rows (MiB) | engine time | engine peak RSS | search alone, one cluster: time, peak RSS "
        "| per-draw loop (extrapolated) | speedup | target | met |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for row in rows:
        lines.append(
            f"| {row['measure']} (B = {row['permutations']}, {row['bootstrap']} bootstrap, {row['null_draws']} null) "
            f"| {row['stats_rows']:,} ({row['stats_mib']:.1f}); before {row['stats_rows_before']:,} "
            f"({row['stats_mib_before']:.1f}) | {row['engine_seconds']:.1f} s | {row['engine_peak_rss_mib']:.0f} MiB "
            f"| {row['search_only_seconds']:.1f} s, {row['search_only_peak_rss_mib']:.0f} MiB "
            f"| {_duration(row['baseline_seconds'])} | {row['speedup']:,.0f}x | < {row['target_seconds']:g} s "
            f"| {'yes' if row['target_met'] else 'NO'} |"
        )
    return "\n".join(lines)


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="6 paraphrase sets, k <= 3, few draws: seconds")
    parser.add_argument("--models", type=int, default=10)
    parser.add_argument("--paraphrasers", type=int, default=3)
    parser.add_argument("--seeds-per-paraphraser", type=int, default=5)
    parser.add_argument("--clusters", type=int, default=6, help="clusters (group_key) per subgroup and split")
    parser.add_argument("--max-sets", type=int, default=6)
    parser.add_argument("--permutations", type=int, default=1000)
    parser.add_argument("--bootstrap", type=int, default=1000)
    parser.add_argument("--null-draws", type=int, default=200)
    parser.add_argument("--baseline-draws", type=int, default=5, help="draws of each kind the loop is timed on")
    parser.add_argument("--baseline-combinations", type=int, default=10, help="combinations the loop is timed on")
    parser.add_argument("--json", help="also write the rows to this JSON file")
    args = parser.parse_args(argv)
    if args.quick:
        args.paraphrasers, args.seeds_per_paraphraser, args.max_sets = 2, 3, 3
        args.permutations, args.bootstrap, args.null_draws = 50, 50, 20
        args.baseline_draws, args.baseline_combinations = 2, 3
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    rows = run(args)
    print(json.dumps(rows, indent=2), file=sys.stderr)
    print(markdown_table(rows))
    if args.json:
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        with open(args.json, "w") as handle:
            json.dump({"settings": vars(args), "rows": rows}, handle, indent=2)
    return 0 if all(row["target_met"] for row in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
