"""The files we wrote and ship inside the package: ``biasflow/data`` (package data).

Prompt templates (paraphrase, classification, perturbation), the FairPair swap mapping and
occupations, the probe sets and the bundled prompt sets. A config names one of them as
``bundled:<path inside data>`` (``bundled:probes/templates.csv``); the schema's defaults
do so. :func:`resolve` turns such a name into a file path under a *root*:

- the workflow resolves against the ``src/biasflow/data`` of the checkout its Snakefile is
  in, so a second clone (or a cluster copy) reads its own, possibly edited, files;
- the ``biasflow`` command resolves against the installed package, found through
  :mod:`importlib.resources`, so a wheel installed outside any checkout has them too.

Any other value is a path the user gave, returned as it is (config/README.md, "Files, bundled and
your own").
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

PREFIX = "bundled:"


def package_root() -> Path:
    """The installed package's data folder."""
    return Path(str(resources.files("biasflow").joinpath("data")))


def checkout_root(workflow_dir: str | Path) -> Path:
    """The data folder of the checkout whose Snakefile is in ``workflow_dir`` (the package's if it has none)."""
    root = Path(workflow_dir) / "src" / "biasflow" / "data"
    return root if root.is_dir() else package_root()


def foreign_code(workflow_dir: str | Path) -> str | None:
    """A warning when the workflow's checkout has its own package but Python imports biasflow from elsewhere.

    Then the steps run the other copy's code (an editable install of another clone, say)
    while the bundled files come from this checkout: say so rather than mix the two silently.
    """
    own = Path(workflow_dir) / "src" / "biasflow"
    imported = Path(__file__).resolve().parent
    if not own.is_dir() or own.resolve() == imported:
        return None
    return (
        f"this workflow is in {Path(workflow_dir).resolve()}, but Python imports biasflow from {imported}, so its "
        f"steps run that copy's code (its bundled files are read from this checkout); run `pip install -e "
        f"{Path(workflow_dir).resolve()}` to use this checkout's code."
    )


def is_bundled(value) -> bool:
    return isinstance(value, str) and value.startswith(PREFIX)


def resolve(value, root: str | Path | None = None):
    """``bundled:<name>`` as a path under ``root`` (default: the installed package); anything else unchanged."""
    if not is_bundled(value):
        return value
    return str(Path(root if root is not None else package_root()) / value[len(PREFIX) :])


def package_path(name: str) -> Path:
    """A file or folder shipped with the installed package, by its path inside ``data``."""
    return package_root() / name
