"""The FPR statistics (docs/methods.md §3) against hand-worked counts and independent formulas.

One set of hand-worked groups serves the whole chain: reading predictions, per-group rates,
gaps, spans, net significance, accuracy and markedness.
"""

from __future__ import annotations

import math
import statistics

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from biasflow.cli import main
from biasflow.errors import BiasflowError
from biasflow.fpr.gaps import GAP_COLUMNS, fpr_gaps, gap_spans, net_significance
from biasflow.fpr.markedness import MARKEDNESS_COLUMNS, markedness
from biasflow.fpr.predictions import (
    UNMARKED,
    check_unique,
    read_predictions,
    run_accuracy,
)
from biasflow.fpr.rates import group_fpr, over_runs
from biasflow.fpr.steps import GapSettings, gaps


def rows(pairs, group, run="r1", model="m", category="race"):
    return [
        {
            "y_true": t,
            "y_pred": p,
            "category": category,
            "group": group,
            "text": f"{group} {i}",
            "model": model,
            "run_id": run,
        }
        for i, (t, p) in enumerate(pairs)
    ]


# Group A, written out (gold, predicted):
#   negative class (c=0): samples with gold != 0 are (1,0) (1,1) (2,2) (2,0) -> FP=2, TN=2 -> 0.5
#   positive class (c=2): samples with gold != 2 are (0,0) (0,2) (1,0) (1,1) -> FP=1, TN=3 -> 0.25
A = [(0, 0), (0, 2), (1, 0), (1, 1), (2, 2), (2, 0)]
# Group B (1 sample, neutral predicted neutral): both FPRs 0/1 = 0.
B = [(1, 1)]
# Group C (10 neutral samples all predicted negative): negative FPR 10/10 = 1, positive 0/10 = 0.
C = [(1, 0)] * 10


def frame(*parts):
    return pd.DataFrame([r for part in parts for r in part])


def test_group_fpr_hand_counts():
    g = group_fpr(frame(rows(A, "A"), rows(B, "B"), rows(C, "C"))).set_index("group")
    eps = 1e-10
    assert g.loc["A", "negative_FPR"] == pytest.approx((2 + eps) / (4 + eps), abs=1e-15)
    assert g.loc["A", "positive_FPR"] == pytest.approx((1 + eps) / (4 + eps), abs=1e-15)
    assert g.loc["B", "negative_FPR"] == pytest.approx(eps / (1 + eps), abs=1e-15)
    assert g.loc["C", "negative_FPR"] == pytest.approx(1.0)
    assert g.loc["A", "n"] == 6 and g.loc["C", "n"] == 10


def test_gap_uses_unweighted_group_mean_not_pooled_rows():
    raw = fpr_gaps(frame(rows(A, "A"), rows(B, "B"), rows(C, "C")), interval="z", z=1.96)
    assert list(raw.columns) == GAP_COLUMNS + ["category", "n_runs", "interval"]
    gaps = raw.set_index("group")
    # Unweighted mean of negative FPR: (0.5 + 0 + 1) / 3 = 0.5 -> gap(A) = 0.
    # Pooled over rows it would be (2 + 0 + 10) / (4 + 1 + 10) = 0.8 -> gap(A) = -0.3.
    assert gaps.loc["A", "negative_FPR_gap"] == pytest.approx(0.0, abs=1e-9)
    assert gaps.loc["C", "negative_FPR_gap"] == pytest.approx(0.5, abs=1e-9)
    # Positive: (0.25 + 0 + 0) / 3 -> gap(A) = 0.25 - 0.25/3.
    assert gaps.loc["A", "positive_FPR_gap"] == pytest.approx(0.25 - 0.25 / 3, abs=1e-9)
    assert gaps.loc["A", "n_runs"] == 1 and math.isnan(gaps.loc["A", "negative_FPR_gap_width"])


def three_runs():
    # Per run, group A has k of 4 neutral samples predicted negative, group B none:
    # negative FPR(A) = k/4, FPR(B) = 0, so gap(A) = k/8 -> 0.125, 0.25, 0.5.
    parts = []
    for run, k in [("r1", 1), ("r2", 2), ("r3", 4)]:
        parts.append(rows([(1, 0)] * k + [(1, 1)] * (4 - k), "A", run=run))
        parts.append(rows([(1, 1)] * 4, "B", run=run))
    return frame(*parts), [0.125, 0.25, 0.5]


