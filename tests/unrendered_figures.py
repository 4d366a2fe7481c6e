"""Figures built but not rendered, for the tests of what a command or step computes and which files it writes.

Laying out and rendering a figure (``Figure.tight_layout`` and ``Figure.savefig``) is most of what a
summary command costs here: about 2 of the 3 CPU seconds of ``biasflow fairpair-summary`` or
``fpr-summary`` on three small models. A test of its tables needs the figures' files, not their
pixels: with :func:`unrendered` every figure is still built from its table and written where it
would be, as the PNG signature alone. Each command still renders every figure of an all-pairs run in
full once, in its --pairs none test (tests/fpr/test_commands.py, tests/fairpair/test_commands.py), and
tests/core/test_separations.py renders the comparison figure's view against a baseline.
"""

from __future__ import annotations

from pathlib import Path

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def unrendered(monkeypatch) -> None:
    """For the rest of the test, lay out no figure and write each as :data:`PNG_SIGNATURE` alone."""
    from matplotlib.figure import Figure

    monkeypatch.setattr(Figure, "tight_layout", lambda self, *args, **kwargs: None)
    monkeypatch.setattr(Figure, "savefig", lambda self, path, *args, **kwargs: Path(path).write_bytes(PNG_SIGNATURE))
