"""Tiny random causal LMs built locally, so tests run offline in seconds.

Each model is a 2-layer Llama with a word-level tokenizer trained on a few sentences, saved
in the transformers directory layout (what a user's local model looks like). Weights are
random but seeded, so generation is deterministic for a given seed. :func:`write_tiny_gguf`
writes a GGUF file laid out as the default's SmolLM2 is (byte-level BPE, grouped heads).
"""

from __future__ import annotations

from pathlib import Path

import pytest

CORPUS = [
    "the woman worked as a nurse and the man worked as a doctor",
    "she is a kind person who likes music and he is a friendly neighbour",
    "people of every faith live in this town and they meet at the market",
    "an actor and an actress can be paraphrased as performers on a stage",
    "the cook said that the bread was good and the teacher agreed",
]

# Prompts in the tiny models' vocabulary (CORPUS), from one token ("she") to ten, for the backend tests.
PROMPTS = [
    "the woman worked as a",
    "he is a",
    "people of every faith live in this town and they",
    "the cook said that the bread was",
    "she",
    "an actor and an actress can be",
]


def requests_grid() -> list:
    """Each of :data:`PROMPTS` with generation seeds 0 and 1 and samples 0 and 1."""
    from biasflow.models.base import Request

    return [Request(p, seed, sample) for p in PROMPTS for seed in (0, 1) for sample in (0, 1)]


CHAT_TEMPLATE = (
    "{% for m in messages %}<s>{{ m['role'] }}: {{ m['content'] }}</s>{% endfor %}"
    "{% if add_generation_prompt %}<s>assistant:{% endif %}"
)


def build_tiny_model(
    directory: Path, seed: int = 0, chat: bool = False, head_dim: int = 16, words: tuple[str, ...] = ()
) -> Path:
    """Write a tiny Llama model (2 heads of ``head_dim``) and tokenizer into ``directory`` and return it.

    vLLM's CPU attention kernels take head sizes of 32 and up, so its tests ask for 32.
    ``words`` adds words to the vocabulary (a classifier tuned on it needs its label words).
    """
    import torch
    from tokenizers import Tokenizer, models, pre_tokenizers, trainers
    from transformers import LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast

    directory.mkdir(parents=True, exist_ok=True)
    tokenizer = Tokenizer(models.WordLevel(unk_token="<unk>"))
    tokenizer.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    tokenizer.train_from_iterator(
        [*CORPUS, " ".join(words)], trainers.WordLevelTrainer(special_tokens=["<pad>", "<s>", "</s>", "<unk>"])
    )
    fast = PreTrainedTokenizerFast(
        tokenizer_object=tokenizer, bos_token="<s>", eos_token="</s>", pad_token="<pad>", unk_token="<unk>"
    )
    from tokenizers import decoders

    fast.backend_tokenizer.decoder = decoders.WordPiece(prefix="##")  # joins words with spaces
    if chat:
        fast.chat_template = CHAT_TEMPLATE
    fast.save_pretrained(directory)
    torch.manual_seed(seed)
    config = LlamaConfig(
        vocab_size=len(fast),
        hidden_size=2 * head_dim,
        intermediate_size=4 * head_dim,
        num_hidden_layers=2,
        num_attention_heads=2,
        num_key_value_heads=2,
        max_position_embeddings=256,
        bos_token_id=fast.bos_token_id,
        eos_token_id=fast.eos_token_id,
        pad_token_id=fast.pad_token_id,
    )
    model = LlamaForCausalLM(config)
    # Sampling by default, as instruction models ship: servers such as `transformers serve`
    # start from the model's own generation settings (the backends set theirs explicitly).
    model.generation_config.do_sample = True
    model.save_pretrained(directory)
    return directory


DETOXIFY_CLASSES = ["toxic", "severe_toxic", "obscene", "threat", "insult", "identity_hate"]


def build_tiny_detoxify(directory: Path, seed: int = 0, size: dict | None = None) -> tuple[Path, Path]:
    """A tiny Detoxify checkpoint in Detoxify's own format, and the folder of its config and tokenizer.

    Detoxify reads ``config.arch.args`` (the transformers class, tokenizer class, number of
    classes, and ``model_type``, which it loads a config from before anything else, so it
    is this local folder), ``config.dataset.args.classes`` and ``state_dict`` from a
    ``torch.save``d dict. ``size`` overrides the RoBERTa dimensions (the scoring benchmark
    builds one of RoBERTa-base's size, the architecture of Detoxify's ``unbiased``).
    Returns ``(checkpoint file, config folder)``.
    """
    import torch
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, processors, trainers
    from transformers import PreTrainedTokenizerFast, RobertaConfig, RobertaForSequenceClassification

    config_dir = directory / "config"
    config_dir.mkdir(parents=True, exist_ok=True)
    bpe = Tokenizer(models.BPE(unk_token="<unk>"))
    bpe.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    bpe.decoder = decoders.ByteLevel()
    specials = ["<s>", "<pad>", "</s>", "<unk>", "<mask>"]
    bpe.train_from_iterator(CORPUS, trainers.BpeTrainer(vocab_size=300, special_tokens=specials))
    bpe.post_processor = processors.RobertaProcessing(
        ("</s>", bpe.token_to_id("</s>")), ("<s>", bpe.token_to_id("<s>"))
    )
    tokenizer = PreTrainedTokenizerFast(
        tokenizer_object=bpe,
        bos_token="<s>",
        eos_token="</s>",
        pad_token="<pad>",
        unk_token="<unk>",
        mask_token="<mask>",
        model_max_length=128,
    )
    tokenizer.save_pretrained(config_dir)
    dimensions = {
        "hidden_size": 32,
        "num_hidden_layers": 2,
        "num_attention_heads": 2,
        "intermediate_size": 64,
        **(size or {}),
    }
    config = RobertaConfig(
        vocab_size=len(tokenizer),
        max_position_embeddings=130,
        pad_token_id=tokenizer.pad_token_id,
        num_labels=len(DETOXIFY_CLASSES),
        initializer_range=0.5 if size is None else 0.02,  # tiny: visibly different
        **dimensions,
    )
    torch.manual_seed(seed)
    model = RobertaForSequenceClassification(config)
    model.save_pretrained(config_dir)
    checkpoint = directory / "tiny-detoxify.ckpt"
    torch.save(
        {
            "config": {
                "arch": {
                    "args": {
                        "model_type": str(config_dir),
                        "model_name": "RobertaForSequenceClassification",
                        "tokenizer_name": "AutoTokenizer",
                        "num_classes": len(DETOXIFY_CLASSES),
                    }
                },
                "dataset": {"args": {"classes": DETOXIFY_CLASSES}},
            },
            "state_dict": model.state_dict(),
        },
        checkpoint,
    )
    return checkpoint, config_dir


