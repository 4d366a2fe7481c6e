"""Content-addressed result cache shared by generation, paraphrasing and scoring (docs/methods.md §5.4).

A cache is a directory of parquet *shards*; each shard holds rows ``key, <value columns>``.
Writers never modify a shard: they add new ones, each written to a temporary file and
renamed into place, so

* a killed job loses at most the rows of its unfinished shard and never corrupts the cache;
* several jobs (say, two metrics generated from one model at once) may write concurrently;
* a rerun after adding prompts or seeds reads the shards and computes only the missing keys.

Keys are content hashes (see :mod:`biasflow.hashing`) of everything that determines a
result, so the cache never has to guess what a row belongs to.

A shard is named by the sha256 of its own bytes, ``<sha256>.parquet``, and reading checks
the name against the bytes: a shard that fails (altered on disk, truncated, not parquet)
is reported in one warning, renamed to ``<name>.corrupt`` for inspection, and its rows are
treated as missing, so the caller recomputes them. When many small shards pile up (the
transformers backend adds one every 256 requests), :meth:`ShardCache.add` merges them into
one, so reading a million rows stays about as fast as reading one file.
"""

from __future__ import annotations

import hashlib
import io
import logging
import os
import re
from collections.abc import Iterable
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from biasflow.tables import atomic_path

log = logging.getLogger("biasflow")

CHECKSUM_NAME = re.compile(r"[0-9a-f]{64}")
# Compaction (docs/methods.md §5.4): once more than COMPACT_AT shards smaller than
# SMALL_SHARD_BYTES exist, add() merges them into one shard. Reading costs about a
# millisecond per shard, so 256 small shards add a quarter of a second to a load; a lower
# limit merges more often and rewrites the merged rows more often.
COMPACT_AT = 256
SMALL_SHARD_BYTES = 16 * 2**20
# How often a reader lists the directory again after a listed shard vanished.
MAX_LISTINGS = 5


