"""Template probes for group FPR gaps (docs/methods.md §3.1).

A probe sample is one sentiment template filled with one identity term; its gold label
is the template's, so any change in a classifier's prediction across groups is an error
attributable to the group. Three readers feed :func:`expand`:

* :func:`load_templates` reads templates in the format of Czarnowska et al. (2021,
  "generalized-fairness-metrics"): a CSV with ``TEMPLATE`` and ``SENT`` (0 negative,
  1 neutral, 2 positive) plus, when present, ``DOMAIN`` and ``NER``, which are carried
  along unused. NS-Prompts-style occupation descriptions and Regard-style sentences are
  stored in the same format, so one reader serves all three probe families.
* :func:`load_identity_terms` reads the identity lexicon (``attribute, group, term, np``).
* :func:`load_labelled` reads a small labelled sentiment set (``text, label``) used for
  k-shot demonstrations and tuning.

Placeholders (``{name}`` inside a template):

* ``{identity_adj}`` / ``{<attribute>_adj}`` (e.g. ``{race_adj}``): the term's
  adjective form ("Asian"); ``{identity_np}`` / ``{<attribute>_np}``: its noun phrase
  ("Asian person"). ``identity`` is the generic form usable for any attribute; a
  template naming a *different* attribute (``{age_adj}`` while expanding race) or any
  placeholder this module does not fill is not used for the attribute.
* A capital first letter (``{Identity_adj}``, ``{Race_np}``) capitalises the filled value,
  for slots at the start of a sentence.
* ``{a:identity_np}`` (or ``{A:...}``) prefixes the indefinite article chosen for the
  filled value ("an Asian person", "a Black person").
* A literal article written directly before a slot ("A {race_adj} cartoonist") is
  corrected to agree with the filled value ("An Asian cartoonist"), because templates are
  written once for every term.

Unmarked variants (the markedness comparison of docs/methods.md §3.5): templates refer to every
group explicitly, while ordinary text leaves the default group unstated (paper 004,
§5.1). For a template whose identity slots can all be dropped, :func:`expand` also
emits the sentence without them (group :data:`~biasflow.fpr.predictions.UNMARKED`, ``marked`` False), so each
group's FPR can be compared with the unmarked sentence's. A slot is droppable only when
dropping it leaves a grammatical sentence with the same referent, which this module
approximates by a purely lexical rule:

1. it is an adjective slot (``_adj``, no ``a:`` prefix) — a noun phrase slot is the
   head of its phrase and cannot be removed;
2. it directly follows a determiner (a, an, the, this, that, every, each, my, our, your,
   his, her, their, one, some, any, no) — so the slot modifies a noun phrase rather than
   standing alone ("about {race_adj} culture" is not dropped, since "about culture"
   changes what is talked about);
3. it is followed by a single space and a lowercase word that is not a function word —
   the noun it modifies ("a {race_adj} cartoonist", not "is {race_adj} and").

Dropping removes the slot and one space and re-chooses a preceding a/an for the next
word ("An {identity_adj} engineer" → "An engineer", "A {race_adj} engineer" → "An
engineer"). Templates with any non-droppable slot get no unmarked variant.
"""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd

from biasflow.errors import BiasflowError
from biasflow.fpr.predictions import UNMARKED
from biasflow.hashing import stable_hash
from biasflow.schema import choices

__all__ = [
    "PROBE_SAMPLE_COLUMNS",
    "expand",
    "load_identity_terms",
    "load_labelled",
    "load_templates",
    "probe_samples",
]

PROBE_SAMPLE_COLUMNS = ["text", "y_true", "category", "group", "template_id", "marked"]

TEMPLATE_COLUMNS = ("TEMPLATE", "SENT")
OPTIONAL_TEMPLATE_COLUMNS = ("DOMAIN", "NER")
TERM_COLUMNS = ("attribute", "group", "term", "np")
LABELLED_COLUMNS = ("text", "label")

