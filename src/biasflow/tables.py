"""The shared tables' contracts, and reading and writing tables.

The column lists here are the contracts of the tables every method reads (docs/tables.md):
the prompt table the dataset loaders write, the continuation table generation adds to it,
and the score table of a scorer. Tables owned by one method are defined in its package.

Writes are atomic: the table goes to a temporary file beside the target, which is then
renamed over it, so a killed job never leaves a half-written output behind.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Iterable

import pandas as pd

from biasflow.errors import BiasflowError

# One row per prompt of one prompt set (docs/tables.md, "Prompt table").
PROMPT_COLUMNS = [
    "prompt_id",
    "metric",
    "axis",
    "subgroup",
    "split",
    "group_key",
    "promptset",
    "source_id",
    "text",
    "identity_term",
]
# What identifies one sampled continuation: its prompt, model, generation seed and sample index.
CONTINUATION_KEY = ["prompt_id", "model", "seed", "sample"]
# One row per sampled continuation: the prompt's columns plus what generation adds.
CONTINUATION_COLUMNS = [*PROMPT_COLUMNS, "model", "seed", "sample", "continuation", "n_tokens"]
# One score per continuation and scorer.
SCORE_COLUMNS = [*CONTINUATION_KEY, "scorer", "score"]


def atomic_path(path: str | os.PathLike):
    """Context manager yielding a temporary path that is renamed to ``path`` on success."""
    return _AtomicPath(Path(path))


class _AtomicPath:
    def __init__(self, path: Path):
        self.path = path

    def __enter__(self) -> Path:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{self.path.name}.", suffix=".tmp", dir=self.path.parent)
        os.close(fd)
        self.tmp = Path(tmp)
        return self.tmp

    def __exit__(self, exc_type, exc, tb):
        if exc_type is None:
            os.replace(self.tmp, self.path)
        else:
            self.tmp.unlink(missing_ok=True)
        return False


def write_table(df: pd.DataFrame, path: str | os.PathLike) -> None:
    """Write ``df`` atomically as parquet, CSV or TSV, chosen by the file suffix."""
    path = Path(path)
    with atomic_path(path) as tmp:
        if path.suffix == ".parquet":
            df.to_parquet(tmp, index=False)
        elif path.suffix == ".csv":
            df.to_csv(tmp, index=False)
        elif path.suffix == ".tsv":
            df.to_csv(tmp, index=False, sep="\t")
        else:
            raise ValueError(f"unsupported table suffix: {path}")


def read_table(path: str | os.PathLike, required: Iterable[str] = (), what: str = "table") -> pd.DataFrame:
    """Read a parquet/CSV/TSV table and check that it has the ``required`` columns."""
    path = Path(path)
    if not path.exists():
        raise BiasflowError(f"{what} not found: {path}. Check the path, or run the step that produces it.")
    try:
        if path.suffix == ".parquet":
            df = pd.read_parquet(path)
        elif path.suffix == ".tsv":
            df = pd.read_csv(path, sep="\t")
        else:
            df = pd.read_csv(path)
    except Exception as exc:  # pandas/pyarrow raise many types for a corrupt file
        raise BiasflowError(f"cannot read {what} {path}: {exc}. Is it a valid {path.suffix} file?") from exc
    require_columns(df, required, f"{what} {path}")
    return df


def concat_tables(paths: Iterable[str | os.PathLike], out: str | os.PathLike, required: Iterable[str] = (),
                  what: str = "table") -> None:
    """Write the rows of every table in ``paths``, in order, as one table at ``out``."""
    required = list(required)
    write_table(pd.concat([read_table(path, required, what) for path in paths], ignore_index=True), out)


def require_columns(df: pd.DataFrame, required: Iterable[str], what: str) -> None:
    """Raise a :class:`BiasflowError` naming every missing column of ``df``."""
    missing = [c for c in required if c not in df.columns]
    if missing:
        raise BiasflowError(
            f"{what} lacks the column(s) {', '.join(missing)}; it has {', '.join(map(str, df.columns))}."
        )
