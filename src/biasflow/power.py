"""The power planner's shared part: its designs, the table every method writes and the step (docs/methods.md §6).

A pilot run says how noisy each measurement is; the planner turns that into two answers a
user can act on before spending a cluster's hours: the smallest difference each subgroup
could show at the configured power and significance level with the sizes at hand (the
minimum detectable difference, ``mdd``), and the size a study needs for the difference worth
detecting (``power.min_effect``). Each method reduces its pilot to one of four textbook
designs (two proportions, two means, one mean, a correlation), solved with
``statsmodels.stats.power``; the method packages (``<method>/power.py``) say which design
fits which number and how its units are counted. A fifth answer plans the release gate of
``biasflow compare`` (§6.8): the units at which a candidate truly equal to the baseline is
shown ``not worse`` at the margin, from the pilot's own paired 90% interval, by the formula
the verdicts quote (:func:`biasflow.verdicts.noninferiority_units`). This module knows no
method: it finds each method's planner through the method's declaration (:mod:`biasflow.methods`).
"""

from __future__ import annotations

import logging
import math
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import ModuleType
from typing import ClassVar

import numpy as np
import pandas as pd

from biasflow.html_tables import Section, write_tables_page
from biasflow.methods import method as declared
from biasflow.model_pairs import PairChoice
from biasflow.settings import StepSettings
from biasflow.tables import write_table
from biasflow.verdicts import noninferiority_mdd, noninferiority_units, paired_se, upper_reach

log = logging.getLogger("biasflow")

# Each method's power files in the workflow, by role: the table and the report's page of it.
OUTPUTS = {"table": "results/power/{method}.csv", "page": "results/power/{method}.html"}
POWER_COLUMNS = [
    "method",
    "model",
    "scope",
    "subgroup",
    "measure",
    "unit",
    "n",
    "n_other",
    "n_effective",
    "baseline",
    "sd",
    "mdd",
    "target",
    "n_needed",
    "detectable",
]
# The measure of a row planning the release gate (§6.8), followed by what the gate judges: "non-inferiority margin
# (Eq. 1)".
NONINFERIORITY = "non-inferiority margin"


@dataclass(frozen=True)
class PowerSettings(StepSettings):
    """What a planner reads of ``power``, and ``comparisons`` (which pairs of models get a paired row, §6.6: the
    pairs the comparison tables hold); each method's subclass names its own ``power.min_effect.<method>``, its
    ``keys`` extending :data:`PowerSettings.keys`."""

    section = "power"
    keys: ClassVar[Mapping[str, str | None]] = {"pairs": "comparisons"}

    alpha: float
    power: float
    min_effect: float
    pairs: PairChoice


def _solve(engine, **kwargs) -> float:
    """One unknown of a statsmodels power equation; NaN where no finite answer exists (say, n < 2 for a t test)."""
    if any(not math.isfinite(v) for v in kwargs.values() if isinstance(v, (int, float))):
        return math.nan
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            value = float(np.asarray(engine.solve_power(alternative="two-sided", **kwargs)).ravel()[0])
    except (ValueError, ZeroDivisionError, FloatingPointError, RuntimeError):
        return math.nan
    return value if math.isfinite(value) and value > 0 else math.nan


def _engines():
    from statsmodels.stats.power import NormalIndPower, TTestIndPower, TTestPower

    return NormalIndPower(), TTestIndPower(), TTestPower()


def proportions_mdd(p0: float, n: float, n_other: float, alpha: float, power: float) -> float:
    """Smallest rise of a proportion above ``p0`` that a group of ``n`` detects against ``n_other`` (§6.2).

    Cohen's h, ``2·asin√p1 − 2·asin√p0``, is what the two-sample z test on arcsine-transformed
    proportions sees with variance ``1/n + 1/n_other``; the h it needs is mapped back to p1.
    NaN where even p1 = 1 is too little.
    """
    normal, _, _ = _engines()
    if n < 1 or n_other < 1:
        return math.nan
    h = _solve(normal, effect_size=None, nobs1=n, ratio=n_other / n, alpha=alpha, power=power)
    angle = math.asin(math.sqrt(p0)) + h / 2
    return math.sin(angle) ** 2 - p0 if angle <= math.pi / 2 else math.nan


def proportions_needed(p0: float, difference: float, ratio: float, alpha: float, power: float) -> float:
    """The group size that detects ``p0 + difference`` against ``p0``, the others ``ratio`` times as many (§6.2)."""
    normal, _, _ = _engines()
    if not 0 <= p0 + difference <= 1:
        return math.nan
    h = 2 * math.asin(math.sqrt(p0 + difference)) - 2 * math.asin(math.sqrt(p0))
    return _solve(normal, effect_size=h, nobs1=None, ratio=ratio, alpha=alpha, power=power)


