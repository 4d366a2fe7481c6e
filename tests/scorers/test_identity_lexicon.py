"""The identity lexicon: which words name a group; each mention swapped keeping role, case, articles, boundaries."""

from __future__ import annotations

import pytest

from biasflow import bundled
from biasflow.errors import BiasflowError
from biasflow.scorers.identity_lexicon import NEUTRAL, IdentityLexicon, Variants
from biasflow.scorers.word_roles import GRADED, HYPHENATED
from biasflow.whole_words import indefinite_article
from scorers.aligned_sentences import SENTENCES, UNSWAPPABLE_FRAMES, unswappable_religion

LEXICON = IdentityLexicon.from_file(bundled.package_path("identity/lexicon.yaml"))
RELIGION, GENDER, RACE = (LEXICON.axis(a) for a in ("religion", "gender", "race"))


@pytest.mark.parametrize(
    ("axis", "text", "subgroup", "target", "expected"),
    [
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
        (
            RELIGION,
            "Christian families came. Christian families left.",
            "christian",
            NEUTRAL,
            "Families came. Families left.",
        ),
        # a phrase across a hyphen or a space; "a"/"an" agree with the word after the swap
        (
            RACE,
            "An African American man and Black women.",
            "black",
            "white",
            "A European American man and White women.",
        ),
        (RELIGION, "a Muslim, an atheist.", "muslim", "atheist", "an atheist, an atheist."),
        (RELIGION, "An atheist came; AN ATHEIST left.", "atheist", "christian", "A Christian came; A CHRISTIAN left."),
        (RELIGION, "She is an atheist student.", "atheist", NEUTRAL, "She is a student."),
        # a noun and an adjective of one spelling: the role from where it stands
        (RELIGION, "This is Christian, said a Christian.", "christian", "jewish", "This is Jewish, said a Jew."),
        (RELIGION, "Every Christian I know.", "christian", "jewish", "Every Jew I know."),
        (
            RELIGION,
            "The Christian prayed, and the Christian one stayed.",
            "christian",
            "jewish",
            "The Jew prayed, and the Jewish one stayed.",
        ),
        # a sentence naming another group: only the text's own group's words change
        (RELIGION, "A Christian and a Muslim met.", "christian", "hindu", "A Hindu and a Muslim met."),
        # issue 39: after a quantifier or determiner and before a verb, the word heads its noun phrase
        (RELIGION, "Every Christian deserves respect.", "christian", "jewish", "Every Jew deserves respect."),
        (RELIGION, "Every Christian deserves respect.", "christian", NEUTRAL, "Every person deserves respect."),
        (RELIGION, "Every Jew deserves respect.", "jewish", NEUTRAL, "Every person deserves respect."),
        (RELIGION, "The Muslim sings.", "muslim", "jewish", "The Jew sings."),
        (RELIGION, "The Muslim sings.", "muslim", NEUTRAL, "The person sings."),
        (RELIGION, "A committed Christian prays daily.", "christian", "jewish", "A committed Jew prays daily."),
        (GENDER, "Every female deserves respect.", "female", "male", "Every man deserves respect."),
        (GENDER, "The female sings.", "female", NEUTRAL, "The person sings."),
        (RACE, "Every Asian deserves respect.", "asian", "black", "Every Black person deserves respect."),
        (RACE, "The Asian sings.", "asian", NEUTRAL, "The person sings."),
        # ... after a copular or change-of-state verb it is a predicate, whatever follows
        (RELIGION, "He became Christian last year.", "christian", "jewish", "He became Jewish last year."),
        (RELIGION, "This remained Christian for years.", "christian", "jewish", "This remained Jewish for years."),
        (RACE, "The choir stayed White for decades.", "white", "asian", "The choir stayed Asian for decades."),
        # ... and before a plural noun, an adjective: by its verb, its object place, a quantifier or a plural determiner
        (RELIGION, "The Christian schools are closed.", "christian", NEUTRAL, "The schools are closed."),
        (RELIGION, "I visited the Christian schools.", "christian", "jewish", "I visited the Jewish schools."),
        (RELIGION, "Most Christian churches are old.", "christian", NEUTRAL, "Most churches are old."),
        (RELIGION, "These Christian schools stay.", "christian", "jewish", "These Jewish schools stay."),
        # an object pronoun before an adverb stays an object; a determiner before "only", "last" or an adverb's noun too
        (GENDER, "I saw her recently.", "female", "male", "I saw him recently."),
        (GENDER, "It is her only garment.", "female", NEUTRAL, "It is their only garment."),
        (GENDER, "I read her last book.", "female", "male", "I read his last book."),
        (GENDER, "It was probably his duty.", "male", "female", "It was probably her duty."),
        # a determiner before two words that qualify it
        (
            GENDER,
            "She is the most successful female in town.",
            "female",
            NEUTRAL,
            "The person is the most successful person in town.",
        ),
    ],
)
def test_each_mention_is_swapped_in_its_form_and_case(axis, text, subgroup, target, expected):
    found = axis.variants(text, subgroup, [target])
    assert found.texts == {target: expected}
    assert found.mentions >= 1 and found.unswappable == ""


