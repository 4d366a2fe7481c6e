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

**A row's verdict** (:func:`verdict`, :func:`settle`) accounts for its Monte Carlo error: a
rate within ``lower``-``upper`` is ``inside``; one beyond them by more than
:data:`MC_ERRORS` Monte Carlo errors is ``outside``, a promise broken; one between is not
yet told apart from the bound, so the full table doubles the scenario's repetitions (the
same streams, extended) until the rule can tell, up to :data:`MAX_GROWTH` times its full
size, and a row still between is ``undecided``: its rate lies within 2 Monte Carlo errors of
its bound at a quarter of its full size's error, which is where a procedure exactly at its
nominal level lands half the time (a one-sided test at 5% whose truth is the margin). The
rule keeps such a row (outside only beyond 2 Monte Carlo errors); the table fails (and CI
with it, tests/core/test_calibration_table.py) when any row is ``outside``.
"""

from __future__ import annotations

import importlib
import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from biasflow.hashing import stable_hash

# The modules holding the scenarios, one per method (and the scorer-bias step).
MODULES = ("cairo", "fairpair", "fpr", "scorer_bias")
COVERAGE, REJECTION, MEAN = "coverage", "rejection rate", "mean"
COLUMNS = [
    "method",
    "statistic",
    "design",
    "truth",
    "measure",
    "nominal",
    "lower",
    "upper",
    "rate",
    "mc_error",
    "n_checked",
    "repetitions",
    "seconds",
    "verdict",
]
# A rate farther than this many Monte Carlo errors beyond the promised range breaks the promise.
MC_ERRORS = 2.0
# The full table doubles an undecided row's repetitions up to this many times its full size.
MAX_GROWTH = 16
INSIDE, OUTSIDE, UNDECIDED = "inside", "outside", "undecided"


def verdict(rate: float, mc_error: float, lower: float, upper: float) -> str:
    """``inside`` the promised range, ``outside`` it by more than :data:`MC_ERRORS` errors, else ``undecided``."""
    if lower <= rate <= upper:
        return INSIDE
    beyond = lower - rate if rate < lower else rate - upper
    return OUTSIDE if beyond > MC_ERRORS * mc_error else UNDECIDED


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
        return {
            "method": s.method,
            "statistic": s.statistic,
            "design": s.design,
            "truth": s.truth,
            "measure": s.measure,
            "nominal": s.nominal,
            "lower": s.lower,
            "upper": s.upper,
            "rate": self.rate,
            "mc_error": self.mc_error,
            "n_checked": self.n_checked,
            "repetitions": self.repetitions,
            "seconds": self.seconds,
            "verdict": self.verdict,
        }

    @property
    def verdict(self) -> str:
        """The row's :func:`verdict` from its rate and Monte Carlo error."""
        return verdict(self.rate, self.mc_error, self.scenario.lower, self.scenario.upper)

    @property
    def within(self) -> bool:
        """At a quick size, which cannot settle a rate near its bound: no farther than 2.5 errors beyond the range."""
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
    hits, rows = _repetitions(scenario, 0, repetitions, seed)
    return _result(scenario, hits, rows, time.perf_counter() - start)


def settle(scenario: Scenario, repetitions: int, seed: int = 0, growth: int = MAX_GROWTH) -> Result:
    """:func:`run`, with the repetitions doubled while the row is ``undecided``, up to ``growth`` times ``repetitions``.

    The added repetitions continue the same streams (repetition i is always the same
    dataset), so a settled row is the first repetitions' rate made more precise.
    """
    start = time.perf_counter()
    hits, rows = _repetitions(scenario, 0, repetitions, seed)
    result = _result(scenario, hits, rows, time.perf_counter() - start)
    while result.verdict == UNDECIDED and len(hits) * 2 <= growth * repetitions:
        more = _repetitions(scenario, len(hits), 2 * len(hits), seed)
        hits, rows = np.concatenate([hits, more[0]]), np.concatenate([rows, more[1]])
        result = _result(scenario, hits, rows, time.perf_counter() - start)
    return result


def _repetitions(scenario: Scenario, first: int, stop: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Hits and rows checked of repetitions ``first`` to ``stop`` − 1."""
    hits, rows = np.zeros(stop - first), np.zeros(stop - first)
    for i in range(first, stop):
        checked = np.asarray(scenario.trial(repetition_rng(scenario, i, seed), **scenario.params), dtype=np.float64)
        hits[i - first], rows[i - first] = checked.sum(), checked.size
    return hits, rows


def _result(scenario: Scenario, hits: np.ndarray, rows: np.ndarray, seconds: float) -> Result:
    total = rows.sum()
    if not total:
        raise ValueError(f"{scenario.name}: no row was checked in {len(hits)} repetitions")
    rate = hits.sum() / total
    error = math.sqrt(((hits - rate * rows) ** 2).sum()) / total if len(hits) > 1 else math.nan
    return Result(scenario, float(rate), float(error), int(total), len(hits), seconds)


def broken(rows: list[dict]) -> list[dict]:
    """The rows whose verdict is ``outside``: each a promise broken (an ``undecided`` row sits at its bound)."""
    return [row for row in rows if row["verdict"] == OUTSIDE]


def headline(rows: list[dict]) -> str:
    """The table's first line: how many rows fall outside their promised range, by the rule of :func:`verdict`."""
    counts = {name: sum(row["verdict"] == name for row in rows) for name in (OUTSIDE, UNDECIDED)}
    return (
        f"{counts[OUTSIDE]} of {len(rows)} rows outside their promised range (by more than {MC_ERRORS:g} Monte "
        f"Carlo errors), {counts[UNDECIDED]} at their bound (within them at {MAX_GROWTH} times their repetitions)."
    )


def markdown_table(rows: list[dict]) -> str:
    """The calibration table as markdown: its :func:`headline`, then one line per scenario, rate ± Monte Carlo error."""
    lines = [
        f"**{headline(rows)}**",
        "",
        "| method | statistic | design | truth | measure | nominal | promised | rate ± MC error | datasets | verdict |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for row in rows:
        number = "{:+.4f}".format if row["measure"] == MEAN else "{:.1%}".format
        bound = "{:+.3f}".format if row["measure"] == MEAN else "{:.0%}".format
        nominal = "—" if math.isnan(row["nominal"]) else bound(row["nominal"])
        promised = f"{bound(row['lower'])} to {bound(row['upper'])}"
        error = f"{row['mc_error']:.4f}" if row["measure"] == MEAN else f"{row['mc_error']:.1%}"
        lines.append(
            f"| {row['method']} | {row['statistic']} | {row['design']} | {row['truth']} | {row['measure']} "
            f"| {nominal} | {promised} | {number(row['rate'])} ± {error} | {row['repetitions']:,} "
            f"| {row['verdict']} |"
        )
    return "\n".join(lines)
