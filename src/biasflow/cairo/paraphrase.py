"""Prompt augmentation by paraphrasing (CAIRO paper §3.2 and appendix A.4).

CAIRO pools bias over prompt sets written by several paraphrasers with several seeds
(docs/methods.md §1.2): each set ``<paraphraser>-s<seed>`` holds one paraphrase per original
prompt, keeping its subgroup. Prompts of BOLD, HolisticBias and HONEST are sentence
*beginnings* ("the woman should work as"), so a paraphrase is kept as text for the
evaluated model to continue.

This module holds the templates and the loop that asks the paraphraser and asks again: each
attempt round sends the prompts still without a valid paraphrase, seeded per request, and
counts why each answer was refused. What turns a raw answer into a paraphrase, or into the
reason it is not one, is :mod:`biasflow.cairo.paraphrase_cleaning`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from biasflow.cairo.paraphrase_cleaning import clean_paraphrase, split_answer, validate_paraphrase
from biasflow.errors import BiasflowError
from biasflow.hashing import stable_hash
from biasflow.models.base import ProgressCallback, Request
from biasflow.settings import StepSettings
from biasflow.tables import PROMPT_COLUMNS, require_columns

REASONS = ("empty", "copy", "too_short", "too_long", "identity_missing", "count_mismatch")
REJECTION_COUNTS = ["n_prompts", "n_accepted", "n_dropped", "n_retried", *REASONS]
PARAPHRASE_REJECTION_COLUMNS = ["paraphraser", "seed", "metric", "axis", *REJECTION_COUNTS]
# The slot of each template: one prompt, or a numbered list of several (chat_batch).
_SLOTS = {"chat": "{prompt}", "chat_batch": "{prompts}", "completion": "{prompt}"}

Generate = Callable[[list[Request]], list[str]]


@dataclass(frozen=True)
class ParaphraseSettings(StepSettings):
    """What a paraphrase job reads of the config's ``paraphrase`` (docs/methods.md §1.2); its templates are files.

    ``seeds``: one prompt set per seed; ``max_attempts``: fresh samples per prompt until a
    valid paraphrase; ``min_ratio``/``max_ratio``: the valid length, in words, against the
    original's; ``keep_identity_term``: reject a paraphrase that lost the subgroup's words;
    ``prompts_per_request``: chat paraphrasers get that many prompts per request;
    ``templates``: the folder of the templates (a job reads those of :func:`template_files`).
    """

    section = "cairo.paraphrase"

    templates: str
    seeds: list[int]
    max_attempts: int
    min_ratio: float
    max_ratio: float
    keep_identity_term: bool
    prompts_per_request: int


# --- templates -----------------------------------------------------------------------


def template_files(settings: ParaphraseSettings, chat: bool) -> list[str]:
    """The template files a paraphraser reads: ``chat.txt`` (and ``chat_batch.txt`` for several prompts per
    request) or ``completion.txt``, in the ``templates`` folder. The workflow declares them as the job's inputs."""
    names = ["chat", "chat_batch"] if chat and settings.prompts_per_request > 1 else ["chat" if chat else "completion"]
    return [str(Path(settings.templates) / f"{name}.txt") for name in names]


def load_templates(paths) -> dict[str, str]:
    """Read paraphrase templates, each named by its file's stem (``chat.txt`` is ``chat``).

    The bundled ones (``bundled:paraphrase``) hold the paper's prompts (appendix A.4): an
    instruction for chat models, with one prompt in ``{prompt}`` or a numbered list of several
    in ``{prompts}``, and "{prompt} can be paraphrased as" for completion models.
    """
    templates = {}
    for path in map(Path, paths):
        if path.stem not in _SLOTS:
            raise BiasflowError(
                f"paraphrase template {path}: unknown name; use {', '.join(f'{n}.txt' for n in _SLOTS)}."
            )
        templates[path.stem] = _read_template(path, _SLOTS[path.stem])
    return templates


