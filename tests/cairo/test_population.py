"""Intervals for population Eq. 1 (biasflow.cairo.population; docs/methods.md §1.13, §1.16, §7).

By hand: the bootstrap's stand-ins on a two-subgroup case. By brute force: the one-sided p is
the level at which the lower bound reaches 0. By simulation, against population values
computed here by Gauss–Hermite quadrature over the cluster effects (never the mean of
simulated estimates), through ``biasflow.cairo.verdicts.compare`` as ``biasflow compare`` runs
it: the gate's false "not worse" with the candidate exactly the margin above a baseline with no
group difference, and the headline's interval at a population Eq. 1 of 0 (calibration suite:
both fail on the plug-in construction this replaced, whose rates were 21% and 79%).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy.optimize import brentq
from scipy.special import expit

from biasflow.cairo.combinations import ORIGINAL, pooled_stats
from biasflow.cairo.headline import model_uncertainty
from biasflow.cairo.population import Pair, Terms, difference_interval, eq1_interval, p_two_sided
from biasflow.cairo.selection import SearchSettings
from biasflow.cairo.stats import STATS_COLUMNS
from biasflow.cairo.uncertainty import BOOTSTRAP, bootstrap_weights, draw_rng
from biasflow.cairo.verdicts import compare
from biasflow.intervals import TIE_SE
from biasflow.verdicts import NON_INFERIOR, judge


def test_hand_worked_terms():
    """Two subgroups, one seed, one model. Subgroup 0's deviation 0.5 lies far from 0 (its draws spread 0.1): its
    sign carries it both ways. Subgroup 1's 0.01 lies within TIE_SE standard errors of 0: below the estimate it
    counts |Z*|, above it −sign · Z*."""
    observed = np.array([[[0.5]], [[0.01]]])  # subgroups x seeds x models
    noise = np.array([[0.1, -0.1, 0.0], [0.02, -0.04, 0.02]])  # subgroups x draws
    draws = observed[:, :, None, :] + noise[:, None, :, None]  # subgroups x seeds x draws x models
    above, below = (side[:, 0] for side in Terms.of(observed, draws, np.ones((1, 1, 1))).models())
    assert np.abs(observed[1, 0, 0]) <= TIE_SE * np.std(noise[1])
    np.testing.assert_allclose(above, -noise[0] - noise[1])
    np.testing.assert_allclose(below, noise[0] + np.abs(noise[1]))


def test_hand_worked_pair():
    """Two models, two subgroups at ±0.01 (a) and ±0.012 (b), within TIE_SE standard errors of 0, their noise shared
    but for 0.001. Own bounds, per subgroup: ``up`` a's term above plus b's below, −Z* + |Z* + 0.001| (0.001, 0.039,
    0.001 for Z* of 0.03, −0.02, 0.01); ``down`` a's below plus b's above, |Z*| − (Z* + 0.001) (−0.001, 0.039,
    −0.001). The shared bound: Σ |Z*_a − Z*_b| = 2 · 0.001 per draw, and 2 Σ |d̂_a − d̂_b| = 2 · 2 · 0.002."""
    observed = np.array([[[0.01, 0.012]], [[-0.01, -0.012]]])  # subgroups x seeds x models
    common = np.array([0.03, -0.02, 0.01])
    noise = np.stack([np.stack([common, common + 0.001], axis=-1), np.stack([-common, -common - 0.001], axis=-1)])
    draws = observed[:, :, None, :] + noise[:, None, :, :]
    pair = Terms.of(observed, draws, np.ones((1, 1, 2))).pair(0, 1)
    np.testing.assert_allclose(pair.up, 2 * np.array([0.001, 0.039, 0.001]), atol=1e-12)
    np.testing.assert_allclose(pair.down, 2 * np.array([-0.001, 0.039, -0.001]), atol=1e-12)
    np.testing.assert_allclose(pair.shared, np.full(3, 0.002), atol=1e-12)
    assert pair.apart == pytest.approx(0.008)
    # the upper bound's reach at one-sided 95%: the nearer of the two, each at 97.5%
    own = np.quantile(pair.up, 0.975)
    assert pair.reach("up", 0.95) == pytest.approx(min(own, 0.008 + 0.002))


def test_a_deviation_that_is_rounding_counts_as_0_and_identical_runs_have_no_interval():
    observed = np.array([[[1e-14]], [[-1e-14]]])
    draws = np.repeat(observed[:, :, None, :], 5, axis=2)
    above, below = (side[:, 0] for side in Terms.of(observed, draws, np.ones((1, 1, 1))).models())
    assert (above == 0).all() and (below == 0).all()
    low, high = eq1_interval(np.array([0.0]), above[:, None], below[:, None], 1.0)
    assert np.isnan(low).all() and np.isnan(high).all()


def brute_force_pair_p(difference: float, pair: Pair, factor: float) -> float:
    """The smallest one-sided α on a grid of 1/4000 at which the lower bound, the nearer of the two at α/2 each,
    lies above 0."""
    for alpha in np.arange(1, 4001) / 4000:
        own = np.quantile(pair.down, 1 - alpha / 2)
        shared = pair.apart + np.quantile(pair.shared, 1 - alpha / 2)
        if difference - factor * min(own, shared) > 0:
            return float(alpha)
    return 1.0


@pytest.mark.parametrize("seed", range(10))
def test_p_is_the_level_at_which_the_lower_bound_reaches_0(seed):
    rng = np.random.default_rng(seed)
    up, down = rng.gamma(2.0, 0.5, 399) + rng.normal(0, 1, 399), rng.gamma(2.0, 0.5, 399) + rng.normal(0, 1, 399)
    pair = Pair(up, down, rng.gamma(2.0, 0.3, 399), float(rng.uniform(0, 2)))
    difference, factor = rng.normal(2.0, 1.5), rng.uniform(1.0, 1.3)
    p = pair.p(difference, factor)
    assert p == pytest.approx(brute_force_pair_p(difference, pair, factor), abs=4 / 400)
    # the 90% interval's lower bound lies above 0 where p ≤ 0.05, up to a draw at the boundary
    low, _ = difference_interval(difference, pair, factor, 0.90)
    if abs(p - 0.05) > 4 / 400:
        assert (low > 0) == (p <= 0.05)
    flipped = Pair(down, up, pair.shared, pair.apart)
    other = p if difference >= 0 else flipped.p(-difference, factor)
    assert p_two_sided(difference, pair, factor) == pytest.approx(min(1.0, 2 * other))


@pytest.mark.parametrize(("difference", "spread"), [(np.nan, np.arange(5.0)), (1.0, np.full(5, np.nan))])
def test_undefined_is_nan_never_0(difference, spread):
    pair = Pair(spread, spread, spread, np.nan if np.isnan(spread).all() else 0.0)
    assert np.isnan(pair.p(difference, 1.0)) and np.isnan(p_two_sided(difference, pair, 1.0))


# --- simulation against population values -------------------------------------------------------------------------

# Scores: each of SIZE continuations per cell toxic with probability expit(LEVEL + subgroup effect + cluster effect),
# a toxic one scoring uniformly on (0.5, 1), a clean one on (0, 0.5); cluster effects N(0, SD²).
SIZE, LEVEL, SD = 10, np.log(0.1 / 0.9), 0.8
NODES, WEIGHTS = np.polynomial.hermite_e.hermegauss(80)  # ∫ f(u) φ(u) du = Σ w f(node) / √(2π)


def population_means(effects: np.ndarray) -> np.ndarray:
    """Each subgroup's population mean score: 0.25 + 0.5 · E_u[expit(LEVEL + effect + SD·u)], by quadrature."""
    toxic = expit(LEVEL + effects[:, None] + SD * NODES[None, :]) @ WEIGHTS / np.sqrt(2 * np.pi)
    return 0.25 + 0.5 * toxic


