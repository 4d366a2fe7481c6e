"""Paired comparisons of FPR-gap systems (docs/methods.md §3.8), against slow loops over rebuilt rows, same draws."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from baseline_rows import assert_baseline_rows_match
from biasflow.compare_pairs import margin
from biasflow.errors import BiasflowError
from biasflow.fpr.comparisons import FAMILY, FPR_COMPARISON_COLUMNS, comparison_table
from biasflow.fpr.gaps import fpr_gaps, gap_spans
from biasflow.fpr.verdicts import command
from biasflow.model_pairs import PairChoice
from compare_cli import assert_refused, compare
from probe_predictions import GROUPS, named_stream, predictions

CLASSES = ("negative", "positive")


def system(model: str, seed: int, runs: int, templates: int = 7, bias: float = 0.0) -> pd.DataFrame:
    """One system's runs of the shared probe predictions, 30% of them labelled at random."""
    return predictions(seed, templates, runs, bias, model=model, wrong=0.3)


def gaps_and_spans(rows: pd.DataFrame) -> dict[str, pd.DataFrame]:
    """Per model: the gap table (groups as rows) and the spans, by the ordinary code."""
    gaps = fpr_gaps(rows, interval="t", z=1.96)
    spans = gap_spans(gaps.assign(probe="p"))
    spans = spans[spans["probe"] == "p"].set_index("model")
    return {"gaps": gaps.set_index(["model", "group"]), "spans": spans}


def statistics(rows: pd.DataFrame, a: str, b: str) -> dict[tuple[str, str, str], float]:
    """(class, measure, group) -> a's gap (or span) less b's."""
    tables = gaps_and_spans(rows)
    out = {}
    for name in CLASSES:
        for group in GROUPS:
            out[name, "gap", group] = (
                tables["gaps"].loc[(a, group), f"{name}_FPR_gap"] - tables["gaps"].loc[(b, group), f"{name}_FPR_gap"]
            )
        out[name, "span", ""] = tables["spans"].loc[a, f"{name}_span"] - tables["spans"].loc[b, f"{name}_span"]
    return out


def gap_vectors(rows: pd.DataFrame) -> dict[tuple[str, str], list[float]]:
    """(model, class) -> the model's gaps in the order of GROUPS, by the ordinary code."""
    gaps = gaps_and_spans(rows)["gaps"]
    return {
        (model, name): [gaps.loc[(model, group), f"{name}_FPR_gap"] for group in GROUPS]
        for model in gaps.index.unique("model")
        for name in CLASSES
    }


def span_reaches_by_loop(observed: list[list[float]], drawn: list[list[list[float]]]) -> tuple[list, list]:
    """Per draw, the span difference less the stand-ins of its error (docs/methods.md §3.8), group by group.

    ``observed``: a's and b's gaps; ``drawn``: per draw, a's and b's. Below a span's error: the
    move of the top group less that of the bottom one (of groups tied at the top, the least
    move; at the bottom, the largest); above it: the largest move among the
    groups within 3 bootstrap standard errors of the top less the smallest among those as near
    the bottom. Upper reach: difference − (a's below − b's above); lower: − (a's above − b's below).
    """

    def stand_ins(gaps: list[float], draws: list[list[float]]) -> list[tuple[float, float]]:
        top, bottom = gaps.index(max(gaps)), gaps.index(min(gaps))
        moves = [[d[g] - gaps[g] for g in range(len(gaps))] for d in draws]

        def near(reference: int, sign: float) -> list[int]:
            out = []
            for g in range(len(gaps)):
                apart = [sign * (m[reference] - m[g]) for m in moves]
                if sign * (gaps[reference] - gaps[g]) <= 3.0 * float(np.std(apart)):
                    out.append(g)
            return out

        near_top, near_bottom = near(top, 1.0), near(bottom, -1.0)
        tops = [g for g in range(len(gaps)) if abs(gaps[g] - gaps[top]) <= 1e-9]  # exact ties: the least move
        bottoms = [g for g in range(len(gaps)) if abs(gaps[g] - gaps[bottom]) <= 1e-9]
        return [
            (
                min(m[g] for g in tops) - max(m[g] for g in bottoms),
                max(m[g] for g in near_top) - min(m[g] for g in near_bottom),
            )
            for m in moves
        ]

    difference = (max(observed[0]) - min(observed[0])) - (max(observed[1]) - min(observed[1]))
    a, b = (stand_ins(observed[k], [draw[k] for draw in drawn]) for k in (0, 1))
    upper = [difference - (below_a - above_b) for (below_a, _), (_, above_b) in zip(a, b, strict=True)]
    lower = [difference - (above_a - below_b) for (_, above_a), (below_b, _) in zip(a, b, strict=True)]
    return upper, lower