# {name}, {a:name} or {A:name}; name is <something>_adj or <something>_np, or anything
# else (which this module does not fill, so the template is skipped).
_PLACEHOLDER = re.compile(r"\{(?:(?P<article>[aA]):)?(?P<name>[^{}:]+)\}")
_SLOT_NAME = re.compile(r"^(?P<attr>[A-Za-z][A-Za-z-]*)_(?P<form>adj|np)$")
_DETERMINERS = frozenset(
    [
        "a",
        "an",
        "the",
        "this",
        "that",
        "every",
        "each",
        "my",
        "our",
        "your",
        "his",
        "her",
        "their",
        "one",
        "some",
        "any",
        "no",
    ]
)
_FUNCTION_WORDS = frozenset(
    [
        "and",
        "or",
        "but",
        "nor",
        "so",
        "yet",
        "to",
        "of",
        "in",
        "on",
        "at",
        "by",
        "for",
        "with",
        "from",
        "as",
        "than",
        "then",
        "is",
        "are",
        "was",
        "were",
        "be",
        "been",
        "being",
        "am",
        "has",
        "have",
        "had",
        "do",
        "does",
        "did",
        "will",
        "would",
        "can",
        "could",
        "should",
        "may",
        "might",
        "must",
        "shall",
        "who",
        "whom",
        "whose",
        "which",
        "that",
        "this",
        "these",
        "those",
        "it",
        "its",
        "he",
        "she",
        "they",
        "we",
        "you",
        "i",
        "not",
        "very",
        "too",
        "also",
        "just",
    ]
)
# Words whose spelling misleads the vowel rule for a/an.
_AN_EXCEPTIONS = ("hour", "honest", "honor", "honour", "heir")
_A_EXCEPTIONS = ("uni", "use", "usu", "ute", "one", "once", "euro", "eu")
_TRAILING_ARTICLE = re.compile(r"(?:(?<=[^\w])|^)(?P<art>[aA]n?)(?P<space>\s+)$")


def load_templates(path: str | Path) -> pd.DataFrame:
    """Templates in the Czarnowska et al. format, checked, one row per distinct template.

    Returns columns ``TEMPLATE``, ``SENT`` (int 0-2), ``DOMAIN``, ``NER`` (empty strings
    where the file lacks them). Rows repeating an earlier TEMPLATE with the same SENT are
    dropped so that no sentence counts twice in a group's FPR; the same TEMPLATE with two
    different labels is an error because its gold label would be ambiguous.
    """
    path = Path(path)
    frame = _read_csv(path, TEMPLATE_COLUMNS)
    for column in OPTIONAL_TEMPLATE_COLUMNS:
        if column not in frame.columns:
            frame[column] = ""
    frame = frame[list(TEMPLATE_COLUMNS + OPTIONAL_TEMPLATE_COLUMNS)].fillna("")
    frame["TEMPLATE"] = frame["TEMPLATE"].astype(str).str.strip()
    for index, template in frame["TEMPLATE"].items():
        if not template:
            raise BiasflowError(f"{path}: column TEMPLATE is empty on line {index + 2}; every row needs a template.")
    frame["SENT"] = _labels(frame["SENT"], path, "SENT")
    seen: dict[str, int] = {}
    keep = []
    for index, (template, label) in enumerate(zip(frame["TEMPLATE"], frame["SENT"], strict=True)):
        if template in seen and seen[template] != label:
            raise BiasflowError(
                f"{path}: template on line {index + 2} repeats an earlier one with SENT {seen[template]} "
                f"but has SENT {label}; keep one label per template."
            )
        keep.append(template not in seen)
        seen.setdefault(template, label)
    return frame[keep].reset_index(drop=True)