@pytest.mark.parametrize("interval", ["z", "t"])
def test_interval_half_width(interval):
    preds, d = three_runs()
    z = stats.norm.ppf(0.975)
    q = z if interval == "z" else stats.t.ppf(0.975, len(d) - 1)
    gaps = fpr_gaps(preds, interval=interval, z=z).set_index("group")
    assert gaps.loc["A", "negative_FPR_gap"] == pytest.approx(statistics.mean(d), abs=1e-9)
    assert gaps.loc["A", "negative_FPR_gap_width"] == pytest.approx(q * statistics.stdev(d) / math.sqrt(3), abs=1e-9)
    assert gaps.loc["B", "negative_FPR_gap"] == pytest.approx(-statistics.mean(d), abs=1e-9)
    assert gaps.loc["A", "n_runs"] == 3 and gaps.loc["A", "interval"] == interval


def test_unmarked_is_not_a_group_in_gaps():
    preds = frame(rows(A, "A"), rows(B, "B"), rows(C, "C"), rows([(1, 0)] * 3, UNMARKED))
    gaps = fpr_gaps(preds, interval="z", z=1.96)
    assert UNMARKED not in set(gaps["group"])
    assert gaps.set_index("group").loc["A", "negative_FPR_gap"] == pytest.approx(0.0, abs=1e-9)


def test_gap_spans_and_mean_over_probes():
    gaps = pd.DataFrame(
        {
            "model": ["m"] * 6,
            "probe": ["p1"] * 3 + ["p2"] * 3,
            "category": ["race"] * 6,
            "group": ["A", "B", "C"] * 2,
            "negative_FPR_gap": [0.1, -0.2, 0.05, 0.3, 0.0, -0.1],
            "positive_FPR_gap": [0.0, 0.0, 0.0, 0.2, -0.2, 0.0],
        }
    )
    s = gap_spans(gaps).set_index("probe")
    assert s.loc["p1", "negative_span"] == pytest.approx(0.3)
    assert s.loc["p2", "negative_span"] == pytest.approx(0.4)
    assert s.loc["(mean)", "negative_span"] == pytest.approx(0.35)
    assert s.loc["(mean)", "positive_span"] == pytest.approx(0.2)


def test_net_significance():
    gaps = pd.DataFrame(
        {
            "model": ["m1", "m2", "m3", "m1", "m2", "m3"],
            "category": ["race"] * 6,
            "group": ["A"] * 3 + ["B"] * 3,
            # A: CI above 0, above 0, straddles 0 -> +2; B: below, below, NaN width (one run) -> -2
            "negative_FPR_gap": [0.2, 0.1, 0.05, -0.3, -0.1, -0.5],
            "negative_FPR_gap_width": [0.1, 0.05, 0.1, 0.1, 0.05, np.nan],
            # A: below 0 once; B: above twice, touching 0 once (not wholly above) -> +2
            "positive_FPR_gap": [-0.2, 0.0, 0.0, 0.2, 0.2, 0.1],
            "positive_FPR_gap_width": [0.1, 0.1, 0.1, 0.1, 0.1, 0.1],
        }
    )
    for n in ("negative", "positive"):  # the z interval's own p-values (se = width / 1.96)
        gaps[f"{n}_FPR_gap_p"] = 2 * stats.norm.sf(gaps[f"{n}_FPR_gap"].abs() / (gaps[f"{n}_FPR_gap_width"] / 1.96))
    net = net_significance(gaps).set_index("group")
    assert net.loc["A", "negative_net"] == 2 and net.loc["B", "negative_net"] == -2
    assert net.loc["A", "positive_net"] == -1 and net.loc["B", "positive_net"] == 2
    assert net.loc["A", "n_models"] == 3
    assert (net["n_tests"] == 11).all(), "12 gaps, one without an interval"


def holm_by_hand(p: np.ndarray, alpha: float) -> np.ndarray:
    """Holm's step-down: the k-th smallest p against alpha / (m − k + 1), stopping at the first that fails."""
    order, rejected = np.argsort(p), np.zeros(len(p), bool)
    for k, i in enumerate(order):
        if p[i] > alpha / (len(p) - k):
            break
        rejected[i] = True
    return rejected


def bh_by_hand(p: np.ndarray, alpha: float) -> np.ndarray:
    """Benjamini-Hochberg step-up: reject the k smallest for the largest k with p_(k) <= k alpha / m."""
    order = np.argsort(p)
    passing = [k for k in range(1, len(p) + 1) if p[order[k - 1]] <= k * alpha / len(p)]
    rejected = np.zeros(len(p), bool)
    rejected[order[: max(passing, default=0)]] = True
    return rejected


