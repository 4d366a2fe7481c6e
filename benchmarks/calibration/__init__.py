"""One calibration table for every interval and test biasflow reports (docs/methods.md §1.15, §2.8, §3.7, §5.5).

Each :class:`Scenario` simulates datasets with a known truth in one design real data have
(nested or crossed clusters, variance between clusters, few clusters, zeros and ties,
identical runs) and counts, per dataset, whether an interval covered the truth or a test
rejected at 0.05. The table gives each scenario's rate with its Monte Carlo error beside
the nominal level and the range the project promises (``lower``-``upper``).

The methods' scenarios live in this package's modules (:data:`MODULES`), each a list
``SCENARIOS``. ``python -m benchmarks.calibration`` runs them at their full sizes (minutes
on 2 cores) and writes ``benchmarks/calibration.csv`` and the JSON that
``benchmarks/readme_numbers.py`` renders into benchmarks/README.md;
``tests/core/test_calibration_table.py`` runs every scenario at its quick size.

Repetition i of a scenario draws from a stream keyed by the scenario's name and i, so a
quick run is the first repetitions of the full one, and adding a scenario moves no other.
"""

from __future__ import annotations

import importlib
import math
import time
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from biasflow.hashing import stable_hash

# The modules holding the scenarios, one per method (and the scorer-bias step).
MODULES = ("cairo", "fairpair", "fpr", "scorer_bias")
COVERAGE, REJECTION, MEAN = "coverage", "rejection rate", "mean"
COLUMNS = ["method", "statistic", "design", "truth", "measure", "nominal", "lower", "upper", "rate", "mc_error",
           "n_checked", "repetitions", "seconds"]


@dataclass(frozen=True)
class Scenario:
    """One simulated design, one statistic, one truth.

    ``trial(rng, **params)`` simulates one dataset and returns, for each row the statistic
    was checked on (a model, a subgroup, a gap), whether its interval covered the truth
    (``measure`` coverage) or its test rejected at 0.05 (rejection rate): a boolean array;
    or, for ``measure`` mean, the statistic's values (an estimate whose mean should be 0).
    ``nominal`` is what a calibrated procedure gives (0.95, 0.05, 0; NaN for power, where the
    effect is known), ``lower``-``upper`` the range the project promises. ``quick`` and
    ``full`` are the repetitions in the test suite and in the table. ``trial`` must be a
    module-level function (the table runs scenarios in worker processes).
    """

    method: str
    statistic: str
    design: str
    truth: str
    measure: str
    nominal: float
    lower: float
    upper: float
    trial: Callable[..., np.ndarray]
    params: dict = field(default_factory=dict)
    quick: int = 100
    full: int = 1000

    @property
    def name(self) -> str:
        return f"{self.method}: {self.statistic} | {self.design} | {self.truth}"


@dataclass(frozen=True)
class Result:
    """A scenario's rate over its repetitions and the Monte Carlo error of that rate."""

    scenario: Scenario
    rate: float
    mc_error: float
    n_checked: int
    repetitions: int
    seconds: float

    def row(self) -> dict:
        s = self.scenario
        return {"method": s.method, "statistic": s.statistic, "design": s.design, "truth": s.truth,
                "measure": s.measure, "nominal": s.nominal, "lower": s.lower, "upper": s.upper, "rate": self.rate,
                "mc_error": self.mc_error, "n_checked": self.n_checked, "repetitions": self.repetitions,
                "seconds": self.seconds}

    @property
    def within(self) -> bool:
        """Whether the rate lies in the promised range, allowing 2.5 Monte Carlo errors."""
        slack = 2.5 * self.mc_error
        return self.scenario.lower - slack <= self.rate <= self.scenario.upper + slack


def scenarios(modules=MODULES) -> list[Scenario]:
    """Every scenario of ``modules`` (names in :data:`MODULES`), in their order."""
    out = []
    for name in modules:
        out.extend(importlib.import_module(f"benchmarks.calibration.{name}").SCENARIOS)
    return out


def repetition_rng(scenario: Scenario, repetition: int, seed: int = 0) -> np.random.Generator:
    """The stream of one repetition of a scenario: keyed by its name, never by its position in a list."""
    return np.random.default_rng([seed, int(stable_hash(scenario.name), 16) & (2**63 - 1), repetition])


def run(scenario: Scenario, repetitions: int, seed: int = 0) -> Result:
    """The scenario's rate over ``repetitions`` datasets.

    Rows of one dataset are correlated (the same draws, the same data), so the Monte Carlo
    error treats datasets as clusters: the standard error of the ratio estimator
    Σ hits / Σ rows over datasets.
    """
    start = time.perf_counter()
    hits, rows = np.zeros(repetitions), np.zeros(repetitions)
    for i in range(repetitions):
        checked = np.asarray(scenario.trial(repetition_rng(scenario, i, seed), **scenario.params), dtype=np.float64)
        hits[i], rows[i] = checked.sum(), checked.size
    total = rows.sum()
    if not total:
        raise ValueError(f"{scenario.name}: no row was checked in {repetitions} repetitions")
    rate = hits.sum() / total
    error = math.sqrt(((hits - rate * rows) ** 2).sum()) / total if repetitions > 1 else math.nan
    return Result(scenario, float(rate), float(error), int(total), repetitions, time.perf_counter() - start)


def markdown_table(rows: list[dict]) -> str:
    """The calibration table as markdown: one line per scenario, rate ± Monte Carlo error beside the nominal level."""
    lines = ["| method | statistic | design | truth | measure | nominal | promised | rate ± MC error | datasets |",
             "|---|---|---|---|---|---|---|---|---|"]
    for row in rows:
        number = "{:+.4f}".format if row["measure"] == MEAN else "{:.1%}".format
        bound = "{:+.3f}".format if row["measure"] == MEAN else "{:.0%}".format
        nominal = "—" if math.isnan(row["nominal"]) else bound(row["nominal"])
        promised = f"{bound(row['lower'])} to {bound(row['upper'])}"
        error = f"{row['mc_error']:.4f}" if row["measure"] == MEAN else f"{row['mc_error']:.1%}"
        lines.append(f"| {row['method']} | {row['statistic']} | {row['design']} | {row['truth']} | {row['measure']} "
                     f"| {nominal} | {promised} | {number(row['rate'])} ± {error} | {row['repetitions']:,} |")
    return "\n".join(lines)
