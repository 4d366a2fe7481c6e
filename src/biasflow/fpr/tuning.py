"""Trained classifiers on a causal LM: soft-prompt tuning (paper 002) and fine-tuning (paper 004).

Both read the class scores the same way (paper 002, section 3.3): the LM's next-token logits at
the last non-padding position, restricted to the first tokens of " negative", " neutral" and
" positive" (labels 0, 1, 2), trained with cross-entropy.

* :func:`soft_prompt_train`: the LM is frozen; ``prompt_length`` prompt embeddings,
  initialised to the BOS embedding (the first token's when the tokenizer has no BOS), are
  prepended to the input embeddings and are the only parameters trained.
* :func:`fine_tune`: ``method="full"`` trains every weight; ``method="lora"`` trains LoRA
  adapters of ``rank`` on every linear non-embedding layer (paper 004, appendix A), through
  ``peft`` (``pip install -e '.[lora]'`` or ``pip install peft``).

The settings are a :class:`ClassifierSettings` (the config's ``fpr.classifiers.<name>``, whose
defaults per method are the schema's). Training uses AdamW, shuffles with ``seed``, holds
out ``val_fraction`` of the examples for
early stopping on the validation loss (``patience`` epochs without improvement; the best
epoch's parameters are kept) and records ``history``: one dict per epoch with ``epoch``,
``train_loss`` (mean over the epoch's batches) and ``val_loss`` (None without a validation set,
in which case the training loss is monitored). The model comes from its config entry through
the models layer (:func:`biasflow.models.load_for_training`), so GGUF and ``pkg:`` weights
work as for generation and only backends with local weights can be trained.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields
from typing import Any

import numpy as np

from biasflow.errors import BiasflowError
from biasflow.extras import require
from biasflow.fpr.prompting import METHODS as PROMPTING
from biasflow.models import ModelSpec, load_for_training
from biasflow.models.transformers_backend import default_device
from biasflow.schema import filled
from biasflow.settings import StepSettings

LABEL_WORDS = (" negative", " neutral", " positive")
# The schema of one entry of fpr.classifiers (its defaults depend on the method).
CLASSIFIER_SCHEMA = "#/properties/fpr/properties/classifiers/additionalProperties"


@dataclass(frozen=True)
class ClassifierSettings(StepSettings):
    """One classifier of the config's ``fpr.classifiers`` (docs/methods.md §3.6): its name, method and settings.

    A method takes only its own settings; the others are None. :meth:`of` fills the
    method's defaults from the schema.
    """

    name: str
    method: str
    k: int | None
    prompt_length: int | None
    rank: int | None
    lr: float | None
    weight_decay: float | None
    epochs: int | None
    patience: int | None
    val_fraction: float | None
    batch_size: int | None

    @classmethod
    def of(cls, name: str, entry: Mapping) -> ClassifierSettings:
        """The settings of classifier ``name`` from its config entry; keys it leaves out take the method's defaults."""
        entry = filled(dict(entry), CLASSIFIER_SCHEMA)
        values: dict[str, Any] = {f.name: entry.get(f.name) for f in fields(cls) if f.name != "name"}
        return cls(name=name, **values)

    def given(self, name: str) -> Any:
        """The setting ``name`` of this classifier's method, which :meth:`of` fills from the schema: never None."""
        value = getattr(self, name)
        if value is None:
            raise BiasflowError(
                f"fpr.classifiers.{self.name}: method {self.method} needs {name}; give it in the entry."
            )
        return value

    @property
    def reads_labelled(self) -> bool:
        """k-shot prompting draws its examples from the labelled set, and tuning trains on it (§3.6)."""
        return self.method == "k_shot" or self.method not in PROMPTING


MAX_TOKENS = 256

log = logging.getLogger("biasflow")


def _load(spec: ModelSpec, cache_dir: str, seed: int):
    torch = require("torch", "tuning a classifier")

    torch.manual_seed(seed)
    tokenizer, model = load_for_training(spec, cache_dir)
    tokenizer.padding_side = "right"
    if tokenizer.pad_token is None:
        tokenizer.pad_token = tokenizer.eos_token
    return tokenizer, model.to(default_device())


def label_token_ids(tokenizer) -> list[int]:
    """First token ids of " negative", " neutral", " positive"; an error if they coincide."""
    ids = []
    for word in LABEL_WORDS:
        tokens = tokenizer(word, add_special_tokens=False)["input_ids"]
        if not tokens:
            raise BiasflowError(
                f"the tokenizer encodes {word!r} as nothing; this model cannot be a label-token classifier"
            )
        ids.append(int(tokens[0]))
    if len(set(ids)) < len(ids) or (tokenizer.unk_token_id is not None and tokenizer.unk_token_id in ids):
        raise BiasflowError(
            f"the labels' first tokens are not distinct known tokens ({ids}) for this tokenizer; "
            "use a model whose vocabulary has 'negative', 'neutral' and 'positive'"
        )
    return ids