class ShardCache:
    """Rows keyed by a content hash, stored as append-only parquet shards under ``directory``.

    ``compact_at`` and ``small_shard_bytes`` set when :meth:`add` merges small shards
    (``compact_at=None`` never merges); the defaults suit every cache of the workflow.
    """

    def __init__(
        self, directory: str | Path, *, compact_at: int | None = COMPACT_AT, small_shard_bytes: int = SMALL_SHARD_BYTES
    ):
        self.directory = Path(directory)
        self.compact_at = compact_at
        self.small_shard_bytes = small_shard_bytes

    def load(self, keys: Iterable[str] | None = None) -> pd.DataFrame:
        """All cached rows (restricted to ``keys`` when given), one row per key.

        Shards named by a sha256 are checked against their bytes; one that fails, or that
        cannot be read, is reported, moved aside to ``<name>.corrupt`` and skipped, so its
        rows are missing and get recomputed. Shards with other names (the uuid names of
        versions before checksums) are read without a check. A shard that another process
        removed after this one listed it (moved aside, or merged into a new shard) is
        skipped and the directory listed again, so rows merged elsewhere are still found.
        """
        tables = [table for _, table in self._read_shards()]
        if not tables:
            return pd.DataFrame(columns=["key"]).set_index("key", drop=False)
        table = _to_frame(tables, keys)
        return table.drop_duplicates("key", keep="first").set_index("key", drop=False)

    def add(self, rows: pd.DataFrame) -> None:
        """Write ``rows`` (with a ``key`` column) as one new shard; no-op when empty.

        Afterwards, if more than ``compact_at`` small shards exist, they are merged
        (:meth:`compact`).
        """
        if rows.empty:
            return
        if "key" not in rows.columns:
            raise ValueError("cache rows need a 'key' column")
        buffer = io.BytesIO()
        rows.reset_index(drop=True).to_parquet(buffer, index=False)
        self._write(buffer.getvalue())
        limit = self.compact_at
        # Counting names is cheap; the sizes are looked up only when there are enough names.
        if limit is not None and _count_shards(self.directory) > limit and len(self._small_shards()) > limit:
            self.compact()

    def compact(self) -> None:
        """Merge the small shards into one checksum-named shard, then remove them.

        Safe alongside other readers and writers: the merged shard is renamed into place
        before any of its sources is removed, so every row is always in some listed shard
        (a reader that meets a removed one lists again); only shards whose rows were read
        into the merge are removed; two processes merging at once at worst leave a key in
        two shards, which :meth:`load` reads once.
        """
        read = self._read_shards(self._small_shards())
        if len(read) < 2:
            return
        merged = _to_frame([table for _, table in read]).drop_duplicates("key", keep="first").reset_index(drop=True)
        buffer = io.BytesIO()
        merged.to_parquet(buffer, index=False)
        target = self._write(buffer.getvalue())
        for path, _ in read:
            if path != target:
                path.unlink(missing_ok=True)
        log.debug("cache %s: merged %d shards (%d rows) into %s", self.directory, len(read), len(merged), target.name)

    def _write(self, data: bytes) -> Path:
        target = self.directory / f"{hashlib.sha256(data).hexdigest()}.parquet"
        with atomic_path(target) as tmp:
            tmp.write_bytes(data)
        return target

    def _listing(self) -> list[Path]:
        return sorted(self.directory.glob("*.parquet")) if self.directory.exists() else []

    def _small_shards(self) -> list[Path]:
        small = []
        for path in self._listing():
            try:
                if path.stat().st_size < self.small_shard_bytes:
                    small.append(path)
            except FileNotFoundError:  # merged or moved aside by another process
                continue
        return small

    def _read_shards(self, paths: list[Path] | None = None) -> list[tuple[Path, pa.Table]]:
        """(path, rows) of every readable shard, listing again when a listed one vanished.

        With ``paths`` given, read only those and never list again (compaction merges what
        it listed; a vanished one's rows are in whichever shard it was merged into).
        """
        out: list[tuple[Path, pa.Table]] = []
        seen: set[str] = set()
        for _ in range(MAX_LISTINGS):
            listed = [p for p in (self._listing() if paths is None else paths) if p.name not in seen]
            vanished = False
            for path in listed:
                seen.add(path.name)
                table = self._read_one(path)
                if table is _VANISHED:
                    vanished = True
                elif table is not None:
                    out.append((path, table))
            if not vanished or paths is not None:
                break
        return out

    def _read_one(self, path: Path):
        """The rows of one shard; None if it failed its check (then moved aside); _VANISHED if gone."""
        try:
            data = path.read_bytes()
        except FileNotFoundError:
            return _VANISHED
        problem = None
        if CHECKSUM_NAME.fullmatch(path.stem) and hashlib.sha256(data).hexdigest() != path.stem:
            problem = "its bytes do not match the checksum in its name"
        else:
            try:
                table = pq.read_table(pa.BufferReader(data))
                if "key" not in table.column_names:
                    problem = "it has no 'key' column"
            except Exception as exc:
                problem = f"it is not a readable parquet file ({type(exc).__name__}: {exc})"
        if problem is None:
            return table
        aside = path.with_name(path.name + ".corrupt")
        try:
            os.replace(path, aside)
        except FileNotFoundError:  # another reader moved it aside first
            pass
        except OSError as exc:  # a read-only cache: leave it, it is skipped all the same
            log.debug("cannot move %s aside: %s", path, exc)
        log.warning(
            "cache shard %s is corrupt (%s); moved it to %s; its rows will be recomputed", path, problem, aside.name
        )
        return None


_VANISHED = object()


def _count_shards(directory: Path) -> int:
    """Number of shards in ``directory``, counted without sorting or a stat per file (every add counts)."""
    with os.scandir(directory) as entries:
        return sum(1 for entry in entries if entry.name.endswith(".parquet"))


def _to_frame(tables: list[pa.Table], keys: Iterable[str] | None = None) -> pd.DataFrame:
    """The shards' rows (those of ``keys`` when given) as one frame, in shard order.

    Joined and filtered by arrow: thousands of small shards convert far faster in one go
    than one by one, and pandas' ``isin`` on a string column is slow for a million keys.
    """
    try:
        table = pa.concat_tables(tables, promote_options="permissive")
    except (pa.ArrowInvalid, pa.ArrowTypeError):  # columns whose types arrow cannot unify
        frame = pd.concat([table.to_pandas() for table in tables], ignore_index=True)
        return frame if keys is None else frame[frame["key"].isin(set(keys))]
    if keys is not None:
        wanted = pa.array(list(set(keys)), pa.large_string())
        table = table.filter(pc.is_in(table["key"].cast(pa.large_string()), value_set=wanted))
    return table.to_pandas()


def report_hits(what: str, n_total: int, n_missing: int) -> None:
    """Log the cache hit count, so a user sees that a rerun computed only new rows."""
    log.info("%s: %d of %d rows from cache, %d to compute", what, n_total - n_missing, n_total, n_missing)
