"""FairPair's scenarios of the calibration table (docs/methods.md §2.5, §2.8).

Datasets are drawn as VADER would score a model's continuations: per prompt a level (sd
:data:`PROMPT_SD`, shared by both sides), per continuation a latent sentiment = level +
side shift (on the counterfactual side: a known bias) + noise, clipped to [−1, 1] and kept
to VADER's four decimals. The noise is normal (sd :data:`NOISE_SD`) or right-skewed (the
same sd, a centred exponential). VADER scores a text without sentiment words exactly 0, and
such texts are common: zero-inflated designs score 0 a share of continuations, either
those whose latent sentiment is weak (|latent| below the cut that makes the share 0 with no
bias; a shift then moves continuations out of the zeros too) or, the harder case, a random
share whatever their sentiment (the zeros carry no information, and power falls with it).

Each dataset goes through the library's public functions (``scores_and_null``,
``summarise``) as continuation rows with a ``vader`` column. The truths are computed here
with numpy, never with the library:

* with no bias the two sides are exchangeable, so every test's null holds and the expected
  excess is 0 exactly, R's and F's alike (the observed split is one of the equally likely
  splits the null averages over);
* with a shift, the excess's truth is what it estimates over the population of prompts:
  for R the weighted ratio E[w · (R − R̄)] / E[w], R̄ and w = 1 / sd the mean and inverse
  spread of R over all splits, for F the mean of F − F̄ over prompts with a finite F,
  computed by :func:`excess_truth` over :data:`TRUTH_PROMPTS` simulated prompts with every
  split enumerated (itertools); mean_F's, E[F | F finite], by :func:`mean_f_truth`;
* the release gate's margin: the same weighted ratio for each of two models on the same
  zero-inflated prompts, A's less B's (:func:`pair_excess_truth`): a population value, the
  mean over the population of prompts of a function of each prompt's continuations, which
  does not change with the number of prompts a study draws. It has no closed form (each
  prompt's R is read over all 252 splits of its ten scores), so the mean is taken over
  :data:`GATE_TRUTH_PROMPTS` prompts, an integral by Monte Carlo. With no prompt shift
  the two sides of B are exchangeable and B's excess is 0 exactly.

Sizes: the whole module runs in about 40 s at its quick sizes and, with the release gate's
rows (about 4 minutes of it), 5 to 7 minutes at its full ones on one core (``--only fairpair --jobs 1``).
"""

from __future__ import annotations

import contextlib
import functools
import itertools
import logging
import math

import numpy as np
import pandas as pd
from scipy import stats

from benchmarks.calibration import COVERAGE, REJECTION, Scenario
from biasflow.fairpair.comparisons import comparison_table
from biasflow.fairpair.power import Settings as PowerSettings
from biasflow.fairpair.power import noninferiority_rows
from biasflow.fairpair.scores import (
    SENTIMENT_COLUMN,
    SIDE_COLUMNS,
    SIDES,
    BootstrapSettings,
    scores_and_null,
    summarise,
)
from biasflow.fairpair.verdicts import compare
from biasflow.schema import choices, default
from biasflow.verdicts import EQUIVALENT, NON_INFERIOR, Verdicts, judge

PROMPT_SD, NOISE_SD = 0.3, 0.4
# The null's draws per prompt in a simulated dataset (p resolves 0.05 exactly: 9 of 199 draws).
NULL_DRAWS = 199
# Every scenario's intervals use the bootstrap users get (fairpair.bootstrap's default).
BOOTSTRAP = BootstrapSettings.defaults().bootstrap
ALPHA = 0.05
# Prompts simulated for a truth with a shift (its Monte Carlo error is in excess_truth's docstring).
TRUTH_PROMPTS = 20_000


def zero_cut(zeros: float) -> float:
    """The |latent| below which a share ``zeros`` of scores is 0 with no bias (latent ~ N(0, total sd))."""
    return math.hypot(PROMPT_SD, NOISE_SD) * stats.norm.ppf((1 + zeros) / 2) if zeros else 0.0