def means_mdd(sd: float, n: float, n_other: float, alpha: float, power: float) -> float:
    """Smallest difference of two means a two-sample t test detects with ``n`` and ``n_other`` units (§6.3)."""
    _, t_two, _ = _engines()
    if n < 2 or n_other < 2:
        return math.nan
    return sd * _solve(t_two, effect_size=None, nobs1=n, ratio=n_other / n, alpha=alpha, power=power)


def means_needed(sd: float, difference: float, ratio: float, alpha: float, power: float) -> float:
    """Units in the first group detecting ``difference`` between two means, the other ``ratio`` times as many (§6.3)."""
    _, t_two, _ = _engines()
    return (
        _solve(t_two, effect_size=difference / sd, nobs1=None, ratio=ratio, alpha=alpha, power=power)
        if sd > 0
        else math.nan
    )


def mean_mdd(sd: float, n: float, alpha: float, power: float) -> float:
    """Smallest mean a one-sample t test (its t interval excluding 0) detects over ``n`` units (§6.4)."""
    _, _, t_one = _engines()
    return sd * _solve(t_one, effect_size=None, nobs=n, alpha=alpha, power=power) if n >= 2 else math.nan


def mean_needed(sd: float, difference: float, alpha: float, power: float) -> float:
    """Units a one-sample t test needs to detect a mean of ``difference`` (§6.4)."""
    _, _, t_one = _engines()
    return _solve(t_one, effect_size=difference / sd, nobs=None, alpha=alpha, power=power) if sd > 0 else math.nan


def swap_mdd(sd: float, n: float, alpha: float, power: float) -> float:
    """Smallest mean difference a paired swap test over ``n`` units detects, one unit's spread ``sd`` (§6.6).

    A swap (sign-flip) test conditions on the units' absolute differences, so its null
    spread of the mean is √(Σ d²) / n, which at a true difference δ is √(sd² + δ²) / √n:
    wider than a t test's sd / √n by as much as δ is large against sd. With x = δ / sd,
    a = z_{1−α/2} and b = z_power, the design solves x√n = a·√(1 + x²) + b, the positive
    root of x²(n − a²) − 2bx√n + b² − a² = 0; NaN where n ≤ a² (no size of effect is enough).
    """
    from scipy import stats

    a, b = stats.norm.ppf(1 - alpha / 2), stats.norm.ppf(power)
    if not (sd > 0 and n > a**2):
        return math.nan
    root = b * math.sqrt(n) + math.sqrt(b**2 * n - (n - a**2) * (b**2 - a**2))
    return sd * root / (n - a**2)


def swap_needed(sd: float, difference: float, alpha: float, power: float) -> float:
    """Units a paired swap test needs to detect a mean difference of ``difference`` (§6.6; :func:`swap_mdd`)."""
    from scipy import stats

    if not (sd > 0 and difference > 0):
        return math.nan
    x = difference / sd
    return ((stats.norm.ppf(1 - alpha / 2) * math.sqrt(1 + x**2) + stats.norm.ppf(power)) / x) ** 2


def correlation_mdd(n_models: float, alpha: float, power: float) -> float:
    """Smallest Pearson r ``n_models`` models detect: Fisher's z, atanh(r)·√(M − 3) ~ N(0, 1) under r = 0 (§6.5)."""
    normal, _, _ = _engines()
    if n_models < 4:
        return math.nan
    return math.tanh(_solve(normal, effect_size=None, nobs1=n_models - 3, ratio=0, alpha=alpha, power=power))


def correlation_needed(r: float, alpha: float, power: float) -> float:
    """Models needed to detect a Pearson r (§6.5)."""
    normal, _, _ = _engines()
    return _solve(normal, effect_size=math.atanh(r), nobs1=None, ratio=0, alpha=alpha, power=power) + 3


def noninferiority_row(
    *,
    model: str,
    scope: str,
    subgroup: str,
    what: str,
    unit: str,
    n: float,
    lo90: float,
    hi90: float,
    settings: PowerSettings,
    difference: float | None = None,
    plan_factor: float = 1.0,
) -> dict:
    """A row planning the release gate (§6.8) from the pilot's paired 90% interval ``lo90``-``hi90`` over ``n`` units
    around its ``difference`` (where given, hi90 − difference is how far the bound reaches above it; else z · se).

    se = (hi90 − lo90) / (2 z_{0.95}) is the difference's standard error at the pilot's size;
    ``mdd`` is the smallest margin a candidate truly equal to the baseline is shown ``not
    worse`` at with probability ``settings.power`` (the gate's one-sided 5%, whatever
    ``power.alpha``), and ``n_needed`` the units at which that margin falls to
    ``settings.min_effect``, se falling as 1/√n: the numbers an ``inconclusive`` verdict
    quotes for the same interval (:func:`biasflow.verdicts.units_needed`, which never goes
    below the units at hand). ``sd`` is one unit's spread, se · √n. ``plan_factor`` scales the
    error and the reach the plan reads (FairPair's upper confidence bound of its pilot's error).
    """
    se = paired_se(lo90, hi90) * plan_factor
    reach = upper_reach(hi90, difference)
    reach = reach * plan_factor if reach is not None else None
    return {
        "model": model,
        "scope": scope,
        "subgroup": subgroup,
        "measure": f"{NONINFERIORITY} ({what})",
        "unit": unit,
        "n": n,
        "n_other": math.nan,
        "n_effective": n,
        "baseline": 0.0,
        "sd": se * math.sqrt(n) if se > 0 and n > 0 else math.nan,
        "mdd": noninferiority_mdd(se, settings.power, reach),
        "target": settings.min_effect,
        "n_needed": noninferiority_units(n, se, settings.min_effect, settings.power, reach),
    }


