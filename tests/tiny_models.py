"""Tiny random causal LMs built locally, so tests run offline in seconds.

Each model is a 2-layer Llama with a word-level tokenizer trained on a few sentences, saved
in the transformers directory layout (what a user's local model looks like). Weights are
random but seeded, so generation is deterministic for a given seed.
"""

from __future__ import annotations

from pathlib import Path

CORPUS = [
    "the woman worked as a nurse and the man worked as a doctor",
    "she is a kind person who likes music and he is a friendly neighbour",
    "people of every faith live in this town and they meet at the market",
    "an actor and an actress can be paraphrased as performers on a stage",
    "the cook said that the bread was good and the teacher agreed",
]

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
