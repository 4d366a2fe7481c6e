"""Scorers: one float per continuation (toxicity, profanity, sentiment).

The scorer's name is part of every cache key, path and column, so results of two
scorers never mix (docs/methods.md §5.2). Use :func:`get_scorer` to build one by name and
:func:`score_texts` to score through the on-disk cache.
"""

from __future__ import annotations

from biasflow.errors import BiasflowError
from biasflow.scorers.base import Scorer
from biasflow.scorers.cache import score_texts
from biasflow.scorers.detoxify_unbiased import DetoxifyUnbiasedScorer
from biasflow.scorers.honest import HonestScorer
from biasflow.scorers.profanity import ProfanityScorer
from biasflow.scorers.vader import VaderScorer

_REGISTRY = {cls.name: cls for cls in (DetoxifyUnbiasedScorer, ProfanityScorer, VaderScorer, HonestScorer)}
SCORERS = tuple(_REGISTRY)


def scorer_class(name: str) -> type[Scorer]:
    """The scorer class registered as ``name``."""
    if name not in _REGISTRY:
        raise BiasflowError(f"unknown scorer {name!r}; choose one of: {', '.join(SCORERS)}.")
    return _REGISTRY[name]


def get_scorer(name: str, **options) -> Scorer:
    """Build the scorer called ``name``; ``options`` go to its constructor (e.g. batch_size)."""
    cls = scorer_class(name)
    try:
        return cls(**options)
    except TypeError as exc:
        raise BiasflowError(
            f"bad options for scorer {name!r}: {exc}. Check the scorer's settings in the config."
        ) from exc


def scorer_from_settings(scoring: dict) -> Scorer:
    """The scorer a config's ``scoring`` section names, with the options it takes from there."""
    name = scoring["scorer"]
    options = {key: scoring[key] for key in scorer_class(name).options if key in scoring}
    return get_scorer(name, batch_size=scoring.get("batch_size"), **options)


__all__ = ["SCORERS", "Scorer", "get_scorer", "score_texts", "scorer_class", "scorer_from_settings"]
