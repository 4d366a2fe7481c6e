"""The CPU engines' benchmark (benchmarks/engines.py) run tiny, its page parsed, and its measures worked by hand."""

from __future__ import annotations

import json
import math

import pytest
import torch

from benchmarks import engines
from benchmarks.engines import fidelity, greedy_agreement, int8_peak, log_likelihoods, markdown_tables
from benchmarks.readme_numbers import FIELDS, NOT_MEASURED, TABLES
from benchmarks.roofline import roofline
from biasflow.intervals import t_interval

pytest.importorskip("ctranslate2")

pytestmark = pytest.mark.usefixtures("one_torch_thread")


def table(page: str, header: str) -> list[list[str]]:
    """The cells of each row of the page's table whose header starts with ``header``, the header row first."""
    lines = page.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(header))
    rows = []
    for line in lines[start:]:
        if not line.startswith("|"):
            break
        if not line.startswith("|---"):
            rows.append([cell.strip() for cell in line.strip("|").split("|")])
    return rows


def test_a_tiny_run_measures_both_engines_on_the_same_requests_and_its_page_parses(tiny_model_dir, tmp_path):
    """Two batch sizes, both engines each, on the same 6 requests; the one-time costs, the scores and the
    greedy comparison of the model; the JSON as readme_numbers reads it, its page table by table."""
    peak = {"flops": {"float32": 1e9}, "bandwidth": 1e9}  # given, not measured: no timed step in a test
    numbers = engines.run(6, 4, [4, 2], str(tmp_path), {"tiny": str(tiny_model_dir)}, n_threads=1, peak=peak)
    numbers = json.loads(json.dumps(numbers))  # what --json writes and readme_numbers reads back

    rows = numbers["rows"]
    assert [(r["batch_size"], r["backend"], r["dtype"]) for r in rows] == [
        (4, "transformers", "float32"),
        (4, "ctranslate2", "int8"),
        (2, "transformers", "float32"),
        (2, "ctranslate2", "int8"),
    ]
    assert all(r["requests"] == 6 and 0 < r["new_tokens"] <= 24 and r["tokens_per_s"] > 0 for r in rows)
    # The int8 peak is 2 × float32's on an AVX2 CPU, 4 × with VNNI: its roofline is never below float32's.
    assert numbers["peak"]["flops"]["int8"] == numbers["peak"]["int8"]["factor"] * 1e9
    assert all(r["roofline"] >= r["float32_roofline"] for r in rows if r["dtype"] == "int8")
    [model] = numbers["models"]
    assert model["convert_s"] > 0 and model["weight_bytes"] > 0 and model["params"] > 0
    scored = model["fidelity"]
    assert scored["difference"]["continuations"] <= 6 and scored["transformers-float32"]["prompts"] <= 6
    assert all(math.isfinite(scored[key]["mean"]) for key in ("transformers-float32", "ctranslate2-int8"))
    assert model["greedy"]["prompts"] == 6 and 0 <= model["greedy"]["prefix"] <= model["greedy"]["positions"] <= 1
    assert numbers["install"]["ctranslate2"]["bytes"] > 0 and set(numbers["cpu"]["simd"]) <= set(
        numbers["cpu"]["flags"]
    )

    page = markdown_tables(numbers)
    speed = table(page, "| model | engine |")
    assert len(speed) == 5 and all(len(row) == len(speed[0]) for row in speed)
    ratio = speed[0].index("ratio")
    assert [row[ratio] for row in speed[1::2]] == ["1.00", "1.00"], "each batch against transformers at that batch"
    assert table(page, "| model | parameters |")[1][0] == "tiny"
    quality = table(page, "| model | scored")
    assert len(quality) == 2 and len(quality[1]) == len(quality[0]) and quality[1][5] == "6"
    assert "assumed in int8" in page and "installed: ctranslate2" in page
    assert TABLES["engines"]({"engines": numbers}) == page, "readme_numbers writes the same page"


def test_the_readmes_ratio_is_ctranslate2_over_transformers_at_batch_32_and_not_measured_until_it_is():
    """A group added since the last full run reads "not measured yet" in the READMEs until measured."""
    rows = [
        {"name": "Gemma 3 270M", "batch_size": batch, "backend": backend, "tokens_per_s": rate}
        for batch, backend, rate in [(32, "transformers", 40.0), (32, "ctranslate2", 200.0), (16, "ctranslate2", 1.0)]
    ]
    assert FIELDS["engines.gemma"]({"engines": {"rows": rows}}) == "5.00×"
    assert FIELDS["engines.gemma"]({}) == NOT_MEASURED and FIELDS["engines.conditions"]({}) == NOT_MEASURED
    assert NOT_MEASURED in TABLES["engines"]({})


