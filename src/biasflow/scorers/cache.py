"""A content-addressed score cache, so reruns score only new continuations.

docs/methods.md §5.2 (caching): adding paraphrases or prompts must recompute only the
new rows. Scores are keyed by ``stable_hash(scorer.cache_identity(), text)`` and stored as
parquet shards under ``cache_dir/<scorer>/``. A call adds one shard per :data:`CHUNK_SIZE`
texts it scored, each written atomically (temporary file, then ``os.replace``), so a killed
job keeps the chunks it finished, leaves no partial entry, and concurrent jobs never write
into the same file. Reading
takes the union of all shards; a shard that fails its checksum is reported and its texts
are scored again (:class:`biasflow.cache.ShardCache`, docs/methods.md §5.4).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from biasflow.cache import ShardCache
from biasflow.hashing import stable_hash
from biasflow.scorers.base import ProgressCallback, Scorer, normalise_text

log = logging.getLogger("biasflow")
# Texts scored between cache saves: a few minutes of Detoxify on a CPU, a second on a GPU.
CHUNK_SIZE = 4096


def score_texts(
    scorer: Scorer, texts: Sequence[str], cache_dir: Path | None, progress: ProgressCallback | None = None
) -> np.ndarray:
    """Scores of ``texts`` in input order, computing only texts absent from the cache.

    Duplicate texts are scored once. ``cache_dir=None`` disables the cache. ``progress``
    is called with the number of cached texts, then per computed batch, then with the
    number of repeated texts, so a bar with ``total=len(texts)`` ends full.
    """
    clean = [normalise_text(t) for t in texts]
    identity = scorer.cache_identity()
    keys = [stable_hash(identity, t) for t in clean]
    shard_dir = Path(cache_dir) / scorer.name if cache_dir is not None else None
    known = read_cache(shard_dir) if shard_dir is not None else {}

    todo = {k: t for k, t in zip(keys, clean, strict=True) if k not in known}
    n_hits = sum(k in known for k in keys)
    log.info(
        "scorer %s: %d of %d texts from cache, %d unique texts to score", scorer.name, n_hits, len(keys), len(todo)
    )
    if progress is not None and n_hits:
        progress(n_hits)

    if todo:
        items = list(todo.items())
        for start in range(0, len(items), CHUNK_SIZE):
            chunk = items[start : start + CHUNK_SIZE]
            new_scores = scorer.score([text for _, text in chunk], progress=progress)
            new = dict(zip([key for key, _ in chunk], new_scores.tolist(), strict=True))
            if shard_dir is not None:
                _write_shard(shard_dir, new)
            known.update(new)
        n_repeats = len(keys) - n_hits - len(todo)
        if progress is not None and n_repeats:
            progress(n_repeats)
    return np.array([known[k] for k in keys], dtype=np.float64)


def read_cache(shard_dir: Path) -> dict[str, float]:
    """Union of the cache shards in ``shard_dir`` as {key: score}; empty if there are none."""
    table = ShardCache(shard_dir).load()
    return dict(zip(table["key"].tolist(), table["score"].astype(float).tolist(), strict=True)) if len(table) else {}


def _write_shard(shard_dir: Path, new: dict[str, float]) -> None:
    shard = pd.DataFrame({"key": list(new.keys()), "score": np.asarray(list(new.values()), dtype=np.float64)})
    ShardCache(shard_dir).add(shard)