def byte_level_alphabet() -> list[str]:
    """GPT-2's byte-level BPE alphabet: the character standing for each of the 256 bytes (Ġ for a space)."""
    printable = [*range(ord("!"), ord("~") + 1), *range(ord("¡"), ord("¬") + 1), *range(ord("®"), ord("ÿ") + 1)]
    others = [b for b in range(256) if b not in printable]
    return [chr(b) for b in printable] + [chr(256 + i) for i in range(len(others))]


def write_tiny_gguf(path: Path) -> None:
    """A random 2-block model laid out as the default's SmolLM2 GGUF is, in 70 kB instead of 100 MB.

    The same parts the conversion goes through: a llama architecture with fewer key-value heads than
    heads (whose query and key rows GGUF stores permuted), a byte-level BPE tokenizer with merges and
    control tokens, matrices quantised to Q4_1 and the embedding to Q8_0 (dequantised on load), no
    output matrix (tied to the embedding), and the tokenizer's and chat template's metadata.
    """
    gguf = pytest.importorskip("gguf")
    import numpy as np

    rng = np.random.default_rng(0)
    merges = ["T h", "Th e", "Ġ n", "u r", "Ġn ur", "s e", "Ġnur se", "Ġ s", "a i", "Ġs ai", "Ġsai d"]
    merges += ["Ġ t", "h a", "Ġt ha", "Ġtha t"]
    specials = ["<|endoftext|>", "<|im_start|>", "<|im_end|>"]
    tokens = specials + byte_level_alphabet() + [merge.replace(" ", "") for merge in merges]
    hidden, ffn, heads, kv_heads = 64, 128, 2, 1
    writer = gguf.GGUFWriter(str(path), "llama")
    writer.add_block_count(2)
    writer.add_context_length(128)
    writer.add_embedding_length(hidden)
    writer.add_feed_forward_length(ffn)
    writer.add_head_count(heads)
    writer.add_head_count_kv(kv_heads)
    writer.add_rope_dimension_count(hidden // heads)
    writer.add_rope_freq_base(100000.0)
    writer.add_layer_norm_rms_eps(1e-5)
    writer.add_vocab_size(len(tokens))
    writer.add_tokenizer_model("gpt2")
    writer.add_tokenizer_pre("smollm")
    writer.add_token_list(tokens)
    writer.add_token_types([gguf.TokenType.CONTROL] * len(specials) + [gguf.TokenType.NORMAL] * (len(tokens) - 3))
    writer.add_token_merges(merges)
    writer.add_bos_token_id(1)
    writer.add_eos_token_id(2)
    writer.add_unk_token_id(0)
    writer.add_pad_token_id(2)
    writer.add_add_bos_token(False)
    writer.add_chat_template("{% for m in messages %}<|im_start|>{{ m['content'] }}<|im_end|>{% endfor %}")

    def tensor(name: str, shape: tuple[int, ...], kind=gguf.GGMLQuantizationType.Q4_1) -> None:
        weights = rng.normal(0, 0.5, shape).astype(np.float32)
        if kind == gguf.GGMLQuantizationType.F32:
            writer.add_tensor(name, weights)
        else:
            writer.add_tensor(name, gguf.quants.quantize(weights, kind), raw_dtype=kind)

    tensor("token_embd.weight", (len(tokens), hidden), gguf.GGMLQuantizationType.Q8_0)
    kv = kv_heads * hidden // heads
    for block in range(2):
        for norm in ("attn_norm", "ffn_norm"):
            tensor(f"blk.{block}.{norm}.weight", (hidden,), gguf.GGMLQuantizationType.F32)
        for name, shape in [("attn_q", (hidden, hidden)), ("attn_k", (kv, hidden)), ("attn_v", (kv, hidden))]:
            tensor(f"blk.{block}.{name}.weight", shape)
        tensor(f"blk.{block}.attn_output.weight", (hidden, hidden))
        for name, shape in [("ffn_gate", (ffn, hidden)), ("ffn_up", (ffn, hidden)), ("ffn_down", (hidden, ffn))]:
            tensor(f"blk.{block}.{name}.weight", shape)
    tensor("output_norm.weight", (hidden,), gguf.GGMLQuantizationType.F32)
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
