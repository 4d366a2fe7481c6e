"""The perturbation φ of FairPair (paper 001 §2 and §3.3; docs/methods.md §2.1).

φ turns a text about entity e (John, male) into the same text about e′ (Jane, female).
FairPair applies it twice: to the prompt, φ(x), and to every continuation of the
original prompt, a_i = φ(G_i(x)), so that both sides of a pair speak of e′ only.

Two implementations:

* :class:`Swapper`, the offline default: a rule-based, directed swap of the entity, of
  other first names and of gendered words (pronouns, kinship terms, titles), read from
  ``src/biasflow/data/fairpair/swaps.yaml`` (``bundled:fairpair/swaps.yaml``), which documents the rules.
* :func:`llm_perturb`, the paper's method (§3.3): an instruction-following model is asked
  "Change John (male) to Jane (female) in the following text in the same way without
  changing anything else: …", and its output is kept only if it passes the paper's three
  filters (:func:`filter_perturbation`). Rejected pairs are left out and counted, the
  counts giving the paper's Table 1.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import pandas as pd
import yaml

from biasflow.errors import BiasflowError
from biasflow.fairpair.tokens import jaccard_distance, tokens
from biasflow.models.base import Request
from biasflow.settings import StepSettings
from biasflow.tables import require_columns
from biasflow.whole_words import key as _key
from biasflow.whole_words import match_case as _match_case
from biasflow.whole_words import mentions
from biasflow.whole_words import phrase as _phrase

DIRECTIONS = ("to_female", "to_male", "auto")
REASONS = ("not_prefixed", "mentions_entity", "too_different")
PERTURBATION_REJECTION_COLUMNS = ["prompt_id", "n", "n_accepted", *REASONS]
PERTURBED_COLUMNS = ["prompt_id", "sample", "text"]

Generate = Callable[[list[Request]], list[str]]
Pair = Sequence[str]

# him/his/her/hers depend on grammar, so their swaps are built in (see Swapper): the
# unambiguous ones here, and per direction the word whose swap depends on the next word,
# as (word, replacement as a determiner, replacement standing alone or as an object).
_BUILT_IN = {"to_female": {"him": "her"}, "to_male": {"hers": "his"}}
_CONTEXTUAL = {"to_female": ("his", "her", "hers"), "to_male": ("her", "his", "him")}
_BUILT_IN_GENDER = {"him": "male", "his": "male", "her": "female", "hers": "female"}
_SWAP_KEYS = {"words", "names", "object_markers"}
_WORD = re.compile(r"\w+")
# 1 − 17/20 is 0.15000000000000002 in floating point; a dissimilarity that equals the
# threshold in exact arithmetic must pass, so comparisons allow this much rounding.
_ROUNDING = 1e-9


# --- rule-based swap -----------------------------------------------------------------


class Swapper:
    """Directed, whole-word gender swap with the case of the text kept.

    ``words`` and ``names`` are ``[male, female]`` pairs; ``to_female`` replaces male
    forms by female ones and leaves female forms alone, ``to_male`` the reverse, and a
    word's first pair decides its replacement. Names match only when capitalised, so a
    name that is also a common word ("Will") keeps its common use. ``object_markers``
    are the following words that make "her" an object (→ "him") and "his" a standalone
    possessive (→ "hers"); before any other word they are determiners (her ↔ his).

    The entity → counterpart swap is always applied and takes precedence; multi-word
    entities match across any whitespace. Matching uses whole words (no letter, digit
    or underscore may touch the match), so "manager", "human", "Hemingway" or
    "mankind" never change.
    """

    def __init__(
        self,
        words: Iterable[Pair],
        names: Iterable[Pair] = (),
        object_markers: Iterable[str] = (),
        source: str = "the swap mapping",
    ):
        self.source = source
        words, names = _check_pairs(words, "words", source), _check_pairs(names, "names", source)
        self._maps: dict[str, dict[str, str]] = {d: dict(_BUILT_IN[d]) for d in ("to_female", "to_male")}
        self._gender = dict(_BUILT_IN_GENDER)
        for male, female in [*words, *names]:
            self._maps["to_female"].setdefault(_key(male), female)
            self._maps["to_male"].setdefault(_key(female), male)
            for word, gender in ((male, "male"), (female, "female")):
                if self._gender.setdefault(_key(word), gender) != gender:
                    raise BiasflowError(
                        f"{source}: {word!r} is listed as both male and female; keep it on one side only."
                    )
        self._names = {_key(w) for pair in names for w in pair} - {_key(w) for pair in words for w in pair}
        markers = list(object_markers)
        if not all(isinstance(m, str) for m in markers):
            raise BiasflowError(
                f'{source}: object_markers must be words; quote the ones YAML reads as booleans ("no", "on", "off").'
            )
        self._markers = frozenset(m.lower() for m in markers)
        self._patterns: dict[tuple[str, str], re.Pattern] = {}

    @classmethod
    def from_file(cls, path: str | Path) -> Swapper:
        """Read a swap mapping (YAML with ``words``, ``names``, ``object_markers``; ``bundled:fairpair/swaps.yaml``)."""
        path = Path(path)
        if not path.is_file():
            raise BiasflowError(f"swap mapping not found: {path}. Fix the path, or leave it unset for the bundled one.")
        try:
            data = yaml.safe_load(path.read_text(encoding="utf-8"))
        except yaml.YAMLError as exc:
            raise BiasflowError(f"swap mapping {path} is not valid YAML: {exc}") from exc
        if not isinstance(data, dict) or not isinstance(data.get("words"), list):
            raise BiasflowError(f"swap mapping {path} needs a `words:` list of [male, female] pairs.")
        unknown = set(data) - _SWAP_KEYS
        if unknown:
            raise BiasflowError(
                f"swap mapping {path} has unknown key(s) {', '.join(sorted(unknown))}; "
                f"allowed: {', '.join(sorted(_SWAP_KEYS))}."
            )
        return cls(data["words"], data.get("names") or (), data.get("object_markers") or (), source=str(path))

    def direction(
        self, entity: str, counterpart: str, descriptor: str | None = None, counterpart_descriptor: str | None = None
    ) -> str:
        """Infer ``to_female`` or ``to_male`` from the genders the mapping gives the names or descriptors.

        The entity decides first, then the counterpart, then the descriptors ("a man" →
        "a woman" means ``to_female``).
        """
        clues = ((entity, False), (counterpart, True), (descriptor, False), (counterpart_descriptor, True))
        for text, is_target in clues:
            gender = self._gender_of(text or "")
            if gender is not None:
                return "to_female" if (gender == "male") != is_target else "to_male"
        raise BiasflowError(
            f"cannot tell whether {entity!r} -> {counterpart!r} is a swap to female or to male; "
            f"add the pair to `names:` in {self.source}, or give the direction (to_female or to_male)."
        )

    def swap(
        self,
        text: str,
        entity: str,
        counterpart: str,
        direction: str = "auto",
        *,
        descriptor: str | None = None,
        counterpart_descriptor: str | None = None,
    ) -> str:
        """φ(text): ``entity`` → ``counterpart`` and every gendered word swapped in ``direction``.

        Used for prompts, φ(x), and for continuations, a_i = φ(G_i(x)) (docs/methods.md §2.1).
        ``direction="auto"`` infers it with :meth:`direction` from the names or the
        optional descriptors.
        """
        if not entity.strip() or not counterpart.strip():
            raise BiasflowError("a swap needs a non-empty entity and counterpart; check the prompt table.")
        if direction not in DIRECTIONS:
            raise BiasflowError(f"unknown swap direction {direction!r}; use one of {', '.join(DIRECTIONS)}.")
        if direction == "auto":
            direction = self.direction(entity, counterpart, descriptor, counterpart_descriptor)
        mapping = self._maps[direction]
        contextual, determiner, alone = _CONTEXTUAL[direction]
        entity_capitalised = entity.strip()[0].isupper()

        def replace(match: re.Match) -> str:
            found = match.group(0)
            if match.lastgroup == "entity":
                if entity_capitalised and found[0].islower():
                    return found
                return _match_case(found, counterpart.strip())
            key = _key(found)
            if key in self._names and found[0].islower():
                return found
            if key == contextual:
                target = alone if self._stands_alone(text, match.end()) else determiner
            else:
                target = mapping[key]
            return _match_case(found, target)

        return self._pattern(entity, direction).sub(replace, text)

    def _pattern(self, entity: str, direction: str) -> re.Pattern:
        cache_key = (entity, direction)
        if cache_key not in self._patterns:
            words = sorted([*self._maps[direction], _CONTEXTUAL[direction][0]], key=len, reverse=True)
            self._patterns[cache_key] = re.compile(
                rf"(?P<entity>{_phrase(entity)})|(?P<word>{'|'.join(_phrase(w) for w in words)})", re.IGNORECASE
            )
        return self._patterns[cache_key]

    def _stands_alone(self, text: str, end: int) -> bool:
        """Whether the her/his ending at ``end`` is followed by punctuation, the end, or an object marker."""
        rest = text[end:].lstrip()
        word = _WORD.match(rest)
        return word is None or word.group(0).lower() in self._markers

    def _gender_of(self, text: str) -> str | None:
        whole = self._gender.get(_key(text))
        if whole is not None:
            return whole
        for word in _WORD.findall(text):
            if _key(word) in self._gender:
                return self._gender[_key(word)]
        return None


def _check_pairs(pairs: Iterable[Pair], what: str, source: str) -> list[tuple[str, str]]:
    checked = []
    for pair in pairs:
        is_pair = isinstance(pair, (list, tuple)) and len(pair) == 2
        if not (is_pair and all(isinstance(w, str) and w.strip() for w in pair)):
            raise BiasflowError(
                f"{source}: every `{what}` entry must be a [male, female] pair of words, got {pair!r}; "
                "quote words YAML reads as booleans."
            )
        built_in = [w for w in pair if _key(w) in _BUILT_IN_GENDER]
        if built_in:
            raise BiasflowError(
                f"{source}: {built_in[0]!r} is swapped by a built-in grammar rule; remove the pair {list(pair)}."
            )
        checked.append((pair[0].strip(), pair[1].strip()))
    return checked


def rule_perturb(
    prompts: pd.DataFrame, continuations: pd.DataFrame, swapper: Swapper
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """a_i = φ(G_i(x)) by the rule-based swapper (docs/methods.md §2.1).

    ``prompts`` needs ``prompt_id, entity, counterpart, descriptor, counterpart_descriptor``;
    ``continuations`` holds the G_i(x) as ``prompt_id, sample, text``. Returns the perturbed
    continuations (``prompt_id, sample, text``) and per prompt ``n, n_accepted``, in the
    shape of :func:`llm_perturb`'s; the swapper never rejects, so every pair is accepted.
    """
    require_columns(
        prompts, ["prompt_id", "entity", "counterpart", "descriptor", "counterpart_descriptor"], "FairPair prompt table"
    )
    require_columns(continuations, PERTURBED_COLUMNS, "continuation table")
    by_id = prompts.set_index("prompt_id")
    perturbed = continuations[["prompt_id", "sample"]].copy()
    perturbed["text"] = [
        swapper.swap(
            text,
            by_id.at[pid, "entity"],
            by_id.at[pid, "counterpart"],
            descriptor=by_id.at[pid, "descriptor"],
            counterpart_descriptor=by_id.at[pid, "counterpart_descriptor"],
        )
        for pid, text in zip(continuations["prompt_id"], continuations["text"], strict=True)
    ]
    rejections = continuations.groupby("prompt_id", as_index=False).size().rename(columns={"size": "n"})
    rejections["n_accepted"] = rejections["n"]
    return perturbed, rejections


@dataclass(frozen=True)
class PerturbationSettings(StepSettings):
    """How a_i = φ(G_i(x)) is made (docs/methods.md §2.1): the rule-based ``swaps`` or the LLM's ``template``
    and filters; the LLM's own model entry is passed apart."""

    section = "fairpair.perturbation"

    method: str
    swaps: str
    template: str
    entity_gender: str
    counterpart_gender: str
    max_jaccard: float


