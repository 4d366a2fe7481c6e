"""The config's ``compare`` pairs, each a baseline and a candidate model, and their check (docs/methods.md §7).

The config check (:func:`biasflow.config.check_config`) refuses a bad pair before any job
runs, and the workflow's verdicts (:mod:`biasflow.verdict_tables`) judge each pair; both read
the pairs from here. So the config check imports nothing of the verdicts' step, which itself
reads a config (:func:`biasflow.config.settings_config`): the two import in one direction.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from biasflow.errors import BiasflowError, did_you_mean
from biasflow.methods import method, methods
from biasflow.schema import default

# Where each pair's verdicts are written, a folder per pair.
FOLDER = "results/compare/"
# Between the two names of a pair's folder.
VS = "_vs_"


@dataclass(frozen=True)
class ComparedPair:
    """One entry of the config's ``compare`` list: the baseline, the candidate and the margins given per method."""

    baseline: str
    candidate: str
    margins: Mapping[str, float | None]

    @property
    def name(self) -> str:
        """The pair's folder under ``results/compare/``: ``{baseline}_vs_{candidate}``."""
        return f"{self.baseline}{VS}{self.candidate}"

    def margin(self, config: Mapping, method_name: str) -> tuple[float, str]:
        """The margin of ``method_name`` and where it came from: the pair's own, else :func:`margin`'s."""
        return margin(config, method_name, self.margins.get(method_name), f"compare[].margin.{method_name}")

    def methods(self, config: dict) -> list[str]:
        """The methods run (``methods``, in its order) that evaluate both models: those that compare the pair."""
        return [
            m.name for m in methods(config["methods"]) if {self.baseline, self.candidate} <= set(m.evaluated(config))
        ]


def margin(
    config: Mapping | None, method_name: str, given: float | None = None, given_as: str = "--margin"
) -> tuple[float, str]:
    """The margin a comparison of ``method_name`` is judged at, and where it came from: ``given`` (``--margin``,
    ``biasflow.compare``'s ``margin=``, a pair's ``compare[].margin.<method>``: ``given_as``), else the method's
    smallest effect worth detecting, ``power.min_effect.<method>`` of ``config`` (the schema's where ``config`` is
    None). The one place this fallback lives: the command, the library and the workflow's pairs all ask here, and a
    method's comparison receives the number (docs/methods.md §7)."""
    if given is not None:
        return float(given), given_as
    key = f"power.min_effect.{method_name}"
    return float(default(key) if config is None else config["power"]["min_effect"][method_name]), key


def compared_pairs(config: Mapping) -> list[ComparedPair]:
    """The pairs of a validated config's ``compare`` section, in its order."""
    return [
        ComparedPair(entry["baseline"], entry["candidate"], dict(entry.get("margin") or {}))
        for entry in config.get("compare") or []
    ]


def check_pairs(config: dict) -> list[str]:
    """Refuse a ``compare`` entry naming a model the config does not have, the same model twice, a pair given twice,
    or a pair no method run evaluates both models of; return a warning per method run that leaves a pair out.

    Called by :func:`biasflow.config.check_config`, so ``snakemake`` and ``biasflow check-config``
    stop before any job. A margin ≤ 0 is the schema's to refuse (``exclusiveMinimum``).
    """
    models = list(config["models"])
    warnings: list[str] = []
    seen: dict[str, int] = {}
    for index, pair in enumerate(compared_pairs(config)):
        where = f"compare[{index}]"
        for role, name in (("baseline", pair.baseline), ("candidate", pair.candidate)):
            if name not in models:
                raise BiasflowError(
                    f"{where}.{role} {name!r} is not a model of this config ({', '.join(models)})"
                    f"{did_you_mean(name, models)}; name one of models."
                )
        if pair.baseline == pair.candidate:
            raise BiasflowError(
                f"{where}: baseline and candidate are both {pair.baseline!r}; name the model you "
                "changed as the candidate and the one it should be no worse than as the baseline."
            )
        if pair.name in seen:
            raise BiasflowError(
                f"{where} compares {pair.candidate} with {pair.baseline} again (as "
                f"compare[{seen[pair.name]}] does), and both would write {FOLDER}{pair.name}/; give "
                "each pair once."
            )
        seen[pair.name] = index
        comparing = pair.methods(config)
        if not comparing:
            raise BiasflowError(
                f"{where}: no method run evaluates both {pair.baseline} and {pair.candidate} (each "
                "method's own models list decides); add both to that list, such as fpr.models, or "
                "pair two models a method evaluates."
            )
        for left in methods(config["methods"]):
            if left.name not in comparing:
                warnings.append(
                    f"{where}: {left.title} does not evaluate both {pair.baseline} and {pair.candidate} "
                    f"({left.name}.models), so the pair is compared by {_listed(comparing)} only; add "
                    f"the missing one to {left.name}.models to compare it there too."
                )
    return warnings


def _listed(names: list[str]) -> str:
    """The methods' titles as a reader says them: ``CAIRO``, ``CAIRO and FairPair``, ``CAIRO, FairPair and ...``."""
    titles = [method(name).title for name in names]
    return ", ".join(titles[:-1]) + f" and {titles[-1]}" if len(titles) > 1 else titles[0]
