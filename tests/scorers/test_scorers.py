"""Scorers and the on-disk score cache."""

import logging
import sys
import types

import numpy as np
import pandas as pd
import pytest

from biasflow.errors import BiasflowError
from biasflow.scorers import SCORERS, Scorer, get_scorer, score_texts

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
        assert get_scorer(name, **options).name == name


def test_unknown_scorer_lists_valid_names():
    with pytest.raises(BiasflowError, match="unknown scorer 'toxic'.*detoxify-unbiased, profanity, vader, honest"):
        get_scorer("toxic")
    with pytest.raises(BiasflowError, match="bad options"):
        get_scorer("vader", colour="red")


def test_profanity_ranks_offensive_above_neutral():
    scores = get_scorer("profanity").score([NEUTRAL, OFFENSIVE])
    assert scores.dtype == np.float64 and ((0 <= scores) & (scores <= 1)).all()
    assert scores[1] > scores[0]


def test_vader_sign_and_range():
    scores = get_scorer("vader").score(["I love this, it is wonderful!", "I hate this, it is awful.", ""])
    assert scores[0] > 0 > scores[1]
    assert scores[2] == 0.0


@pytest.mark.parametrize("name", ["profanity", "vader"])
def test_missing_texts_score_as_empty_string(name):
    scorer = get_scorer(name)
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

    def killed_mid_write(self, path, **kwargs):
        open(path, "w").write("half a parquet file")
        raise KeyboardInterrupt

    monkeypatch.setattr(pd.DataFrame, "to_parquet", killed_mid_write)
    with pytest.raises(KeyboardInterrupt):
        score_texts(scorer, ["d"], tmp_path)
    monkeypatch.undo()
    assert sorted((tmp_path / "counting").iterdir()) == shards  # no partial shard left

    # a temporary file left by a SIGKILL between write and rename is never read as a shard
    (tmp_path / "counting" / ".abc.parquet.x1y2.tmp").write_text("half a parquet file")
    scorer.computed.clear()
    assert score_texts(scorer, ["d", "a"], tmp_path).tolist() == [1, 1]
    assert scorer.computed == ["d"]


def test_cache_is_per_scorer_and_optional(tmp_path):
    score_texts(CountingScorer(), ["x"], tmp_path)
    vader = get_scorer("vader")
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


def test_corrupt_shard_is_a_user_error(tmp_path):
    (tmp_path / "counting").mkdir()
    (tmp_path / "counting" / "bad.parquet").write_text("not parquet")
    with pytest.raises(BiasflowError, match="bad.parquet.*Delete that file"):
        score_texts(CountingScorer(), ["x"], tmp_path)


def test_detoxify_failure_is_a_user_error(monkeypatch):
    module = types.ModuleType("detoxify")

    class Detoxify:
        def __init__(self, *args, **kwargs):
            raise OSError("could not reach the checkpoint URL")

    module.Detoxify = Detoxify
    monkeypatch.setitem(sys.modules, "detoxify", module)
    with pytest.raises(BiasflowError, match="pip install detoxify.*internet.*'profanity'"):
        get_scorer("detoxify-unbiased").score(["hello"])


def test_detoxify_missing_package_is_a_user_error(monkeypatch):
    monkeypatch.setitem(sys.modules, "detoxify", None)  # makes `import detoxify` raise ImportError
    with pytest.raises(BiasflowError, match="pip install detoxify"):
        get_scorer("detoxify-unbiased").score(["hello"])


def test_detoxify_unbiased_real_checkpoint():
    scorer = get_scorer("detoxify-unbiased")
    try:
        scores = scorer.score([NEUTRAL, OFFENSIVE])
    except BiasflowError as exc:
        pytest.skip(f"Detoxify('unbiased') unavailable here (package or checkpoint download): {exc}")
    assert scores[1] > scores[0]
