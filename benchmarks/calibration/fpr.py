"""The FPR gaps' scenarios of the calibration table (docs/methods.md §3.3, §3.4, §3.7).

Datasets are drawn as template probes are: T templates whose gold labels cycle negative,
neutral, positive, each filled with :data:`TERMS` terms of every group (templates crossed
with groups). A sentence is labelled anew in every run (as sampling at a temperature does)
from softmax(logits) over the three labels, with logits :data:`GOLD` on the gold label, a
template effect per label (sd 1, the same for every group) and a template × group effect
per label (the interaction: a template that reads differently with one group's words).

Each simulated dataset goes through the library's public functions (``fpr_gaps``,
``bootstrap_gaps``, ``span_null``, ``net_significance``) as prediction rows. The truths are
computed here with numpy from the label probabilities, never with the library:

* the t (or z) interval over runs estimates the *expected gap over runs of the sentences
  written*: FPR_c(g) = the mean over g's sentences with gold ≠ c of P(label c), less the
  unweighted mean over groups;
* the template bootstrap estimates the *population gap over templates*: with no group
  effect it is 0 exactly (the groups' effects are exchangeable), whatever the interaction;
* the tests' null: every sentence of a template has the same label probabilities whatever
  its group (no group effect, no interaction), so the expected gap is 0 and group labels
  are exchangeable within a template;
* the known effect: probabilities set directly, group g0's negative FPR 0.35 against 0.20,
  a gap of 0.10;
* the release gate's margin: A's population gap span less B's, over the population of
  templates, by quadrature over the template effects (:func:`population_span`).

A gap whose runs agree has no interval and no p (§3.3): the coverage and rejection rows
count the gaps that have one (at 2 runs several in a hundred do not), and one scenario checks
that identical runs are never reported as significant or certain.
"""

from __future__ import annotations

import functools
import logging
import math

import numpy as np
import pandas as pd
from scipy.special import softmax

from benchmarks.calibration import COVERAGE, REJECTION, Scenario
from biasflow.fpr.comparisons import comparison_table
from biasflow.fpr.gaps import fpr_gaps, net_significance
from biasflow.fpr.power import Settings as PowerSettings
from biasflow.fpr.power import noninferiority_rows, pair_rows
from biasflow.fpr.rates import CLASSES
from biasflow.fpr.resampling import bootstrap_gaps, span_null
from biasflow.fpr.verdicts import compare
from biasflow.schema import default
from biasflow.verdicts import EQUIVALENT, NON_INFERIOR, Verdicts, judge

# Terms per group in every template; the logit of the gold label; a template's effect per label (sd).
TERMS, GOLD, TEMPLATE_SD = 2, 2.0, 1.0
# Runs per model (paper 002 reports 5), draws of the template bootstrap (the fpr.bootstrap default) and of the null.
RUNS, BOOTSTRAP, NULL_DRAWS = 5, 1000, 199
# The known effect of the power scenario: group g0's negative FPR against the other groups'.
EFFECT_FPR, BASE_FPR = 0.35, 0.20
ALPHA = 0.05


def label_probabilities(rng, groups: int, templates: int, interaction: float) -> tuple[np.ndarray, np.ndarray]:
    """(templates × groups × 3) label probabilities and the templates' gold labels (cycling 0, 1, 2)."""
    gold = np.arange(templates) % 3
    logits = (
        GOLD * np.eye(3)[gold][:, None, :]
        + rng.normal(0.0, TEMPLATE_SD, (templates, 1, 3))
        + rng.normal(0.0, interaction, (templates, groups, 3))
    )
    return softmax(logits, axis=-1), gold


