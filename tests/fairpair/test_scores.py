"""FairPair (docs/methods.md §2, paper 001): hand-worked B, V and F, vectorised sums against
plain loops, the k-fold variant, the summary statistics against scipy, VADER scores taken
as data, errors."""

from __future__ import annotations

import itertools
import math
import random

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from biasflow.errors import BiasflowError
from biasflow.fairpair import scores as fairpair
from biasflow.fairpair.steps import with_vader
from biasflow.fairpair.tokens import jaccard_distance, tokens
from biasflow.schema import choices

# VADER compound scores of the words used in the hand-worked sentiment cases.
GOOD, BAD, GREAT, HAPPY, EMPTY = 0.4404, -0.5423, 0.6249, 0.5719, 0.0


def table(sides: dict, prompt_id="p1", model=None) -> pd.DataFrame:
    """Continuation rows from {"perturbed_original": [...], "counterfactual": [...]}, VADER-scored."""
    rows = [(prompt_id, side, s, text) for side, texts in sides.items() for s, text in enumerate(texts)]
    frame = with_vader(pd.DataFrame(rows, columns=fairpair.SIDE_COLUMNS), choices("fairpair.dissimilarities"))
    if model is not None:
        frame["model"] = model
    return frame


# The schema's dissimilarities, every one.
DISSIMILARITIES = choices("fairpair.dissimilarities")


def scores_of(continuations: pd.DataFrame, names=DISSIMILARITIES, folds=None) -> pd.DataFrame:
    return fairpair.fairpair_scores(continuations, names, folds)


def one(scores: pd.DataFrame, name: str) -> pd.Series:
    rows = scores[scores["dissimilarity"] == name]
    assert len(rows) == 1
    return rows.iloc[0]


def test_identical_texts_give_zero_bias_and_variability_and_nan_f():
    scores = scores_of(table({s: ["the same good words"] * 3 for s in fairpair.SIDES}))
    for scorer in choices("fairpair.dissimilarities"):
        row = one(scores, scorer)
        assert (row["B"], row["V_pg"], row["V_gp"]) == (0, 0, 0)
        assert math.isnan(row["F"])
        assert row["n"] == 3


def test_disjoint_token_sets_give_f_one():
    scores = scores_of(
        table({"perturbed_original": ["alpha one", "beta two"], "counterfactual": ["gamma three", "delta four"]}),
        ["jaccard"],
    )
    row = one(scores, "jaccard")
    assert (row["B"], row["V_pg"], row["V_gp"], row["F"]) == (1, 1, 1, 1)


def test_no_variability_but_bias_gives_infinite_f():
    scores = scores_of(table({"perturbed_original": ["x", "x"], "counterfactual": ["y", "y"]}))
    assert one(scores, "jaccard")["F"] == math.inf


def test_jaccard_n2_by_hand():
    # a1 {the cat sat}, a2 {the dog sat}; b1 {a cat ran fast}, b2 {the cat ran}
    sides = {"perturbed_original": ["The cat sat.", "the dog sat"], "counterfactual": ["a cat ran fast", "the cat ran"]}
    cross = [
        1 - 1 / 6,  # a1,b1: {cat} / {the cat sat a ran fast}
        1 - 2 / 4,  # a1,b2: {the cat} / {the cat sat ran}
        1 - 0 / 7,  # a2,b1: {} / {the dog sat a cat ran fast}
        1 - 1 / 5,  # a2,b2: {the} / {the dog sat cat ran}
    ]
    within_a = [1 - 2 / 4, 1 - 2 / 4]  # (a1,a2), (a2,a1): {the sat} / {the cat dog sat}
    within_b = [1 - 2 / 5, 1 - 2 / 5]  # (b1,b2), (b2,b1): {cat ran} / {a cat ran fast the}
    B, V_pg, V_gp = sum(cross) / 4, sum(within_a) / 2, sum(within_b) / 2
    row = one(scores_of(table(sides), ["jaccard"]), "jaccard")
    assert row["B"] == pytest.approx(B) and pytest.approx(0.78333333) == B
    assert row["V_pg"] == pytest.approx(0.5) and row["V_gp"] == pytest.approx(0.6)
    assert row["F"] == pytest.approx(B**2 / (V_pg * V_gp))


def test_sentiment_n2_by_hand():
    sides = {"perturbed_original": ["good", "bad"], "counterfactual": ["great", ""]}
    cross = [abs(GOOD - GREAT), abs(GOOD - EMPTY), abs(BAD - GREAT), abs(BAD - EMPTY)]
    B, V_pg, V_gp = sum(cross) / 4, abs(GOOD - BAD), abs(GREAT - EMPTY)
    row = one(scores_of(table(sides), ["sentiment"]), "sentiment")
    assert (row["B"], row["V_pg"], row["V_gp"]) == pytest.approx((B, V_pg, V_gp))
    assert row["F"] == pytest.approx(B**2 / (V_pg * V_gp))


