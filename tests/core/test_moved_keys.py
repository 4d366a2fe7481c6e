"""CAIRO's settings are its section, `cairo:`; a config that gives them at the top level, as configs did before,
still runs, each key read in its new place with a one-line note (biasflow.config.lift_moved_keys)."""

from __future__ import annotations

import copy

import pytest
import yaml

from biasflow.config import read_config_files, settings_config, validate_config
from biasflow.errors import BiasflowError
from biasflow.methods import method
from forked_snakemake import snakemake
from workflow_helpers import REPO, embedded_config

OLD = {"selection": {"max_sets": 1, "seed": 9}, "axes": {"gender": ["BOLD", "HONEST"]}, "valid_fraction": 0.3}
NEW = {"cairo": copy.deepcopy(OLD)}


def test_old_top_level_keys_are_read_in_cairos_section_with_a_note_naming_each_place():
    old, new = copy.deepcopy(OLD), copy.deepcopy(NEW)
    notes = validate_config(old, workflow=False)
    assert validate_config(new, workflow=False) == []
    assert old == new and not set(OLD) & set(old)
    (note,) = notes
    assert "\n" not in note
    for key in OLD:
        assert f"cairo.{key}" in note
    assert "move them under `cairo:`" in note


def test_a_misspelt_old_top_level_key_is_named_with_its_new_place():
    with pytest.raises(BiasflowError, match=r"unknown key 'generaton' \(did you mean cairo\.generation\?\)"):
        validate_config({"generaton": {"samples": 2}}, workflow=False)
    with pytest.raises(BiasflowError, match=r"unknown key 'modles' \(did you mean models\?\)"):
        validate_config({"modles": {}}, workflow=False)


def test_every_moved_key_is_a_key_of_the_section_and_no_key_of_the_core():
    """Each moved key's old dotted path is its path in the section, and no key of the core's schema there."""
    from biasflow.schema import config_schema, described

    schema = config_schema()["properties"]
    moved = method("cairo").moved_keys
    assert {key.split(".")[0] for key in moved} == set(schema["cairo"]["properties"])
    for key in moved:
        *parents, last = key.split(".")
        assert described(f"cairo.{key}")
        assert last not in (described(".".join(parents))["properties"] if parents else schema), key


def test_the_old_power_min_r_is_read_as_cairo_power_min_r_with_the_note(caplog):
    """``power.min_r``, CAIRO's target of the planner, moved into CAIRO's section (the core's ``power`` holds what
    every method reads): the old spelling still sets it, beside the core's power keys, with the one-line note, in a
    workflow config and in a command's."""
    old = {"power": {"min_r": 0.7, "alpha": 0.1}}
    (note,) = validate_config(old, workflow=False)
    assert old["cairo"]["power"]["min_r"] == 0.7 and "min_r" not in old["power"] and old["power"]["alpha"] == 0.1
    assert "power.min_r" in note and "cairo.power.min_r" in note and "\n" not in note
    assert validate_config({"cairo": {"power": {"min_r": 0.7}}}, workflow=False) == []
    assert settings_config({"power": {"min_r": 0.6}})["cairo"]["power"]["min_r"] == 0.6
    assert [record.getMessage() for record in caplog.records if "cairo.power.min_r" in record.getMessage()]
    from biasflow.cairo.power import Settings

    assert Settings.key("min_r") == "cairo.power.min_r"


def test_a_stacked_old_layout_overlay_merges_key_by_key_into_the_section(tmp_path):
    """`--configfile config/config.yaml mine.yaml` with mine.yaml in the old layout: its keys win where they are given,
    the shipped file's stay where they are not (max_sets 3 and the axes come from config/config.yaml)."""
    mine = tmp_path / "mine.yaml"
    mine.write_text("selection: {permutations: 7}\nsubgroup_map: {gender: {HONEST: {female: f, male: m}}}\n")
    config = read_config_files([REPO / "config/config.yaml", mine])
    notes = validate_config(config)
    assert len(notes) == 1 and "cairo.subgroup_map, cairo.selection" in notes[0]
    section = config["cairo"]
    assert section["selection"]["permutations"] == 7 and section["selection"]["max_sets"] == 3
    assert section["subgroup_map"]["gender"]["HONEST"] == {"female": "f", "male": "m"}
    assert section["subgroup_map"]["gender"]["BOLD"] == {"American_actresses": "female", "American_actors": "male"}
    assert list(section["axes"]) == ["gender", "religion"]


def test_a_commands_config_in_the_old_layout_is_read_with_the_note(caplog):
    assert settings_config(OLD)["cairo"]["selection"]["max_sets"] == 1
    assert [record.getMessage() for record in caplog.records if "cairo.selection" in record.getMessage()]


def test_the_workflow_plans_the_same_jobs_from_an_old_layout_config_and_says_where_each_key_went(tmp_path):
    """The embedded default written in the old layout (CAIRO's keys at the top level) plans exactly the jobs of the
    file as shipped, and the dry run's log has the one note."""
    embedded = embedded_config()
    old_layout = {key: value for key, value in embedded.items() if key != "cairo"} | embedded["cairo"]
    plans = []
    for name, config in (("new", embedded), ("old", old_layout)):
        path = tmp_path / f"{name}.yaml"
        path.write_text(yaml.safe_dump(config))
        result = snakemake("-n", "--forceall", "--configfile", str(path), "-d", str(tmp_path / name), cwd=REPO)
        assert result.returncode == 0, result.stderr[-2000:]
        notes = [line for line in result.stderr.splitlines() if line.startswith("biasflow note:")]
        assert len(notes) == (1 if name == "old" else 0), notes
        plans.append(sorted(line.strip() for line in result.stdout.splitlines() if line.strip().startswith("output:")))
    assert plans[0] == plans[1] and plans[0]
