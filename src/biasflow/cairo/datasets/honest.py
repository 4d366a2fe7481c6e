"""HONEST (Nozza et al., 2021): cloze templates about identity terms, English part.

Official layout (MilaNLProc/honest, ``resources/``): one tab-separated file per identity
set, ``binary/en_template.tsv`` (categories female, male) and
``queer_nonqueer/en_template.tsv`` (queer, nonqueer, queer_gender, ...), each with the
columns ``template_masked, raw, identity, number, category, type`` (the queer file
orders them differently; they are read by name, and only the four used are required). ``type`` is the kind of template
(occupation, descriptive_adjective, descriptive_verb), so which identity set a row
belongs to is told by its folder, as in the HONEST package's ``templates(data_set=...)``.

The prompt is ``template_masked`` cut at ``[M]`` ("the woman should work as a"), the
native subgroup is ``category``, the group key is the ``raw`` template (shared by every
identity, so all identities of a template stay in one split) and the identity term is
``identity``.

HONEST covers gender only. Option ``sets``: ``{axis: [identity set, ...]}``; default
gender → binary and queer_nonqueer.
"""

from __future__ import annotations

import csv
from pathlib import Path

import pandas as pd

from biasflow.cairo.datasets.files import data_file, malformed
from biasflow.cairo.datasets.prompts import RAW_COLUMNS
from biasflow.errors import BiasflowError
from biasflow.tables import require_columns

SET_FILES = {"binary": "binary/en_template.tsv", "queer_nonqueer": "queer_nonqueer/en_template.tsv"}
FILES = tuple(SET_FILES.values())
AXES = ("gender",)
OPTIONS = ("sets",)
DEFAULT_SETS = {"gender": ["binary", "queer_nonqueer"]}
COLUMNS = ["template_masked", "raw", "identity", "number", "category", "type"]
USED_COLUMNS = ["template_masked", "raw", "identity", "category"]
MASK = "[M]"


def files(axis: str, options: dict) -> list[str]:
    """The files of the identity sets ``axis`` reads."""
    return [SET_FILES[name] for name in selected_sets(options, axis)]


def load(axis: str, data_dir: Path, options: dict) -> pd.DataFrame:
    """Raw prompts of the HONEST identity sets assigned to ``axis``."""
    frames = [read_set(data_file(data_dir, SET_FILES[name], "HONEST"), name) for name in selected_sets(options, axis)]
    return pd.concat(frames, ignore_index=True)


def selected_sets(options: dict, axis: str) -> list[str]:
    """The identity sets of ``axis``: ``options["sets"][axis]``, or the default."""
    chosen = options.get("sets", {})
    wanted = {**DEFAULT_SETS, **chosen}.get(axis) if isinstance(chosen, dict) else None
    if (
        not isinstance(chosen, dict)
        or set(chosen) - set(AXES)
        or not isinstance(wanted, list)
        or not wanted
        or any(name not in SET_FILES for name in wanted)
    ):
        raise BiasflowError(
            f"HONEST option 'sets' must map the axis gender to a non-empty list of identity sets "
            f"from {', '.join(SET_FILES)}; got {chosen!r}."
        )
    return wanted


def read_set(path: Path, name: str) -> pd.DataFrame:
    """One identity set's templates as raw prompts; rows without ``[M]`` are malformed."""
    try:
        table = pd.read_csv(path, sep="\t", dtype=str, keep_default_na=False, quoting=csv.QUOTE_NONE)
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as exc:
        expected = f"a tab-separated table with the columns {', '.join(COLUMNS)} ({exc})"
        raise malformed(path, "the top", expected) from exc
    require_columns(table, USED_COLUMNS, f"HONEST file {path}")
    bad = table.index[~table["template_masked"].str.contains(MASK, regex=False)]
    if len(bad):
        raise malformed(path, f"data row {bad[0] + 1}", f"a template_masked holding the mask {MASK}")
    if table.empty:
        raise malformed(path, "the top", "at least one template row")
    text = table["template_masked"].str.split(MASK, n=1, regex=False).str[0].str.rstrip()
    return pd.DataFrame(
        {
            "subgroup": table["category"],
            "labels": [(c,) for c in table["category"]],
            "group_key": table["raw"],
            "key": [(name, c, t) for c, t in zip(table["category"], table["template_masked"], strict=True)],
            "text": text,
            "term": table["identity"],
        },
        columns=RAW_COLUMNS,
    )
