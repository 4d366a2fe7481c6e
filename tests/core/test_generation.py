"""Generation: the top-k/top-p filter, the transformers backend on tiny local models, the
cached generator and the continuation table."""

from __future__ import annotations

import functools
import random

import numpy as np
import pandas as pd
import pytest
import torch

from biasflow.cache import ShardCache
from biasflow.cairo.continuations import GenerationSettings, continuation_table
from biasflow.errors import BiasflowError
from biasflow.generation import CachedGenerator
from biasflow.models import Generation, ModelSpec, Request
from biasflow.models.transformers_backend import TransformersBackend, _inverse_cdf, _nucleus, _sample, _top_k
from specs import make_decoding, make_spec
from tiny_models import PROMPTS, requests_grid

# A tiny model's steps: one torch thread (tests/conftest.py says why).
pytestmark = pytest.mark.usefixtures("one_torch_thread")


# ---------------------------------------------------------------------------------------
# The sampler's filter (top-k, then the nucleus) against a brute-force reference


def _filter(torch, logits, decoding):
    """The logits with every token the sampler's top-k and nucleus drop set to -inf."""
    logits = _top_k(torch, logits, decoding.top_k)
    if decoding.top_p >= 1.0:
        return logits
    _, ids, kept = _nucleus(torch, torch.softmax(logits, dim=-1), decoding.top_p)
    keep = torch.zeros_like(logits, dtype=torch.bool).scatter(1, ids, kept)
    return logits.masked_fill(~keep, float("-inf"))


EPS = 1e-5  # tokens whose preceding mass is this close to top_p may go either way (float rounding)


def reference_nucleus(row: np.ndarray, top_k: int, top_p: float) -> tuple[set[int], set[int]]:
    """Kept token ids by brute force, plus the ids too close to the top_p boundary to call."""
    x = row.astype(np.float64)
    candidates = np.arange(len(x))
    if top_k > 0:
        candidates = np.argsort(-x, kind="stable")[: min(top_k, len(x))]
    if top_p >= 1.0:
        return set(candidates.tolist()), set()
    z = x[candidates]
    p = np.exp(z - z.max())
    p /= p.sum()
    order = np.argsort(-p, kind="stable")
    kept, unsure, mass = set(), set(), 0.0
    for j in order:
        token = int(candidates[j])
        if abs(mass - top_p) < EPS:
            unsure.add(token)
        if mass < top_p:  # the prefix has not reached top_p yet: this token belongs to it
            kept.add(token)
        mass += p[j]
    return kept, unsure


def top1024_mass(row: np.ndarray) -> float:
    x = row.astype(np.float64)
    p = np.exp(x - x.max())
    p /= p.sum()
    return float(np.sort(p)[::-1][:1024].sum())


def assert_filter_matches_reference(logits: torch.Tensor, top_k: int, top_p: float) -> None:
    out = _filter(torch, logits.clone(), make_decoding(top_k=top_k, top_p=top_p))
    assert out.shape == logits.shape
    for i in range(logits.shape[0]):
        kept = set(torch.nonzero(torch.isfinite(out[i])).flatten().tolist())
        expected, unsure = reference_nucleus(logits[i].numpy(), top_k, top_p)
        assert kept - unsure == expected - unsure, f"row {i}: top_k={top_k} top_p={top_p}"
        # Whatever happens at the boundary, the kept set is a top slice of the distribution.
        if top_k == 0 and len(kept) < logits.shape[1]:
            dropped = torch.ones(logits.shape[1], dtype=torch.bool)
            dropped[list(kept)] = False
            assert logits[i, list(kept)].min() >= logits[i, dropped].max()
        # Kept tokens keep their logits untouched.
        idx = torch.tensor(sorted(kept))
        assert torch.equal(out[i, idx], logits[i, idx])


@pytest.mark.parametrize("vocab", [7, 50, 1000, 1024, 1025, 5000])
@pytest.mark.parametrize(("top_k", "top_p"), [(0, 0.5), (0, 0.9), (0, 0.999), (10, 1.0), (40, 0.8), (2000, 0.95)])
def test_filter_matches_brute_force_on_random_logits(vocab, top_k, top_p):
    gen = torch.Generator().manual_seed(vocab * 1000 + top_k)
    logits = torch.randn(6, vocab, generator=gen) * torch.tensor([[0.5], [1.0], [2.0], [3.0], [5.0], [8.0]])
    assert_filter_matches_reference(logits, top_k, top_p)


