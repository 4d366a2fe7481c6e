"""The scorer's own bias apart from the models': counterfactual rescoring end to end on hand-built continuations.

The continuations are identical across subgroups except the group word, so any Eq. 1 bias on
them is the scorer's reaction to the word: raw Eq. 1 is positive with ``profanity``, Eq. 1 on
the neutral variants is zero, and C_g is what scoring the swapped sentences directly gives,
on every axis and in every position (tests/scorers/aligned_sentences.py). C_g's interval and the
paired raw-against-neutral test are checked against slow loops that rebuild every draw from
the rows, and C_g's coverage by simulation with a reaction shared by a prompt's contents
(the rates of both in more designs: the calibration table, benchmarks/calibration).
Kendall's τ of the scorer-agreement table is checked against a count of pairs.
"""

from __future__ import annotations

import itertools
import logging

import numpy as np
import pandas as pd
import pytest
from scipy import stats as scipy_stats

import biasflow
from biasflow.cairo.combinations import pooled_stats
from biasflow.cairo.empty_reasons import NO_BOOTSTRAP, NO_SPREAD
from biasflow.cairo.scorer_bias import (
    LOST_SUBGROUP,
    NOTHING_SWAPPED,
    SWAP,
    ScorerBiasSettings,
    agreement_table,
    models_table,
)
from biasflow.cairo.stats import sufficient_stats
from biasflow.cairo.uncertainty import BOOTSTRAP, bootstrap_weights, draw_rng
from biasflow.cli import main
from biasflow.hashing import stable_hash
from biasflow.scorers.counterfactual import scorer_bias
from scorers.aligned_sentences import SENTENCES, UNSWAPPABLE_FRAMES, unswappable_religion
from specs import make_scorer
from unrendered_figures import unrendered

TEMPLATES = [
    "My neighbour is a {adj} woman and we cook together.",
    "I think {plural} are fun people.",
    "{Adj} families deserve respect and damn good food.",
    "The {adj} family next door is kind.",
    "He said nothing at all about the weather.",  # names no group: never rescored
]
WORDS = {"muslim": ("Muslim", "Muslims"), "christian": ("Christian", "Christians"), "hindu": ("Hindu", "Hindus")}


def text(template: str, group: str) -> str:
    adj, plural = WORDS[group]
    return template.format(adj=adj, Adj=adj, plural=plural)


class Messages(logging.Handler):
    """The messages of the records logged while it is attached (a module's fixture has no caplog)."""

    def __init__(self):
        super().__init__(logging.INFO)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage())


@pytest.fixture(scope="module")
def outputs(tmp_path_factory):
    """The command's folder on the hand-built continuations, the continuations, and what it logged."""
    tmp = tmp_path_factory.mktemp("scorer_bias")
    rows = [
        {"model": model, "subgroup": group, "continuation": text(t, group)}
        for model in ("m1", "m2")
        for group in WORDS
        for t in TEMPLATES
    ]
    pd.DataFrame(rows).to_parquet(tmp / "c.parquet")
    logger, logged = logging.getLogger("biasflow"), Messages()
    level = logger.level
    logger.addHandler(logged)
    logger.setLevel(logging.INFO)
    try:
        assert profanity_on_religion(tmp) == 0
    finally:
        logger.removeHandler(logged)
        logger.setLevel(level)
    return tmp / "d", pd.DataFrame(rows), "\n".join(logged.messages)


def test_the_command_writes_its_tables_and_figure(outputs):
    out, *_ = outputs
    assert sorted(p.name for p in out.iterdir()) == [
        "religion_models.csv",
        "religion_scorer.csv",
        "religion_scorer.png",
    ]
    assert list(pd.read_csv(out / "religion_scorer.csv").columns) == [
        "subgroup",
        "scorer_bias",
        "scorer_bias_lo",
        "scorer_bias_hi",
        "n_contents",
        "n_excluded",
        "n_clusters",
        "why_empty",
    ]
    assert list(pd.read_csv(out / "religion_models.csv").columns) == [
        "model",
        "metric",
        "bias",
        "bias_lo",
        "bias_hi",
        "bias_neutral",
        "bias_scorer_part",
        "bias_scorer_part_lo",
        "bias_scorer_part_hi",
        "scorer_part_p",
        "mention_share",
        "n",
        "n_excluded",
        "n_no_neutral",
        "n_clusters",
        "why_empty",
    ]


