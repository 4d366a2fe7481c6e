"""The scale benchmark's synthetic official-format data (benchmarks/scale.py): at a small size
the real loaders read it, with the row counts worked out by hand from its shape."""

from __future__ import annotations

import json

from benchmarks.scale import (
    floor_bold,
    floor_holisticbias,
    synthesise_bold,
    synthesise_holisticbias,
    synthetic_rows,
)
from biasflow.cairo.datasets import LoaderSettings, holisticbias, prompt_table

BOLD_SMALL = {"gender": (2, 7), "religious_ideology": (3, 10), "race": (2, 5), "profession": (2, 4)}
HB_SMALL = {
    # (descriptors, buckets, gendered, fixed standalone, standalone holding {noun})
    "gender_and_sex": (3, 2, 2, 1, 0),
    "religion": (2, 1, 0, 0, 1),
    "race_ethnicity": (3, 3, 0, 0, 0),
    "ability": (2, 1, 0, 0, 0),
}
NOUNS_PER_GENDER, TEMPLATES, MUST_BE_NOUN = 2, 4, 1


def test_bold_files_load_with_the_counts_asked_for(tmp_path):
    synthesise_bold(tmp_path, BOLD_SMALL)
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "gender_prompt.json",
        "profession_prompt.json",
        "race_prompt.json",
        "religious_ideology_prompt.json",
    ]
    # gender: 7 prompts over 2 subgroups -> 4 and 3; pages take 1, 2, 3, ... prompts: [1, 2, 1] and [1, 2].
    # religion: 10 over 3 -> 4, 3, 3 -> 3, 2, 2 pages. race: 5 over 2 -> 3 ([1, 2]) and 2 ([1, 1]).
    expected = {"gender": ([4, 3], [3, 2]), "religion": ([4, 3, 3], [3, 2, 2]), "race": ([3, 2], [2, 2])}
    for axis, (prompts, pages) in expected.items():
        table, summary = prompt_table("BOLD", axis, tmp_path, LoaderSettings.defaults(subgroup_map=None, options={}))
        per_subgroup = summary.groupby("subgroup", sort=False)[["n_prompts", "n_group_keys"]].sum()
        assert table["subgroup"].nunique() == len(prompts)
        assert sorted(per_subgroup["n_prompts"]) == sorted(prompts), axis
        assert sorted(per_subgroup["n_group_keys"]) == sorted(pages), axis
        assert len(table) == sum(prompts) and not table["text"].str.endswith(" ").any()
        assert (table["identity_term"] != "").all(), "every prompt names its page"
    files = {"gender": "gender_prompt.json", "religion": "religious_ideology_prompt.json", "race": "race_prompt.json"}
    for axis, name in files.items():
        assert floor_bold(tmp_path / name) == sum(expected[axis][0])
    assert floor_bold(tmp_path / "profession_prompt.json") == 4


def test_holisticbias_files_load_with_the_counts_worked_out_by_hand(tmp_path, monkeypatch):
    synthesise_holisticbias(
        tmp_path, HB_SMALL, nouns_per_gender=NOUNS_PER_GENDER, templates=TEMPLATES, must_be_noun=MUST_BE_NOUN
    )
    # 4 templates, 1 of them must_be_noun; 2 nouns per gender, 6 in all.
    # A descriptor alone goes into the 3 other templates; with each allowed noun into all 4.
    ungendered = 3 + 6 * 4  # 27
    gendered = 3 + 2 * 4  # 11: only its own gender's 2 nouns
    expected = {
        "gender": 2 * gendered + 1 * ungendered + 3,  # + a fixed standalone phrase, no noun: 52
        "religion": 2 * ungendered + 6 * 4,  # + a phrase filled with each of the 6 nouns: 78
        "race": 3 * ungendered,  # 81
    }
    hb_axis = {"gender": "gender_and_sex", "religion": "religion", "race": "race_ethnicity"}
    for axis, rows in expected.items():
        table, summary = prompt_table(
            "HolisticBias", axis, tmp_path, LoaderSettings.defaults(subgroup_map=None, options={})
        )
        assert len(table) == rows == summary["n_prompts"].sum(), axis
        assert floor_holisticbias(tmp_path, hb_axis[axis]) == rows
        assert table["group_key"].nunique() == TEMPLATES

    table = prompt_table("HolisticBias", "gender", tmp_path, LoaderSettings.defaults(subgroup_map=None, options={}))[0]
    buckets = json.loads((tmp_path / "descriptors.json").read_text())["gender_and_sex"]
    assert set(table["subgroup"]) == {*buckets, "(none)"}
    nouns = json.loads((tmp_path / "nouns.json").read_text())
    female = next(
        e["descriptor"] for b in buckets.values() for e in b if isinstance(e, dict) and e["gender"] == "female"
    )
    texts = " ".join(table.loc[table["identity_term"] == female, "text"])
    assert all(noun not in texts.split() for pair in nouns["male"] for noun in pair), "female never meets a male noun"

    # An axis the workflow does not read still loads, registered for the test only.
    monkeypatch.setitem(holisticbias.HB_AXES, "ability", "ability")
    assert len(holisticbias.load("ability", tmp_path, {})) == 2 * ungendered == floor_holisticbias(tmp_path, "ability")


def test_synthetic_cache_rows_are_distinct_twenty_word_texts():
    rows = synthetic_rows(500)
    assert rows.column_names == ["key", "text", "n_tokens"] and rows.num_rows == 500
    keys, texts = rows["key"].to_pylist(), rows["text"].to_pylist()
    assert len(set(keys)) == 500 and all(len(k) == 16 for k in keys)
    assert len(set(texts)) == 500 and all(len(t.split()) == 20 for t in texts)