def _read_template(path: Path, slot: str) -> str:
    if not path.is_file():
        raise BiasflowError(
            f"paraphrase template not found: {path}. Create it, or point the config at a folder that has it."
        )
    text = path.read_text(encoding="utf-8").rstrip("\n")
    if slot not in text:
        raise BiasflowError(f"paraphrase template {path} has no {slot} placeholder; add one where the original goes.")
    return text


def build_request_text(original: str, chat: bool, templates: dict[str, str]) -> str:
    """The paraphraser's input: the chat or completion template with ``{prompt}`` filled.

    Plain replacement rather than ``str.format``, so braces in a prompt are kept as is.
    """
    return templates["chat" if chat else "completion"].replace("{prompt}", original)


def build_batch_request_text(originals: list[str], templates: dict[str, str]) -> str:
    """Several prompts in one chat request: ``{prompts}`` becomes the list "1. …", "2. …" (A.4)."""
    listed = "\n".join(f"{k}. {text}" for k, text in enumerate(originals, start=1))
    return templates["chat_batch"].replace("{prompts}", listed)


# --- the paraphrasing loop -----------------------------------------------------------


def paraphrase_prompts(
    original: pd.DataFrame,
    generate: Generate,
    *,
    paraphraser: str,
    chat: bool,
    templates: dict[str, str],
    settings: ParaphraseSettings,
    progress: ProgressCallback | None = None,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Paraphrase every original prompt once per seed; return (paraphrase rows, rejections).

    For each attempt round a = 0..max_attempts-1, one ``generate`` call receives
    ``Request(prompt=<template filled>, seed=s, sample=a)`` for every (prompt, seed) still
    without a valid paraphrase; the first valid cleaned output is kept. Prompts still
    invalid after ``max_attempts`` are dropped. ``min_ratio``/``max_ratio`` go to
    :func:`validate_paraphrase`; ``keep_identity_term`` false drops the identity-term check
    (for metrics whose subgroup does not hinge on the literal words, or other languages);
    ``progress`` gets the number of requests per round.
    The request carries seed and attempt, so the same inputs give the same outputs
    whatever the batch.

    ``prompts_per_request`` > 1 with a chat paraphraser asks for several paraphrases in one request,
    as the paper did with ChatGPT (A.4): the prompts still pending for a seed, in order,
    in chunks of ``per_request``, as a numbered list; :func:`split_answer` pairs the answer
    back with the prompts, and a chunk whose answer has the wrong count is a
    ``count_mismatch`` for each of its prompts, asked again in the next round.

    Paraphrase rows copy the original's columns, with ``promptset`` =
    ``<paraphraser>-s<seed>``, the paraphrase as ``text`` and a new ``prompt_id``;
    ``source_id`` links back. The rejections table (:data:`PARAPHRASE_REJECTION_COLUMNS`) has one
    row per (seed, metric, axis): reason counts over all attempts, ``n_dropped`` =
    prompts with no valid paraphrase, ``n_retried`` = prompts whose first attempt was
    rejected (accepted later or dropped).
    """
    return paraphrase_tables(
        {"table": original},
        generate,
        paraphraser=paraphraser,
        chat=chat,
        templates=templates,
        settings=settings,
        progress=progress,
    )["table"]


def paraphrase_tables(
    originals: Mapping[str, pd.DataFrame],
    generate: Generate,
    *,
    paraphraser: str,
    chat: bool,
    templates: dict[str, str],
    settings: ParaphraseSettings,
    progress: ProgressCallback | None = None,
) -> dict[str, tuple[pd.DataFrame, pd.DataFrame]]:
    """:func:`paraphrase_prompts` of several prompt tables at once, by name: ``(rows, rejections)`` of each.

    Each attempt round sends the pending requests of every table in one ``generate`` call, so
    a paraphraser's batches stay full while the rounds shrink (the last round of one table
    alone is a few requests); a chat request still holds prompts of one table only, so no
    request mixes metrics. Requests are the same as the tables' own calls would make and are
    seeded per request, so each table's result is the one it gets on its own.
    """
    if settings.max_attempts < 1:
        raise BiasflowError(f"paraphrase max_attempts must be at least 1, got {settings.max_attempts}.")
    if settings.prompts_per_request < 1:
        raise BiasflowError(f"paraphrase prompts_per_request must be at least 1, got {settings.prompts_per_request}.")
    runs = {name: _TableParaphrasing(original, chat, templates, settings) for name, original in originals.items()}
    for attempt in range(settings.max_attempts):
        batches = {name: run.batch(attempt) for name, run in runs.items()}
        flat = [request for batch in batches.values() for request in batch]
        if not flat:
            break
        answers = _generate_unique(generate, flat)
        if progress is not None:
            progress(len(flat))
        start = 0
        for name, batch in batches.items():
            runs[name].take(attempt, answers[start : start + len(batch)])
            start += len(batch)
    return {name: run.result(paraphraser) for name, run in runs.items()}


class _TableParaphrasing:
    """One prompt table's paraphrasing state across attempt rounds (see :func:`paraphrase_prompts`)."""

    def __init__(self, original: pd.DataFrame, chat: bool, templates: dict[str, str], settings: ParaphraseSettings):
        _check_original(original)
        self.settings = settings
        self.templates = templates
        self.per_request = settings.prompts_per_request if chat else 1
        self.prompts = original.reset_index(drop=True)
        self.seeds = list(dict.fromkeys(int(s) for s in settings.seeds))
        self.texts = self.prompts["text"].astype(str).tolist()
        keep = settings.keep_identity_term
        self.terms = [t if isinstance(t, str) and keep else "" for t in self.prompts["identity_term"].tolist()]
        self.requests = [build_request_text(t, chat, templates) for t in self.texts]
        self.accepted: dict[tuple[int, int], str] = {}
        self.outcomes: list[dict] = []
        self.pending = [(seed, i) for seed in self.seeds for i in range(len(self.prompts))]
        self.chunks: list[list[tuple[int, int]]] = []

    def batch(self, attempt: int) -> list[Request]:
        """The requests of this round: one per chunk of the pending (seed, prompt) pairs."""
        self.chunks = _chunks(self.pending, self.per_request)
        texts = self.texts
        return [
            Request(
                prompt=build_batch_request_text([texts[i] for _, i in chunk], self.templates)
                if len(chunk) > 1
                else self.requests[chunk[0][1]],
                seed=chunk[0][0],
                sample=attempt,
            )
            for chunk in self.chunks
        ]

    def take(self, attempt: int, answers: list[str]) -> None:
        """Validate this round's answers; accepted prompts leave ``pending``."""
        raws = [
            part
            for chunk, answer in zip(self.chunks, answers, strict=True)
            for part in _answer_parts(answer, len(chunk))
        ]
        settings, still = self.settings, []
        for (seed, i), raw in zip(self.pending, raws, strict=True):
            original = self.texts[i]
            reason: str | None = "count_mismatch"
            if raw is not None:
                candidate = clean_paraphrase(raw, original)
                reason = validate_paraphrase(original, candidate, self.terms[i], settings.min_ratio, settings.max_ratio)
                if reason is None:
                    self.accepted[(seed, i)] = candidate
            self.outcomes.append({"seed": seed, "row": i, "attempt": attempt, "reason": reason})
            if reason is not None:
                still.append((seed, i))
        self.pending = still

    def result(self, paraphraser: str) -> tuple[pd.DataFrame, pd.DataFrame]:
        rows = _paraphrase_rows(self.prompts, self.accepted, paraphraser, self.seeds)
        return rows, _rejection_table(self.prompts, self.outcomes, self.accepted, paraphraser, self.seeds)