def known_effect_probabilities(groups: int, templates: int) -> tuple[np.ndarray, np.ndarray]:
    """Probabilities with no template effect: negative on a non-negative sentence 0.35 for g0, 0.20 for the others.

    The rest of a non-negative sentence's mass goes to its gold label; a negative sentence is
    called neutral or positive 0.1 each. With 3 groups g0's expected negative gap is
    0.35 − (0.35 + 0.20 + 0.20) / 3 = 0.10.
    """
    gold = np.arange(templates) % 3
    negative = np.where(np.arange(groups) == 0, EFFECT_FPR, BASE_FPR)
    probs = np.zeros((templates, groups, 3))
    for t, label in enumerate(gold):
        if label == 0:
            probs[t] = [0.8, 0.1, 0.1]
        else:
            probs[t, :, 0], probs[t, :, label] = negative, 1 - negative
    return probs, gold


def predictions(
    rng,
    probs: np.ndarray,
    gold: np.ndarray,
    runs: int,
    model: str = "m",
    category: str = "race",
    identical: bool = False,
) -> pd.DataFrame:
    """Prediction rows of one model: every sentence labelled anew in each run, or once and copied (``identical``)."""
    templates, groups, _ = probs.shape
    drawn = 1 if identical else runs
    u = rng.random((drawn, templates, groups, TERMS))
    labels = (u[..., None] > np.cumsum(probs, axis=-1)[None, :, :, None, :2]).sum(axis=-1)
    labels = np.broadcast_to(labels, (runs, templates, groups, TERMS))
    r, t, g, k = (
        a.ravel() for a in np.meshgrid(range(runs), range(templates), range(groups), range(TERMS), indexing="ij")
    )
    return pd.DataFrame(
        {
            "y_true": gold[t],
            "y_pred": labels.ravel(),
            "category": category,
            "group": np.char.add("g", g.astype(str)),
            "model": model,
            "run_id": np.char.add("r", r.astype(str)),
            "template_id": np.char.add("t", t.astype(str)),
            "text": [f"template {a} term {b} of group {c}" for a, b, c in zip(t, k, g, strict=True)],
        }
    )


def expected_gaps(probs: np.ndarray, gold: np.ndarray) -> dict[str, np.ndarray]:
    """Per class, each group's expected gap over runs for these sentences, from the probabilities (numpy only)."""
    out = {}
    for name, c in CLASSES.items():
        fpr = probs[gold != c, :, c].mean(axis=0)
        out[name] = fpr - fpr.mean()
    return out


def _quiet(function, *args, **kwargs):
    """``function`` with the biasflow log above warnings: identical runs warn by design in their scenario."""
    logger = logging.getLogger("biasflow")
    level, logger.level = logger.level, logging.ERROR
    try:
        return function(*args, **kwargs)
    finally:
        logger.level = level


def interval_trial(rng, groups: int, templates: int, runs: int, interaction: float, interval: str) -> np.ndarray:
    """Whether each gap's interval over runs covers its expected gap over runs (gaps without an interval left out)."""
    probs, gold = label_probabilities(rng, groups, templates, interaction)
    gaps = _quiet(fpr_gaps, predictions(rng, probs, gold, runs), interval, 1.96).sort_values("group")
    truth = expected_gaps(probs, gold)
    covered = []
    for name in CLASSES:
        mean, width = gaps[f"{name}_FPR_gap"].to_numpy(), gaps[f"{name}_FPR_gap_width"].to_numpy()
        has = np.isfinite(width)
        covered.append((np.abs(mean - truth[name]) <= width)[has])
    return np.concatenate(covered)


def gap_test_trial(rng, groups: int, templates: int, runs: int) -> np.ndarray:
    """Whether each gap's p is below 0.05 where no group differs in any sentence (gaps without a p left out)."""
    probs, gold = label_probabilities(rng, groups, templates, 0.0)
    gaps = _quiet(fpr_gaps, predictions(rng, probs, gold, runs), "t", 1.96)
    p = gaps[[f"{name}_FPR_gap_p" for name in CLASSES]].to_numpy().ravel()
    return p[np.isfinite(p)] < ALPHA