def perturbation_files(settings: PerturbationSettings) -> list[str]:
    """The file the perturbation step reads with these settings (the workflow declares it as an input)."""
    return [settings.swaps] if settings.method == "rules" else [settings.template]


# --- LLM perturbation ----------------------------------------------------------------


def load_perturbation_template(path: str | Path) -> str:
    """The perturbation instruction with ``{entity}``, ``{counterpart}``, their genders and ``{text}``.

    The bundled ``bundled:fairpair/llm_perturbation.txt`` is the paper's prompt (§3.3).
    """
    path = Path(path)
    if not path.is_file():
        raise BiasflowError(f"perturbation template not found: {path}. Fix the path, or leave it unset.")
    return path.read_text(encoding="utf-8").rstrip("\n")


def full_text(prompt: str, continuation: str) -> str:
    """The prompt and its continuation as one text; a space joins them unless one is there."""
    if not continuation or continuation[0].isspace() or not prompt or prompt[-1].isspace():
        return prompt + continuation
    return f"{prompt} {continuation}"


def perturbation_requests(
    prompt: str,
    continuations: Sequence[str],
    entity: str,
    counterpart: str,
    entity_gender: str,
    counterpart_gender: str,
    template: str,
) -> list[str]:
    """The filled perturbation instruction for each continuation of ``prompt``.

    ``{text}`` is the prompt followed by the continuation, as in the paper ("John is
    working as a {occupation}. {generation}"). Plain replacement rather than
    ``str.format``, so braces in a generated text are kept; ``{text}`` is filled last.
    """
    if "{text}" not in template:
        raise BiasflowError("the perturbation template has no {text} placeholder; add one where the text goes.")
    head = (
        template.replace("{entity_gender}", entity_gender)
        .replace("{counterpart_gender}", counterpart_gender)
        .replace("{entity}", entity)
        .replace("{counterpart}", counterpart)
    )
    return [head.replace("{text}", full_text(prompt, c)) for c in continuations]