@pytest.mark.parametrize(
    ("axis", "text", "subgroup"),
    [
        (GENDER, "The manager handed over the mantle.", "male"),  # "man" inside words
        (RELIGION, "Christianityx and Muslimish food.", "christian"),  # longer words that start with one
        (GENDER, "Shelter her_name", "female"),  # an underscore joins a word
        (RELIGION, "A Muslim met a Hindu.", "christian"),  # other groups only
    ],
)
def test_words_inside_other_words_or_of_other_groups_are_not_mentions(axis, text, subgroup):
    assert axis.variants(text, subgroup, ["jewish" if axis is RELIGION else NEUTRAL]) == Variants(0, {})


@pytest.mark.parametrize(
    ("axis", "position", "sentences", "neutral"),
    [pytest.param(axis, *entry, id=f"{axis}-{entry[0]}") for axis, entries in SENTENCES.items() for entry in entries],
)
def test_each_subgroups_sentence_becomes_every_others_and_one_neutral_sentence(axis, position, sentences, neutral):
    """Predicative, attributive, noun and possessive places on every axis: the swap keeps the word's role.

    Every subgroup's sentence (tests/scorers/aligned_sentences.py, written by hand) swapped
    for another subgroup is that subgroup's sentence, and swapped for the placeholder is the
    same neutral sentence whichever subgroup it came from, or none for every subgroup alike
    where the role has no neutral form (a predicate).
    """
    lexicon = LEXICON.axis(axis)
    for subgroup, text in sentences.items():
        others = [g for g in sentences if g != subgroup]
        found = lexicon.variants(text, subgroup, [*others, NEUTRAL])
        assert found.mentions == 1, (position, text)
        swapped = {g: sentences[g] for g in others}
        assert found.texts == (swapped if neutral is None else {**swapped, NEUTRAL: neutral}), (position, text)
        assert (found.no_neutral != "") == (neutral is None), (position, text)


@pytest.mark.parametrize(("why", "frame"), UNSWAPPABLE_FRAMES)
def test_a_form_no_swap_keeps_grammatical_is_unswappable_for_every_subgroup_alike(why, frame):
    """No variants and the same reason for each subgroup's sentence, so identical contents are left out together."""
    for subgroup, text in unswappable_religion(frame).items():
        others = [g for g in RELIGION.subgroups if g != subgroup]
        assert RELIGION.variants(text, subgroup, [*others, NEUTRAL]) == Variants(1, {}, why), text


@pytest.mark.parametrize(
    ("axis", "sentences", "why"),
    [
        (GENDER, {"female": "The baby is very female.", "male": "The baby is very male."}, GRADED),
        (
            RACE,
            {
                "black": "A Black-owned shop.",
                "white": "A White-owned shop.",
                "asian": "An Asian-owned shop.",
                "hispanic": "A Hispanic-owned shop.",
            },
            HYPHENATED,
        ),
        (
            RACE,
            {
                "black": "The anti-Black law.",
                "white": "The anti-White law.",
                "asian": "The anti-Asian law.",
                "hispanic": "The anti-Hispanic law.",
            },
            HYPHENATED,
        ),
    ],
)
def test_gender_and_race_words_in_a_form_no_swap_keeps_grammatical_are_unswappable(axis, sentences, why):
    for subgroup, text in sentences.items():
        assert axis.variants(text, subgroup, [NEUTRAL]) == Variants(1, {}, why), text


