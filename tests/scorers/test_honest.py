"""The honest scorer (HONEST's HurtLex measure, docs/methods.md §5.3) on hand-worked sentences.

The tests write their own tiny lexicon in the HurtLex TSV format; HurtLex itself is never
part of the repository.
"""

from __future__ import annotations

import pytest

from biasflow.errors import BiasflowError
from biasflow.scorers import score_texts
from biasflow.scorers.honest import HonestScorer, read_hurtlex, strip_accents
from biasflow.scorers.table import ScoringSettings
from specs import make_scorer

LEXICON = [
    ("EN1", "n", "an", "no", "pig", "conservative"),
    ("EN2", "n", "re", "no", "thief", "conservative"),
    ("EN3", "a", "cds", "no", "stupid", "inclusive"),  # not conservative: never counted
    ("EN4", "n", "cds", "no", "idiot", "conservative"),
    ("EN5", "n", "re", "no", "idiot", "conservative"),  # the first row's category wins
    ("EN6", "n", "cds", "no", "crétin", "conservative"),  # accents stripped on both sides
    ("EN7", "n", "qas", "no", "gag reel", "conservative"),  # several words: a split text never holds it
]


def write_lexicon(path, rows=LEXICON, header=("id", "pos", "category", "stereotype", "lemma", "level")):
    path.write_text("\n".join("\t".join(row) for row in [header, *rows]) + "\n", encoding="utf-8")
    return path


@pytest.fixture
def lexicon(tmp_path):
    return write_lexicon(tmp_path / "hurtlex_EN.tsv")


@pytest.mark.parametrize(
    ("text", "score", "category"),
    [
        ("He works as a doctor.", 0.0, ""),
        ("He is a thief.", 1.0, "re"),  # punctuation removed before the split
        ("the thief's brother", 1.0, "re"),  # the apostrophe is punctuation too
        ("a pig-headed man", 1.0, "an"),  # so is the hyphen
        ("a thief and a pig", 1.0, "re"),  # counted once, at the first hurtful word
        ("what an idiot", 1.0, "cds"),
        ("a real crétin", 1.0, "cds"),
        ("a real cretin", 1.0, "cds"),
        ("so stupid", 0.0, ""),
        ("a gag reel of it", 0.0, ""),
        ("A Pig.", 0.0, ""),  # not lower-cased, as the reference
        ("", 0.0, ""),
    ],
)
def test_hand_worked_sentences(lexicon, text, score, category):
    scorer = HonestScorer(lexicon, lowercase=False)
    assert scorer.score([text])[0] == score
    assert scorer.categories([text]) == [category]


def test_lowercase_option_matches_case_blind(lexicon):
    assert HonestScorer(lexicon, lowercase=True).score(["A Pig.", "THIEF!"]).tolist() == [1.0, 1.0]
    assert HonestScorer(lexicon, lowercase=False).score(["A Pig.", "THIEF!"]).tolist() == [0.0, 0.0]


def test_reading_the_lexicon_keeps_conservative_lemmas_first_category(lexicon):
    assert read_hurtlex(lexicon, lowercase=False) == {
        "pig": "an",
        "thief": "re",
        "idiot": "cds",
        "cretin": "cds",
        "gag reel": "qas",
    }
    assert strip_accents("Crème brûlée") == "Creme brulee"


def test_cache_key_changes_with_the_lexicon_and_the_case_option(lexicon, tmp_path):
    cache = tmp_path / "cache"
    first = HonestScorer(lexicon, lowercase=False)
    assert score_texts(first, ["a pig"], cache).tolist() == [1.0]
    other = write_lexicon(tmp_path / "other.tsv", rows=[("EN1", "n", "an", "no", "dog", "conservative")])
    assert score_texts(HonestScorer(other, lowercase=False), ["a pig"], cache).tolist() == [0.0], (
        "another lexicon never reuses scores"
    )
    assert first.cache_identity() != HonestScorer(lexicon, lowercase=True).cache_identity()
    assert first.cache_identity() == HonestScorer(lexicon, lowercase=False).cache_identity()


def test_built_from_the_config_section(lexicon):
    scorer = ScoringSettings.of(
        {
            "scorer": "honest",
            "score_text": "continuation",
            "batch_size": 8,
            "lexicon": str(lexicon),
            "lowercase": True,
            "device": "cuda",
        }
    ).build()
    assert isinstance(scorer, HonestScorer) and scorer.lowercase and scorer.batch_size == 8


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda tmp: None, "needs the HurtLex lexicon"),
        (lambda tmp: tmp / "missing.tsv", "HurtLex lexicon not found"),
        (lambda tmp: write_lexicon(tmp / "x.tsv", rows=[("1", "pig")], header=("id", "word")), "lacks the column"),
        (
            lambda tmp: write_lexicon(tmp / "y.tsv", rows=[r for r in LEXICON if r[5] == "inclusive"]),
            "no lemma of level",
        ),
    ],
)
def test_bad_lexicon_is_one_clear_error(tmp_path, make, message):
    with pytest.raises(BiasflowError, match=message):
        make_scorer("honest", lexicon=make(tmp_path))
