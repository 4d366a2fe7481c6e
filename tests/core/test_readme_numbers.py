"""The READMEs' times and counts: written from benchmarks/numbers.json, each with where it was measured."""

from __future__ import annotations

import json
import os
import signal
import subprocess

import pytest

from benchmarks import readme_numbers
from benchmarks.readme_numbers import DOCUMENTS, FIELDS, NUMBERS, TABLE, TABLES, VALUE, OtherProcesses
from workflow_helpers import REPO


@pytest.fixture(scope="module")
def numbers():
    return json.loads(NUMBERS.read_text())


@pytest.mark.parametrize("document", DOCUMENTS)
def test_readme_says_what_numbers_json_records(document, numbers):
    text = (REPO / document).read_text()
    assert readme_numbers.render_text(text, numbers) == text, (
        f"{document} differs from benchmarks/numbers.json: run `python -m benchmarks.readme_numbers render`"
    )


def test_every_value_and_table_is_used_and_known():
    text = "".join((REPO / document).read_text() for document in DOCUMENTS)
    values = set(VALUE.findall(text))
    tables = {key for key, _ in TABLE.findall(text)}
    assert {key for key, _ in values} == set(FIELDS), "a field no README shows, or a marker with no field"
    assert tables == set(TABLES)


def test_every_group_says_where_when_and_alongside_what(numbers):
    assert set(numbers) <= set(readme_numbers.GROUPS)
    for name in set(readme_numbers.GROUPS) - set(numbers):  # added since the last full run: the READMEs say so
        values = [field(numbers) for key, field in FIELDS.items() if key.startswith(f"{name}.")]
        assert values and set(values) == {readme_numbers.NOT_MEASURED}, f"{name} not measured"
    for name, group in numbers.items():
        assert isinstance(group["fresh_clone"], bool) and len(group["commit"]) >= 7, name
        assert group["wall_s"] > 0, name
        assert {"cores", "cpu", "memory_gib", "gpu"} <= set(group["machine"]), name
        assert {"mean_cores", "max_cores", "busiest"} <= set(group["other_processes"]), name
        assert group["when"].endswith("UTC"), name


def test_every_time_is_recorded_with_the_cpus_flags():
    """The machine's record holds the CPU's flags (issue 46, part 3); the conditions name those that decide how
    fast a model computes. Records from before they were kept read as they did."""
    from biasflow.models.dtypes import cpu_flags

    assert readme_numbers.machine()["flags"] == sorted(cpu_flags() or ())
    group = {
        "when": "2026-11-28 10:00 UTC",
        "commit": "abc1234",
        "fresh_clone": True,
        "machine": {"cores": 2, "cpu": "AMD EPYC", "gpu": False, "flags": ["sse2", "fma", "avx2", "avx512_bf16"]},
        "other_processes": {"mean_cores": 0.0, "busiest": {}},
    }
    expected = "2026-11-28, a fresh clone of abc1234, 2 cores (AMD EPYC{}), no GPU, nothing else running"
    assert readme_numbers.conditions(group) == expected.format("; avx2, fma, avx512_bf16")
    group["machine"]["flags"] = ["sse2"]
    assert readme_numbers.conditions(group) == expected.format("; no AVX2")
    del group["machine"]["flags"]
    assert readme_numbers.conditions(group) == expected.format("")


def test_demo_rerun_loaded_no_model(numbers):
    """The README says the rerun with results/ deleted loaded no model: every cached row was found."""
    assert numbers["demo"]["rerun_rows_computed"] == 0
    assert numbers["demo"]["rerun_s"] < numbers["demo"]["main_s"]


def test_durations_and_break_even_worked_by_hand():
    assert readme_numbers.duration(58.4) == "58 s"
    assert readme_numbers.duration(587) == "9 min 47 s"
    # transformers: 5 s start, 100 tokens/s; vLLM: 105 s start, 200 tokens/s. Equal at t where
    # 5 + t/100 = 105 + t/200, t = 20,000 tokens.
    results = [
        {"backend": "transformers", "load_s": 5.0, "tokens_per_s": 100.0},
        {"backend": "vllm", "load_s": 105.0, "tokens_per_s": 200.0},
    ]
    assert readme_numbers._break_even(results) == pytest.approx(20_000)


