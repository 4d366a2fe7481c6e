"""Bounds of two systems' population gap-span difference (docs/methods.md §3.8): by hand, and by simulation against
population spans computed by quadrature."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy.special import expit, logit

from biasflow.fpr.span_bounds import difference_reaches, span_errors
from biasflow.fpr.verdicts import compare
from biasflow.verdicts import NON_INFERIOR, verdict


def test_hand_worked_stand_ins():
    """Gaps 0.30, 0.00, 0.01: group 0 is the top alone; groups 1 and 2 lie within 3 standard errors of each other.

    Moves (draw − estimate) per draw and group: the error's stand-in below is group 0's move
    less group 1's (the estimate's bottom); above it, group 0's less the least of groups 1 and 2.
    """
    observed = np.array([0.30, 0.00, 0.01])
    moves = np.array([[0.02, 0.03, -0.04], [-0.01, -0.02, 0.05], [0.00, 0.01, 0.01], [0.03, -0.03, 0.00]])
    below, above = span_errors(observed, observed + moves)
    assert below == pytest.approx([0.02 - 0.03, -0.01 + 0.02, 0.00 - 0.01, 0.03 + 0.03])
    assert above == pytest.approx([0.02 + 0.04, -0.01 + 0.02, 0.00 - 0.01, 0.03 + 0.03])
    # Group 0 is 0.29 above group 2, far beyond 3 standard errors of their difference: never near the bottom.
    assert np.std(moves[:, 0] - moves[:, 2]) * 3 < 0.29


def test_exact_ties_take_the_least_move_below_and_groups_without_a_gap_are_left_out():
    observed = np.array([0.1, 0.1, np.nan, -0.2])
    drawn = observed + np.array([[0.05, -0.02, 0.3, 0.01], [-0.03, 0.04, np.nan, 0.00]])
    below, _ = span_errors(observed, drawn)
    assert below == pytest.approx([-0.02 - 0.01, -0.03 - 0.00])
    assert np.isnan(span_errors(np.array([0.1, np.nan]), np.zeros((2, 2)))).all(), "one group: no span"


def test_the_reaches_pair_the_candidates_error_below_with_the_baselines_above():
    a, b = np.array([0.2, 0.0, 0.0]), np.array([0.0, 0.0, 0.0])
    drawn_a, drawn_b = a + np.array([[0.01, 0.02, -0.01]]), b + np.array([[0.03, -0.02, 0.01]])
    upper, lower = difference_reaches(0.2, (a, b), (drawn_a, drawn_b))
    (below_a, above_a), (below_b, above_b) = span_errors(a, drawn_a), span_errors(b, drawn_b)
    assert upper == pytest.approx(0.2 - (below_a - above_b)) and lower == pytest.approx(0.2 - (above_a - below_b))
    assert above_b == pytest.approx(0.05), "every group of b ties with 0: the whole range of its moves"


# The gate's simulation: G groups' words in T templates, all of gold label neutral, each sentence called negative
# with probability expit(logit(base) + u_t + b_g) in each of RUNS runs, u_t a template's effect (normal, sd given)
# shared by every group and both systems; b_g0 = the effect in the candidate, every b 0 in the baseline.
TERMS, RUNS, DRAWS = 2, 3, 1000


def population_span(base: float, template_sd: float, effect: float) -> float:
    """The negative FPR of g0 over the population of templates less another group's, by Gauss–Hermite quadrature."""
    nodes, weights = np.polynomial.hermite_e.hermegauss(80)
    weights = weights / weights.sum()
    level = logit(base) + template_sd * nodes
    return float(weights @ (expit(level + effect) - expit(level)))


def simulated_predictions(rng, groups: int, templates: int, base: float, template_sd: float, effect: float):
    shared = rng.normal(0.0, template_sd, (templates, 1, 1))
    frames = []
    for model, raised in (("candidate", effect), ("baseline", 0.0)):
        shift = np.zeros((1, groups, 1))
        shift[0, 0, 0] = raised
        p = expit(logit(base) + shared + shift)
        negative = rng.random((RUNS, templates, groups, TERMS)) < p
        r, t, g, k = np.meshgrid(range(RUNS), range(templates), range(groups), range(TERMS), indexing="ij")
        frames.append(
            pd.DataFrame(
                {
                    "y_true": 1,
                    "y_pred": np.where(negative, 0, 1).ravel(),
                    "category": "race",
                    "group": [f"g{i}" for i in g.ravel()],
                    "model": model,
                    "run_id": [f"r{i}" for i in r.ravel()],
                    "template_id": [f"t{i}" for i in t.ravel()],
                    "text": [f"{a} {b} {c}" for a, b, c in zip(t.ravel(), g.ravel(), k.ravel(), strict=True)],
                }
            )
        )
    return pd.concat(frames, ignore_index=True)


@pytest.mark.calibration
@pytest.mark.parametrize(
    ("groups", "templates", "base", "template_sd", "effect"),
    [(3, 24, 0.2, 1.0, 2.0), (6, 12, 0.2, 1.0, 0.8), (3, 6, 0.2, 0.0, 1.5), (4, 12, 0.03, 0.5, 1.5)],
    ids=["a clear candidate", "6 groups", "few templates, no template effect", "rare FPRs, many zeros (main: 8%)"],
)
def test_a_candidate_exactly_the_margin_above_an_unbiased_baseline_is_rarely_shown_not_worse(
    groups, templates, base, template_sd, effect
):
    """The baseline's population span is 0 (its groups are exchangeable), the candidate's the margin: a one-sided
    test at 5% may claim "not worse" in at most 5% of studies (2 Monte Carlo errors allowed)."""
    margin = population_span(base, template_sd, effect)
    rng = np.random.default_rng([47, groups, templates])
    studies = 300
    shown = 0
    for study in range(studies):
        preds = simulated_predictions(rng, groups, templates, base, template_sd, effect)
        rows = compare(preds, "baseline", "candidate", DRAWS, 0, study)
        [span] = rows[(rows["measure"] == "span") & (rows["class"] == "negative")].itertuples()
        shown += verdict(span.lo90, span.hi90, margin) in NON_INFERIOR
    rate = shown / studies
    assert rate <= 0.05 + 2 * np.sqrt(0.05 * 0.95 / studies), f"{rate:.3f} of studies at margin {margin:.3f}"
