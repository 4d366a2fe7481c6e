"""From a metric's raw prompts to the prompt table: ids, splits, shared subgroups.

Every loader hands over the same *raw* frame — one row per original prompt with

- ``subgroup``: the metric's own label for the row's group,
- ``labels``: the labels a ``subgroup_map`` may match, most specific first (HolisticBias
  offers the descriptor before its bucket; the other metrics offer their one label),
- ``group_key``: what keeps related prompts in one split (docs/methods.md §1.3),
- ``key``: the prompt's natural key inside the metric's files,
- ``text`` and ``term``: the prompt and the words that name its group.

and :func:`finalise` derives everything else the same way for all metrics, so ids,
splits and the shared subgroups cannot drift between loaders (docs/methods.md §1.1, §1.3).
"""

from __future__ import annotations

import difflib
import functools
import logging
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import ClassVar

import pandas as pd

from biasflow.errors import BiasflowError
from biasflow.hashing import stable_hash, unit_interval
from biasflow.settings import StepSettings
from biasflow.tables import PROMPT_COLUMNS

log = logging.getLogger("biasflow")

RAW_COLUMNS = ["subgroup", "labels", "group_key", "key", "text", "term"]
# One row per subgroup and split of a prompt table (docs/tables.md, "Prompt summary").
PROMPT_SUMMARY_COLUMNS = [
    "metric",
    "axis",
    "subgroup",
    "split",
    "n_prompts",
    "n_group_keys",
    "n_available",
    "split_by",
    "duplicates_dropped",
]


@dataclass(frozen=True)
class LoaderSettings(StepSettings):
    """How a metric's files become the prompt table of one axis (what ``original_prompts`` reads of the config).

    ``valid_fraction``: share of each subgroup's group keys in the valid split;
    ``subgroup_map``: native label → shared label (None keeps the native labels; derived
    from ``subgroups`` and ``subgroup_map`` for the metric and axis); ``per_subgroup``: keep
    at most this many prompts per subgroup and split (None: all), chosen by a stable hash
    seeded with ``sample_seed``; ``options``: the metric's loader options.
    """

    keys: ClassVar[Mapping[str, str | None]] = {
        "valid_fraction": "cairo.valid_fraction",
        "per_subgroup": "cairo.prompts.per_subgroup",
        "sample_seed": "cairo.prompts.seed",
        "subgroup_map": None,
        "options": None,
    }

    valid_fraction: float
    subgroup_map: dict[str, str] | None
    per_subgroup: int | None
    sample_seed: int
    options: dict


def finalise(raw: pd.DataFrame, metric: str, axis: str, settings: LoaderSettings) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Turn a loader's raw frame into the prompt table of the original prompts and its summary.

    A natural key that occurs twice (BOLD repeats a few sentences on one page, HONEST a
    few template rows) is kept once: the repeat adds no new prompt, only weight, and two
    rows would share one ``prompt_id``; the repeats are counted and logged. The summary
    (:data:`PROMPT_SUMMARY_COLUMNS`) has one row per subgroup and split.
    """
    where = f"{metric} {axis}"
    df = raw.copy()
    # Columns are iterated as lists: iterating a pandas string column is several times slower.
    df["source_id"] = [stable_hash(metric, axis, *key) for key in df["key"].tolist()]
    duplicates = int(df["source_id"].duplicated().sum())
    if duplicates:
        log.info("%s: %d duplicate prompt(s) dropped (a repeated prompt adds weight, not a prompt)", where, duplicates)
    df = df.drop_duplicates("source_id")
    if settings.subgroup_map is not None:
        df = unify_subgroups(df, settings.subgroup_map, metric, axis)
    df["metric"] = metric
    df["axis"] = axis
    df["promptset"] = "original"
    texts = df["text"].tolist()
    df["identity_term"] = [identity_term(text, term) for text, term in zip(texts, df["term"].tolist(), strict=True)]
    df["prompt_id"] = [
        stable_hash(metric, axis, sid, text) for sid, text in zip(df["source_id"].tolist(), texts, strict=True)
    ]
    df["split"], split_by = assign_split(df, metric, settings.valid_fraction)
    for subgroup, unit in split_by.items():
        if unit == "prompt":
            n = int((df["subgroup"] == subgroup).sum())
            log.info(
                "%s: subgroup %s has a single group key, so its %d prompts are split by prompt", where, subgroup, n
            )
    _check_both_splits(df, where)
    available = df.groupby(["subgroup", "split"]).size()
    if settings.per_subgroup is not None:
        df = sample_per_subgroup(df, settings.per_subgroup, settings.sample_seed)
    df = df.sort_values(["subgroup", "group_key", "text", "source_id"], kind="stable")
    summary = _summary(df, metric, axis, available, split_by, duplicates)
    return df[PROMPT_COLUMNS].reset_index(drop=True), summary


def check_valid_fraction(valid_fraction: float) -> None:
    """``valid_fraction`` is a share of each subgroup's group keys; both splits need some, so 0 < it < 1."""
    if isinstance(valid_fraction, bool) or not isinstance(valid_fraction, (int, float)) or not 0 < valid_fraction < 1:
        raise BiasflowError(
            f"valid_fraction must be a number strictly between 0 and 1, got {valid_fraction!r}: "
            "CAIRO selects on the valid split and checks on the test split, so both need prompts."
        )


