"""Reading the official dataset files with errors a user can act on.

Dataset files come from outside (a download, a user's copy), so every way they can be
wrong — missing, not JSON, the wrong shape — ends in one :class:`BiasflowError` that
names the file and what was expected there, never in a ``KeyError`` deep in a loader.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from biasflow.errors import BiasflowError

WHERE_TO_GET = (
    "The official files are described in src/biasflow/data/datasets/README.md; "
    "biasflow.cairo.datasets.download_dataset fetches them."
)


def data_file(data_dir: Path, name: str, metric: str) -> Path:
    """Path of the official file ``name`` of ``metric`` inside ``data_dir``; it must exist."""
    path = data_dir / name
    if not path.is_file():
        raise BiasflowError(f"{metric} file not found: {path}. {WHERE_TO_GET}")
    return path


def read_json(path: Path, expected: str) -> Any:
    """Parse the JSON file at ``path``; ``expected`` describes its layout for the error."""
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except UnicodeDecodeError as exc:
        raise BiasflowError(
            f"{path} is not UTF-8 text (byte {exc.object[exc.start]:#04x} at offset {exc.start}); "
            "save it as UTF-8, the encoding of the official files."
        ) from None
    except json.JSONDecodeError as exc:
        raise BiasflowError(f"{path} is not valid JSON ({exc}); expected {expected}.") from exc


def malformed(path: Path, where: str, expected: str) -> BiasflowError:
    """The error for a file whose structure differs from the official layout at ``where``."""
    return BiasflowError(
        f"{path} is malformed at {where}: expected {expected}. Is it the official file? {WHERE_TO_GET}"
    )
