"""Detoxify for real: a tiny checkpoint in Detoxify's own format, built here and loaded through
Detoxify's public API, with no download (docs/methods.md §5.2)."""

from __future__ import annotations

import numpy as np
import pytest

from biasflow.errors import BiasflowError
from biasflow.scorers import score_texts
from biasflow.scorers.table import ScoringSettings
from specs import make_scorer
from tiny_models import build_tiny_detoxify

detoxify = pytest.importorskip("detoxify", reason="detoxify is part of the test extra: pip install -e '.[test]'")
torch = pytest.importorskip("torch")

TEXTS = [
    "the cook said that the bread was good",
    "she is a kind person",
    "",
    "people meet at the market",
    "an actor and an actress",
] * 7


@pytest.fixture(scope="module")
def tiny(tiny_detoxify):
    return tiny_detoxify


def scorer(tiny, **options):
    checkpoint, config = tiny
    return make_scorer("detoxify-unbiased", checkpoint=checkpoint, huggingface_config=config, **options)


def test_scores_equal_a_direct_detoxify_call_on_the_same_model(tiny):
    checkpoint, config = tiny
    direct = detoxify.Detoxify(checkpoint=str(checkpoint), huggingface_config_path=str(config))
    expected = np.array(direct.predict(TEXTS)["toxicity"])
    ours = scorer(tiny, batch_size=4).score(TEXTS)
    assert ours.shape == (len(TEXTS),)
    assert np.allclose(ours, expected, rtol=0, atol=1e-6), "batches of 4 and one batch of 35 agree"
    assert np.ptp(ours) > 1e-3, "different texts get different scores from this tiny model"


def test_device_is_chosen_from_the_config_and_batches_sized_for_it(tiny):
    auto = scorer(tiny)
    expected = "cuda" if torch.cuda.is_available() else "cpu"
    assert auto.device == expected and auto.batch_size == {"cpu": 32, "cuda": 512}[expected]
    assert scorer(tiny, device="cpu").device == "cpu"
    assert scorer(tiny, device="cpu", batch_size=7).batch_size == 7
    settings = {
        "scorer": "detoxify-unbiased",
        "score_text": "continuation",
        "batch_size": None,
        "device": "cpu",
        "checkpoint": str(tiny[0]),
        "huggingface_config": str(tiny[1]),
        "lexicon": "ignored",
    }
    built = ScoringSettings.of(settings)
    assert "lexicon" not in built.options, "only the scorer's own options"
    assert built.build().device == "cpu"
    if not torch.cuda.is_available():
        with pytest.raises(BiasflowError, match="device is cuda but PyTorch sees no CUDA device"):
            scorer(tiny, device="cuda")
    with pytest.raises(BiasflowError, match="unknown scoring device 'gpu'"):
        scorer(tiny, device="gpu")


def test_a_different_checkpoint_never_reuses_cached_scores(tiny, tmp_path):
    other = build_tiny_detoxify(tmp_path / "other", seed=1)
    first, second = scorer(tiny, device="cpu"), scorer(other, device="cpu")
    assert first.cache_identity() != second.cache_identity()
    assert first.cache_identity() == scorer(tiny, device="cpu").cache_identity()
    cache = tmp_path / "cache"
    a = score_texts(first, TEXTS[:5], cache)
    b = score_texts(second, TEXTS[:5], cache)
    assert not np.allclose(a, b), "the second checkpoint's scores were computed, not read from the first's"
    assert np.array_equal(score_texts(first, TEXTS[:5], cache), a)
    release = make_scorer("detoxify-unbiased", device="cpu").cache_identity()
    assert release["checkpoint"] == "toxic_debiased-c7548aa0.ckpt", "the release file's name carries its hash"


def test_missing_checkpoint_file_is_one_clear_error(tmp_path):
    with pytest.raises(BiasflowError, match=r"Detoxify checkpoint not found.*scoring\.checkpoint"):
        make_scorer("detoxify-unbiased", checkpoint=tmp_path / "nope.ckpt")
