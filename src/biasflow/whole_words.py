"""Whole-word matching that keeps the case of the text: what every word swap is built on.

FairPair's perturbation φ (docs/methods.md §2.1) and the counterfactual rescoring of the
scorer's own bias (§5.5) both replace words inside free text: only whole words (no letter,
digit or underscore may touch the match, so "manager" never matches "man" and "Christianity"
never matches "Christian"), a phrase across any whitespace, and the replacement written in
the case the text used, with "a" or "an" as the word after it needs.
"""

from __future__ import annotations

import re


def key(word: str) -> str:
    """Lookup key of a word or phrase: lower case, single spaces."""
    return " ".join(word.split()).lower()


def phrase(words: str) -> str:
    """Regex of ``words`` as whole words, any whitespace between them."""
    return r"(?<!\w)" + r"\s+".join(re.escape(w) for w in words.split()) + r"(?!\w)"


def mentions(text: str, words: str) -> bool:
    """Whether ``text`` holds ``words`` as whole words, in any case ("John's" does, "Johnson" not)."""
    return re.search(phrase(words), text, re.IGNORECASE) is not None


def match_case(found: str, target: str) -> str:
    """``target`` with the case of ``found``: ALL CAPS, Capitalised, or lower case."""
    if not target:
        return target
    if found.isupper() and sum(c.isalpha() for c in found) > 1:
        return target.upper()
    if found[0].isupper():
        return target[0].upper() + target[1:]
    return target[0].lower() + target[1:]


# Words spelt with a vowel that start with a consonant sound ("a European", "a university", "a one"),
# and with an "h" that is not said ("an hour").
_CONSONANT_SOUND = ("eu", "ew", "uni", "use", "usu", "uti", "ure", "one", "once")
_SILENT_H = ("hour", "honest", "honor", "honour", "heir")


def indefinite_article(word: str) -> str:
    """ "an" before a vowel sound, "a" otherwise, by spelling ("an atheist", "a European", "a Hindu")."""
    lower = word.lower()
    if lower.startswith(_SILENT_H):
        return "an"
    return "an" if lower[:1] in set("aeiou") and not lower.startswith(_CONSONANT_SOUND) else "a"