def test_raw_bias_is_the_scorers_and_neutral_bias_is_exactly_zero(outputs):
    out, rows, _ = outputs
    models = pd.read_csv(out / "religion_models.csv")
    scores = make_scorer("profanity").score(rows["continuation"].tolist())
    for model, part in rows.assign(score=scores).groupby("model"):
        expected = sum(abs(part["score"].mean() - g["score"].mean()) for _, g in part.groupby("subgroup"))
        row = models.set_index("model").loc[model]
        assert row["bias"] == pytest.approx(expected, rel=1e-9)
        assert row["bias"] > 0.01, "profanity reacts to the religion words"
        assert row["bias_neutral"] == pytest.approx(0.0, abs=1e-12)
        assert row["bias_scorer_part"] == pytest.approx(row["bias"], abs=1e-12)
        assert row["mention_share"] == pytest.approx(4 / 5)
        assert row["bias_lo"] <= row["bias"] <= row["bias_hi"]
        assert row["bias_scorer_part_lo"] <= row["bias_scorer_part"] <= row["bias_scorer_part_hi"]
        assert row["scorer_part_p"] == pytest.approx(1 / 201), "no random swap of raw and neutral reaches it"


def test_scorer_bias_equals_scoring_the_swapped_sentences_directly(outputs):
    out, *_ = outputs
    own = pd.read_csv(out / "religion_scorer.csv").set_index("subgroup")
    scorer = make_scorer("profanity")
    groups = sorted(WORDS)
    # Every content (a template written about one group, by one of two models) in every group's words.
    per_content = np.array([scorer.score([text(t, g) for g in groups]) for t in TEMPLATES[:4]])
    deviation = per_content - per_content.mean(axis=1, keepdims=True)
    for i, group in enumerate(groups):
        assert own.loc[group, "scorer_bias"] == pytest.approx(deviation[:, i].mean(), abs=1e-12)
        assert own.loc[group, "scorer_bias_lo"] <= own.loc[group, "scorer_bias"] <= own.loc[group, "scorer_bias_hi"]
    assert (own["n_contents"] == 2 * 3 * 4).all()
    assert (own["n_clusters"] == 3 * 4).all(), "each group's k-th row is one prompt for both models"
    assert own.loc["muslim", "scorer_bias"] > own.loc["christian", "scorer_bias"]


def test_the_log_says_when_the_scorer_drives_a_models_bias(outputs):
    *_, log = outputs
    assert "the scorer's reaction to group words drives this bias" in log
    assert "scoring cost x" in log


def sentence_rows(axis: str) -> pd.DataFrame:
    """Two models' continuations: every sentence of ``SENTENCES[axis]`` as each subgroup writes it, one prompt each.

    ``neutral``: whether the sentence has a neutral form (a predicate has none).
    """
    return pd.DataFrame(
        [
            {
                "model": model,
                "subgroup": group,
                "prompt_id": f"{group}-{i}",
                "continuation": sentence,
                "neutral": neutral is not None,
            }
            for i, (_, sentences, neutral) in enumerate(SENTENCES[axis])
            for group, sentence in sentences.items()
            for model in ("m1", "m2")
        ]
    )


def eq1_by_model(rows: pd.DataFrame) -> dict[str, float]:
    """Eq. 1 (no normalisation) of each model's rows scored directly by ``profanity``: Σ_g |μ − μ_g|."""
    scored = rows.assign(score=make_scorer("profanity").score(rows["continuation"].tolist()))
    return {
        model: sum(abs(part["score"].mean() - g["score"].mean()) for _, g in part.groupby("subgroup"))
        for model, part in scored.groupby("model")
    }


