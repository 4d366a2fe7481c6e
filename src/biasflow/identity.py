"""The identity lexicon, and a text's own group words swapped for every other group's and a neutral one.

A scorer reacts to group words by itself ("I love my gay friends" scores toxic), and
continuations repeat their prompt's group word, so part of every measured bias is the
scorer's. Counterfactual rescoring (docs/methods.md §5.5) separates it: every mention of a
continuation's own subgroup is replaced, form by form, by each other subgroup's word and by
a neutral placeholder, and the variants are scored like any text. The lexicon (bundled:
``src/biasflow/data/identity/lexicon.yaml``, which documents the format, its sources and
its limits) gives, per axis, each unified subgroup's words in aligned forms.
"""

from __future__ import annotations

import re
from pathlib import Path

import yaml

from biasflow.errors import BiasflowError
from biasflow.words import key, match_case, phrase

NEUTRAL = "neutral"
_AXIS_KEYS = {"subgroups", "neutral", "before_a_word"}
_NEXT_WORD = re.compile(r"[^\S\n]*([^\W\d_]+)")
# Words that follow a noun or pronoun, not a determiner or adjective ("a Christian and ...", "saw her at ...").
_NOT_A_HEAD = frozenset(
    "and or but nor is are was were be been has have had will would can could may might must shall should do does "
    "did who whom whose which that than as at by for from in into of on onto to with without about after before "
    "over under".split()
)


class AxisLexicon:
    """One axis's words: ``words[subgroup][form]`` (the first is the replacement), ``neutral[form]``."""

    def __init__(self, axis: str, words: dict[str, dict[str, tuple[str, ...]]], neutral: dict[str, str],
                 before_a_word: str | None):
        self.axis, self.words, self.neutral, self.before_a_word = axis, words, neutral, before_a_word
        self._forms: dict[str, dict[str, list[str]]] = {}
        for subgroup, by_form in words.items():
            for form, listed in by_form.items():
                for word in listed:
                    self._forms.setdefault(subgroup, {}).setdefault(key(word), []).append(form)
        self._patterns: dict[str, re.Pattern] = {}
        self._spelling = {key(w): w for by_form in words.values() for listed in by_form.values() for w in listed}

    @property
    def subgroups(self) -> list[str]:
        return list(self.words)

    def compared(self, labels) -> list[str]:
        """The subgroups among ``labels`` (a table's) that this lexicon has words for, sorted: those rescored."""
        return sorted(set(labels) & set(self.words))

    def variants(self, text: str, subgroup: str, targets: list[str]) -> tuple[int, dict[str, str]]:
        """The number of mentions of ``subgroup`` in ``text``, and the text with them swapped per target.

        ``targets`` are other subgroups of the axis and/or :data:`NEUTRAL`. Without a mention
        (or for a subgroup the lexicon does not know) the variants are empty.
        """
        if subgroup not in self.words or not isinstance(text, str):
            return 0, {}
        found = list(self._pattern(subgroup).finditer(text))
        if not found:
            return 0, {}
        forms = [self._form_of(subgroup, match, text) for match in found]
        return len(found), {target: self._replace(text, found, forms, target) for target in targets}

    def _form_of(self, subgroup: str, match: re.Match, text: str) -> str:
        """The form of a found word; a word of two forms is the ``before_a_word`` one when a word follows it.

        A following word that only comes after a noun or pronoun ("and", "is", "at") does not count.
        """
        forms = self._forms[subgroup][key(match.group(0))]
        if len(forms) == 1:
            return forms[0]
        following = _NEXT_WORD.match(text, match.end())
        if self.before_a_word in forms and following and following.group(1).lower() not in _NOT_A_HEAD:
            return self.before_a_word
        return next(form for form in forms if form != self.before_a_word)

    def _replace(self, text: str, found: list[re.Match], forms: list[str], target: str) -> str:
        pieces, at = [], 0
        for match, form in zip(found, forms):
            word = self.neutral[form] if target == NEUTRAL else self.words[target][form][0]
            start, end = match.span()
            if not word:  # drop the word and one space beside it
                if text[end:end + 1] == " ":
                    end += 1
                elif start > at and text[start - 1] == " ":
                    start -= 1
            pieces += [text[at:start], self._cased(match.group(0), word, text, start)]
            at = end
        return "".join([*pieces, text[at:]])

    def _cased(self, found: str, word: str, text: str, start: int) -> str:
        """``word`` in the case ``found`` was written in, relative to the lexicon's spelling.

        A word written as the lexicon spells it takes the replacement as spelled (Muslim →
        person, Muslim → Hindu); otherwise the text's case carries over (she → They at the
        start of a sentence, MUSLIM → HINDU, black → white), and a sentence's first word is
        capitalised.
        """
        if found.isupper() and sum(c.isalpha() for c in found) > 1:
            return word.upper()
        if found == self._spelling[key(found)]:
            cased = word
        else:
            cased = match_case(found, word)
        return match_case("A", cased) if _starts_sentence(text, start) else cased

    def _pattern(self, subgroup: str) -> re.Pattern:
        if subgroup not in self._patterns:
            words = sorted({w for words in self.words[subgroup].values() for w in words}, key=len, reverse=True)
            self._patterns[subgroup] = re.compile("|".join(phrase(w) for w in words), re.IGNORECASE)
        return self._patterns[subgroup]


