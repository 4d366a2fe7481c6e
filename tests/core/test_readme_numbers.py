"""The READMEs' times and counts: written from benchmarks/numbers.json, each with where it was measured."""

from __future__ import annotations

import json
import subprocess
import time

import pytest

from benchmarks import readme_numbers
from benchmarks.readme_numbers import DOCUMENTS, FIELDS, NUMBERS, TABLES, TABLE, VALUE, OtherProcesses
from workflow_helpers import REPO


@pytest.fixture(scope="module")
def numbers():
    return json.loads(NUMBERS.read_text())


@pytest.mark.parametrize("document", DOCUMENTS)
def test_readme_says_what_numbers_json_records(document, numbers):
    text = (REPO / document).read_text()
    assert readme_numbers.render_text(text, numbers) == text, (
        f"{document} differs from benchmarks/numbers.json: run `python -m benchmarks.readme_numbers render`")


def test_every_value_and_table_is_used_and_known():
    text = "".join((REPO / document).read_text() for document in DOCUMENTS)
    values = set(VALUE.findall(text))
    tables = {key for key, _ in TABLE.findall(text)}
    assert {key for key, _ in values} == set(FIELDS), "a field no README shows, or a marker with no field"
    assert tables == set(TABLES)


def test_every_group_says_where_when_and_alongside_what(numbers):
    assert set(numbers) == set(readme_numbers.GROUPS), "every group measured"
    for name, group in numbers.items():
        assert isinstance(group["fresh_clone"], bool) and len(group["commit"]) >= 7, name
        assert group["wall_s"] > 0, name
        assert {"cores", "cpu", "memory_gib", "gpu"} <= set(group["machine"]), name
        assert {"mean_cores", "max_cores", "busiest"} <= set(group["other_processes"]), name
        assert group["when"].endswith("UTC"), name


def test_demo_rerun_loaded_no_model(numbers):
    """The README says the rerun with results/ deleted loaded no model: every cached row was found."""
    assert numbers["demo"]["rerun_rows_computed"] == 0
    assert numbers["demo"]["rerun_s"] < numbers["demo"]["main_s"]


def test_durations_and_break_even_worked_by_hand():
    assert readme_numbers.duration(58.4) == "58 s"
    assert readme_numbers.duration(587) == "9 min 47 s"
    # transformers: 5 s start, 100 tokens/s; vLLM: 105 s start, 200 tokens/s. Equal at t where
    # 5 + t/100 = 105 + t/200, t = 20,000 tokens.
    results = [{"backend": "transformers", "load_s": 5.0, "tokens_per_s": 100.0},
               {"backend": "vllm", "load_s": 105.0, "tokens_per_s": 200.0}]
    assert readme_numbers._break_even(results) == pytest.approx(20_000)


def test_watcher_counts_processes_outside_the_measurement_only():
    """A busy process started outside this process tree is counted; a busy child of ours is not."""
    # The outside one is orphaned (the shell that starts it exits at once), as another job would be.
    subprocess.run(["sh", "-c", "(yes > /dev/null & pid=$!; sleep 4; kill $pid) &"], check=True)
    child = subprocess.Popen(["sha1sum", "/dev/zero"])
    try:
        watcher = OtherProcesses(interval=0.5)
        watcher.start()
        time.sleep(3)
        others = watcher.stop(3)
    finally:
        child.kill()
        child.wait()
    assert others["busiest"].get("yes", 0) > 0.3, others
    assert "sha1sum" not in others["busiest"], others
    assert others["max_cores"] >= others["mean_cores"] > 0.3