def load_identity_terms(path: str | Path) -> pd.DataFrame:
    """The identity lexicon: one row per term, columns ``attribute, group, term, np``.

    ``term`` is the adjective form ("Asian", "middle-aged") and ``np`` a noun phrase
    naming a person of the group ("Asian person", "middle-aged person"). A group may
    have several terms (their samples are pooled in the group's FPR). Every cell must be
    filled and a term may appear only once per attribute, since duplicate samples would
    weight that term twice.
    """
    path = Path(path)
    frame = _read_csv(path, TERM_COLUMNS)[list(TERM_COLUMNS)]
    for column in TERM_COLUMNS:
        for index, value in frame[column].items():
            if pd.isna(value) or not str(value).strip():
                raise BiasflowError(f"{path}: column {column} is empty on line {index + 2}; fill it in.")
    frame = frame.astype(str).apply(lambda column: column.str.strip())
    duplicated = frame.duplicated(["attribute", "term"])
    if duplicated.any():
        index = int(duplicated.idxmax())
        raise BiasflowError(
            f"{path}: term {frame.at[index, 'term']!r} of attribute {frame.at[index, 'attribute']!r} "
            f"appears again on line {index + 2}; list each term once."
        )
    return frame.reset_index(drop=True)


def load_labelled(path: str | Path, format: str) -> pd.DataFrame:
    """A labelled sentiment set (``text``, ``label`` 0/1/2) for demonstrations and tuning.

    ``format``: ``ternary`` (CSV ``text,label`` with labels 0/1/2, our bundled set);
    ``sst5`` (CSV or TSV ``text,label`` with SST-5's five labels 0-4, collapsed as paper 004,
    section 3.3 does: 0-1 negative, 2 neutral, 3-4 positive); ``semeval2018`` (the official
    SemEval-2018 Task 1 V-oc TSV, columns ``Tweet`` and ``Intensity Class`` such as
    "-2: moderately negative ...", mapped as paper 004, section 3.4: -3..-2 negative,
    -1..1 neutral, 2..3 positive).
    """
    path = Path(path)
    if format not in choices("fpr.labelled_format"):
        raise BiasflowError(
            f"unknown labelled-set format {format!r}; use one of {', '.join(choices('fpr.labelled_format'))}."
        )
    if format == "semeval2018":
        frame = _read_semeval(path)
    else:
        frame = _read_csv(path, LABELLED_COLUMNS)[list(LABELLED_COLUMNS)]
        if format == "sst5":
            frame["label"] = _collapse(frame["label"], path, {0: 0, 1: 0, 2: 1, 3: 2, 4: 2}, "SST-5 labels 0-4")
    for index, text in frame["text"].items():
        if pd.isna(text) or not str(text).strip():
            raise BiasflowError(f"{path}: column text is empty on line {index + 2}; every row needs a sentence.")
    frame["text"] = frame["text"].astype(str).str.strip()
    frame["label"] = _labels(frame["label"], path, "label")
    return frame.reset_index(drop=True)


def _read_semeval(path: Path) -> pd.DataFrame:
    if not path.is_file():
        raise BiasflowError(f"labelled set not found: {path}.")
    raw = pd.read_csv(path, sep="\t", dtype=str)
    missing = [c for c in ("Tweet", "Intensity Class") if c not in raw.columns]
    if missing:
        raise BiasflowError(
            f"{path}: SemEval-2018 V-oc files need the columns Tweet and Intensity Class; missing {', '.join(missing)}."
        )
    score = pd.to_numeric(raw["Intensity Class"].str.split(":", n=1).str[0].str.strip(), errors="coerce")
    mapping = {-3: 0, -2: 0, -1: 1, 0: 1, 1: 1, 2: 2, 3: 2}
    return pd.DataFrame({"text": raw["Tweet"], "label": _collapse(score, path, mapping, "intensity classes -3..3")})


def _collapse(values: pd.Series, path: Path, mapping: dict[int, int], expected: str) -> pd.Series:
    numbers = pd.to_numeric(values, errors="coerce")
    bad = numbers[~numbers.isin(list(mapping))]
    if len(bad):
        raise BiasflowError(f"{path}: expected {expected}, found {', '.join(map(str, values[bad.index].head(5)))}.")
    return numbers.astype(int).map(mapping)


