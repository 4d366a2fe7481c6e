"""ShardCache: the append-only parquet result cache shared by all steps."""

from __future__ import annotations

import hashlib
import logging
import uuid
from pathlib import Path

import pandas as pd
import pytest

from biasflow.cache import ShardCache


def rows(keys, offset=0):
    return pd.DataFrame(
        {"key": list(keys), "text": [f"t-{k}" for k in keys], "n_tokens": [len(k) + offset for k in keys]}
    )


def test_load_on_missing_directory_is_empty(tmp_path):
    cache = ShardCache(tmp_path / "does" / "not" / "exist")
    table = cache.load()
    assert table.empty
    assert "key" in table.columns
    assert cache.load(["a", "b"]).empty
    assert not (tmp_path / "does").exists(), "loading must not create the directory"


def test_add_then_load_returns_the_rows(tmp_path):
    cache = ShardCache(tmp_path / "c")
    cache.add(rows(["a", "bb", "ccc"]))
    table = cache.load()
    assert sorted(table["key"]) == ["a", "bb", "ccc"]
    assert table.loc["bb", "text"] == "t-bb"
    assert int(table.loc["ccc", "n_tokens"]) == 3
    # Restricting to keys returns only those (unknown keys are simply absent).
    sub = ShardCache(tmp_path / "c").load(["a", "zzz"])
    assert list(sub["key"]) == ["a"]


def test_two_writers_on_one_directory_are_both_visible(tmp_path):
    first, second = ShardCache(tmp_path / "c"), ShardCache(tmp_path / "c")
    first.add(rows(["a", "b"]))
    second.add(rows(["c"]))
    first.add(rows(["d"]))
    for reader in (first, second, ShardCache(tmp_path / "c")):
        assert sorted(reader.load()["key"]) == ["a", "b", "c", "d"]
    assert len(list((tmp_path / "c").glob("*.parquet"))) == 3, "each add writes its own shard"


def test_duplicate_keys_across_shards_load_once(tmp_path):
    cache = ShardCache(tmp_path / "c")
    cache.add(rows(["a", "b"]))
    cache.add(rows(["b", "c"], offset=100))
    table = cache.load()
    assert sorted(table["key"]) == ["a", "b", "c"]
    assert table.index.is_unique


def test_leftover_temp_file_is_ignored(tmp_path):
    directory = tmp_path / "c"
    cache = ShardCache(directory)
    cache.add(rows(["a"]))
    # What a killed writer leaves behind: a (maybe half-written) hidden temp file.
    rows(["ghost"]).to_parquet(directory / ".0123abcd.parquet.xyz.tmp", index=False)
    (directory / ".deadbeef.parquet.abc.tmp").write_bytes(b"PAR1 truncated garbage")
    assert list(cache.load()["key"]) == ["a"]


def test_add_of_an_empty_frame_writes_nothing(tmp_path):
    directory = tmp_path / "c"
    cache = ShardCache(directory)
    cache.add(pd.DataFrame(columns=["key", "text", "n_tokens"]))
    assert not directory.exists() or not any(directory.iterdir())
    assert cache.load().empty


def test_add_without_key_column_is_refused(tmp_path):
    with pytest.raises(ValueError, match="key"):
        ShardCache(tmp_path / "c").add(pd.DataFrame({"text": ["x"]}))


# ---------------------------------------------------------------------------------------
# Checksums (docs/methods.md §5.4): a damaged shard is reported, moved aside, recomputed.


def shard_of(directory, key):
    """The shard file holding ``key``."""
    return next(p for p in directory.glob("*.parquet") if key in set(pd.read_parquet(p)["key"]))


def test_shard_is_named_by_the_sha256_of_its_bytes(tmp_path):
    ShardCache(tmp_path / "c").add(rows(["a", "b"]))
    (shard,) = (tmp_path / "c").iterdir()
    assert shard.name == hashlib.sha256(shard.read_bytes()).hexdigest() + ".parquet"