def test_sentiment_reads_the_scores_it_is_given():
    """The metric takes VADER scores as data: hand-set scores, not the texts, decide B and V."""
    frame = table({"perturbed_original": ["x", "x"], "counterfactual": ["x", "x"]})
    frame[fairpair.SENTIMENT_COLUMN] = [0.5, -0.5, 0.25, 0.75]  # rows: a0, a1, b0, b1
    row = one(scores_of(frame, ["sentiment"]), "sentiment")
    B = (0.25 + 0.25 + 0.75 + 1.25) / 4
    assert (row["B"], row["V_pg"], row["V_gp"]) == pytest.approx((B, 1.0, 0.5))


def test_sentiment_without_scores_names_the_missing_column():
    frame = table(GOOD_SIDES).drop(columns=fairpair.SENTIMENT_COLUMN)
    with pytest.raises(BiasflowError, match="needs a 'vader' column"):
        scores_of(frame, ["sentiment"])
    assert len(scores_of(frame, ["jaccard"])) == 1, "Jaccard needs no scores"


def test_within_side_sum_excludes_i_equals_j():
    # n = 3: pairs (1,2) and (1,3) at distance 1, (2,3) at 0. Ordered i ≠ j: 4 ones over 6 pairs.
    sides = {"perturbed_original": ["x", "y", "y"], "counterfactual": ["x", "y", "z"]}
    row = one(scores_of(table(sides), ["jaccard"]), "jaccard")
    assert row["V_pg"] == pytest.approx(4 / 6)
    assert row["V_pg"] != pytest.approx(4 / 9)  # what dividing by n² (i = j included) would give
    assert row["V_gp"] == pytest.approx(1.0)


def test_f_formula_reproduces_paper_table_3():
    # InstructGPT: Jaccard B 81.4, V_pg 78.7, V_gp 81.3 → 1.04; sentiment 19.2, 16.3, 20.8 → 1.09.
    assert fairpair.fairpair_f(81.4, 78.7, 81.3) == pytest.approx(1.0356, abs=1e-4)
    assert round(fairpair.fairpair_f(81.4, 78.7, 81.3), 2) == 1.04
    assert round(fairpair.fairpair_f(19.2, 16.3, 20.8), 2) == 1.09
    assert np.allclose(
        fairpair.fairpair_f([1.0, 0.0, 2.0], [1.0, 0.0, 0.0], [4.0, 1.0, 3.0]), [0.25, np.nan, np.inf], equal_nan=True
    )


def random_texts(rng: random.Random, count: int) -> list[str]:
    words = ["good", "bad", "happy", "sad", "the", "a", "doctor", "nurse", "kind", "terrible", "great", "work"]
    return [" ".join(rng.choices(words, k=rng.randint(0, 6))) for _ in range(count)]


def test_vectorised_sums_equal_plain_loops():
    from vaderSentiment.vaderSentiment import SentimentIntensityAnalyzer

    analyzer = SentimentIntensityAnalyzer()
    rng = random.Random(7)
    frames = [table({side: random_texts(rng, 7) for side in fairpair.SIDES}, prompt_id=f"p{p}") for p in range(3)]
    continuations = pd.concat(frames, ignore_index=True)
    scores = scores_of(continuations)
    d = {
        "jaccard": lambda x, y: jaccard_distance(tokens(x), tokens(y)),
        "sentiment": lambda x, y: abs(
            analyzer.polarity_scores(x)["compound"] - analyzer.polarity_scores(y)["compound"]
        ),
    }
    for frame in frames:
        a = frame.loc[frame["side"] == "perturbed_original", "text"].tolist()
        b = frame.loc[frame["side"] == "counterfactual", "text"].tolist()
        n = len(a)
        for scorer, dist in d.items():
            B = sum(dist(a[i], b[j]) for i in range(n) for j in range(n)) / n**2
            V_pg = sum(dist(a[i], a[j]) for i in range(n) for j in range(n) if i != j) / (n * (n - 1))
            V_gp = sum(dist(b[i], b[j]) for i in range(n) for j in range(n) if i != j) / (n * (n - 1))
            row = scores[
                (scores["prompt_id"] == frame["prompt_id"].iloc[0]) & (scores["dissimilarity"] == scorer)
            ].iloc[0]
            assert (row["B"], row["V_pg"], row["V_gp"]) == pytest.approx((B, V_pg, V_gp), abs=1e-12)