def expand(templates: pd.DataFrame, terms: pd.DataFrame, attribute: str, unmarked: bool) -> pd.DataFrame:
    """Probe samples of ``attribute``: every usable template filled with every term.

    Columns :data:`PROBE_SAMPLE_COLUMNS`: ``y_true`` is the template's SENT, ``category`` the
    attribute, ``template_id`` a stable hash of the template text and label (shared by
    the marked samples and the unmarked variant of one template, so they can be paired).
    With ``unmarked``, each template whose slots are all droppable (module docstring) adds
    one sample of group :data:`~biasflow.fpr.predictions.UNMARKED` with ``marked`` False, right after its marked
    samples.
    """
    if "attribute" not in terms.columns:
        raise BiasflowError("identity terms need an 'attribute' column; read them with load_identity_terms.")
    chosen = terms[terms["attribute"] == attribute]
    if chosen.empty:
        known = ", ".join(sorted(map(str, terms["attribute"].unique()))) or "none"
        raise BiasflowError(f"no identity terms for attribute {attribute!r}; the terms file has: {known}.")
    rows = []
    for template, label in zip(templates["TEMPLATE"], templates["SENT"], strict=True):
        slots = _slots(template, attribute)
        if slots is None:
            continue
        template_id = stable_hash("probe-template", template, int(label))
        for term in chosen.itertuples(index=False):
            text = _render(template, lambda slot, term=term: term.term if slot == "adj" else term.np)
            rows.append((text, int(label), attribute, term.group, template_id, True))
        if unmarked and _droppable(template):
            rows.append((_render(template, lambda slot: None), int(label), attribute, UNMARKED, template_id, False))
    if not rows:
        raise BiasflowError(
            f"no template has an identity slot for attribute {attribute!r}; use {{identity_adj}}, "
            f"{{identity_np}}, {{{attribute}_adj}} or {{{attribute}_np}} in the templates."
        )
    return pd.DataFrame(rows, columns=PROBE_SAMPLE_COLUMNS)


def probe_samples(spec: dict) -> pd.DataFrame:
    """Samples of one probe set described by ``spec``.

    ``spec`` keys (the config's ``fpr.probes.<name>``): ``templates`` and ``terms`` (paths;
    the bundled sets are ``bundled:probes/<file>``, resolved before), ``attribute`` and
    ``unmarked``.
    """
    missing = [key for key in ("templates", "terms", "attribute", "unmarked") if key not in spec]
    if missing:
        raise BiasflowError(f"probe set needs the keys {', '.join(missing)} (templates, terms, attribute, unmarked).")
    unknown = sorted(set(spec) - {"templates", "terms", "attribute", "unmarked"})
    if unknown:
        raise BiasflowError(
            f"probe set has unknown keys {', '.join(unknown)}; allowed: templates, terms, attribute, unmarked."
        )
    unmarked = spec["unmarked"]
    if not isinstance(unmarked, bool):
        raise BiasflowError(f"probe set key 'unmarked' must be true or false, not {unmarked!r}.")
    templates = load_templates(spec["templates"])
    terms = load_identity_terms(spec["terms"])
    return expand(templates, terms, str(spec["attribute"]), unmarked=unmarked)


# --- helpers -------------------------------------------------------------------------


def _read_csv(path: Path, required: tuple[str, ...]) -> pd.DataFrame:
    """Read ``path`` as strings, raising a BiasflowError for a missing file or column."""
    if not path.is_file():
        raise BiasflowError(f"{path}: file not found; give the path of a CSV file.")
    try:
        frame = pd.read_csv(path, dtype=str, keep_default_na=False, na_values=[""])
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as error:
        raise BiasflowError(f"{path}: not a readable CSV file ({error}).") from error
    frame.columns = [str(column).strip() for column in frame.columns]
    absent = [column for column in required if column not in frame.columns]
    if absent:
        raise BiasflowError(
            f"{path}: missing column(s) {', '.join(absent)}; expected columns {', '.join(required)} "
            f"(found: {', '.join(frame.columns) or 'none'})."
        )
    return frame


