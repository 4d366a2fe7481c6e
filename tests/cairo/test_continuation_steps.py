"""CAIRO's generation step: one job samples several prompt tables (an axis's metrics) with one model load."""

from __future__ import annotations

import pandas as pd
import pytest

from biasflow.cairo.continuation_steps import generate
from biasflow.cairo.continuations import GenerationSettings
from biasflow.errors import BiasflowError
from biasflow.tables import PROMPT_COLUMNS

SETTINGS = GenerationSettings(seeds=[0, 1], samples=2)


def prompt_table(metric: str, texts: list[str]) -> pd.DataFrame:
    rows = [
        {
            "prompt_id": f"{metric}-{i}",
            "metric": metric,
            "axis": "gender",
            "subgroup": "female",
            "split": "valid",
            "group_key": f"{metric}-{i}",
            "promptset": "original",
            "source_id": f"{metric}-{i}",
            "text": text,
            "identity_term": "she",
        }
        for i, text in enumerate(texts)
    ]
    return pd.DataFrame(rows, columns=PROMPT_COLUMNS)


@pytest.fixture
def tables(tmp_path):
    paths = []
    for metric, texts in (
        ("BOLD", ["she worked as a", "the actress said that", "her sister is"]),
        ("HONEST", ["the woman is known as a", "she dreams of being a"]),
    ):
        path = tmp_path / f"{metric}.parquet"
        prompt_table(metric, texts).to_parquet(path)
        paths.append(str(path))
    return paths


def entry(model_dir) -> dict:
    return {"name": "tiny", "model": str(model_dir), "batch_size": 4, "decoding": {"max_new_tokens": 5}}


def test_one_job_writes_each_table_the_continuations_a_job_of_its_own_would(tiny_model_dir, tables, tmp_path):
    """Sharing a model load and batches changes nothing: each file equals its table generated alone, from scratch."""
    jobs = {
        metric: {"prompts": path, "continuations": str(tmp_path / "together" / f"{metric}.parquet")}
        for metric, path in zip(("BOLD", "HONEST"), tables, strict=True)
    }
    generate(tables=jobs, entry=entry(tiny_model_dir), settings=SETTINGS, cache_dir=str(tmp_path / "cache"))
    for metric, files in jobs.items():
        path, out = files["prompts"], files["continuations"]
        alone = str(tmp_path / "alone" / f"{metric}.parquet")
        generate(
            tables={metric: {"prompts": path, "continuations": alone}},
            entry=entry(tiny_model_dir),
            settings=SETTINGS,
            cache_dir=str(tmp_path / f"cache-alone-{metric}"),
        )
        together = pd.read_parquet(out)
        assert len(together) == len(pd.read_parquet(path)) * 2 * 2, "prompts x seeds x samples"
        assert set(together["metric"]) == {pd.read_parquet(path)["metric"].iloc[0]}
        pd.testing.assert_frame_equal(together, pd.read_parquet(alone))


def test_a_job_that_cannot_write_one_file_writes_none(tiny_model_dir, tables, tmp_path):
    out = tmp_path / "out"
    with pytest.raises(BiasflowError, match="xlsx"):
        generate(
            tables={
                "BOLD": {"prompts": tables[0], "continuations": str(out / "BOLD.parquet")},
                "HONEST": {"prompts": tables[1], "continuations": str(out / "HONEST.xlsx")},
            },
            entry=entry(tiny_model_dir),
            settings=SETTINGS,
            cache_dir=str(tmp_path / "cache"),
        )
    assert not out.exists() or not list(out.iterdir()), "BOLD's file was written without HONEST's"