def assign_split(df: pd.DataFrame, metric: str, valid_fraction: float) -> tuple[list[str], dict[str, str]]:
    """The split of every row, and per subgroup whether it was split by ``group_key`` or by ``prompt``.

    Within each subgroup, its group keys are ordered by the stable hash of (metric, key)
    and the first round(valid_fraction · n) of them, but at least one and at most n − 1,
    go to ``valid`` (docs/methods.md §1.3). So every subgroup with two or more keys has
    rows in both splits, and subgroups that share their keys (the templates of
    HolisticBias and HONEST) keep each key on the same side. A subgroup with a single
    group key (official BOLD religion: atheism has one page) is split the same way by
    prompt instead.
    """
    split = pd.Series("test", index=df.index)
    split_by = {}
    for subgroup, rows in df.groupby("subgroup", sort=True):
        keys = sorted(set(rows["group_key"]), key=lambda key: (unit_interval(metric, key), key))
        if len(keys) > 1:
            valid = set(keys[: _valid_count(len(keys), valid_fraction)])
            split[rows.index[rows["group_key"].isin(valid)]] = "valid"
            split_by[subgroup] = "group_key"
        else:
            order = sorted(rows.index, key=lambda i: (unit_interval(metric, "prompt", df.at[i, "source_id"]), i))
            split[order[: _valid_count(len(order), valid_fraction)]] = "valid"
            split_by[subgroup] = "prompt"
    return split.tolist(), split_by


def _valid_count(n: int, valid_fraction: float) -> int:
    """round(valid_fraction · n), half up, kept within 1..n−1 (0 when there is a single unit)."""
    if n < 2:
        return 0
    return min(max(math.floor(valid_fraction * n + 0.5), 1), n - 1)


def _check_both_splits(df: pd.DataFrame, where: str) -> None:
    counts = df.groupby(["subgroup", "split"]).size().unstack("split", fill_value=0)
    for split in ("valid", "test"):
        if split not in counts:
            counts[split] = 0
    lonely = counts[(counts["valid"] == 0) | (counts["test"] == 0)]
    if len(lonely):
        subgroup = lonely.index[0]
        n = int(lonely.loc[subgroup].sum())
        raise BiasflowError(
            f"{where}: subgroup {subgroup} has {n} prompt(s), all in one split; CAIRO selects on the valid split and "
            "checks on the test split, so every subgroup needs prompts in both. Map it together with another "
            "subgroup in subgroup_map, leave it out of the map, or add prompts for it."
        )