def identical_trial(rng, groups: int, templates: int, runs: int, interaction: float) -> np.ndarray:
    """Whether each gap of a model whose runs are identical is reported as significant or certain.

    The table also holds a model with varying runs (another attribute), so the Holm and BH
    family is not empty. A gap fails if any net count calls it, if it is not counted apart
    (``<class>_untested``), or if it has a finite width or p.
    """
    same = predictions(
        rng, *label_probabilities(rng, groups, templates, interaction), runs, "same", "race", identical=True
    )
    varying = predictions(rng, *label_probabilities(rng, groups, templates, interaction), runs, "varying", "age")
    gaps = _quiet(fpr_gaps, pd.concat([same, varying], ignore_index=True), "t", 1.96)
    net = net_significance(gaps)
    mine = gaps[gaps["model"] == "same"].set_index("group")
    counts = net[net["category"] == "race"].set_index("group").loc[mine.index]
    reported = []
    for name in CLASSES:
        called = (counts[[f"{name}_net", f"{name}_net_holm", f"{name}_net_bh"]] != 0).any(axis=1)
        certain = mine[f"{name}_FPR_gap_width"].notna() | mine[f"{name}_FPR_gap_p"].notna()
        reported.append((called | (counts[f"{name}_untested"] != 1) | certain).to_numpy())
    return np.concatenate(reported)


def bootstrap_trial(rng, groups: int, templates: int, runs: int, interaction: float) -> np.ndarray:
    """Whether each gap's template bootstrap interval covers the population gap, 0 with no group effect."""
    probs, gold = label_probabilities(rng, groups, templates, interaction)
    bounds = _quiet(bootstrap_gaps, predictions(rng, probs, gold, runs), BOOTSTRAP, int(rng.integers(2**31)))
    covered = []
    for name in CLASSES:
        low, high = bounds[f"{name}_FPR_gap_lo"].to_numpy(), bounds[f"{name}_FPR_gap_hi"].to_numpy()
        has = np.isfinite(low)
        covered.append(((low <= 0) & (high >= 0))[has])
    return np.concatenate(covered)


def span_trial(rng, groups: int, templates: int, runs: int) -> np.ndarray:
    """Whether each class's span p is at most 0.05 where group labels are exchangeable within templates."""
    probs, gold = label_probabilities(rng, groups, templates, 0.0)
    null = span_null(predictions(rng, probs, gold, runs), NULL_DRAWS, int(rng.integers(2**31)))
    return null[[f"{name}_span_p" for name in CLASSES]].to_numpy().ravel() <= ALPHA


def power_trial(rng, groups: int, templates: int, runs: int) -> np.ndarray:
    """Whether group g0's negative gap (0.10 by construction) has p below 0.05."""
    probs, gold = known_effect_probabilities(groups, templates)
    gaps = _quiet(fpr_gaps, predictions(rng, probs, gold, runs), "t", 1.96).set_index("group")
    return np.array([gaps.loc["g0", "negative_FPR_gap_p"] < ALPHA])


def pair_probabilities(rng, groups: int, templates: int, interaction: float, effect: bool):
    """Two systems' label probabilities on the same templates, and the templates' gold labels.

    Without ``effect`` both are drawn from one distribution: the templates' effects shared, a
    template × group interaction of each system's own (sd ``interaction``); the expected
    difference of any gap over templates is 0. With ``effect``: system A has group g0's
    negative FPR 0.35 against 0.20 (:func:`known_effect_probabilities`) and B every group at
    0.20, so A's g0 negative gap is 0.10 above B's.
    """
    if effect:
        probs, gold = known_effect_probabilities(groups, templates)
        return (probs, np.broadcast_to(probs[:, 1:2], probs.shape).copy()), gold
    gold = np.arange(templates) % 3
    shared = GOLD * np.eye(3)[gold][:, None, :] + rng.normal(0.0, TEMPLATE_SD, (templates, 1, 3))
    return tuple(
        softmax(shared + rng.normal(0.0, interaction, (templates, groups, 3)), axis=-1) for _ in range(2)
    ), gold