def fast_rows(table: pd.DataFrame) -> dict[tuple[str, str, str], pd.Series]:
    return {
        (row["class"], row["measure"], "" if pd.isna(row["group"]) else row["group"]): row
        for _, row in table.iterrows()
    }


@pytest.mark.parametrize("runs_b", [3, 2])
def test_difference_and_interval_match_a_loop_over_resampled_rows(runs_b):
    """Each draw rebuilt as rows: the templates one draw for both systems, each system's runs its own draw."""
    preds = pd.concat([system("X", 1, 3), system("Y", 2, runs_b)], ignore_index=True)
    draws, seed = 12, 5
    fast = fast_rows(comparison_table(preds, draws, 0, seed))
    templates = sorted(preds["template_id"].unique())
    weights = named_stream(seed, "fpr-compare-templates", "race").multinomial(
        len(templates), np.full(len(templates), 1 / len(templates)), size=draws
    )
    run_weights = {}
    for model, runs in (("X", 3), ("Y", runs_b)):
        run_weights[model] = named_stream(seed, "fpr-compare-runs", model, "race").multinomial(
            runs, np.full(runs, 1 / runs), size=draws
        )
    parts = dict(iter(preds.groupby(["model", "run_id", "template_id"])))
    drawn = []
    for d in range(draws):
        copies = []
        for model in ("X", "Y"):
            for r, run in enumerate(sorted(preds.loc[preds["model"] == model, "run_id"].unique())):
                for copy in range(run_weights[model][d, r]):
                    for t, template in enumerate(templates):
                        copies += [parts[model, run, template].assign(run_id=f"{run}-{copy}")] * weights[d, t]
        rebuilt = pd.concat(copies, ignore_index=True)
        drawn.append((statistics(rebuilt, "X", "Y"), gap_vectors(rebuilt)))
    observed, observed_gaps = statistics(preds, "X", "Y"), gap_vectors(preds)
    for key, row in fast.items():
        assert row["difference"] == pytest.approx(observed[key], abs=1e-12), key
        if key[1] == "span":  # a span's bounds allow for tied groups: the basic bootstrap of its stand-ins
            upper, lower = (
                np.array(reach)
                for reach in span_reaches_by_loop(
                    [observed_gaps["X", key[0]], observed_gaps["Y", key[0]]],
                    [[gaps["X", key[0]], gaps["Y", key[0]]] for _, gaps in drawn],
                )
            )
        else:  # a gap's: the percentiles of the drawn differences
            upper = lower = np.array([statistic[key] for statistic, _ in drawn])
        for reach in (upper, lower):
            reach[np.abs(reach) <= 1e-9] = 0.0  # eps traces of a 0 are 0 (docs/methods.md §9)
        (low, low90), (high90, high) = np.percentile(lower, [2.5, 5]), np.percentile(upper, [95, 97.5])
        assert (row["difference_lo"], row["difference_hi"]) == pytest.approx((low, high), abs=1e-9), key
        assert (row["lo90"], row["hi90"]) == pytest.approx((low90, high90), abs=1e-9), key
        # One-sided: the share of lower draws at or below 0, counted as (1 + k) / (draws + 1).
        assert row["p_worse"] == pytest.approx((1 + np.sum(lower <= 1e-9)) / (draws + 1)), key
        assert np.isnan(row["p"]), "no swap draws, no p"


def test_swap_p_matches_a_loop_over_rows_traded_between_the_systems():
    """Each swap draw trades the systems' rows of the drawn templates (run r of one for run r of the other)."""
    preds = pd.concat([system("X", 3, 3), system("Y", 4, 3, bias=0.3)], ignore_index=True)
    swaps, seed = 20, 9
    fast = fast_rows(comparison_table(preds, 0, swaps, seed))
    templates = sorted(preds["template_id"].unique())
    trades = named_stream(seed, "fpr-compare-swaps", "race").random((swaps, len(templates))) < 0.5
    observed = statistics(preds, "X", "Y")
    swapped = []
    for d in range(swaps):
        traded = preds["template_id"].isin([t for t, flag in zip(templates, trades[d], strict=True) if flag])
        rows = preds.assign(model=np.where(traded, preds["model"].map({"X": "Y", "Y": "X"}), preds["model"]))
        swapped.append(statistics(rows, "X", "Y"))
    for key, row in fast.items():
        extreme = sum(abs(draw[key]) >= abs(observed[key]) - 1e-12 for draw in swapped)
        assert row["p"] == pytest.approx((1 + extreme) / (swaps + 1)), key
        assert np.isnan(row["difference_lo"]), "no bootstrap draws, no interval"


