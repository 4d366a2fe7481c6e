"""Every FPR draw is keyed by names: adding a model, or shuffling the rows, moves no other model's number.

docs/methods.md §3.3-3.4, §3.6, §3.8. ``biasflow fpr-gaps`` (with the paired comparisons) and the summary step (gap
spans with their null) run on models B and C, then on a model A (sorting first) added and every file's rows shuffled;
every number of B and C must be byte-identical. (Net significance counts over models and corrects over all their tests:
it pools the models by definition.) The classifiers' own draws (k-shot demonstrations, fallback labels, the tuning's
shuffle) depend on no other sentence and on no row order either.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from pandas.testing import assert_frame_equal

from biasflow.bundled import package_path
from biasflow.cli import main
from biasflow.fpr.predictions import LABELS
from biasflow.fpr.prompting import load_prompt_templates, prompt_classify
from biasflow.fpr.steps import SummarySettings, summary
from unrendered_figures import unrendered

GROUPS = {"A": ["a1", "a2"], "B": ["b1", "b2"], "C": ["c1", "c2"]}
KEYS = ["model", "probe", "category", "class", "group"]


def predictions(model: str, seed: int, templates: int = 6, runs: int = 3) -> pd.DataFrame:
    """One model's predictions of two categories' templates, some of them wrong at random; unmarked variants too."""
    rng = np.random.default_rng(seed)
    rows = []
    for run in range(runs):
        for category in ("race", "religion"):
            for t in range(templates):
                gold = t % 3
                terms = [(group, term) for group, names in GROUPS.items() for term in names] + [("unmarked", "")]
                for group, term in terms:
                    pred = int(rng.choice([c for c in range(3) if c != gold])) if rng.random() < 0.3 else gold
                    rows.append(
                        {
                            "y_true": gold,
                            "y_pred": pred,
                            "category": category,
                            "group": group,
                            "text": f"{category} template {t} with {term}",
                            "model": model,
                            "run_id": f"r{run}",
                            "template_id": f"{category}-t{t}",
                            "marked": group != "unmarked",
                        }
                    )
    return pd.DataFrame(rows)


def write(tmp_path, models: list[str], shuffle: bool) -> list[str]:
    """One TSV per model (its rows shuffled with ``shuffle``), in the order given."""
    paths = []
    for model in models:
        table = predictions(model, seed=ord(model[-1]))
        if shuffle:
            table = table.sample(frac=1, random_state=len(models))
        tmp_path.mkdir(parents=True, exist_ok=True)
        path = tmp_path / f"{model}.tsv"
        table.to_csv(path, sep="\t", index=False)
        paths.append(str(path))
    return paths


def run(tmp_path, models: list[str], shuffle: bool) -> dict[str, pd.DataFrame]:
    """The gap table of ``biasflow fpr-gaps`` and the summary step's spans and markedness, of B and C, sorted."""
    paths = write(tmp_path, models, shuffle)
    out = tmp_path / "gaps.csv"
    compared = tmp_path / "comparisons.csv"
    assert (
        main(
            [
                "fpr-gaps",
                "--predictions",
                *paths,
                "--out",
                str(out),
                "--bootstrap",
                "30",
                "--null-draws",
                "25",
                "--seed",
                "4",
                "--comparisons",
                str(compared),
            ]
        )
        == 0
    )
    outputs = {name: str(tmp_path / f"{name}.csv") for name in ("spans", "net", "markedness", "variance")}
    summary(
        gap_paths={"p": str(out)},
        prediction_paths={"p": paths},
        comparison_paths={"p": str(compared)},
        settings=SummarySettings(interval="t", z=1.96, null_draws=25, seed=4),
        outputs={
            **outputs,
            "spans_plot": str(tmp_path / "spans.png"),
            "markedness_plot": str(tmp_path / "markedness.png"),
            "variance_plot": str(tmp_path / "variance.png"),
            "tables_page": str(tmp_path / "tables.html"),
        },
    )
    tables = {
        "gaps": pd.read_csv(out).assign(probe="p"),
        "spans": pd.read_csv(outputs["spans"]),
        "markedness": pd.read_csv(outputs["markedness"]),
        "variance": pd.read_csv(outputs["variance"]),
        # The adjusted p-values correct over every pair of the table, which pools the systems by definition.
        "comparisons": pd.read_csv(compared).drop(columns=["p_holm", "p_bh"]),
    }
    return {name: kept(table) for name, table in tables.items()}