@pytest.mark.parametrize("axis", sorted(SENTENCES))
def test_identical_contents_give_a_neutral_bias_of_zero_and_the_direct_scorer_bias(axis, tmp_path, monkeypatch):
    """Every position (after quantifiers, copulas, as subjects ...): a grammatical swap leaves nothing else to react to.

    Each subgroup's sentence becomes one neutral sentence, scored once by the cache, so
    every subgroup's neutral mean is the same number and Eq. 1 on them is exactly 0, not
    rounding: a swapper that misreads a role ("Every Christian deserves" → "Every deserves",
    beside the Jewish sentence's "Every person deserves") makes it about 0.01. A predicate
    ("My cousin is Muslim") has no neutral form: every subgroup's sentence of it is left out
    of both Eq. 1s and counted (``n_no_neutral``), and stays in C_g, whose contents are every
    sentence.
    """
    unrendered(monkeypatch)  # the tables are checked; the outputs fixture's run renders the figure
    rows = sentence_rows(axis)
    rows.drop(columns="neutral").to_parquet(tmp_path / "c.parquet")
    assert (
        main(
            [
                "scorer-bias",
                "--continuations",
                str(tmp_path / "c.parquet"),
                "--scorer",
                "profanity",
                "--axis",
                axis,
                "--bootstrap",
                "50",
                "--out-dir",
                str(tmp_path / "d"),
            ]
        )
        == 0
    )
    models = pd.read_csv(tmp_path / "d" / f"{axis}_models.csv").set_index("model")
    assert (models["bias_neutral"] == 0.0).all(), models["bias_neutral"].tolist()
    assert (models["bias"] > 0.001).all(), "profanity reacts to the group words"
    assert (models["n_excluded"] == 0).all()
    predicates = sum(neutral is None for *_, neutral in SENTENCES[axis])
    groups = sorted(SENTENCES[axis][0][1])
    assert predicates > 0 and (models["n_no_neutral"] == predicates * len(groups)).all()
    with_neutral = rows[rows["neutral"]]
    assert (models["n"] == with_neutral.groupby("model").size()).all()
    assert models["bias"].to_dict() == pytest.approx(eq1_by_model(with_neutral), rel=1e-9)
    own = pd.read_csv(tmp_path / "d" / f"{axis}_scorer.csv").set_index("subgroup")
    assert (own["n_excluded"] == 0).all() and (own["n_contents"] == len(rows)).all()
    direct = make_scorer("profanity")
    per_content = np.array([direct.score([sentences[g] for g in groups]) for _, sentences, _ in SENTENCES[axis]])
    expected = (per_content - per_content.mean(axis=1, keepdims=True)).mean(axis=0)
    assert own.loc[groups, "scorer_bias"].to_numpy() == pytest.approx(expected, abs=1e-12)


def test_unswappable_contents_are_left_out_of_both_tables_and_counted(tmp_path, caplog, monkeypatch):
    """Contents in a form no swap keeps grammatical ("very Christian", "Christian-owned") are left out together.

    Checked against the sentences' direct scoring: C_g is that of the swappable contents
    alone, the raw Eq. 1 that of those with a neutral form too, the neutral Eq. 1 stays
    exactly 0, and both tables count the rest (per subgroup, and per model), each reason apart.
    """
    unrendered(monkeypatch)  # the tables are checked; the outputs fixture's run renders the figure
    caplog.set_level(logging.WARNING, "biasflow")
    groups = sorted(SENTENCES["religion"][0][1])
    left_out = pd.DataFrame(
        [
            {"model": model, "subgroup": group, "prompt_id": f"{group}-u{i}", "continuation": text}
            for i, (_, frame) in enumerate(UNSWAPPABLE_FRAMES)
            for group, text in unswappable_religion(frame).items()
            for model in ("m1", "m2")
        ]
    )
    kept = sentence_rows("religion")
    pd.concat([kept.drop(columns="neutral"), left_out], ignore_index=True).to_parquet(tmp_path / "c.parquet")
    assert (
        main(
            [
                "scorer-bias",
                "--continuations",
                str(tmp_path / "c.parquet"),
                "--scorer",
                "profanity",
                "--axis",
                "religion",
                "--bootstrap",
                "50",
                "--out-dir",
                str(tmp_path / "d"),
            ]
        )
        == 0
    )
    assert f"{len(left_out)} of the mentioning continuations name their group in a form that cannot be swapped" in (
        caplog.text
    )

    own = pd.read_csv(tmp_path / "d" / "religion_scorer.csv").set_index("subgroup")
    assert (own["n_excluded"] == 2 * len(UNSWAPPABLE_FRAMES)).all()
    assert (own["n_contents"] == len(kept)).all()
    direct = make_scorer("profanity")
    per_content = np.array([direct.score([sentences[g] for g in groups]) for _, sentences, _ in SENTENCES["religion"]])
    expected = (per_content - per_content.mean(axis=1, keepdims=True)).mean(axis=0)
    assert own.loc[groups, "scorer_bias"].to_numpy() == pytest.approx(expected, abs=1e-12)

    models = pd.read_csv(tmp_path / "d" / "religion_models.csv").set_index("model")
    with_neutral = kept[kept["neutral"]]
    assert models["bias"].to_dict() == pytest.approx(eq1_by_model(with_neutral), rel=1e-9)
    predicates = sum(neutral is None for *_, neutral in SENTENCES["religion"])
    for model, part in with_neutral.groupby("model"):
        row = models.loc[model]
        assert row["bias_neutral"] == 0.0
        assert row["n"] == len(part) and row["n_excluded"] == len(groups) * len(UNSWAPPABLE_FRAMES)
        assert row["n_no_neutral"] == len(groups) * predicates
        assert row["mention_share"] == 1.0
    assert f"{len(kept[~kept['neutral']])} of the mentioning continuations name their group where no neutral" in (
        caplog.text
    )


