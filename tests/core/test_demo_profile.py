"""The demo's profile: a job's phases from its log and benchmark, worked by hand (benchmarks/demo_profile.py)."""

from pathlib import Path

import pytest

from benchmarks.demo_profile import markdown_table, profile

GENERATE_LOG = """2026-11-24 12:00:00,000 INFO generate m: 0 of 8 rows from cache, 8 to compute
2026-11-24 12:00:04,000 INFO model m (pkg:x/y.gguf) on cpu, loaded in 3.5 s
\rgenerate m:   0%|          | 0/8 [00:00<?, ?req/s]\rgenerate m:  50%|#####     | 4/8 [00:03<00:03, 1.3req/s]\
2026-11-24 12:00:10,000 INFO model m: 200 new tokens for 8 requests in 5.0 s (prefill 1.0 s, decode 3.0 s, \
sampling 0.5 s)
"""
SCORE_LOG = "2026-11-24 12:00:11,000 INFO scorer profanity: 8 texts\n2026-11-24 12:00:13,000 INFO done\n"
BENCHMARK = "s\th:m:s\tmax_rss\n{}\t0:00:12\t100\n"


def write(root: Path, relative: str, text: str) -> None:
    (root / relative).parent.mkdir(parents=True, exist_ok=True)
    (root / relative).write_text(text)


def test_phases_of_a_model_job_and_a_scoring_job(tmp_path):
    """The generation's summary follows its progress bar on one line, as a real log has it."""
    write(tmp_path, "logs/generate/m/gender.log", GENERATE_LOG)
    write(tmp_path, "benchmarks/out/generate/m/gender.tsv", BENCHMARK.format(12.5))
    write(tmp_path, "logs/score/profanity/m/BOLD/gender.log", SCORE_LOG)
    numbers = profile(tmp_path, elapsed=20.0)
    model = numbers["jobs"]["generate m"]
    # Logged span 10 s of a 12.5 s job; 3.5 s loading; generate 5 s of which 4.5 s are named phases.
    assert model["start_s"] == pytest.approx(2.5) and model["load_s"] == 3.5
    assert (model["prefill_s"], model["decode_s"], model["sampling_s"]) == (1.0, 3.0, 0.5)
    assert model["generation_other_s"] == pytest.approx(0.5) and model["rest_s"] == pytest.approx(1.5)
    assert model["new_tokens"] == 200
    # The scoring job has no benchmark: its wall is its logged span, 2 s, from 12:00:11 to 12:00:13.
    assert numbers["jobs"]["score"]["wall_s"] == pytest.approx(2.0)
    # Jobs cover 11:59:57.5-12:00:10 and 12:00:11-12:00:13: 14.5 s of the 20 s run.
    assert numbers["snakemake_s"] == pytest.approx(5.5)
    table = markdown_table(numbers)
    assert table.splitlines()[2].startswith("| generate m | 1 | 12.5 | 2.5 | 3.5 | 1.0 | 3.0 | 0.5 | 0.5 | 1.5 | 200 |")
    assert "| Snakemake itself | | 5.5 |" in table


def test_a_ctranslate2_call_is_generation_other(tmp_path):
    """CTranslate2's summary line names no phases: its whole call is *generation, other*."""
    log = (
        "2026-11-24 12:00:00,000 INFO model m (pkg:x/y.gguf) with CTranslate2 4.8.5, computing in int8 on the CPU "
        "(threads: 2), loaded in 2.0 s\n"
        "2026-11-24 12:00:06,000 INFO model m: 150 new tokens for 8 requests in 4.0 s (37.5 tokens/s, CTranslate2 "
        "in int8)\n"
    )
    write(tmp_path, "logs/generate/m/gender.log", log)
    model = profile(tmp_path, elapsed=10.0)["jobs"]["generate m"]
    assert (model["load_s"], model["generation_other_s"], model["new_tokens"]) == (2.0, 4.0, 150)
    assert (model["prefill_s"], model["decode_s"], model["sampling_s"]) == (0.0, 0.0, 0.0)
    assert model["rest_s"] == pytest.approx(0.0)