def kept(table: pd.DataFrame) -> pd.DataFrame:
    """The rows of models B and C (the comparisons: of the pair B, C), sorted by their keys."""
    if "model_a" in table:
        pair = table[(table["model_a"] == "B") & (table["model_b"] == "C")]
        return pair.sort_values(["category", "class", "measure", "group"]).reset_index(drop=True)
    keys = [key for key in KEYS if key in table]
    return table[table["model"].isin(["B", "C"])].sort_values(keys).reset_index(drop=True)


def test_adding_a_model_and_shuffling_rows_moves_no_number_of_the_others(tmp_path, monkeypatch):
    unrendered(monkeypatch)
    alone = run(tmp_path / "bc", ["B", "C"], shuffle=False)
    added = run(tmp_path / "abc", ["C", "A", "B"], shuffle=True)
    assert alone["gaps"]["negative_FPR_gap_lo"].notna().all(), "the bootstrap intervals are drawn"
    assert alone["spans"]["negative_span_p"].notna().any(), "the span null is drawn"
    assert alone["comparisons"][["difference_lo", "p"]].notna().all().all(), "the pair's draws are drawn"
    for name, table in alone.items():
        assert_frame_equal(added[name], table, check_exact=True, obj=name)


def test_a_prompted_label_depends_on_no_other_sentence_and_no_row_order():
    """k-shot with answers naming no label: the same demonstrations and fallback label per sentence in both runs."""
    template = load_prompt_templates(package_path("classify"), "k_shot")
    labelled = pd.DataFrame(
        [(f"{name} example {i}", y) for y, name in enumerate(LABELS) for i in range(6)], columns=["text", "label"]
    )
    texts = [f"sentence {i}" for i in range(40)]

    def classify(texts, labelled):
        prompts = []

        def generate(requests):
            prompts.extend(r.prompt for r in requests)
            return [" hmm"] * len(requests)

        labels, n_fallback = prompt_classify(texts, generate, "k_shot", template, run_seed=5, labelled=labelled, k=9)
        assert n_fallback == len(texts)
        return dict(zip(texts, zip(labels.tolist(), prompts, strict=True), strict=True))

    alone = classify(texts[:20], labelled)
    added = classify([*texts[::-1]], labelled.sample(frac=1, random_state=0))
    assert alone == {text: added[text] for text in alone}
    assert len({label for label, _ in alone.values()}) == 3, "the fallback labels are drawn"


def test_a_tuned_classifier_does_not_depend_on_the_order_of_the_labelled_rows(tiny_model_dir, tmp_path):
    """Soft-prompt tuning on the labelled rows in two orders: the same epochs' losses and the same logits."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from biasflow.fpr.tuning import ClassifierSettings, soft_prompt_train
    from specs import make_spec

    tokenizer = AutoTokenizer.from_pretrained(tiny_model_dir)
    tokenizer.add_tokens(["negative", "neutral", "positive"])  # the label words, as tokens of their own
    torch.manual_seed(0)
    model = AutoModelForCausalLM.from_pretrained(tiny_model_dir)
    model.resize_token_embeddings(len(tokenizer), mean_resizing=False)
    tokenizer.save_pretrained(tmp_path / "model")
    model.save_pretrained(tmp_path / "model")
    spec = make_spec(name="tiny", backend="transformers", model=str(tmp_path / "model"))
    texts = [
        f"the {word} was {mood}" for word in ("bread", "teacher", "town", "stage") for mood in ("good", "bad", "ok")
    ]
    labels = [i % 3 for i in range(len(texts))]
    settings = ClassifierSettings.of("soft_prompt", {"method": "soft_prompt", "epochs": 2, "val_fraction": 0.25})
    order = np.random.default_rng(0).permutation(len(texts))
    runs = [
        soft_prompt_train(
            spec,
            str(tmp_path / "cache"),
            [texts[i] for i in rows],
            [labels[i] for i in rows],
            settings=settings,
            seed=1,
        )
        for rows in (range(len(texts)), order)
    ]
    assert runs[0].history == runs[1].history
    np.testing.assert_array_equal(runs[0].logits(texts), runs[1].logits(texts))