def test_corrected_net_significance_counts_what_holm_and_bh_reject_over_every_test():
    rng = np.random.default_rng(4)
    n = 40
    gaps = pd.DataFrame(
        {
            "model": [f"m{i % 5}" for i in range(n)],
            "category": "race",
            "group": [f"g{i // 5}" for i in range(n)],
            "probe": np.where(np.arange(n) < 20, "a", "b"),
        }
    )
    for cls in ("negative", "positive"):
        gaps[f"{cls}_FPR_gap"] = rng.normal(0, 0.1, n)
        gaps[f"{cls}_FPR_gap_p"] = np.concatenate([rng.uniform(0, 0.004, 8), rng.uniform(0, 1, n - 8)])
        gaps[f"{cls}_FPR_gap_width"] = 0.05
    net = net_significance(gaps).set_index(["probe", "category", "group"])
    p = gaps[["negative_FPR_gap_p", "positive_FPR_gap_p"]].to_numpy()
    for name, by_hand in (("holm", holm_by_hand), ("bh", bh_by_hand)):
        rejected = by_hand(p.ravel(), 0.05).reshape(p.shape)
        assert 0 < rejected.sum() < p.size, "the case tells the corrections apart from none and all"
        for i, cls in enumerate(("negative", "positive")):
            signs = np.where(rejected[:, i], np.sign(gaps[f"{cls}_FPR_gap"]), 0)
            expected = pd.Series(signs).groupby([gaps["probe"], gaps["category"], gaps["group"]]).sum()
            assert net[f"{cls}_net_{name}"].to_dict() == expected.astype(int).to_dict()
    assert (net["n_tests"] == 2 * n).all()


def identical_and_varying_runs():
    """m1 labels every run alike; m2's runs differ. Only neutral gold labels, so no positive label is ever given.

    Negative FPR per run: m1 A 1/2 and B 0 in all three runs (gaps ±0.25 thrice); m2 A 5/10,
    6/10, 7/10 and B 0 (gaps ±0.25, ±0.30, ±0.35). Positive FPR is 0 everywhere: gaps 0 in
    every run of both models, so no spread either.
    """
    parts = []
    for run, k in [("r1", 5), ("r2", 6), ("r3", 7)]:
        parts += [
            rows([(1, 0)] + [(1, 1)], "A", run=run, model="m1"),
            rows([(1, 1)] * 2, "B", run=run, model="m1"),
            rows([(1, 0)] * k + [(1, 1)] * (10 - k), "A", run=run, model="m2"),
            rows([(1, 1)] * 10, "B", run=run, model="m2"),
        ]
    return frame(*parts)


@pytest.mark.parametrize("interval", ["z", "t"])
def test_identical_runs_give_no_width_and_no_p_not_zero(interval, caplog):
    with caplog.at_level("WARNING", logger="biasflow"):
        gaps = fpr_gaps(identical_and_varying_runs(), interval=interval, z=1.96).set_index(["model", "group"])
    assert gaps.loc[("m1", "A"), "negative_FPR_gap"] == pytest.approx(0.25)
    for column in ("negative_FPR_gap_width", "negative_FPR_gap_p"):
        assert gaps.loc["m1", column].isna().all()
    for column in ("positive_FPR_gap_width", "positive_FPR_gap_p"):
        assert gaps[column].isna().all(), "all-zero gaps have no spread either: not p = 1 with width 0"
    assert (gaps["n_runs"] == 3).all()
    d = [0.25, 0.3, 0.35]
    q = 1.96 if interval == "z" else stats.t.ppf(0.975, 2)
    assert gaps.loc[("m2", "A"), "negative_FPR_gap_width"] == pytest.approx(q * statistics.stdev(d) / math.sqrt(3))
    expected_p = (
        stats.ttest_1samp(d, 0).pvalue
        if interval == "t"
        else 2 * stats.norm.sf(statistics.mean(d) / (statistics.stdev(d) / math.sqrt(3)))
    )
    assert gaps.loc[("m2", "B"), "negative_FPR_gap_p"] == pytest.approx(expected_p)
    messages = [r.getMessage() for r in caplog.records]
    assert any(
        m.startswith(
            "runs identical: no run-to-run spread to test against for 2 of 4 negative_FPR_gap values (model m1)"
        )
        for m in messages
    ), messages
    assert any("4 of 4 positive_FPR_gap values (model m1, m2)" in m for m in messages), messages