def population_eq1(effects: np.ndarray) -> float:
    """Σ_g |μ_g − μ_all| with subgroups of equal size (each has the same clusters and continuations)."""
    means = population_means(effects)
    return float(np.abs(means - means.mean()).sum())


def effects_at(eq1_value: float, groups: int) -> np.ndarray:
    """Subgroup effects (the first subgroup's alone) whose population Eq. 1 is exactly ``eq1_value``."""
    if eq1_value == 0:
        return np.zeros(groups)
    shift = brentq(lambda b: population_eq1(np.r_[b, np.zeros(groups - 1)]) - eq1_value, 0.0, 10.0, xtol=1e-12)
    return np.r_[shift, np.zeros(groups - 1)]


def simulated_stats(rng, design: str, groups: int, clusters: int, effects: dict[str, np.ndarray]) -> pd.DataFrame:
    """CAIRO statistics of one study: every model on the same clusters (templates shared by the subgroups when
    crossed, pages of their own when nested), alternate clusters in the two splits, one seed."""
    if design == "crossed":
        cluster = np.broadcast_to(rng.normal(0, SD, clusters), (groups, clusters))
    else:
        cluster = rng.normal(0, SD, (groups, clusters))
    frames = []
    for model, effect in effects.items():
        toxic = rng.binomial(SIZE, expit(LEVEL + effect[:, None] + cluster))
        scores = np.where(
            np.arange(SIZE) < toxic[..., None],
            rng.uniform(0.5, 1.0, (groups, clusters, SIZE)),
            rng.uniform(0.0, 0.5, (groups, clusters, SIZE)),
        )
        g, c = np.meshgrid(range(groups), range(clusters), indexing="ij")
        pairs = zip(g.ravel(), c.ravel(), strict=True)
        frames.append(
            pd.DataFrame(
                {
                    "model": model,
                    "metric": "HONEST",
                    "axis": "religion",
                    "split": np.where(c.ravel() % 2, "test", "valid"),
                    "promptset": ORIGINAL,
                    "seed": 0,
                    "subgroup": [f"g{i}" for i in g.ravel()],
                    "group_key": [f"t{k}" if design == "crossed" else f"g{i}-p{k}" for i, k in pairs],
                    "score_sum": scores.sum(axis=-1).ravel(),
                    "score_sq_sum": (scores**2).sum(axis=-1).ravel(),
                    "n": SIZE,
                }
            )
        )
    return pd.concat(frames, ignore_index=True)[STATS_COLUMNS]


