"""Which pairs of models the paired comparisons compare: every pair, each model against a baseline, or none (§7).

Every pair of n models is n(n − 1)/2 comparisons: 45 for ten models, 19,900 for the 200 of a
leaderboard, each with its swap test, and a table and figure no one reads whole. The usual
question is each candidate against one baseline (n − 1 pairs), and some runs want no pairs
at all. :class:`PairChoice` holds that choice, read from the config's ``comparisons`` section
(the schema holds its default, ``all``) or from a command's ``--baseline`` / ``--pairs`` flags
(:func:`add_pair_flags`); every method's comparison table, its figure and its power
planner's pair rows take their pairs from :func:`compared` (docs/methods.md §7).

A pair against a baseline reads "candidate − baseline": ``model_a`` is the candidate and
``model_b`` the baseline, as ``biasflow compare`` turns its rows. Holm's and
Benjamini-Hochberg's families run over the pairs a table holds, so with a baseline a family
is the baseline's pairs.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from biasflow.errors import BiasflowError
from biasflow.schema import choices, default
from biasflow.settings import StepSettings

# The values of ``comparisons.pairs`` (its schema enum) this module acts on.
ALL = "all"
BASELINE = "baseline"
NONE = "none"
# A system named ``<model>/<variant>`` (the FPR gaps' ``<model>/<classifier>``) is compared with the baseline
# model's system of the same variant.
VARIANT = "/"
# The one line a step logs when it compares no pairs.
SKIPPED = "no pairs of models compared (comparisons.pairs, or --pairs, none): no comparison table or figure written"
# How many names an error lists before it counts the rest.
SHOWN = 8


@dataclass(frozen=True)
class PairChoice(StepSettings):
    """``comparisons.pairs`` (``all``, ``baseline`` or ``none``) and ``comparisons.baseline`` (a model's name or None).

    ``baseline`` is given exactly when ``pairs`` is ``baseline``; anything else is refused
    with one message naming both keys.
    """

    section = "comparisons"

    pairs: str
    baseline: str | None

    def __post_init__(self):
        if self.pairs not in choices("comparisons.pairs"):
            raise BiasflowError(
                f"comparisons.pairs is {self.pairs!r}; it takes {', '.join(choices('comparisons.pairs'))}."
            )
        if self.pairs == BASELINE and not self.baseline:
            raise BiasflowError(
                "comparisons.pairs is baseline but no baseline model is named; set "
                "comparisons.baseline to one of the models (--baseline MODEL on a command)."
            )
        if self.pairs != BASELINE and self.baseline is not None:
            raise BiasflowError(
                f"comparisons.baseline is {self.baseline!r} but comparisons.pairs is {self.pairs}; set "
                "pairs: baseline to compare every model against it, or leave baseline out."
            )

    def _baseline(self) -> str:
        """The baseline's name, where ``pairs`` is ``baseline`` (``__post_init__`` holds that it is then named)."""
        assert self.baseline is not None, "pairs is baseline"
        return self.baseline

    @classmethod
    def from_args(cls, args) -> PairChoice:
        """The choice of a command's :func:`add_pair_flags` flags: ``--baseline`` or ``--pairs``, whichever is given,
        else the ``comparisons`` section of the command's config (``args.settings``, :mod:`biasflow.flags`)."""
        if args.baseline is not None:
            return cls(pairs=BASELINE, baseline=args.baseline)
        if args.pairs is not None:
            return cls(pairs=args.pairs, baseline=None)
        return cls.from_config(args.settings)

    @classmethod
    def every(cls) -> PairChoice:
        """Every pair: what a library call that names no choice compares."""
        return cls(pairs=ALL, baseline=None)

    @property
    def against_baseline(self) -> bool:
        """Whether each model is compared with the baseline only (the figures then draw each against it)."""
        return self.pairs == BASELINE

    @property
    def compares(self) -> bool:
        """Whether any pair is compared (``pairs`` is not ``none``)."""
        return self.pairs != NONE

    def describe(self) -> str:
        """The choice in words, for a log line."""
        return {
            ALL: "every pair of models",
            BASELINE: f"every model against the baseline {self.baseline}",
            NONE: "no pairs",
        }[self.pairs]

    def of(self, names: Iterable[str]) -> list[tuple[str, str]]:
        """The (model_a, model_b) pairs to compare among ``names``, in a stable order.

        ``all``: every pair of the sorted names, the earlier first. ``baseline``: each other
        name against the baseline, ``(candidate, baseline)``; where no name is the baseline
        but some are ``<baseline>/<variant>`` (a model's systems, one per classifier), each
        ``<model>/<variant>`` against ``<baseline>/<variant>``. ``none``: no pairs.
        """
        names = sorted(set(names))
        if self.pairs == NONE:
            return []
        if self.pairs == ALL:
            return list(itertools.combinations(names, 2))
        baseline = self._baseline()
        if baseline in names:
            return [(name, baseline) for name in names if name != baseline]
        bases = {name[len(baseline) + 1 :]: name for name in names if name.startswith(baseline + VARIANT)}
        return [
            (name, bases[own])
            for name in names
            if (own := variant(name)) is not None and own in bases and name != bases[own]
        ]

    def check(self, names: Iterable[str], what: str) -> None:
        """Raise :class:`BiasflowError` where the baseline names none of ``names`` (the models of ``what``)."""
        if self.pairs != BASELINE:
            return
        names = sorted(set(names))
        baseline = self._baseline()
        if baseline in names or any(name.startswith(baseline + VARIANT) for name in names):
            return
        shown = ", ".join(names[:SHOWN]) + (f" and {len(names) - SHOWN} more" if len(names) > SHOWN else "")
        raise BiasflowError(
            f"the baseline {self.baseline!r} is not a model of {what} (its models: {shown or 'none'}); "
            "name one of them (--baseline MODEL on a command, comparisons.baseline in the config)."
        )


def variant(name: str) -> str | None:
    """What follows the model in a system's name ``<model>/<variant>``; None for a plain model's name."""
    _, sep, rest = name.partition(VARIANT)
    return rest if sep else None


def compared(pairs: PairChoice | Sequence[tuple[str, str]] | None, names: Iterable[str]) -> list[tuple[str, str]]:
    """The pairs to compare among ``names``: a :class:`PairChoice`'s (None: every pair), or the (model_a, model_b)
    pairs given whose two models are both among ``names`` (``biasflow compare``'s one pair)."""
    names = set(names)
    if pairs is None:
        return PairChoice.every().of(names)
    if isinstance(pairs, PairChoice):
        return pairs.of(names)
    return [(a, b) for a, b in pairs if a in names and b in names]


def add_pair_flags(
    parser, none: str = "no comparison table and no comparison figure, the command's other outputs as they are"
) -> None:
    """``--baseline MODEL`` and ``--pairs {all,none}`` (one or the other) on a command comparing models pair by pair.

    Their meaning is the config's ``comparisons`` section's (config/README.md); ``--pairs``
    takes the schema's choices but ``baseline``, which ``--baseline`` gives with its model;
    ``none`` says what ``--pairs none`` leaves out of this command's outputs. Given neither,
    the ``comparisons`` section of the command's ``--config`` decides (:meth:`PairChoice.from_args`).
    """
    group = parser.add_mutually_exclusive_group()
    chosen = group.add_argument(
        "--baseline",
        metavar="MODEL",
        help="pair each model with this one only (model_a the candidate, model_b the baseline) instead of every pair; "
        "Holm and Benjamini-Hochberg then run over the baseline's pairs (config: comparisons.pairs baseline and "
        "comparisons.baseline)",
    )
    every = group.add_argument(
        "--pairs",
        choices=[c for c in choices("comparisons.pairs") if c != BASELINE],
        help=f"all: every pair of models; none: {none} (config: comparisons.pairs; default: "
        f"{default('comparisons.pairs')})",
    )
    chosen.reads = every.reads = "comparisons"  # the config section --config can set them by (biasflow.flags)
