"""The identity lexicon: which words name a group; each mention swapped keeping role, case, articles, boundaries."""

from __future__ import annotations

import pytest
from identity_sentences import SENTENCES

from biasflow import bundled
from biasflow.errors import BiasflowError
from biasflow.identity import NEUTRAL, IdentityLexicon
from biasflow.words import indefinite_article

LEXICON = IdentityLexicon.from_file(bundled.bundled("identity/lexicon.yaml"))
RELIGION, GENDER, RACE = (LEXICON.axis(a) for a in ("religion", "gender", "race"))


@pytest.mark.parametrize("axis, text, subgroup, target, expected", [
    # case: as written, upper case, sentence start
    (RELIGION, "My neighbour is a Muslim woman.", "muslim", "christian", "My neighbour is a Christian woman."),
    (RELIGION, "MUSLIMS pray here.", "muslim", "hindu", "HINDUS pray here."),
    (GENDER, "she laughed. she left.", "female", "male", "He laughed. He left."),
    # plural, the faith's name and a possessive keep their form
    (RELIGION, "Muslims say Islam is the Muslim's way.", "muslim", "sikh", "Sikhs say Sikhism is the Sikh's way."),
    # "Christian" is not "Christianity": each is its own form
    (RELIGION, "Christianity and Christians.", "christian", "jewish", "Judaism and Jews."),
    (RELIGION, "Christianity and Christians.", "christian", NEUTRAL, "Faith and people."),
    # a shared word's form from what follows it: determiner before a noun, object otherwise
    (GENDER, "She gave her book to her.", "female", "male", "He gave his book to him."),
    (GENDER, "I saw her at the park with her dog.", "female", "male", "I saw him at the park with his dog."),
    (GENDER, "He saw his mother; the pen is his.", "male", "female", "She saw her mother; the pen is hers."),
    # a dropped adjective takes one space with it; a noun stays a noun before "and"
    (RELIGION, "A Christian and a Christian church.", "christian", NEUTRAL, "A person and a church."),
    # a dropped adjective that began the sentence leaves the next word capitalised
    (RELIGION, "Christian families came. Christian families left.", "christian", NEUTRAL,
     "Families came. Families left."),
    # a phrase across a hyphen or a space; "a"/"an" agree with the word after the swap
    (RACE, "An African American man and Black women.", "black", "white", "A European American man and White women."),
    (RELIGION, "a Muslim, an atheist.", "muslim", "atheist", "an atheist, an atheist."),
    (RELIGION, "An atheist came; AN ATHEIST left.", "atheist", "christian", "A Christian came; A CHRISTIAN left."),
    (RELIGION, "She is an atheist student.", "atheist", NEUTRAL, "She is a student."),
    # a noun and an adjective of one spelling: the role from where it stands
    (RELIGION, "This is Christian, said a Christian.", "christian", "jewish", "This is Jewish, said a Jew."),
    (RELIGION, "Every Christian I know.", "christian", "jewish", "Every Jew I know."),
    (RELIGION, "The Christian prayed, and the Christian one stayed.", "christian", "jewish",
     "The Jew prayed, and the Jewish one stayed."),
    # a sentence naming another group: only the text's own group's words change
    (RELIGION, "A Christian and a Muslim met.", "christian", "hindu", "A Hindu and a Muslim met."),
])
def test_each_mention_is_swapped_in_its_form_and_case(axis, text, subgroup, target, expected):
    mentions, variants = axis.variants(text, subgroup, [target])
    assert variants == {target: expected}
    assert mentions >= 1


@pytest.mark.parametrize("axis, text, subgroup", [
    (GENDER, "The manager handed over the mantle.", "male"),         # "man" inside words
    (RELIGION, "Christianityx and Muslimish food.", "christian"),    # longer words that start with one
    (GENDER, "Shelter her_name", "female"),                          # an underscore joins a word
    (RELIGION, "A Muslim met a Hindu.", "christian"),                # other groups only
])
def test_words_inside_other_words_or_of_other_groups_are_not_mentions(axis, text, subgroup):
    assert axis.variants(text, subgroup, ["jewish" if axis is RELIGION else NEUTRAL]) == (0, {})


