"""The scorer's own bias apart from the models': counterfactual rescoring end to end on hand-built continuations.

The continuations are identical across subgroups except the group word, so any Eq. 1 bias on
them is the scorer's reaction to the word: raw Eq. 1 is positive with ``profanity``, Eq. 1 on
the neutral variants is exactly zero, and C_g is what scoring the swapped sentences directly
gives. Kendall's τ of the scorer-agreement table is checked against a count of pairs.
"""

from __future__ import annotations

import itertools
import logging

import numpy as np
import pandas as pd
import pytest

from biasflow.cairo.scorer_bias import agreement_table
from biasflow.cli import main
from biasflow.scorers import get_scorer

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


@pytest.fixture(scope="module")
def outputs(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("scorer_bias")
    rows = [{"model": model, "subgroup": group, "continuation": text(t, group)}
            for model in ("m1", "m2") for group in WORDS for t in TEMPLATES]
    pd.DataFrame(rows).to_parquet(tmp / "c.parquet")
    assert main(["scorer-bias", "--continuations", str(tmp / "c.parquet"), "--scorer", "profanity", "--axis",
                 "religion", "--bootstrap", "200", "--out-dir", str(tmp / "d")]) == 0
    return tmp / "d", pd.DataFrame(rows)


def test_the_command_writes_its_tables_and_figure(outputs):
    out, _ = outputs
    assert sorted(p.name for p in out.iterdir()) == ["religion_models.csv", "religion_scorer.csv",
                                                     "religion_scorer.png"]
    assert list(pd.read_csv(out / "religion_scorer.csv").columns) == [
        "subgroup", "scorer_bias", "scorer_bias_lo", "scorer_bias_hi", "n_contents"]


def test_raw_bias_is_the_scorers_and_neutral_bias_is_exactly_zero(outputs):
    out, rows = outputs
    models = pd.read_csv(out / "religion_models.csv")
    scores = get_scorer("profanity").score(rows["continuation"].tolist())
    for model, part in rows.assign(score=scores).groupby("model"):
        expected = sum(abs(part["score"].mean() - g["score"].mean()) for _, g in part.groupby("subgroup"))
        row = models.set_index("model").loc[model]
        assert row["bias"] == pytest.approx(expected, rel=1e-9)
        assert row["bias"] > 0.01, "profanity reacts to the religion words"
        assert row["bias_neutral"] == pytest.approx(0.0, abs=1e-12)
        assert row["mention_share"] == pytest.approx(4 / 5)
        assert row["bias_lo"] <= row["bias"] <= row["bias_hi"]


def test_scorer_bias_equals_scoring_the_swapped_sentences_directly(outputs):
    out, _ = outputs
    own = pd.read_csv(out / "religion_scorer.csv").set_index("subgroup")
    scorer = get_scorer("profanity")
    groups = sorted(WORDS)
    # Every content (a template written about one group, by one of two models) in every group's words.
    per_content = np.array([scorer.score([text(t, g) for g in groups]) for t in TEMPLATES[:4]])
    deviation = per_content - per_content.mean(axis=1, keepdims=True)
    for i, group in enumerate(groups):
        assert own.loc[group, "scorer_bias"] == pytest.approx(deviation[:, i].mean(), abs=1e-12)
        assert own.loc[group, "scorer_bias_lo"] <= own.loc[group, "scorer_bias"] <= own.loc[group, "scorer_bias_hi"]
    assert (own["n_contents"] == 2 * 3 * 4).all()
    assert own.loc["muslim", "scorer_bias"] > own.loc["christian", "scorer_bias"]


def test_the_log_says_when_the_scorer_drives_a_models_bias(outputs, caplog, tmp_path):
    _, rows = outputs
    caplog.set_level(logging.INFO, "biasflow")
    rows.to_parquet(tmp_path / "c.parquet")
    main(["scorer-bias", "--continuations", str(tmp_path / "c.parquet"), "--scorer", "profanity", "--axis",
          "religion", "--bootstrap", "200", "--out-dir", str(tmp_path / "d")])
    assert "the scorer's reaction to group words drives this bias" in caplog.text
    assert "scoring cost x" in caplog.text


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
        return pd.DataFrame({"axis": "religion", "metric": "BOLD", "split": "test", "prompts": "original",
                             "model": models, "bias": bias, "rank": rank, "rank_lo": rank_lo, "rank_hi": rank_hi})

    first = rng.random(7)
    second = np.round(first + rng.normal(0, 0.2, 7), 1)  # rounded: ties
    wide, narrow = np.ones(7), np.full(7, 7)
    a = headline(first, wide, narrow)
    b = headline(second, pd.Series(second).rank(method="min").to_numpy(), pd.Series(second).rank(method="min").to_numpy())
    table = agreement_table({"profanity": a, "vader": b})
    assert len(table) == 1
    row = table.iloc[0]
    assert row["kendall_tau"] == pytest.approx(kendall_tau_b(first, second), abs=1e-12)
    assert row["n_models"] == 7
    # b's intervals are its ranks alone: a's rank falls outside wherever the two rankings differ.
    assert row["outside_interval"] == int((a["rank"] != b["rank"]).sum())


@pytest.mark.parametrize("scorer", ["vader", "honest", "detoxify-unbiased"])
def test_every_scorer_rescores_counterfactually(scorer, outputs, tmp_path):
    """The variants go through the same scorer (its options as flags), and its own bias is its scores' differences."""
    _, rows = outputs
    rows.to_parquet(tmp_path / "c.parquet")
    flags, options = [], {}
    if scorer == "honest":
        lexicon = tmp_path / "hurtlex_EN.tsv"
        lexicon.write_text("id\tpos\tcategory\tstereotype\tlemma\tlevel\nEN1\tn\tre\tno\tmuslims\tconservative\n")
        flags, options = ["--lexicon", str(lexicon), "--lowercase"], {"lexicon": str(lexicon), "lowercase": True}
    elif scorer == "detoxify-unbiased":
        pytest.importorskip("detoxify", reason="detoxify is part of the test extra: pip install -e '.[test]'")
        from tiny_models import build_tiny_detoxify

        checkpoint, config = build_tiny_detoxify(tmp_path / "detoxify", seed=0)
        flags = ["--checkpoint", str(checkpoint), "--huggingface-config", str(config)]
        options = {"checkpoint": checkpoint, "huggingface_config": config}
    assert main(["scorer-bias", "--continuations", str(tmp_path / "c.parquet"), "--scorer", scorer, "--axis",
                 "religion", "--bootstrap", "50", "--out-dir", str(tmp_path / "d"), *flags]) == 0
    own = pd.read_csv(tmp_path / "d" / "religion_scorer.csv").set_index("subgroup")
    direct = get_scorer(scorer, **options)
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
    rows = [{"prompt_id": f"{group}-{i}", "model": "m1", "seed": 0, "sample": 0, "subgroup": group,
             "text": "", "continuation": text(t, group)} for group in WORDS for i, t in enumerate(TEMPLATES)]
    pd.DataFrame(rows).to_parquet(folder / "religion.parquet")
    measured = counterfactual.measure(tmp_path / "results")
    assert [(r["texts"], r["mentioning"], r["variants"]) for r in measured] == [(15, 12, 36)]
    assert measured[0]["multiplier"] == pytest.approx((15 + 36) / 15)
    paper = yaml.safe_load((counterfactual.REPO / "config/paper.yaml").read_text())
    projected = {(r["axis"], r["metric"]): r["multiplier"] for r in counterfactual.projection(measured, paper)}
    assert projected[("religion", "BOLD")] == pytest.approx(1 + 12 / 15 * 7)
    assert projected[("gender", "BOLD")] == pytest.approx(1 + 12 / 15 * 2)
    assert "| all | 15 | 12 (80%) | 36 | ×3.40 |" in counterfactual.markdown_tables(
        {"measured": measured, "projection": counterfactual.projection(measured, paper)})
