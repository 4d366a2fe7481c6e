"""The public Python API: what a notebook calls, re-exported as ``biasflow.<name>``.

The core's own functions are here (comparing two models, planning a
study); each method adds its own through its declaration's ``api`` (:mod:`biasflow.methods`),
so ``biasflow.fpr_gaps`` is found without the core naming a method. The conventions every
public function keeps (the package docstring, :mod:`biasflow`, states them for users):

- tables in, tables out: a function computes on pandas DataFrames and returns a DataFrame, or,
  where it computes several tables, a frozen dataclass whose fields are those tables, and writes
  none to a file (the ``biasflow`` commands do); the files it reads are those its arguments
  name (a table the workflow wrote, given to :func:`compare` or :func:`plan_power` as its
  path; a setting's file; ``config=``'s YAML);
- its settings are keyword-only parameters whose defaults are the config schema's, filled into
  its signature by :func:`schema_keywords` from the step's settings class (one place names each
  setting's config key), so ``help()`` and an editor show the values and no code restates them;
- ``config=`` (a mapping or YAML file(s) holding any part of a workflow config, as the commands'
  ``--config`` takes it, :mod:`biasflow.flags`) replaces those defaults with the config's, and a
  keyword given beats both;
- a misspelt keyword is refused as Python refuses it, naming the closest parameter.

Each docstring's example runs as a doctest (``tests/core/test_api.py``).
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
import os
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, ParamSpec, TypeAlias, TypeVar, cast

import pandas as pd

from biasflow.compare_pairs import margin as margin_of
from biasflow.errors import BiasflowError, check_keywords
from biasflow.methods import method, methods
from biasflow.power import PowerSettings
from biasflow.settings import StepSettings
from biasflow.verdicts import Verdicts

# The core's public functions; the methods' come from their declarations.
CORE = ("compare", "plan_power")
# A table as compare and plan_power take it: a DataFrame a notebook holds (the documented form), or, as before,
# the path of a file the workflow wrote, read where the commands read theirs.
Table: TypeAlias = pd.DataFrame | str | os.PathLike[str]
# What those two functions accept for their tables, in words.
ACCEPTED = "a pandas DataFrame, a path (str or os.PathLike), or a list of them"
# What `config=` takes: any part of a workflow config, as a mapping or as YAML file(s) (`--config`'s files).
ConfigArg: TypeAlias = Mapping[str, Any] | str | os.PathLike[str] | Sequence[str | os.PathLike[str]] | None
# Where a keyword's config key is found: a step's settings class (its fields' keys), or keyword -> dotted key.
Source: TypeAlias = type[StepSettings] | Mapping[str, str]

P = ParamSpec("P")
R = TypeVar("R")


class _SchemaDefault:
    """The marker of a keyword whose default is the schema's (:func:`schema_keywords` puts the value in its place)."""

    def __repr__(self) -> str:
        return "<the config schema's default>"


# A public function's keyword written `max_sets: int = SCHEMA` defaults to its config key's schema default.
SCHEMA: Any = _SchemaDefault()