def _check_data(texts: Sequence[str], labels) -> tuple[list[str], np.ndarray]:
    texts = [str(t) for t in texts]
    labels = np.asarray(labels)
    if len(texts) != len(labels):
        raise BiasflowError(f"{len(texts)} texts but {len(labels)} labels")
    if len(texts) < 2:
        raise BiasflowError("training needs at least 2 labelled examples")
    if not np.issubdtype(labels.dtype, np.integer) or labels.min() < 0 or labels.max() > 2:
        raise BiasflowError("labels must be integers 0 (negative), 1 (neutral) or 2 (positive)")
    return texts, labels.astype(np.int64)


class _LabelHead:
    """Class logits ``(n, 3)`` of a causal LM at the last input position, optionally after a soft prompt."""

    def __init__(self, model, tokenizer, label_ids: list[int], batch_size: int, prompt=None):
        self.model, self.tokenizer, self.label_ids = model, tokenizer, label_ids
        self.prompt = prompt  # (prompt_length, hidden) parameter or None
        self.batch_size = batch_size
        self.history: list[dict] = []

    def forward(self, texts: Sequence[str]):
        import torch

        device = self.model.get_input_embeddings().weight.device
        enc = self.tokenizer(list(texts), padding=True, truncation=True, max_length=MAX_TOKENS, return_tensors="pt").to(
            device
        )
        embeds = self.model.get_input_embeddings()(enc["input_ids"])
        mask = enc["attention_mask"]
        if self.prompt is not None:
            n = embeds.shape[0]
            embeds = torch.cat([self.prompt.unsqueeze(0).expand(n, -1, -1).to(embeds.dtype), embeds], dim=1)
            mask = torch.cat([torch.ones(n, self.prompt.shape[0], dtype=mask.dtype, device=device), mask], dim=1)
        logits = self.model(inputs_embeds=embeds, attention_mask=mask).logits
        last = (mask.sum(dim=1) - 1).clamp(min=0)
        return logits[torch.arange(len(last), device=device), last][:, self.label_ids].float()

    def logits(self, texts: Sequence[str]) -> np.ndarray:
        """Class logits, one row per text (negative, neutral, positive)."""
        import torch

        was_training = self.model.training
        self.model.eval()
        rows = []
        with torch.no_grad():
            for start in range(0, len(texts), self.batch_size):
                rows.append(self.forward([str(t) for t in texts[start : start + self.batch_size]]).cpu().numpy())
        self.model.train(was_training)
        return np.concatenate(rows) if rows else np.zeros((0, 3), dtype=np.float32)

    def predict(self, texts: Sequence[str]) -> np.ndarray:
        """Predicted labels 0 (negative), 1 (neutral), 2 (positive)."""
        return self.logits(list(texts)).argmax(axis=1).astype(np.int64)


class SoftPromptClassifier(_LabelHead):
    """A frozen LM with a learned soft prompt; ``predict(texts)``, ``logits(texts)``, ``history``."""


class FineTunedClassifier(_LabelHead):
    """A fine-tuned (full or LoRA) LM read through the label tokens; ``predict``, ``logits``, ``history``."""