def comparison_trial(
    rng, groups: int, templates: int, runs: int, interaction: float, effect: bool, check: str
) -> np.ndarray:
    """One simulated pair of systems through :func:`biasflow.fpr.comparisons.comparison_table`, checked.

    ``check``: ``p`` (every gap's and span's swap p at most 0.05), ``zero`` (every gap
    difference's interval covers 0), ``known`` (g0's negative difference's interval covers
    0.10), ``power`` (its p is at most 0.05), ``unpaired`` (the two systems' own template
    bootstrap intervals of g0's negative gap do not overlap: how a reader of the gap table
    would conclude).
    """
    (probs_a, probs_b), gold = pair_probabilities(rng, groups, templates, interaction, effect)
    preds = pd.concat(
        [predictions(rng, probs_a, gold, runs, "A"), predictions(rng, probs_b, gold, runs, "B")], ignore_index=True
    )
    seed = int(rng.integers(2**31))
    if check == "unpaired":
        own = _quiet(bootstrap_gaps, preds, BOOTSTRAP, seed).set_index(["model", "group"])
        (low_a, high_a), (low_b, high_b) = (
            own.loc[(model, "g0"), ["negative_FPR_gap_lo", "negative_FPR_gap_hi"]] for model in ("A", "B")
        )
        return np.array([low_a > high_b or low_b > high_a])
    table = comparison_table(
        preds, 0 if check in ("p", "power") else BOOTSTRAP, NULL_DRAWS if check in ("p", "power") else 0, seed
    )
    if check == "p":
        return table["p"].to_numpy() <= ALPHA
    gaps = table[table["measure"] == "gap"]
    if check == "zero":
        return ((gaps["difference_lo"] <= 0) & (gaps["difference_hi"] >= 0)).to_numpy()
    row = gaps[(gaps["class"] == "negative") & (gaps["group"] == "g0")].iloc[0]
    if check == "power":
        return np.array([row["p"] <= ALPHA])
    return np.array(
        [row["difference_lo"] <= EFFECT_FPR - BASE_FPR - (EFFECT_FPR - BASE_FPR) / groups <= row["difference_hi"]]
    )


@functools.cache
def planned_templates(groups: int = 3, runs: int = RUNS) -> int:
    """The templates the paired planner asks for to detect the known 0.10 difference at 80% power (§6.6).

    Planned from one pilot of 600 templates of the known-effect design (a seeded stream of
    its own), rounded up to whole cycles of the three gold labels.
    """
    rng = np.random.default_rng(6006)
    (probs_a, probs_b), gold = pair_probabilities(rng, groups, 600, 0.0, True)
    pilot = pd.concat(
        [predictions(rng, probs_a, gold, runs, "A"), predictions(rng, probs_b, gold, runs, "B")], ignore_index=True
    )
    settings = PowerSettings.defaults(alpha=ALPHA, power=0.8, min_effect=(EFFECT_FPR - BASE_FPR) * (1 - 1 / groups))
    rows = pd.DataFrame(pair_rows(pilot, "pilot", settings))
    row = rows[(rows["measure"] == "paired negative FPR gap difference") & (rows["subgroup"] == "g0")].iloc[0]
    return 3 * math.ceil(row["n_needed"] / 3)


def planned_power_trial(rng, groups: int, runs: int) -> np.ndarray:
    """Whether the paired test finds the known difference at the templates the planner asks for."""
    return comparison_trial(rng, groups, planned_templates(groups, runs), runs, 0.0, True, "power")


