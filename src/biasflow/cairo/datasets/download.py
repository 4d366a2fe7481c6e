"""Fetching a metric's official files.

All files of a metric are downloaded to temporary files first and renamed into place
only when every one arrived, so a failed or interrupted download leaves no file behind
that a later run could mistake for the dataset.
"""

from __future__ import annotations

import contextlib
import shutil
import urllib.error
import urllib.request
from pathlib import Path

from biasflow.errors import BiasflowError
from biasflow.tables import atomic_path

TIMEOUT_S = 60


def download_files(names: tuple[str, ...], base_url: str, dest_dir: str | Path) -> list[Path]:
    """Fetch ``base_url/<name>`` for every name into ``dest_dir``; return the paths written."""
    dest_dir = Path(dest_dir)
    targets = [dest_dir / name for name in names]
    with contextlib.ExitStack() as stack:
        for name, target in zip(names, targets, strict=True):
            fetch(f"{base_url.rstrip('/')}/{name}", stack.enter_context(atomic_path(target)))
    return targets


def fetch(url: str, dest: Path) -> None:
    """Copy the body of ``url`` into ``dest``; any failure is a :class:`BiasflowError`."""
    try:
        with urllib.request.urlopen(url, timeout=TIMEOUT_S) as response, open(dest, "wb") as out:
            shutil.copyfileobj(response, out)
    except (urllib.error.URLError, OSError, ValueError) as exc:
        raise BiasflowError(
            f"could not download {url}: {exc}. Check the base URL and the network, or place the "
            f"files in the dataset folder by hand."
        ) from exc
