"""The calibration table's machinery, and every scenario of it at its quick size (benchmarks/calibration).

Each scenario's rate must lie in the range the project promises, allowing 2.5 Monte Carlo
errors at the quick size (the ``calibration`` suite, ``make test-calibration``); the full table (``python -m benchmarks.calibration``) is where
the rates are read with their errors.
"""

from __future__ import annotations

import math
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from benchmarks.calibration import COVERAGE, Scenario, repetition_rng, run, scenarios  # noqa: E402


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
    assert all((a == b).all() for a, b in zip(first, again))


@pytest.mark.calibration
@pytest.mark.parametrize("scenario", scenarios(), ids=lambda s: s.name)
def test_scenario_at_quick_size(scenario):
    result = run(scenario, scenario.quick)
    assert result.within, (
        f"{scenario.name}: {result.rate:.1%} ± {result.mc_error:.1%} over {scenario.quick} datasets, promised "
        f"{scenario.lower:.0%}-{scenario.upper:.0%}"
    )