# The release gate (docs/methods.md §7, §6.8): two systems on GATE_TEMPLATES templates (the gold labels cycling), the
# templates' effects shared, a template × group interaction of each system's own (sd GATE_INTERACTION); in system A
# group g0's words raise the negative and the positive logit by GATE_EFFECT. The two classes are mirror images, so
# each span's population difference is the same; the margin is that difference of A's population span less B's
# (:func:`population_span`, quadrature), so the true difference is exactly the margin (about 0.08). B has no group
# effect, so its population span is 0, the commonest baseline; GATE_ABOVE's rows give B g0's GATE_EFFECT and A a
# larger one, a baseline above 0. Equivalence is a verdict only where the 90% interval is narrower than twice the
# margin, and at −δ it is `better` where the interval is narrower than the margin, so its rows have
# EQUIVALENCE_TEMPLATES templates and g0's logits EQUIVALENCE_EFFECT higher (a margin of about 0.14).
GATE_TEMPLATES, GATE_INTERACTION, GATE_EFFECT, EQUIVALENCE_TEMPLATES, EQUIVALENCE_EFFECT = 24, 0.5, 1.5, 48, 3.0
GATE_ABOVE = 3.0
# Gauss–Hermite nodes per logit of the population spans' quadrature (3 logits: 64,000 points, exact to about 1e-12).
QUADRATURE_NODES = 40
# The gate's four-measure scenario: two attributes, each with its own templates, both classes at the margin.
GATE_ATTRIBUTES = ("race", "religion")
# The planned scenario: each study planned from its own pilot of this many templates of two truly equal systems (both
# with g0's effect), for the default margin power.min_effect.fpr; the power it reaches is promised at least
# PLANNED_FLOOR, the pilot's own error moving the plan (docs/methods.md §6.8).
GATE_PILOT, PLANNED_FLOOR = 120, 0.80


def gate_probabilities(rng, templates: int, effect_a: float, effect_b: float, batch: tuple = ()) -> tuple:
    """Two systems' (... × templates × groups × 3) label probabilities and the gold labels: shared template effects,
    each system's own interaction, group g0's negative and positive logits raised by ``effect_a`` in A, ``effect_b``
    in B (3 groups)."""
    gold = np.arange(templates) % 3
    shared = GOLD * np.eye(3)[gold][:, None, :] + rng.normal(0.0, TEMPLATE_SD, (*batch, templates, 1, 3))
    raised = np.zeros((3, 3))
    raised[0, [0, 2]] = 1.0
    return tuple(
        softmax(shared + effect * raised + rng.normal(0.0, GATE_INTERACTION, (*batch, templates, 3, 3)), axis=-1)
        for effect in (effect_a, effect_b)
    ), gold


@functools.cache
def population_span(effect: float) -> float:
    """A system's population gap span, either class (mirror images), over templates (gate_probabilities' design).

    Over the population of templates the interaction averages out, so the groups without g0's
    effect tie and the span is g0's FPR less theirs: each the mean, over the two gold labels
    that are not the class, of E[softmax(GOLD·e_gold + effect·raised + z)_class], z normal with
    sd √(TEMPLATE_SD² + GATE_INTERACTION²) per logit, by Gauss–Hermite quadrature (numpy only).
    """
    nodes, weights = np.polynomial.hermite_e.hermegauss(QUADRATURE_NODES)
    weights = weights / weights.sum()
    z = np.stack(np.meshgrid(nodes, nodes, nodes, indexing="ij"), axis=-1).reshape(-1, 3)
    z *= math.hypot(TEMPLATE_SD, GATE_INTERACTION)
    weight = np.einsum("i,j,k->ijk", weights, weights, weights).ravel()

    def fpr(raise_by: float) -> float:
        rates = []
        for gold in (1, 2):  # the negative class (0): the templates whose gold label is neutral or positive
            logits = GOLD * np.eye(3)[gold] + z
            logits[:, [0, 2]] += raise_by
            rates.append(weight @ softmax(logits, axis=-1)[:, 0])
        return float(np.mean(rates))

    return fpr(effect) - fpr(0.0)


def gate_predictions(rng, templates: int, effect_a: float, effect_b: float, attributes=("race",)) -> pd.DataFrame:
    """Prediction rows of systems A and B on each attribute's own templates."""
    frames = []
    for attribute in attributes:
        (probs_a, probs_b), gold = gate_probabilities(rng, templates, effect_a, effect_b)
        frames += [
            predictions(rng, probs, gold, RUNS, system, attribute) for system, probs in (("A", probs_a), ("B", probs_b))
        ]
    return pd.concat(frames, ignore_index=True)