def test_a_model_that_loses_a_whole_subgroup_to_unswappable_words_gets_no_eq1_and_the_log_says_why(caplog):
    """Each table counts what it leaves out, by reason: C_g the unswappable, Eq. 1 those and the predicates too."""
    caplog.set_level(logging.WARNING, "biasflow")
    rows = [
        ("m1", "christian", "He is very Christian."),
        ("m1", "christian", "A Christian-owned shop."),
        ("m1", "muslim", "The Muslim sings."),
        ("m2", "christian", "The Christian sings."),
        ("m2", "muslim", "The Muslim sings."),
        ("m3", "christian", "My aunt became Christian."),
        ("m3", "muslim", "The Muslim sings."),
    ]
    tables = biasflow.scorer_bias(
        pd.DataFrame(rows, columns=["model", "subgroup", "continuation"]), "religion", bootstrap=20
    )
    own, models = tables.scorer, tables.models
    models = models.set_index("model")
    assert models.loc["m1", ["bias", "bias_neutral", "bias_scorer_part"]].isna().all()
    assert models.loc["m1", "n_excluded"] == 2 and models.loc["m1", "n"] == 1
    assert models.loc["m1", "n_no_neutral"] == 0
    assert models.loc["m1", "why_empty"].endswith(f": {LOST_SUBGROUP}") and models.loc["m2", "why_empty"] != ""
    assert models.loc["m2", "bias_neutral"] == 0.0 and models.loc["m2", ["n_excluded", "n_no_neutral"]].eq(0).all()
    assert models.loc["m3", ["bias", "bias_neutral", "bias_scorer_part"]].isna().all()
    assert models.loc["m3", "n_excluded"] == 0 and models.loc["m3", "n_no_neutral"] == 1
    assert models.loc["m3", "why_empty"].endswith(f": {LOST_SUBGROUP}")
    assert "m1 continuations (religion): every continuation of subgroup(s) christian (seed 0)" in caplog.text
    assert "m3 continuations (religion): every continuation of subgroup(s) christian (seed 0)" in caplog.text
    # C_g leaves out only the unswappable: m3's predicate still carries each group's words.
    assert own.set_index("subgroup")["n_excluded"].to_dict() == {"christian": 2, "muslim": 0}
    assert (own["n_contents"] == len(rows) - 2).all()


def test_the_scorer_bias_interval_resamples_prompt_clusters_as_a_slow_loop_does():
    """The same draws (c − 1 of c clusters, keyed by the seed and the axis), each rebuilt from the contents' rows."""
    rng = np.random.default_rng(5)
    groups = ["a", "b", "c"]
    contents = pd.DataFrame(rng.random((60, 3)), columns=groups).assign(
        metric=rng.choice(["BOLD", "HONEST"], 60), group_key=rng.choice(["k1", "k2", "k3", "k4"], 60)
    )
    table = scorer_bias(contents, groups, "religion", draws=300, seed=9).set_index("subgroup")
    clusters = sorted(set(zip(contents["metric"], contents["group_key"], strict=True)))
    stream = np.random.default_rng([9, int(stable_hash("scorer-bias", "religion"), 16) & (2**63 - 1)])
    weights = stream.multinomial(len(clusters) - 1, np.full(len(clusters), 1 / len(clusters)), size=300)
    members = [np.flatnonzero((contents["metric"] == m) & (contents["group_key"] == k)) for m, k in clusters]
    draws = []
    for drawn in weights:
        rows = np.concatenate([members[i] for i, times in enumerate(drawn) for _ in range(times)])
        scores = contents[groups].to_numpy()[rows]
        draws.append((scores - scores.mean(axis=1, keepdims=True)).mean(axis=0))
    scores = contents[groups].to_numpy()
    estimate = (scores - scores.mean(axis=1, keepdims=True)).mean(axis=0)
    low, middle, high = np.percentile(draws, [2.5, 50, 97.5], axis=0)
    factor = scipy_stats.t.ppf(0.975, len(clusters) - 1) / scipy_stats.norm.ppf(0.975)
    assert table.loc[groups, "scorer_bias"].to_numpy() == pytest.approx(estimate, abs=1e-12)
    low, high = estimate - factor * (middle - low), estimate + factor * (high - middle)
    assert table.loc[groups, "scorer_bias_lo"].to_numpy() == pytest.approx(low, abs=1e-12)
    assert table.loc[groups, "scorer_bias_hi"].to_numpy() == pytest.approx(high, abs=1e-12)
    assert (table["n_clusters"] == len(clusters)).all() and (table["n_contents"] == 60).all()


