"""Run the calibration table: ``python -m benchmarks.calibration`` (see the package docstring).

Usage (from the repository root)::

    .venv/bin/python -m benchmarks.calibration                     # every scenario at its full size, 2 workers
    .venv/bin/python -m benchmarks.calibration --quick --only cairo # the test suite's sizes, one method
    .venv/bin/python -m benchmarks.calibration --json benchmarks/out/calibration.json   # what readme_numbers reads
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import pandas as pd

from benchmarks.calibration import COLUMNS, MODULES, broken, headline, markdown_table, run, scenarios, settle

CSV = Path(__file__).resolve().parent.parent / "calibration.csv"


def _run_one(job) -> dict:
    scenario, repetitions, seed, quick = job
    # A quick run cannot settle a rate near its bound: it reports its rate and the quick test's slack.
    result = run(scenario, repetitions, seed) if quick else settle(scenario, repetitions, seed)
    print(
        f"{result.seconds:6.1f} s  {result.rate:6.1%} ± {result.mc_error:.1%}  {result.repetitions:6d}  "
        f"{result.verdict:9s}  {scenario.name}",
        file=sys.stderr,
        flush=True,
    )
    return {**result.row(), "within": result.within}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="+", choices=MODULES, default=list(MODULES), help="these methods' scenarios")
    parser.add_argument("--quick", action="store_true", help="each scenario at the test suite's size")
    parser.add_argument("--seed", type=int, default=0, help="the seed every repetition's stream starts from")
    parser.add_argument("--jobs", type=int, default=min(2, os.cpu_count() or 1), help="worker processes")
    parser.add_argument(
        "--csv",
        type=Path,
        help=f"the table as CSV (default: benchmarks/{CSV.name} for a full run, "
        "none with --quick, so quick rates never replace the table's)",
    )
    parser.add_argument("--json", type=Path, help="also write the rows and timing here (for readme_numbers)")
    args = parser.parse_args(argv)
    start = time.perf_counter()
    jobs = [(s, s.quick if args.quick else s.full, args.seed, args.quick) for s in scenarios(args.only)]
    with ProcessPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        rows = list(pool.map(_run_one, jobs))
    seconds = time.perf_counter() - start
    table = pd.DataFrame(rows)
    csv = args.csv or (None if args.quick else CSV)
    if csv:
        table[COLUMNS].to_csv(csv, index=False)
    print(markdown_table(rows))
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps({"seconds": seconds, "quick": args.quick, "rows": rows}, indent=2))
    failed = [row for row in rows if not row["within"]] if args.quick else broken(rows)
    summary = (
        f"{len(failed)} of {len(rows)} rows beyond their range by more than 2.5 Monte Carlo errors (quick sizes)"
        if args.quick
        else headline(rows)
    )
    print(
        f"{len(rows)} scenarios in {seconds:.0f} s; {summary}"
        + "".join(
            f"\n  {row['method']}: {row['statistic']} | {row['design']} | {row['truth']}: {row['rate']:.1%} "
            f"± {row['mc_error']:.1%} ({row['verdict']})"
            for row in failed
        ),
        file=sys.stderr,
    )
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
