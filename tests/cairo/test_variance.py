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


def simulated_stats(rng, design: str = "nested") -> pd.DataFrame:
    """One model's statistics: subgroup f 1.0 above m (so Eq. 1 = m_f − m_m, no sign flips), every source drawn.

    ``nested``: each subgroup its own pages; ``crossed``: every subgroup in the same templates,
    each template moving every subgroup alike (which cancels in m_f − m_m) and each one apart.
    """
    rows = []
    shared = rng.normal(0, SHARED_TEMPLATE_SD, CLUSTERS) if design == "crossed" else np.zeros(CLUSTERS)
    prompt_effect = {(g, c): shared[c] + rng.normal(0, SD["prompts"]) for g in "fm" for c in range(CLUSTERS)}
    for p in range(SETS):
        promptset = "original" if p == 0 else f"para/{p}"
        wording = {g: rng.normal(0, SD["wording"]) for g in "fm"}
        for s in range(SEEDS):
            seed_effect = {g: rng.normal(0, SD["seed"]) for g in "fm"}
            for g in "fm":
                for c in range(CLUSTERS):
                    scores = (
                        (1.0 if g == "f" else 0.0)
                        + wording[g]
                        + prompt_effect[g, c]
                        + seed_effect[g]
                        + rng.normal(0, SD["continuations"], SCORES)
                    )
                    rows.append(
                        {
                            "model": "m1",
                            "metric": "BOLD",
                            "axis": "gender",
                            "split": "test",
                            "promptset": promptset,
                            "seed": s,
                            "subgroup": g,
                            "group_key": f"t{c}" if design == "crossed" else f"{g}-page{c}",
                            "score_sum": scores.sum(),
                            "score_sq_sum": (scores**2).sum(),
                            "n": SCORES,
                        }
                    )
    return pd.DataFrame(rows, columns=STATS_COLUMNS)


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
    rng = np.random.default_rng(11)
    # 60 studies: the tolerance, 3 Monte Carlo standard errors of their mean and 5% of the truth, is 8% (continuations)
    # to about 45% (seed) of each component.
    tables = [variance_table(simulated_stats(rng, design), 300, i, "none") for i in range(60)]
    assert list(tables[0].columns) == VARIANCE_COLUMNS
    for source, expected in truth().items():
        estimates = np.array([table[f"sd_{source}"].iloc[0] ** 2 for table in tables])
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