def test_the_forest_plot_draws_no_bar_for_a_gap_without_interval(monkeypatch, tmp_path):
    """Identical runs and a bootstrap without spread: points without bars, never a bar of zero length."""
    from biasflow.fpr import plots

    figures = []
    monkeypatch.setattr(plots, "save_png", lambda fig, path: figures.append(fig))
    gaps = fpr_gaps(identical_and_varying_runs(), interval="t", z=1.96)
    for cls in ("negative", "positive"):
        gaps[f"{cls}_FPR_gap_lo"], gaps[f"{cls}_FPR_gap_hi"] = np.nan, np.nan
    gaps.loc[gaps["model"] == "m2", ["negative_FPR_gap_lo", "negative_FPR_gap_hi"]] = [[0.1, 0.4], [-0.4, -0.1]]
    plots.plot_gaps(gaps, tmp_path / "gaps.png")
    segments = [
        segment
        for ax in figures[0].axes
        for container in ax.containers
        for collection in container.lines[2]
        for segment in collection.get_segments()
        if len(segment)
    ]
    lengths = [abs(segment[1, 0] - segment[0, 0]) for segment in segments]
    assert len(lengths) == 4, "m2's two negative gaps, each with both intervals"
    assert min(lengths) > 0


def test_equal_values_in_every_run_are_no_spread_even_when_the_float_sd_is_not_zero():
    """The mean of three 0.1s is 0.10000000000000002, so sd is 1.7e-17 and an sd test would give p ≈ 0."""
    per_run = pd.DataFrame({"key": "k", "run_id": ["r1", "r2", "r3"], "gap": [0.1, 0.1, 0.1]})
    assert 0 < np.std(per_run["gap"], ddof=1) < 1e-15
    out = over_runs(per_run, ["key"], {"gap": "gap"}, "t", 1.96).iloc[0]
    assert out["gap"] == pytest.approx(0.1) and math.isnan(out["gap_width"]) and math.isnan(out["gap_p"])


def test_net_significance_leaves_untested_gaps_out_and_counts_them_apart():
    """By hand (t, 3 runs): only m2's two negative gaps are tests, p = 0.0091 each, so both survive Holm and BH.

    Counting m1's identical runs as p = 0 would add a second +1 for A and −1 for B to every count.
    """
    gaps = fpr_gaps(identical_and_varying_runs(), interval="t", z=1.96)
    net = net_significance(gaps).set_index("group")
    p = stats.ttest_1samp([0.25, 0.3, 0.35], 0).pvalue
    assert p < 0.05 / 2, "significant after Holm over the two tests"
    expected = {
        "A": {
            "negative_net": 1,
            "negative_net_holm": 1,
            "negative_net_bh": 1,
            "positive_net": 0,
            "positive_net_holm": 0,
            "positive_net_bh": 0,
            "negative_untested": 1,
            "positive_untested": 2,
            "n_models": 2,
            "n_tests": 2,
        },
        "B": {
            "negative_net": -1,
            "negative_net_holm": -1,
            "negative_net_bh": -1,
            "positive_net": 0,
            "positive_net_holm": 0,
            "positive_net_bh": 0,
            "negative_untested": 1,
            "positive_untested": 2,
            "n_models": 2,
            "n_tests": 2,
        },
    }
    assert net.drop(columns="category").to_dict("index") == expected


def test_run_accuracy_floor():
    preds = frame(rows(A, "A", run="r1"), rows([(1, 1)] * 6, "A", run="r2"))
    acc = run_accuracy(preds, floor=0.5).set_index("run_id")
    assert acc.loc["r1", "accuracy"] == pytest.approx(3 / 6) and not acc.loc["r1", "below_floor"]
    assert acc.loc["r2", "accuracy"] == pytest.approx(1.0)
    preds_low = frame(rows([(1, 0)] * 3 + [(1, 1)], "A"))
    assert bool(run_accuracy(preds_low, floor=0.5)["below_floor"].iloc[0])