def schema_keywords(*sources: Source) -> Callable[[Callable[P, R]], Callable[P, R]]:
    """Give a public function's ``SCHEMA`` keywords the schema's defaults, and ``config=`` its meaning.

    Each keyword-only parameter defaulting to :data:`SCHEMA` is a config key, found in the
    first of ``sources`` that names it (a settings class by its fields and
    :meth:`~biasflow.settings.StepSettings.key`, or a mapping of keyword to dotted key). Its
    default becomes that key's schema default, in the signature itself. A call then takes, for
    each such keyword, the value given, else ``config``'s value of its key (``config`` given),
    else the schema's default; the function receives ``config`` validated and filled
    (:func:`loaded_config`). A misspelt keyword is a ``TypeError`` naming the closest one
    (:func:`biasflow.errors.check_keywords`); a setting given by position is refused, as
    keyword-only parameters are.
    """

    def decorate(function: Callable[P, R]) -> Callable[P, R]:
        name = getattr(function, "__name__", "function")
        parameters = inspect.signature(function).parameters
        keyword_only = [key for key, parameter in parameters.items() if parameter.kind is parameter.KEYWORD_ONLY]
        if "config" not in keyword_only:
            raise TypeError(f"{name}() takes its settings from config=: declare it keyword-only")
        keys = {}
        for keyword, parameter in parameters.items():
            if parameter.default is SCHEMA:
                if parameter.kind is not parameter.KEYWORD_ONLY:
                    raise TypeError(f"{name}(): the setting {keyword} must be keyword-only")
                keys[keyword] = config_key(keyword, sources, name)
        cast(Any, function).__kwdefaults__ = {
            **(cast(Any, function).__kwdefaults__ or {}),
            **{keyword: schema_default(key) for keyword, key in keys.items()},
        }
        signature = inspect.signature(function)
        positional = {key for key, parameter in parameters.items() if parameter.kind is parameter.POSITIONAL_OR_KEYWORD}

        @functools.wraps(function)
        def call(*args: P.args, **kwargs: P.kwargs) -> R:
            check_keywords(name, [key for key in kwargs if key not in positional], keyword_only)
            signature.bind(*args, **kwargs)  # a setting given by position is a TypeError, as Python gives it
            config = loaded_config(cast(ConfigArg, kwargs.get("config")))
            if config is not None:
                kwargs.update(
                    {keyword: config_value(config, key) for keyword, key in keys.items() if keyword not in kwargs}
                )
                kwargs["config"] = config
            return function(*args, **kwargs)

        return call

    return decorate


def config_key(keyword: str, sources: Sequence[Source], function: str) -> str:
    """The dotted config key a public function's keyword sets: the first source naming it gives it."""
    for source in sources:
        if isinstance(source, Mapping):
            if keyword in source:
                return source[keyword]
        elif keyword in {field.name for field in dataclasses.fields(source)}:
            key = source.key(keyword)
            if key is not None:
                return key
    raise TypeError(f"{function}(): no config key for the setting {keyword}; name its settings class")


def schema_default(key: str) -> Any:
    """A config key's schema default, a bundled file's as its installed path (as the step settings take it)."""
    from biasflow.bundled import resolve
    from biasflow.schema import default

    return resolve(default(key))


def config_value(config: Mapping[str, Any], key: str) -> Any:
    """The value of a dotted config key in a loaded config: the one place the API reads a key's path, which each
    keyword's settings class gives (:func:`config_key`)."""
    value: Any = config
    for part in key.split("."):
        value = value[part]
    return value


def loaded_config(config: ConfigArg) -> dict[str, Any] | None:
    """``config=`` as the commands' ``--config`` takes it: a mapping, or YAML file(s), holding any part of a
    workflow config, validated and filled with the schema's defaults (:func:`biasflow.config.settings_config`);
    None stays None (the schema's defaults)."""
    if config is None:
        return None
    from biasflow.config import load_settings, settings_config

    if isinstance(config, Mapping):
        return settings_config(config)
    return load_settings(config if isinstance(config, (str, os.PathLike)) else list(config))


