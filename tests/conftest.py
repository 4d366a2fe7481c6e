"""Shared fixtures: tiny local models (see tiny_models.py)."""

from __future__ import annotations

import pytest

from tiny_models import build_tiny_model


@pytest.fixture(scope="session")
def tiny_model_dir(tmp_path_factory):
    return build_tiny_model(tmp_path_factory.mktemp("models") / "tiny-a", seed=0)


@pytest.fixture(scope="session")
def tiny_models(tmp_path_factory):
    """Three tiny models (two plain, one with a chat template) for workflow runs."""
    root = tmp_path_factory.mktemp("workflow-models")
    return {
        "tiny-a": build_tiny_model(root / "tiny-a", seed=0),
        "tiny-b": build_tiny_model(root / "tiny-b", seed=1),
        "tiny-chat": build_tiny_model(root / "tiny-chat", seed=2, chat=True),
    }
