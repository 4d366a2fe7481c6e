"""FairPair's power planner: the weighted excess R over prompts, checked by the headline test (docs/methods.md §6.4)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from biasflow.errors import BiasflowError
from biasflow.fairpair import scores as fairpair
from biasflow.fairpair.null import bounded, weighted_test
from biasflow.fairpair.power import Settings, model_rows, plan
from biasflow.fairpair.scores import PROMPT_SCORE_COLUMNS

SETTINGS = Settings.defaults()


def scores(R: np.ndarray, null_mean: np.ndarray, null_sd: np.ndarray) -> pd.DataFrame:
    table = pd.DataFrame(dict.fromkeys(PROMPT_SCORE_COLUMNS, np.nan), index=range(len(R)))
    table["prompt_id"] = [f"p{i}" for i in range(len(R))]
    table["dissimilarity"] = "sentiment"
    table["R"], table["R_null_mean"], table["R_null_sd"] = R, null_mean, null_sd
    return table


def test_the_excess_is_counted_over_the_prompts_the_headline_tests():
    """sd(z) / mean(w) over the prompts with an R and a null spread, z = (R − R_null_mean) · w, w = 1 / R_null_sd."""
    R = np.array([0.6, 0.5, np.nan, 0.7, 0.55, 0.4])
    null_sd = np.array([0.1, 0.2, 0.1, 0.0, 0.05, 0.1])
    row = model_rows(scores(R, np.full(6, 0.5), null_sd), "m", SETTINGS)[0]
    w = 1 / np.array([0.1, 0.2, 0.05, 0.1])
    z = (np.array([0.6, 0.5, 0.55, 0.4]) - 0.5) * w
    assert row["n"] == 4 and row["unit"] == "prompts" and row["measure"] == "excess R"
    assert row["sd"] == pytest.approx(z.std(ddof=1) / w.mean())
    assert row["baseline"] == pytest.approx(0.5)


def test_a_pilot_without_spread_has_no_mdd(caplog):
    row = model_rows(scores(np.full(3, 0.5), np.full(3, 0.5), np.full(3, 0.1)), "m", SETTINGS)[0]
    assert math.isnan(row["sd"]) and math.isnan(row["mdd"]) and math.isnan(row["n_needed"])
    assert "no spread to plan from" in caplog.text


def test_scores_without_the_null_are_refused_with_the_setting_that_adds_it(tmp_path):
    path = tmp_path / "m.csv"
    scores(np.array([0.5, 0.6]), np.array([np.nan, np.nan]), np.array([np.nan, np.nan])).to_csv(path, index=False)
    with pytest.raises(BiasflowError, match=r"fairpair\.null_draws above 0"):
        plan({"m": [str(path)]}, SETTINGS)


def test_an_excess_at_the_mdd_is_detected_by_the_headline_test_about_80_percent_of_the_time():
    """Studies resampled from a no-bias pilot's prompts (scored with their null draws by the library) at the
    pilot's size, every observed R raised by the planner's mdd; detected when the headline test's p_perm ≤ 0.05.

    The test's threshold comes from the null's spread (1 per prompt in z) and its shift from the pilot's sd(z),
    which a skewed z puts anywhere in 0.9-1.1 at 200 prompts: 72-90% detected, 80% when they agree.
    """
    rng = np.random.default_rng(2)
    values = np.round(np.clip(rng.normal(0, 0.3, (200, 1, 1)) + rng.normal(0, 0.4, (200, 2, 5)), -1, 1), 4)
    values = np.where(rng.random(values.shape) < 0.3, 0.0, values)  # zeros at random, as neutral texts
    rows = [
        (f"p{p:03d}", fairpair.SIDES[k], s, "", values[p, k, s]) for p in range(200) for k in range(2) for s in range(5)
    ]
    table = pd.DataFrame(rows, columns=[*fairpair.SIDE_COLUMNS, fairpair.SENTIMENT_COLUMN])
    pilot, draws = fairpair.scores_and_null(table, ["sentiment"], None, 199, 0)
    row = model_rows(pilot, "m", SETTINGS)[0]
    R_draws = bounded(draws.pivot(index="draw", columns="prompt_id", values="F")[pilot["prompt_id"]].to_numpy())
    usable = np.flatnonzero(pilot["R_null_sd"].to_numpy() > 0)
    assert row["n"] == len(usable)
    detected = []
    for _ in range(600):
        chosen = rng.choice(usable, len(usable))
        weights = 1 / pilot["R_null_sd"].to_numpy()[chosen]
        _, p = weighted_test(pilot["R"].to_numpy()[chosen] + row["mdd"], R_draws[:, chosen], weights)
        detected.append(p <= 0.05)
    assert 0.72 <= np.mean(detected) <= 0.90, (np.mean(detected), row["mdd"])


def test_a_paired_difference_at_the_mdd_is_detected_by_the_swap_test_about_80_percent_of_the_time():
    """Two exchangeable models' pilot (scored with their null draws by the library); studies resample the prompts
    with both models' values at the pilot's size, model A's excess set the planner's paired mdd above B's; detected
    when the paired swap test's p ≤ 0.05 (docs/methods.md §2.9, §6.6)."""
    from biasflow.fairpair.comparisons import paired_difference, shared_units, swap_p, tested_prompts
    from biasflow.fairpair.power import pair_rows

    rng = np.random.default_rng(4)
    level = rng.normal(0, 0.3, (150, 1, 1))
    every = []
    for model in ("a", "b"):
        values = np.round(np.clip(level + rng.normal(0, 0.4, (150, 2, 5)), -1, 1), 4)
        rows = [
            (f"p{p:03d}", fairpair.SIDES[k], s, "", values[p, k, s])
            for p in range(150)
            for k in range(2)
            for s in range(5)
        ]
        table = pd.DataFrame(rows, columns=[*fairpair.SIDE_COLUMNS, fairpair.SENTIMENT_COLUMN])
        every.append(fairpair.scores_and_null(table, ["sentiment"], None, 99, 1)[0].assign(model=model))
    scores_ = pd.concat(every, ignore_index=True)
    [row] = pair_rows(scores_, SETTINGS)
    units = shared_units(*(tested_prompts(scores_[scores_["model"] == model]) for model in ("a", "b")))
    m = units.shape[1]
    assert row["n"] == m and row["model"] == "a vs b" and row["unit"] == "prompts"
    pilot, se = paired_difference(units)
    assert row["sd"] == pytest.approx(se * np.sqrt(m))
    detected = []
    for _ in range(400):
        study = units[:, rng.choice(m, m)].copy()
        study[0] += row["mdd"] - pilot  # the pilot's own chance difference taken out: the true one is the mdd
        difference = float(paired_difference(study)[0])
        detected.append(swap_p(study, rng.random((199, m)) < 0.5, difference) <= 0.05)
    assert 0.72 <= np.mean(detected) <= 0.90, (np.mean(detected), row["mdd"])