def _chunks(pending: list[tuple[int, int]], size: int) -> list[list[tuple[int, int]]]:
    """``pending`` (seed, row) pairs in order, cut into runs of at most ``size`` with one seed each."""
    chunks: list[list[tuple[int, int]]] = []
    for item in pending:
        if chunks and len(chunks[-1]) < size and chunks[-1][0][0] == item[0]:
            chunks[-1].append(item)
        else:
            chunks.append([item])
    return chunks


def _answer_parts(answer: str, n: int) -> Sequence[str | None]:
    """The raw paraphrase of each of a chunk's ``n`` prompts (None each when the count differs)."""
    if n == 1:
        return [answer]
    return split_answer(answer, n) or [None] * n


def _check_original(original: pd.DataFrame) -> None:
    require_columns(original, PROMPT_COLUMNS, "prompt table to paraphrase")
    other = sorted(set(original["promptset"].astype(str)) - {"original"})
    if other:
        raise BiasflowError(
            f"only original prompts can be paraphrased, but the table has prompt set(s) {', '.join(other)}; "
            "filter it to promptset == 'original'."
        )


def _generate_unique(generate: Generate, batch: list[Request]) -> list[str]:
    """Call ``generate`` once with each distinct request (duplicate originals share one)."""
    unique = list(dict.fromkeys(batch))
    outputs = generate(unique)
    if len(outputs) != len(unique):
        raise RuntimeError(f"paraphraser returned {len(outputs)} outputs for {len(unique)} requests")
    by_request = dict(zip(unique, outputs, strict=True))
    return [by_request[r] for r in batch]


