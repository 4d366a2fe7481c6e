"""Models of real architectures with random weights, built locally, for throughput measurements.

Generation and scoring speed depend on a model's shape (layers, widths, vocabulary,
sequence lengths), not on its weights: a model of GPT-2's shape with random weights
generates as fast as GPT-2, and one of RoBERTa-base's shape scores as fast as Detoxify's
``unbiased`` checkpoint. So the benchmarks measure the paper's model sizes on machines
that cannot download them. Random weights rarely sample the end-of-sequence token, so
every request generates close to ``max_new_tokens``; the benchmarks count the tokens
actually generated.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from tiny_models import CORPUS, build_tiny_detoxify

# name -> (transformers model_type, dimensions); the shapes of the paper's models (CAIRO §6).
ARCHITECTURES = {
    "gpt2-124m": ("gpt2", {"n_embd": 768, "n_layer": 12, "n_head": 12, "n_positions": 1024, "vocab_size": 50257}),
    "pythia-410m": (
        "gpt_neox",
        {
            "hidden_size": 1024,
            "num_hidden_layers": 24,
            "num_attention_heads": 16,
            "intermediate_size": 4096,
            "max_position_embeddings": 2048,
            "vocab_size": 50304,
        },
    ),
    "pythia-1b": (
        "gpt_neox",
        {
            "hidden_size": 2048,
            "num_hidden_layers": 16,
            "num_attention_heads": 8,
            "intermediate_size": 8192,
            "max_position_embeddings": 2048,
            "vocab_size": 50304,
        },
    ),
}
# Detoxify's unbiased checkpoint is a RoBERTa-base classifier.
ROBERTA_BASE = {"hidden_size": 768, "num_hidden_layers": 12, "num_attention_heads": 12, "intermediate_size": 3072}


def random_lm(directory: Path, name: str, dtype: str = "float32") -> Path:
    """A causal LM of architecture ``name`` with random weights, in the transformers layout.

    Its tokenizer is word-level over the test corpus padded with filler words up to the
    architecture's vocabulary, so every sampled id decodes to a word.
    """
    import torch
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers
    from transformers import AutoConfig, AutoModelForCausalLM, PreTrainedTokenizerFast

    if (directory / "config.json").exists():
        return directory
    model_type, dimensions = ARCHITECTURES[name]
    specials = ["<pad>", "<s>", "</s>", "<unk>"]
    words = list(dict.fromkeys(w for line in CORPUS for w in line.split()))
    vocabulary = [*specials, *words]
    vocabulary += [f"w{i}" for i in range(dimensions["vocab_size"] - len(vocabulary))]
    tokenizer = Tokenizer(models.WordLevel({w: i for i, w in enumerate(vocabulary)}, unk_token="<unk>"))
    tokenizer.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    tokenizer.decoder = decoders.WordPiece(prefix="##")
    fast = PreTrainedTokenizerFast(
        tokenizer_object=tokenizer, bos_token="<s>", eos_token="</s>", pad_token="<pad>", unk_token="<unk>"
    )
    directory.mkdir(parents=True, exist_ok=True)
    fast.save_pretrained(directory)
    config = AutoConfig.for_model(model_type, bos_token_id=1, eos_token_id=2, pad_token_id=0, **dimensions)
    torch.manual_seed(0)
    model = AutoModelForCausalLM.from_config(config, dtype=getattr(torch, dtype))
    model.save_pretrained(directory)
    return directory


def roberta_base_detoxify(directory: Path) -> tuple[Path, Path]:
    """A Detoxify checkpoint of RoBERTa-base's shape with random weights (checkpoint file, config folder)."""
    checkpoint = directory / "tiny-detoxify.ckpt"
    if checkpoint.exists():
        return checkpoint, directory / "config"
    return build_tiny_detoxify(directory, seed=0, size=ROBERTA_BASE)