def test_markedness_hand_case():
    # A: negative FPR 0.5, positive 0.25 (above). Unmarked: 4 neutral, 1 predicted negative,
    # 2 predicted positive -> negative FPR 0.25, positive FPR 0.5.
    unmarked = [(1, 0), (1, 2), (1, 2), (1, 1)]
    m = markedness(frame(rows(A, "A"), rows(unmarked, UNMARKED)), interval="z", z=1.96).set_index("group")
    assert list(m.index) == ["A"]
    assert m.loc["A", "negative_markedness"] == pytest.approx(0.25, abs=1e-9)
    assert m.loc["A", "positive_markedness"] == pytest.approx(-0.25, abs=1e-9)
    assert math.isnan(m.loc["A", "negative_markedness_width"])


def test_markedness_of_identical_runs_has_no_width_and_no_p(caplog):
    """The hand case above, labelled alike in three runs: markedness 0.25 every run, so no interval and no test."""
    unmarked = [(1, 0), (1, 2), (1, 2), (1, 1)]
    preds = frame(
        *[part for run in ("r1", "r2", "r3") for part in (rows(A, "A", run=run), rows(unmarked, UNMARKED, run=run))]
    )
    table = markedness(preds, interval="t", z=1.96)
    assert list(table.columns) == MARKEDNESS_COLUMNS
    m = table.set_index("group")
    assert m.loc["A", "negative_markedness"] == pytest.approx(0.25, abs=1e-9) and m.loc["A", "n_runs"] == 3
    assert (
        m[["negative_markedness_width", "negative_markedness_p", "positive_markedness_width", "positive_markedness_p"]]
        .isna()
        .all()
        .all()
    )
    assert "runs identical: no run-to-run spread to test against for 1 of 1 negative_markedness" in caplog.text


def test_markedness_needs_unmarked_rows():
    with pytest.raises(BiasflowError, match="unmarked"):
        markedness(frame(rows(A, "A")), interval="z", z=1.96)


def write_tsv(path, df):
    df.to_csv(path, sep="\t", index=False)
    return str(path)


def test_read_predictions_model_from_stem(tmp_path):
    path = write_tsv(tmp_path / "opt-125m.tsv", frame(rows(A, "A")).drop(columns="model"))
    preds = read_predictions([path])
    assert set(preds["model"]) == {"opt-125m"} and len(preds) == 6


def test_read_predictions_missing_y_pred(tmp_path):
    path = write_tsv(tmp_path / "m.tsv", frame(rows(A, "A")).drop(columns="y_pred"))
    with pytest.raises(BiasflowError, match="y_pred"):
        read_predictions([path])


def test_read_predictions_label_out_of_range(tmp_path):
    df = frame(rows(A, "A"))
    df.loc[0, "y_pred"] = 3
    path = write_tsv(tmp_path / "m.tsv", df)
    with pytest.raises(BiasflowError, match=r"m\.tsv.*y_pred.*3"):
        read_predictions([path])


def test_group_without_negatives_for_a_class():
    # Group D: every gold label is positive, so the positive FPR has no denominator.
    with pytest.raises(BiasflowError, match=r"group D.*positive FPR"):
        group_fpr(frame(rows(A, "A"), rows([(2, 2), (2, 0)], "D")))


def test_a_repeated_prediction_is_an_error_naming_the_key():
    """A repeated row would weigh twice in its group's FPR (docs/methods.md §3.2)."""
    preds = frame(rows(A, "A"), rows(B, "B"), rows(A[:2], "A"))
    with pytest.raises(
        BiasflowError,
        match=r"repeat 2 row\(s\): the same \(model, run_id, category, group, text\) "
        r"appears more than once, e\.g\. model=m, run_id=r1, category=race, "
        r"group=A, text='A 0'.*Pass each predictions file once",
    ):
        check_unique(preds)
    # Two templates may render one sentence: template_id tells those samples apart.
    twice = frame(rows(B, "B"), rows(B, "B"))
    check_unique(twice.assign(template_id=["t1", "t2"]))
    with pytest.raises(BiasflowError, match=r"\(model, run_id, category, group, text, template_id\)"):
        check_unique(twice.assign(template_id=["t1", "t1"]))


