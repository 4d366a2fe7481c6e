"""Where a group word stands in its sentence: the syntactic role its neighbouring words give it.

docs/methods.md §5.5. The identity lexicon lists a word under several forms where one
spelling serves several roles ("Christian": adjective, noun, predicative; "her": determiner,
object), and a swap must keep the role, since the other subgroups' and the neutral words
differ by role ("Jewish", "Jew"; "", "person", and none for a predicate). The role is read
from the words around the mention, with no parser, by closed word lists and a few rules of
agreement:

- ``before_a_noun``: a word follows that can begin the noun it qualifies ("a Christian
  woman", "Christian schools", "her book"), not a word of a closed class (conjunction,
  preposition, pronoun, auxiliary, determiner, adverb of time or place: "a Christian and",
  "became Christian last year"), a known verb, a past form ("the Christian prayed"), an
  adverb in -ly, or a verb in -s that agreement shows ("Every Christian deserves", "The
  Muslim sings.": a singular determiner cannot head a plural noun, and a sentence needs its
  verb);
- ``as_a_noun``: it heads a noun phrase: a determiner or quantifier stands right before it,
  or one word before that ("every Christian", "a devout Christian"; a past form only right
  after the determiner: "a committed Christian", not "The photo showed Caucasian faces"),
  or a possessive 's follows;
- ``after_a_copula``: a copular or change-of-state verb stands before it, with at most
  ungrading words between ("is Christian", "became Christian", "remains Muslim", "is no
  longer Hindu", "identifies as atheist"); a word with a form read here is an adjective,
  which a degree word can grade (a determiner such as "her" cannot);
- ``elsewhere``: always holds (a form read wherever no other one is, "saw her.").

A mention can also be unreadable: a word followed by a form in -s that can be a plural noun
or a verb where nothing tells which ("I think the Christian schools teach"), a word graded
by a degree word ("very Christian", "a deeply Muslim town": no neutral placeholder takes a
degree), a word joined by a hyphen to another ("Christian-owned", "anti-Muslim": the
neutral form would leave half a compound), or a word that none of its forms' positions fits.
Such a mention cannot be swapped grammatically, and its text is left out (§5.5). The reading
looks only at the context and at which positions the word's forms take, never at the word
itself, so contents identical but for the group word are read alike.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import NamedTuple

BEFORE_A_NOUN, AS_A_NOUN, AFTER_A_COPULA, ELSEWHERE = "before_a_noun", "as_a_noun", "after_a_copula", "elsewhere"
# Where a word stands, in the order they are tried.
POSITIONS = (BEFORE_A_NOUN, AS_A_NOUN, AFTER_A_COPULA, ELSEWHERE)

# Why a mention cannot be read (the log counts them by these).
HYPHENATED = "joined by a hyphen to another word"
GRADED = "graded by a degree word"
NOUN_OR_VERB = "followed by a word in -s that may be a plural noun or a verb"
NO_ROLE = "in no position its forms take"

_TOKEN = r"[^\W\d_]+(?:['’][^\W\d_]+)*"
_WORD_BEFORE = re.compile(rf"({_TOKEN})[^\S\n]+$")
_WORD_AFTER = re.compile(rf"[^\S\n]+({_TOKEN})")
_POSSESSIVE = re.compile(r"['’]s(?!\w)")
# How far back a window reaches for the words before a mention (three words and their spaces).
_WINDOW = 120


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


# Determiners and quantifiers by the number of the noun they take.
SINGULAR = _words("a an every each another either neither this that one")
PLURAL = _words("these those many few several both all various numerous")
EITHER_NUMBER = _words("the no any some my your his her its our their whose which what")
DETERMINERS = SINGULAR | PLURAL | EITHER_NUMBER
# Closed classes that never begin the noun a word before them qualifies: conjunctions, auxiliaries,
# negation, relative and question words, prepositions, pronouns, adverbs of time, place and degree.
_CONJUNCTIONS = _words(
    "and or but nor so yet because although though while whereas unless if when whenever where "
    "wherever whether since until till once than as lest"
)
_AUXILIARIES = _words(
    "is are was were be been being am has have had having will would can could may might must "
    "shall should do does did not never isn't aren't wasn't weren't don't doesn't didn't won't "
    "can't cannot couldn't wouldn't shouldn't hasn't haven't hadn't"
)
_PREPOSITIONS = _words(
    "at by for from in into of on onto to with without about above across after against along "
    "amid among around before behind below beneath beside besides between beyond despite down "
    "during except inside like near off outside over through throughout toward towards under "
    "underneath unlike up upon versus via within"
)
_PRONOUNS = _words(
    "i you he she we they it me him us them myself yourself himself herself itself ourselves "
    "yourselves themselves who whom whose which what that how why"
)
_ADVERBS = _words(
    "yesterday today tonight tomorrow again there here now then too also always never once later "
    "soon already still just ever ago earlier afterwards afterward overnight anymore anyway instead "
    "abroad enough else even almost rather quite longer nowadays sometimes often altogether twice"
)
# "last" and "next" before one of these, or ending the clause, make a time or place ("became Christian last
# year", "the Christian next door", "saw her last."); before another word they qualify a noun ("her last book").
_ADVERBIAL_BEFORE = _words("last next")
_TIME_OR_PLACE = _words(
    "year week month night time summer winter spring autumn fall weekend day morning evening "
    "century decade season semester term door"
)
CLOSED = _CONJUNCTIONS | _AUXILIARIES | _PREPOSITIONS | _PRONOUNS | _ADVERBS
# Finite verbs that are seldom nouns ("lives", "works", "thought" are left out: "Christian lives").
VERBS = _words(
    "said says told tells asked asks went goes came comes brought brings took takes made makes gave gives got gets "
    "saw sees knew knows felt feels kept keeps found finds wrote writes spoke speaks became becomes began begins "
    "prays believes sings sang sits sat stood eats ate drinks drank sleeps slept fought teaches taught preaches "
    "thinks wants likes loves hates deserves seems seemed remains tries lets worships celebrates attends argues "
    "insists agrees refuses explains remembers considers decides prefers enjoys owns wears wore dies died lied "
    "owes owed meets met left holds held hears heard meant sends sent spends spent builds built pays paid buys "
    "bought sells sold led wins won loses lost fell grows grew throws threw drew drives drove rode chooses chose "
    "broke forgets forgot hid shook woke dwells resides kneels knelt wept ran"
)
# Copular and change-of-state verbs, in their inflected forms, and the words that make the next word a
# predicate as they do ("born", "raised", "as": "identifies as atheist"); a contraction of "be" counts too.
COPULAS = _words(
    "be am is are was were been being isn't aren't wasn't weren't ain't become becomes became becoming remain "
    "remains remained remaining seem seems seemed seeming turn turns turned turning get gets got gotten getting "
    "grow grows grew grown growing stay stays stayed staying appear appears appeared look looks looked feel feels "
    "felt sound sounds sounded prove proves proved proven born raised as"
)
_BE_CONTRACTED = ("'m", "'re", "'s")
_CONTRACTING_PRONOUNS = _words("i you he she it we they that who what there here everyone everybody someone")
# Words that may stand between a copula and its predicate without grading it ("is not", "turned out").
_UNGRADING = _words(
    "not never still also always now once all both t indeed then again already even only just "
    "longer no ever yet out up soon officially"
)
# Degree words: "very Christian" has no neutral form ("very a person", "a very family").
_DEGREE = _words("very quite so too rather somewhat almost fairly extremely")
_COMPARATIVES = _words("more most less least")
# Words in -ly of five letters or more that are not adverbs ("a Christian family", "an elderly Muslim").
_LY_NOT_ADVERBS = _words(
    "family assembly rally supply reply bully belly jelly folly monopoly anomaly homily daily weekly monthly "
    "yearly quarterly italy sally emily kelly molly billy holly polly elderly friendly lovely lonely lively likely "
    "unlikely costly deadly silly curly orderly manly womanly kindly worldly godly ungodly scholarly fatherly "
    "motherly brotherly sisterly neighbourly neighborly cowardly burly hilly chilly smelly jolly surly comely "
    "homely stately timely untimely beastly ghostly heavenly saintly sickly leisurely lowly bodily oily woolly "
    "prickly butterfly dragonfly firefly melancholy"
)
# Singular nouns in -s, and other words in -s that are no verbs.
_NOT_VERBS_IN_S = _words(
    "news series species means gas lens atlas bias chaos ethos pathos canvas alias summons "
    "this his its yes thus perhaps always sometimes afterwards towards besides whereas"
)
# Words after which a determiner begins a clause's subject.
_CLAUSE_OPENERS = _words("that because when while if although though whereas unless")


class Reading(NamedTuple):
    """Where a mention stands (one of :data:`POSITIONS`), or None with why it cannot be read."""

    position: str | None
    why: str = ""


def hyphenated(text: str, start: int, end: int) -> bool:
    """Whether the word ``text[start:end]`` is joined by a hyphen to a word before or after it."""
    after = text[end : end + 2]
    before = text[max(0, start - 2) : start]
    return (len(after) == 2 and after[0] == "-" and after[1].isalpha()) or (
        len(before) == 2 and before[1] == "-" and before[0].isalpha()
    )


def read(text: str, start: int, end: int, positions: Sequence[str]) -> Reading:
    """The first of ``positions`` (in :data:`POSITIONS` order) where the word ``text[start:end]`` stands.

    ``positions`` are those of the word's forms (several where one spelling serves several
    roles). None, with the reason, where the words around cannot say which: see the module's
    docstring. The reading depends on the context and on ``positions`` only.
    """
    if hyphenated(text, start, end):
        return Reading(None, HYPHENATED)
    before, after = _words_before(text, start), _words_after(text, end)
    following = _next_class(text, end, before, after)
    graded = AFTER_A_COPULA in positions and _graded(before, after)  # an adjective, not a determiner ("her")
    for position in sorted(positions, key=POSITIONS.index):
        if position == BEFORE_A_NOUN and following == _NOUN:
            return Reading(None, GRADED) if graded else Reading(position)
        if position == BEFORE_A_NOUN and following == _UNSURE:
            return Reading(None, NOUN_OR_VERB)
        if position == AS_A_NOUN and _heads_a_noun_phrase(text, end, before):
            return Reading(position)
        if position == AFTER_A_COPULA and _after_a_copula(before):
            return Reading(None, GRADED) if graded else Reading(position)
        if position == ELSEWHERE:
            return Reading(position)
    return Reading(None, GRADED if graded else NO_ROLE)


# What the word after a mention is: one that can begin a noun, one that cannot, or one that may be either.
_NOUN, _NOT_A_NOUN, _UNSURE = "noun", "not a noun", "unsure"


def _words_before(text: str, start: int) -> list[tuple[str, int]]:
    """Up to three words before ``start`` in its clause (nearest first, lower case), each with its offset."""
    window_start = max(0, start - _WINDOW)
    segment, at = text[window_start:start], start - window_start
    words: list[tuple[str, int]] = []
    while len(words) < 3:
        found = _WORD_BEFORE.search(segment, 0, at)
        if not found:
            break
        words.append((found.group(1).lower().replace("’", "'"), window_start + found.start(1)))
        at = found.start()
    return words


def _words_after(text: str, end: int) -> list[str]:
    """Up to two words after ``end`` in its clause, across spaces only (lower case)."""
    words: list[str] = []
    at = end
    while len(words) < 2:
        found = _WORD_AFTER.match(text, at)
        if not found:
            break
        words.append(found.group(1).lower().replace("’", "'"))
        at = found.end()
    return words


def _next_class(text: str, end: int, before: list[tuple[str, int]], after: list[str]) -> str:
    """Whether the word after the mention can begin the noun it qualifies (:data:`_NOUN` ...)."""
    if not after or _POSSESSIVE.match(text, end):
        return _NOT_A_NOUN
    word = after[0]
    if (
        word in CLOSED
        or (word in DETERMINERS and word != "one")
        or word in VERBS
        or _past(word)
        or _ly_adverb(word)
        or word.endswith(("n't", "'ll", "'d"))
        or (word in _ADVERBIAL_BEFORE and (len(after) == 1 or after[1] in _TIME_OR_PLACE))
    ):
        return _NOT_A_NOUN
    if not _in_s(word):
        return _NOUN
    determiner = _determiner(before)
    if determiner is None or determiner[0] in PLURAL:
        return _NOUN  # "Christian schools", "these Christian schools"
    if determiner[0] in SINGULAR:
        return _NOT_A_NOUN  # "Every Christian deserves": a singular phrase's verb
    # "the", "no", "my" ...: the noun phrase may be plural ("the Christian schools") or its head the word.
    third = after[1] if len(after) == 2 else None  # None: the clause ends after the word in -s
    if third is not None and (third in _AUXILIARIES or third in VERBS or _past(third)):
        return _NOUN  # "The Christian schools are closed", "the Christian groups met"
    if _starts_clause(text, determiner[1], before):
        if third is None or third in DETERMINERS or third in _PRONOUNS or _ly_adverb(third):
            return _NOT_A_NOUN  # "The Muslim sings.", "The Muslim sings a song", "The Muslim sings loudly"
    elif third is None or third in _PREPOSITIONS or third in _CONJUNCTIONS or third in _ADVERBS:
        return _NOUN  # "I visited the Christian schools.", "... the Christian schools in town"
    return _UNSURE


def _determiner(before: list[tuple[str, int]]) -> tuple[str, int] | None:
    """The determiner of the mention's noun phrase: right before it, or before one or two qualifying words.

    The word right before the mention qualifies it ("a devout Christian", "a committed
    Christian"; not a verb: "This remained Christian"); a word before that may also grade it
    ("the most successful female"). A past form qualifies right after the determiner only:
    after another word it is the verb of a clause ("The photo showed Caucasian faces").
    """
    for at, (word, _) in enumerate(before):
        if word in DETERMINERS:
            return before[at]
        grades = at > 0 and (word in _DEGREE or word in _COMPARATIVES)
        after_determiner = at + 1 < len(before) and before[at + 1][0] in DETERMINERS
        if not ((_qualifies(word) and (after_determiner or not _past(word))) or grades):
            return None
    return None


def _qualifies(word: str) -> bool:
    """Whether ``word`` can stand between a determiner and a noun ("a devout Christian", "a committed Christian")."""
    return not (
        word in CLOSED
        or word in DETERMINERS
        or word in COPULAS
        or word in VERBS
        or word in _DEGREE
        or word in _COMPARATIVES
        or _ly_adverb(word)
    )


def _starts_clause(text: str, offset: int, before: list[tuple[str, int]]) -> bool:
    """Whether the word at ``offset`` begins a sentence or a clause (after "that", "because" ...): a subject."""
    earlier = [word for word, at in before if at < offset]
    if earlier:
        return earlier[0] in _CLAUSE_OPENERS
    preceding = text[:offset].rstrip()
    return not preceding or preceding[-1] in '.!?;:\n"“'


def _heads_a_noun_phrase(text: str, end: int, before: list[tuple[str, int]]) -> bool:
    """A possessive 's follows, or a determiner that can take one noun stands before it (:func:`_determiner`)."""
    if _POSSESSIVE.match(text, end):
        return True
    determiner = _determiner(before)
    return determiner is not None and determiner[0] not in PLURAL


def _after_a_copula(before: list[tuple[str, int]]) -> bool:
    """A copula (:data:`COPULAS`, or "I'm", "they're") before it, past ungrading and degree words only."""
    for word, _ in before:
        if word in COPULAS or (word.endswith(_BE_CONTRACTED) and word.rsplit("'", 1)[0] in _CONTRACTING_PRONOUNS):
            return True
        if not (word in _UNGRADING or word in _DEGREE or word in _COMPARATIVES or _ly_adverb(word)):
            return False
    return False


def _graded(before: list[tuple[str, int]], after: list[str]) -> bool:
    """A degree word right before it ("very", "deeply", "the most", "is more"), or "as Christian as"."""
    if not before:
        return False
    word = before[0][0]
    if word in _DEGREE or _ly_adverb(word):
        return True
    if word in _COMPARATIVES:  # "most Christian churches" counts them; "the most Christian", "is more Christian" grade
        return len(before) >= 2 and (before[1][0] in DETERMINERS or before[1][0] in COPULAS)
    return word == "as" and after[:1] == ["as"]


def _past(word: str) -> bool:
    """A regular past form: five letters or more in -ed, not -eed ("prayed", not "seed" or "red")."""
    return len(word) >= 5 and word.endswith("ed") and not word.endswith("eed")


def _ly_adverb(word: str) -> bool:
    return len(word) >= 5 and word.endswith("ly") and word not in _LY_NOT_ADVERBS


def _in_s(word: str) -> bool:
    """A plural noun or a verb of the third person: in -s, not -ss, -us, -is, 's, nor a word listed as neither."""
    return (
        len(word) >= 4
        and word.endswith("s")
        and not word.endswith(("ss", "us", "is", "'s"))
        and word not in _NOT_VERBS_IN_S
    )