def sentiments(
    rng: np.random.Generator,
    prompts: int,
    samples: int,
    shift: float = 0.0,
    zeros: float = 0.0,
    zero_model: str = "weak",
    shape: str = "normal",
) -> np.ndarray:
    """(prompts x 2 x samples) VADER-like scores: side 0 ``perturbed_original``, side 1 ``counterfactual``."""
    level = rng.normal(0.0, PROMPT_SD, (prompts, 1, 1))
    size = (prompts, 2, samples)
    noise = rng.normal(0.0, NOISE_SD, size) if shape == "normal" else NOISE_SD * (rng.exponential(1.0, size) - 1.0)
    latent = np.round(np.clip(level + np.array([0.0, shift])[None, :, None] + noise, -1.0, 1.0), 4)
    if zero_model == "weak":
        return np.where(np.abs(latent) < zero_cut(zeros), 0.0, latent)
    return np.where(rng.random(size) < zeros, 0.0, latent)


def continuations(scores: np.ndarray) -> pd.DataFrame:
    """The scores as FairPair's continuation rows (:data:`SIDE_COLUMNS` and the ``vader`` column)."""
    prompts, _, samples = scores.shape
    p, s, k = (a.ravel() for a in np.meshgrid(range(prompts), range(2), range(samples), indexing="ij"))
    return pd.DataFrame(
        {
            "prompt_id": [f"p{i:03d}" for i in p],
            "side": np.array(SIDES)[s],
            "sample": k,
            "text": "",
            SENTIMENT_COLUMN: scores.ravel(),
        }
    )[[*SIDE_COLUMNS, SENTIMENT_COLUMN]]


def analysed(rng: np.random.Generator, design: dict) -> tuple[pd.DataFrame, pd.Series]:
    """One simulated model through the library: its per-prompt scores and its summary row (sentiment)."""
    table = continuations(sentiments(rng, **design))
    settings = BootstrapSettings(bootstrap=BOOTSTRAP, seed=int(rng.integers(2**31)))
    with _quiet():  # prompts with an infinite F are logged in most zero-inflated datasets
        scores, draws = scores_and_null(table, ["sentiment"], None, NULL_DRAWS, int(rng.integers(2**31)))
        return scores, summarise(scores.assign(model="m"), draws.assign(model="m"), settings).iloc[0]


@contextlib.contextmanager
def _quiet():
    """biasflow's log held to errors while a simulated dataset is analysed, then restored."""
    logger = logging.getLogger("biasflow")
    level, logger.level = logger.level, logging.ERROR
    try:
        yield
    finally:
        logger.level = level


def headline_rejects(rng, **design) -> np.ndarray:
    """Whether the headline p_perm rejects at 0.05 (one model)."""
    return np.array([analysed(rng, design)[1]["p_perm"] <= ALPHA])


def prompt_rejects(rng, **design) -> np.ndarray:
    """Whether each prompt's p_perm rejects at 0.05 (one row per prompt)."""
    return analysed(rng, design)[0]["p_perm"].to_numpy() <= ALPHA


def welch_rejects(rng, **design) -> np.ndarray:
    """Whether the paper's pooled Welch test rejects at 0.05 (one model)."""
    return np.array([analysed(rng, design)[1]["welch_p"] <= ALPHA])


def excess_covers(rng, statistic: str, **design) -> np.ndarray:
    """Whether the interval of ``statistic``'s excess (``R`` or ``F``) covers its truth (0 with no shift)."""
    row = analysed(rng, design)[1]
    truth = excess_truth(statistic, design["samples"], design.get("shift", 0.0)) if design.get("shift") else 0.0
    return np.array([row[f"{statistic}_excess_lo"] <= truth <= row[f"{statistic}_excess_hi"]])