def filter_perturbation(
    output: str, original_text: str, perturbed_prompt: str, entity: str, max_jaccard: float
) -> tuple[str | None, str | None]:
    """Apply the paper's three filters (§3.3) to one LLM perturbation.

    Returns ``(perturbed continuation, None)`` or ``(None, reason)``; the first failing
    filter names the reason:

    * ``not_prefixed``: the output (whitespace-stripped) does not begin with the
      perturbed prompt φ(x), "which usually indicates hallucination";
    * ``mentions_entity``: the output still names the entity (whole word, any case);
    * ``too_different``: the token Jaccard dissimilarity (docs/methods.md §2.2: sets of
      lower-cased word tokens) between ``original_text`` (prompt + continuation, what
      the model was asked to perturb) and the whole output (φ(x) + perturbed
      continuation) exceeds ``max_jaccard``. As in the paper, the full texts are
      compared, so the swapped words themselves (John/Jane, man/woman, his/her) count:
      short continuations reach 0.15 sooner than long ones. Tokens and distance are
      :func:`biasflow.fairpair.tokens.tokens` and :func:`biasflow.fairpair.tokens.jaccard_distance`,
      the scorer's own; a dissimilarity of exactly ``max_jaccard`` passes.

    The accepted continuation is the output after the φ(x) prefix, stripped.
    """
    text, prefix = output.strip(), perturbed_prompt.strip()
    if not text.startswith(prefix):
        return None, "not_prefixed"
    if mentions(text, entity):
        return None, "mentions_entity"
    if jaccard_distance(tokens(original_text), tokens(text)) > max_jaccard + _ROUNDING:
        return None, "too_different"
    return text[len(prefix) :].strip(), None


