"""Where a model's bias would move (docs/methods.md §1.17): components recovered on simulated statistics."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from biasflow.cairo.stats import STATS_COLUMNS
from biasflow.cairo.variance import VARIANCE_COLUMNS, variance_table

# Sizes and the standard deviations of each source: wording (per set and subgroup), prompts (per cluster; crossed:
# the template × subgroup interaction, beside a template effect all subgroups share), seed (per set, seed and
# subgroup) and continuations (per score).
SETS, SEEDS, CLUSTERS, SCORES = 6, 6, 8, 5
SD = {"wording": 0.10, "prompts": 0.20, "seed": 0.10, "continuations": 0.5}
SHARED_TEMPLATE_SD = 0.4


def simulated_stats(rng, design: str = "nested", model: str = "m1") -> pd.DataFrame:
    """One model's statistics: subgroup f 1.0 above m (so Eq. 1 = m_f − m_m, no sign flips), every source drawn.

    ``nested``: each subgroup its own pages; ``crossed``: every subgroup in the same templates,
    each template moving every subgroup alike (which cancels in m_f − m_m) and each one apart.
    """
    shared = rng.normal(0, SHARED_TEMPLATE_SD, CLUSTERS) if design == "crossed" else np.zeros(CLUSTERS)
    # Axes: prompt set, seed, subgroup (f, m), cluster, score.
    prompt_effect = shared + rng.normal(0, SD["prompts"], (2, CLUSTERS))
    wording = rng.normal(0, SD["wording"], (SETS, 1, 2, 1, 1))
    seed_effect = rng.normal(0, SD["seed"], (SETS, SEEDS, 2, 1, 1))
    scores = (
        np.array([1.0, 0.0])[:, None, None]
        + wording
        + prompt_effect[:, :, None]
        + seed_effect
        + rng.normal(0, SD["continuations"], (SETS, SEEDS, 2, CLUSTERS, SCORES))
    )
    p, s, g, c = (a.ravel() for a in np.meshgrid(*map(np.arange, scores.shape[:4]), indexing="ij"))
    group, cluster = np.array(["f", "m"])[g], c.astype(str)
    key = np.char.add("t", cluster) if design == "crossed" else np.char.add(np.char.add(group, "-page"), cluster)
    return pd.DataFrame(
        {
            "model": model,
            "metric": "BOLD",
            "axis": "gender",
            "split": "test",
            "promptset": np.where(p == 0, "original", np.char.add("para/", p.astype(str))),
            "seed": s,
            "subgroup": group,
            "group_key": key,
            "score_sum": scores.sum(axis=-1).ravel(),
            "score_sq_sum": (scores**2).sum(axis=-1).ravel(),
            "n": SCORES,
        },
        columns=STATS_COLUMNS,
    )


def truth() -> dict[str, float]:
    """Each source's variance in Eq. 1 = mean over seeds of m_f − m_m on the original prompts, written out
    (in both designs: a template effect both subgroups share cancels in the difference)."""
    return {
        "wording": 2 * SD["wording"] ** 2,
        "seed": 2 * SD["seed"] ** 2 / SEEDS,
        "prompts": 2 * SD["prompts"] ** 2 / CLUSTERS,
        "continuations": 2 * SD["continuations"] ** 2 / (CLUSTERS * SCORES * SEEDS),
    }


@pytest.mark.parametrize("design", ["nested", "crossed"])
def test_each_component_is_recovered_on_average_over_simulated_studies(design):
    """150 studies, run 5 at a time as the models of one table (a model's components are its own; the 5 share a
    batch's bootstrap draws, each batch its own seed). The tolerance, 3 Monte Carlo standard errors of the mean and
    5% of the truth, is 7% (continuations) to about 30% (seed) of each component."""
    rng = np.random.default_rng(11)
    tables = [
        variance_table(
            pd.concat([simulated_stats(rng, design, model=f"study{5 * batch + i}") for i in range(5)]),
            300,
            batch,
            "none",
        )
        for batch in range(30)
    ]
    assert list(tables[0].columns) == VARIANCE_COLUMNS
    table = pd.concat(tables, ignore_index=True)
    assert len(table) == 150
    for source, expected in truth().items():
        estimates = table[f"sd_{source}"].to_numpy() ** 2
        error = estimates.std(ddof=1) / np.sqrt(len(estimates))
        assert abs(estimates.mean() - expected) <= 3 * error + 0.05 * expected, (
            source,
            estimates.mean(),
            expected,
            error,
        )


def test_shares_add_up_and_one_seed_has_no_seed_part():
    rng = np.random.default_rng(12)
    stats = simulated_stats(rng)
    [row] = variance_table(stats, 100, 0, "none").to_dict("records")
    shares = [row[f"share_{s}"] for s in ("wording", "seed", "prompts", "continuations")]
    assert sum(shares) == pytest.approx(1.0)
    assert row["sd_total"] ** 2 == pytest.approx(
        sum(row[f"sd_{s}"] ** 2 for s in ("wording", "seed", "prompts", "continuations"))
    )
    assert (row["n_sets"], row["n_seeds"], row["n_clusters"]) == (SETS, SEEDS, CLUSTERS)
    [single] = variance_table(stats[stats["seed"] == 0], 100, 0, "none").to_dict("records")
    assert np.isnan(single["sd_seed"]) and np.isnan(single["share_seed"]) and single["n_seeds"] == 1


def test_the_bias_is_eq1_of_the_original_prompts():
    stats = simulated_stats(np.random.default_rng(13))
    original = stats[stats["promptset"] == "original"]
    per_seed = []
    for _, seed in original.groupby("seed"):
        means = seed.groupby("subgroup")["score_sum"].sum() / seed.groupby("subgroup")["n"].sum()
        per_seed.append(abs(means["f"] - means.mean()) + abs(means["m"] - means.mean()))
    [row] = variance_table(stats, 0, 0, "none").to_dict("records")
    assert row["bias"] == pytest.approx(np.mean(per_seed))
    assert np.isnan(row["sd_prompts"]), "no bootstrap draws: no prompts' part"