def planned(rows: list[dict], method: str, settings: PowerSettings) -> pd.DataFrame:
    """The power table of one method's rows (each a design's sizes and answers), the shortfalls logged.

    ``n_needed`` is rounded up (a study cannot have part of a unit); ``detectable`` says
    whether the study at hand reaches ``target``. Every row that does not is named in the
    log, with what it would need.
    """
    table = pd.DataFrame(rows, columns=[c for c in POWER_COLUMNS if c not in ("method", "detectable")])
    table.insert(0, "method", method)
    table["n_needed"] = np.ceil(table["n_needed"].astype(float))
    table["detectable"] = table["mdd"].astype(float) <= table["target"].astype(float)
    for row in table[~table["detectable"]].itertuples(index=False):
        shown = f"{row.mdd:.3g}" if math.isfinite(row.mdd) else "not within reach"
        needed = f"; about {row.n_needed:,.0f} would be needed" if math.isfinite(row.n_needed) else ""
        who = ", ".join(str(part) for part in (row.model, row.scope, row.subgroup) if part)
        if row.measure.startswith(NONINFERIORITY):
            log.warning(
                "power: %s (%s): with %s %s a candidate truly equal to the baseline is shown not worse on %s "
                "at %.0f%% power only at a margin of %s, wider than the margin %.3g%s (docs/methods.md §6.8)",
                who,
                method,
                f"{row.n:,.0f}",
                row.unit,
                row.measure[len(NONINFERIORITY) + 2 : -1],
                100 * settings.power,
                shown,
                row.target,
                needed,
            )
            continue
        log.warning(
            "power: %s (%s): with %s %s the smallest %s detectable at %.0f%% power is %s, short of the %.3g "
            "worth detecting%s (docs/methods.md §6)",
            who,
            method,
            f"{row.n:,.0f}",
            row.unit,
            difference(row.measure),
            100 * settings.power,
            shown,
            row.target,
            needed,
        )
    return table


def difference(measure: str) -> str:
    """A row's measure as the difference the log names: ``mean score difference``; a paired row's measure, already
    a difference (``paired Eq. 1 difference``), as it is."""
    return measure if measure.endswith("difference") else f"{measure} difference"


def planner(method: str) -> ModuleType:
    """A method's planner module (``Settings`` and ``plan``), as its declaration names it."""
    return declared(method, "power planner: ").part("power")


def write_plan(table: pd.DataFrame, method: str, out: str, page: str | None = None) -> None:
    """Write the power table, and its page for the report."""
    write_table(table, out)
    if page:
        write_tables_page(
            page,
            f"Power: {method}",
            (
                "How much this run can show (docs/methods.md section 6). From this run's own data: mdd, the smallest "
                "difference each subgroup could show at the configured power and significance level with the sizes at "
                "hand (n; n_effective where clusters make units count less than once); target, the difference worth "
                "detecting (power.min_effect, CAIRO's cairo.power.min_r); n_needed, the size a study needs for it, in "
                "the row's unit; detectable, whether this study reaches it. A subgroup that is not detectable can "
                "still show a gap, but a gap it does not show says little. Rows measured as a non-inferiority margin "
                "plan the release gate of biasflow compare (section 6.8): mdd is the smallest margin at which a "
                "candidate truly equal to the baseline is shown not worse at the configured power, n_needed the units "
                "that margin power.min_effect needs."
            ),
            [
                Section(
                    "Minimum detectable differences",
                    (
                        "baseline is the rate or score the difference is measured from and sd the spread of one unit; "
                        "the log of this step names every row short of its target."
                    ),
                    table,
                )
            ],
        )


def output(role: str, method_name: str = "{method}") -> str:
    """The workflow's path of one of a method's power files by its role (:data:`OUTPUTS`; the wildcard by default)."""
    return OUTPUTS[role].format(method=method_name)


def plan_sources(
    *, method: str, sources: Mapping[str, Sequence[str]], settings: Mapping, outputs: Mapping[str, str]
) -> None:
    """The step: ``sources`` (a label, the axis, probe set or model, and its files) → the method's power table.

    ``settings`` are the plain values of the method's ``Settings`` (a rule's params); ``outputs`` the files by
    role (:data:`OUTPUTS`: the ``table``, and the report's ``page`` where given).
    """
    module = planner(method)
    write_plan(
        module.plan(sources, module.Settings.from_params(settings)), method, outputs["table"], outputs.get("page")
    )
