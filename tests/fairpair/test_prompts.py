"""Common Sents prompts and user prompt files (FairPair paper §3.1, docs/methods.md §2.7)."""

from __future__ import annotations

import pandas as pd
import pytest

from biasflow.errors import BiasflowError
from biasflow.fairpair.perturbation import Swapper
from biasflow.fairpair.prompts import (
    PAIR_PROMPT_COLUMNS,
    PromptSettings,
    article,
    build_prompts,
    common_sents,
    load_occupations,
    load_prompt_file,
    with_words,
)
from biasflow.hashing import stable_hash

DEFAULTS = PromptSettings.defaults()
SWAPPER = Swapper.from_file(DEFAULTS.swaps)
JOHN_JANE = {"name": "John", "counterpart": "Jane", "descriptor": "a man", "counterpart_descriptor": "a woman"}
MARY_BOB = {"name": "Mary", "counterpart": "Robert", "descriptor": "a woman", "counterpart_descriptor": "a man"}


def test_default_occupations_are_the_papers_sixty():
    occupations = load_occupations(DEFAULTS.occupations_file)
    assert build_prompts(DEFAULTS)["occupation"].tolist() == occupations, "the config's default: the file's 60"
    assert len(occupations) == 60 == len(set(occupations))
    assert occupations[0] == "technician" and occupations[-1] == "secretary"
    assert {"doctor", "engineer", "nurse", "hairdresser"} <= set(occupations)


def test_worked_example_text():
    table = common_sents([JOHN_JANE], ["doctor", "engineer"], [])
    assert list(table.columns) == PAIR_PROMPT_COLUMNS
    doctor = table.set_index("occupation").loc["doctor"]
    assert doctor["text"] == "John is a man, working as a doctor."
    assert doctor["perturbed_text"] == "Jane is a woman, working as a doctor."
    assert (doctor["entity"], doctor["counterpart"]) == ("John", "Jane")
    assert (doctor["descriptor"], doctor["counterpart_descriptor"]) == ("a man", "a woman")
    assert doctor.name == "doctor"
    assert table.set_index("occupation").loc["engineer", "text"] == "John is a man, working as an engineer."


def test_default_pair_is_john_jane():
    assert DEFAULTS.pairs == [JOHN_JANE]
    assert common_sents(DEFAULTS.pairs, ["nurse"], [])["text"].tolist() == ["John is a man, working as a nurse."]


@pytest.mark.parametrize(
    ("word", "expected"),
    [("engineer", "an"), ("officer", "an"), ("accountant", "an"), ("doctor", "a"), ("hairdresser", "a")],
)
def test_article(word, expected):
    assert article(word) == expected


def test_count_is_pairs_times_descriptors_times_occupations():
    occupations = load_occupations(DEFAULTS.occupations_file)
    assert len(common_sents([JOHN_JANE], occupations, [])) == 60
    table = common_sents([JOHN_JANE, MARY_BOB], occupations, [{"words": ["young", "old"]}])
    assert len(table) == 2 * 3 * 60
    assert table["prompt_id"].is_unique


def test_extra_descriptor_forms():
    table = common_sents([JOHN_JANE], ["doctor"], [{"words": ["young", "old"]}, {"words": ["Black"]}])
    assert len(table) == 3 * 2
    assert table["text"].tolist() == [
        "John is a man, working as a doctor.",
        "John is a Black man, working as a doctor.",
        "John is a young man, working as a doctor.",
        "John is a young Black man, working as a doctor.",
        "John is an old man, working as a doctor.",
        "John is an old Black man, working as a doctor.",
    ]
    assert table["perturbed_text"].iloc[4] == "Jane is an old woman, working as a doctor."
    assert with_words("male", ("young",)) == "young male"


def test_ids_are_stable_hashes_of_both_texts():
    first = common_sents([JOHN_JANE], ["doctor", "nurse"], [])
    again = common_sents([JOHN_JANE], ["nurse", "doctor"], [])
    assert set(first["prompt_id"]) == set(again["prompt_id"])
    row = first.iloc[0]
    assert row["prompt_id"] == stable_hash(row["text"], row["perturbed_text"])


