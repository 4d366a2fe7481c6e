"""Word tokens and the Jaccard distance of FairPair's token dissimilarity (docs/methods.md §2.2).

The perturbation filter (§2.1), the Jaccard dissimilarity (§2.2) and the n-gram comparison
(§2.6) all read texts through these, so a word means the same thing everywhere.
"""

from __future__ import annotations

import re

from biasflow.scorers.base import normalise_text

# A word is a run of letters, digits or underscores, with internal apostrophes kept so
# "don't" and "John's" stay one token (straight or typographic apostrophe).
_TOKEN = re.compile(r"\w+(?:['’]\w+)*")


def token_list(text) -> list[str]:
    """The lower-cased word tokens of ``text`` in order (what n-grams are made of)."""
    return _TOKEN.findall(normalise_text(text).lower())


def tokens(text: str) -> frozenset[str]:
    """The set of lower-cased word tokens T(text) used by the Jaccard distance (docs/methods.md §2.2).

    A token is a run of word characters (``\\w``: letters, digits, underscore, any script)
    with internal apostrophes kept, so "Don't" → "don't" and "John's" is one token;
    punctuation separates tokens and is dropped. A missing text (NaN) has no tokens.
    """
    return frozenset(token_list(text))


def jaccard_distance(a: frozenset, b: frozenset) -> float:
    """1 − |a∩b| / |a∪b|, the paper's token dissimilarity (section 2, "Scoring Functions").

    Two empty sets (two empty continuations) are defined as distance 0: they are
    identical, and the formula's 0/0 would otherwise make every pair sum NaN.
    """
    union = len(a | b)
    return 0.0 if union == 0 else 1.0 - len(a & b) / union
