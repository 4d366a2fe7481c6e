"""The power planner's designs against hand-worked formulas and direct power computations (docs/methods.md §6)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from biasflow.power import (
    correlation_mdd,
    correlation_needed,
    mean_mdd,
    mean_needed,
    means_mdd,
    means_needed,
    proportions_mdd,
    proportions_needed,
    swap_mdd,
    swap_needed,
)

Z = stats.norm.ppf(0.975) + stats.norm.ppf(0.8)


def t_test_power(effect: float, n1: float, n2: float | None) -> float:
    """Power of a two-sided t test at 5%, straight from the noncentral t (one sample where n2 is None)."""
    if n2 is None:
        df, nc = n1 - 1, effect * math.sqrt(n1)
    else:
        df, nc = n1 + n2 - 2, effect * math.sqrt(n1 * n2 / (n1 + n2))
    critical = stats.t.ppf(0.975, df)
    return stats.nct.sf(critical, df, nc) + stats.nct.cdf(-critical, df, nc)


def test_an_fpr_of_010_against_015_needs_about_680_sentences_per_group():
    """The hand-worked arcsine formula: n = (z_α/2 + z_β)² (1 + 1/ratio) / h², h = 2 asin√p1 − 2 asin√p0."""
    h = 2 * math.asin(math.sqrt(0.15)) - 2 * math.asin(math.sqrt(0.10))
    assert proportions_needed(0.10, 0.05, 1.0, 0.05, 0.8) == pytest.approx(2 * Z**2 / h**2, rel=1e-4)
    assert 675 < proportions_needed(0.10, 0.05, 1.0, 0.05, 0.8) < 690
    # Against three times as many sentences of the other groups, a group needs fewer of its own.
    assert proportions_needed(0.10, 0.05, 3.0, 0.05, 0.8) == pytest.approx((1 + 1 / 3) * Z**2 / h**2, rel=1e-4)


def test_the_minimum_detectable_rise_is_the_one_the_sizes_need():
    mdd = proportions_mdd(0.10, 680.35, 680.35, 0.05, 0.8)
    assert mdd == pytest.approx(0.05, abs=1e-4)
    assert math.isnan(proportions_mdd(0.98, 5, 5, 0.05, 0.8)), "no rate up to 1 is detectable"
    assert math.isnan(proportions_mdd(0.1, 0, 5, 0.05, 0.8))


def test_a_correlation_of_05_needs_about_29_models():
    """Fisher's z: M = (z_α/2 + z_β)² / atanh(r)² + 3."""
    assert correlation_needed(0.5, 0.05, 0.8) == pytest.approx(Z**2 / math.atanh(0.5) ** 2 + 3, rel=1e-4)
    assert correlation_mdd(29.0122, 0.05, 0.8) == pytest.approx(0.5, abs=1e-4)
    assert math.isnan(correlation_mdd(3, 0.05, 0.8)), "three models leave no degrees of freedom"


@pytest.mark.parametrize(("n", "n_other"), [(12, 12), (30, 90), (200, 50)])
def test_two_means_have_80_percent_power_at_their_mdd_by_the_noncentral_t(n, n_other):
    mdd = means_mdd(2.0, n, n_other, 0.05, 0.8)
    assert t_test_power(mdd / 2.0, n, n_other) == pytest.approx(0.8, abs=1e-4)
    assert means_needed(2.0, mdd, n_other / n, 0.05, 0.8) == pytest.approx(n, rel=1e-3)


@pytest.mark.parametrize("n", [5, 40, 400])
def test_one_mean_has_80_percent_power_at_its_mdd_by_the_noncentral_t(n):
    mdd = mean_mdd(0.7, n, 0.05, 0.8)
    assert t_test_power(mdd / 0.7, n, None) == pytest.approx(0.8, abs=1e-4)
    assert mean_needed(0.7, mdd, 0.05, 0.8) == pytest.approx(n, rel=1e-3)
    assert math.isnan(mean_mdd(0.7, 1, 0.05, 0.8)), "one unit has no spread"


def test_a_simulated_correlation_at_the_mdd_is_detected_about_80_percent_of_the_time():
    """Bivariate normal models with ρ at the planner's smallest detectable r, tested by Pearson's t test."""
    rng = np.random.default_rng(3)
    models, draws = 20, 4000
    rho = correlation_mdd(models, 0.05, 0.8)
    x = rng.standard_normal((draws, models))
    y = rho * x + math.sqrt(1 - rho**2) * rng.standard_normal((draws, models))
    r = np.array([np.corrcoef(a, b)[0, 1] for a, b in zip(x, y, strict=True)])
    t = r * np.sqrt((models - 2) / (1 - r**2))
    detected = np.mean(2 * stats.t.sf(np.abs(t), models - 2) < 0.05)
    assert 0.75 <= detected <= 0.85, detected


@pytest.mark.parametrize(("sd", "difference"), [(0.188, 0.10), (1.0, 0.3)])
def test_a_swap_test_at_the_planned_size_detects_the_difference_about_80_percent_of_the_time(sd, difference):
    """Sign-flip tests of normal unit differences written out: 3,000 studies of 199 random flips each."""
    n = math.ceil(swap_needed(sd, difference, 0.05, 0.8))
    assert swap_mdd(sd, n, 0.05, 0.8) <= difference <= swap_mdd(sd, n - 1, 0.05, 0.8)
    rng = np.random.default_rng(n)
    d = rng.normal(difference, sd, (3000, n))
    flips = rng.choice([-1.0, 1.0], (3000, 199, n))
    null = np.abs((flips * d[:, None, :]).mean(axis=2))
    p = (1 + (null >= np.abs(d.mean(axis=1))[:, None]).sum(axis=1)) / 200
    assert 0.78 <= np.mean(p <= 0.05) <= 0.88, (n, np.mean(p <= 0.05))  # a flip sum has lighter tails: a little more
    # The t design would plan fewer units: the swap test's null widens with the effect.
    assert n > mean_needed(sd, difference, 0.05, 0.8) or difference / sd < 0.35


