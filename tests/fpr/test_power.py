"""The FPR gaps' power planner: its counts against the predictions, and its mdd by simulation (docs/methods.md §6.2)."""

from __future__ import annotations

import logging
import math

import numpy as np
import pandas as pd
import pytest

from biasflow.fpr.power import Settings, group_rows, pair_rows, plan
from biasflow.model_pairs import PairChoice
from biasflow.power import planned, proportions_mdd
from probe_predictions import predictions as probe_predictions

SETTINGS = Settings.defaults()


def predictions(sizes: dict[str, int], fpr: dict[str, float], runs: int = 2) -> pd.DataFrame:
    """Per group, ``sizes`` neutral sentences (gold 1) of which a share ``fpr`` is called negative, in every run."""
    rows = []
    for run in range(runs):
        for group, size in sizes.items():
            wrong = round(fpr[group] * size)
            for i in range(size):
                rows.append(
                    {
                        "y_true": 1,
                        "y_pred": 0 if i < wrong else 1,
                        "category": "race",
                        "group": group,
                        "text": f"{group} sentence {i}",
                        "model": "m",
                        "run_id": f"r{run}",
                    }
                )
    return pd.DataFrame(rows)


def test_a_group_is_counted_in_sentences_against_the_other_groups_rate():
    preds = predictions({"A": 40, "B": 100, "C": 60}, {"A": 0.5, "B": 0.1, "C": 0.2}, runs=3)
    rows = pd.DataFrame(group_rows(preds, "templates", SETTINGS))
    a = rows[(rows["subgroup"] == "A") & (rows["measure"] == "negative FPR")].iloc[0]
    assert a["n"] == 40 and a["n_other"] == 160, "runs repeat the same sentences: each counts once"
    assert a["baseline"] == pytest.approx((10 + 12) / 160)
    assert a["mdd"] == pytest.approx(proportions_mdd((10 + 12) / 160, 40, 160, 0.05, 0.8))
    assert a["scope"] == "templates race" and a["target"] == 0.05
    # Nothing is gold positive or called positive: the positive FPR's baseline is 0.
    assert (rows.loc[rows["measure"] == "positive FPR", "baseline"] == 0).all()


def test_a_group_of_20_sentences_is_named_in_the_log(caplog, tmp_path):
    preds = predictions({"A": 20, "B": 20}, {"A": 0.1, "B": 0.1})
    path = tmp_path / "m.tsv"
    preds.to_csv(path, sep="\t", index=False)
    with caplog.at_level(logging.WARNING, logger="biasflow"):
        table = plan({"templates": [str(path)]}, SETTINGS)
    assert not table["detectable"].any()
    assert "m, templates race, A (fpr): with 20 sentences the smallest negative FPR difference" in caplog.text
    negative = table[(table["measure"] == "negative FPR")]
    assert (negative["n_needed"] > 600).all(), "0.10 against 0.15 needs hundreds of sentences per group"


def test_a_group_that_is_large_enough_is_not_warned_about(caplog):
    rows = group_rows(predictions({"A": 2000, "B": 2000}, {"A": 0.1, "B": 0.1}), "templates", SETTINGS)
    with caplog.at_level(logging.WARNING, logger="biasflow"):
        table = planned([r for r in rows if r["measure"] == "negative FPR"], "fpr", SETTINGS)
    assert table["detectable"].all() and caplog.text == ""


def test_a_simulated_group_at_the_mdd_is_detected_about_80_percent_of_the_time():
    """Studies of the pilot's size, the group's FPR raised by the planner's mdd, tested by the arcsine z test."""
    preds = predictions({"A": 150, "B": 150, "C": 150}, {"A": 0.12, "B": 0.12, "C": 0.12})
    row = next(r for r in group_rows(preds, "t", SETTINGS) if r["subgroup"] == "A" and r["measure"] == "negative FPR")
    p0, mdd = row["baseline"], row["mdd"]
    rng = np.random.default_rng(11)
    draws = 4000
    own = rng.binomial(int(row["n"]), p0 + mdd, draws) / row["n"]
    other = rng.binomial(int(row["n_other"]), p0, draws) / row["n_other"]
    z = (2 * np.arcsin(np.sqrt(own)) - 2 * np.arcsin(np.sqrt(other))) / math.sqrt(1 / row["n"] + 1 / row["n_other"])
    detected = np.mean(np.abs(z) > 1.959964)
    assert 0.75 <= detected <= 0.85, detected