def gate_verdicts(preds: pd.DataFrame, baseline: str, candidate: str, margin: float, rng) -> Verdicts:
    """The verdicts `biasflow compare --method fpr` gives the simulated predictions at ``margin``: each attribute and
    class's gap span, from the template-and-run bootstrap users get (no swap draws: a verdict reads no p)."""
    rows = compare(preds, baseline, candidate, BOOTSTRAP, 0, int(rng.integers(2**31)))
    spans = rows[rows["measure"] == "span"]
    return Verdicts(
        "fpr",
        baseline,
        candidate,
        "the simulated truth",
        judge(
            spans.assign(
                measure_name=spans["category"] + " " + spans["class"],
                unit="templates",
                n_units=spans["n_templates"],
                note=None,
                why_untested=None,
            ),
            margin,
        ),
    )


def gate_trial(
    rng, check: str, templates: int = GATE_TEMPLATES, effect: float = GATE_EFFECT, effect_b: float = 0.0
) -> np.ndarray:
    """One pair of systems at the margin through the comparison and its verdicts, checked per gap span.

    ``check``: ``not_worse`` (A against B: ``not worse``, ``equivalent`` or ``better`` claimed),
    ``equivalent_above`` (A against B, the truth +δ: ``equivalent`` claimed), ``equivalent_below``
    (B against A, the truth −δ), ``gate`` (two attributes, both classes at +δ: ``--fail-on
    not-noninferior`` passes).
    """
    margin = population_span(effect) - population_span(effect_b)
    preds = gate_predictions(rng, templates, effect, effect_b, GATE_ATTRIBUTES if check == "gate" else ("race",))
    baseline, candidate = ("A", "B") if check == "equivalent_below" else ("B", "A")
    verdicts = _quiet(gate_verdicts, preds, baseline, candidate, margin, rng)
    if check == "gate":
        return np.array([verdicts.exit_code("not-noninferior") == 0])
    shown = verdicts.rows["verdict"]
    return (shown == EQUIVALENT if check.startswith("equivalent") else shown.isin(NON_INFERIOR)).to_numpy()


def gate_planned_trial(rng) -> np.ndarray:
    """Whether a system truly equal to the baseline is shown non-inferior on both spans at the templates the planner
    asks for (the larger of the two classes' plans, in whole cycles of the gold labels).

    Each study is planned (§6.8) from a pilot of its own of :data:`GATE_PILOT` templates (the
    first draws of its stream) at the default margin: the power a user planning from one pilot
    gets, averaged over pilots.
    """
    margin = default("power.min_effect.fpr")
    pilot = gate_predictions(rng, GATE_PILOT, GATE_EFFECT, GATE_EFFECT)
    rows = _quiet(noninferiority_rows, pilot, "pilot", PowerSettings.defaults(min_effect=margin))
    templates = 3 * math.ceil(max(row["n_needed"] for row in rows) / 3)
    verdicts = _quiet(gate_verdicts, gate_predictions(rng, templates, GATE_EFFECT, GATE_EFFECT), "B", "A", margin, rng)
    return verdicts.rows["verdict"].isin(NON_INFERIOR).to_numpy()


def _gate(statistic, truth, check, templates=GATE_TEMPLATES, effect=GATE_EFFECT, effect_b=0.0, quick=60, full=1000):
    baseline = f", +{effect_b:g} in B" if effect_b else ""
    return _scenario(
        statistic,
        f"3 groups × {templates} templates × {TERMS} terms, template×group sd "
        f"{GATE_INTERACTION:g} logit, {RUNS} runs, two systems, g0's negative and positive logit "
        f"+{effect:g} in A{baseline}; margin the population spans' difference there",
        truth,
        REJECTION,
        ALPHA,
        0.0,
        ALPHA,
        gate_trial,
        dict(check=check, templates=templates, effect=effect, effect_b=effect_b),
        quick,
        full,
    )


def _design(groups, templates, interaction=None, runs=RUNS, words="runs vary"):
    sd = "" if interaction is None else f", template×group sd {interaction:g} logit"
    return f"{groups} groups × {templates} templates × {TERMS} terms{sd}, {runs} runs, {words}"


