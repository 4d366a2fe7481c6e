"""ShardCache: the append-only parquet result cache shared by all steps."""

from __future__ import annotations

import pandas as pd
import pytest

from biasflow.cache import ShardCache


def rows(keys, offset=0):
    return pd.DataFrame({"key": list(keys), "text": [f"t-{k}" for k in keys], "n_tokens": [len(k) + offset for k in keys]})


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
