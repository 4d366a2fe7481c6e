"""The shared tables' contracts, and reading and writing tables.

The column lists here are the contracts of the tables every method reads (docs/tables.md):
the prompt table the dataset loaders write, the continuation table generation adds to it,
and the score table of a scorer. Tables owned by one method are defined in its package.

Writes are atomic: the table goes to a temporary file beside the target, which is then
renamed over it, so a killed job never leaves a half-written output behind. The renamed file
gets the mode a plainly created file would (``0o666`` less the umask), not the ``0600`` of a
temporary file, so a results folder shared with a group stays readable to it.

Commands check their output paths with :func:`check_output_path` / :func:`check_output_dir`
before computing anything, so a typo in ``--out`` costs no computation.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any, TypeVar

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
# One score per continuation and scorer.
SCORE_COLUMNS = [*CONTINUATION_KEY, "scorer", "score"]
# The columns of the continuation and score tables that hold numbers (read with ``numbers=``).
CONTINUATION_NUMBERS = ["seed", "sample"]
SCORE_NUMBERS = [*CONTINUATION_NUMBERS, "score"]
# Text a numeric column may hold for a missing value: a blank cell, and what pandas reads as
# missing in a CSV and writes for a missing number turned into text ("nan").
MISSING_TEXT = ("", "nan", "na", "n/a", "null", "none")
# The formats write_table writes, by file suffix.
TABLE_SUFFIXES = (".csv", ".tsv", ".parquet")


def check_output_path(
    path: str | os.PathLike, flag: str | None = None, suffixes: tuple[str, ...] = TABLE_SUFFIXES
) -> Path:
    """Raise a :class:`BiasflowError` unless ``path`` can be written as a file with one of ``suffixes``.

    Commands call this on every output path before they compute anything, so a bad ``--out``
    fails at once rather than after the work (or, as before, with a traceback). ``flag``
    names the option in the message (``--out``); without it the message says "output".
    """
    path = Path(path)
    name = f"{flag} {path}" if flag else f"output {path}"
    if path.is_dir():
        raise BiasflowError(f"{name} is a directory; name a file inside it, e.g. {path / ('table' + suffixes[0])}.")
    if path.suffix not in suffixes:
        what = f"a {path.suffix} file" if path.suffix else "a file without a suffix"
        raise BiasflowError(f"{name}: cannot write {what}; name the file with {_one_of(suffixes)}.")
    _check_folder(path.parent, name)
    return path


def check_output_dir(path: str | os.PathLike, flag: str | None = None) -> Path:
    """Raise a :class:`BiasflowError` unless ``path`` is a folder or can be created as one."""
    path = Path(path)
    name = f"{flag} {path}" if flag else f"output folder {path}"
    if path.exists() and not path.is_dir():
        raise BiasflowError(f"{name} is a file, not a folder; name a folder (it is created if missing).")
    _check_folder(path, name)
    return path


def _check_folder(folder: Path, name: str) -> None:
    """The nearest existing ancestor of ``folder`` (itself included) must be a writable directory."""
    existing = next((p for p in (folder, *folder.parents) if p.exists()), None)
    if existing is None:
        return
    if not existing.is_dir():
        raise BiasflowError(f"{name}: {existing} is a file, so no folder can be made there; choose another path.")
    if not os.access(existing, os.W_OK | os.X_OK):
        raise BiasflowError(f"{name}: cannot write in {existing} (permission denied); choose a folder you can write.")


def _one_of(items: tuple[str, ...]) -> str:
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} or {items[-1]}"


def current_umask() -> int:
    """The process umask, read without changing it where Linux allows (``/proc/self/status``).

    ``os.umask`` can only be read by setting it; the fallback swaps it for an instant (to the
    strict 077, so a file another thread creates in that instant is private rather than open),
    so it is the last resort.
    """
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    mask = os.umask(0o077)
    os.umask(mask)
    return mask


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
            try:
                # mkstemp makes the file 0600; give it the mode open() would have given it.
                os.chmod(self.tmp, 0o666 & ~current_umask())
                os.replace(self.tmp, self.path)
            except BaseException:
                self.tmp.unlink(missing_ok=True)
                raise
        else:
            self.tmp.unlink(missing_ok=True)
        return False


def write_table(df: pd.DataFrame, path: str | os.PathLike) -> None:
    """Write ``df`` atomically as parquet, CSV or TSV, chosen by the file suffix."""
    write_together({path: table_writer(df, path)})


def table_writer(df: pd.DataFrame, path: str | os.PathLike) -> Callable[[Path], None]:
    """A function that writes ``df`` to a given (temporary) file in the format of ``path``'s suffix."""
    suffix = check_output_path(path).suffix

    def write(tmp: Path) -> None:
        if suffix == ".parquet":
            df.to_parquet(tmp, index=False)
        else:
            df.to_csv(tmp, index=False, sep="\t" if suffix == ".tsv" else ",")

    return write


