"""The identity lexicon, and a text's own group words swapped for every other group's and a neutral one.

It lives beside the counterfactual scorer (:mod:`biasflow.scorers.counterfactual`), the one
module that swaps with it; the config check and the CAIRO steps only load it.

A scorer reacts to group words by itself ("I love my gay friends" scores toxic), and
continuations repeat their prompt's group word, so part of every measured bias is the
scorer's. Counterfactual rescoring (docs/methods.md §5.5) separates it: every mention of a
continuation's own subgroup is replaced, form by form, by each other subgroup's word and by
a neutral placeholder, and the variants are scored like any text. The lexicon (bundled:
``src/biasflow/data/identity/lexicon.yaml``, which documents the format, its sources and
its limits) gives, per axis, each unified subgroup's words in aligned forms. A form is a
syntactic role: a word listed under several ("Christian": adjective, predicative, noun) is
read by where it stands (:mod:`biasflow.scorers.word_roles`), so the swap keeps the sentence grammatical
("Every Christian deserves" → "Every Jew deserves", "Every person deserves"; "became
Christian last year" → "became Jewish"), an "a" or "an" before it agrees with what follows
after the swap, and a plural possessive's apostrophe takes the s its new word needs ("The
Muslims' hall" → "The people's hall"). Contents identical but for the group word then
become each other's sentences exactly, and one neutral sentence. A mention whose role the
neighbouring words cannot tell, or that no placeholder can take ("very Christian",
"Muslim-owned"), is not swapped at all: its text gets no variants and is counted instead.
A mention that no neutral word replaces keeping the sense (a predicate: "She is no longer
Muslim" would become "She is no longer a person"; "Atheism is growing" would become "Faith
is growing") is swapped for the other subgroups but has no neutral text, and is counted.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import yaml

from biasflow.errors import BiasflowError
from biasflow.scorers.word_roles import ELSEWHERE, HYPHENATED, POSITIONS, hyphenated, read
from biasflow.whole_words import indefinite_article, key, match_case, phrase

NEUTRAL = "neutral"
# The variant label of a continuation whose mention cannot be swapped grammatically (docs/methods.md §5.5).
UNSWAPPABLE = "unswappable"
# What a continuation whose mentions have no neutral form is counted as (docs/methods.md §5.5).
NO_NEUTRAL = "no neutral form"
_AXIS_KEYS = {"subgroups", "neutral", "positions", "no_neutral"}
_NEXT_WORD = re.compile(r"[^\S\n]*([^\W\d_]+)")
_ARTICLE_BEFORE = re.compile(r"(?<!\w)(an?)([^\S\n]+)$", re.IGNORECASE)
_APOSTROPHES = ("'", "’")
_SINGLE_QUOTE = re.compile(r"['‘’]")


@dataclass(frozen=True)
class Variants:
    """A text's mentions of its own subgroup and the text with them swapped, per target.

    ``texts`` is empty without a mention, and where a mention cannot be swapped grammatically;
    ``unswappable`` then says why (:mod:`biasflow.scorers.word_roles`), and is "" otherwise.
    Where a mention has no neutral form (docs/methods.md §5.5), ``texts`` has the other
    subgroups' texts and no neutral one, and ``no_neutral`` says why ("" otherwise).
    """

    mentions: int
    texts: dict[str, str]
    unswappable: str = ""
    no_neutral: str = ""


class AxisLexicon:
    """One axis's words: ``words[subgroup][form]`` (the first is the replacement), ``neutral[form]``.

    ``positions[form]`` is where a word listed under several forms of one subgroup is read
    as that form (:data:`POSITIONS`; docs/methods.md §5.5). A form has no neutral word where
    ``neutral[form]`` is None (a predicate: no placeholder keeps "became Buddhist"'s sense),
    and a subgroup's form has none where ``no_neutral[subgroup]`` names it (the neutral word
    would reverse its meaning: "atheism" → "faith").
    """

    def __init__(
        self,
        axis: str,
        words: dict[str, dict[str, tuple[str, ...]]],
        neutral: dict[str, str | None],
        positions: dict[str, str],
        no_neutral: dict[str, frozenset[str]],
    ):
        self.axis, self.words, self.neutral, self.no_neutral = axis, words, neutral, no_neutral
        self.positions = {form: positions.get(form, ELSEWHERE) for form in neutral}
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

    def variants(self, text: str, subgroup: str, targets: list[str]) -> Variants:
        """The mentions of ``subgroup`` in ``text``, and the text with them swapped per target.

        ``targets`` are other subgroups of the axis and/or :data:`NEUTRAL`. Without a mention
        (or for a subgroup the lexicon does not know) there are no variants; where a mention
        cannot be swapped grammatically (:func:`biasflow.scorers.word_roles.read`) there are none either,
        and ``unswappable`` says why: one role misread would give the subgroups' texts
        different neutral variants (docs/methods.md §5.5). Where a mention has no neutral word
        (:meth:`_neutral_words`) the text has no neutral variant, and ``no_neutral`` says why.
        """
        if subgroup not in self.words or not isinstance(text, str):
            return Variants(0, {})
        found = list(self._pattern(subgroup).finditer(text))
        if not found:
            return Variants(0, {})
        forms = []
        for match in found:
            form, why = self._form_of(subgroup, match, text)
            if form is None:
                return Variants(len(found), {}, why)
            forms.append(form)
        neutral, no_neutral = self._neutral_words(subgroup, forms)
        texts = {}
        for target in targets:
            if target != NEUTRAL:
                texts[target] = self._replace(text, found, [self.words[target][form][0] for form in forms])
            elif not no_neutral:
                texts[target] = self._replace(text, found, neutral)
        return Variants(len(found), texts, no_neutral=no_neutral)

    def _neutral_words(self, subgroup: str, forms: list[str]) -> tuple[list[str], str]:
        """The neutral word of each mention's form, or none and why (docs/methods.md §5.5).

        A form without a neutral word (None: a predicate, "is no longer Muslim", which "is no
        longer a person" turns into a slight) and a subgroup's form named under ``no_neutral``
        (whose neutral word reverses the sense: "Atheism is growing" → "Faith is growing")
        leave the text without a neutral variant: a senseless neutral text would be scored as
        if it were the same content without its group.
        """
        words = []
        for form in forms:
            word = self.neutral[form]
            if word is None:
                return [], f"a {form} word, which no neutral word replaces keeping the sense"
            if form in self.no_neutral.get(subgroup, ()):
                return [], f"{subgroup}'s {form} word, whose neutral word would change the meaning"
            words.append(word)
        return words, ""

    def _form_of(self, subgroup: str, match: re.Match, text: str) -> tuple[str | None, str]:
        """The form of a found word, or None and why it cannot be told (docs/methods.md §5.5).

        A word listed under one form is that form, unless a hyphen joins it to another word;
        one listed under several is read where it stands (:func:`biasflow.scorers.word_roles.read`), by the
        positions of its forms.
        """
        forms = self._forms[subgroup][key(match.group(0))]
        if len(forms) == 1:
            unreadable = hyphenated(text, *match.span())
            return (None, HYPHENATED) if unreadable else (forms[0], "")
        by_position = {self.positions[form]: form for form in forms}
        position, why = read(text, *match.span(), list(by_position))
        return (by_position[position], "") if position is not None else (None, why)

    def _replace(self, text: str, found: list[re.Match], words: list[str]) -> str:
        """``text`` with each found word replaced by its word in ``words``, articles made to agree.

        A dropped word ("" placeholder) takes one space beside it, and the word after a dropped
        sentence start is capitalised ("Christian families came." → "Families came."). A plural
        possessive's bare apostrophe takes an s where the new word does not end in one ("The
        Muslims' hall" → "The people's hall", "The girls' room" → "The children's room").
        """
        pieces, at, capitalise = [], 0, False
        for match, word in zip(found, words, strict=True):
            start, end = match.span()
            if not word:
                if text[end : end + 1] == " ":
                    end += 1
                elif start > at and text[start - 1] == " ":
                    start -= 1
            replacement = self._cased(match.group(0), word, text, start)
            if replacement and _plural_possessive(text, match) and replacement[-1] not in "sS":
                replacement += text[end] + ("S" if _all_caps(replacement) else "s")
                end += 1
            following = replacement or _next_word(text, end)
            between = _agreeing_article(text[at:start], following)
            pieces += [_capitalised(between) if capitalise else between, replacement]
            capitalise, at = not word and _starts_sentence(text, match.start()), end
        tail = text[at:]
        return "".join([*pieces, _capitalised(tail) if capitalise else tail])

    def _cased(self, found: str, word: str, text: str, start: int) -> str:
        """``word`` in the case ``found`` was written in, relative to the lexicon's spelling (docs/methods.md §5.5).

        ALL CAPS stays all caps (MUSLIM → HINDU). Lower case where the lexicon writes a capital
        carries over (black → white, muslim → hindu). Any other spelling takes the replacement
        as the lexicon spells it: as spelled (Muslim → person, Muslim → Hindu), and a capital
        the lexicon does not write, a capital of style, is not passed on to a common noun
        ("an Atheist, not a priest" → "a person", "a Christian"). A sentence's first word is
        capitalised (she → The person).
        """
        if _all_caps(found):
            return word.upper()
        lowered = found.islower() and not self._spelling[key(found)].islower()
        cased = word.lower() if lowered else word
        return _capitalised(cased) if _starts_sentence(text, start) else cased

    def _pattern(self, subgroup: str) -> re.Pattern:
        if subgroup not in self._patterns:
            words = sorted({w for words in self.words[subgroup].values() for w in words}, key=len, reverse=True)
            self._patterns[subgroup] = re.compile("|".join(phrase(w) for w in words), re.IGNORECASE)
        return self._patterns[subgroup]


def _next_word(text: str, at: int) -> str:
    """The word after ``at`` on the same line, across spaces only ("" where none follows)."""
    following = _NEXT_WORD.match(text, at)
    return following.group(1) if following else ""


def _capitalised(text: str) -> str:
    return text[:1].upper() + text[1:]


def _all_caps(word: str) -> bool:
    """Written in capitals: two letters or more, all upper case ("MUSLIM", not "I" or "A")."""
    return word.isupper() and sum(c.isalpha() for c in word) > 1


def _plural_possessive(text: str, found: re.Match) -> bool:
    """A bare apostrophe after the found word in -s marks a plural possessive ("Muslims' hall", "Hindus’ homes").

    Not an apostrophe before a letter ("'s", "'re"), nor one that closes a quote opened on its
    line ("'Muslims' is a word").
    """
    end = found.end()
    return (
        found.group(0)[-1] in "sS"
        and text[end : end + 1] in _APOSTROPHES
        and not text[end + 1 : end + 2].isalpha()
        and not _quote_open(text, end)
    )


def _quote_open(text: str, at: int) -> bool:
    """Whether a single quote opened earlier on ``at``'s line is still open at ``at``.

    A mark opens where it is "‘", or follows no letter or digit and comes before a letter
    ("'Muslims"); it closes where no letter follows; one inside a word ("don't") does neither.
    """
    line, quoted = text.rfind("\n", 0, at) + 1, False
    for mark in _SINGLE_QUOTE.finditer(text, line, at):
        before, after = text[max(line, mark.start() - 1) : mark.start()], text[mark.end() : mark.end() + 1]
        if mark.group(0) == "‘" or (not before.isalnum() and after.isalpha()):
            quoted = True
        elif not after.isalpha():
            quoted = False
    return quoted


def _agreeing_article(before: str, following: str) -> str:
    """``before`` with an "a" or "an" at its end made to agree with ``following``, the word after it."""
    article = _ARTICLE_BEFORE.search(before)
    if not article or not following:
        return before
    agreeing = indefinite_article(following)
    if (article.group(1).isupper() and len(article.group(1)) > 1) or (following.isupper() and len(following) > 1):
        agreeing = agreeing.upper()
    else:
        agreeing = match_case(article.group(1), agreeing)
    return before[: article.start()] + agreeing + article.group(2)


def _starts_sentence(text: str, start: int) -> bool:
    before = text[:start].rstrip()
    return not before or before[-1] in '.!?\n"“‘'


class IdentityLexicon:
    """Every axis's :class:`AxisLexicon`, read and checked from a lexicon file."""

    def __init__(self, axes: dict[str, AxisLexicon], source: str):
        self.axes, self.source = axes, source

    @classmethod
    def from_file(cls, path: str | Path) -> IdentityLexicon:
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
        raise BiasflowError(
            f"{where}: unknown key(s) {', '.join(sorted(unknown))}; allowed: {', '.join(sorted(_AXIS_KEYS))}."
        )
    words = {
        str(subgroup): _forms(f"{where}, subgroup {subgroup}", forms) for subgroup, forms in entry["subgroups"].items()
    }
    reserved = sorted(set(words) & {NEUTRAL, UNSWAPPABLE})
    if reserved:
        raise BiasflowError(
            f"{where}: {', '.join(reserved)} names a variant, not a subgroup; rename that subgroup "
            "(here and in subgroup_map)."
        )
    neutral = entry.get("neutral")
    if not isinstance(neutral, dict) or not all(v is None or isinstance(v, str) for v in neutral.values()):
        raise BiasflowError(
            f'{where}: needs `neutral:` with one placeholder word per form ("" drops the word, null: the form '
            "has no neutral word)."
        )
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
    positions = _positions(where, entry.get("positions", {}), forms)
    for subgroup, by_form in words.items():
        _check_shared_words(f"{where}, subgroup {subgroup}", by_form, positions)
    no_neutral = _no_neutral(where, entry.get("no_neutral", {}), words)
    return AxisLexicon(axis, words, dict(neutral), positions, no_neutral)


def _no_neutral(where: str, given, words: dict[str, dict[str, tuple[str, ...]]]) -> dict[str, frozenset[str]]:
    """The lexicon's ``no_neutral:`` checked: subgroups of the axis, each with forms it has."""
    if not isinstance(given, dict) or not all(isinstance(forms, list) for forms in given.values()):
        raise BiasflowError(
            f"{where}: `no_neutral:` maps a subgroup to its forms whose neutral word would change the meaning, "
            "e.g. {atheist: [faith]}."
        )
    for subgroup, forms in given.items():
        if subgroup not in words:
            raise BiasflowError(f"{where}: no_neutral names {subgroup!r}, not one of its subgroups.")
        unknown = sorted(set(map(str, forms)) - set(words[subgroup]))
        if unknown:
            raise BiasflowError(f"{where}: no_neutral gives {subgroup} form(s) {', '.join(unknown)} it does not have.")
    return {str(subgroup): frozenset(map(str, forms)) for subgroup, forms in given.items()}


def _positions(where: str, positions, forms: set[str]) -> dict[str, str]:
    """The lexicon's ``positions:`` checked: forms of the axis, each read in one of :data:`POSITIONS`."""
    if not isinstance(positions, dict):
        raise BiasflowError(
            f"{where}: `positions:` maps a form to where it is read, e.g. "
            "{adjective: before_a_noun, noun: as_a_noun, predicative: after_a_copula}."
        )
    for form, position in positions.items():
        if form not in forms:
            raise BiasflowError(
                f"{where}: positions names {form!r}, not one of its forms ({', '.join(sorted(forms))})."
            )
        if position not in POSITIONS:
            raise BiasflowError(f"{where}: position {position!r} of form {form} is not one of {', '.join(POSITIONS)}.")
    return {str(form): position for form, position in positions.items()}


def _check_shared_words(where: str, by_form: dict[str, tuple[str, ...]], positions: dict[str, str]) -> None:
    """A word listed under several forms must be read in a different position as each, or its form is unknown."""
    read_in: dict[tuple[str, str], str] = {}
    for form, listed in by_form.items():
        position = positions.get(form, ELSEWHERE)
        for word in {key(w) for w in listed}:
            other = read_in.setdefault((word, position), form)
            if other != form:
                raise BiasflowError(
                    f"{where}: {word!r} is listed under {other} and {form}, both read {position}; give one of "
                    "the two forms another position under `positions:` ("
                    + ", ".join(POSITIONS[:-1])
                    + "), or list the word under one form."
                )


def _forms(where: str, forms) -> dict[str, tuple[str, ...]]:
    if not isinstance(forms, dict) or not forms:
        raise BiasflowError(f"{where}: needs its words by form, e.g. {{noun: woman, plural: [women, ladies]}}.")
    out = {}
    for form, words in forms.items():
        words = [words] if isinstance(words, str) else words
        if not isinstance(words, list) or not words or not all(isinstance(w, str) and w.strip() for w in words):
            raise BiasflowError(
                f"{where}, form {form}: give a word or a list of words, got {words!r}; quote words "
                "YAML reads as booleans."
            )
        out[str(form)] = tuple(w.strip() for w in words)
    return out