def test_the_log_names_each_shortfall_once_as_a_difference(caplog):
    """A paired row's measure is already a difference: the log says it once ("difference difference" before)."""

    from biasflow.power import PowerSettings, planned

    settings = PowerSettings.defaults(alpha=0.05, power=0.8, min_effect=0.01)
    rows = [
        {
            "model": "a vs b",
            "scope": "BOLD gender test",
            "subgroup": "",
            "measure": "paired Eq. 1 difference",
            "unit": "group keys per subgroup",
            "n": 3,
            "n_other": math.nan,
            "n_effective": 3,
            "baseline": 0.0,
            "sd": 0.2,
            "mdd": 0.3,
            "target": 0.01,
            "n_needed": 40,
        },
        {
            "model": "a",
            "scope": "BOLD gender",
            "subgroup": "female",
            "measure": "mean score",
            "unit": "continuations",
            "n": 12,
            "n_other": 12,
            "n_effective": 12,
            "baseline": 0.1,
            "sd": 0.2,
            "mdd": 0.2,
            "target": 0.01,
            "n_needed": 900,
        },
    ]
    with caplog.at_level("WARNING", logger="biasflow"):
        table = planned(rows, "cairo", settings)
    assert not table["detectable"].any()
    assert "the smallest paired Eq. 1 difference detectable at 80% power is 0.3" in caplog.text
    assert "the smallest mean score difference detectable at 80% power is 0.2" in caplog.text
    assert "difference difference" not in caplog.text


def _noninferiority(lo90: float, hi90: float, n: float, margin: float, power: float = 0.8):
    """The planned table of one release-gate row (docs/methods.md §6.8)."""
    from biasflow.power import PowerSettings, noninferiority_row, planned

    settings = PowerSettings.defaults(alpha=0.05, power=power, min_effect=margin)
    row = noninferiority_row(
        model="b vs a",
        scope="BOLD gender both splits",
        subgroup="",
        what="Eq. 1",
        unit="group keys",
        n=n,
        lo90=lo90,
        hi90=hi90,
        settings=settings,
    )
    return planned([row], "cairo", settings).iloc[0]


def test_a_noninferiority_row_is_the_formula_worked_by_hand():
    """90% interval −0.0329 to +0.0329 at 12 units: se = 0.0329 / 1.6449 = 0.02; the smallest margin a truly equal
    candidate is shown not worse at with 80% power is (1.6449 + 0.8416) · 0.02 = 0.04973, and a margin of 0.025
    needs 12 · (0.04973 / 0.025)² = 47.48 → 48 units: what an inconclusive verdict quotes for that interval."""
    from biasflow.verdicts import units_needed

    half = 0.02 * stats.norm.ppf(0.95)
    row = _noninferiority(-half, half, 12, 0.025)
    assert row["measure"] == "non-inferiority margin (Eq. 1)" and row["unit"] == "group keys"
    assert row["mdd"] == pytest.approx(0.04973, abs=1e-5)
    assert row["sd"] == pytest.approx(0.02 * math.sqrt(12), rel=1e-6)
    assert row["n_needed"] == 48 == units_needed(12, -half, half, 0.025)
    assert not row["detectable"]
    # The chance of showing a truly equal candidate not worse at the mdd, straight from the normal: 80%.
    assert stats.norm.cdf(row["mdd"] / 0.02 - stats.norm.ppf(0.95)) == pytest.approx(0.8, abs=1e-9)


def test_a_noninferiority_row_may_plan_fewer_units_than_the_pilot_has():
    """A pilot larger than needed: the planner says so (12 · (0.04973 / 0.1)² = 2.97 → 3 units), where the verdict's
    units_needed never goes below the units at hand; the same interval, shifted, gives the same plan (only its
    width counts: the candidate is planned as truly equal)."""
    from biasflow.verdicts import units_needed

    half = 0.02 * stats.norm.ppf(0.95)
    row = _noninferiority(-half, half, 12, 0.1)
    assert row["n_needed"] == 3 and row["detectable"]
    assert units_needed(12, -half + 0.04, half + 0.04, 0.1) == 12
    assert _noninferiority(0.3 - half, 0.3 + half, 12, 0.1)["n_needed"] == 3


def test_a_noninferiority_row_without_an_interval_plans_nothing(caplog):
    row = _noninferiority(math.nan, math.nan, 12, 0.1)
    assert math.isnan(row["mdd"]) and math.isnan(row["n_needed"]) and math.isnan(row["sd"]) and not row["detectable"]
    assert math.isnan(_noninferiority(0.01, 0.01, 12, 0.1)["n_needed"]), "a zero-width interval is no error of 0"


def test_the_log_says_what_a_short_noninferiority_row_needs(caplog):
    with caplog.at_level("WARNING", logger="biasflow"):
        _noninferiority(-0.0329, 0.0329, 12, 0.025)
    assert (
        "b vs a, BOLD gender both splits (cairo): with 12 group keys a candidate truly equal to the baseline is "
        "shown not worse on Eq. 1 at 80% power only at a margin of 0.0497, wider than the margin 0.025; about 48 "
        "would be needed (docs/methods.md §6.8)"
    ) in caplog.text