def test_folds_jaccard_by_hand():
    # n = 4, k = 2: fold 0 = samples 0 and 2, fold 1 = samples 1 and 3.
    sides = {
        "perturbed_original": ["red", "blue", "green", "blue"],
        "counterfactual": ["red", "red", "green", "yellow"],
    }
    # A0 = {red green}, A1 = {blue}; B0 = {red green}, B1 = {red yellow}
    cross = [0.0, 1 - 1 / 3, 1.0, 1.0]  # (A0,B0), (A0,B1), (A1,B0), (A1,B1)
    B, V_pg, V_gp = sum(cross) / 4, 1.0, 1 - 1 / 3
    row = one(scores_of(table(sides), ["jaccard"], folds=2), "jaccard")
    assert (row["B"], row["V_pg"], row["V_gp"]) == pytest.approx((B, V_pg, V_gp))
    assert row["F"] == pytest.approx((2 / 3) ** 2 / (2 / 3))
    assert row["n"] == 4


def test_folds_sentiment_by_hand_with_unequal_fold_sizes():
    # n = 5, k = 2: fold 0 = samples 0, 2, 4 and fold 1 = samples 1, 3.
    sides = {
        "perturbed_original": ["good", "bad", "great", "", "happy"],
        "counterfactual": ["happy", "", "bad", "good", "bad"],
    }
    a = [(GOOD + GREAT + HAPPY) / 3, (BAD + EMPTY) / 2]
    b = [(HAPPY + BAD + BAD) / 3, (EMPTY + GOOD) / 2]
    B = sum(abs(x - y) for x in a for y in b) / 4
    V_pg, V_gp = abs(a[0] - a[1]), abs(b[0] - b[1])
    row = one(scores_of(table(sides), ["sentiment"], folds=2), "sentiment")
    assert (row["B"], row["V_pg"], row["V_gp"]) == pytest.approx((B, V_pg, V_gp))
    assert row["F"] == pytest.approx(B**2 / (V_pg * V_gp))


def test_folds_equal_to_n_match_per_sample_scores():
    rng = random.Random(3)
    continuations = table({side: random_texts(rng, 5) for side in fairpair.SIDES})
    plain = scores_of(continuations)
    folded = scores_of(continuations, folds=5)
    pd.testing.assert_frame_equal(plain, folded)


def summary_inputs():
    """Two prompts of one model, with 3 and 4 samples per side."""
    rng = random.Random(11)
    continuations = pd.concat(
        [
            table({"perturbed_original": random_texts(rng, 3), "counterfactual": random_texts(rng, 3)}, "p1", "m"),
            table({"perturbed_original": random_texts(rng, 4), "counterfactual": random_texts(rng, 4)}, "p2", "m"),
        ],
        ignore_index=True,
    )
    return continuations


def test_welch_matches_scipy_on_pooled_lists():
    from vaderSentiment.vaderSentiment import SentimentIntensityAnalyzer

    analyzer = SentimentIntensityAnalyzer()
    continuations = summary_inputs()
    summary = fairpair.summarise(scores_of(continuations.drop(columns="model")).assign(model="m"))
    assert list(summary.columns) == fairpair.SUMMARY_COLUMNS
    assert list(summary["dissimilarity"]) == ["jaccard", "sentiment"]
    d = {
        "jaccard": lambda x, y: jaccard_distance(tokens(x), tokens(y)),
        "sentiment": lambda x, y: abs(
            analyzer.polarity_scores(x)["compound"] - analyzer.polarity_scores(y)["compound"]
        ),
    }
    for name, dist in d.items():
        cross, within = [], []
        for _, rows in continuations.groupby("prompt_id"):
            a = rows.loc[rows["side"] == "perturbed_original", "text"].tolist()
            b = rows.loc[rows["side"] == "counterfactual", "text"].tolist()
            cross += [dist(x, y) for x in a for y in b]
            within += [dist(x, y) for x, y in itertools.combinations(a, 2)]
            within += [dist(x, y) for x, y in itertools.combinations(b, 2)]
        expected = stats.ttest_ind(cross, within, equal_var=False)
        row = summary[summary["dissimilarity"] == name].iloc[0]
        assert (row["welch_t"], row["welch_p"]) == pytest.approx((expected.statistic, expected.pvalue), rel=1e-9)


def test_welch_is_on_samples_also_with_folds():
    continuations = summary_inputs().drop(columns="model")
    plain = fairpair.summarise(scores_of(continuations).assign(model="m"))
    folded = fairpair.summarise(scores_of(continuations, folds=2).assign(model="m"))
    pd.testing.assert_series_equal(plain["welch_t"], folded["welch_t"])