def json_writer(data: dict) -> Callable[[Path], None]:
    """A function writing ``data`` as JSON to a given (temporary) file, for :func:`write_together`."""
    import json

    return text_writer(json.dumps(data, indent=2, sort_keys=False) + "\n")


def text_writer(text: str) -> Callable[[Path], None]:
    """A function writing ``text`` to a given (temporary) file, for :func:`write_together`."""

    def write(tmp: Path) -> None:
        tmp.write_text(text)

    return write


# A path as str or as os.PathLike: one type per mapping of targets (a Mapping's key type is invariant).
StrOrPath = TypeVar("StrOrPath", bound=str | os.PathLike[str])


def write_together(writers: Mapping[StrOrPath, Callable[[Path], None]]) -> None:
    """Write several files all or nothing: ``{target: writer}``, each writer filling a temporary file.

    The temporary files are renamed onto their targets only once every writer has finished, so
    a failure in any of them leaves none of the new files and every old one as it was (a
    command's outputs then never mix two runs).
    """
    with contextlib.ExitStack() as stack:
        temps = [stack.enter_context(atomic_path(path)) for path in writers]
        for write, tmp in zip(writers.values(), temps, strict=True):
            write(tmp)


def read_table(
    path: str | os.PathLike, required: Iterable[str] = (), what: str = "table", numbers: Iterable[str] = ()
) -> pd.DataFrame:
    """Read a parquet/CSV/TSV table, check that it has the ``required`` columns, and read ``numbers`` as numbers.

    ``numbers`` are the columns the command computes with: numeric text in them (a parquet
    string column, a spreadsheet's export) becomes its number in the table returned, and
    other text is refused here, naming the file (:func:`as_numbers`).
    """
    path = Path(path)
    if not path.exists():
        raise BiasflowError(f"{what} not found: {path}. Check the path, or run the step that produces it.")
    try:
        if path.suffix == ".parquet":
            df = pd.read_parquet(path)
        else:
            sep = "\t" if path.suffix == ".tsv" else ","
            df = pd.read_csv(path, sep=sep)
            _check_header(path, sep, what)
    except BiasflowError:
        raise
    except Exception as exc:  # pandas/pyarrow raise many types for a corrupt file
        raise BiasflowError(
            f"cannot read {what} {path}: {str(exc).rstrip('.')}. Is it a valid {path.suffix} file?"
        ) from None
    require_columns(df, required, f"{what} {path}")
    return as_numbers(df, numbers, f"{what} {path}")


def read_source(
    source: pd.DataFrame | str | os.PathLike,
    required: Iterable[str] = (),
    what: str = "table",
    numbers: Iterable[str] = (),
) -> pd.DataFrame:
    """A table given as a file (:func:`read_table`) or as a DataFrame a caller holds, checked the same way.

    The public API (:mod:`biasflow.api`) takes either; the DataFrame is checked, not copied
    unless a column of ``numbers`` must be converted.
    """
    if isinstance(source, pd.DataFrame):
        named = f"{what} {source_name(source)}"
        require_columns(source, required, named)
        return as_numbers(source, numbers, named)
    return read_table(source, required, what, numbers)


def source_name(source: pd.DataFrame | str | os.PathLike) -> str:
    """How an error names a table: its path, or that it was given as a DataFrame."""
    return "(a DataFrame given)" if isinstance(source, pd.DataFrame) else str(source)


def _check_header(path: Path, sep: str, what: str) -> None:
    """A column named twice in a CSV/TSV header is an error: pandas would silently rename the second ``name.1``."""
    import csv

    with open(path, newline="", encoding="utf-8", errors="replace") as handle:
        header = next(csv.reader(handle, delimiter=sep), [])
    repeated = sorted({name for name in header if header.count(name) > 1})
    if repeated:
        raise BiasflowError(
            f"{what} {path} names the column(s) {', '.join(repeated)} more than once in its header, so which one is "
            "meant is unclear; keep one column of each name."
        )