def test_a_pilot_file_with_a_header_and_no_rows_is_told_it_has_no_rows(tmp_path):
    path = tmp_path / "m.csv"
    scores(np.array([0.5]), np.array([0.5]), np.array([0.1])).iloc[:0].to_csv(path, index=False)
    with pytest.raises(BiasflowError, match=r"FairPair scores .*m.csv has no rows, only a header") as raised:
        plan({"m": [str(path)]}, SETTINGS)
    assert "null_draws" not in str(raised.value)


def test_the_gate_rows_plan_from_the_interval_compare_reads():
    """docs/methods.md §6.8: on the same pilot, the release gate's row is worked from the t interval and prompts of
    `biasflow compare`, so its n_needed is the units the inconclusive verdict quotes; against a baseline, one row
    per candidate."""
    from biasflow.fairpair.verdicts import command
    from biasflow.model_pairs import PairChoice

    rng = np.random.default_rng(6)
    level = rng.normal(0, 0.3, (30, 1, 1))
    every = []
    for model in ("a", "b", "c"):
        values = np.round(np.clip(level + rng.normal(0, 0.4, (30, 2, 5)), -1, 1), 4)
        rows = [
            (f"p{p:03d}", fairpair.SIDES[k], s, "", values[p, k, s])
            for p in range(30)
            for k in range(2)
            for s in range(5)
        ]
        table = pd.DataFrame(rows, columns=[*fairpair.SIDE_COLUMNS, fairpair.SENTIMENT_COLUMN])
        every.append(fairpair.scores_and_null(table, ["sentiment"], None, 49, 1)[0].assign(model=model))
    pilot = pd.concat(every, ignore_index=True)
    settings = Settings.defaults(min_effect=0.005, pairs=PairChoice(pairs="baseline", baseline="b"))
    plan_ = plan({"pilot": [pilot]}, settings)
    gate = plan_[plan_["measure"] == "non-inferiority margin (excess R)"].set_index("model")
    assert sorted(gate.index) == ["a vs b", "c vs b"]
    for candidate in ("a", "c"):
        [judged] = command([pilot], "b", candidate, None, 0.005, "--margin").rows.to_dict("records")
        row = gate.loc[f"{candidate} vs b"]
        assert judged["verdict"] == "inconclusive" and row["n"] == judged["n_units"] and row["unit"] == "prompts"
        assert row["n_needed"] == judged["units_needed"] > row["n"]


def test_the_gate_plan_reads_the_pilots_error_at_its_upper_80_percent_bound():
    """plan_factor² = 1 + z_0.80 √((κ − 1)/m), κ the (non-excess) kurtosis of the prompts' influences on the
    difference, each written out here from the weighted means (docs/methods.md §6.8)."""
    from scipy import stats

    from biasflow.fairpair.power import planning_factor

    rng = np.random.default_rng(8)
    x_a, x_b = rng.standard_t(3, 50), rng.standard_t(3, 50)
    w_a, w_b = rng.uniform(0.5, 2, 50), rng.uniform(0.5, 2, 50)
    theta_a, theta_b = (w_a * x_a).sum() / w_a.sum(), (w_b * x_b).sum() / w_b.sum()
    u = w_a * (x_a - theta_a) / w_a.sum() - w_b * (x_b - theta_b) / w_b.sum()
    kurtosis = stats.kurtosis(u, fisher=False, bias=True)
    expected = np.sqrt(1 + stats.norm.ppf(0.8) * np.sqrt((kurtosis - 1) / 50))
    assert planning_factor(np.stack([x_a, w_a, x_b, w_b])) == pytest.approx(expected, rel=1e-12)
    assert planning_factor(np.ones((4, 1))) == 1.0, "one prompt: nothing to bound"
