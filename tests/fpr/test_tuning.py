"""Soft-prompt tuning and fine-tuning on a tiny local Llama whose vocabulary has the label words."""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest

from biasflow.errors import BiasflowError
from biasflow.fpr.tuning import ClassifierSettings
from biasflow.models import ModelSpec
from specs import make_spec

torch = pytest.importorskip("torch")


# A tiny model's steps: one torch thread (tests/conftest.py says why).
pytestmark = pytest.mark.usefixtures("one_torch_thread")


TEXTS = [
    "the woman worked as a nurse",
    "the man worked as a doctor",
    "she is a kind person",
    "he is a friendly neighbour",
    "the bread was good",
    "the cook said that",
    "people meet at the market",
    "the teacher agreed",
    "an actor on a stage",
    "they live in this town",
    "she likes music",
    "the performers on a stage",
]
LABELS = [i % 3 for i in range(len(TEXTS))]


def tuned(method: str, **settings) -> ClassifierSettings:
    """A classifier entry of ``method`` with ``settings``; the rest are the method's defaults (the schema's)."""
    return ClassifierSettings.of(method, {"method": method, **settings})


def spec_of(model_dir) -> ModelSpec:
    return make_spec(name="tiny", backend="transformers", model=str(model_dir))


@pytest.fixture(scope="module")
def label_model(tiny_model_dir, tmp_path_factory):
    """(spec, cache dir) of the tiny model plus the words negative/neutral/positive in its vocabulary."""
    from transformers import AutoModelForCausalLM, AutoTokenizer

    out = tmp_path_factory.mktemp("label-model")
    tokenizer = AutoTokenizer.from_pretrained(tiny_model_dir)
    tokenizer.add_tokens(["negative", "neutral", "positive"])
    torch.manual_seed(0)
    model = AutoModelForCausalLM.from_pretrained(tiny_model_dir)
    model.resize_token_embeddings(len(tokenizer), mean_resizing=False)
    tokenizer.save_pretrained(out)
    model.save_pretrained(out)
    return spec_of(out), str(tmp_path_factory.mktemp("cache"))


def cross_entropy(logits: np.ndarray, labels) -> float:
    t = torch.as_tensor(logits)
    return torch.nn.functional.cross_entropy(t, torch.as_tensor(labels)).item()


def test_soft_prompt_lowers_loss_and_freezes_the_lm(label_model):
    from biasflow.fpr.tuning import soft_prompt_train

    initial = soft_prompt_train(*label_model, TEXTS, LABELS, settings=tuned("soft_prompt", epochs=0), seed=1)
    before = {k: v.clone() for k, v in initial.model.state_dict().items()}
    trained = soft_prompt_train(
        *label_model, TEXTS, LABELS, settings=tuned("soft_prompt", epochs=8, patience=8, val_fraction=0.0), seed=1
    )
    after = trained.model.state_dict()
    assert before.keys() == after.keys()
    assert all(torch.equal(before[k], after[k]) for k in before)
    assert trained.prompt.shape == (8, trained.model.config.hidden_size)
    assert len(trained.history) == 8 and trained.history[-1]["val_loss"] is None
    assert trained.history[-1]["train_loss"] < trained.history[0]["train_loss"]
    assert cross_entropy(trained.logits(TEXTS), LABELS) < cross_entropy(initial.logits(TEXTS), LABELS)
    preds = trained.predict(TEXTS)
    assert preds.shape == (len(TEXTS),) and set(preds.tolist()) <= {0, 1, 2}


def test_soft_prompt_early_stopping_records_validation(label_model):
    from biasflow.fpr.tuning import soft_prompt_train

    clf = soft_prompt_train(
        *label_model, TEXTS, LABELS, settings=tuned("soft_prompt", epochs=30, patience=2, lr=3.0), seed=0
    )
    assert 1 <= len(clf.history) <= 30
    assert all(h["val_loss"] is not None for h in clf.history)


def test_user_errors(label_model, tiny_model_dir):
    from biasflow.fpr.tuning import fine_tune, soft_prompt_train

    with pytest.raises(BiasflowError, match="labels must be"):
        soft_prompt_train(*label_model, TEXTS[:3], [0, 1, 3], settings=tuned("soft_prompt", epochs=0), seed=0)
    with pytest.raises(BiasflowError, match="unknown fine-tuning method"):
        fine_tune(*label_model, TEXTS, LABELS, settings=tuned("adapter"), seed=0)
    with pytest.raises(BiasflowError, match="not distinct"):  # the plain tiny vocabulary lacks the words
        soft_prompt_train(
            spec_of(tiny_model_dir), label_model[1], TEXTS, LABELS, settings=tuned("soft_prompt", epochs=0), seed=0
        )
    with pytest.raises(BiasflowError, match=r"need local weights \(backend transformers\), not backend openai"):
        soft_prompt_train(
            make_spec(name="api", backend="openai", model="gpt"),
            label_model[1],
            TEXTS,
            LABELS,
            settings=tuned("soft_prompt"),
            seed=0,
        )
    with pytest.raises(BiasflowError, match=r"not backend ctranslate2\. Set backend: transformers for it"):
        soft_prompt_train(
            make_spec(name="ct2", backend="ctranslate2", model=str(tiny_model_dir)),
            label_model[1],
            TEXTS,
            LABELS,
            settings=tuned("soft_prompt"),
            seed=0,
        )


@pytest.mark.skipif(importlib.util.find_spec("peft") is None, reason="peft not installed (pip install -e '.[lora]')")
def test_lora_fine_tune_changes_logits(label_model):
    from biasflow.fpr.tuning import fine_tune

    clf = fine_tune(*label_model, TEXTS, LABELS, settings=tuned("lora", epochs=1, lr=1e-2, val_fraction=0.0), seed=0)
    assert len(clf.history) == 1
    trainable = [n for n, p in clf.model.named_parameters() if p.requires_grad]
    assert trainable and all("lora_" in n for n in trainable)
    # LoRA B starts at zero: untrained LoRA logits equal the base model's; one epoch moves them
    plain = fine_tune(*label_model, TEXTS, LABELS, settings=tuned("lora", epochs=0), seed=0)
    assert clf.logits(TEXTS).shape == (len(TEXTS), 3)
    assert not np.allclose(plain.logits(TEXTS), clf.logits(TEXTS), atol=1e-4)


def test_full_fine_tune_runs(label_model):
    from biasflow.fpr.tuning import fine_tune

    clf = fine_tune(*label_model, TEXTS, LABELS, settings=tuned("full", epochs=1, lr=1e-3, val_fraction=0.0), seed=0)
    assert clf.predict(TEXTS).shape == (len(TEXTS),)
