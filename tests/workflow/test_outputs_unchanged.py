"""The tiny workflow's tables are the ones recorded in golden/tiny_tables.json: a change that
should move no number (a refactoring) is checked against them (how a table is digested:
tests/golden_tables.py).

After a change meant to move numbers, record the new tables with
``BIASFLOW_GOLDEN=update .venv/bin/python -m pytest -m workflow tests/workflow/test_outputs_unchanged.py``
and say in the commit why they moved.
"""

from __future__ import annotations

import json
import os

import pytest

from golden_tables import GOLDEN, recorded, tables

pytestmark = pytest.mark.workflow


def test_the_tiny_workflow_writes_the_recorded_tables(finished_workflow):
    workdir, _ = finished_workflow
    found = tables(workdir / "results")
    if os.environ.get("BIASFLOW_GOLDEN") == "update":
        GOLDEN.parent.mkdir(exist_ok=True)
        GOLDEN.write_text(json.dumps(found, indent=1, sort_keys=True) + "\n")
    expected = recorded()
    assert sorted(found) == sorted(expected), "the tiny workflow writes other tables than were recorded"
    moved = [name for name in expected if found[name] != expected[name]]
    assert not moved, f"{len(moved)} of {len(expected)} tables moved: {', '.join(moved)}"