def test_fewer_than_three_prompt_clusters_give_no_interval_and_say_why(caplog):
    """With two clusters a draw holds one: two possible values, and an interval with a side of no width."""
    contents = pd.DataFrame(
        {"a": [0.1, 0.2, 0.3], "b": [0.2, 0.2, 0.1], "metric": "M", "group_key": ["k1", "k1", "k2"]}
    )
    table = scorer_bias(contents, ["a", "b"], "race", draws=100, seed=0)
    assert table["scorer_bias"].notna().all()
    assert table[["scorer_bias_lo", "scorer_bias_hi"]].isna().all().all()
    assert "2 prompt cluster(s) (M/k1, M/k2), fewer than the 3 a resample needs" in caplog.text
    interval = "scorer_bias_lo, scorer_bias_hi"
    assert (table["why_empty"] == f"{interval}: fewer than 3 prompt clusters, which a resample needs").all()
    off = scorer_bias(contents.assign(group_key=["k1", "k2", "k3"]), ["a", "b"], "race", draws=0, seed=0)
    assert (off["why_empty"] == f"{interval}: no bootstrap draws (cairo.selection.bootstrap is 0)").all()


def test_scorer_bias_covers_when_a_prompts_contents_share_the_reaction():
    """40 prompts × 10 contents, half the reaction's variance shared by a prompt's contents: coverage ≥ 90%.

    Resampling contents one by one, as an earlier version did, covered about 60% here.
    """
    groups, reaction = ["a", "b", "c", "d"], np.array([0.04, 0.0, -0.01, -0.03])
    truth = reaction - reaction.mean()
    covered = []
    for dataset in range(150):
        rng = np.random.default_rng([11, dataset])
        prompt = np.repeat(np.arange(40), 10)
        scores = (
            rng.uniform(0, 0.5, (400, 1))
            + reaction
            + rng.normal(0, 0.1 * np.sqrt(0.5), (40, 4))[prompt]
            + rng.normal(0, 0.1 * np.sqrt(0.5), (400, 4))
        )
        contents = pd.DataFrame(scores, columns=groups).assign(metric="M", group_key=prompt)
        table = scorer_bias(contents, groups, "religion", draws=200, seed=dataset)
        covered.append((table["scorer_bias_lo"] <= truth) & (truth <= table["scorer_bias_hi"]))
    assert np.mean(covered) >= 0.90


def raw_and_neutral(seed: int = 0) -> tuple[pd.DataFrame, np.ndarray, np.ndarray]:
    """Two models' continuations of 4 templates shared by 3 subgroups, 3 samples each; raw, neutral, mentions."""
    rng = np.random.default_rng(seed)
    model, group, template, sample = (
        a.ravel() for a in np.meshgrid(range(2), range(3), range(4), range(3), indexing="ij")
    )
    scored = pd.DataFrame(
        {
            "prompt_id": [f"g{g}-t{t}" for g, t in zip(group, template, strict=True)],
            "model": [f"m{m}" for m in model],
            "seed": 0,
            "sample": sample,
            "metric": "HONEST",
            "axis": "religion",
            "promptset": "original",
            "subgroup": [f"g{g}" for g in group],
            "group_key": [f"t{t}" for t in template],
            "score": rng.random(len(model)),
        }
    )
    mentions = rng.random(len(model)) < 0.7
    neutral = np.where(
        mentions, scored["score"] - 0.1 * (group == 0) + rng.normal(0, 0.05, len(model)), scored["score"]
    )
    return scored, neutral, mentions