def test_log_likelihoods_are_those_of_one_sequence_at_a_time(tiny_model_dir):
    """The batched, right-padded scores against the model's own loss on each sequence alone (its prompt's
    positions masked), prompts cut to their last tokens as the backends cut them; none for an empty one."""
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(tiny_model_dir)
    model = AutoModelForCausalLM.from_pretrained(tiny_model_dir, dtype=torch.float32).eval()
    prompts = ["the woman worked as a", "he", "people of every faith live in this town and they", "she is", "the"]
    continuations = ["nurse and the man", "is a kind person who likes music", "meet", "", "cook said that the bread"]
    cut = 4
    batched = log_likelihoods(tokenizer, model, prompts, continuations, cut, batch_size=3)

    expected = []
    for prompt, text in zip(prompts, continuations, strict=True):
        context = tokenizer(prompt)["input_ids"][-cut:]  # this tokenizer adds no special tokens
        new = tokenizer(text, add_special_tokens=False)["input_ids"]
        if not new:
            expected.append(None)
            continue
        ids = torch.tensor([context + new])
        labels = torch.tensor([[-100] * len(context) + new])
        with torch.inference_mode():
            expected.append(-float(model(input_ids=ids, labels=labels).loss))
    assert batched[3] is None and expected[3] is None
    assert [b for b in batched if b is not None] == pytest.approx([e for e in expected if e is not None], abs=1e-5)


def test_greedy_agreement_worked_by_hand():
    """Three prompts, 8 positions compared (the longer side of each pair): 4 equal before each pair's first
    difference, 5 equal in all, one pair of three identical."""
    pairs = [
        ([1, 2, 3, 4], [1, 2, 5, 4, 6]),  # 5 positions: equal up to 2, then 4 equal again; 6 has no partner
        ([7, 8], [7, 8]),  # identical
        ([], [9]),  # int8 ended at once: 1 position, unequal
    ]
    assert greedy_agreement(pairs) == {
        "prompts": 3,
        "tokens": 8,
        "identical": pytest.approx(1 / 3),
        "prefix": pytest.approx(4 / 8),
        "positions": pytest.approx(5 / 8),
    }
    empty = greedy_agreement([])
    assert empty["prompts"] == 0 and math.isnan(empty["prefix"])


def test_fidelity_averages_a_prompt_over_its_seeds_before_prompts():
    """A cycled prompt ("a") recurs with other seeds: one cluster. Unscored continuations (None) are left out;
    the paired difference only where both engines' were scored."""
    prompts = ["a", "b", "a", "c"]
    scores = {"transformers-float32": [-1.0, -2.0, -4.0, None], "ctranslate2-int8": [-1.5, -2.0, -2.0, -4.0]}
    result = fidelity(prompts, scores)
    # float32: a (-1 and -4) -2.5, b -2; int8: a -1.75, b -2, c -4; differences: a (-0.5, 2) 0.75, b 0.
    assert result["transformers-float32"]["mean"] == pytest.approx(-2.25)
    assert result["ctranslate2-int8"]["mean"] == pytest.approx(-7.75 / 3)
    assert result["ctranslate2-int8"]["continuations"] == 4 and result["ctranslate2-int8"]["prompts"] == 3
    mean, low, high = t_interval([0.75, 0.0])
    assert result["difference"] == {
        "mean": pytest.approx(0.375),
        "low": pytest.approx(low),
        "high": pytest.approx(high),
        "continuations": 3,
        "prompts": 2,
    }
    assert mean == pytest.approx(0.375)


@pytest.mark.parametrize(
    ("flags", "factor", "bound"),
    [
        ({"avx2", "fma"}, 2, "an upper bound"),
        ({"avx2", "fma", "avx512f", "avx512_vnni"}, 4, "an upper bound"),
        ({"avx2", "avx_vnni", "amx_int8"}, 4, "a lower bound"),
        ({"sse4_2"}, 1, "an upper bound"),
    ],
)
def test_the_int8_peak_is_float32s_times_what_the_instruction_set_allows(flags, factor, bound):
    peak = int8_peak(frozenset(flags), 100e9)
    assert peak["factor"] == factor and peak["flops"] == factor * 100e9 and bound in peak["why"]


def test_an_int8_roofline_reads_the_int8_weights():
    # 100M parameters at batch 1: 200 MFLOP at 200 GFLOP/s is 1 ms; 110 MB of int8 weights and scales at 10 GB/s
    # is 11 ms, so memory bounds; at batch 32, 6.4 GFLOP take 32 ms, above the 11 ms read.
    assert roofline(100_000_000, "int8", 1, 200e9, 10e9, weight_bytes=110e6) == pytest.approx(1 / 0.011)
    assert roofline(100_000_000, "int8", 32, 200e9, 10e9, weight_bytes=110e6) == pytest.approx(32 / 0.032)
