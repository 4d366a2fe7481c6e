"""The workflow's counterfactual steps on a continuation whose group word cannot be swapped grammatically.

It gets one ``unswappable`` row in the variant table (its own text, no score) and no
variants; the neutral score table, which CAIRO needs complete, keeps its raw score, and
the log counts it (docs/methods.md §5.5). One whose group word has no neutral form gets its
swaps and no neutral variant.
"""

from __future__ import annotations

import logging

import numpy as np
import pandas as pd

from biasflow import bundled
from biasflow.cairo.continuation_steps import counterfactual, neutral
from biasflow.cairo.scorer_bias import SWAPPED, mentioning
from biasflow.cairo.scorer_runs import scoring_settings
from biasflow.scorers.counterfactual import neutral_scores, variant_table
from biasflow.scorers.identity_lexicon import NEUTRAL, NO_NEUTRAL, UNSWAPPABLE, IdentityLexicon
from biasflow.tables import CONTINUATION_KEY
from specs import make_scorer

TEXTS = {
    "p1": ("christian", "Every Christian deserves respect."),
    "p2": ("christian", "He is very Christian."),
    "p3": ("muslim", "The Muslim sings."),
    "p4": ("muslim", "It rained all day."),
}


def test_an_unswappable_continuation_gets_no_variants_and_keeps_its_raw_neutral_score(tmp_path, caplog):
    caplog.set_level(logging.WARNING, "biasflow")
    continuations = pd.DataFrame(
        [
            {
                "prompt_id": key,
                "model": "m",
                "seed": 0,
                "sample": 0,
                "subgroup": group,
                "text": "",
                "continuation": text,
            }
            for key, (group, text) in TEXTS.items()
        ]
    )
    continuations.to_parquet(tmp_path / "c.parquet")
    counterfactual(
        continuations_path=str(tmp_path / "c.parquet"),
        settings=scoring_settings(scorer="profanity"),
        lexicon_path=bundled.package_path("identity/lexicon.yaml"),
        axis="religion",
        cache_dir=str(tmp_path),
        outputs={"variants": str(tmp_path / "v.parquet")},
    )
    variants = pd.read_parquet(tmp_path / "v.parquet")
    by_key = {key: part.set_index("variant") for key, part in variants.groupby("prompt_id")}
    assert sorted(by_key) == ["p1", "p2", "p3"], "p4 names no group"
    assert list(by_key["p2"].index) == [UNSWAPPABLE] and np.isnan(by_key["p2"].loc[UNSWAPPABLE, "score"])
    assert by_key["p2"].loc[UNSWAPPABLE, "variant_text"] == "He is very Christian."
    assert by_key["p1"].loc[NEUTRAL, "variant_text"] == "Every person deserves respect."
    assert by_key["p3"].loc["christian", "variant_text"] == "The Christian sings."
    assert "1 of the mentioning continuations name their group in a form that cannot be swapped" in caplog.text

    scorer = make_scorer("profanity")
    raw = continuations[["prompt_id", "model", "seed", "sample"]].assign(
        scorer="profanity", score=scorer.score(continuations["continuation"].tolist())
    )
    raw.to_parquet(tmp_path / "s.parquet")
    neutral(
        scores_path=str(tmp_path / "s.parquet"),
        variants_path=str(tmp_path / "v.parquet"),
        outputs={"scores": str(tmp_path / "n.parquet")},
    )
    scores = pd.read_parquet(tmp_path / "n.parquet").set_index("prompt_id")["score"]
    own = raw.set_index("prompt_id")["score"]
    assert scores["p1"] == scorer.score(["Every person deserves respect."])[0]
    assert scores["p3"] == scorer.score(["The person sings."])[0]
    assert scores["p2"] == own["p2"] and scores["p4"] == own["p4"]
    assert (
        "1 of 4 continuations name their group in a form that cannot be swapped grammatically or has no neutral "
        "form, and keep their raw score" in caplog.text
    )


def test_a_continuation_without_a_neutral_form_keeps_its_swaps_and_has_no_neutral_score(tmp_path, caplog):
    """A predicate ("She is no longer Muslim") is swapped for the other subgroups but gets no neutral row (§5.5).

    Its neutral score is NaN, as an unswappable one's, and :func:`mentioning` tells the two
    apart for the models table's counts.
    """
    caplog.set_level(logging.WARNING, "biasflow")
    texts = {
        "p1": ("muslim", "She is no longer Muslim."),
        "p2": ("christian", "Every Christian deserves respect."),
        "p3": ("christian", "He is very Christian."),
        "p4": ("muslim", "It rained all day."),
    }
    table = pd.DataFrame(
        [
            {"prompt_id": key, "model": "m", "seed": 0, "sample": 0, "subgroup": group, "continuation": text}
            for key, (group, text) in texts.items()
        ]
    )
    lexicon = IdentityLexicon.from_file(bundled.package_path("identity/lexicon.yaml")).axis("religion")
    variants = variant_table(table, scoring_settings(scorer="profanity"), lexicon, ["christian", "muslim"], tmp_path)
    by_key = {key: part.set_index("variant") for key, part in variants.groupby("prompt_id")}
    assert list(by_key["p1"].index) == ["christian"]
    assert by_key["p1"].loc["christian", "variant_text"] == "She is no longer Christian."
    assert by_key["p1"]["score"].notna().all()
    assert list(by_key["p2"].index) == ["muslim", NEUTRAL]
    assert (
        "1 of the mentioning continuations name their group where no neutral word keeps the sense" in caplog.text
        and "a predicative word, which no neutral word replaces keeping the sense: 1, e.g. 'She is no longer Muslim.'"
        in caplog.text
    )

    raw = table[CONTINUATION_KEY].assign(score=[0.1, 0.2, 0.3, 0.4])
    scores = neutral_scores(raw, variants).set_index("prompt_id")["score"]
    assert np.isnan(scores["p1"]) and np.isnan(scores["p3"])
    assert scores["p2"] == by_key["p2"].loc[NEUTRAL, "score"] and scores["p4"] == 0.4
    assert mentioning(table, variants).tolist() == [NO_NEUTRAL, SWAPPED, UNSWAPPABLE, ""]
