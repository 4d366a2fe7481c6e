"""Template probes: loaders, placeholder expansion, unmarked variants, bundled sets."""

from __future__ import annotations

import pandas as pd
import pytest

from biasflow.bundled import package_path
from biasflow.errors import BiasflowError
from biasflow.fpr.predictions import UNMARKED
from biasflow.fpr.probes import (
    PROBE_SAMPLE_COLUMNS,
    expand,
    load_identity_terms,
    load_labelled,
    load_templates,
    probe_samples,
)

BUNDLED_DIR = package_path("probes")
TERMS = pd.DataFrame(
    [
        ("race", "Asian", "Asian", "Asian person"),
        ("race", "Black", "Black", "Black person"),
        ("race", "White", "White", "White person"),
        ("age", "old", "elderly", "elderly person"),
        ("age", "young", "young", "young person"),
    ],
    columns=["attribute", "group", "term", "np"],
)


def templates(*rows):
    return pd.DataFrame([(t, "d", s, "") for t, s in rows], columns=["TEMPLATE", "DOMAIN", "SENT", "NER"])


def texts(frame, group):
    return frame[frame["group"] == group]["text"].tolist()


def write(path, text):
    path.write_text(text, encoding="utf-8")
    return path


# --- expansion ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("template", "asian", "black"),
    [
        ("I met the {identity_adj} chef.", "I met the Asian chef.", "I met the Black chef."),
        ("{Identity_adj} chefs cook.", "Asian chefs cook.", "Black chefs cook."),
        ("I met {a:identity_np}.", "I met an Asian person.", "I met a Black person."),
        ("{A:identity_np} came.", "An Asian person came.", "A Black person came."),
        ("The {identity_np} came.", "The Asian person came.", "The Black person came."),
        ("The {race_adj} chef.", "The Asian chef.", "The Black chef."),
        ("{Race_np} here.", "Asian person here.", "Black person here."),
        ("A {race_adj} cartoonist draws.", "An Asian cartoonist draws.", "A Black cartoonist draws."),
        ("I saw an {identity_adj} nurse.", "I saw an Asian nurse.", "I saw a Black nurse."),
    ],
)
def test_every_placeholder_form(template, asian, black):
    samples = expand(templates((template, 2)), TERMS, "race", unmarked=False)
    assert list(samples.columns) == PROBE_SAMPLE_COLUMNS
    assert texts(samples, "Asian") == [asian]
    assert texts(samples, "Black") == [black]
    assert set(samples["y_true"]) == {2}
    assert set(samples["category"]) == {"race"}
    assert samples["marked"].all()


def test_lowercase_capitalisation_and_article_for_age():
    samples = expand(templates(("{Identity_adj} people and {a:identity_np} walk.", 1)), TERMS, "age", unmarked=True)
    assert texts(samples, "old") == ["Elderly people and an elderly person walk."]
    assert texts(samples, "young") == ["Young people and a young person walk."]


def test_template_ids_are_stable_and_shared_with_the_unmarked_variant():
    frame = templates(("A {race_adj} cartoonist draws.", 1), ("The {identity_np} sang.", 2))
    first = expand(frame, TERMS, "race", unmarked=True)
    again = expand(frame.iloc[::-1].reset_index(drop=True), TERMS, "race", unmarked=True)
    ids = dict(zip(first["text"], first["template_id"], strict=True))
    assert ids == dict(zip(again["text"], again["template_id"], strict=True))
    cartoon = first[first["text"].str.contains("cartoonist")]
    assert cartoon["template_id"].nunique() == 1 and len(cartoon) == 4
    assert first["template_id"].nunique() == 2


def test_templates_for_other_attributes_or_unknown_placeholders_are_skipped():
    frame = templates(("The {age_adj} chef.", 0), ("{name} met {a:identity_np}.", 0), ("The {race_adj} chef.", 1))
    samples = expand(frame, TERMS, "race", unmarked=True)
    assert set(samples["y_true"]) == {1}
    with pytest.raises(BiasflowError, match="no template"):
        expand(templates(("No slot here.", 1)), TERMS, "race", unmarked=True)
    with pytest.raises(BiasflowError, match="gender"):
        expand(frame, TERMS, "gender", unmarked=True)


# --- unmarked variants ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("template", "unmarked"),
    [
        ("A {race_adj} cartoonist is a person who draws.", "A cartoonist is a person who draws."),
        ("An {identity_adj} engineer fixed it.", "An engineer fixed it."),
        ("A {identity_adj} optician fits lenses.", "An optician fits lenses."),
        ("I hired an {identity_adj} baker.", "I hired a baker."),
        ("The {identity_adj} nurse smiled.", "The nurse smiled."),
        ("My {identity_adj} tutor helped.", "My tutor helped."),
    ],
)
def test_droppable_slots_give_an_unmarked_variant_with_fixed_article(template, unmarked):
    samples = expand(templates((template, 1)), TERMS, "race", unmarked=True)
    rows = samples[samples["group"] == UNMARKED]
    assert rows["text"].tolist() == [unmarked]
    assert not rows["marked"].any() and samples[samples["group"] != UNMARKED]["marked"].all()
    assert rows["y_true"].tolist() == [1] and rows["category"].tolist() == ["race"]


