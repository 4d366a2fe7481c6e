"""Where a gap would move (docs/methods.md §3.9): components recovered on simulated probes, and by hand."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from biasflow.fpr.gaps import fpr_gaps
from biasflow.fpr.variance import FPR_VARIANCE_COLUMNS, contributions, crossed_parts, variance_table
from probe_predictions import predictions

GROUPS, TERMS = ("A", "B", "C"), 2
# A linear probability model: P(called negative) = BASE + template × group effect + run × group effect.
BASE, SD_TEMPLATE, SD_RUN = 0.3, 0.10, 0.07


def called_negative(rng, templates: int, runs: int, probe_effect: np.ndarray | float = 0.0) -> np.ndarray:
    """Called negative (runs × templates × groups × terms): effects drawn, then every sentence in every run;
    ``probe_effect`` (per group) moves the whole probe set."""
    template_effect = rng.normal(0, SD_TEMPLATE, (1, templates, len(GROUPS), 1))
    run_effect = rng.normal(0, SD_RUN, (runs, 1, len(GROUPS), 1))
    probability = BASE + np.reshape(probe_effect, (1, 1, -1, 1)) + template_effect + run_effect
    return rng.random((runs, templates, len(GROUPS), TERMS)) < np.clip(probability, 0, 1)


def truth(templates: int, runs: int) -> dict[str, float]:
    """Each source's variance in a group's gap, written out: a gap is FPR_g − the mean over G groups, so each
    group-level variance v enters as v (G − 1) / G; the sentences' Bernoulli variance is E[p (1 − p)]."""
    share = (len(GROUPS) - 1) / len(GROUPS)
    bernoulli = BASE * (1 - BASE) - SD_TEMPLATE**2 - SD_RUN**2
    return {
        "templates": share * SD_TEMPLATE**2 / templates,
        "runs": share * SD_RUN**2 / runs,
        "sentences": share * bernoulli / (templates * TERMS * runs),
    }


def rows(called: np.ndarray, model: str = "m") -> pd.DataFrame:
    """The predictions of ``called``: templates of gold label positive (2), a sentence called negative or not."""
    r, t, g, k = (a.ravel() for a in np.meshgrid(*map(np.arange, called.shape), indexing="ij"))
    return pd.DataFrame(
        {
            "model": model,
            "run_id": [f"r{i}" for i in r],
            "category": "race",
            "group": np.array(GROUPS)[g],
            "template_id": [f"t{i:02d}" for i in t],
            "text": [f"sentence {a}-{b}-{c}" for a, b, c in zip(t, g, k, strict=True)],
            "y_true": 2,
            "y_pred": np.where(called.ravel(), 0, 2),
        }
    )


@pytest.mark.parametrize(("templates", "runs"), [(12, 4), (6, 2)])
def test_each_component_is_recovered_on_average_over_simulated_probes(templates, runs):
    """Unbiased before clipping: the mean estimate over simulated probe sets against the variances written out."""
    rng = np.random.default_rng(templates)
    studies = 3000
    estimates = []
    for _ in range(studies):
        called = called_negative(rng, templates, runs)
        fp = called.sum(axis=3).astype(float)
        estimates.append(crossed_parts(contributions(fp, np.full(fp.shape, float(TERMS)))).mean(axis=1))
    estimates = np.array(estimates)
    for i, (source, expected) in enumerate(truth(templates, runs).items()):
        mean, error = estimates[:, i].mean(), estimates[:, i].std(ddof=1) / np.sqrt(studies)
        assert abs(mean - expected) <= 3.5 * error, (source, mean, expected, error)


def test_a_known_probe_set_component_is_recovered():
    """Each probe set moves each group by its own effect (sd 0.08): the part across probe sets is its variance.

    Each study is a model of its own in one table (a model's components are computed from its own rows alone, so
    this is 200 tables in one call)."""
    rng = np.random.default_rng(6)
    sd, studies = 0.08, 200
    sets: dict[str, list[pd.DataFrame]] = {f"p{i}": [] for i in range(4)}
    for study in range(studies):
        for parts in sets.values():
            parts.append(rows(called_negative(rng, 8, 3, rng.normal(0, sd, len(GROUPS))), f"s{study:03d}"))
    table = variance_table({probe: pd.concat(parts, ignore_index=True) for probe, parts in sets.items()})
    negative = table[table["class"] == "negative"]
    estimates = (negative["sd_probe_sets"] ** 2).groupby(negative["model"]).mean()
    assert len(estimates) == studies
    expected = (len(GROUPS) - 1) / len(GROUPS) * sd**2
    error = np.std(estimates, ddof=1) / np.sqrt(studies)
    assert abs(np.mean(estimates) - expected) <= 3 * error + 0.05 * expected, (np.mean(estimates), expected, error)