def _scenario(statistic, design, truth, measure, nominal, lower, upper, trial, params, quick, full):
    return Scenario("fpr", statistic, design, truth, measure, nominal, lower, upper, trial, params, quick, full)


def _interval(interval, runs, interaction, lower, upper):
    return _scenario(
        f"gap {interval} interval (R={runs})",
        _design(3, 12, interaction, runs),
        "expected gap over runs of these sentences",
        COVERAGE,
        0.95,
        lower,
        upper,
        interval_trial,
        dict(groups=3, templates=12, runs=runs, interaction=interaction, interval=interval),
        60,
        600,
    )


def _bootstrap(templates, interaction, lower, upper):
    return _scenario(
        "gap template bootstrap",
        _design(3, templates, interaction),
        "population gap over templates: 0 (no group difference)",
        COVERAGE,
        0.95,
        lower,
        upper,
        bootstrap_trial,
        dict(groups=3, templates=templates, runs=RUNS, interaction=interaction),
        40,
        400,
    )


def _comparison(statistic, templates, runs, interaction, effect, check, measure, nominal, lower, upper):
    design = _design(
        3,
        templates,
        interaction,
        runs,
        "two systems, " + ("g0's negative FPR 0.35 in A, 0.20 in B" if effect else "each its own interaction"),
    )
    truth = "A's g0 negative gap 0.10 above B's" if effect else "no difference between the systems"
    return _scenario(
        statistic,
        design,
        truth,
        measure,
        nominal,
        lower,
        upper,
        comparison_trial,
        dict(groups=3, templates=templates, runs=runs, interaction=interaction or 0.0, effect=effect, check=check),
        40,
        400,
    )