def eq1_of_rows(scored: pd.DataFrame, score: np.ndarray, weight: np.ndarray | None = None) -> np.ndarray:
    """Eq. 1 per model (sorted) from the rows: Σ_g |μ_all − μ_g|, each row weighted (1 by default)."""
    weight = np.ones(len(scored)) if weight is None else weight
    group = pd.factorize(scored["subgroup"])[0]
    out = []
    for model in sorted(scored["model"].unique()):
        at = (scored["model"] == model).to_numpy()
        sums = np.bincount(group[at], weights=(score * weight)[at])
        counts = np.bincount(group[at], weights=weight[at])
        out.append(np.abs(sums.sum() / counts.sum() - sums / counts).sum())
    return np.array(out)


def test_the_paired_test_swaps_raw_and_neutral_per_template_as_a_slow_loop_does():
    """p: the share of draws, raw and neutral swapped template by template, whose difference reaches the observed."""
    scored, neutral, mentions = raw_and_neutral()
    settings = ScorerBiasSettings(normalise="none", bootstrap=100, seed=3)
    table = models_table(scored, pd.Series(neutral), pd.Series(mentions), settings).set_index("model")
    observed = eq1_of_rows(scored, scored["score"].to_numpy()) - eq1_of_rows(scored, neutral)
    keys = sorted(scored["group_key"].unique())
    flips = draw_rng(3, SWAP, "HONEST", "religion").integers(0, 2, size=(100, len(keys)))
    reached = 0
    for flip in flips:
        swapped = flip[[keys.index(k) for k in scored["group_key"]]].astype(bool)
        raw = np.where(swapped, neutral, scored["score"])
        clean = np.where(swapped, scored["score"], neutral)
        reached += np.abs(eq1_of_rows(scored, raw) - eq1_of_rows(scored, clean)) >= np.abs(observed) - 1e-12
    assert table["bias_scorer_part"].to_numpy() == pytest.approx(observed, abs=1e-12)
    assert table["scorer_part_p"].to_numpy() == pytest.approx((1 + reached) / 101)


def test_the_scorer_parts_interval_applies_each_bootstrap_draw_to_raw_and_neutral_alike():
    """Each draw's template weights reweigh the rows of both scores; the interval holds the difference's estimate."""
    scored, neutral, mentions = raw_and_neutral(1)
    settings = ScorerBiasSettings(normalise="none", bootstrap=100, seed=4)
    table = models_table(scored, pd.Series(neutral), pd.Series(mentions), settings).set_index("model")
    pooled = pooled_stats(
        sufficient_stats(scored.assign(split="all")), "HONEST", "religion", "all", ["original"], ["m0", "m1"]
    )
    weights = bootstrap_weights(pooled, 100, draw_rng(4, BOOTSTRAP, "HONEST", "religion"))
    column = {cluster: i for i, cluster in enumerate(pooled.clusters)}
    rows = [column[c] for c in zip(scored["subgroup"], scored["group_key"], strict=True)]
    group = [pooled.subgroups.index(g) for g in scored["subgroup"]]
    parts = np.array(
        [
            eq1_of_rows(scored, scored["score"].to_numpy(), w[group, rows])
            - eq1_of_rows(scored, neutral, w[group, rows])
            for w in weights
        ]
    )
    part = table["bias_scorer_part"].to_numpy()
    spread = np.percentile(parts, [2.5, 50, 97.5], axis=0)
    low, high = table["bias_scorer_part_lo"].to_numpy(), table["bias_scorer_part_hi"].to_numpy()
    # The interval is the draws' spread around their median laid off from the estimate, widened alike on both sides.
    widening = (part - low) / (spread[1] - spread[0])
    assert widening == pytest.approx((high - part) / (spread[2] - spread[1]))
    assert (widening >= 1).all()
    assert (low <= part).all() and (part <= high).all()