@schema_keywords()
def compare(
    method_name: str,
    tables: Table | Sequence[Table],
    baseline: str,
    candidate: str,
    *,
    margin: float | None = None,
    config: ConfigArg = None,
) -> Verdicts:
    """Did the candidate get worse than the baseline? The paired verdicts of ``biasflow compare`` (docs/methods.md §7).

    The method's settings (its draws and their seed, CAIRO's measure) are the schema's
    defaults, or ``config``'s where ``config`` is given (``biasflow compare --help`` names
    each method's keys).

    Parameters
    ----------
    method_name : str
        ``cairo``, ``fairpair`` or ``fpr`` (any registered method).
    tables : pandas.DataFrame or sequence of them
        The method's tables: CAIRO statistics (:func:`cairo_statistics`), FairPair per-prompt
        scores (:func:`fairpair_scores`, each row's model in a ``model`` column) or one probe
        set's FPR predictions (as :func:`fpr_gaps` reads them). The path of a file as the
        workflow writes it is read as that table (a FairPair file's name is its model).
    baseline, candidate : str
        The two models (FPR: systems, ``<model>/<classifier>``) compared; the difference is the candidate's less
        the baseline's.
    margin : float, optional
        The largest rise of the candidate's bias that does not matter, in the method's unit
        (default: ``power.min_effect.<method>``, the schema's or ``config``'s).
    config : mapping or path, optional
        Any part of a workflow config, as ``biasflow compare --config`` takes it
        (``{"cairo": {"selection": {"seed": 3}}}``), or its YAML file(s).

    Returns
    -------
    biasflow.verdicts.Verdicts
        ``rows``: one row per measure (CAIRO: axis and metric; FairPair: dissimilarity; FPR:
        attribute and class's gap span) with the candidate − baseline ``difference``, its 95%
        and 90% intervals and ``verdict`` against ``margin`` (docs/tables.md, "Verdicts");
        ``overall``: ``not worse``, ``worse`` or ``inconclusive``; ``report(fmt)``: the summary
        as text, markdown or JSON; ``exit_code(fail_on)``: the gate's status.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> import biasflow
    >>> rng = np.random.default_rng(0)
    >>> words = ["the nurse was kind", "the nurse was rude"]
    >>> tables = []
    >>> for model, rude in (("before", 0.8), ("after", 0.5)):  # how often the swapped side turns rude
    ...     sides = pd.DataFrame([(f"p{p}", side, s, rng.choice(words, p=[1 - r, r])) for p in range(12)
    ...                           for side, r in (("perturbed_original", 0.5), ("counterfactual", rude))
    ...                           for s in range(6)], columns=["prompt_id", "side", "sample", "text"])
    ...     tables.append(biasflow.fairpair_scores(sides, null_draws=200).assign(model=model))
    >>> result = biasflow.compare("fairpair", pd.concat(tables), baseline="before", candidate="after", margin=0.1)
    >>> result.rows[["dissimilarity", "difference", "lo90", "hi90", "verdict"]].round(3)
      dissimilarity  difference   lo90   hi90    verdict
    0       jaccard      -0.037 -0.168  0.094  not worse
    1     sentiment      -0.037 -0.168  0.094  not worse
    >>> result.overall
    'not worse'
    >>> result.lines()[1]
    'jaccard excess R: candidate after: not worse than before (upper bound +0.0937 < margin 0.1)'
    """
    command = method(method_name).part("compare").command
    loaded = cast(Mapping[str, Any] | None, config)  # schema_keywords loaded it
    value, source = margin_of(loaded, method_name, margin)
    verdicts: Verdicts = command(as_tables(tables, "compare", "tables"), baseline, candidate, loaded, value, source)
    return verdicts