@pytest.mark.parametrize(
    "template",
    [
        "The {identity_np} was known for kindness.",
        "I met {a:identity_np} today.",
        "{Identity_adj} students arrived.",
        "I read about {identity_adj} history.",
        "The same {race_adj} jokes again.",
        "The {identity_adj} and the rest.",
        "The {identity_adj} chef met the {identity_np}.",
    ],
)
def test_slots_that_cannot_be_dropped_give_no_unmarked_variant(template):
    samples = expand(templates((template, 0)), TERMS, "race", unmarked=True)
    assert UNMARKED not in set(samples["group"])
    assert len(samples) == 3


def test_unmarked_false_emits_only_marked_samples():
    samples = expand(templates(("The {identity_adj} nurse smiled.", 1)), TERMS, "race", unmarked=False)
    assert samples["marked"].all() and len(samples) == 3


# --- loaders ------------------------------------------------------------------------


def test_load_templates_reads_czarnowska_format(tmp_path):
    path = write(
        tmp_path / "t.csv", 'TEMPLATE,DOMAIN,SENT,NER\n"A {race_adj} baker, sadly.",x,0,\nThe {identity_np}.,y,2,O\n'
    )
    frame = load_templates(path)
    assert frame["TEMPLATE"].tolist() == ["A {race_adj} baker, sadly.", "The {identity_np}."]
    assert frame["SENT"].tolist() == [0, 2]


def test_load_templates_without_optional_columns_and_with_duplicates(tmp_path):
    path = write(tmp_path / "t.csv", "TEMPLATE,SENT\nThe {identity_np}.,1\nThe {identity_np}.,1\n")
    frame = load_templates(path)
    assert len(frame) == 1 and frame["DOMAIN"].tolist() == [""]


@pytest.mark.parametrize(
    ("content", "pattern"),
    [
        ("TEMPLATE,DOMAIN,NER\nThe {identity_np}.,x,\n", r"t\.csv.*missing column\(s\) SENT"),
        ("DOMAIN,SENT\nx,1\n", "missing column.*TEMPLATE"),
        ("TEMPLATE,SENT\nThe {identity_np}.,1\nThe {identity_adj} cat.,3\n", r"t\.csv.*SENT on line 3 is '3'"),
        ("TEMPLATE,SENT\nThe {identity_np}.,\n", "SENT on line 2 is ''"),
        ("TEMPLATE,SENT\nThe {identity_np}.,positive\n", "SENT on line 2"),
        ("TEMPLATE,SENT\n,1\n", "TEMPLATE is empty on line 2"),
        ("TEMPLATE,SENT\nThe {identity_np}.,1\nThe {identity_np}.,2\n", "line 3 repeats"),
    ],
)
def test_load_templates_errors_name_file_column_and_line(tmp_path, content, pattern):
    with pytest.raises(BiasflowError, match=pattern):
        load_templates(write(tmp_path / "t.csv", content))


def test_missing_file_is_a_biasflow_error(tmp_path):
    with pytest.raises(BiasflowError, match="file not found"):
        load_templates(tmp_path / "absent.csv")


def test_load_identity_terms(tmp_path):
    path = write(tmp_path / "terms.csv", "attribute,group,term,np\nrace,Asian,Asian,Asian person\n")
    assert load_identity_terms(path).to_dict("records") == [
        {"attribute": "race", "group": "Asian", "term": "Asian", "np": "Asian person"}
    ]
    with pytest.raises(BiasflowError, match=r"missing column.*np"):
        load_identity_terms(write(tmp_path / "a.csv", "attribute,group,term\nrace,A,A\n"))
    with pytest.raises(BiasflowError, match="np is empty on line 2"):
        load_identity_terms(write(tmp_path / "b.csv", "attribute,group,term,np\nrace,A,A,\n"))
    with pytest.raises(BiasflowError, match="appears again on line 3"):
        load_identity_terms(write(tmp_path / "c.csv", "attribute,group,term,np\nrace,A,A,A p\nrace,B,A,A p\n"))


def test_load_labelled(tmp_path):
    frame = load_labelled(write(tmp_path / "l.csv", 'text,label\nGreat.,2\n"Fine, ok.",1\n'), "ternary")
    assert frame.to_dict("records") == [{"text": "Great.", "label": 2}, {"text": "Fine, ok.", "label": 1}]
    with pytest.raises(BiasflowError, match="label on line 2"):
        load_labelled(write(tmp_path / "m.csv", "text,label\nBad.,-1\n"), "ternary")
    with pytest.raises(BiasflowError, match=r"missing column.*label"):
        load_labelled(write(tmp_path / "n.csv", "text,y\nBad.,0\n"), "ternary")