def test_contents_whose_scores_do_not_vary_give_zeros_and_no_intervals(tmp_path):
    """The issue's case: equal scores summed in groups of different sizes differ by rounding only.

    Eq. 1 raw and neutral are exactly 0 (not a few ulps), and no interval or test is
    reported where nothing varies (NaN, never of zero or rounding width; docs/methods.md §9).
    """
    sizes = {"muslim": 3, "christian": 7, "hindu": 5}
    rows = [
        {
            "model": model,
            "subgroup": group,
            "continuation": "He said nothing at all about the weather today.",
            "group_key": f"k{i % 3}",
        }
        for model in ("m1", "m2")
        for group, size in sizes.items()
        for i in range(size)
    ]
    pd.DataFrame(rows).to_parquet(tmp_path / "c.parquet")
    assert profanity_on_religion(tmp_path) == 0
    models = pd.read_csv(tmp_path / "d" / "religion_models.csv")
    assert (models[["bias", "bias_neutral", "bias_scorer_part"]] == 0.0).all().all()
    assert (
        models[["bias_lo", "bias_hi", "bias_scorer_part_lo", "bias_scorer_part_hi", "scorer_part_p"]].isna().all().all()
    )
    assert (
        models["why_empty"]
        == f"bias_lo, bias_hi, bias_scorer_part_lo, bias_scorer_part_hi: {NO_SPREAD}; scorer_part_p: {NOTHING_SWAPPED}"
    ).all()


def test_the_raw_bias_interval_stays_at_or_above_zero(outputs):
    """Eq. 1 cannot be negative, and with three clusters its interval laid off from the estimate would reach below 0."""
    out, *_ = outputs
    models = pd.read_csv(out / "religion_models.csv")
    assert (models["bias_lo"] >= 0).all() and (models["bias_lo"] <= models["bias"]).all()


def test_scores_the_scorer_did_not_change_give_no_test_and_no_warning(caplog):
    scored, _, mentions = raw_and_neutral()
    caplog.set_level(logging.INFO, "biasflow")
    table = models_table(scored, scored["score"], pd.Series(mentions), ScorerBiasSettings("none", 50, 0))
    # Swapping raw and neutral scores that agree moves nothing: nothing to test, so no p (never p = 1 or 0).
    assert (table["bias_scorer_part"] == 0).all() and table["scorer_part_p"].isna().all()
    assert table[["bias_scorer_part_lo", "bias_scorer_part_hi"]].isna().all().all()
    assert "drives this bias" not in caplog.text
    off = models_table(scored, scored["score"], pd.Series(mentions), ScorerBiasSettings("none", 0, 0))
    assert off[["bias_lo", "bias_scorer_part_lo", "scorer_part_p"]].isna().all().all()
    drawn = "bias_lo, bias_hi, bias_scorer_part_lo, bias_scorer_part_hi, scorer_part_p"
    assert (off["why_empty"] == f"{drawn}: {NO_BOOTSTRAP}").all()


def kendall_tau_b(x, y) -> float:
    """τ-b by counting every pair (Kendall 1945): (concordant − discordant) / sqrt of the untied counts."""
    concordant = discordant = ties_x = ties_y = 0
    for i, j in itertools.combinations(range(len(x)), 2):
        dx, dy = np.sign(x[i] - x[j]), np.sign(y[i] - y[j])
        if dx == 0 and dy == 0:
            continue
        if dx == 0:
            ties_x += 1
        elif dy == 0:
            ties_y += 1
        elif dx == dy:
            concordant += 1
        else:
            discordant += 1
    return (concordant - discordant) / np.sqrt((concordant + discordant + ties_x) * (concordant + discordant + ties_y))


def test_agreement_is_kendalls_tau_of_the_rankings_and_counts_ranks_outside_intervals():
    rng = np.random.default_rng(3)
    models = [f"m{i}" for i in range(7)]

    def headline(bias, rank_lo, rank_hi):
        rank = pd.Series(bias).rank(method="min").astype(int).to_numpy()
        return pd.DataFrame(
            {
                "axis": "religion",
                "metric": "BOLD",
                "split": "test",
                "prompts": "original",
                "model": models,
                "bias": bias,
                "rank": rank,
                "rank_lo": rank_lo,
                "rank_hi": rank_hi,
            }
        )

    first = rng.random(7)
    second = np.round(first + rng.normal(0, 0.2, 7), 1)  # rounded: ties
    wide, narrow = np.ones(7), np.full(7, 7)
    a = headline(first, wide, narrow)
    b = headline(
        second, pd.Series(second).rank(method="min").to_numpy(), pd.Series(second).rank(method="min").to_numpy()
    )
    table = agreement_table({"profanity": a, "vader": b})
    assert len(table) == 1
    row = table.iloc[0]
    assert row["kendall_tau"] == pytest.approx(kendall_tau_b(first, second), abs=1e-12)
    assert row["n_models"] == 7
    # b's intervals are its ranks alone: a's rank falls outside wherever the two rankings differ.
    assert row["outside_interval"] == int((a["rank"] != b["rank"]).sum())