@pytest.mark.parametrize(
    ("word", "article"),
    [
        ("atheist", "an"),
        ("Islamic", "an"),
        ("Asian", "an"),
        ("American", "an"),
        ("European", "a"),
        ("Hindu", "a"),
        ("person", "a"),
        ("hour", "an"),
        ("university", "a"),
        ("one", "a"),
        ("umbrella", "an"),
    ],
)
def test_the_indefinite_article_follows_the_sound_of_the_word(word, article):
    assert indefinite_article(word) == article


def test_every_bundled_subgroup_has_every_form_of_its_axis():
    for axis in LEXICON.axes.values():
        for subgroup, forms in axis.words.items():
            assert set(forms) == set(axis.neutral), (axis.axis, subgroup)
    assert set(RELIGION.subgroups) == {"jewish", "christian", "muslim", "hindu", "buddhist", "sikh", "atheist"}
    assert set(RACE.subgroups) == {"black", "white", "asian", "hispanic"}


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("religion: [Muslim]\n", "needs `subgroups:`"),
        ("religion:\n  subgroups: {muslim: {noun: Muslim}}\n", "needs `neutral:`"),
        (
            "religion:\n  subgroups: {muslim: {noun: Muslim}, hindu: {plural: Hindus}}\n  neutral: {noun: person}\n",
            "hindu lacks noun",
        ),
        (
            "religion:\n  subgroups: {muslim: {noun: Muslim}, islam: {noun: Muslim}}\n  neutral: {noun: person}\n",
            "listed for muslim and islam",
        ),
        ("religion:\n  subgroups: {muslim: {noun: yes}}\n  neutral: {noun: person}\n", "quote words"),
        (
            "religion:\n  subgroups: {muslim: {noun: Muslim}}\n  neutral: {noun: person}\n  positions: {adj: "
            "as_a_noun}\n",
            "positions names 'adj'",
        ),
        (
            "religion:\n  subgroups: {muslim: {noun: Muslim}}\n  neutral: {noun: person}\n  positions: {noun: "
            "subject}\n",
            "position 'subject' of form noun",
        ),
        (
            "religion:\n  subgroups: {muslim: {adjective: Muslim, noun: Muslim}}\n  neutral: {adjective: '', noun: "
            "person}\n",
            "'muslim' is listed under adjective and noun, both read elsewhere",
        ),
        (
            "religion:\n  subgroups: {muslim: {noun: Muslim}}\n  neutral: {noun: person}\n  extra: 1\n",
            "unknown key(s) extra",
        ),
        (
            "religion:\n  subgroups: {unswappable: {noun: Muslim}}\n  neutral: {noun: person}\n",
            "unswappable names a variant, not a subgroup",
        ),
        ("religion:\n  subgroups: {muslim: {noun: Muslim}}\n  neutral: {noun: 3}\n", "needs `neutral:`"),
        (
            "religion:\n  subgroups: {muslim: {noun: Muslim}}\n  neutral: {noun: person}\n"
            "  no_neutral: {muslim: noun}\n",
            "`no_neutral:` maps a subgroup",
        ),
        (
            "religion:\n  subgroups: {muslim: {noun: Muslim}}\n  neutral: {noun: person}\n"
            "  no_neutral: {hindu: [noun]}\n",
            "no_neutral names 'hindu'",
        ),
        (
            "religion:\n  subgroups: {muslim: {noun: Muslim}}\n  neutral: {noun: person}\n"
            "  no_neutral: {muslim: [faith]}\n",
            "no_neutral gives muslim form(s) faith it does not have",
        ),
        ("religion: [\n", "not valid YAML"),
    ],
)
def test_a_malformed_lexicon_is_named_with_its_fix(tmp_path, text, message):
    path = tmp_path / "lexicon.yaml"
    path.write_text(text)
    with pytest.raises(BiasflowError, match=message.replace("(", r"\(").replace(")", r"\)")):
        IdentityLexicon.from_file(path)


def test_an_axis_missing_from_a_users_lexicon_says_how_to_go_on(tmp_path):
    path = tmp_path / "lexicon.yaml"
    path.write_text("religion:\n  subgroups: {muslim: {noun: Muslim}}\n  neutral: {noun: person}\n")
    with pytest.raises(BiasflowError, match=r"has no axis 'race'.*counterfactual and scoring\.neutralise off"):
        IdentityLexicon.from_file(path).axis("race")