def test_fpr_gaps_refuses_a_file_given_twice_or_copied(tmp_path, capsys):
    preds, _ = three_runs()
    path = write_tsv(tmp_path / "m.tsv", preds)
    out = tmp_path / "gaps.csv"
    assert main(["fpr-gaps", "--predictions", path, f"{tmp_path}/./m.tsv", "--out", str(out)]) == 2
    assert (
        f"biasflow: predictions file {tmp_path}/./m.tsv is given twice (also as {path}), which would count each "
        "of its predictions twice; pass each file once." in capsys.readouterr().err
    )
    with pytest.raises(BiasflowError, match="is given twice"):
        read_predictions([path, path])
    copy = write_tsv(tmp_path / "copy.tsv", preds)
    assert main(["fpr-gaps", "--predictions", path, copy, "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err
    assert "biasflow: predictions repeat 24 row(s): the same (model, run_id, category, group, text)" in err
    assert "give different runs of one model different run_id values" in err
    assert not out.exists()


def test_a_single_run_gives_point_gaps_and_one_warning(tmp_path, caplog):
    """One run has no interval (docs/methods.md §3.3); its point gaps still stand, so a warning, not an error."""
    path = write_tsv(tmp_path / "m.tsv", frame(rows(A, "A"), rows(B, "B"), rows(C, "C")))
    out = tmp_path / "gaps.csv"
    with caplog.at_level("WARNING", logger="biasflow"):
        assert (
            main(["fpr-gaps", "--predictions", path, "--out", str(out), "--accuracy-floor", "0", "--bootstrap", "0"])
            == 0
        )
    [warning] = [r.getMessage() for r in caplog.records if r.levelname == "WARNING"]
    assert warning.startswith(
        "m has a single run, so the interval columns (*_FPR_gap_width) are empty: an interval needs two or more runs"
    )
    gaps = pd.read_csv(out)
    assert gaps["negative_FPR_gap_width"].isna().all() and gaps["negative_FPR_gap"].notna().all()


@pytest.mark.parametrize("floor", ["7", "-0.1", "nan"])
def test_accuracy_floor_is_a_share(tmp_path, capsys, floor):
    preds, _ = three_runs()
    out = tmp_path / "gaps.csv"
    args = ["fpr-gaps", "--predictions", write_tsv(tmp_path / "m.tsv", preds), "--out", str(out)]
    assert main([*args, "--accuracy-floor", floor]) == 2
    expected = (
        f"biasflow: accuracy floor {float(floor)!r} is not a share in [0, 1]; set --accuracy-floor"
        if floor == "nan"
        # a bound the schema states, refused as the config check refuses it
        else f"biasflow: --accuracy-floor {float(floor)!r}: {float(floor)!r} is "
        f"{'greater' if float(floor) > 1 else 'less'}"
    )
    assert expected in capsys.readouterr().err
    assert not out.exists()
    assert main([*args, "--accuracy-floor", "1"]) == 0


@pytest.mark.parametrize("z", [0, -1.96, math.inf, math.nan])
def test_z_is_a_positive_quantile(tmp_path, z):
    preds, _ = three_runs()
    with pytest.raises(BiasflowError, match=r"interval z .* is not a positive number; set fpr\.z .* 1\.96"):
        gaps(
            prediction_paths=[write_tsv(tmp_path / "m.tsv", preds)],
            settings=GapSettings(interval="z", z=z, accuracy_floor=0.4, bootstrap=0, null_draws=0, seed=0),
            outputs={"gaps": str(tmp_path / "g.csv")},
        )
    with pytest.raises(BiasflowError, match="interval z"):
        fpr_gaps(preds, interval="t", z=z)
    assert not (tmp_path / "g.csv").exists()


def test_the_default_t_interval_covers_95_percent_at_three_runs_and_the_reference_z_does_not():
    """2,000 simulated gaps with a known mean, 3 runs each (the FPR default is t; z is the reference code's)."""
    from biasflow.schema import default

    assert default("fpr.interval") == "t"
    rng = np.random.default_rng(11)
    draws, runs, truth = 2000, 3, 0.04
    per_run = pd.DataFrame(
        {
            "key": np.repeat(np.arange(draws), runs),
            "run_id": np.tile(np.arange(runs), draws),
            "gap": truth + rng.normal(0, 0.05, draws * runs),
        }
    )
    coverage = {}
    for interval in ("t", "z"):
        out = over_runs(per_run, ["key"], {"gap": "gap"}, interval, 1.96)
        coverage[interval] = float(
            ((out["gap"] - out["gap_width"] <= truth) & (truth <= out["gap"] + out["gap_width"])).mean()
        )
        # The p-value is the interval's own test: below 0.05 exactly where the interval excludes 0.
        excludes = (out["gap"] - out["gap_width"] > 0) | (out["gap"] + out["gap_width"] < 0)
        assert ((out["gap_p"] < 0.05) == excludes).all()
    assert 0.93 <= coverage["t"] <= 0.97
    assert 0.77 <= coverage["z"] <= 0.85