@pytest.mark.parametrize("top_k", [0, 1500])
def test_filter_flat_distributions_take_the_full_sort_path(top_k):
    """Near-uniform rows over 5000 tokens: the 1024 most likely hold ~20% of the mass,
    far below top_p, so the nucleus must be found by sorting the whole vocabulary."""
    gen = torch.Generator().manual_seed(7)
    flat = torch.randn(3, 5000, generator=gen) * 0.05
    peaked = torch.randn(1, 5000, generator=gen) * 6.0
    logits = torch.cat([flat, peaked])  # one peaked row must not fool the shortcut either
    for row in flat:
        assert top1024_mass(row.numpy()) < 0.5
    for top_p in (0.75, 0.9):
        assert_filter_matches_reference(logits, top_k, top_p)
        out = _filter(torch, logits.clone(), make_decoding(top_k=top_k, top_p=top_p))
        assert torch.isfinite(out[0]).sum() > 1024, "a flat row's nucleus is wider than the shortcut"


def test_filter_extremes():
    gen = torch.Generator().manual_seed(3)
    logits = torch.randn(4, 3000, generator=gen) * 2
    # top_k=1 and a tiny top_p both leave exactly the argmax.
    for decoding in (make_decoding(top_k=1), make_decoding(top_p=1e-9)):
        out = _filter(torch, logits.clone(), decoding)
        assert torch.isfinite(out).sum(dim=-1).tolist() == [1, 1, 1, 1]
        assert torch.equal(out.argmax(dim=-1), logits.argmax(dim=-1))
    # No filtering at all leaves the logits unchanged.
    assert torch.equal(_filter(torch, logits.clone(), make_decoding(top_k=0, top_p=1.0)), logits)


# ---------------------------------------------------------------------------------------
# _inverse_cdf against a whole-vocabulary float64 cumulative sum


def whole_vocabulary_token(probs: torch.Tensor, uniform: torch.Tensor) -> torch.Tensor:
    """The reference: one float64 cumulative sum over the whole vocabulary, searched for u times the total."""
    cdf = probs.double().cumsum(dim=-1)
    return torch.searchsorted(cdf, (uniform * cdf[:, -1]).unsqueeze(1), right=True).squeeze(1)