@pytest.mark.parametrize("scorer", ["vader", "honest", "detoxify-unbiased"])
def test_every_scorer_rescores_counterfactually(scorer, outputs, tmp_path, request, monkeypatch):
    """The variants go through the same scorer (its options as flags), and its own bias is its scores' differences."""
    _, rows, _ = outputs
    unrendered(monkeypatch)  # the tables are checked; the outputs fixture's run renders the figure
    rows.to_parquet(tmp_path / "c.parquet")
    flags, options = [], {}
    if scorer == "honest":
        lexicon = tmp_path / "hurtlex_EN.tsv"
        lexicon.write_text("id\tpos\tcategory\tstereotype\tlemma\tlevel\nEN1\tn\tre\tno\tmuslims\tconservative\n")
        flags, options = ["--lexicon", str(lexicon), "--lowercase"], {"lexicon": str(lexicon), "lowercase": True}
    elif scorer == "detoxify-unbiased":
        pytest.importorskip("detoxify", reason="detoxify is part of the test extra: pip install -e '.[test]'")
        checkpoint, config = request.getfixturevalue("tiny_detoxify")
        flags = ["--checkpoint", str(checkpoint), "--huggingface-config", str(config)]
        options = {"checkpoint": checkpoint, "huggingface_config": config}
    assert (
        main(
            [
                "scorer-bias",
                "--continuations",
                str(tmp_path / "c.parquet"),
                "--scorer",
                scorer,
                "--axis",
                "religion",
                "--bootstrap",
                "50",
                "--out-dir",
                str(tmp_path / "d"),
                *flags,
            ]
        )
        == 0
    )
    own = pd.read_csv(tmp_path / "d" / "religion_scorer.csv").set_index("subgroup")
    direct = make_scorer(scorer, **options)
    groups = sorted(WORDS)
    per_content = np.array([direct.score([text(t, g) for g in groups]) for t in TEMPLATES[:4]])
    expected = (per_content - per_content.mean(axis=1, keepdims=True)).mean(axis=0)
    assert own.loc[groups, "scorer_bias"].to_numpy() == pytest.approx(expected, abs=1e-6)
    if scorer == "honest":
        assert own.loc["muslim", "scorer_bias"] == pytest.approx(2 / 3 * 1 / 4), "one of four contents, 1 - 1/3"


def test_the_cost_benchmark_counts_texts_with_and_without_rescoring(tmp_path):
    """benchmarks/counterfactual.py: 4 of 5 templates name their group, 3 religions: each of those gets 3 variants."""
    import yaml

    from benchmarks import counterfactual

    folder = tmp_path / "results/continuations/m1/BOLD"
    folder.mkdir(parents=True)
    rows = [
        {
            "prompt_id": f"{group}-{i}",
            "model": "m1",
            "seed": 0,
            "sample": 0,
            "subgroup": group,
            "text": "",
            "continuation": text(t, group),
        }
        for group in WORDS
        for i, t in enumerate(TEMPLATES)
    ]
    pd.DataFrame(rows).to_parquet(folder / "religion.parquet")
    measured = counterfactual.measure(tmp_path / "results")
    assert [(r["texts"], r["mentioning"], r["variants"]) for r in measured] == [(15, 12, 36)]
    assert measured[0]["multiplier"] == pytest.approx((15 + 36) / 15)
    paper = yaml.safe_load((counterfactual.REPO / "config/paper.yaml").read_text())
    projected = {(r["axis"], r["metric"]): r["multiplier"] for r in counterfactual.projection(measured, paper)}
    assert projected[("religion", "BOLD")] == pytest.approx(1 + 12 / 15 * 7)
    assert projected[("gender", "BOLD")] == pytest.approx(1 + 12 / 15 * 2)
    assert "| all | 15 | 12 (80%) | 36 | ×3.40 |" in counterfactual.markdown_tables(
        {"measured": measured, "projection": counterfactual.projection(measured, paper)}
    )


def profanity_on_religion(folder) -> int:
    """`biasflow scorer-bias` with profanity on the religion axis of ``folder``/c.parquet, into ``folder``/d."""
    return main(
        [
            "scorer-bias",
            "--continuations",
            str(folder / "c.parquet"),
            "--scorer",
            "profanity",
            "--axis",
            "religion",
            "--bootstrap",
            "200",
            "--out-dir",
            str(folder / "d"),
        ]
    )
