"""Template uncertainty and the span null of FPR gaps, against slow loops over the same random draws."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from biasflow.fpr.gaps import fpr_gaps, gap_spans
from biasflow.fpr.resampling import bootstrap_gaps, permuted_labels, span_null
from probe_predictions import GROUPS, named_stream, predictions


def test_bootstrap_interval_equals_a_slow_loop_over_resampled_rows():
    """Each draw rebuilt as rows: templates and runs repeated by their multiplicities, gaps by fpr_gaps."""
    preds, draws, seed = predictions(0), 20, 7
    fast = bootstrap_gaps(preds, draws, seed).set_index("group")
    rng = named_stream(seed, "fpr-bootstrap", "m", "race")
    templates = sorted(preds["template_id"].unique())
    runs = sorted(preds["run_id"].unique())
    template_weights = rng.multinomial(len(templates), np.full(len(templates), 1 / len(templates)), size=draws)
    run_weights = rng.multinomial(len(runs), np.full(len(runs), 1 / len(runs)), size=draws)
    parts = dict(iter(preds.groupby(["run_id", "template_id"])))
    drawn = {cls: [] for cls in ("negative", "positive")}
    for b in range(draws):
        copies = []
        for r, run in enumerate(runs):
            for copy in range(run_weights[b, r]):
                for t, template in enumerate(templates):
                    copies += [parts[run, template].assign(run_id=f"{run}-{copy}")] * template_weights[b, t]
        gaps = fpr_gaps(pd.concat(copies, ignore_index=True), interval="t", z=1.96).set_index("group")
        for cls in drawn:
            drawn[cls].append(gaps[f"{cls}_FPR_gap"].reindex(sorted(GROUPS)).to_numpy())
    for cls in drawn:
        low, high = np.percentile(np.array(drawn[cls]), [2.5, 97.5], axis=0)
        assert fast.loc[sorted(GROUPS), f"{cls}_FPR_gap_lo"].to_numpy() == pytest.approx(low, abs=1e-9)
        assert fast.loc[sorted(GROUPS), f"{cls}_FPR_gap_hi"].to_numpy() == pytest.approx(high, abs=1e-9)


def test_span_null_equals_a_slow_loop_over_relabelled_rows():
    """Each draw relabels the sentences within their templates, then fpr_gaps and gap_spans recompute the span."""
    preds, draws, seed = predictions(1), 20, 3
    fast = span_null(preds, draws, seed).iloc[0]
    keys = preds["template_id"] + "\x00" + preds["text"]
    sentences = np.unique(keys)
    first = preds.groupby(keys, sort=True).first()
    groups, labels = np.unique(first["group"].to_numpy(), return_inverse=True)
    templates = np.unique(first["template_id"].to_numpy(), return_inverse=True)[1]
    rng = named_stream(seed, "fpr-span-null", "m", "race")

    def spans(table):
        return gap_spans(fpr_gaps(table, interval="t", z=1.96).assign(probe="p")).iloc[0]

    observed = spans(preds)
    null = {cls: [] for cls in ("negative", "positive")}
    for _ in range(draws):
        relabel = dict(zip(sentences, groups[permuted_labels(rng, labels, templates)], strict=True))
        row = spans(preds.assign(group=keys.map(relabel)))
        for cls in null:
            null[cls].append(row[f"{cls}_span"])
    for cls in null:
        values = np.array(null[cls])
        assert fast[f"{cls}_span_null_q95"] == pytest.approx(np.percentile(values, 95), abs=1e-12)
        expected_p = (1 + np.sum(values >= observed[f"{cls}_span"] - 1e-12)) / (1 + draws)
        assert fast[f"{cls}_span_p"] == pytest.approx(expected_p)


def test_adding_a_model_or_shuffling_rows_moves_no_other_models_intervals_or_span_p():
    """Streams are keyed by (model, category) names: a model first in sort order and shuffled rows change nothing."""
    preds = predictions(0)
    before = bootstrap_gaps(preds, 50, 3), span_null(preds, 50, 3)
    other = predictions(5).assign(model="a0")
    grown = pd.concat([other, preds], ignore_index=True).sample(frac=1.0, random_state=1).reset_index(drop=True)
    after = bootstrap_gaps(grown, 50, 3), span_null(grown, 50, 3)
    assert set(after[0]["model"]) == {"a0", "m"}
    for old, new in zip(before, after, strict=True):
        mine = new[new["model"] == "m"].reset_index(drop=True)
        assert mine.select_dtypes(exclude="number").equals(old.select_dtypes(exclude="number"))
        numbers = old.select_dtypes("number").to_numpy()
        assert mine.select_dtypes("number").to_numpy().tobytes() == numbers.tobytes()
        assert np.isfinite(numbers).all()


def test_a_bootstrap_interval_of_zero_width_is_empty_with_a_warning(caplog):
    """Every sentence labelled right in every run: every draw gives each gap 0, which is no interval at all."""
    preds = predictions(0).assign(y_pred=lambda d: d["y_true"])
    out = bootstrap_gaps(preds, 40, 0)
    assert out.drop(columns=["model", "category", "group"]).isna().all().all()
    assert "6 of 6 gap intervals have zero width" in caplog.text and "model m" in caplog.text


def test_eps_traces_are_no_interval_where_groups_differ_in_size(caplog):
    """No false positive anywhere, but one group with more sentences: each FPR is eps / n, so the gaps and their
    draws differ by eps-sized traces (about 1e-12) that must read as zero width, not as an interval."""
    preds = predictions(0).assign(y_pred=lambda d: d["y_true"])
    extra = preds[preds["group"] == preds["group"].iloc[0]].assign(text=lambda d: d["text"] + " again")
    out = bootstrap_gaps(pd.concat([preds, extra], ignore_index=True), 40, 0)
    assert out.drop(columns=["model", "category", "group"]).isna().all().all()
    assert "6 of 6 gap intervals have zero width" in caplog.text


def test_permuted_labels_shuffle_within_templates_only():
    rng = np.random.default_rng(0)
    labels = np.array([0, 1, 2, 0, 1, 2, 0, 0])
    templates = np.array([0, 0, 0, 1, 1, 1, 2, 2])
    for _ in range(20):
        shuffled = permuted_labels(rng, labels, templates)
        for t in range(3):
            assert sorted(shuffled[templates == t]) == sorted(labels[templates == t])


def test_span_p_is_valid_without_bias_and_small_with_it():
    """Exchangeable groups: p <= alpha at most about alpha of the time; a group called negative more: nearly always.

    Spans of counts tie often (multiples of 1/48 here) and ties count as extreme, so the test
    is conservative at these sizes, as a permutation test of a discrete statistic is. 49 draws a study: a
    permutation p is valid at any number of draws (the tolerance is the 100 studies' binomial error), and its
    smallest value, 1/50, is still below 0.05.
    """
    null_p = np.array(
        [span_null(predictions(seed, templates=12), 49, seed)["negative_span_p"].iloc[0] for seed in range(100)]
    )
    for alpha in (0.05, 0.2, 0.5):
        assert np.mean(null_p <= alpha) <= alpha + 2.5 * np.sqrt(alpha * (1 - alpha) / len(null_p))
    assert np.mean(null_p <= 0.5) >= 0.25, "conservative, not blind"
    biased = np.array(
        [
            span_null(predictions(seed, templates=12, bias=0.3), 49, seed)["negative_span_p"].iloc[0]
            for seed in range(20)
        ]
    )
    assert np.mean(biased < 0.05) >= 0.8