# The large vocabularies in fewer rows a trial: their 48 and 256 blocks are what they add, and 32 rows of
# Gemma's cost seconds a trial.
@pytest.mark.parametrize(("vocab", "rows"), [(7, 32), (1024, 32), (1500, 32), (49152, 8), (262144, 4)])
def test_blocked_inverse_cdf_finds_the_whole_vocabulary_token(vocab, rows):
    gen = torch.Generator().manual_seed(vocab)
    agree, total = 0, 0
    for trial in range(12):
        logits = torch.randn(rows, vocab, generator=gen) * (1 + trial % 4)
        if trial % 3 == 0:  # filtered tokens have probability 0
            logits[:, torch.randperm(vocab, generator=gen)[: vocab // 2]] = float("-inf")
        probs = torch.softmax(logits, dim=-1)
        uniform = torch.rand(rows, generator=gen, dtype=torch.float64)
        chosen = _inverse_cdf(torch, probs, uniform)
        assert (probs.gather(1, chosen.unsqueeze(1)) > 0).all(), "a token of zero probability"
        agree += int((chosen == whole_vocabulary_token(probs, uniform)).sum())
        total += rows
    assert agree == total


def test_blocked_inverse_cdf_at_the_ends_of_the_unit_interval():
    probs = torch.softmax(torch.randn(3, 3000, generator=torch.Generator().manual_seed(1)), dim=-1)
    probs[:, -1000:] = 0  # the last block holds nothing: u near 1 must end in the last token of positive mass
    uniform = torch.tensor([0.0, 1 - 1e-16, 0.5], dtype=torch.float64)
    chosen = _inverse_cdf(torch, probs, uniform)
    assert chosen[0] == 0 and chosen[1] == 1999
    assert chosen[2] == whole_vocabulary_token(probs, uniform)[2]


# Gemma's vocabulary in 4 rows a trial: the spread of 2 takes the whole-vocabulary sort, which costs
# seconds a trial at 32 rows.
@pytest.mark.parametrize(("vocab", "rows"), [(50, 32), (1500, 32), (262144, 4)])
@pytest.mark.parametrize(("top_k", "top_p"), [(0, 0.5), (0, 0.9), (0, 0.95), (40, 0.9), (1, 0.9)])
def test_nucleus_sampling_finds_the_token_of_filtering_the_whole_vocabulary(vocab, rows, top_k, top_p):
    """The search among the nucleus's candidates against the filter, then one float64 sum over the whole vocabulary."""
    gen = torch.Generator().manual_seed(vocab + top_k)
    decoding = make_decoding(top_k=top_k, top_p=top_p)
    agree, total = 0, 0
    for spread in (2, 4, 6):
        logits = torch.randn(rows, vocab, generator=gen) * spread
        uniform = torch.rand(rows, generator=gen, dtype=torch.float64)
        chosen = _sample(torch, logits, decoding, uniform)
        filtered = _filter(torch, logits, decoding)
        assert torch.isfinite(filtered.gather(1, chosen.unsqueeze(1))).all(), "a token outside the nucleus"
        agree += int((chosen == whole_vocabulary_token(torch.softmax(filtered, dim=-1), uniform)).sum())
        total += rows
    assert agree == total


def test_nucleus_sampling_of_flat_rows_searches_the_whole_vocabulary():
    """A nucleus wider than the candidates (near-uniform rows) goes the whole-vocabulary way, with the same rule."""
    gen = torch.Generator().manual_seed(11)
    logits = torch.cat([torch.randn(3, 5000, generator=gen) * 0.05, torch.randn(1, 5000, generator=gen) * 6])
    uniform = torch.tensor([0.0, 0.3, 1 - 1e-16, 0.7], dtype=torch.float64)
    decoding = make_decoding(top_p=0.9)
    chosen = _sample(torch, logits, decoding, uniform)
    assert torch.equal(chosen, whole_vocabulary_token(torch.softmax(_filter(torch, logits, decoding), dim=-1), uniform))


def test_nucleus_sampling_at_the_ends_of_the_unit_interval():
    """u = 0 takes the nucleus's first token in vocabulary order, u near 1 its last."""
    logits = torch.randn(2, 3000, generator=torch.Generator().manual_seed(2)) * 8
    decoding = make_decoding(top_p=0.8)
    kept = [torch.nonzero(torch.isfinite(row)).flatten() for row in _filter(torch, logits, decoding)]
    first = _sample(torch, logits, decoding, torch.zeros(2, dtype=torch.float64))
    last = _sample(torch, logits, decoding, torch.full((2,), 1 - 1e-16, dtype=torch.float64))
    assert first.tolist() == [int(k[0]) for k in kept] and last.tolist() == [int(k[-1]) for k in kept]


# ---------------------------------------------------------------------------------------
# TransformersBackend on tiny local models


def backend(model_dir, cache_dir, batch_size=4, chat=False, dtype="auto", **decoding) -> TransformersBackend:
    decoding.setdefault("max_new_tokens", 8)
    spec = make_spec(
        "tiny", "transformers", str(model_dir), make_decoding(**decoding), batch_size=batch_size, chat=chat, dtype=dtype
    )
    return TransformersBackend(spec, cache_dir=str(cache_dir), device="cpu")


@functools.cache
def reference_model(model_dir) -> tuple:
    """(tokenizer, float32 model) of ``model_dir`` loaded by transformers alone, once per directory."""
    from transformers import AutoModelForCausalLM, AutoTokenizer

    model = AutoModelForCausalLM.from_pretrained(model_dir, dtype=torch.float32).eval()
    return AutoTokenizer.from_pretrained(model_dir), model


def manual_greedy(model_dir, prompt_ids: list[int], max_new_tokens: int) -> Generation:
    """Argmax decoding by hand, one full forward pass per token."""
    tokenizer, model = reference_model(model_dir)
    stop = {tokenizer.eos_token_id, tokenizer.pad_token_id}
    ids = list(prompt_ids)
    new: list[int] = []
    with torch.inference_mode():
        for _ in range(max_new_tokens):
            token = int(model(torch.tensor([ids])).logits[0, -1].argmax())
            if token in stop:
                break
            ids.append(token)
            new.append(token)
    return Generation(tokenizer.decode(new, skip_special_tokens=True), len(new))


def test_same_requests_twice_give_identical_generations(tiny_model_dir, tmp_path):
    requests = requests_grid()
    first = backend(tiny_model_dir, tmp_path).generate(requests)
    second = backend(tiny_model_dir, tmp_path).generate(requests)
    assert first == second
    assert len(first) == len(requests)
    assert all(isinstance(g, Generation) for g in first)


def test_result_of_a_request_does_not_depend_on_its_batch(tiny_model_dir, tmp_path):
    requests = [r for r in requests_grid() if r.sample == 0]  # 12 requests, prompts of 6 lengths
    alone = backend(tiny_model_dir, tmp_path, batch_size=1).generate(requests)
    by_four = backend(tiny_model_dir, tmp_path, batch_size=4).generate(requests)
    assert by_four == alone
    # Shuffled, and a subset mixed with other requests: each request keeps its result.
    rng = random.Random(0)
    order = list(range(len(requests)))
    rng.shuffle(order)
    shuffled = backend(tiny_model_dir, tmp_path, batch_size=4).generate([requests[i] for i in order])
    assert shuffled == [alone[i] for i in order]
    others = [Request("the teacher agreed and", 5, 0), Request("music", 9, 3)]
    subset = [requests[3], others[0], requests[10], others[1], requests[0]]
    mixed = backend(tiny_model_dir, tmp_path, batch_size=3).generate(subset)
    assert [mixed[0], mixed[2], mixed[4]] == [alone[3], alone[10], alone[0]]


def test_different_sample_or_seed_give_different_text(tiny_model_dir, tmp_path):
    model = backend(tiny_model_dir, tmp_path, max_new_tokens=6)
    by_sample = model.generate([Request(PROMPTS[0], 0, k) for k in range(8)])
    by_seed = model.generate([Request(PROMPTS[0], s, 0) for s in range(8)])
    assert len({g.text for g in by_sample}) >= 3
    assert len({g.text for g in by_seed}) >= 3
    assert by_sample != by_seed


def test_greedy_equals_a_manual_argmax_loop(tiny_model_dir, tmp_path):
    """Alone and padded in batches of 4, against one reference."""
    tokenizer, _ = reference_model(tiny_model_dir)
    requests = [Request(p, seed) for p in PROMPTS for seed in (0, 3)]
    expected = {p: manual_greedy(tiny_model_dir, tokenizer(p)["input_ids"], 6) for p in PROMPTS}
    for batch_size in (1, 4):
        model = backend(tiny_model_dir, tmp_path, batch_size=batch_size, do_sample=False, max_new_tokens=6)
        got = model.generate(requests)
        assert got == [expected[r.prompt] for r in requests], batch_size  # and the seed is irrelevant when greedy


def test_a_generate_call_reports_progress_and_logs_where_its_time_went(tiny_model_dir, tmp_path, caplog):
    """Progress counts every request; the summary line is the one the demo's profile reads
    (benchmarks/demo_profile.py parses it with these patterns)."""
    import logging

    from benchmarks.demo_profile import GENERATED, LOADED

    seen = []
    with caplog.at_level(logging.INFO, logger="biasflow"):
        got = backend(tiny_model_dir, tmp_path).generate(requests_grid(), progress=seen.append)
    assert sum(seen) == len(requests_grid())
    assert len(LOADED.findall(caplog.text)) == 1
    [(tokens, total, prefill, decode, sampling)] = GENERATED.findall(caplog.text)
    assert int(tokens) == sum(g.n_tokens for g in got)
    assert float(prefill) + float(decode) + float(sampling) > 0
    assert float(prefill) + float(decode) + float(sampling) <= float(total) + 0.1


def test_bfloat16_greedy_decoding_gives_the_float32_tokens(tiny_model_dir, tmp_path):
    requests = [Request(p, 0) for p in PROMPTS]
    reference = backend(tiny_model_dir, tmp_path, dtype="float32", do_sample=False).generate(requests)
    assert backend(tiny_model_dir, tmp_path, dtype="bfloat16", do_sample=False).generate(requests) == reference


def test_bfloat16_samples_follow_the_float32_distribution(tiny_model_dir, tmp_path):
    """2,000 first tokens sampled in bfloat16 against the float32 model's own next-token probabilities."""
    from scipy import stats

    tokenizer, model = reference_model(tiny_model_dir)
    with torch.inference_mode():
        logits = model(**tokenizer(PROMPTS[0], return_tensors="pt")).logits[0, -1].double()
    probs = torch.softmax(logits, dim=-1).numpy()
    fast = backend(tiny_model_dir, tmp_path, dtype="bfloat16", batch_size=250, max_new_tokens=1)
    drawn = pd.Series([g.text for g in fast.generate([Request(PROMPTS[0], 0, k) for k in range(2000)])]).value_counts()
    # A token's text as a one-token continuation shows it (a stop token shows as "").
    texts = pd.Series(probs, index=[tokenizer.decode([i], skip_special_tokens=True) for i in range(len(probs))])
    expected = texts.groupby(level=0).sum() * 2000
    counts = drawn.reindex(expected.index, fill_value=0)
    assert counts.sum() == 2000, "every draw is a token of the vocabulary"
    frequent = expected >= 5  # a chi-square bin needs about 5 expected draws; the rest are pooled
    pooled = [[counts[~frequent].sum()], [expected[~frequent].sum()]] if (~frequent).any() else [[], []]
    observed = np.append(counts[frequent], pooled[0])
    expected = np.append(expected[frequent], pooled[1])
    assert stats.chisquare(observed, expected).pvalue > 0.001


def test_sampling_that_leaves_one_token_is_greedy(tiny_model_dir, tmp_path):
    requests = [Request(p, 0, k) for p in PROMPTS[:3] for k in range(2)]
    greedy = backend(tiny_model_dir, tmp_path, do_sample=False).generate(requests)
    for decoding in ({"top_k": 1}, {"top_p": 1e-9}, {"temperature": 1e-6}):
        assert backend(tiny_model_dir, tmp_path, **decoding).generate(requests) == greedy, decoding


def test_max_new_tokens_is_respected(tiny_model_dir, tmp_path):
    model = backend(tiny_model_dir, tmp_path, max_new_tokens=3)
    out = model.generate([Request(p, 0, k) for p in PROMPTS for k in range(4)])
    assert all(0 <= g.n_tokens <= 3 for g in out)
    assert all(len(g.text.split()) <= g.n_tokens for g in out)  # one word per token here
    assert max(g.n_tokens for g in out) == 3, "the random model does not stop early every time"


def test_truncation_keeps_the_end_of_the_prompt(tiny_model_dir, tmp_path):
    words = [
        "the",
        "woman",
        "worked",
        "as",
        "a",
        "nurse",
        "and",
        "the",
        "man",
        "worked",
        "as",
        "a",
        "doctor",
        "she",
        "is",
        "a",
        "kind",
        "person",
        "who",
        "likes",
        "music",
        "and",
        "he",
        "is",
        "a",
        "friendly",
        "neighbour",
        "the",
        "cook",
        "said",
        "that",
    ]
    long_prompt = " ".join(words)
    n = 7
    suffix = " ".join(words[-n:])
    prefix = " ".join(words[:n])
    model = backend(tiny_model_dir, tmp_path, do_sample=False, max_prompt_tokens=n, max_new_tokens=6, batch_size=1)
    cut, from_suffix, _ = model.generate([Request(long_prompt), Request(suffix), Request(prefix)])
    assert cut == from_suffix
    tokenizer, _ = reference_model(tiny_model_dir)
    ids = tokenizer(suffix)["input_ids"]
    assert len(ids) == n
    assert cut == manual_greedy(tiny_model_dir, ids, 6)
    untruncated = backend(tiny_model_dir, tmp_path, do_sample=False, max_prompt_tokens=100, max_new_tokens=6)
    assert untruncated.generate([Request(long_prompt)])[0] == manual_greedy(
        tiny_model_dir, tokenizer(long_prompt)["input_ids"], 6
    )


def test_chat_without_a_chat_template_is_refused(tiny_model_dir, tmp_path):
    with pytest.raises(BiasflowError, match="chat template"):
        backend(tiny_model_dir, tmp_path, chat=True).generate([Request("she")])


def test_chat_with_a_chat_template_continues_the_rendered_conversation(tiny_models, tmp_path):
    chat_dir = tiny_models["tiny-chat"]
    model = backend(chat_dir, tmp_path, chat=True, do_sample=False, max_new_tokens=5)
    out = model.generate([Request("the cook said"), Request("she is a kind")])
    tokenizer, _ = reference_model(chat_dir)
    for request, got in zip([Request("the cook said"), Request("she is a kind")], out, strict=True):
        rendered = tokenizer.apply_chat_template(
            [{"role": "user", "content": request.prompt}], tokenize=False, add_generation_prompt=True
        )
        assert rendered.endswith("assistant:")
        ids = tokenizer(rendered, add_special_tokens=False)["input_ids"]
        assert got == manual_greedy(chat_dir, ids, 5)
    sampled = backend(chat_dir, tmp_path, chat=True, max_new_tokens=5).generate(
        [Request("she", 0, k) for k in range(4)]
    )
    assert all(g.n_tokens <= 5 for g in sampled)


# ---------------------------------------------------------------------------------------
# CachedGenerator with a counting fake backend


def fake_text(request: Request) -> Generation:
    return Generation(f"{request.prompt}|{request.seed}|{request.sample}", len(request.prompt) + request.seed)


class FakeBackend:
    def __init__(self, spec=None, fail_on_call: int | None = None):
        self.spec = spec
        self.calls: list[list[Request]] = []
        self.fail_on_call = fail_on_call

    @property
    def computed(self) -> list[Request]:
        return [r for call in self.calls for r in call]

    def generate(self, requests, progress=None):
        self.calls.append(list(requests))
        if self.fail_on_call is not None and len(self.calls) == self.fail_on_call:
            raise RuntimeError("backend crashed")
        if progress:
            progress(len(requests))
        return [fake_text(r) for r in requests]


class Factory:
    """Counts constructions; always hands out the same fake."""

    def __init__(self, fake: FakeBackend):
        self.fake = fake
        self.constructed = 0

    def __call__(self, spec, cache_dir):
        self.constructed += 1
        return self.fake


def fake_spec(name="m", **decoding) -> ModelSpec:
    return make_spec(name, "transformers", "some/model", make_decoding(**decoding))


def cached(tmp_path, spec=None, fake=None, chunk_size=256):
    factory = Factory(fake or FakeBackend())
    gen = CachedGenerator(spec or fake_spec(), str(tmp_path / "cache"), backend_factory=factory, chunk_size=chunk_size)
    return gen, factory


REQUESTS = [Request(f"prompt {i}", seed, sample) for i in range(4) for seed in (0, 7) for sample in (0, 1)]


def test_second_call_computes_nothing_and_never_loads_the_backend(tmp_path):
    gen, factory = cached(tmp_path)
    first = gen(REQUESTS)
    assert first == [fake_text(r) for r in REQUESTS]
    assert sorted(map(repr, factory.fake.computed)) == sorted(map(repr, REQUESTS))
    assert factory.constructed == 1

    again, factory2 = cached(tmp_path)
    assert again(REQUESTS) == first
    assert factory2.constructed == 0
    assert factory2.fake.computed == []


def test_one_new_request_computes_exactly_one(tmp_path):
    cached(tmp_path)[0](REQUESTS)
    gen, factory = cached(tmp_path)
    new = Request("a brand new prompt", 3, 2)
    out = gen(REQUESTS[:5] + [new] + REQUESTS[5:])
    assert factory.fake.computed == [new]
    assert out == [fake_text(r) for r in REQUESTS[:5] + [new] + REQUESTS[5:]]


def test_duplicates_are_computed_once(tmp_path):
    gen, factory = cached(tmp_path)
    requests = [REQUESTS[0], REQUESTS[1], REQUESTS[0], REQUESTS[0], REQUESTS[1]]
    out = gen(requests)
    assert factory.fake.computed == [REQUESTS[0], REQUESTS[1]]
    assert out == [fake_text(r) for r in requests]
    assert len(ShardCache(gen.cache.directory).load()) == 2


def test_renamed_model_hits_the_cache_and_changed_decoding_misses(tmp_path):
    cached(tmp_path, spec=fake_spec("old-name"))[0](REQUESTS)
    renamed, factory = cached(tmp_path, spec=fake_spec("new-name"))
    renamed(REQUESTS)
    assert factory.constructed == 0
    changed, factory = cached(tmp_path, spec=fake_spec("old-name", top_p=0.9))
    changed(REQUESTS)
    assert len(factory.fake.computed) == len(REQUESTS)
    chat = make_spec("old-name", "transformers", "some/model", make_decoding(), chat=True)
    chatty, factory = cached(tmp_path, spec=chat)
    chatty(REQUESTS[:2])
    assert len(factory.fake.computed) == 2, "chat changes the outputs, so it is part of the identity"
    other_model, factory = cached(tmp_path, spec=make_spec("old-name", "transformers", "other/model"))
    other_model(REQUESTS[:2])
    assert len(factory.fake.computed) == 2
    # auto resolves to float32 or bfloat16 on a CPU, never float16 (tests/models/test_dtypes.py)
    fp16, factory = cached(
        tmp_path, spec=make_spec("old-name", "transformers", "some/model", make_decoding(), dtype="float16")
    )
    fp16(REQUESTS[:2])
    assert len(factory.fake.computed) == 2, "the numbers the weights are computed in change the outputs"


def test_results_come_back_in_request_order(tmp_path):
    cached(tmp_path)[0](REQUESTS[::2])  # half of them cached, interleaved with fresh ones
    gen, factory = cached(tmp_path, chunk_size=3)
    requests = list(reversed(REQUESTS))
    assert gen(requests) == [fake_text(r) for r in requests]
    assert len(factory.fake.computed) == len(REQUESTS) // 2


def test_crash_midway_keeps_finished_chunks_and_leaves_no_partial_files(tmp_path):
    gen, factory = cached(tmp_path, fake=FakeBackend(fail_on_call=3), chunk_size=3)
    with pytest.raises(RuntimeError, match="crashed"):
        gen(REQUESTS)
    finished = [r for call in factory.fake.calls[:2] for r in call]
    assert len(finished) == 6
    directory = gen.cache.directory
    assert not [p for p in directory.iterdir() if p.name.endswith(".tmp")]
    table = ShardCache(directory).load()
    assert sorted(table["key"]) == sorted(gen.key(r) for r in finished)
    assert {table.loc[gen.key(r), "text"] for r in finished} == {fake_text(r).text for r in finished}

    rerun, factory2 = cached(tmp_path, chunk_size=3)
    assert rerun(REQUESTS) == [fake_text(r) for r in REQUESTS]
    assert len(factory2.fake.computed) == len(REQUESTS) - 6


# ---------------------------------------------------------------------------------------
# continuation_table

PROMPT_TABLE = pd.DataFrame(
    {"prompt_id": ["p1", "p2", "p3"], "group": ["f", "m", "f"], "text": ["she is a", "he is a", "the cook said"]},
    index=[10, 20, 30],  # a non-default index must not leak into the result
)


def test_continuation_table_columns_rows_and_order(tmp_path):
    gen, _ = cached(tmp_path, spec=fake_spec("my-model"))
    table = continuation_table(PROMPT_TABLE, gen, GenerationSettings(seeds=[0, 5], samples=3))
    assert list(table.columns) == ["prompt_id", "group", "text", "model", "seed", "sample", "continuation", "n_tokens"]
    assert len(table) == 3 * 2 * 3
    assert list(table.index) == list(range(len(table)))
    expected_rows = [
        (pid, group, text, seed, sample)
        for pid, group, text in PROMPT_TABLE.itertuples(index=False)
        for seed in (0, 5)
        for sample in range(3)
    ]
    assert (
        list(table[["prompt_id", "group", "text", "seed", "sample"]].itertuples(index=False, name=None))
        == expected_rows
    )
    assert (table["model"] == "my-model").all()
    for row in table.itertuples():
        assert row.continuation == fake_text(Request(row.text, row.seed, row.sample)).text
        assert row.n_tokens == fake_text(Request(row.text, row.seed, row.sample)).n_tokens
    assert table["seed"].dtype == "int64" and table["sample"].dtype == "int64"
    assert str(table["n_tokens"].dtype).lower() == "int64"


def test_continuation_table_is_reproducible_with_the_real_backend(tiny_model_dir, tmp_path):
    spec = make_spec("tiny", "transformers", str(tiny_model_dir), make_decoding(max_new_tokens=5), batch_size=4)
    first = continuation_table(
        PROMPT_TABLE, CachedGenerator(spec, str(tmp_path / "a")), GenerationSettings(seeds=[0, 1], samples=2)
    )
    fresh = continuation_table(
        PROMPT_TABLE, CachedGenerator(spec, str(tmp_path / "b")), GenerationSettings(seeds=[0, 1], samples=2)
    )
    pd.testing.assert_frame_equal(first, fresh)

    def no_backend(spec, cache_dir):
        raise AssertionError("a fully cached rerun must not load the model")

    rerun = continuation_table(
        PROMPT_TABLE,
        CachedGenerator(spec, str(tmp_path / "a"), backend_factory=no_backend),
        GenerationSettings(seeds=[0, 1], samples=2),
    )
    pd.testing.assert_frame_equal(first, rerun)
    assert first["continuation"].nunique() > 1
