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
