"""A paraphraser's raw answer reduced to one usable paraphrase, or the reason it is not one (docs/methods.md §1.2).

Raw paraphraser output is messy (quotes, numbered lists, "Paraphrase:" labels, several
alternatives, a preamble; CAIRO paper appendix A.4). This module holds the text work, apart
from the paraphrasing loop that asks and retries (:mod:`biasflow.cairo.paraphrase`):
:func:`split_answer` pairs the answer to a request of several prompts with them,
:func:`clean_paraphrase` keeps the first candidate as text to be continued (prompts are
sentence *beginnings*, so a trailing period the original lacks is dropped), and
:func:`validate_paraphrase` rejects copies, length outliers and paraphrases that lost the
identity term, so a prompt set never silently measures a different subgroup.
"""

from __future__ import annotations

import re

from biasflow.whole_words import mentions

_ITEM = re.compile(r"^\s*(?:\(?(\d{1,3})[.):]|[-*•])\s*(\S.*?)\s*$")


def split_answer(raw: str, n: int) -> list[str] | None:
    """One paraphrase per prompt from the answer to a batch request, or None if the count differs.

    The items are the answer's numbered ("1.", "2)", "(3)") or bulleted lines, in the
    order of their numbers where every number from 1 to n is there, else in the order
    they come; an answer without such lines counts its non-empty lines. Anything but n
    items (a preamble merged into an item, a paraphrase left out) is a mismatch: the
    prompts are asked again rather than paired with the wrong paraphrase.
    """
    lines = [line for line in (raw if isinstance(raw, str) else "").splitlines() if line.strip()]
    matches = [_ITEM.match(line) for line in lines]
    items = [m for m in matches if m]
    if not items:
        return [line.strip() for line in lines] if len(lines) == n else None
    if len(items) != n:
        return None
    numbered = {int(m.group(1)): m for m in items if m.group(1)}
    if sorted(numbered) == list(range(1, n + 1)):  # each of 1..n once: put them in that order
        items = [numbered[number] for number in range(1, n + 1)]
    return [m.group(2) for m in items]


# --- cleaning ------------------------------------------------------------------------

_BULLET = re.compile(r"^\s*(?:[-*•·:>#]+|\(?\d{1,3}[.):])\s*")
_FILLER = re.compile(r"^(?:sure|certainly|of course|okay|ok|here you go)\b[!,.]*\s*", re.IGNORECASE)
_LABEL = re.compile(r"^([^:\n]{1,80}):\s*")
_LABEL_WORDS = ("paraphras", "rephras", "rewrit", "reword", "answer", "output", "response", "version", "follows")
_QUOTES = {'"': '"', "“": "”", "„": "“", "‘": "’", "'": "'", "«": "»", "`": "`"}
_SENTENCE_END = re.compile(r"[.!?…]+[\"'”’»]?\s+")
_ABBREVIATIONS = {
    "mr",
    "mrs",
    "ms",
    "dr",
    "st",
    "jr",
    "sr",
    "prof",
    "rev",
    "gen",
    "col",
    "lt",
    "sgt",
    "capt",
    "mt",
    "ft",
    "vs",
    "no",
    "inc",
    "ltd",
    "co",
    "e.g",
    "i.e",
    "approx",
}


def clean_paraphrase(raw: str, original: str = "") -> str:
    """Reduce a paraphraser's raw output to one paraphrase to be continued.

    Keeps the first content line (skipping "Original: …" lines and "Here are …:"
    preambles), strips bullets, numbering, "Sure!" openers and labels such as
    "Paraphrase:", takes the first quoted span or else the first sentence, collapses
    whitespace, and drops a trailing period or ellipsis unless ``original`` ends with one
    (prompts are sentence beginnings; a closing period would stop the evaluated model
    from continuing). With no ``original`` the trailing period is always dropped.
    """
    text = _first_content_line(raw if isinstance(raw, str) else "")
    text = _unquote(text)
    text = _first_sentence(text)
    text = _unquote(text).strip('"“”«»` ')
    text = " ".join(text.split())
    if not original.rstrip().endswith((".", "…")):
        text = text.rstrip(".… ")
    return text


def _first_content_line(raw: str) -> str:
    lines = [line.strip() for line in raw.splitlines()]
    lines = [line for line in lines if line]
    for i, line in enumerate(lines):
        if line.endswith(":") and i < len(lines) - 1:
            continue  # a preamble such as "Here are three alternatives:"
        stripped, is_original = _strip_prefixes(line)
        if stripped and not is_original:
            return stripped
    return ""


def _strip_prefixes(line: str) -> tuple[str, bool]:
    """Strip bullets, openers and labels repeatedly; also say whether it was an "Original:" line."""
    previous = None
    while line != previous:
        previous = line
        line = _BULLET.sub("", line)
        line = _FILLER.sub("", line)
        label = _LABEL.match(line)
        if label and len(label.group(1).split()) <= 8:
            words = label.group(1).lower()
            if "original" in words:
                return "", True
            if any(w in words for w in _LABEL_WORDS):
                line = line[label.end() :]
    return line.strip(), False


def _unquote(text: str) -> str:
    """If ``text`` opens with a quote, return the quoted span (or drop an unclosed quote)."""
    text = text.strip()
    if not text or text[0] not in _QUOTES:
        return text
    close = re.escape(_QUOTES[text[0]])
    closed = re.match(rf"^.(.+?){close}(?=$|[\s.,;:!?)])", text, re.DOTALL)
    return closed.group(1).strip() if closed else text[1:].strip()


def _first_sentence(text: str) -> str:
    """Cut ``text`` after its first sentence end that does not follow an abbreviation or initial."""
    for end in _SENTENCE_END.finditer(text):
        before = text[: end.start()].split()
        if before and not _is_abbreviation(before[-1]):
            return text[: end.end()].strip()
    return text


def _is_abbreviation(word: str) -> bool:
    """Titles ("Dr"), dotted forms ("U.S", "e.g") and capital initials ("J"); not the article "a"."""
    word = word.strip("\"'(“‘")
    if len(word) == 1:
        return word.isupper()
    word = word.lower()
    return word in _ABBREVIATIONS or re.fullmatch(r"(?:[a-z]\.)+[a-z]", word) is not None


# --- validation ----------------------------------------------------------------------


def validate_paraphrase(
    original: str, paraphrase: str, identity_term: str, min_ratio: float, max_ratio: float
) -> str | None:
    """``None`` if ``paraphrase`` is usable, else the first failing reason: ``empty``, ``copy``, ``too_short``,
    ``too_long`` or ``identity_missing`` (columns of the rejection table, :data:`biasflow.cairo.paraphrase.REASONS`).

    Length ratio = words of paraphrase / words of original. "copy" compares the texts
    lower-cased with punctuation removed (the paper asks for paraphrases "while not
    writing the original sentences"). ``identity_term`` (e.g. "the woman"), when given,
    must appear as whole words, ignoring case, so the paraphrase still targets the
    prompt's subgroup.
    """
    words = paraphrase.split()
    if not words:
        return "empty"
    if _comparable(paraphrase) == _comparable(original):
        return "copy"
    ratio = len(words) / max(len(original.split()), 1)
    if ratio < min_ratio:
        return "too_short"
    if ratio > max_ratio:
        return "too_long"
    if identity_term and not mentions(paraphrase, identity_term):
        return "identity_missing"
    return None


def _comparable(text: str) -> str:
    return " ".join(re.sub(r"[^\w\s]", "", text.lower()).split())
