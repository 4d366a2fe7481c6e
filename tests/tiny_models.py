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


def build_tiny_model(directory: Path, seed: int = 0, chat: bool = False) -> Path:
    """Write a tiny Llama model and tokenizer into ``directory`` and return it."""
    import torch
    from tokenizers import Tokenizer, models, pre_tokenizers, trainers
    from transformers import LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast

    directory.mkdir(parents=True, exist_ok=True)
    tokenizer = Tokenizer(models.WordLevel(unk_token="<unk>"))
    tokenizer.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    tokenizer.train_from_iterator(
        CORPUS, trainers.WordLevelTrainer(special_tokens=["<pad>", "<s>", "</s>", "<unk>"])
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
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=2,
        num_attention_heads=2,
        num_key_value_heads=2,
        max_position_embeddings=256,
        bos_token_id=fast.bos_token_id,
        eos_token_id=fast.eos_token_id,
        pad_token_id=fast.pad_token_id,
    )
    LlamaForCausalLM(config).save_pretrained(directory)
    return directory