SCENARIOS = [
    # The interval over runs (§3.3): t is 95% at any R; z, the reference's, is kept to reproduce tables. With
    # 2 runs (t_1 = 12.7) it covers 99.5%: the 96.7% measured before counted as misses the gaps of runs that
    # agree but for the reference's eps traces, which have no interval now (docs/methods.md §9).
    _interval("t", 5, 0.5, 0.93, 0.97),
    _interval("t", 2, 0.5, 0.94, 1.0),
    _interval("z", 5, 0.5, 0.84, 0.89),
    # The gap's p-value under no group difference, and its power at a known gap.
    _scenario(
        "gap p < 0.05 (R=5)",
        _design(3, 12, 0.0),
        "no group difference",
        REJECTION,
        0.05,
        0.03,
        0.06,
        gap_test_trial,
        dict(groups=3, templates=12, runs=RUNS),
        100,
        800,
    ),
    _scenario(
        "gap p < 0.05 (R=5, power)",
        _design(3, 30, words="no template effects"),
        f"gap 0.10 (negative FPR {EFFECT_FPR:g} against {BASE_FPR:g})",
        REJECTION,
        np.nan,
        0.75,
        1.0,
        power_trial,
        dict(groups=3, templates=30, runs=RUNS),
        60,
        500,
    ),
    # Identical runs: nothing reported as significant, certain or uncounted.
    _scenario(
        "gap reported significant or certain",
        _design(3, 12, 0.5, words="every run the same predictions"),
        "no run-to-run spread",
        REJECTION,
        0.0,
        0.0,
        0.0,
        identical_trial,
        dict(groups=3, templates=12, runs=RUNS, interaction=0.5),
        20,
        150,
    ),
    # The template bootstrap (§3.3): templates and runs resampled together, so conservative.
    *(
        _bootstrap(templates, interaction, lower, upper)
        for templates, interaction, lower, upper in (
            (6, 0.0, 0.98, 1.0),
            (6, 0.5, 0.97, 1.0),
            (30, 0.0, 0.99, 1.0),
            (30, 0.5, 0.98, 1.0),
        )
    ),
    # The span null (§3.4) with exchangeable groups.
    _scenario(
        "span p ≤ 0.05",
        _design(3, 12, 0.0),
        "no group difference",
        REJECTION,
        0.05,
        0.01,
        0.06,
        span_trial,
        dict(groups=3, templates=12, runs=RUNS),
        40,
        400,
    ),
    # Paired comparisons of two systems (§3.8): valid when they are exchangeable, and more powerful than the bars.
    *(
        _comparison(
            "paired p ≤ 0.05 (gaps and spans)", templates, runs, interaction, False, "p", REJECTION, 0.05, 0.0, 0.06
        )
        for templates, runs, interaction in ((12, 5, 0.5), (12, 5, 0.0), (6, 5, 0.5), (12, 2, 0.5))
    ),
    *(
        _comparison("paired interval covers 0", templates, RUNS, 0.5, False, "zero", COVERAGE, 0.95, 0.93, 1.0)
        for templates in (6, 12)
    ),
    *(
        _comparison(
            "paired interval covers the known difference",
            templates,
            RUNS,
            None,
            True,
            "known",
            COVERAGE,
            0.95,
            0.90,
            1.0,
        )
        for templates in (12, 30)
    ),
    *(
        _comparison(f"{what} (power)", templates, RUNS, None, True, check, REJECTION, np.nan, lower, 1.0)
        for templates, power in ((12, 0.0), (30, 0.7), (48, 0.8))
        for what, check, lower in (
            ("paired p ≤ 0.05", "power", power),
            ("the two systems' own bootstrap intervals apart, unpaired", "unpaired", 0.0),
        )
    ),
    # The paired planner (§6.6): at the templates it asks for, the paired test finds the difference 80% of the time.
    _scenario(
        "paired p ≤ 0.05 at the planner's size (power)",
        _design(3, "the planned", None, RUNS, "two systems, g0's negative FPR 0.35 in A, 0.20 in B"),
        "A's g0 negative gap 0.10 above B's",
        REJECTION,
        0.80,
        0.78,
        0.90,
        planned_power_trial,
        dict(groups=3, runs=RUNS),
        40,
        400,
    ),
    # The release gate (§7): each verdict a one-sided test at 5%, so at the margin a claim of no harm is made in at
    # most 5% of datasets, and the intersection-union gate over four spans at the margin passes in no more.
    _gate(
        "'not worse' claimed (better, equivalent or not worse)",
        "A's negative and positive population gap spans exactly the margin above B's, B's 0",
        "not_worse",
    ),
    _gate(
        "'not worse' claimed (better, equivalent or not worse)",
        "A's negative and positive population gap spans exactly the margin above B's, B's above 0",
        "not_worse",
        effect=GATE_ABOVE,
        effect_b=GATE_EFFECT,
    ),
    _gate(
        "--fail-on not-noninferior passes (2 attributes × 2 classes)",
        "every attribute and class's population gap span in A exactly the margin above B's",
        "gate",
        quick=30,
        full=200,
    ),
    _gate(
        "'equivalent' claimed",
        "A's negative and positive population gap spans exactly the margin above B's",
        "equivalent_above",
        EQUIVALENCE_TEMPLATES,
        EQUIVALENCE_EFFECT,
        quick=30,
        full=400,
    ),
    _gate(
        "'equivalent' claimed",
        "the candidate's population gap spans exactly the margin below the baseline's",
        "equivalent_below",
        EQUIVALENCE_TEMPLATES,
        EQUIVALENCE_EFFECT,
        quick=30,
        full=400,
    ),
    # The gate's planner (§6.8): at the templates it asks for, a truly equal system is shown not worse 80% of the time.
    _scenario(
        "'not worse' shown at the gate planner's size (power)",
        f"3 groups × the templates planned from a pilot of {GATE_PILOT} × {TERMS} terms, template×group sd "
        f"{GATE_INTERACTION:g} logit, {RUNS} runs, g0's negative and positive logit +{GATE_EFFECT:g} in both, "
        f"margin {default('power.min_effect.fpr'):g}",
        "two systems from one distribution",
        REJECTION,
        0.80,
        PLANNED_FLOOR,
        1.0,
        gate_planned_trial,
        {},
        20,
        300,
    ),
]
