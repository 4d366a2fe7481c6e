"""The optional parts of biasflow and the one line that names the extra a missing one needs.

``pip install biasflow`` is the core: every command and function that works on tables. What
loads a model, runs the workflow or scores with a compiled model comes with an extra
(pyproject.toml): ``models`` (torch, transformers, accelerate, gguf, ctranslate2), ``workflow``
(Snakemake), ``profanity``, ``detoxify``, ``openai``, ``vllm``, ``lora`` and ``slurm``;
``all`` is every one a study needs. A module of those is imported where it is first used,
through :func:`require`, so a command that needs a missing one stops with the extra to
install instead of a traceback, and the core imports none of them.
"""

from __future__ import annotations

import importlib
from types import ModuleType

from biasflow.errors import BiasflowError

# The extra that installs each optional top-level module.
EXTRA = {
    "torch": "models",
    "transformers": "models",
    "accelerate": "models",
    "gguf": "models",
    "ctranslate2": "models",
    "snakemake": "workflow",
    "profanity_check": "profanity",
    "detoxify": "detoxify",
    "openai": "openai",
    "vllm": "vllm",
    "peft": "lora",
}


def require(module: str, purpose: str) -> ModuleType:
    """Import ``module`` (a top-level name of :data:`EXTRA`, or one of its submodules); where it is not installed, a
    :class:`BiasflowError` saying which extra ``purpose`` (what needs it, in words) takes."""
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as exc:
        top = module.partition(".")[0]
        if exc.name is None or exc.name.partition(".")[0] != top:
            raise  # a module the optional package itself lacks: its own install is broken, not ours
        extra = EXTRA[top]
        raise BiasflowError(
            f"{purpose} needs {top}, which the {extra} extra installs: pip install "
            f"'biasflow[{extra}]' (in a checkout: pip install -e '.[{extra}]')."
        ) from None
