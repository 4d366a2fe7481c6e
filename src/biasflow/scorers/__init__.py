"""Scorers: one float per continuation (toxicity, profanity, sentiment).

The scorer's name is part of every cache key, path and column, so results of two
scorers never mix (docs/methods.md §5.2). Use :func:`get_scorer` to build one by name and
:func:`score_texts` to score through the on-disk cache.
"""

from __future__ import annotations

from biasflow.errors import BiasflowError
from biasflow.registry import Registry
from biasflow.scorers.base import Scorer
from biasflow.scorers.cache import score_texts
from biasflow.scorers.detoxify_unbiased import DetoxifyUnbiasedScorer
from biasflow.scorers.honest import HonestScorer
from biasflow.scorers.profanity import ProfanityScorer
from biasflow.scorers.vader import VaderScorer

_REGISTRY: Registry[type[Scorer]] = Registry(
    "scorer", builtin=[(cls.name, cls) for cls in (DetoxifyUnbiasedScorer, ProfanityScorer, VaderScorer, HonestScorer)]
)
SCORERS = _REGISTRY.names()


def scorer_class(name: str, where: str = "") -> type[Scorer]:
    """The scorer class registered as ``name``; ``where`` starts the message for an unknown one."""
    return _REGISTRY.get(name, where)


def get_scorer(name: str, **options) -> Scorer:
    """Build the scorer called ``name``; ``options`` go to its constructor (e.g. batch_size).

    The scorer's own options (its ``options``, keys of a method's scoring section such as CAIRO's
    ``cairo.scoring``) come from its caller, which reads them with their defaults from that section
    (:class:`biasflow.scorers.table.ScoringSettings`); one it needs and lacks is a ``BiasflowError``.
    """
    cls = scorer_class(name)
    try:
        return cls(**options)
    except TypeError as exc:
        raise BiasflowError(
            f"bad options for scorer {name!r}: {exc}. Check the scorer's settings in the config."
        ) from exc


__all__ = ["SCORERS", "Scorer", "get_scorer", "score_texts", "scorer_class"]