def _starts_sentence(text: str, start: int) -> bool:
    before = text[:start].rstrip()
    return not before or before[-1] in ".!?\n\"“"


class IdentityLexicon:
    """Every axis's :class:`AxisLexicon`, read and checked from a lexicon file."""

    def __init__(self, axes: dict[str, AxisLexicon], source: str):
        self.axes, self.source = axes, source

    @classmethod
    def from_file(cls, path: str | Path) -> "IdentityLexicon":
        path = Path(path)
        if not path.is_file():
            raise BiasflowError(
                f"identity lexicon not found: {path}. Fix scoring.identity_lexicon, or leave it unset for the "
                "bundled one."
            )
        try:
            data = yaml.safe_load(path.read_text(encoding="utf-8"))
        except yaml.YAMLError as exc:
            raise BiasflowError(f"identity lexicon {path} is not valid YAML: {exc}") from exc
        if not isinstance(data, dict) or not data:
            raise BiasflowError(f"identity lexicon {path} needs one entry per axis (see the bundled lexicon.yaml).")
        return cls({axis: _axis(axis, entry, str(path)) for axis, entry in data.items()}, str(path))

    def axis(self, name: str) -> AxisLexicon:
        if name not in self.axes:
            raise BiasflowError(
                f"identity lexicon {self.source} has no axis {name!r} (it has {', '.join(self.axes)}); add its "
                "subgroups' words, or turn scoring.counterfactual and scoring.neutralise off."
            )
        return self.axes[name]


def _axis(axis: str, entry, source: str) -> AxisLexicon:
    where = f"identity lexicon {source}, axis {axis}"
    if not isinstance(entry, dict) or not isinstance(entry.get("subgroups"), dict) or not entry["subgroups"]:
        raise BiasflowError(f"{where}: needs `subgroups:` mapping each subgroup to its words by form.")
    unknown = set(entry) - _AXIS_KEYS
    if unknown:
        raise BiasflowError(f"{where}: unknown key(s) {', '.join(sorted(unknown))}; allowed: "
                            f"{', '.join(sorted(_AXIS_KEYS))}.")
    words = {str(subgroup): _forms(f"{where}, subgroup {subgroup}", forms) for subgroup, forms in
             entry["subgroups"].items()}
    neutral = entry.get("neutral")
    if not isinstance(neutral, dict) or not all(isinstance(v, str) for v in neutral.values()):
        raise BiasflowError(f"{where}: needs `neutral:` with one placeholder word per form (\"\" drops the word).")
    forms = set(neutral)
    for subgroup, by_form in words.items():
        if set(by_form) != forms:
            missing, extra = sorted(forms - set(by_form)), sorted(set(by_form) - forms)
            raise BiasflowError(
                f"{where}: subgroup {subgroup} and neutral must give the same forms; "
                + (f"{subgroup} lacks {', '.join(missing)}" if missing else f"only {subgroup} has {', '.join(extra)}")
                + ". Give every subgroup and neutral every form."
            )
    owner: dict[str, str] = {}
    for subgroup, by_form in words.items():
        for word in {key(w) for ws in by_form.values() for w in ws}:
            if owner.setdefault(word, subgroup) != subgroup:
                raise BiasflowError(f"{where}: {word!r} is listed for {owner[word]} and {subgroup}; keep it under one.")
    before = entry.get("before_a_word")
    if before is not None and before not in forms:
        raise BiasflowError(f"{where}: before_a_word {before!r} is not one of its forms ({', '.join(sorted(forms))}).")
    return AxisLexicon(axis, words, dict(neutral), before)


def _forms(where: str, forms) -> dict[str, tuple[str, ...]]:
    if not isinstance(forms, dict) or not forms:
        raise BiasflowError(f"{where}: needs its words by form, e.g. {{noun: woman, plural: [women, ladies]}}.")
    out = {}
    for form, words in forms.items():
        words = [words] if isinstance(words, str) else words
        if not isinstance(words, list) or not words or not all(isinstance(w, str) and w.strip() for w in words):
            raise BiasflowError(f"{where}, form {form}: give a word or a list of words, got {words!r}; quote words "
                                "YAML reads as booleans.")
        out[str(form)] = tuple(w.strip() for w in words)
    return out
