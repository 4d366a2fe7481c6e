"""The ``biasflow`` command, run as a user runs it."""

from __future__ import annotations

import subprocess
import sys

import pandas as pd
import yaml

from workflow_helpers import REPO


def biasflow(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "biasflow.cli", *args], capture_output=True, text=True, cwd=REPO)


def test_check_config_accepts_the_embedded_default():
    result = biasflow("check-config", "config/config.yaml")
    assert result.returncode == 0, result.stderr
    assert "config/config.yaml: ok" in result.stdout


def test_check_config_names_the_bad_key(tmp_path):
    config = yaml.safe_load((REPO / "config/config.yaml").read_text())
    config["generation"]["seeds"] = "zero"
    path = tmp_path / "bad.yaml"
    path.write_text(yaml.safe_dump(config))
    result = biasflow("check-config", str(path))
    assert result.returncode == 2
    assert "config key generation.seeds" in result.stderr
    assert "Traceback" not in result.stderr


def test_prompts_writes_the_prompt_table(tmp_path):
    out = tmp_path / "bold.csv"
    result = biasflow(
        "prompts", "--metric", "BOLD", "--axis", "gender", "--data", "resources/templates/datasets/BOLD",
        "--out", str(out),
    )
    assert result.returncode == 0, result.stderr
    table = pd.read_csv(out)
    assert set(table["subgroup"]) == {"American_actors", "American_actresses"}
    assert set(table["split"]) == {"valid", "test"}


def test_unknown_metric_is_one_line_and_exit_2(tmp_path):
    result = biasflow(
        "prompts", "--metric", "StereoSet", "--axis", "gender", "--data", ".", "--out", str(tmp_path / "x.csv"),
    )
    assert result.returncode == 2
    assert result.stderr.startswith("biasflow: ") and "StereoSet" in result.stderr
    assert not (tmp_path / "x.csv").exists()
