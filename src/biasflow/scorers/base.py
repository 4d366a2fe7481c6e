"""The scorer interface: one float per continuation text.

CAIRO's bias (docs/methods.md §1.4) is built from one score per sampled continuation
(toxicity probability by default). Every scorer takes texts in batches and returns a
float array in input order; the base class turns missing texts into "" so a scorer
never sees ``None``/NaN from a table with empty continuations.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

ProgressCallback = Callable[[int], None]


def normalise_text(text) -> str:
    """Return ``text`` as a string; ``None``, NaN and other non-strings become ""."""
    return text if isinstance(text, str) else ""


class Scorer:
    """Base class: subclasses set ``name`` and implement :meth:`_score_batch`.

    Empty or missing texts get the scorer's own score of "" (for example VADER gives
    0.0, the profanity model a small probability): a model that generated nothing is
    scored as having generated an empty string, not dropped, so subgroup counts stay
    equal to the number of sampled continuations.
    """

    name: str = ""
    batch_size: int = 256
    # Keys of a scoring section (CAIRO's ``cairo.scoring``) this scorer takes, besides ``batch_size``,
    # and those of them that name files its scores depend on (workflow inputs of the score step).
    options: tuple[str, ...] = ()
    files: tuple[str, ...] = ()

    def cache_identity(self) -> str | dict:
        """What a score depends on besides the text; part of every score cache key.

        The name alone for scorers whose model ships with their package; a scorer whose
        result depends on a file or setting (a lexicon, a checkpoint) adds it here, so
        a different one never reuses cached scores.
        """
        return self.name

    def score(self, texts: Sequence[str], progress: ProgressCallback | None = None) -> np.ndarray:
        """Score ``texts`` in batches; ``progress`` gets the number finished per batch."""
        clean = [normalise_text(t) for t in texts]
        out = np.empty(len(clean), dtype=np.float64)
        for start in range(0, len(clean), self.batch_size):
            batch = clean[start : start + self.batch_size]
            out[start : start + len(batch)] = self._score_batch(batch)
            if progress is not None:
                progress(len(batch))
        return out

    def _score_batch(self, texts: list[str]) -> np.ndarray:
        raise NotImplementedError
