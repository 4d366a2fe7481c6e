"""The calibration table's machinery, the committed table's verdicts, and every scenario at its quick size.

Each scenario's rate must lie in the range the project promises, allowing 2.5 Monte Carlo
errors at the quick size (the ``calibration`` suite, ``make test-calibration``); the full table
(``python -m benchmarks.calibration``, ``benchmarks/calibration.csv``) is where the rates are
read with their errors, and it must hold every promise by the verdict rule of
:func:`benchmarks.calibration.verdict`: this suite fails on a committed row that does not.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from benchmarks.calibration import (
    COLUMNS,
    COVERAGE,
    INSIDE,
    MAX_GROWTH,
    OUTSIDE,
    UNDECIDED,
    Scenario,
    headline,
    repetition_rng,
    run,
    scenarios,
    settle,
    verdict,
)

TABLE = Path(__file__).resolve().parents[2] / "benchmarks" / "calibration.csv"


def _coin(rng, p, rows):
    return rng.random(rows) < p


def _same(rng):
    """Ten copies of one coin: ten rows that carry the information of one."""
    return np.repeat(rng.random() < 0.5, 10)


def test_the_rate_and_its_error_of_one_row_per_dataset_are_the_binomial_ones():
    scenario = Scenario("m", "s", "d", "t", COVERAGE, 0.95, 0.9, 1.0, _coin, {"p": 0.9, "rows": 1})
    result = run(scenario, 400)
    hits = [bool(repetition_rng(scenario, i).random(1)[0] < 0.9) for i in range(400)]
    assert result.rate == pytest.approx(np.mean(hits))
    assert result.mc_error == pytest.approx(math.sqrt(result.rate * (1 - result.rate) / 400))
    assert result.n_checked == 400


def test_rows_of_one_dataset_count_as_one_cluster_in_the_error():
    """Ten identical rows per dataset carry the information of one: the error is the one-row error."""
    scenario = Scenario("m", "s", "d", "t", COVERAGE, 0.95, 0.0, 1.0, _same)
    result = run(scenario, 300)
    assert result.n_checked == 3000
    assert result.mc_error == pytest.approx(math.sqrt(result.rate * (1 - result.rate) / 300))


def test_a_quick_run_is_the_start_of_the_full_one():
    scenario = Scenario("m", "s", "d", "t", COVERAGE, 0.95, 0.0, 1.0, _coin, {"p": 0.5, "rows": 3})
    first = [scenario.trial(repetition_rng(scenario, i), **scenario.params) for i in range(5)]
    again = [scenario.trial(repetition_rng(scenario, i), **scenario.params) for i in range(5)]
    assert all((a == b).all() for a, b in zip(first, again, strict=True))


@pytest.mark.parametrize(
    ("rate", "error", "expected"),
    [
        (0.90, 0.01, INSIDE),
        (1.0, 0.0, INSIDE),
        (0.95, 0.0, INSIDE),  # at or within the bounds
        (0.899, 0.006826, UNDECIDED),  # the row: 0.1 errors below the floor
        (0.8801, 0.01, UNDECIDED),
        (0.8799, 0.01, OUTSIDE),  # just within 2 errors below the floor, and beyond
        (0.0605, 0.005471, UNDECIDED),
        (0.0605, 0.0002, OUTSIDE),  # above the ceiling, within and beyond 2 errors
    ],
)
def test_the_verdict_counts_monte_carlo_errors_beyond_the_range(rate, error, expected):
    assert verdict(rate, error, 0.90 if rate > 0.5 else 0.0, 1.0 if rate > 0.5 else 0.06) == expected


def _coverage(rng, p):
    return np.array([rng.random() < p])


def test_an_undecided_row_gets_more_repetitions_until_the_rule_tells():
    """A coverage of 0.87 against a floor of 0.90 is undecided at 100 datasets, and outside once they are many."""
    scenario = Scenario("m", "s", "d", "t", COVERAGE, 0.95, 0.9, 1.0, _coverage, {"p": 0.87})
    first = run(scenario, 100)
    assert first.verdict == UNDECIDED
    settled = settle(scenario, 100)
    assert settled.verdict == OUTSIDE and settled.repetitions in (200, 400, 800, 1600)
    # The same streams, extended: the rate is the count over the first `repetitions` datasets, by hand.
    hits = [bool(repetition_rng(scenario, i).random() < 0.87) for i in range(settled.repetitions)]
    assert settled.rate == pytest.approx(np.mean(hits))
    assert settled.mc_error == pytest.approx(math.sqrt(settled.rate * (1 - settled.rate) / settled.repetitions))
    # Doubling stops at the cap: a rate sitting on the bound's edge stays undecided, never called inside.
    edge = Scenario("m", "s", "d", "t", COVERAGE, 0.95, 0.9, 1.0, _coverage, {"p": 0.899})
    capped = settle(edge, 50, growth=4)
    assert capped.repetitions <= 200 and capped.verdict in (UNDECIDED, OUTSIDE, INSIDE)
    assert capped.verdict == verdict(capped.rate, capped.mc_error, 0.9, 1.0)


def test_the_committed_table_holds_every_promise():
    """benchmarks/calibration.csv, as `python -m benchmarks.calibration` wrote it: no row outside; a row undecided at
    16 times its repetitions sits within 2 Monte Carlo errors of its bound, which the rule keeps."""
    table = pd.read_csv(TABLE)
    assert list(table.columns) == COLUMNS
    recomputed = [verdict(row.rate, row.mc_error, row.lower, row.upper) for row in table.itertuples()]
    assert recomputed == list(table["verdict"]), "each row's verdict is the rule's"
    rows = table.to_dict("records")
    assert headline(rows).startswith(f"0 of {len(rows)} rows outside"), headline(rows)
    failing = table[table["verdict"] == OUTSIDE]
    assert failing.empty, failing[["statistic", "design", "truth", "rate", "mc_error", "lower", "upper"]].to_string()
    full = {s.name: s.full for s in scenarios()}
    for row in table[table["verdict"] == UNDECIDED].itertuples():
        name = f"{row.method}: {row.statistic} | {row.design} | {row.truth}"
        assert row.repetitions >= MAX_GROWTH * full[name], f"{name}: undecided before its last doubling"
    assert {s.name for s in scenarios()} == {
        f"{r.method}: {r.statistic} | {r.design} | {r.truth}" for r in table.itertuples()
    }, "every scenario has its row"


@pytest.mark.calibration
@pytest.mark.parametrize("scenario", scenarios(), ids=lambda s: s.name)
def test_scenario_at_quick_size(scenario):
    result = run(scenario, scenario.quick)
    assert result.within, (
        f"{scenario.name}: {result.rate:.1%} ± {result.mc_error:.1%} over {scenario.quick} datasets, promised "
        f"{scenario.lower:.0%}-{scenario.upper:.0%}"
    )