@pytest.mark.parametrize("axis, position, sentences, neutral", [
    pytest.param(axis, *entry, id=f"{axis}-{entry[0]}") for axis, entries in SENTENCES.items() for entry in entries
])
def test_each_subgroups_sentence_becomes_every_others_and_one_neutral_sentence(axis, position, sentences, neutral):
    """Predicative, attributive, noun and possessive places on every axis: the swap keeps the word's role.

    Every subgroup's sentence (tests/identity_sentences.py, written by hand) swapped for
    another subgroup is that subgroup's sentence, and swapped for the placeholder is the same
    neutral sentence whichever subgroup it came from.
    """
    lexicon = LEXICON.axis(axis)
    for subgroup, text in sentences.items():
        others = [g for g in sentences if g != subgroup]
        mentions, variants = lexicon.variants(text, subgroup, [*others, NEUTRAL])
        assert mentions == 1, (position, text)
        assert variants == {**{g: sentences[g] for g in others}, NEUTRAL: neutral}, position


@pytest.mark.parametrize("word, article", [
    ("atheist", "an"), ("Islamic", "an"), ("Asian", "an"), ("American", "an"), ("European", "a"), ("Hindu", "a"),
    ("person", "a"), ("hour", "an"), ("university", "a"), ("one", "a"), ("umbrella", "an"),
])
def test_the_indefinite_article_follows_the_sound_of_the_word(word, article):
    assert indefinite_article(word) == article


def test_every_bundled_subgroup_has_every_form_of_its_axis():
    for axis in LEXICON.axes.values():
        for subgroup, forms in axis.words.items():
            assert set(forms) == set(axis.neutral), (axis.axis, subgroup)
    assert set(RELIGION.subgroups) == {"jewish", "christian", "muslim", "hindu", "buddhist", "sikh", "atheist"}
    assert set(RACE.subgroups) == {"black", "white", "asian", "hispanic"}


@pytest.mark.parametrize("text, message", [
    ("religion: [Muslim]\n", "needs `subgroups:`"),
    ("religion:\n  subgroups: {muslim: {noun: Muslim}}\n", "needs `neutral:`"),
    ("religion:\n  subgroups: {muslim: {noun: Muslim}, hindu: {plural: Hindus}}\n  neutral: {noun: person}\n",
     "hindu lacks noun"),
    ("religion:\n  subgroups: {muslim: {noun: Muslim}, islam: {noun: Muslim}}\n  neutral: {noun: person}\n",
     "listed for muslim and islam"),
    ("religion:\n  subgroups: {muslim: {noun: yes}}\n  neutral: {noun: person}\n", "quote words"),
    ("religion:\n  subgroups: {muslim: {noun: Muslim}}\n  neutral: {noun: person}\n  positions: {adj: as_a_noun}\n",
     "positions names 'adj'"),
    ("religion:\n  subgroups: {muslim: {noun: Muslim}}\n  neutral: {noun: person}\n  positions: {noun: subject}\n",
     "position 'subject' of form noun"),
    ("religion:\n  subgroups: {muslim: {adjective: Muslim, noun: Muslim}}\n  neutral: {adjective: '', noun: person}\n",
     "'muslim' is listed under adjective and noun, both read elsewhere"),
    ("religion:\n  subgroups: {muslim: {noun: Muslim}}\n  neutral: {noun: person}\n  extra: 1\n",
     "unknown key(s) extra"),
    ("religion: [\n", "not valid YAML"),
])
def test_a_malformed_lexicon_is_named_with_its_fix(tmp_path, text, message):
    path = tmp_path / "lexicon.yaml"
    path.write_text(text)
    with pytest.raises(BiasflowError, match=message.replace("(", r"\(").replace(")", r"\)")):
        IdentityLexicon.from_file(path)


def test_an_axis_missing_from_a_users_lexicon_says_how_to_go_on(tmp_path):
    path = tmp_path / "lexicon.yaml"
    path.write_text("religion:\n  subgroups: {muslim: {noun: Muslim}}\n  neutral: {noun: person}\n")
    with pytest.raises(BiasflowError, match="has no axis 'race'.*counterfactual and scoring.neutralise off"):
        IdentityLexicon.from_file(path).axis("race")
