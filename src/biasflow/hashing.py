"""Stable content hashes.

Prompt ids, cache keys and the valid/test split all derive from these, so they must not
depend on Python's per-process ``hash`` salt, dict order or float formatting quirks.
"""

import hashlib
import json

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