def _train(
    head: _LabelHead,
    params: list,
    texts: list[str],
    labels: np.ndarray,
    *,
    lr: float,
    weight_decay: float,
    epochs: int,
    patience: int,
    val_fraction: float,
    seed: int,
    train_mode: bool,
) -> None:
    """Train ``params`` by cross-entropy on ``head``'s logits, early stopping on the validation loss.

    The examples are taken in the order of their texts (then labels) before the seeded shuffle
    that holds out the validation share and orders the batches, so the order of the labelled
    file's rows changes nothing.
    """
    import torch

    rng = np.random.default_rng(seed)
    order = np.lexsort((labels, np.asarray(texts)))[rng.permutation(len(texts))]
    n_val = math.floor(val_fraction * len(texts))
    n_val = min(n_val, len(texts) - 1)
    val_idx, train_idx = order[:n_val], order[n_val:]
    device = params[0].device
    y = torch.as_tensor(labels, device=device)
    optimizer = torch.optim.AdamW(params, lr=lr, weight_decay=weight_decay)
    loss_fn = torch.nn.CrossEntropyLoss()

    def snapshot():
        return [p.detach().to("cpu", copy=True) for p in params]

    def mean_loss(idx) -> float:
        head.model.eval()
        total = 0.0
        with torch.no_grad():
            for start in range(0, len(idx), head.batch_size):
                batch = idx[start : start + head.batch_size]
                total += loss_fn(head.forward([texts[i] for i in batch]), y[batch]).item() * len(batch)
        return total / len(idx)

    best, best_params, bad = math.inf, snapshot(), 0
    for epoch in range(1, epochs + 1):
        head.model.train(train_mode)
        shuffled = rng.permutation(train_idx)
        total = 0.0
        for start in range(0, len(shuffled), head.batch_size):
            batch = shuffled[start : start + head.batch_size]
            optimizer.zero_grad()
            loss = loss_fn(head.forward([texts[i] for i in batch]), y[batch])
            loss.backward()
            optimizer.step()
            total += loss.item() * len(batch)
        train_loss = total / len(shuffled)
        val_loss = mean_loss(val_idx) if len(val_idx) else None
        head.history.append({"epoch": epoch, "train_loss": train_loss, "val_loss": val_loss})
        log.info(
            "epoch %d/%d: train loss %.4f, validation loss %s",
            epoch,
            epochs,
            train_loss,
            "n/a" if val_loss is None else f"{val_loss:.4f}",
        )
        monitored = val_loss if val_loss is not None else train_loss
        if monitored < best:
            best, best_params, bad = monitored, snapshot(), 0
        else:
            bad += 1
            if bad >= patience:
                break
    with torch.no_grad():
        for p, saved in zip(params, best_params, strict=True):
            p.copy_(saved.to(p.device))
    head.model.eval()


def soft_prompt_train(
    spec: ModelSpec, cache_dir: str, texts: Sequence[str], labels, *, settings: ClassifierSettings, seed: int
) -> SoftPromptClassifier:
    """Tune ``prompt_length`` soft-prompt embeddings on a frozen LM (paper 002); ``epochs=0``: the initial prompt."""
    import torch

    texts, labels = _check_data(texts, labels)
    prompt_length = settings.given("prompt_length")
    if prompt_length < 1:
        raise BiasflowError(f"prompt_length must be at least 1; got {prompt_length}")
    tokenizer, model = _load(spec, cache_dir, seed)
    ids = label_token_ids(tokenizer)
    for p in model.parameters():
        p.requires_grad_(False)
    embedding = model.get_input_embeddings().weight
    init_id = tokenizer.bos_token_id
    if init_id is None:
        first = tokenizer("", add_special_tokens=True)["input_ids"] or tokenizer(texts[0])["input_ids"]
        init_id = int(first[0])
    prompt = torch.nn.Parameter(embedding[init_id].detach().clone().float().repeat(prompt_length, 1))
    head = SoftPromptClassifier(model, tokenizer, ids, settings.given("batch_size"), prompt=prompt)
    # Paper 002 tunes the prompt without weight decay (the method takes no weight_decay setting).
    _train(
        head,
        [prompt],
        texts,
        labels,
        lr=settings.given("lr"),
        weight_decay=0.0,
        epochs=settings.given("epochs"),
        patience=settings.given("patience"),
        val_fraction=settings.given("val_fraction"),
        seed=seed,
        train_mode=False,
    )
    return head


def fine_tune(
    spec: ModelSpec, cache_dir: str, texts: Sequence[str], labels, *, settings: ClassifierSettings, seed: int
) -> FineTunedClassifier:
    """Fine-tune the LM (``full``) or LoRA adapters of ``rank`` on every linear layer (``lora``)."""
    method = settings.method
    if method not in ("lora", "full"):
        raise BiasflowError(f"unknown fine-tuning method '{method}'; use 'lora' or 'full'")
    texts, labels = _check_data(texts, labels)
    if method == "lora":
        peft = require("peft", "LoRA fine-tuning")
    tokenizer, model = _load(spec, cache_dir, seed)
    ids = label_token_ids(tokenizer)
    if method == "lora":
        rank = settings.given("rank")
        config = peft.LoraConfig(r=rank, lora_alpha=2 * rank, lora_dropout=0.0, target_modules="all-linear")
        model = peft.get_peft_model(model, config)
    params = [p for p in model.parameters() if p.requires_grad]
    head = FineTunedClassifier(model, tokenizer, ids, settings.given("batch_size"))
    _train(
        head,
        params,
        texts,
        labels,
        lr=settings.given("lr"),
        weight_decay=settings.given("weight_decay"),
        epochs=settings.given("epochs"),
        patience=settings.given("patience"),
        val_fraction=settings.given("val_fraction"),
        seed=seed,
        train_mode=True,
    )
    return head


__all__ = [
    "ClassifierSettings",
    "FineTunedClassifier",
    "SoftPromptClassifier",
    "fine_tune",
    "label_token_ids",
    "soft_prompt_train",
]