@schema_keywords(PowerSettings)
def plan_power(
    method_name: str,
    pilot: Table | Sequence[Table] | Mapping[str, Table | Sequence[Table]],
    *,
    alpha: float = SCHEMA,
    power: float = SCHEMA,
    min_effect: float | None = None,
    config: ConfigArg = None,
) -> pd.DataFrame:
    """How large a difference a pilot's sizes can show, and the sizes a difference needs (docs/methods.md §6).

    ``alpha`` and ``power`` default to the schema's ``power`` keys, or to ``config``'s where
    ``config`` is given; the method's own settings (CAIRO's ``cairo.power.min_r``, the draws of the
    release gate's rows, the ``comparisons`` pairs) are the schema's, or ``config``'s. A
    keyword given beats both.

    Parameters
    ----------
    method_name : str
        ``cairo``, ``fairpair`` or ``fpr`` (any registered method).
    pilot : mapping of str to tables, or tables
        Each source's name and tables, as the workflow's power step reads them: CAIRO
        statistics per axis, FairPair per-prompt scores per model, FPR predictions per probe
        set. Tables given without names are named as ``biasflow power`` names its files: a
        DataFrame ``pilot`` (``pilot 1``, ``pilot 2``, ... where there are several), a file's
        path by its name without the suffix; a FairPair DataFrame with a ``model`` column is
        split by it.
    alpha : float
        The significance level.
    power : float
        The power wanted.
    min_effect : float, optional
        The difference worth detecting, in the method's unit, and the margin of the release
        gate's rows (§6.8) (default: ``power.min_effect.<method>``, the schema's or ``config``'s).
    config : mapping or path, optional
        Any part of a workflow config, as ``biasflow power --config`` takes it
        (``{"power": {"alpha": 0.01}}``), or its YAML file(s).

    Returns
    -------
    pandas.DataFrame
        The power table (docs/tables.md, "Power"): per subgroup or pair, ``mdd`` (the smallest
        difference detectable), ``n_needed`` for ``target`` and whether it is ``detectable``.

    Examples
    --------
    >>> import biasflow
    >>> sentences = biasflow.probe_sentences("race")
    >>> predictions = sentences.assign(model="mine", run_id=0, y_pred=sentences["y_true"])
    >>> plan = biasflow.plan_power("fpr", {"race": predictions}, min_effect=0.1)
    >>> plan[["subgroup", "measure", "n", "mdd", "detectable"]].head(2).round(3)
      subgroup       measure     n    mdd  detectable
    0    Asian  negative FPR  20.0  0.118       False
    1    Black  negative FPR  40.0  0.080        True
    """
    from dataclasses import replace

    from biasflow.power import planner

    module = planner(method_name)
    loaded = cast(Mapping[str, Any] | None, config)  # schema_keywords loaded it
    base = module.Settings.from_config(loaded) if loaded is not None else module.Settings.defaults()
    given = {"alpha": alpha, "power": power, **({} if min_effect is None else {"min_effect": min_effect})}
    return cast(pd.DataFrame, module.plan(pilot_sources(pilot), replace(base, **given)))


def as_tables(value: object, function: str, parameter: str) -> list[Table]:
    """``value`` (one table or a sequence of them) as a list; a ``TypeError`` says what is accepted otherwise.

    A path given as a string is one table: iterating it would walk its characters.
    """
    single = (pd.DataFrame, str, os.PathLike)
    if isinstance(value, single):
        return [value]
    got = type(value).__name__
    if isinstance(value, Sequence) and not isinstance(value, bytes):
        wrong = next((item for item in value if not isinstance(item, single)), None)
        if wrong is None:
            if not value:
                raise BiasflowError(f"{function}(): {parameter} is empty; give {ACCEPTED}.")
            return list(value)
        got = f"a {got} holding a {type(wrong).__name__}"
    raise TypeError(f"{function}() {parameter}: expected {ACCEPTED}; got {got}.")


def pilot_sources(pilot: object) -> dict[str, list[Table]]:
    """The pilot's tables by source name (:func:`plan_power`): a mapping as given, else each table named as
    ``biasflow power`` names its files."""
    if isinstance(pilot, Mapping):
        return {str(name): as_tables(value, "plan_power", f"pilot[{name!r}]") for name, value in pilot.items()}
    given = as_tables(pilot, "plan_power", "pilot")
    frames = sum(isinstance(table, pd.DataFrame) for table in given)
    names, count = [], 0
    for table in given:
        if isinstance(table, pd.DataFrame):
            count += 1
            names.append("pilot" if frames == 1 else f"pilot {count}")
        else:
            names.append(Path(table).stem)
    repeated = sorted({name for name in names if names.count(name) > 1})
    if repeated:
        raise BiasflowError(
            f"plan_power(): two tables of the pilot are both named {repeated[0]!r} (a file by its "
            "name); give a mapping of source name to tables instead."
        )
    return {name: [table] for name, table in zip(names, given, strict=True)}


def public_names() -> list[str]:
    """``biasflow.__all__``, sorted: the core's public functions (:data:`CORE`) and those every registered method's
    declaration names in its ``api``, a method installed from another package included."""
    return sorted([*CORE, *(reference.rpartition(":")[2] for declared in methods() for reference in declared.api)])


def public(name: str) -> Any:
    """``biasflow.<name>``: the core's function called ``name``, or a method's as its declaration names it."""
    if name in CORE:
        return globals()[name]
    for declared in methods():
        for reference in declared.api:
            if reference.rpartition(":")[2] == name:
                return declared.load(reference)
    raise AttributeError(f"module 'biasflow' has no attribute {name!r}")