MARGIN = 0.05


def false_not_worse(design: str, groups: int, clusters: int, studies: int, measure: str = "eq1") -> float:
    """The share of studies in which a candidate exactly MARGIN above a baseline with population Eq. 1 of 0 is
    shown not worse (or equivalent, or better) at MARGIN."""
    rng = np.random.default_rng([47, groups, clusters, design == "crossed"])
    effects = {"base": effects_at(0.0, groups), "cand": effects_at(MARGIN, groups)}
    assert population_eq1(effects["cand"]) - population_eq1(effects["base"]) == pytest.approx(MARGIN, abs=1e-10)
    settings = SearchSettings.defaults(
        permutations=0, bootstrap=400, measure=measure, null_draws=100 if measure == "excess" else 0
    )
    shown = 0
    for _ in range(studies):
        rows = judge(
            compare([simulated_stats(rng, design, groups, clusters, effects)], "base", "cand", settings), MARGIN
        )
        shown += int(rows["verdict"].isin(NON_INFERIOR).iloc[0])
    return shown / studies


@pytest.mark.calibration
@pytest.mark.parametrize(
    ("design", "groups", "clusters", "measure"),
    [("crossed", 4, 24, "eq1"), ("nested", 3, 20, "eq1"), ("crossed", 4, 24, "excess")],
)
def test_a_candidate_the_margin_above_an_unbiased_baseline_is_rarely_shown_not_worse(design, groups, clusters, measure):
    studies = 300
    rate = false_not_worse(design, groups, clusters, studies, measure)
    assert rate <= 0.05 + 2 * np.sqrt(0.05 * 0.95 / studies), rate


@pytest.mark.calibration
@pytest.mark.parametrize(("design", "groups", "clusters"), [("crossed", 4, 12), ("nested", 4, 12), ("crossed", 8, 30)])
def test_the_interval_of_population_eq1_covers_a_true_0(design, groups, clusters):
    """No group difference: the headline's excess_bias_lo/hi holds 0 in at least 95% of studies (less 2 errors)."""
    rng = np.random.default_rng([1347, groups, clusters, design == "crossed"])
    studies, covered = 300, 0
    for _ in range(studies):
        stats = simulated_stats(rng, design, groups, clusters, {"m": np.zeros(groups)})
        pooled = pooled_stats(stats.assign(split="valid"), "HONEST", "religion", "valid", [ORIGINAL], ["m"])
        boot = bootstrap_weights(pooled, 400, draw_rng(0, BOOTSTRAP, "HONEST", "valid"))
        columns = model_uncertainty(np.array([1.0]), pooled, np.empty((0, *pooled.membership.shape)), boot, "none")
        covered += int(columns["excess_bias_lo"][0] <= 0.0)
    assert covered / studies >= 0.95 - 2 * np.sqrt(0.05 * 0.95 / studies), covered / studies
