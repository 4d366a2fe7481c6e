"""From a metric's raw prompts to the prompt table: ids, splits, shared subgroups.

Every loader hands over the same *raw* frame — one row per original prompt with

- ``subgroup``: the metric's own label for the row's group,
- ``labels``: the labels a ``subgroup_map`` may match, most specific first (HolisticBias
  offers the descriptor before its bucket; the other metrics offer their one label),
- ``group_key``: what keeps related prompts in one split (docs/methods.md §1.3),
- ``key``: the prompt's natural key inside the metric's files,
- ``text`` and ``term``: the prompt and the words that name its group.

and :func:`finalise` derives everything else the same way for all metrics, so ids and
splits cannot drift between loaders.
"""

from __future__ import annotations

import re

import pandas as pd

from biasflow.errors import BiasflowError
from biasflow.hashing import stable_hash, unit_interval
from biasflow.tables import PROMPT_COLUMNS

RAW_COLUMNS = ["subgroup", "labels", "group_key", "key", "text", "term"]


def finalise(
    raw: pd.DataFrame,
    metric: str,
    axis: str,
    valid_fraction: float,
    subgroup_map: dict[str, str] | None,
) -> pd.DataFrame:
    """Turn a loader's raw frame into the prompt table of the original prompts.

    A natural key that occurs twice (BOLD repeats a few sentences on one page, HONEST a
    few template rows) is kept once: the repeat adds no new prompt, only weight, and two
    rows would share one ``prompt_id``.
    """
    df = raw.copy()
    df["source_id"] = [stable_hash(metric, axis, *key) for key in df["key"]]
    df = df.drop_duplicates("source_id")
    if subgroup_map is not None:
        df = unify_subgroups(df, subgroup_map, metric, axis)
    df["metric"] = metric
    df["axis"] = axis
    df["promptset"] = "original"
    df["identity_term"] = [identity_term(text, term) for text, term in zip(df["text"], df["term"])]
    df["prompt_id"] = [stable_hash(metric, axis, sid, text) for sid, text in zip(df["source_id"], df["text"])]
    df["split"] = assign_split(df["group_key"], metric, valid_fraction)
    df = df.sort_values(["subgroup", "group_key", "text", "source_id"], kind="stable")
    return df[PROMPT_COLUMNS].reset_index(drop=True)


def check_valid_fraction(valid_fraction: float) -> None:
    """``valid_fraction`` is a share of group keys, so it must lie in [0, 1]."""
    if isinstance(valid_fraction, bool) or not isinstance(valid_fraction, (int, float)) or not 0 <= valid_fraction <= 1:
        raise BiasflowError(f"valid_fraction must be a number between 0 and 1, got {valid_fraction!r}.")


def assign_split(group_keys: pd.Series, metric: str, valid_fraction: float) -> list[str]:
    """``valid`` where the stable hash of (metric, group key) falls below ``valid_fraction``.

    Hashing the group key rather than the prompt keeps every prompt of one Wikipedia
    page or template on one side, so selection on valid is checked on unseen groups.
    """
    return ["valid" if unit_interval(metric, key) < valid_fraction else "test" for key in group_keys]


def unify_subgroups(df: pd.DataFrame, subgroup_map: dict[str, str], metric: str, axis: str) -> pd.DataFrame:
    """Relabel rows with the shared label of their first mapped label; drop unmapped rows."""
    if not isinstance(subgroup_map, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in subgroup_map.items()
    ):
        raise BiasflowError(
            f"the subgroup map for {metric}/{axis} must map native labels (strings) to shared "
            f"labels (strings), got {subgroup_map!r}."
        )
    shared = [next((subgroup_map[label] for label in labels if label in subgroup_map), None) for labels in df["labels"]]
    out = df.assign(subgroup=shared)
    out = out[out["subgroup"].notna()]
    if out.empty:
        native = sorted({label for labels in df["labels"] for label in labels})
        raise BiasflowError(
            f"the subgroup map for {metric}/{axis} matches no prompt: it maps {', '.join(sorted(subgroup_map))}, "
            f"but the native labels are {', '.join(native)}. Map some of these labels to shared ones."
        )
    return out


def identity_term(text: str, term: str) -> str:
    """``term`` as it is written in ``text`` when it occurs there as whole words, else "".

    Matching ignores case (a Wikipedia title is capitalised where a sentence may not be)
    but respects word edges, so "male" is not found inside "female".
    """
    if not term:
        return ""
    match = re.search(rf"(?<!\w){re.escape(term)}(?!\w)", text, flags=re.IGNORECASE)
    return match.group(0) if match else ""
