"""Content-addressed result cache shared by generation, paraphrasing and scoring.

A cache is a directory of parquet *shards*; each shard holds rows ``key, <value columns>``.
Writers never modify a shard: they add new ones, each written to a temporary file and
renamed into place, so

* a killed job loses at most the rows of its unfinished shard and never corrupts the cache;
* several jobs (say, two metrics generated from one model at once) may write concurrently;
* a rerun after adding prompts or seeds reads the shards and computes only the missing keys.

Keys are content hashes (see :mod:`biasflow.hashing`) of everything that determines a
result, so the cache never has to guess what a row belongs to.
"""

from __future__ import annotations

import logging
import uuid
from pathlib import Path
from typing import Iterable

import pandas as pd

from biasflow.errors import BiasflowError
from biasflow.tables import atomic_path

log = logging.getLogger("biasflow")


class ShardCache:
    """Rows keyed by a content hash, stored as append-only parquet shards under ``directory``."""

    def __init__(self, directory: str | Path):
        self.directory = Path(directory)

    def load(self, keys: Iterable[str] | None = None) -> pd.DataFrame:
        """All cached rows (restricted to ``keys`` when given), one row per key."""
        shards = sorted(self.directory.glob("*.parquet")) if self.directory.exists() else []
        frames = [_read_shard(path) for path in shards]
        table = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=["key"])
        table = table.drop_duplicates("key", keep="first")
        if keys is not None:
            table = table[table["key"].isin(set(keys))]
        return table.set_index("key", drop=False)

    def add(self, rows: pd.DataFrame) -> None:
        """Write ``rows`` (with a ``key`` column) as one new shard; no-op when empty."""
        if rows.empty:
            return
        if "key" not in rows.columns:
            raise ValueError("cache rows need a 'key' column")
        with atomic_path(self.directory / f"{uuid.uuid4().hex}.parquet") as tmp:
            rows.reset_index(drop=True).to_parquet(tmp, index=False)


def _read_shard(path: Path) -> pd.DataFrame:
    try:
        return pd.read_parquet(path)
    except Exception as exc:  # pyarrow raises several types for a foreign or damaged file
        raise BiasflowError(f"cannot read cache shard {path}: {exc}. Delete that file; its rows will be recomputed.") from exc


def report_hits(what: str, n_total: int, n_missing: int) -> None:
    """Log the cache hit count, so a user sees that a rerun computed only new rows."""
    log.info("%s: %d of %d rows from cache, %d to compute", what, n_total - n_missing, n_total, n_missing)
