"""Scorers and the on-disk score cache."""

import logging
import sys
import types
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from biasflow.errors import BiasflowError
from biasflow.scorers import SCORERS, Scorer, get_scorer, score_texts
from specs import make_scorer

NEUTRAL = "The weather is pleasant today and we went for a walk."
OFFENSIVE = "You are a stupid fucking idiot."


class CountingScorer(Scorer):
    """Scores a text by its length and records every text it had to compute."""

    name = "counting"
    batch_size = 2

    def __init__(self):
        self.computed: list[str] = []

    def _score_batch(self, texts):
        self.computed.extend(texts)
        return np.array([len(t) for t in texts], dtype=float)


def test_registry_names(tmp_path):
    assert SCORERS == ("detoxify-unbiased", "profanity", "vader", "honest")
    lexicon = tmp_path / "hurtlex.tsv"
    lexicon.write_text("id\tpos\tcategory\tstereotype\tlemma\tlevel\nEN1\tn\tan\tno\tpig\tconservative\n")
    for name in SCORERS:
        options = {"lexicon": lexicon} if name == "honest" else {}
        assert make_scorer(name, **options).name == name


def test_unknown_scorer_lists_valid_names():
    with pytest.raises(BiasflowError, match=r"unknown scorer 'toxic'.*detoxify-unbiased, profanity, vader, honest"):
        get_scorer("toxic")
    with pytest.raises(BiasflowError, match="bad options"):
        get_scorer("vader", colour="red")


def test_profanity_ranks_offensive_above_neutral():
    scores = make_scorer("profanity").score([NEUTRAL, OFFENSIVE])
    assert scores.dtype == np.float64 and ((scores >= 0) & (scores <= 1)).all()
    assert scores[1] > scores[0]


def test_vader_sign_and_range():
    scores = make_scorer("vader").score(["I love this, it is wonderful!", "I hate this, it is awful.", ""])
    assert scores[0] > 0 > scores[1]
    assert scores[2] == 0.0


@pytest.mark.parametrize("name", ["profanity", "vader"])
def test_missing_texts_score_as_empty_string(name):
    scorer = make_scorer(name)
    scores = scorer.score(["", None, float("nan")])
    assert np.allclose(scores, scorer.score([""])[0])


def test_batching_and_progress():
    scorer = CountingScorer()
    ticks = []
    scores = scorer.score(["a", "bb", "ccc", "dddd", "eeeee"], progress=ticks.append)
    assert scores.tolist() == [1, 2, 3, 4, 5]
    assert ticks == [2, 2, 1]


def test_cache_hits_and_misses(tmp_path, caplog):
    scorer = CountingScorer()
    texts = ["one", "three", "one", None]
    first = score_texts(scorer, texts, tmp_path)
    assert first.tolist() == [3, 5, 3, 0]
    assert sorted(scorer.computed) == ["", "one", "three"]  # duplicates computed once

    scorer.computed.clear()
    with caplog.at_level(logging.INFO, logger="biasflow"):
        again = score_texts(scorer, list(reversed(texts)), tmp_path)
    assert again.tolist() == [0, 3, 5, 3]
    assert scorer.computed == []
    assert "4 of 4 texts from cache" in caplog.text

    fresh = CountingScorer()  # a new process: everything comes from the shards on disk
    assert score_texts(fresh, ["three", "eleven", "one"], tmp_path).tolist() == [5, 6, 3]
    assert fresh.computed == ["eleven"]