def _paraphrase_rows(
    prompts: pd.DataFrame, accepted: dict[tuple[int, int], str], paraphraser: str, seeds: list[int]
) -> pd.DataFrame:
    keys = [(seed, i) for seed in seeds for i in range(len(prompts)) if (seed, i) in accepted]
    rows = prompts.iloc[[i for _, i in keys]].reset_index(drop=True)
    rows["promptset"] = [f"{paraphraser}-s{seed}" for seed, _ in keys]
    rows["text"] = [accepted[k] for k in keys]
    rows["prompt_id"] = [
        stable_hash(m, a, s, p, t)
        for m, a, s, p, t in zip(
            rows["metric"], rows["axis"], rows["source_id"], rows["promptset"], rows["text"], strict=True
        )
    ]
    return rows


def _rejection_table(
    prompts: pd.DataFrame, outcomes: list[dict], accepted: dict, paraphraser: str, seeds: list[int]
) -> pd.DataFrame:
    """Per (seed, metric, axis): prompts, accepted, dropped, retried and reason counts."""
    groups = list(zip(prompts["metric"], prompts["axis"], strict=True))
    counts: dict[tuple[int, str, str], dict[str, int]] = {}
    for seed in seeds:
        for i, group in enumerate(groups):
            row = counts.setdefault((seed, *group), dict.fromkeys(REJECTION_COUNTS, 0))
            row["n_prompts"] += 1
            row["n_accepted"] += (seed, i) in accepted
    for event in outcomes:
        row = counts[(event["seed"], *groups[event["row"]])]
        row["n_retried"] += event["attempt"] == 1  # a prompt reaches attempt 1 once, if at all
        if event["reason"] is not None:
            row[event["reason"]] += 1
    table = pd.DataFrame(
        [{"paraphraser": paraphraser, "seed": s, "metric": m, "axis": a, **row} for (s, m, a), row in counts.items()],
        columns=PARAPHRASE_REJECTION_COLUMNS,
    )
    table["n_dropped"] = table["n_prompts"] - table["n_accepted"]
    table = table.astype(dict.fromkeys(["seed", *REJECTION_COUNTS], "int64"))
    return table.sort_values(["seed", "metric", "axis"], kind="stable").reset_index(drop=True)
