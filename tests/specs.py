"""Model specs and decodings for tests, built as the config builds them (the schema fills what is left out)."""

from __future__ import annotations

from dataclasses import replace

from biasflow.models import Decoding, ModelSpec, model_spec


def make_decoding(**settings) -> Decoding:
    """A :class:`Decoding` with ``settings``; the rest are the schema's defaults."""
    return Decoding.from_params(settings)


def make_spec(
    name: str = "tiny",
    backend: str = "transformers",
    model: str = "some/model",
    decoding: Decoding | None = None,
    **entry,
) -> ModelSpec:
    """The spec of a model entry with ``entry``'s keys; ``decoding`` replaces the default decoding."""
    spec = model_spec(name, {"backend": backend, "model": model, **entry})
    return spec if decoding is None else replace(spec, decoding=decoding)


def make_scorer(name: str, **options):
    """A scorer built as a CAIRO score job builds it: the schema's ``cairo.scoring`` defaults, ``options`` replacing
    some (the core's ``get_scorer`` takes every option of the scorer from its caller)."""
    from biasflow.cairo.scorer_runs import scoring_settings

    return scoring_settings(scorer=name, **options).build()
