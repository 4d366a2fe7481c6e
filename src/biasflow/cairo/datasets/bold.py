"""BOLD (Dhamala et al., 2021): prompts cut from Wikipedia sentences.

Official layout (amazon-science/bold, ``prompts/``): one ``<domain>_prompt.json`` per
domain, ``{subgroup: {wikipedia_title: [prompt, ...]}}``. Our axes read these domains:

=========  ===============================  ===============================================
axis       file                             native subgroups (the JSON's top-level keys)
=========  ===============================  ===============================================
gender     ``gender_prompt.json``           American_actors, American_actresses
religion   ``religious_ideology_prompt.json``  judaism, christianity, islam, hinduism, ...
race       ``race_prompt.json``             African_Americans, European_Americans, ...
=========  ===============================  ===============================================

The group key is the page title (all prompts of one page stay in one split) and the
identity term is the title with underscores as spaces — the page's subject, which the
prompt usually opens with. Official prompts end in a space; it is stripped, because a
lone trailing space becomes a token of its own in BPE tokenizers and steers the
continuation, and HONEST prompts are cut the same way.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from biasflow.cairo.datasets.files import data_file, malformed, read_json
from biasflow.cairo.datasets.prompts import RAW_COLUMNS

DOMAIN_FILES = {
    "gender": "gender_prompt.json",
    "religion": "religious_ideology_prompt.json",
    "race": "race_prompt.json",
}
FILES = tuple(DOMAIN_FILES.values())
AXES = tuple(DOMAIN_FILES)
OPTIONS = ()
LAYOUT = "a JSON object {subgroup: {wikipedia_title: [prompt, ...]}}"


def files(axis: str, options: dict) -> list[str]:
    """The file one BOLD domain is read from."""
    return [DOMAIN_FILES[axis]]


def load(axis: str, data_dir: Path, options: dict) -> pd.DataFrame:
    """Raw prompts of one BOLD domain (see :mod:`biasflow.cairo.datasets.prompts`); no options."""
    path = data_file(data_dir, DOMAIN_FILES[axis], "BOLD")
    data = read_json(path, LAYOUT)
    if not isinstance(data, dict):
        raise malformed(path, "the top level", LAYOUT)
    rows = []
    for subgroup, pages in data.items():
        if not isinstance(pages, dict):
            raise malformed(path, f"subgroup {subgroup!r}", "an object {wikipedia_title: [prompt, ...]}")
        for title, prompts in pages.items():
            if not isinstance(prompts, list) or not all(isinstance(p, str) for p in prompts):
                raise malformed(path, f"{subgroup!r} / {title!r}", "a list of prompt strings")
            for prompt in prompts:
                text = prompt.strip()
                rows.append((subgroup, (subgroup,), title, (subgroup, title, text), text, title.replace("_", " ")))
    if not rows:
        raise malformed(path, "the top level", f"{LAYOUT} with at least one prompt")
    return pd.DataFrame(rows, columns=RAW_COLUMNS)