def test_the_table_is_the_estimate_clipped_and_its_gap_the_mean_gap():
    rng = np.random.default_rng(3)
    for _ in range(5):
        called = called_negative(rng, 8, 3)
        table = variance_table({"probe": rows(called)})
        negative = table[table["class"] == "negative"].set_index("group").loc[list(GROUPS)]
        fpr = called.mean(axis=(1, 3))
        np.testing.assert_allclose(negative["gap"], (fpr - fpr.mean(axis=1, keepdims=True)).mean(axis=0), atol=1e-9)
        fp = called.sum(axis=3).astype(float)
        parts = crossed_parts(contributions(fp, np.full(fp.shape, float(TERMS))))
        for i, source in enumerate(("templates", "runs", "sentences")):
            np.testing.assert_allclose(negative[f"sd_{source}"] ** 2, np.clip(parts[i], 0, None), atol=1e-12)
        assert negative["sd_probe_sets"].isna().all() and set(negative["n_probe_sets"]) == {1}


def test_the_parts_add_up_to_the_variance_of_a_balanced_crossed_design_by_hand():
    """One group's y_rt written out: the mean squares of a 2 × 3 table, worked by hand."""
    y = np.array([[1.0, 2.0, 6.0], [3.0, 2.0, 4.0]])[..., None]  # runs × templates × one group
    # grand 3; template means 2, 2, 5; run means 3, 3; residuals ±1, 0, ±1
    ms_t, ms_r, ms_e = 2 * (1 + 1 + 4) / 2, 3 * 0 / 1, (1 + 0 + 1) * 2 / 2
    parts = crossed_parts(y)[:, 0]
    np.testing.assert_allclose(parts, [(ms_t - ms_e) / 2 / 3, (ms_r - ms_e) / 3 / 2, ms_e / 6])


def test_probe_sets_part_and_one_run():
    """Across two probe sets: the variance of the gap less the mean of each one's own (unclipped) parts."""
    rng = np.random.default_rng(4)
    sets = {"p1": called_negative(rng, 9, 3), "p2": called_negative(rng, 9, 3)}
    table = variance_table({name: rows(called) for name, called in sets.items()})
    assert list(table.columns) == FPR_VARIANCE_COLUMNS
    assert set(table["n_probe_sets"]) == {2} and set(table["n_templates"]) == {9} and set(table["n_runs"]) == {3}
    gaps, own = [], []
    for called in sets.values():
        fpr = called.mean(axis=(1, 3))
        gaps.append((fpr - fpr.mean(axis=1, keepdims=True)).mean(axis=0))
        fp = called.sum(axis=3).astype(float)
        own.append(crossed_parts(contributions(fp, np.full(fp.shape, float(TERMS)))).sum(axis=0))
    expected = np.clip(np.var(gaps, axis=0, ddof=1) - np.mean(own, axis=0), 0, None)
    for name in sets:
        negative = table[(table["probe"] == name) & (table["class"] == "negative")].set_index("group")
        np.testing.assert_allclose(negative.loc[list(GROUPS), "sd_probe_sets"] ** 2, expected, atol=1e-12)
        shares = negative[[f"share_{s}" for s in ("probe_sets", "templates", "runs", "sentences")]].to_numpy()
        np.testing.assert_allclose(np.nansum(shares, axis=1), 1.0)
    one_run = predictions(1, templates=9, runs=3)
    [alone] = (
        variance_table({"p1": one_run[one_run["run_id"] == "r0"]})
        .query("`class` == 'negative' and group == 'A'")
        .to_dict("records")
    )
    assert np.isnan(alone["sd_runs"]) and np.isnan(alone["sd_sentences"]) and np.isnan(alone["sd_probe_sets"])
    assert alone["sd_templates"] > 0 and alone["n_probe_sets"] == 1


def test_without_templates_only_the_gap_is_reported():
    table = variance_table({"p": predictions(3).drop(columns="template_id")})
    assert table["gap"].notna().all()
    assert table[["sd_templates", "sd_runs", "sd_sentences", "sd_probe_sets"]].isna().all().all()


def test_each_gap_is_the_gap_tables():
    preds = predictions(7, templates=9, runs=3, bias=0.3)
    gaps = fpr_gaps(preds, interval="t", z=1.96).set_index("group")
    table = variance_table({"p": preds})
    for name in ("negative", "positive"):
        rows = table[table["class"] == name].set_index("group")
        np.testing.assert_allclose(rows["gap"], gaps.loc[rows.index, f"{name}_FPR_gap"], atol=1e-9)