def test_the_paired_rows_spread_is_that_of_the_difference_of_gaps_over_studies():
    """Two systems on the same 12 templates (A's group g0 called negative 0.35, B's 0.20): the planner's se,
    sd / √12 from one large pilot, against the spread of A's gap less B's over 2,000 studies written out with numpy
    (per run each group's negative FPR less the groups' mean, averaged over runs, as fpr_gaps computes it)."""
    from benchmarks.calibration.fpr import RUNS, TERMS, pair_probabilities
    from benchmarks.calibration.fpr import predictions as simulated

    rng = np.random.default_rng(3)
    (a, b), gold = pair_probabilities(rng, 3, 600, None, True)
    pilot = pd.concat([simulated(rng, a, gold, RUNS, "A"), simulated(rng, b, gold, RUNS, "B")], ignore_index=True)
    rows = pd.DataFrame(pair_rows(pilot, "p", SETTINGS))
    row = rows[(rows["measure"] == "paired negative FPR gap difference") & (rows["subgroup"] == "g0")].iloc[0]
    assert row["model"] == "A vs B" and row["n"] == 600 and row["unit"] == "templates"
    studies, templates = 2000, 12
    (a, b), gold = pair_probabilities(rng, 3, templates, None, True)
    gaps = []
    for probs in (a, b):
        u = rng.random((studies, RUNS, templates, 3, TERMS))
        labels = (u[..., None] > np.cumsum(probs, axis=-1)[:, :, None, :2]).sum(axis=-1)
        fpr = (labels[:, :, gold != 0] == 0).mean(axis=(2, 4))  # studies × runs × groups
        gaps.append((fpr[..., 0] - fpr.mean(axis=-1)).mean(axis=1))
    differences = gaps[0] - gaps[1]
    # The sd of 2,000 differences and the pilot's sd of 600 templates are each within about 3% (1 se).
    assert row["sd"] / math.sqrt(templates) == pytest.approx(np.std(differences, ddof=1), rel=0.1)
    assert np.mean(differences) == pytest.approx(0.10, abs=0.01)


def test_the_paired_rows_follow_the_comparisons_choice_of_pairs():
    """docs/methods.md §6.6, §7: against a baseline, each candidate's rows are the all-pairs rows of the two (the
    spread of a difference is the same whichever way it is taken), named candidate vs baseline; none: no rows."""
    preds = pd.concat(
        [probe_predictions(i, templates=6, runs=2, bias=0.2 * i, model=m) for i, m in enumerate("WXYZ")],
        ignore_index=True,
    )
    every = pd.DataFrame(pair_rows(preds, "p", SETTINGS))
    against = pd.DataFrame(pair_rows(preds, "p", Settings.defaults(pairs=PairChoice(pairs="baseline", baseline="Y"))))
    assert sorted(set(against["model"])) == ["W vs Y", "X vs Y", "Z vs Y"]
    turned = every.assign(model=every["model"].replace({"Y vs Z": "Z vs Y"}))
    expected = turned[turned["model"].isin(["W vs Y", "X vs Y", "Z vs Y"])]
    key = ["model", "subgroup", "measure"]
    pd.testing.assert_frame_equal(
        against.sort_values(key).reset_index(drop=True), expected.sort_values(key).reset_index(drop=True)
    )
    assert not pair_rows(preds, "p", Settings.defaults(pairs=PairChoice(pairs="none", baseline=None)))


def test_the_gate_rows_plan_from_the_span_interval_compare_reads():
    """docs/methods.md §6.8: per attribute and class, the release gate's row is worked from the gap span's 90%
    interval and templates of `biasflow compare` (fpr.bootstrap draws, fpr.seed), so its n_needed is the units an
    inconclusive verdict quotes."""
    from biasflow.fpr.verdicts import command

    preds = pd.concat(
        [probe_predictions(1, templates=12, runs=3, model="X"), probe_predictions(2, templates=12, runs=3, model="Y")],
        ignore_index=True,
    )
    table = plan({"p": [preds]}, Settings.defaults(min_effect=0.005))
    gate = table[table["measure"].str.startswith("non-inferiority margin")].set_index("measure")
    assert sorted(gate.index) == [f"non-inferiority margin ({name} FPR gap span)" for name in ("negative", "positive")]
    assert set(gate["model"]) == {"X vs Y"} and set(gate["scope"]) == {"p race"} and set(gate["n"]) == {12}
    judged = command([preds], "Y", "X", None, 0.005, "--margin").rows
    for row in judged.to_dict("records"):
        assert row["verdict"] == "inconclusive"
        mine = gate.loc[f"non-inferiority margin ({row['measure_name'].split()[1]} FPR gap span)"]
        assert mine["n_needed"] == row["units_needed"] > 12 and mine["unit"] == "templates"