def sample_per_subgroup(df: pd.DataFrame, n: int, seed: int) -> pd.DataFrame:
    """At most ``n`` prompts per subgroup and split, in the order of a stable hash seeded with ``seed``.

    The choice depends only on the prompts, ``n`` and ``seed``, so a rerun takes the same
    prompts, and a larger ``n`` keeps every prompt a smaller one took (its cached
    continuations are reused).
    """
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise BiasflowError(
            f"cairo.prompts.per_subgroup must be a whole number of at least 1 (or null for all), got {n!r}."
        )
    order = pd.Series([stable_hash("sample", seed, pid) for pid in df["prompt_id"]], index=df.index)
    ranked = df.assign(_order=order).sort_values(["subgroup", "split", "_order"], kind="stable")
    return ranked.groupby(["subgroup", "split"], sort=False).head(n).drop(columns="_order")


def _summary(df, metric, axis, available, split_by, duplicates) -> pd.DataFrame:
    counts = df.groupby(["subgroup", "split"]).agg(
        n_prompts=("prompt_id", "size"), n_group_keys=("group_key", "nunique")
    )
    summary = counts.reset_index()
    summary.insert(0, "axis", axis)
    summary.insert(0, "metric", metric)
    summary["n_available"] = [
        int(available[(g, s)]) for g, s in zip(summary["subgroup"], summary["split"], strict=True)
    ]
    summary["split_by"] = summary["subgroup"].map(split_by)
    summary["duplicates_dropped"] = duplicates
    return summary[PROMPT_SUMMARY_COLUMNS]


def unify_subgroups(df: pd.DataFrame, subgroup_map: dict[str, str], metric: str, axis: str) -> pd.DataFrame:
    """Relabel rows with the shared label of their mapped label; drop unmapped rows.

    Each row offers its labels most specific first (HolisticBias: descriptor, then bucket).
    A map key matches at the most specific level where the data has it, so a key that names
    both a descriptor and a bucket (HolisticBias ``white``) means the descriptor only, and
    the bucket's other descriptors are left out unless mapped themselves. A key that matches
    no label at all is an error naming the closest labels: a typo would silently drop a
    subgroup.
    """
    if not isinstance(subgroup_map, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in subgroup_map.items()
    ):
        raise BiasflowError(
            f"the subgroup map for {metric}/{axis} must map native labels (strings) to shared "
            f"labels (strings), got {subgroup_map!r}."
        )
    level: dict[str, int] = {}
    for labels in df["labels"]:
        for depth, label in enumerate(labels):
            if label in subgroup_map:
                level[label] = min(level.get(label, depth), depth)
    native = sorted({label for labels in df["labels"] for label in labels})
    if not subgroup_map:
        raise BiasflowError(
            f"the subgroup map for {metric}/{axis} is empty, so no prompt would be kept; map some of the native "
            f"labels ({', '.join(native)}) to shared ones."
        )
    unmatched = [key for key in subgroup_map if key not in level]
    if unmatched:
        key = unmatched[0]
        close = difflib.get_close_matches(key, native, n=3, cutoff=0.6)
        hint = f"closest: {', '.join(close)}" if close else f"the native labels are {', '.join(native)}"
        raise BiasflowError(
            f"the subgroup map for {metric}/{axis} has the key {key!r}, which matches no subgroup in the data "
            f"({hint}). Fix the key in cairo.subgroup_map.{axis}.{metric}, or remove it."
        )
    shared = [
        next((subgroup_map[label] for depth, label in enumerate(labels) if level.get(label) == depth), None)
        for labels in df["labels"]
    ]
    out = df.assign(subgroup=shared)
    return out[out["subgroup"].notna()]


def identity_term(text: str, term: str) -> str:
    """``term`` as it is written in ``text`` when it occurs there as whole words, else "".

    Matching ignores case (a Wikipedia title is capitalised where a sentence may not be)
    but respects word edges, so "male" is not found inside "female".
    """
    if not term:
        return ""
    match = _whole_words(term).search(text)
    return match.group(0) if match else ""


@functools.lru_cache(maxsize=4096)
def _whole_words(term: str) -> re.Pattern:
    """The pattern of :func:`identity_term`, compiled once per term (a term heads many prompts)."""
    return re.compile(rf"(?<!\w){re.escape(term)}(?!\w)", flags=re.IGNORECASE)