def _labels(values: pd.Series, path: Path, column: str) -> pd.Series:
    """``values`` as ints, each 0, 1 or 2; BiasflowError naming the first bad line."""
    labels = []
    for index, value in values.items():
        text = "" if pd.isna(value) else str(value).strip()
        if text not in ("0", "1", "2"):
            raise BiasflowError(
                f"{path}: column {column} on line {index + 2} is {text!r}; "
                "it must be 0 (negative), 1 (neutral) or 2 (positive)."
            )
        labels.append(int(text))
    return pd.Series(labels, index=values.index, dtype=int)


def _slots(template: str, attribute: str) -> list[str] | None:
    """The slot forms ("adj"/"np") of ``template``, or None if it cannot be filled for ``attribute``."""
    forms = []
    for match in _PLACEHOLDER.finditer(template):
        slot = _SLOT_NAME.match(match["name"].strip())
        if slot is None or slot["attr"].lower() not in ("identity", attribute.lower()):
            return None
        forms.append(slot["form"])
    return forms or None


def _article(word: str) -> str:
    """The indefinite article ("a"/"an") for ``word`` by its spelling."""
    lower = word.lower()
    if lower.startswith(_AN_EXCEPTIONS):
        return "an"
    if lower.startswith(_A_EXCEPTIONS):
        return "a"
    return "an" if lower[:1] in set("aeiou") else "a"


def _with_case(article: str, like: str) -> str:
    """``article`` capitalised the way ``like`` is."""
    return article.capitalize() if like[:1].isupper() else article


def _fix_article(prefix: str, next_word: str) -> str:
    """``prefix`` with a trailing literal a/an made to agree with ``next_word``."""
    match = _TRAILING_ARTICLE.search(prefix)
    if match is None or not next_word:
        return prefix
    article = _with_case(_article(next_word), match["art"])
    return prefix[: match.start("art")] + article + match["space"]


def _render(template: str, fill) -> str:
    """Fill every slot of ``template`` with ``fill(form)``; ``None`` drops the slot.

    Filling capitalises for capitalised names, expands ``a:`` into the right article, and
    corrects a literal a/an directly before the slot. Dropping removes the slot and the
    space after it and corrects a preceding a/an for the word that now follows.
    """
    out = ""
    position = 0
    for match in _PLACEHOLDER.finditer(template):
        out += template[position : match.start()]
        position = match.end()
        slot = _SLOT_NAME.match(match["name"].strip())
        assert slot is not None, "_slots accepted every placeholder of a template before it is rendered"
        value = fill(slot["form"])
        if value is None:
            if template[position : position + 1] == " ":
                position += 1
            next_word = re.split(r"[^\w'-]", template[position:], maxsplit=1)[0]  # the word after the slot
            out = _fix_article(out, next_word)
            continue
        if match["name"].strip()[:1].isupper():
            value = value[:1].upper() + value[1:]
        if match["article"]:
            value = f"{_with_case(_article(value), match['article'])} {value}"
        else:
            out = _fix_article(out, value)
        out += value
    return out + template[position:]


def _droppable(template: str) -> bool:
    """Whether every slot of ``template`` may be dropped (rule in the module docstring)."""
    matches = list(_PLACEHOLDER.finditer(template))
    for match in matches:
        slot = _SLOT_NAME.match(match["name"].strip())
        if slot is None or slot["form"] != "adj" or match["article"]:
            return False
        before = re.search(r"(\w+)\s+$", template[: match.start()])
        if before is None or before.group(1).lower() not in _DETERMINERS:
            return False
        after = re.match(r" ([a-z][\w'-]*)", template[match.end() :])
        if after is None or after.group(1).lower() in _FUNCTION_WORDS:
            return False
    return bool(matches)