@pytest.mark.parametrize(
    ("pairs", "occupations", "extra", "message"),
    [
        ([{"name": "John", "counterpart": "Jane", "descriptor": "a man"}], ["doctor"], None, "counterpart_descriptor"),
        ([], ["doctor"], None, "at least one name pair"),
        ([JOHN_JANE], [], None, "occupation list is empty"),
        ([JOHN_JANE], ["doctor", " "], None, "blank entry"),
        ([JOHN_JANE], ["doctor", "doctor"], None, "built twice"),
        ([JOHN_JANE], ["doctor"], [{"word": ["young"]}], "extra_descriptors entry 1"),
    ],
)
def test_bad_common_sents_input(pairs, occupations, extra, message):
    with pytest.raises(BiasflowError, match=message):
        common_sents(pairs, occupations, extra)


def test_occupation_file(tmp_path):
    path = tmp_path / "jobs.txt"
    path.write_text("# mine\ndoctor\n\n  nurse \n")
    assert load_occupations(path) == ["doctor", "nurse"]
    path.write_text("# only a comment\n")
    with pytest.raises(BiasflowError, match="no occupation"):
        load_occupations(path)
    with pytest.raises(BiasflowError, match="not found"):
        load_occupations(tmp_path / "missing.txt")


def test_prompt_file_builds_counterfactuals(tmp_path):
    path = tmp_path / "prompts.tsv"
    pd.DataFrame(
        {
            "text": ["John told his sister he would be late.", "Mary said her father called her."],
            "entity": ["John", "Mary"],
            "counterpart": ["Jane", "David"],
        }
    ).to_csv(path, sep="\t", index=False)
    table = load_prompt_file(path, SWAPPER)
    assert list(table.columns) == PAIR_PROMPT_COLUMNS
    assert table["perturbed_text"].tolist() == [
        "Jane told her sister she would be late.",
        "David said his father called him.",
    ]
    assert table["occupation"].tolist() == ["", ""]
    assert table["prompt_id"].tolist() == [
        stable_hash(t, p) for t, p in zip(table["text"], table["perturbed_text"], strict=True)
    ]


def test_prompt_file_descriptors_give_the_direction(tmp_path):
    path = tmp_path / "prompts.csv"
    pd.DataFrame(
        {
            "text": ["Kwame is a man; he cooks."],
            "entity": ["Kwame"],
            "counterpart": ["Ama"],
            "descriptor": ["a man"],
            "counterpart_descriptor": ["a woman"],
        }
    ).to_csv(path, index=False)
    assert load_prompt_file(path, SWAPPER)["perturbed_text"].tolist() == ["Ama is a woman; she cooks."]


def test_prompt_file_errors(tmp_path):
    with pytest.raises(BiasflowError, match="not found"):
        load_prompt_file(tmp_path / "missing.csv", SWAPPER)
    lacking = tmp_path / "lacking.csv"
    pd.DataFrame({"text": ["John is here."], "entity": ["John"]}).to_csv(lacking, index=False)
    with pytest.raises(BiasflowError, match="counterpart"):
        load_prompt_file(lacking, SWAPPER)
    absent = tmp_path / "absent.csv"
    pd.DataFrame({"text": ["Johnson is here."], "entity": ["John"], "counterpart": ["Jane"]}).to_csv(
        absent, index=False
    )
    with pytest.raises(BiasflowError, match="line 2: the text does not mention its entity 'John'"):
        load_prompt_file(absent, SWAPPER)
    unknown = tmp_path / "unknown.csv"
    pd.DataFrame({"text": ["Kwame is here."], "entity": ["Kwame"], "counterpart": ["Ama"]}).to_csv(unknown, index=False)
    with pytest.raises(BiasflowError, match="names:"):
        load_prompt_file(unknown, SWAPPER)