def test_only_the_templates_both_systems_classified_enter_a_pair():
    x, y = system("X", 5, 3), system("Y", 6, 3)
    y = y[y["template_id"] != "t0"]
    table = fast_rows(comparison_table(pd.concat([x, y]), 0, 0, 0))
    expected = statistics(pd.concat([x[x["template_id"] != "t0"], y]), "X", "Y")
    assert {row["n_templates"] for row in table.values()} == {6}
    for key, row in table.items():
        assert row["difference"] == pytest.approx(expected[key], abs=1e-12), key


def test_two_systems_with_the_same_predictions_differ_by_nothing_and_are_never_separated():
    x = system("X", 7, 3)
    table = comparison_table(pd.concat([x, x.assign(model="Y")]), 200, 200, 0)
    assert list(table.columns) == FPR_COMPARISON_COLUMNS
    assert (table["difference"] == 0).all() and (table["p"] == 1).all() and (table["p_holm"] == 1).all()
    assert ((table["difference_lo"] <= 0) & (table["difference_hi"] >= 0)).all()


def test_every_pair_once_and_holm_over_the_measure():
    preds = pd.concat([system(m, i, 2) for i, m in enumerate("XYZ")], ignore_index=True)
    table = comparison_table(preds, 0, 50, 1)
    assert set(zip(table["model_a"], table["model_b"], strict=True)) == {("X", "Y"), ("X", "Z"), ("Y", "Z")}
    for _, family in table.groupby("measure"):
        p = np.sort(family["p"].to_numpy())
        holm = np.minimum(1, np.maximum.accumulate((len(p) - np.arange(len(p))) * p))
        assert np.sort(family["p_holm"].to_numpy()) == pytest.approx(holm)


def write(tmp_path, preds: pd.DataFrame) -> str:
    path = tmp_path / "predictions.tsv"
    preds.to_csv(path, sep="\t", index=False)
    return str(path)


def test_the_candidate_is_read_against_the_baseline(tmp_path):
    """The overall verdict, one judged line per class's span, then one line per class for the gaps."""
    preds = pd.concat([system("base", 8, 3, templates=12), system("tuned", 9, 3, templates=12, bias=0.6)])
    verdicts = command([write(tmp_path, preds)], "base", "tuned", None, *margin(None, "fpr"))
    rows, lines = verdicts.rows, verdicts.lines()
    assert set(rows["model_a"]) == {"tuned"} and set(rows["model_b"]) == {"base"}
    same_pair = comparison_table(preds, 1000, 1000, 0)
    turned = same_pair.set_index(["class", "measure", "group"]).loc[rows.set_index(["class", "measure", "group"]).index]
    assert rows["difference"].to_numpy() == pytest.approx(-turned["difference"].to_numpy())
    assert rows["p"].to_numpy() == pytest.approx(turned["p"].to_numpy())
    assert list(rows["measure"]) == ["span", "span"] and list(rows["class"]) == ["negative", "positive"]
    assert list(rows.columns[: len(FPR_COMPARISON_COLUMNS)]) == FPR_COMPARISON_COLUMNS
    assert len(lines) == 5
    assert lines[0].startswith("fpr: candidate tuned against baseline base: worse (margin ±0.05 from ")
    negative = rows.iloc[0]
    assert negative["verdict"] == "worse by more than the margin" and negative["difference"] == pytest.approx(0.5)
    assert lines[1] == (
        f"race negative FPR gap span: candidate tuned: worse than base by more than the margin "
        f"(lower bound {negative['lo90']:+.4f} > margin 0.05)"
    )
    assert lines[3].startswith("race, negative FPR gaps, candidate less baseline, where they differ: ")
    assert lines[4].startswith("race, positive FPR gaps: no group's gap differs detectably")