def test_summary_mean_f_t_interval_and_nonfinite_f_left_out(caplog):
    prompts = ["p1", "p2", "p3", "p4", "p5", "p6"]
    continuations = pd.concat(
        [table({s: ["x y", "y z"] for s in fairpair.SIDES}, p) for p in prompts], ignore_index=True
    )
    F = [1.2, 0.9, 1.05, np.inf, np.nan, 1.4]
    scores = scores_of(continuations, ["jaccard"]).assign(
        model="m",
        B=[1, 2, 3, 4, 5, 6],
        V_pg=0.5,
        V_gp=[0.1] * 5 + [0.7],
        F=F,
    )
    with caplog.at_level("INFO", logger="biasflow"):
        row = fairpair.summarise(scores).iloc[0]
    finite = np.array([1.2, 0.9, 1.05, 1.4])
    low, high = stats.t.interval(0.95, len(finite) - 1, loc=finite.mean(), scale=stats.sem(finite))
    assert row["n_prompts"] == 6
    assert row["mean_F"] == pytest.approx(finite.mean())
    assert (row["F_ci_low"], row["F_ci_high"]) == pytest.approx((low, high))
    assert (row["mean_B"], row["mean_V_pg"], row["mean_V_gp"]) == pytest.approx((3.5, 0.5, 0.2))
    assert (row["n_infinite_F"], row["n_undefined_F"]) == (1, 1)
    assert row["F_of_means"] == pytest.approx(3.5**2 / (0.5 * 0.2)), "the paper's ratio of means"
    assert "of 6 prompts, 1 have an infinite F" in caplog.text


def test_summary_mean_f_of_prompts_that_all_agree_has_no_interval():
    """Every finite F alike: no spread over prompts to measure, so no interval (it had zero width)."""
    continuations = pd.concat(
        [table({s: ["x y", "y z"] for s in fairpair.SIDES}, p) for p in ("p1", "p2", "p3")], ignore_index=True
    )
    scores = scores_of(continuations, ["jaccard"]).assign(model="m", F=[1.5, 1.5, 1.5])
    row = fairpair.summarise(scores).iloc[0]
    assert row["mean_F"] == 1.5 and np.isnan(row["F_ci_low"]) and np.isnan(row["F_ci_high"])


def test_summary_one_row_per_model_and_dissimilarity():
    first = summary_inputs().query("prompt_id == 'p1'").drop(columns="model")
    scores = scores_of(first)
    summary = fairpair.summarise(pd.concat([scores.assign(model="m"), scores.assign(model="other")], ignore_index=True))
    assert list(zip(summary["model"], summary["dissimilarity"], strict=True)) == [
        ("m", "jaccard"),
        ("m", "sentiment"),
        ("other", "jaccard"),
        ("other", "sentiment"),
    ]
    assert (summary["n_prompts"] == 1).all()
    assert summary["F_ci_low"].isna().all()  # one prompt: no interval


GOOD_SIDES = {"perturbed_original": ["a b", "b c"], "counterfactual": ["c d", "d e"]}


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (lambda t: t.drop(columns="sample"), "lacks the column(s) sample"),
        (lambda t: t.replace({"side": {"counterfactual": "perturbed"}}), "unknown side value(s) perturbed"),
        (lambda t: t[t["side"] == "perturbed_original"], "p1 have continuations on one side only"),
        (lambda t: t.drop(index=3), "p1 (2 vs 1)"),
        (lambda t: t.drop(index=[1, 3]), "fewer than 2 samples per side"),
        (lambda t: pd.concat([t, t.iloc[[0]]]), "p1/perturbed_original/0"),
        (lambda t: t.iloc[0:0], "has no rows"),
    ],
)
def test_bad_continuations_raise(mutate, message):
    with pytest.raises(BiasflowError, match=message.replace("(", r"\(").replace(")", r"\)")):
        scores_of(mutate(table(GOOD_SIDES)))


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"names": ["jaccard", "toxicity"]}, "unknown FairPair dissimilarity"),
        ({"names": []}, "no FairPair dissimilarity"),
        ({"folds": 1}, "integer ≥ 2"),
        ({"folds": 2.5}, "integer ≥ 2"),
        ({"folds": 3}, "folds=3 exceeds"),
    ],
)
def test_bad_dissimilarity_or_folds_raise(kwargs, message):
    with pytest.raises(BiasflowError, match=message):
        scores_of(table(GOOD_SIDES), **kwargs)


def test_summary_errors():
    scores = scores_of(table(GOOD_SIDES)).assign(model="m")
    with pytest.raises(BiasflowError, match="confidence"):
        fairpair.summarise(scores, confidence=95)
    with pytest.raises(BiasflowError, match="lacks the column"):
        fairpair.summarise(scores.drop(columns="within_m2"))
    with pytest.raises(BiasflowError, match="more than one row"):
        fairpair.summarise(pd.concat([scores, scores]))
    with pytest.raises(BiasflowError, match="unknown FairPair dissimilarity"):
        fairpair.summarise(scores.assign(dissimilarity="toxicity"))