@pytest.mark.parametrize("damage", ["flip", "truncate"])
def test_damaged_shard_is_reported_moved_aside_and_its_rows_missing(tmp_path, caplog, damage):
    directory = tmp_path / "c"
    cache = ShardCache(directory)
    cache.add(rows(["a", "b"]))
    cache.add(rows(["c"]))
    bad = shard_of(directory, "a")
    data = bytearray(bad.read_bytes())
    if damage == "flip":
        # One byte of a stored value: the file still parses, only the checksum tells.
        at = bytes(data).index(b"t-a")
        data[at + 2] = ord("X")
        bad.write_bytes(bytes(data))
        assert "t-X" in set(pd.read_parquet(bad)["text"])
    else:
        bad.write_bytes(bytes(data[: len(data) // 2]))

    with caplog.at_level(logging.WARNING, logger="biasflow"):
        table = cache.load()
    assert list(table["key"]) == ["c"], "the other shard's rows are kept, the damaged shard's are missing"
    warnings = [r for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 1
    assert bad.name in warnings[0].getMessage() and "recomputed" in warnings[0].getMessage()
    assert not bad.exists()
    assert (directory / (bad.name + ".corrupt")).exists(), "kept for inspection, under a name no reader lists"

    # The caller recomputes the missing rows and adds them; nothing is reported again.
    caplog.clear()
    cache.add(rows(["a", "b"]))
    with caplog.at_level(logging.WARNING, logger="biasflow"):
        table = cache.load(["a", "b", "c"])
    assert sorted(table["key"]) == ["a", "b", "c"] and table.loc["a", "text"] == "t-a"
    assert not caplog.records


def test_legacy_uuid_named_shard_is_read_without_a_check(tmp_path, caplog):
    directory = tmp_path / "c"
    directory.mkdir()
    rows(["old"]).to_parquet(directory / f"{uuid.uuid4().hex}.parquet", index=False)
    ShardCache(directory).add(rows(["new"]))
    with caplog.at_level(logging.WARNING, logger="biasflow"):
        assert sorted(ShardCache(directory).load()["key"]) == ["new", "old"]
    assert not caplog.records


def test_unreadable_legacy_shard_is_treated_as_corrupt(tmp_path, caplog):
    directory = tmp_path / "c"
    directory.mkdir()
    legacy = directory / f"{uuid.uuid4().hex}.parquet"
    legacy.write_bytes(b"PAR1 not really parquet")
    rows(["no-key-column"]).drop(columns="key").to_parquet(directory / "foreign.parquet", index=False)
    ShardCache(directory).add(rows(["ok"]))
    with caplog.at_level(logging.WARNING, logger="biasflow"):
        assert list(ShardCache(directory).load()["key"]) == ["ok"]
    messages = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert len(messages) == 2 and any(legacy.name in m for m in messages) and any("foreign" in m for m in messages)
    assert sorted(p.name for p in directory.glob("*.corrupt")) == sorted(
        [legacy.name + ".corrupt", "foreign.parquet.corrupt"]
    )


def test_a_shard_that_vanishes_after_listing_does_not_crash_a_reader(tmp_path, monkeypatch):
    directory = tmp_path / "c"
    cache = ShardCache(directory)
    cache.add(rows(["a"]))
    cache.add(rows(["b"]))
    gone = shard_of(directory, "a")
    real_read_bytes = Path.read_bytes

    def moved_aside_by_someone_else(self):
        if self == gone and self.exists():
            self.rename(self.with_name(self.name + ".corrupt"))
        return real_read_bytes(self)

    monkeypatch.setattr(Path, "read_bytes", moved_aside_by_someone_else)
    assert list(cache.load()["key"]) == ["b"]


def test_a_reader_racing_a_compaction_finds_the_merged_rows(tmp_path, monkeypatch):
    """Another process merges the shards after this reader listed them: it lists again."""
    directory = tmp_path / "c"
    for keys in (["a", "b"], ["c"], ["d"]):
        ShardCache(directory, compact_at=None).add(rows(keys))
    first = min(directory.glob("*.parquet"))
    real_read_bytes = Path.read_bytes
    raced = []

    def compacted_meanwhile(self):
        if self == first and not raced:
            raced.append(True)
            ShardCache(directory).compact()  # writes the merged shard, then removes the three
        return real_read_bytes(self)

    monkeypatch.setattr(Path, "read_bytes", compacted_meanwhile)
    table = ShardCache(directory).load()
    assert raced and sorted(table["key"]) == ["a", "b", "c", "d"]
    assert len(list(directory.glob("*.parquet"))) == 1


# ---------------------------------------------------------------------------------------
# Compaction: many small shards are merged, no row is lost.


def test_compaction_keeps_every_row(tmp_path, caplog):
    directory = tmp_path / "c"
    cache = ShardCache(directory, compact_at=4)
    expected = {}
    for i in range(23):
        keys = [f"k{i}-{j}" for j in range(3)] + ["shared"]  # one key in every shard
        frame = rows(keys)
        cache.add(frame)
        for key, text in zip(frame["key"], frame["text"], strict=True):
            expected.setdefault(key, text)
        assert len(list(directory.glob("*.parquet"))) <= 5
    with caplog.at_level(logging.WARNING, logger="biasflow"):
        table = ShardCache(directory).load()
    assert not caplog.records, "merged shards carry their own checksum"
    assert dict(zip(table["key"], table["text"], strict=True)) == expected
    assert table.index.is_unique
    for shard in directory.glob("*.parquet"):
        assert shard.stem == hashlib.sha256(shard.read_bytes()).hexdigest()
    assert not list(directory.glob(".*"))


def test_compaction_leaves_large_shards_alone(tmp_path):
    directory = tmp_path / "c"
    big = [f"big-{i}" for i in range(2000)]
    ShardCache(directory, compact_at=None).add(rows(big))
    (large,) = directory.glob("*.parquet")
    cache = ShardCache(directory, compact_at=2, small_shard_bytes=large.stat().st_size)
    for i in range(3):
        cache.add(rows([f"small-{i}"]))
    shards = sorted(directory.glob("*.parquet"))
    assert large in shards and len(shards) == 2
    assert sorted(cache.load()["key"]) == sorted(big + ["small-0", "small-1", "small-2"])
