"""The demo's main job under both engines (benchmarks/demo_engines.py): its float32 override, the engine lines it
reads, its Eq. 1 table against Eq. 1 worked out by hand, and its page as readme_numbers renders it."""

from __future__ import annotations

import numpy as np
import pandas as pd
import yaml

from benchmarks.demo_engines import AXIS, bias_rows, engines_used, float32_config, markdown_tables
from benchmarks.readme_numbers import FIELDS, NOT_MEASURED, REPO, TABLES
from biasflow.cairo.stats import STATS_COLUMNS


def test_the_float32_override_gives_every_entry_float32_and_keeps_the_rest():
    from snakemake.utils import update_config

    config = yaml.safe_load((REPO / "config/config.yaml").read_text())
    merged = yaml.safe_load(yaml.safe_dump(config))
    update_config(merged, float32_config(config))  # how Snakemake merges a second --configfile
    for section in ("models", "paraphrasers"):
        assert set(merged[section]) == set(config[section])
        for name, entry in merged[section].items():
            assert entry == {**config[section][name], "dtype": "float32"}


def test_the_engine_lines_are_read_from_each_model_jobs_log(tmp_path):
    logs = tmp_path / "logs" / "generate" / "m"
    logs.mkdir(parents=True)
    (logs / "gender.log").write_text(
        "2026-11-29 04:48:13,831 INFO model a (pkg:x/a.gguf) with CTranslate2 4.8.5, computing in int8 on the CPU "
        "(threads: 2), loaded in 2.3 s\n"
        "2026-11-29 04:48:14,000 INFO model a: 10 new tokens for 2 requests in 0.1 s\n"
        "2026-11-29 04:48:15,000 INFO model b (pkg:x/b.gguf) in float32 on cpu, loaded in 4.2 s\n"
    )
    assert engines_used(tmp_path) == [
        "model a (pkg:x/a.gguf) with CTranslate2 4.8.5, computing in int8 on the CPU",
        "model b (pkg:x/b.gguf) in float32 on cpu",
    ]


def stats_of(means: dict[str, list[float]], clusters: int = 6, size: int = 4, seed: int = 0) -> pd.DataFrame:
    """Statistics of models whose subgroup g's scores around ``means[model][g]`` vary by cluster (crossed keys)."""
    rng = np.random.default_rng(seed)
    rows = []
    for model, subgroup_means in means.items():
        for g, mean in enumerate(subgroup_means):
            for k in range(clusters):
                scores = np.clip(mean + rng.normal(0, 0.05, size), 0, 1)
                rows.append(
                    {
                        "model": model,
                        "metric": "HONEST",
                        "axis": AXIS,
                        "split": "valid" if k % 2 else "test",
                        "promptset": "original",
                        "seed": 0,
                        "subgroup": f"g{g}",
                        "group_key": f"t{k}",
                        "score_sum": scores.sum(),
                        "score_sq_sum": (scores**2).sum(),
                        "n": size,
                    }
                )
    return pd.DataFrame(rows)[STATS_COLUMNS]


def hand_eq1(stats: pd.DataFrame, model: str) -> float:
    """Σ_g |mean of subgroup g − mean of all|, every cluster of both splits pooled."""
    part = stats[stats["model"] == model]
    sums = part.groupby("subgroup")[["score_sum", "n"]].sum()
    overall = sums["score_sum"].sum() / sums["n"].sum()
    return float((sums["score_sum"] / sums["n"] - overall).abs().sum())


def test_each_engines_eq1_and_their_paired_difference_are_the_statistics_own():
    stats = stats_of({"s (float32)": [0.2, 0.3, 0.4], "s (int8)": [0.25, 0.3, 0.3]})
    [row] = bias_rows(stats, ["s"])
    assert row["system"] == "s" and row["metric"] == "HONEST" and row["n_clusters"] == 6
    for engine in ("float32", "int8"):
        assert np.isclose(row[engine]["eq1"], hand_eq1(stats, f"s ({engine})"))
        assert row[engine]["low"] <= row[engine]["eq1"] <= row[engine]["high"]
    assert np.isclose(row["difference"]["eq1"], row["int8"]["eq1"] - row["float32"]["eq1"])
    assert row["difference"]["low"] < row["difference"]["high"]


def test_its_page_parses_and_the_readme_reads_not_measured_until_it_is():
    numbers = {
        "runs": {"float32": {"seconds": 200.0, "engines": []}, "int8": {"seconds": 150.0, "engines": []}},
        "ratio": 0.75,
        "bias": [
            {
                "system": "s",
                "metric": "HONEST",
                "float32": {"eq1": 0.1, "low": 0.0, "high": 0.2},
                "int8": {"eq1": 0.12, "low": 0.01, "high": 0.3},
                "difference": {"eq1": 0.02, "low": np.nan, "high": np.nan},
                "n_clusters": 5,
            }
        ],
    }
    page = markdown_tables(numbers)
    assert "| int8 | 150 | 0.75 |" in page
    assert "| s | HONEST | 0.100 (0.000 to 0.200) | 0.120 (0.010 to 0.300) | 0.020 | 5 |" in page
    assert FIELDS["demo_engines.ratio"]({"demo_engines": numbers}) == "75%"
    assert FIELDS["demo_engines.ratio"]({}) == NOT_MEASURED
    assert NOT_MEASURED in TABLES["demo_engines"]({})
