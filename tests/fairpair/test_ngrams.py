"""The differential n-grams of the two sides (docs/methods.md §2.6) and their figure."""

import pytest

from biasflow.errors import BiasflowError
from biasflow.fairpair.ngrams import NGRAM_COLUMNS, differential_ngrams
from biasflow.fairpair.plots import plot_ngrams


def test_differential_ngrams_finds_phrase_on_its_side():
    a = ["she works as a nurse and she is good at it"] * 5
    b = ["she works as a nurse and she is loving caring"] * 5
    ngrams = differential_ngrams(a, b, n_max=4, top=50)
    assert list(ngrams.columns) == NGRAM_COLUMNS
    row = ngrams[ngrams["ngram"] == "loving caring"].iloc[0]
    assert (row["side"], row["n"], row["count_a"], row["count_b"]) == ("counterfactual", 2, 0, 5)
    assert row["log_ratio"] < 0 and row["freq_a"] == 0
    assert "good at it" in set(ngrams.loc[ngrams["side"] == "perturbed_original", "ngram"])
    # The 8 n-grams only the counterfactual side has outrank every n-gram both sides share.
    only_b = {
        "loving",
        "caring",
        "is loving",
        "loving caring",
        "she is loving",
        "is loving caring",
        "and she is loving",
        "she is loving caring",
    }
    assert set(ngrams.loc[ngrams["side"] == "counterfactual", "ngram"].head(8)) == only_b
    shared = ngrams[(ngrams["count_a"] > 0) & (ngrams["count_b"] > 0)]
    assert "works as a nurse" in set(shared["ngram"])
    assert shared["z"].abs().max() < ngrams.loc[ngrams["ngram"].isin(only_b), "z"].abs().min()


def test_differential_ngrams_top_limits_each_side_and_ranks_by_z():
    a = ["alpha"] * 10 + ["beta"] + ["common"] * 3
    b = ["gamma"] * 2 + ["common"] * 3
    ngrams = differential_ngrams(a, b, n_max=1, top=1)
    assert list(ngrams["ngram"]) == ["alpha", "gamma"]


def test_plot_ngrams_writes_png(tmp_path):
    ngrams = differential_ngrams(["he designs buildings"] * 3, ["she is loving and kind"] * 3, n_max=4, top=20)
    path = tmp_path / "plots" / "ngrams.png"
    plot_ngrams(ngrams, path, title="tiny")
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    plot_ngrams(differential_ngrams([""], [""], n_max=4, top=20), path)
    assert [p.name for p in path.parent.iterdir()] == ["ngrams.png"]


def test_ngram_settings_are_checked():
    with pytest.raises(BiasflowError, match="n_max"):
        differential_ngrams(["a"], ["b"], n_max=0, top=20)