def test_watcher_counts_processes_outside_the_measurement_only():
    """Two samples from snapshots written by hand: what runs outside the measured tree is counted, our
    children and grandchildren are not, nor a process new since the last snapshot or a pid reused."""
    # pid -> (parent, name, clock ticks); the measurement is pid 100, at 100 ticks a second.
    first = {
        1: (0, "init", 10),
        100: (1, "python", 50),
        101: (100, "sha1sum", 0),
        102: (101, "sh", 0),
        200: (1, "yes", 100),
        201: (200, "make", 0),
        400: (1, "old", 500),
    }
    second = {
        1: (0, "init", 10),
        100: (1, "python", 250),
        101: (100, "sha1sum", 200),
        102: (101, "sh", 100),
        200: (1, "yes", 250),
        201: (200, "make", 50),
        300: (1, "new", 80),
        400: (1, "cc1", 20),
    }
    third = {**second, 200: (1, "yes", 270)}
    watcher = OtherProcesses(root=100)
    watcher.record(first, second, seconds=2.0, tick=100)  # yes 150 ticks in 2 s: 0.75 cores; make 0.25
    watcher.record(second, third, seconds=2.0, tick=100)  # yes 20 ticks: 0.1 cores
    assert watcher.samples == pytest.approx([1.0, 0.1])
    # Over the 4 s: yes 1.7 core-seconds, make 0.5; init used nothing and is not listed.
    assert watcher.summary(4.0) == {
        "mean_cores": pytest.approx(0.55),
        "max_cores": pytest.approx(1.0),
        "busiest": {"yes": pytest.approx(0.425), "make": pytest.approx(0.125)},
    }


def test_watcher_tells_our_processes_from_others_on_this_machine():
    """On the live process table: a child of this process is in its tree; a process its shell left
    behind (orphaned, as another job's would be) is not."""
    child = subprocess.Popen(["sleep", "600"])
    # The shell exits at once; its background sleep is handed to another parent as it exits.
    orphan = int(
        subprocess.run(
            ["sh", "-c", "sleep 600 > /dev/null 2>&1 & echo $!"], capture_output=True, text=True, check=True
        ).stdout
    )
    try:
        snapshot = readme_numbers._cpu_ticks()
        ours = readme_numbers._descendants(snapshot, os.getpid())
    finally:
        child.kill()
        child.wait()
        os.kill(orphan, signal.SIGKILL)
    assert snapshot[child.pid][0] == os.getpid() and child.pid in ours
    assert orphan in snapshot and orphan not in ours


def test_the_demo_names_the_engine_auto_picked_and_the_roofline_of_transformers_dtype():
    """A record since CTranslate2 names the engine and keeps transformers' own pick for the roofline; an older one
    (``dtype`` only) reads as before."""
    cpu = {
        "peak_gflops": {"float32": 102.0, "bfloat16": 0.4},
        "capability": "AVX2",
        "bandwidth_gbs": 19.5,
        "gemma_roofline": {"float32": 190.0, "bfloat16": 0.7},
    }
    new = {"demo": {"cpu": {**cpu, "engine": "CTranslate2", "dtype": "int8", "why": "w", "torch_dtype": "float32"}}}
    old = {"demo": {"cpu": {**cpu, "dtype": "float32", "why": "v"}}}
    assert FIELDS["demo.dtype"](new) == "int8 with CTranslate2 (w)" and FIELDS["demo.dtype"](old) == "float32 (v)"
    for numbers in (new, old):
        assert FIELDS["demo.roofline"](numbers).endswith("Gemma 3 270M at batch 32: 190 tokens/s in float32")
