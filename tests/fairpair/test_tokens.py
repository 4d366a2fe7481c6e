"""Word tokens and the Jaccard distance (docs/methods.md §2.2)."""

import pytest

from biasflow.fairpair.tokens import jaccard_distance, tokens


def test_tokens_lowercase_words_with_apostrophes():
    assert tokens("Don't stop, John's DOG!") == frozenset({"don't", "stop", "john's", "dog"})
    assert tokens("") == frozenset()
    assert tokens(float("nan")) == frozenset()


def test_jaccard_distance_and_empty_sets():
    assert jaccard_distance(frozenset("ab"), frozenset("bc")) == pytest.approx(1 - 1 / 3)
    assert jaccard_distance(frozenset(), frozenset()) == 0.0
    assert jaccard_distance(frozenset("a"), frozenset()) == 1.0