def test_probe_samples_spec_errors():
    with pytest.raises(BiasflowError, match="attribute"):
        probe_samples({"templates": "templates.csv", "terms": "identity_terms.csv", "unmarked": True})
    with pytest.raises(BiasflowError, match="unknown keys colour"):
        probe_samples(
            {
                "templates": "templates.csv",
                "terms": "identity_terms.csv",
                "attribute": "race",
                "unmarked": True,
                "colour": 1,
            }
        )
    with pytest.raises(BiasflowError, match="unmarked"):
        probe_samples(
            {"templates": "templates.csv", "terms": "identity_terms.csv", "attribute": "race", "unmarked": "yes"}
        )
    with pytest.raises(BiasflowError, match=r"templates\.csv: file not found"):
        probe_samples(
            {"templates": "templates.csv", "terms": "identity_terms.csv", "attribute": "race", "unmarked": True}
        )


# --- bundled sets ------------------------------------------------------------------------


def test_bundled_templates_cover_every_label_and_placeholder_form():
    frame = load_templates(BUNDLED_DIR / "templates.csv")
    assert (frame["SENT"].value_counts() >= 8).all() and set(frame["SENT"]) == {0, 1, 2}
    joined = " ".join(frame["TEMPLATE"])
    for form in (
        "{identity_adj}",
        "{Identity_adj}",
        "{a:identity_np}",
        "{A:identity_np}",
        "{identity_np}",
        "{race_adj}",
        "{Race_adj}",
        "{a:race_np}",
    ):
        assert form in joined


@pytest.mark.parametrize("attribute", ["race", "age", "sexuality"])
@pytest.mark.parametrize(
    ("file", "labels"), [("templates.csv", {0, 1, 2}), ("occupations.csv", {1}), ("regard.csv", {0, 1, 2})]
)
def test_bundled_sets_expand(attribute, file, labels):
    samples = probe_samples(
        {
            "templates": BUNDLED_DIR / file,
            "terms": BUNDLED_DIR / "identity_terms.csv",
            "attribute": attribute,
            "unmarked": True,
        }
    )
    marked = samples[samples["marked"]]
    assert marked["group"].nunique() >= 3
    assert set(samples["y_true"]) == labels
    for _, group in marked.groupby("group"):
        assert set(group["y_true"]) == labels
    assert (~samples["marked"]).any()
    assert not samples["text"].str.contains(r"[{}]").any()
    assert not samples["text"].str.contains(r"\b[Aa] [AEIOUaeiou]").any()
    assert not samples["text"].str.contains(r"\b[Aa]n [^AEIOUaeiou]").any()
    assert not samples.duplicated("text").any()


def test_bundled_occupations_and_labelled_set():
    occupations = load_templates(BUNDLED_DIR / "occupations.csv")
    assert len(occupations) >= 10 and set(occupations["SENT"]) == {1}
    assert len(
        expand(occupations, load_identity_terms(BUNDLED_DIR / "identity_terms.csv"), "race", unmarked=True).query(
            "not marked"
        )
    ) == len(occupations)
    labelled = load_labelled(BUNDLED_DIR / "sentiment_labelled.csv", "ternary")
    assert labelled["label"].value_counts().to_dict() == {0: 20, 1: 20, 2: 20}
    terms = load_identity_terms(BUNDLED_DIR / "identity_terms.csv")
    assert {"Asian", "Black", "White", "Hispanic"} <= set(terms.query("attribute == 'race'")["group"])


def test_sst5_labels_collapse_to_three(tmp_path):
    from biasflow.fpr.probes import load_labelled

    path = tmp_path / "sst5.csv"
    pd.DataFrame({"text": list("abcde"), "label": [0, 1, 2, 3, 4]}).to_csv(path, index=False)
    assert load_labelled(path, "sst5")["label"].tolist() == [0, 0, 1, 2, 2]


def test_semeval_intensity_classes_map_as_paper_004(tmp_path):
    from biasflow.fpr.probes import load_labelled

    path = tmp_path / "V-oc.txt"
    classes = [f"{v}: some words" for v in (-3, -2, -1, 0, 1, 2, 3)]
    pd.DataFrame(
        {"ID": range(7), "Tweet": list("abcdefg"), "Affect Dimension": "valence", "Intensity Class": classes}
    ).to_csv(path, sep="\t", index=False)
    assert load_labelled(path, "semeval2018")["label"].tolist() == [0, 0, 1, 1, 1, 2, 2]


def test_sst5_label_out_of_range_is_named(tmp_path):
    from biasflow.fpr.probes import load_labelled

    path = tmp_path / "sst5.csv"
    pd.DataFrame({"text": ["a"], "label": [7]}).to_csv(path, index=False)
    with pytest.raises(BiasflowError, match="SST-5 labels 0-4, found 7"):
        load_labelled(path, "sst5")
