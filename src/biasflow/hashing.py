"""Stable content hashes.

Prompt ids, cache keys, the valid/test split and every random stream of the statistics
derive from these, so they must not depend on Python's per-process ``hash`` salt, dict
order or float formatting quirks.
"""

import hashlib
import json

import numpy as np

# What json.dumps(parts, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)
# builds on every call, built once: prompt tables hash every prompt twice.
_CANONICAL = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)


def stable_hash(*parts, length: int = 16) -> str:
    """Hex digest of ``parts`` serialised as canonical JSON (sorted keys, no spaces)."""
    payload = _CANONICAL.encode(parts)
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()[:length]


def unit_interval(*parts) -> float:
    """Map ``parts`` to a float in [0, 1), uniformly and stably (used for hash splits)."""
    return int(stable_hash(*parts, length=15), 16) / 16**15


def named_rng(seed: int, *names) -> np.random.Generator:
    """The random stream of ``seed`` and ``names``: what is drawn and for what (a model, a metric, a prompt id).

    Every bootstrap, permutation and null draw of the statistics comes from one of these, keyed
    by names, never by a position in a list: adding a model or a prompt, or reading the rows
    in another order, moves no other's draws (docs/methods.md §1.11, §2.5, §3.3).
    """
    return np.random.default_rng([int(seed), int(stable_hash(*names), 16) & (2**63 - 1)])
