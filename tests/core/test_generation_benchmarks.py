"""The generation benchmarks run on a tiny model, and the roofline is the hand-worked bound (benchmarks/README.md)."""

import pytest

from benchmarks.generation import measure
from benchmarks.roofline import VARIANTS, markdown_table, roofline


def test_roofline_is_the_slower_of_compute_and_memory():
    # 100M parameters at batch 32: 6.4 TFLOP per step against 100 GFLOP/s is 64 ms; 400 MB at 10 GB/s is 40 ms.
    assert roofline(100_000_000, "float32", 32, 100e9, 10e9) == pytest.approx(32 / 0.064)
    # In bfloat16 the bytes halve; at batch 1 memory bounds: 200 MB at 10 GB/s is 20 ms.
    assert roofline(100_000_000, "bfloat16", 1, 100e9, 10e9) == pytest.approx(1 / 0.020)


def test_every_variant_is_measured_on_the_same_requests(tiny_model_dir, tmp_path):
    rows = [
        measure("transformers", "cpu", str(tiny_model_dir), 8, 4, 4, dtype, str(tmp_path), decoding)
        for dtype, _, decoding in VARIANTS
    ]
    assert [r["requests"] for r in rows] == [8, 8, 8] and all(0 < r["new_tokens"] <= 32 for r in rows)
    for r, (dtype, label, _) in zip(rows, VARIANTS, strict=True):
        r.update(
            name="tiny",
            params=1000,
            roofline=2 * r["tokens_per_s"],
            float32_roofline=4 * r["tokens_per_s"],
            dtype=dtype,
            decoding=label,
        )
    table = markdown_table({"rows": rows})
    assert "| tiny | 0M | bfloat16 | T 0.7, top-p 0.9 | 8 | 4 |" in table and table.count("50% | 25% |") == 3


def test_the_roofline_measures_bfloat16_only_where_this_cpu_computes_it_natively(monkeypatch):
    """Capped at AVX2 (as on most laptops' CPUs) bfloat16 is emulated: float32 alone, with the reason."""
    from benchmarks.roofline import native_dtypes
    from biasflow.models import dtypes

    monkeypatch.setenv("ATEN_CPU_CAPABILITY", "avx2")
    dtypes._cpu_dtype.cache_clear()
    try:
        native, why = native_dtypes()
    finally:
        dtypes._cpu_dtype.cache_clear()
    assert native == ("float32",) and ("ATEN_CPU_CAPABILITY=avx2" in why or "no native bfloat16" in why), why
    monkeypatch.setattr(dtypes, "resolve_dtype", lambda requested, device: ("bfloat16", "native here"))
    assert native_dtypes() == (("float32", "bfloat16"), "native here")


def test_a_roofline_without_bfloat16_says_so_on_the_page_and_in_the_readmes():
    from benchmarks.readme_numbers import FIELDS
    from benchmarks.roofline import peak_line

    why = "this CPU has no native bfloat16 arithmetic, neither AVX512-BF16 nor AMX"
    row = {"name": "Gemma 3 270M", "decoding": "sampling", "dtype": "float32", "tokens_per_s": 40.0}
    numbers = {
        "peak": {"flops": {"float32": 102e9}, "bandwidth": 19.5e9},
        "rows": [row],
        "skipped": {"dtypes": ["bfloat16"], "why": why},
    }
    assert (
        peak_line(numbers)
        == f"peak: 102 GFLOP/s in float32; memory: 19.5 GB/s; bfloat16 not measured: {why} (emulated here)"
    )
    assert (
        FIELDS["roofline.peak"]({"roofline": numbers})
        == f"102 GFLOP/s in float32, bfloat16 not measured ({why}), 19.5 GB/s"
    )
    assert FIELDS["roofline.gemma"]({"roofline": numbers}) == "not measured (bfloat16 is emulated on this CPU)"
    numbers["peak"]["flops"]["bfloat16"] = 430e9
    numbers["rows"].append({**row, "dtype": "bfloat16", "tokens_per_s": 100.0})
    assert FIELDS["roofline.peak"]({"roofline": numbers}) == "102 GFLOP/s in float32, 430 in bfloat16, 19.5 GB/s"
    assert FIELDS["roofline.gemma"]({"roofline": numbers}) == "2.50×"
