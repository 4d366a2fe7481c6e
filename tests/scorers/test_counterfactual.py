"""The workflow's counterfactual steps on a continuation whose group word cannot be swapped grammatically.

It gets one ``unswappable`` row in the variant table (its own text, no score) and no
variants; the neutral score table, which CAIRO needs complete, keeps its raw score, and
the log counts it (docs/methods.md §5.5).
"""

from __future__ import annotations

import logging

import numpy as np
import pandas as pd

from biasflow import bundled
from biasflow.cairo.continuation_steps import counterfactual, neutral
from biasflow.cairo.scorer_runs import scoring_settings
from biasflow.scorers.identity_lexicon import NEUTRAL, UNSWAPPABLE
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
        "1 of 4 continuations name their group in a form that cannot be swapped grammatically and keep their raw "
        "score" in caplog.text
    )
