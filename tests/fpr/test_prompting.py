"""Prompting classifiers: label extraction, demonstrations, prompt construction (fake generator)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from biasflow.bundled import package_path
from biasflow.errors import BiasflowError
from biasflow.fpr.predictions import LABELS
from biasflow.fpr.prompting import METHODS, demonstrations, extract_label, load_prompt_templates, prompt_classify
from biasflow.fpr.steps import ClassifySettings
from biasflow.models.base import Request

CLASSIFY = package_path("classify")


def templates() -> dict[str, str]:
    """The bundled templates of every prompting method."""
    return {name: text for method in METHODS for name, text in load_prompt_templates(CLASSIFY, method).items()}


def labelled_table(per_label: int = 5) -> pd.DataFrame:
    rows = [(f"{LABELS[y]} example {i}", y) for y in range(3) for i in range(per_label)]
    return pd.DataFrame(rows, columns=["text", "label"])


class FakeGenerate:
    """Records every call's requests; answers with ``reply(prompt)``."""

    def __init__(self, reply=lambda prompt: " Positive."):
        self.calls: list[list[Request]] = []
        self.reply = reply

    def __call__(self, requests):
        self.calls.append(list(requests))
        return [self.reply(r.prompt) for r in requests]


def test_extract_label_first_match_and_case():
    rng = np.random.default_rng(0)
    assert extract_label(" Positive, not negative", rng) == (2, False)
    assert extract_label("it is NEGATIVE or positive", rng) == (0, False)
    assert extract_label("neutralish", rng) == (1, False)


def test_extract_label_fallback_is_seeded():
    first = [extract_label("no idea", rng) for rng in [np.random.default_rng(7)] for _ in range(10)]
    again = [extract_label("no idea", rng) for rng in [np.random.default_rng(7)] for _ in range(10)]
    assert first == again and all(fallback for _, fallback in first)
    rng = np.random.default_rng(3)
    labels = {extract_label("???", rng)[0] for _ in range(60)}
    assert labels == {0, 1, 2}


def test_prompt_classify_counts_seeded_fallbacks():
    zero_shot = load_prompt_templates(CLASSIFY, "zero_shot")
    texts = [f"text {i}" for i in range(20)]
    gen = FakeGenerate(lambda p: " hmm")
    a, na = prompt_classify(texts, gen, "zero_shot", zero_shot, run_seed=2024)
    b, nb = prompt_classify(texts, gen, "zero_shot", zero_shot, run_seed=2024)
    c, _ = prompt_classify(texts, gen, "zero_shot", zero_shot, run_seed=2025)
    assert na == nb == 20 and (a == b).all() and not (a == c).all()
    _, n0 = prompt_classify(texts, FakeGenerate(), "zero_shot", zero_shot, run_seed=2024)
    assert n0 == 0


def test_templates_follow_the_paper():
    t = templates()
    assert t["zero_shot"].endswith("Answer: The sentiment is")
    assert "Let's think step by step." in t["cot_reason"]
    assert t["cot_answer"].endswith("the sentiment is") and "{reasoning}" in t["cot_answer"]
    decoding = ClassifySettings.defaults().decoding
    assert decoding.answer.temperature == 0.8 and decoding.answer.max_new_tokens == 3
    assert decoding.reasoning.temperature == 0.8 and decoding.reasoning.max_new_tokens == 64


def test_demonstrations_balanced_and_resampled():
    table = labelled_table(10)
    demos = demonstrations(table, 9, np.random.default_rng(2024))
    assert len(demos) == 9 and sorted(y for _, y in demos) == [0, 0, 0, 1, 1, 1, 2, 2, 2]
    assert len({t for t, _ in demos}) == 9
    assert demos == demonstrations(table, 9, np.random.default_rng(2024))
    assert demos != demonstrations(table, 9, np.random.default_rng(2025))
    with pytest.raises(BiasflowError, match="divisible by 3"):
        demonstrations(table, 8, np.random.default_rng(0))
    with pytest.raises(BiasflowError, match="per label"):
        demonstrations(labelled_table(2), 9, np.random.default_rng(0))
    with pytest.raises(BiasflowError, match="labels must be"):
        demonstrations(pd.DataFrame({"text": ["a", "b", "c"], "label": [0, 1, 5]}), 3, np.random.default_rng(0))


def test_k_shot_prompt_has_nine_demonstrations():
    gen = FakeGenerate()
    table = labelled_table(5)
    preds, n = prompt_classify(["the target"], gen, "k_shot", templates(), run_seed=2024, labelled=table, k=9)
    assert preds.tolist() == [2] and n == 0
    (request,) = gen.calls[0]
    assert request.seed == 2024
    prompt = request.prompt
    assert prompt.count("Text: ") == 10 and prompt.count("example") == 9
    assert sorted(prompt.count(f"Answer: {w.capitalize()}.") for w in LABELS) == [3, 3, 3]
    assert prompt.endswith("Text: the target\nQuestion: What is the sentiment of the text?\nAnswer:")
    other = FakeGenerate()
    prompt_classify(["the target"], other, "k_shot", templates(), run_seed=2025, labelled=table, k=9)
    assert other.calls[0][0].prompt != prompt
    with pytest.raises(BiasflowError, match="labelled"):
        prompt_classify(["x"], gen, "k_shot", templates(), run_seed=1, k=9)


def test_cot_makes_two_calls_with_reasoning():
    reasoning = FakeGenerate(lambda p: " The text praises the cook {x}.")
    answer = FakeGenerate(lambda p: " negative")
    preds, n = prompt_classify(
        ["good bread", "bad bread"], answer, "cot", templates(), run_seed=7, reason_generate=reasoning
    )
    assert preds.tolist() == [0, 0] and n == 0
    assert len(reasoning.calls) == 1 and len(answer.calls) == 1
    assert reasoning.calls[0][0].prompt.endswith("Let's think step by step.")
    second = answer.calls[0][0].prompt
    assert "Let's think step by step. The text praises the cook {x}.\nAnswer: Therefore" in second
    assert "Text: good bread" in second
    # one generate serves both steps when no reason_generate is given
    both = FakeGenerate(lambda p: " positive")
    prompt_classify(["x"], both, "cot", templates(), run_seed=7)
    assert len(both.calls) == 2 and "step by step. positive" in both.calls[1][0].prompt


def test_unknown_method_and_missing_template(tmp_path):
    with pytest.raises(BiasflowError, match="unknown classification method"):
        prompt_classify(["x"], FakeGenerate(), "few_shot", templates(), run_seed=0)
    with pytest.raises(BiasflowError, match="unknown classification method"):
        load_prompt_templates(CLASSIFY, "few_shot")
    with pytest.raises(BiasflowError, match="not found"):
        load_prompt_templates(tmp_path, "zero_shot")