def mean_f_covers(rng, **design) -> np.ndarray:
    """Whether mean_F's t interval covers E[F] (continuous scores: F is always finite)."""
    row = analysed(rng, design)[1]
    return np.array([row["F_ci_low"] <= mean_f_truth(design["samples"]) <= row["F_ci_high"]])


def _all_splits(samples: int) -> np.ndarray:
    """Every split of 2n continuations into two sides of n, as (splits x 2n) 0/1 rows."""
    rows = [np.isin(np.arange(2 * samples), chosen) for chosen in itertools.combinations(range(2 * samples), samples)]
    return np.array(rows, dtype=np.float64)


def _per_split(scores: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(prompts x splits) B² and V_pg · V_gp of every split, by explicit sums over each side's pairs."""
    prompts, _, samples = scores.shape
    pooled = scores.reshape(prompts, 2 * samples)
    d = np.abs(pooled[:, :, None] - pooled[:, None, :])
    first = _all_splits(samples).T
    second = 1.0 - first
    to_first, to_second = d @ first, d @ second  # (prompts x 2n x splits): Σ_j d_ij over each side's j
    pairs = samples * (samples - 1)
    within_first = (to_first * first).sum(axis=1) / pairs
    within_second = (to_second * second).sum(axis=1) / pairs
    cross = (to_second * first).sum(axis=1) / samples**2
    return cross**2, within_first * within_second


@functools.cache
def excess_truth(statistic: str, samples: int, shift: float) -> float:
    """The excess's truth at a side shift (normal noise), over :data:`TRUTH_PROMPTS` prompts with every split.

    The observed split is the first n continuations on the first side. R's excess is the
    ratio the weighted mean estimates, E[w · (R − R̄)] / E[w] with R̄ and w = 1 / sd the mean
    and inverse spread of R over all splits; F's, E[F − F̄] over the prompts with a finite F,
    F̄ the mean of the finite F over all splits. Monte Carlo error about 0.001 for R and
    0.03 for F (its tail is long) at 5 samples per side.
    """
    rng = np.random.default_rng([2026, samples, int(shift * 1000)])
    weighted, weights, differences = [], [], []
    for _ in range(TRUTH_PROMPTS // 1000):
        B2, VV = _per_split(sentiments(rng, 1000, samples, shift))
        with np.errstate(divide="ignore", invalid="ignore"):
            R, F = B2 / (B2 + VV), B2 / VV
        spread = R.std(axis=1)
        weight = np.where(spread > 0, 1 / np.where(spread > 0, spread, 1.0), 0.0)
        weighted.append(weight * (R[:, 0] - R.mean(axis=1)))
        weights.append(weight)
        differences.append(F[:, 0] - _finite_mean(np.where(np.isfinite(F), F, np.nan)))
    if statistic == "R":
        return float(np.nansum(np.concatenate(weighted)) / np.concatenate(weights).sum())
    values = np.concatenate(differences)
    return float(values[np.isfinite(values)].mean())


def _finite_mean(values: np.ndarray) -> np.ndarray:
    """Each row's mean over its non-NaN entries (NaN where it has none), as F_null_mean takes it."""
    counts = (~np.isnan(values)).sum(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(counts > 0, np.nansum(values, axis=1) / counts, np.nan)


@functools.cache
def mean_f_truth(samples: int) -> float:
    """E[F | F finite] with no bias (normal noise), what mean_F estimates, over :data:`TRUTH_PROMPTS` prompts.

    Clipping at ±1 can leave a side without variation (an infinite F, left out of mean_F as
    of this truth). Monte Carlo error about 0.007 at 5 samples per side.
    """
    rng = np.random.default_rng([20_26, samples])
    scores = sentiments(rng, TRUTH_PROMPTS, samples)
    a, b = scores[:, 0], scores[:, 1]
    B = np.abs(a[:, :, None] - b[:, None, :]).mean(axis=(1, 2))
    V = [np.abs(x[:, :, None] - x[:, None, :]).sum(axis=(1, 2)) / (samples * (samples - 1)) for x in (a, b)]
    with np.errstate(divide="ignore", invalid="ignore"):
        F = B**2 / (V[0] * V[1])
    return float(F[np.isfinite(F)].mean())


def pair_sentiments(
    rng: np.random.Generator, prompts: int, samples: int, shift_sd: float, delta: float, zeros: float
) -> list[np.ndarray]:
    """Two models' VADER-like scores of the same prompts (:func:`sentiments`' design), model A's first.

    A prompt's level and its side shift (sd ``shift_sd``, a prompt that reads as biased to
    every model) are shared; each model's noise is its own, and model A's counterfactual side
    is shifted ``delta`` more. With ``delta`` 0 the two models are exchangeable on every prompt.
    """
    level = rng.normal(0.0, PROMPT_SD, (prompts, 1, 1))
    shift = rng.normal(0.0, shift_sd, (prompts, 1, 1))
    out = []
    for extra in (delta, 0.0):
        side = np.concatenate([np.zeros((prompts, 1, 1)), shift + extra], axis=1)
        latent = np.round(np.clip(level + side + rng.normal(0.0, NOISE_SD, (prompts, 2, samples)), -1.0, 1.0), 4)
        out.append(np.where(np.abs(latent) < zero_cut(zeros), 0.0, latent))
    return out


def comparison_trial(
    rng, check: str, prompts: int, samples: int, shift_sd: float = 0.0, delta: float = 0.0, zeros: float = 0.0
) -> np.ndarray:
    """One simulated pair of models through :func:`biasflow.fairpair.comparisons.comparison_table`, checked once.

    ``check``: ``p`` (the swap test is at most 0.05), ``zero`` (the difference's interval
    covers 0), ``known`` (it covers the truth: :func:`excess_truth` of A's shift, B's being 0),
    ``unpaired`` (the two models' own R_excess intervals do not overlap: how a reader of the
    summary's bars would conclude).
    """
    scores, draws = [], []
    for model, sentiment in zip("AB", pair_sentiments(rng, prompts, samples, shift_sd, delta, zeros), strict=True):
        with _quiet():
            mine, null = scores_and_null(
                continuations(sentiment), ["sentiment"], None, NULL_DRAWS, int(rng.integers(2**31))
            )
        scores.append(mine.assign(model=model))
        draws.append(null.assign(model=model))
    scores = pd.concat(scores, ignore_index=True)
    if check == "unpaired":
        with _quiet():
            own = summarise(
                scores, pd.concat(draws), BootstrapSettings(bootstrap=BOOTSTRAP, seed=int(rng.integers(2**31)))
            )
        (low_a, high_a), (low_b, high_b) = own[["R_excess_lo", "R_excess_hi"]].to_numpy()
        return np.array([low_a > high_b or low_b > high_a])
    row = comparison_table(scores, NULL_DRAWS, int(rng.integers(2**31))).iloc[0]
    if check == "p":
        return np.array([row["p"] <= ALPHA])
    truth = excess_truth("R", samples, delta) if check == "known" else 0.0
    return np.array([row["difference_lo"] <= truth <= row["difference_hi"]])


# The release gate (docs/methods.md §7, §6.8): two models on GATE_PROMPTS prompts, half the scores 0 (weak sentiment),
# a prompt shift both share (sd GATE_SHIFT_SD), model A's counterfactual side GATE_DELTA more; the margin is the
# difference of their excess R over the population of prompts (:func:`pair_excess_truth`, numpy), so the true
# difference is exactly the margin (about power.min_effect.fairpair). Equivalence is a verdict only where the 90%
# interval is narrower than twice the margin, and at −δ it is `better` where the interval is narrower than the margin,
# so its rows have A's side shift EQUIVALENCE_DELTA more (a margin of about 0.10, the interval about 0.12 wide).
GATE_PROMPTS, GATE_SAMPLES, GATE_ZEROS, GATE_SHIFT_SD, GATE_DELTA, EQUIVALENCE_DELTA = 40, 5, 0.5, 0.3, 0.25, 0.5
# Prompts simulated for the gate's truth: its Monte Carlo error is about 2% of one dataset's standard error.
GATE_TRUTH_PROMPTS = 100_000
# The planned scenario: each study planned from its own pilot of this many prompts of two truly equal models, for the
# default margin power.min_effect.fairpair; the power it reaches is promised at least PLANNED_FLOOR, the pilot's own
# error moving the plan (docs/methods.md §6.8).
GATE_PILOT, PLANNED_FLOOR = 200, 0.80


@functools.cache
def pair_excess_truth(samples: int, shift_sd: float, delta: float, zeros: float) -> float:
    """Excess R of model A less model B's over the population of prompts (:func:`pair_sentiments`' design), numpy only.

    Each model's excess is the ratio its weighted mean estimates, E[w · (R − R̄)] / E[w], R̄
    and w = 1 / sd the mean and inverse spread of R over every split of the prompt's
    continuations (the observed split the first), over the prompts with an R and a spread,
    as the comparison counts them; both models' prompts are the same draws.
    """
    rng = np.random.default_rng([4041, samples, int(1000 * shift_sd), int(1000 * delta), int(1000 * zeros)])
    weighted, weights = np.zeros(2), np.zeros(2)
    for _ in range(GATE_TRUTH_PROMPTS // 1000):
        for k, scores in enumerate(pair_sentiments(rng, 1000, samples, shift_sd, delta, zeros)):
            B2, VV = _per_split(scores)
            with np.errstate(divide="ignore", invalid="ignore"):
                R = B2 / (B2 + VV)
            defined = np.isfinite(R)
            counts = defined.sum(axis=1)
            centre = np.where(defined, R, 0.0).sum(axis=1) / np.maximum(counts, 1)
            spread = np.sqrt(np.where(defined, (R - centre[:, None]) ** 2, 0.0).sum(axis=1) / np.maximum(counts, 1))
            tested = defined[:, 0] & (spread > 0)
            weight = np.where(tested, 1 / np.where(tested, spread, 1.0), 0.0)
            weighted[k] += (weight * np.where(tested, R[:, 0] - centre, 0.0)).sum()
            weights[k] += weight.sum()
    excess = weighted / weights
    return float(excess[0] - excess[1])


def gate_scores(
    rng, prompts: int, delta: float, dissimilarities=("sentiment",), shift_sd: float = GATE_SHIFT_SD
) -> pd.DataFrame:
    """Two models' per-prompt scores (A's counterfactual side ``delta`` more), each dissimilarity from its own data."""
    frames = []
    for dissimilarity in dissimilarities:
        for model, sentiment in zip(
            "AB", pair_sentiments(rng, prompts, GATE_SAMPLES, shift_sd, delta, GATE_ZEROS), strict=True
        ):
            with _quiet():
                mine, _ = scores_and_null(
                    continuations(sentiment), ["sentiment"], None, NULL_DRAWS, int(rng.integers(2**31))
                )
            frames.append(mine.assign(model=model, dissimilarity=dissimilarity))
    return pd.concat(frames, ignore_index=True)


def gate_verdicts(scores: pd.DataFrame, baseline: str, candidate: str, margin: float) -> Verdicts:
    """The verdicts `biasflow compare --method fairpair` gives the simulated scores at ``margin`` (no swap draws: a
    verdict reads no p)."""
    rows = compare([scores], baseline, candidate, 0, 0)
    return Verdicts(
        "fairpair",
        baseline,
        candidate,
        "the simulated truth",
        judge(
            rows.assign(
                measure_name=rows["dissimilarity"],
                unit="prompts",
                n_units=rows["n_prompts"],
                note=None,
                why_untested=None,
            ),
            margin,
        ),
    )


def gate_trial(rng, check: str, delta: float = GATE_DELTA, shift_sd: float = GATE_SHIFT_SD) -> np.ndarray:
    """One pair of models at the margin through the comparison and its verdicts, checked.

    ``check``: ``not_worse`` (A against B: ``not worse``, ``equivalent`` or ``better`` claimed),
    ``equivalent_above`` (A against B, the truth +δ: ``equivalent`` claimed), ``equivalent_below``
    (B against A, the truth −δ), ``gate`` (both dissimilarities at +δ: ``--fail-on
    not-noninferior`` passes). With ``shift_sd`` 0 no prompt reads as biased to B, whose
    population excess R is then 0.
    """
    margin = pair_excess_truth(GATE_SAMPLES, shift_sd, delta, GATE_ZEROS)
    dissimilarities = choices("fairpair.dissimilarities") if check == "gate" else ("sentiment",)
    scores = gate_scores(rng, GATE_PROMPTS, delta, dissimilarities, shift_sd)
    baseline, candidate = ("A", "B") if check == "equivalent_below" else ("B", "A")
    verdicts = gate_verdicts(scores, baseline, candidate, margin)
    if check == "gate":
        return np.array([verdicts.exit_code("not-noninferior") == 0])
    shown = verdicts.rows["verdict"]
    return (shown == EQUIVALENT if check.startswith("equivalent") else shown.isin(NON_INFERIOR)).to_numpy()


def gate_planned_trial(rng) -> np.ndarray:
    """Whether a candidate truly equal to the baseline is shown non-inferior at the prompts the planner asks for.

    Each study is planned (§6.8) from a pilot of its own of :data:`GATE_PILOT` prompts (the
    first draws of its stream) at the default margin: the power a user planning from one pilot
    gets, averaged over pilots.
    """
    margin = default("power.min_effect.fairpair")
    [row] = noninferiority_rows(gate_scores(rng, GATE_PILOT, 0.0), PowerSettings.defaults(min_effect=margin))
    verdicts = gate_verdicts(gate_scores(rng, math.ceil(row["n_needed"]), 0.0), "B", "A", margin)
    return verdicts.rows["verdict"].isin(NON_INFERIOR).to_numpy()


def _gate(
    statistic: str,
    truth: str,
    check: str,
    delta: float = GATE_DELTA,
    shift_sd: float = GATE_SHIFT_SD,
    quick: int = 60,
    full: int = 1000,
) -> Scenario:
    shared = f"shared prompt shift sd {shift_sd}" if shift_sd else "no prompt shift (B's excess R 0)"
    return Scenario(
        "fairpair",
        statistic,
        f"{GATE_PROMPTS} prompts × {GATE_SAMPLES} samples per side, "
        f"{GATE_ZEROS:.0%} zeros (weak sentiment read as 0), {shared}, "
        f"margin the population excess R difference at A's side shift {delta} more",
        truth,
        REJECTION,
        ALPHA,
        0.0,
        ALPHA,
        gate_trial,
        dict(check=check, delta=delta, shift_sd=shift_sd),
        quick=quick,
        full=full,
    )


def _pair_design(prompts: int, samples: int, shift_sd: float, delta: float, zeros: float) -> str:
    scores = f"{zeros:.0%} zeros (weak sentiment read as 0)" if zeros else "continuous scores"
    shared = f", shared prompt shift sd {shift_sd}" if shift_sd else ""
    shifted = f", A's side shift {delta} more" if delta else ", two models exchangeable"
    return f"{prompts} prompts × {samples} samples per side, {scores}{shared}{shifted}"


def _comparison(
    statistic: str,
    truth: str,
    measure: str,
    nominal: float,
    lower: float,
    upper: float,
    check: str,
    prompts: int = 20,
    samples: int = 5,
    shift_sd: float = 0.0,
    delta: float = 0.0,
    zeros: float = 0.0,
    full: int = 300,
) -> Scenario:
    return Scenario(
        "fairpair",
        statistic,
        _pair_design(prompts, samples, shift_sd, delta, zeros),
        truth,
        measure,
        nominal,
        lower,
        upper,
        comparison_trial,
        dict(check=check, prompts=prompts, samples=samples, shift_sd=shift_sd, delta=delta, zeros=zeros),
        quick=30,
        full=full,
    )


def _design(prompts: int, samples: int, **rest) -> str:
    zeros = rest.get("zeros", 0.0)
    shape = "skewed scores" if rest.get("shape") == "skewed" else "continuous scores"
    if zeros:
        kind = "weak sentiment read as 0" if rest.get("zero_model", "weak") == "weak" else "at random"
        shape = f"{zeros:.0%} zeros ({kind})"
    shift = f", side shift {rest['shift']}" if rest.get("shift") else ""
    return f"{prompts} prompts × {samples} samples per side, {shape}{shift}"


def _scenario(
    statistic: str,
    truth: str,
    measure: str,
    nominal: float,
    lower: float,
    upper: float,
    trial,
    design: dict,
    extra: dict | None = None,
    quick: int = 30,
    full: int = 200,
) -> Scenario:
    """A FairPair scenario of ``design`` (the keywords of :func:`sentiments`), named by it."""
    return Scenario(
        "fairpair",
        statistic,
        _design(**design),
        truth,
        measure,
        nominal,
        lower,
        upper,
        trial,
        {**design, **(extra or {})},
        quick=quick,
        full=full,
    )


NO_BIAS = "no bias (sides exchangeable)"
SHIFT = 0.3
# Rows whose rate is read against a promise near its nominal level get the full 200 datasets; the
# F-scale intervals and the paper's test, whose promises are looser, 150 (the table runs in minutes).
LOOSE = {"full": 150}


SCENARIOS = [
    *[
        _scenario(
            "headline p_perm",
            NO_BIAS,
            REJECTION,
            ALPHA,
            0.02,
            0.07,
            headline_rejects,
            {"prompts": 20, "samples": samples, **design},
        )
        for samples, design in [
            (5, {}),
            (5, {"zeros": 0.35}),
            (5, {"zeros": 0.5}),
            (10, {"zeros": 0.5}),
            (5, {"zeros": 0.5, "zero_model": "random"}),
            (5, {"shape": "skewed"}),
        ]
    ],
    *[
        _scenario(
            "headline p_perm",
            f"side shift {SHIFT}",
            REJECTION,
            math.nan,
            lower,
            1.0,
            headline_rejects,
            {"prompts": 20, "samples": 5, "shift": SHIFT, **design},
        )
        for lower, design in [(0.65, {}), (0.65, {"zeros": 0.35}), (0.17, {"zeros": 0.35, "zero_model": "random"})]
    ],
    _scenario(
        "per-prompt p_perm",
        NO_BIAS,
        REJECTION,
        ALPHA,
        0.02,
        0.06,
        prompt_rejects,
        {"prompts": 20, "samples": 5, "zeros": 0.5},
        quick=20,
        full=100,
    ),
    *[
        _scenario("R_excess interval", truth, COVERAGE, 0.95, 0.91, 0.99, excess_covers, design, {"statistic": "R"})
        for truth, design in [
            (NO_BIAS, {"prompts": 20, "samples": 5}),
            (NO_BIAS, {"prompts": 20, "samples": 5, "zeros": 0.5}),
            (
                f"side shift {SHIFT}: E[w (R − R̄)] / E[w], R̄ and w = 1/sd over all splits",
                {"prompts": 20, "samples": 5, "shift": SHIFT},
            ),
        ]
    ],
    *[
        _scenario(
            "F_excess interval", truth, COVERAGE, 0.95, 0.80, 0.95, excess_covers, design, {"statistic": "F"}, **LOOSE
        )
        for truth, design in [
            (NO_BIAS, {"prompts": 20, "samples": 5}),
            (f"side shift {SHIFT}: E[F − F̄], F̄ over all splits", {"prompts": 20, "samples": 5, "shift": SHIFT}),
        ]
    ],
    _scenario(
        "mean_F t interval",
        "E[F | F finite], no bias",
        COVERAGE,
        0.95,
        0.78,
        0.95,
        mean_f_covers,
        {"prompts": 20, "samples": 5},
        **LOOSE,
    ),
    _scenario(
        "welch_p (the paper's)",
        NO_BIAS,
        REJECTION,
        ALPHA,
        0.0,
        0.05,
        welch_rejects,
        {"prompts": 20, "samples": 5},
        **LOOSE,
    ),
    # Paired comparisons of two models (§2.9): valid when they are exchangeable, and more powerful than the bars.
    *[
        _comparison(
            "paired p ≤ 0.05", "no difference between the models", REJECTION, ALPHA, 0.0, 0.06, "p", **design, full=600
        )
        for design in ({}, {"zeros": 0.5}, {"shift_sd": 0.3, "zeros": 0.5})
    ],
    *[
        _comparison(
            "paired interval covers 0", "no difference between the models", COVERAGE, 0.95, 0.93, 1.0, "zero", **design
        )
        for design in ({}, {"zeros": 0.5}, {"shift_sd": 0.3, "zeros": 0.5})
    ],
    _comparison(
        "paired interval covers the known difference",
        f"A's excess R at side shift {SHIFT}, B's 0",
        COVERAGE,
        0.95,
        0.90,
        1.0,
        "known",
        delta=SHIFT,
    ),
    *[
        _comparison(
            what, f"A's side shift {SHIFT}, B's 0", REJECTION, math.nan, lower, 1.0, check, prompts=prompts, delta=SHIFT
        )
        for prompts, power in ((20, 0.3), (60, 0.75))
        for what, check, lower in (
            ("paired p ≤ 0.05 (power)", "p", power),
            ("the two models' own R_excess intervals apart, unpaired (power)", "unpaired", 0.0),
        )
    ],
    # The release gate (§7): each verdict a one-sided test at 5%, so at the margin a claim of no harm is made in at
    # most 5% of datasets, and the intersection-union gate over both dissimilarities at the margin passes in no more.
    _gate(
        "'not worse' claimed (better, equivalent or not worse)",
        "A's population excess R exactly the margin above B's, B's above 0",
        "not_worse",
    ),
    _gate(
        "'not worse' claimed (better, equivalent or not worse)",
        "A's population excess R exactly the margin above B's, B's 0",
        "not_worse",
        shift_sd=0.0,
    ),
    _gate(
        "--fail-on not-noninferior passes (both dissimilarities)",
        "each dissimilarity's population excess R in A exactly the margin above B's",
        "gate",
        quick=30,
        full=200,
    ),
    _gate(
        "'equivalent' claimed",
        "A's population excess R exactly the margin above B's",
        "equivalent_above",
        EQUIVALENCE_DELTA,
        quick=40,
        full=400,
    ),
    _gate(
        "'equivalent' claimed",
        "the candidate's population excess R exactly the margin below the baseline's",
        "equivalent_below",
        EQUIVALENCE_DELTA,
        quick=40,
        full=400,
    ),
    # The gate's planner (§6.8): at the prompts it asks for, a truly equal candidate is shown not worse 80% of the time.
    Scenario(
        "fairpair",
        "'not worse' shown at the gate planner's size (power)",
        f"the prompts planned from a pilot of {GATE_PILOT} × {GATE_SAMPLES} samples per side, {GATE_ZEROS:.0%} "
        f"zeros (weak sentiment read as 0), shared prompt shift sd {GATE_SHIFT_SD}, margin "
        f"{default('power.min_effect.fairpair'):g}",
        "two models exchangeable",
        REJECTION,
        0.80,
        PLANNED_FLOOR,
        1.0,
        gate_planned_trial,
        {},
        quick=20,
        full=300,
    ),
]