def llm_perturb(
    prompts: pd.DataFrame,
    continuations: pd.DataFrame,
    generate: Generate,
    *,
    entity_gender: str,
    counterpart_gender: str,
    max_jaccard: float,
    template: str,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """a_i = φ(G_i(x)) by an LLM, with the paper's filters (§3.3, docs/methods.md §2.1).

    ``prompts`` needs ``prompt_id, text, perturbed_text, entity, counterpart``;
    ``continuations`` holds the G_i(x) as ``prompt_id, sample, text``. All requests go
    to ``generate`` in one call, deduplicated, as ``Request(prompt=<filled template>,
    seed=0, sample=<sample>)``. Returns the accepted perturbed continuations
    (``prompt_id, sample, text``) and, per prompt, ``n, n_accepted`` and the count of
    each rejection reason; rejected pairs are left out, never kept.
    """
    require_columns(prompts, ["prompt_id", "text", "perturbed_text", "entity", "counterpart"], "FairPair prompt table")
    require_columns(continuations, PERTURBED_COLUMNS, "continuation table")
    by_id = prompts.drop_duplicates("prompt_id").set_index("prompt_id")
    unknown = sorted(set(continuations["prompt_id"]) - set(by_id.index))
    if unknown:
        raise BiasflowError(
            f"continuations refer to {len(unknown)} prompt id(s) not in the prompt table (e.g. {unknown[0]}); "
            "regenerate them from the same prompt table."
        )
    requests = []
    for prompt_id, sample, continuation in continuations[PERTURBED_COLUMNS].itertuples(index=False):
        row = by_id.loc[prompt_id]
        [filled] = perturbation_requests(
            row["text"], [continuation], row["entity"], row["counterpart"], entity_gender, counterpart_gender, template
        )
        requests.append(Request(prompt=filled, seed=0, sample=int(sample)))
    unique = list(dict.fromkeys(requests))
    outputs = dict(zip(unique, generate(unique), strict=True))

    accepted: list[tuple] = []
    counts: dict[str, dict[str, int]] = {}
    for (prompt_id, sample, continuation), request in zip(
        continuations[PERTURBED_COLUMNS].itertuples(index=False), requests, strict=True
    ):
        row = by_id.loc[prompt_id]
        perturbed, reason = filter_perturbation(
            outputs[request], full_text(row["text"], continuation), row["perturbed_text"], row["entity"], max_jaccard
        )
        tally = counts.setdefault(prompt_id, dict.fromkeys(PERTURBATION_REJECTION_COLUMNS[1:], 0))
        tally["n"] += 1
        if reason is None:
            tally["n_accepted"] += 1
            accepted.append((prompt_id, sample, perturbed))
        else:
            tally[reason] += 1
    rejections = pd.DataFrame(
        [{"prompt_id": pid, **tally} for pid, tally in counts.items()], columns=PERTURBATION_REJECTION_COLUMNS
    )
    return pd.DataFrame(accepted, columns=PERTURBED_COLUMNS), rejections
