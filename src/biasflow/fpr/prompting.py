"""Prompting classifiers for ternary sentiment (paper 004, section 3.4 and appendix B).

Three methods, each a prompt template in the folder ``fpr.templates`` (bundled: ``bundled:classify``):

* ``zero_shot``: ``zero_shot.txt`` with the text in ``{text}``;
* ``k_shot``: ``k_shot.txt``; ``{demonstrations}`` is replaced by ``k`` labelled examples
  (``k/3`` per label, random order, resampled per run seed), each written in the query's own
  style: the template after ``{demonstrations}`` with the example's text and the answer
  `` Negative.`` / `` Neutral.`` / `` Positive.``, separated by blank lines;
* ``cot`` (zero-shot chain of thought): step 1 ``cot_reason.txt`` asks for reasoning
  ("Let's think step by step."), step 2 ``cot_answer.txt`` repeats it with the generated
  reasoning in ``{reasoning}`` and asks for the answer.

Decoding is the caller's: ``generate`` is bound to one model and one decoding (the config's
``fpr.decoding``; the paper samples at temperature 0.8 with at most 3 answer tokens, and 64
reasoning tokens for CoT step 1, passed as ``reason_generate``).
Every request is seeded with the run seed, so a run is reproducible and the five runs
(seeds 2024-2028 in the paper) differ. The label is the first case-insensitive match of
negative / neutral / positive in the answer; an answer without one gets a uniform random
label from a stream keyed by the run seed and the sentence's text, so which other sentences
are classified with it changes none of its labels, and the number of such fallbacks is
returned.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from biasflow.errors import BiasflowError
from biasflow.fpr.predictions import LABELS
from biasflow.hashing import named_rng
from biasflow.models.base import Generation, Request

METHODS = ("zero_shot", "k_shot", "cot")
# The templates each prompting method reads.
METHOD_TEMPLATES = {"zero_shot": ("zero_shot",), "k_shot": ("k_shot",), "cot": ("cot_reason", "cot_answer")}

_LABEL_RE = re.compile("|".join(LABELS), re.IGNORECASE)
_SLOT_RE = re.compile(r"\{(text|demonstrations|reasoning)\}")
_REQUIRED_SLOTS = {
    "zero_shot": ("{text}",),
    "k_shot": ("{demonstrations}", "{text}"),
    "cot_reason": ("{text}",),
    "cot_answer": ("{text}", "{reasoning}"),
}

Generate = Callable[[Sequence[Request]], Sequence[str | Generation]]


def extract_label(text: str, rng: np.random.Generator) -> tuple[int, bool]:
    """``(label, fallback)``: the earliest case-insensitive match, else a uniform draw from ``rng``."""
    match = _LABEL_RE.search(text or "")
    if match:
        return LABELS.index(match.group(0).lower()), False
    return int(rng.integers(len(LABELS))), True


def template_files(directory: str | Path, method: str) -> list[str]:
    """The template files a prompting method reads from ``directory`` (none for a tuned classifier)."""
    return [str(Path(directory) / f"{name}.txt") for name in METHOD_TEMPLATES.get(method, ())]


def load_prompt_templates(directory: str | Path, method: str) -> dict[str, str]:
    """Read the templates of ``method`` (``.txt`` files named as in :data:`METHOD_TEMPLATES`) from ``directory``.

    The bundled folder, ``bundled:classify``, holds paper 004's prompts (appendix B).
    """
    if method not in METHODS:
        raise BiasflowError(f"unknown classification method '{method}'; use one of {', '.join(METHODS)}")
    templates = {}
    for path in map(Path, template_files(directory, method)):
        name = path.stem
        if not path.is_file():
            raise BiasflowError(f"classification template not found: {path}. Create it, or use the default folder.")
        text = path.read_text(encoding="utf-8").rstrip("\n")
        missing = [slot for slot in _REQUIRED_SLOTS[name] if slot not in text]
        if missing:
            raise BiasflowError(
                f"classification template {path} lacks the placeholder(s) {', '.join(missing)}; add them."
            )
        templates[name] = text
    return templates


def _fill(template: str, **values: str) -> str:
    """Fill ``{text}``/``{demonstrations}``/``{reasoning}`` in one pass (braces in values are kept)."""
    return _SLOT_RE.sub(lambda m: values.get(m.group(1), m.group(0)), template)


def _check_labels(labels) -> np.ndarray:
    labels = np.asarray(labels)
    if labels.size and (not np.issubdtype(labels.dtype, np.integer) or labels.min() < 0 or labels.max() > 2):
        raise BiasflowError(
            f"labels must be integers 0 (negative), 1 (neutral) or 2 (positive); got {sorted(set(labels.tolist()))[:5]}"
        )
    return labels.astype(int)


def demonstrations(labelled: pd.DataFrame, k: int, rng: np.random.Generator) -> list[tuple[str, int]]:
    """``k`` demonstrations ``(text, label)`` from ``labelled`` (``text``, ``label``): ``k/3`` per label, shuffled.

    Each label's examples are drawn from in the order of their texts, so the order of the
    labelled file's rows changes no draw.
    """
    if k <= 0 or k % len(LABELS):
        raise BiasflowError(f"k-shot needs k divisible by 3 (label-balanced demonstrations); got k={k}")
    if not {"text", "label"} <= set(labelled.columns):
        raise BiasflowError("labelled demonstrations need columns 'text' and 'label'")
    labels = _check_labels(labelled["label"].to_numpy())
    texts = labelled["text"].astype(str).to_numpy()
    per_label = k // len(LABELS)
    chosen = []
    for label in range(len(LABELS)):
        pool = np.flatnonzero(labels == label)
        pool = pool[np.argsort(texts[pool], kind="stable")]
        if len(pool) < per_label:
            raise BiasflowError(
                f"{k}-shot needs {per_label} labelled examples per label; '{LABELS[label]}' has {len(pool)}"
            )
        chosen.extend(rng.choice(pool, per_label, replace=False).tolist())
    return [(str(texts[i]), int(labels[i])) for i in rng.permutation(chosen)]


def render_demonstrations(k_shot_template: str, demos: Sequence[tuple[str, int]]) -> str:
    """The demonstration block: the query part of ``k_shot`` filled with each example and its answer."""
    query = k_shot_template.split("{demonstrations}", 1)[1]
    return "".join(f"{_fill(query, text=t)} {LABELS[y].capitalize()}.\n\n" for t, y in demos)


def _texts(outputs) -> list[str]:
    """Strings, or :class:`Generation`-like objects (a :class:`CachedGenerator`'s output) as their ``.text``."""
    return [str(getattr(o, "text", o)) for o in outputs]


def prompt_classify(
    texts: Sequence[str],
    generate: Generate,
    method: str,
    templates: dict[str, str],
    *,
    run_seed: int,
    labelled: pd.DataFrame | None = None,
    k: int | None = None,
    reason_generate: Generate | None = None,
) -> tuple[np.ndarray, int]:
    """Classify ``texts`` by prompting; returns ``(predictions, n_fallback)``.

    ``generate(requests) -> texts`` (or generations with ``.text``) answers;
    ``reason_generate`` writes CoT reasoning (defaults to ``generate``); ``labelled`` and
    ``k`` are k-shot's demonstrations and their number. Requests carry ``seed=run_seed``;
    demonstrations are drawn from a stream of ``run_seed``, and each text's fallback label
    from its own stream, keyed by ``run_seed`` and the text (never its position in ``texts``).
    """
    if method not in METHODS:
        raise BiasflowError(f"unknown classification method '{method}'; use one of {', '.join(METHODS)}")
    texts = [str(t) for t in texts]
    if method == "zero_shot":
        prompts = [_fill(templates["zero_shot"], text=t) for t in texts]
    elif method == "k_shot":
        if labelled is None:
            raise BiasflowError("k-shot classification needs labelled demonstrations (a table with text and label)")
        if k is None:
            raise BiasflowError("k-shot classification needs k, the number of demonstrations")
        demos = demonstrations(labelled, k, named_rng(run_seed, "fpr-demonstrations"))
        block = render_demonstrations(templates["k_shot"], demos)
        prompts = [_fill(templates["k_shot"], demonstrations=block, text=t) for t in texts]
    else:
        reason_prompts = [_fill(templates["cot_reason"], text=t) for t in texts]
        reasonings = _texts((reason_generate or generate)([Request(p, int(run_seed)) for p in reason_prompts]))
        prompts = [
            _fill(templates["cot_answer"], text=t, reasoning=r.strip()) for t, r in zip(texts, reasonings, strict=True)
        ]
    answers = _texts(generate([Request(p, int(run_seed)) for p in prompts]))
    if len(answers) != len(texts):
        raise RuntimeError(f"generate returned {len(answers)} answers for {len(texts)} prompts")
    predictions = np.empty(len(texts), dtype=np.int64)
    n_fallback = 0
    for i, (text, answer) in enumerate(zip(texts, answers, strict=True)):
        predictions[i], fallback = extract_label(answer, named_rng(run_seed, "fpr-fallback", text))
        n_fallback += fallback
    return predictions, n_fallback