def test_cache_shards_written_atomically(tmp_path, monkeypatch):
    scorer = CountingScorer()
    score_texts(scorer, ["a", "b"], tmp_path)
    score_texts(scorer, ["a", "b"], tmp_path)  # nothing new: no new shard
    score_texts(scorer, ["c"], tmp_path)
    shards = sorted((tmp_path / "counting").iterdir())
    assert len(shards) == 2 and all(p.suffix == ".parquet" for p in shards)

    def killed_mid_write(self, data):
        with open(self, "wb") as half:
            half.write(data[: len(data) // 2])
        raise KeyboardInterrupt

    monkeypatch.setattr(Path, "write_bytes", killed_mid_write)
    with pytest.raises(KeyboardInterrupt):
        score_texts(scorer, ["d"], tmp_path)
    monkeypatch.undo()
    assert sorted((tmp_path / "counting").iterdir()) == shards  # no partial shard left

    # a temporary file left by a SIGKILL between write and rename is never read as a shard
    (tmp_path / "counting" / ".abc.parquet.x1y2.tmp").write_text("half a parquet file")
    scorer.computed.clear()
    assert score_texts(scorer, ["d", "a"], tmp_path).tolist() == [1, 1]
    assert scorer.computed == ["d"]


def test_a_scorer_killed_after_a_chunk_keeps_the_chunk(tmp_path, monkeypatch):
    """Long scoring jobs save every CHUNK_SIZE texts, so a kill loses at most one chunk's work."""
    from biasflow.scorers import cache

    monkeypatch.setattr(cache, "CHUNK_SIZE", 3)

    class DiesOnTheSixthText(CountingScorer):
        def _score_batch(self, texts):
            if len(self.computed) + len(texts) >= 6:
                raise KeyboardInterrupt
            return super()._score_batch(texts)

    texts = [f"text {i}" for i in range(8)]
    with pytest.raises(KeyboardInterrupt):
        score_texts(DiesOnTheSixthText(), texts, tmp_path)
    rerun = CountingScorer()
    assert score_texts(rerun, texts, tmp_path).tolist() == [6.0] * 8
    assert rerun.computed == texts[3:], "the first chunk of three came from the cache"


def test_cache_is_per_scorer_and_optional(tmp_path):
    score_texts(CountingScorer(), ["x"], tmp_path)
    vader = make_scorer("vader")
    assert score_texts(vader, ["x"], tmp_path).tolist() == [0.0]
    assert {p.name for p in tmp_path.iterdir()} == {"counting", "vader"}
    scorer = CountingScorer()
    score_texts(scorer, ["x"], None)
    score_texts(scorer, ["x"], None)
    assert scorer.computed == ["x", "x"]


def test_progress_counts_every_text(tmp_path):
    scorer = CountingScorer()
    score_texts(scorer, ["a", "b"], tmp_path)
    ticks = []
    score_texts(scorer, ["a", "b", "c", "c", "d"], tmp_path, progress=ticks.append)
    assert sum(ticks) == 5


def test_corrupt_shard_is_reported_and_its_scores_recomputed(tmp_path, caplog):
    """docs/methods.md §5.4: a shard failing its checksum is moved aside and its rows scored again."""
    first = CountingScorer()
    original = score_texts(first, ["alpha", "be"], tmp_path)
    score_texts(first, ["gamma!"], tmp_path)
    shard_dir = tmp_path / "counting"
    damaged = next(p for p in shard_dir.glob("*.parquet") if len(pd.read_parquet(p)) == 2)
    data = damaged.read_bytes()
    damaged.write_bytes(data[:-20] + bytes(20))  # the footer zeroed: neither checksum nor parquet holds

    again = CountingScorer()
    with caplog.at_level(logging.WARNING, logger="biasflow"):
        scores = score_texts(again, ["alpha", "gamma!", "be"], tmp_path)
    assert scores.tolist() == [original[0], 6.0, original[1]]
    assert sorted(again.computed) == ["alpha", "be"], "only the damaged shard's texts are scored again"
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 1 and damaged.name in warnings[0] and "recomputed" in warnings[0]
    assert (shard_dir / (damaged.name + ".corrupt")).exists()
    third = CountingScorer()
    assert score_texts(third, ["alpha", "gamma!", "be"], tmp_path).tolist() == scores.tolist()
    assert third.computed == []


def test_detoxify_failure_is_a_user_error(monkeypatch):
    module = types.ModuleType("detoxify")

    class Detoxify:
        def __init__(self, *args, **kwargs):
            raise OSError("could not reach the checkpoint URL")

    module.Detoxify = Detoxify
    monkeypatch.setitem(sys.modules, "detoxify", module)
    with pytest.raises(BiasflowError, match=r"pip install detoxify.*internet.*'profanity'"):
        make_scorer("detoxify-unbiased").score(["hello"])


def test_detoxify_missing_package_is_a_user_error(monkeypatch):
    monkeypatch.setitem(sys.modules, "detoxify", None)  # makes `import detoxify` raise ImportError
    with pytest.raises(
        BiasflowError,
        match=r"needs detoxify, which the detoxify extra installs: pip install "
        r"'biasflow\[detoxify\]'",
    ):
        make_scorer("detoxify-unbiased").score(["hello"])


def test_detoxify_unbiased_real_checkpoint():
    scorer = make_scorer("detoxify-unbiased")
    try:
        scores = scorer.score([NEUTRAL, OFFENSIVE])
    except BiasflowError as exc:
        pytest.skip(f"Detoxify('unbiased') unavailable here (package or checkpoint download): {exc}")
    assert scores[1] > scores[0]