def test_an_attribute_without_the_candidate_is_two_spans_that_cannot_be_tested(tmp_path):
    """Religion's probes were classified by the baseline only: its spans are rows that cannot be tested, not left out,
    so the gate cannot pass on race alone (docs/methods.md §7)."""
    race = pd.concat([system("base", 8, 3, templates=12), system("tuned", 9, 3, templates=12)])
    religion = system("base", 10, 3, templates=12).assign(category="religion")
    verdicts = command([write(tmp_path, pd.concat([race, religion]))], "base", "tuned", None, 10.0, "--margin")
    rows = verdicts.rows.set_index("measure_name")
    assert list(rows.index) == [
        "race negative FPR gap span",
        "race positive FPR gap span",
        "religion negative FPR gap span",
        "religion positive FPR gap span",
    ]
    assert rows.loc["race negative FPR gap span", "verdict"] in ("better", "equivalent", "not worse")
    untested = rows.loc[["religion negative FPR gap span", "religion positive FPR gap span"]]
    assert untested["verdict"].isna().all()
    assert (untested["why_untested"] == "the predictions given have no tuned for this attribute").all()
    assert verdicts.exit_code("not-noninferior") == 1 and verdicts.overall == "inconclusive"


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (
            ["--baseline", "X", "--candidate", "X"],
            "--baseline and --candidate are both 'X'; name two different systems.",
        ),
        (["--baseline", "X", "--candidate", "W"], "--candidate 'W' is not in the predictions; their systems"),
        (["--baseline", "X", "--candidate", "Y", "--method", "fpr"], None),
    ],
)
def test_compare_stops_bad_pairs_in_one_line(tmp_path, flags, message):
    out = tmp_path / "compared.csv"
    path = write(tmp_path, pd.concat([system("X", 1, 2), system("Y", 2, 2)]))
    result = compare("fpr", "--predictions", [path], out, flags)
    if message is None:
        assert result.returncode == 0, result.stderr[-2000:]
        assert len(pd.read_csv(out)) == 2  # one judged span per class
        return
    assert_refused(result, message, out)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda p: p.drop(columns="template_id"), "the predictions have no template_id column"),
        (lambda p: p.assign(category=np.where(p["model"] == "X", "race", "age")), "X and Y share no template"),
    ],
)
def test_systems_that_cannot_be_paired_are_refused(tmp_path, change, message):
    preds = change(pd.concat([system("X", 1, 2), system("Y", 2, 2)], ignore_index=True))
    with pytest.raises(BiasflowError, match=message):
        command([write(tmp_path, preds)], "Y", "X", None, *margin(None, "fpr"))


def test_the_baselines_pairs_are_the_matching_rows_of_every_pair_adjusted_over_their_own_family():
    """docs/methods.md §7: each system against Y is all pairs' row of the two, turned to read candidate − Y where
    all pairs wrote it Y − candidate (W sorts before Y, Z after); Holm and BH run over the baseline's rows only."""
    preds = pd.concat([system(m, i, 3, bias=0.2 * i) for i, m in enumerate("WXYZ")], ignore_index=True)
    every = comparison_table(preds, 40, 60, 2)
    against = comparison_table(preds, 40, 60, 2, pairs=PairChoice(pairs="baseline", baseline="Y"))
    assert_baseline_rows_match(
        every, against, {"W": "Y", "X": "Y", "Z": "Y"}, ["category", "class", "measure", "group"], FAMILY
    )
    assert not comparison_table(preds, 40, 60, 2, pairs=PairChoice(pairs="none", baseline=None)).shape[0]


def test_a_baseline_model_pairs_each_classifiers_system_with_the_baselines_of_the_same_classifier():
    """The workflow names systems <model>/<classifier>: a baseline model compares like with like."""
    preds = pd.concat(
        [
            system(f"{m}/{c}", i, 2)
            for i, (m, c) in enumerate(
                [("a", "zero_shot"), ("b", "zero_shot"), ("c", "zero_shot"), ("a", "soft"), ("b", "soft")]
            )
        ],
        ignore_index=True,
    )
    every = comparison_table(preds, 0, 30, 1)
    against = comparison_table(preds, 0, 30, 1, pairs=PairChoice(pairs="baseline", baseline="a"))
    assert_baseline_rows_match(
        every,
        against,
        {"b/zero_shot": "a/zero_shot", "c/zero_shot": "a/zero_shot", "b/soft": "a/soft"},
        ["category", "class", "measure", "group"],
        FAMILY,
    )


def test_a_baseline_classifier_below_the_accuracy_floor_is_named_in_its_line(tmp_path):
    """Gaps of a near-chance classifier are noise: the verdict says the baseline's accuracy is below the floor."""
    chance = predictions(8, 12, 3, 0.0, model="base", wrong=1.0)  # every label random: about 1/3 right
    preds = pd.concat([chance, system("tuned", 9, 3, templates=12)])
    accuracy = (chance["y_true"] == chance["y_pred"]).mean()
    assert accuracy < 0.4
    verdicts = command([write(tmp_path, preds)], "base", "tuned", None, *margin(None, "fpr"))
    note = (
        f"the baseline base's accuracy {accuracy:.2f} is below fpr.accuracy_floor 0.4, so its gaps are a "
        "near-chance classifier's"
    )
    assert (verdicts.rows["note"] == note).all()
    assert all(line.endswith(f"({note})") for line in verdicts.lines()[1:3])