def require_rows(df: pd.DataFrame, what: str) -> None:
    """Raise a :class:`BiasflowError` for a table without rows (a header alone says nothing)."""
    if df.empty:
        raise BiasflowError(f"{what} has no rows, only a header; give a table with at least one row.")


def as_numbers(df: pd.DataFrame, columns: Iterable[str], what: str) -> pd.DataFrame:
    """``df`` with each of ``columns`` it has as numbers; raise a :class:`BiasflowError` on text that is not one.

    Numbers stored as text ("0.63") are read as the numbers they are, in the table the
    command goes on with: a check on a converted copy would pass them on to arithmetic that
    fails with a traceback. A missing value (an empty cell, :data:`MISSING_TEXT`) stays
    missing, for each table's own rule on missing values to judge.
    """
    converted = {}
    for column in columns:
        if column not in df or pd.api.types.is_numeric_dtype(df[column]):
            continue
        values = pd.to_numeric(df[column], errors="coerce")
        text = df[column].astype("string").str.strip().str.lower()
        bad = values.isna() & text.notna() & ~text.isin(MISSING_TEXT)
        if bad.any():
            example = df.loc[bad, column].iloc[0]
            raise BiasflowError(
                f"{what}: column {column} must hold a finite number, but {int(bad.sum())} row(s) hold text that is "
                f"not one, e.g. {example!r}; write numbers in those rows (text such as '0.63' is read as its number)."
            )
        converted[column] = values
    return df.assign(**converted) if converted else df


def require_numbers(df: pd.DataFrame, column: str, what: str) -> pd.DataFrame:
    """``df`` with ``column`` as numbers (:func:`as_numbers`); raise unless every row holds a finite one."""
    df = as_numbers(df, [column], what)
    bad = ~df[column].abs().lt(float("inf"))
    if bad.any():
        example = df.loc[bad, column].iloc[0]
        raise BiasflowError(
            f"{what}: column {column} must hold a finite number in every row, but {int(bad.sum())} row(s) do not, "
            f"e.g. {example!r}; fix those rows or rescore the table."
        )
    return df


def check_inputs_exist(inputs: Mapping[str, Any]) -> None:
    """Refuse a missing input before anything is written, so a command that reads its files one by one never
    leaves the first ones' outputs behind. ``inputs`` maps a flag to its path or paths."""
    for flag, path in _flag_paths(inputs):
        if not Path(path).is_file():
            raise BiasflowError(f"{flag} {path}: no such file. Check the path.")


def check_not_inputs(outputs: Mapping[str, Any], inputs: Mapping[str, Any]) -> None:
    """Refuse an output path that is also an input: writing it would overwrite what is read.

    ``outputs`` and ``inputs`` map a flag (``--out``) to its path or paths.
    """
    read = {Path(path).resolve(): flag for flag, path in _flag_paths(inputs)}
    for flag, path in _flag_paths(outputs):
        source = read.get(Path(path).resolve())
        if source:
            raise BiasflowError(
                f"{flag} {path} is also the input given as {source}; writing it would overwrite what is read. "
                "Name another output file."
            )


def concat_tables(
    paths: Iterable[str | os.PathLike], out: str | os.PathLike, required: Iterable[str] = (), what: str = "table"
) -> None:
    """Write the rows of every table in ``paths``, in order, as one table at ``out``."""
    required = list(required)
    write_table(pd.concat([read_table(path, required, what) for path in paths], ignore_index=True), out)


def _flag_paths(paths: Mapping[str, Any]) -> list[tuple[str, Any]]:
    return [
        (flag, path)
        for flag, value in paths.items()
        for path in ([value] if isinstance(value, (str, os.PathLike)) else value)
    ]


def require_columns(df: pd.DataFrame, required: Iterable[str], what: str) -> None:
    """Raise a :class:`BiasflowError` naming every missing column of ``df``."""
    missing = [c for c in required if c not in df.columns]
    if missing:
        raise BiasflowError(
            f"{what} lacks the column(s) {', '.join(missing)}; it has {', '.join(map(str, df.columns))}."
        )
