"""Writing tables: output paths checked before any work, atomic writes, and the mode of what is written."""

from __future__ import annotations

import os
import stat

import pandas as pd
import pytest

from biasflow.cache import ShardCache
from biasflow.errors import BiasflowError
from biasflow.tables import (
    atomic_path,
    check_output_dir,
    check_output_path,
    current_umask,
    table_writer,
    write_table,
    write_together,
)

FRAME = pd.DataFrame({"a": [1, 2], "b": ["x", "y"]})


@pytest.fixture
def umask():
    """Set the process umask for one test and restore it afterwards."""
    old = os.umask(0o022)
    os.umask(old)
    yield lambda mask: os.umask(mask)
    os.umask(old)


def mode(path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


@pytest.mark.parametrize(("mask", "expected"), [(0o022, 0o644), (0o002, 0o664), (0o077, 0o600)])
def test_written_files_get_the_mode_open_would_give_them(tmp_path, umask, mask, expected):
    """mkstemp makes 0600 files; a results folder shared with a group must stay readable to it."""
    umask(mask)
    assert current_umask() == mask
    for name in ("t.csv", "t.tsv", "t.parquet"):
        write_table(FRAME, tmp_path / name)
        assert mode(tmp_path / name) == expected, name
    cache = ShardCache(tmp_path / "cache")
    cache.add(pd.DataFrame({"key": ["k1"], "value": [1.0]}))
    [shard] = (tmp_path / "cache").glob("*.parquet")
    assert mode(shard) == expected
    with atomic_path(tmp_path / "plot.png") as tmp:
        tmp.write_bytes(b"png")
    assert mode(tmp_path / "plot.png") == expected
    assert not list(tmp_path.glob(".*.tmp")), "no temporary file is left behind"


@pytest.mark.parametrize("name", ["gaps.xlsx", "gaps", "gaps.CSV"])
def test_an_unsupported_suffix_names_the_ones_that_work(tmp_path, name):
    with pytest.raises(BiasflowError, match=r"--out .*: cannot write .*; name the file with \.csv, \.tsv or \.parquet"):
        check_output_path(tmp_path / name, "--out")
    with pytest.raises(BiasflowError, match=r"^output .*name the file with \.csv, \.tsv or \.parquet"):
        write_table(FRAME, tmp_path / name)
    assert not list(tmp_path.iterdir())


def test_a_directory_is_not_an_output_file(tmp_path):
    (tmp_path / "results").mkdir()
    with pytest.raises(
        BiasflowError, match=r"--out .*results is a directory; name a file inside it, e\.g\. .*table\.csv"
    ):
        check_output_path(tmp_path / "results", "--out")
    (tmp_path / "file.csv").write_text("keep")
    with pytest.raises(BiasflowError, match=r"file\.csv is a file, so no folder can be made there"):
        check_output_path(tmp_path / "file.csv" / "out.csv", "--out")
    with pytest.raises(BiasflowError, match=r"--out-dir .*file\.csv is a file, not a folder; name a folder"):
        check_output_dir(tmp_path / "file.csv", "--out-dir")
    assert (tmp_path / "file.csv").read_text() == "keep"
    assert check_output_dir(tmp_path / "new" / "folder") == tmp_path / "new" / "folder"
    assert not (tmp_path / "new").exists(), "checking creates nothing"


def test_write_together_is_all_or_nothing(tmp_path):
    (tmp_path / "a.csv").write_text("old a\n")

    def fail(tmp):
        raise RuntimeError("disk full")

    with pytest.raises(RuntimeError):
        write_together({tmp_path / "a.csv": table_writer(FRAME, tmp_path / "a.csv"), tmp_path / "b.json": fail})
    assert (tmp_path / "a.csv").read_text() == "old a\n", "an earlier run's file is untouched"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.csv"], "no new file, no temporary file"
    write_together(
        {
            tmp_path / "a.csv": table_writer(FRAME, tmp_path / "a.csv"),
            tmp_path / "b.json": lambda tmp: tmp.write_text("{}"),
        }
    )
    assert pd.read_csv(tmp_path / "a.csv").equals(FRAME) and (tmp_path / "b.json").read_text() == "{}"
