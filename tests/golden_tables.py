"""The tiny workflow's recorded tables (workflow/golden/tiny_tables.json): a digest per table, floats rounded.

Every table a finished tiny run wrote (CSV, TSV, parquet and the JSON of the selection) is
read, its floats written to 12 significant digits and hashed. The run computes in float32
(tests/conftest.py), and so writes the same continuations on every CPU: with PyTorch's and
numpy's kernels capped at AVX2 (ATEN_CPU_CAPABILITY, ONEDNN_MAX_CPU_ISA,
NPY_DISABLE_CPU_FEATURES) on an AVX512 machine, every table kept its digest, and three moved
only in the 15th digit (a sum taken in another order). Figures and HTML pages are left out:
their bytes belong to matplotlib's version, not to ours. A run of the same config anywhere (a
SLURM cluster, a second checkout) is held to these digests instead of to a second local run.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pandas as pd

GOLDEN = Path(__file__).parent / "workflow" / "golden" / "tiny_tables.json"
TABLES = (".csv", ".tsv", ".parquet", ".json")
DIGITS = 12


def recorded() -> dict[str, str]:
    """Path under results/ -> the recorded digest of its table."""
    return json.loads(GOLDEN.read_text())


def canonical(value):
    """A JSON value with every float at ``DIGITS`` significant digits."""
    if isinstance(value, float):
        return float(f"{value:.{DIGITS}g}")
    if isinstance(value, dict):
        return {key: canonical(item) for key, item in value.items()}
    if isinstance(value, list):
        return [canonical(item) for item in value]
    return value


def digest(path: Path) -> str:
    """sha256 of the table's content, floats at ``DIGITS`` significant digits."""
    if path.suffix == ".json":
        text = json.dumps(canonical(json.loads(path.read_text())), sort_keys=True)
    else:
        table = (
            pd.read_parquet(path)
            if path.suffix == ".parquet"
            else pd.read_csv(path, sep="\t" if path.suffix == ".tsv" else ",", keep_default_na=False, dtype=str)
        )
        if path.suffix != ".parquet":  # read as text, so an integer column stays an integer: floats only are rounded
            table = table.apply(lambda column: column.map(_round_text))
        text = table.to_csv(index=False, float_format=f"%.{DIGITS}g", lineterminator="\n")
    return hashlib.sha256(text.encode()).hexdigest()


def _round_text(cell: str) -> str:
    """A CSV cell as written, a float among them at ``DIGITS`` significant digits."""
    if "." not in cell and "e" not in cell.lower():
        return cell
    try:
        return f"{float(cell):.{DIGITS}g}"
    except ValueError:
        return cell


def tables(results: Path) -> dict[str, str]:
    """Path under ``results`` -> digest, for every table there."""
    return {
        str(path.relative_to(results)): digest(path) for path in sorted(results.rglob("*")) if path.suffix in TABLES
    }
