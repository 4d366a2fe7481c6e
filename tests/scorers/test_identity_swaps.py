"""Issue 48: each mention swapped to another subgroup and to a neutral form a person would write, or to none.

Every sentence below is written by hand with its expected swap to one other subgroup and its
expected neutral text, or ``NO_NEUTRAL`` where no neutral word keeps the sentence's sense (a
predicate, "atheism": docs/methods.md §5.5), or ``UNSWAPPABLE`` where no swap keeps it
grammatical. ``REFEREE`` holds the sentences the referee found wrong; ``OWN`` covers every
axis in determiners, quantifiers, "a"/"an", plurals, singular and plural possessives,
capitals, sentence starts, hyphens, copular and change-of-state verbs, subjects, objects, and
one spelling read as a noun or an adjective.
"""

from __future__ import annotations

import pytest

from biasflow import bundled
from biasflow.scorers.identity_lexicon import NEUTRAL, NO_NEUTRAL, UNSWAPPABLE, IdentityLexicon

LEXICON = IdentityLexicon.from_file(bundled.package_path("identity/lexicon.yaml"))

# (axis, the text's own subgroup, text, target subgroup, expected swap, expected neutral text or why none)
REFEREE = [
    # a plural possessive's bare apostrophe takes the s its new word needs
    (
        "religion",
        "muslim",
        "The Muslims' prayer hall needs a new roof.",
        "hindu",
        "The Hindus' prayer hall needs a new roof.",
        "The people's prayer hall needs a new roof.",
    ),
    (
        "gender",
        "female",
        "The girls' room is down the hall.",
        "male",
        "The boys' room is down the hall.",
        "The children's room is down the hall.",
    ),
    (
        "religion",
        "jewish",
        "The Jews' quarter was rebuilt.",
        "christian",
        "The Christians' quarter was rebuilt.",
        "The people's quarter was rebuilt.",
    ),
    (
        "religion",
        "hindu",
        "Many Hindus' homes were flooded.",
        "sikh",
        "Many Sikhs' homes were flooded.",
        "Many people's homes were flooded.",
    ),
    # a capital the lexicon does not write is not passed on; lower case is
    (
        "religion",
        "atheist",
        "He is an Atheist, not a priest.",
        "christian",
        "He is a Christian, not a priest.",
        "He is a person, not a priest.",
    ),
    ("race", "black", "She painted the black door.", "white", "She painted the white door.", "She painted the door."),
    # a predicate has no neutral form; "atheism" has none that keeps the sense
    ("religion", "sikh", "They seem Sikh to me.", "hindu", "They seem Hindu to me.", NO_NEUTRAL),
    ("religion", "muslim", "She is no longer Muslim.", "jewish", "She is no longer Jewish.", NO_NEUTRAL),
    (
        "religion",
        "hindu",
        "I was born Hindu and stayed Hindu.",
        "buddhist",
        "I was born Buddhist and stayed Buddhist.",
        NO_NEUTRAL,
    ),
    ("religion", "buddhist", "My uncle became Buddhist.", "muslim", "My uncle became Muslim.", NO_NEUTRAL),
    ("race", "hispanic", "Her father is Latino.", "white", "Her father is White.", NO_NEUTRAL),
    ("religion", "atheist", "Atheism is growing.", "christian", "Christianity is growing.", NO_NEUTRAL),
    ("religion", "atheist", "He converted to atheism.", "hindu", "He converted to Hinduism.", NO_NEUTRAL),
    # a plural becomes a plural of the same kind
    ("race", "hispanic", "Hispanics vote early here.", "asian", "Asians vote early here.", "People vote early here."),
    ("race", "white", "Caucasians vote early here.", "black", "Blacks vote early here.", "People vote early here."),
    ("race", "white", "Caucasians vote early here.", "asian", "Asians vote early here.", "People vote early here."),
    (
        "race",
        "hispanic",
        "Hispanic Americans vote early here.",
        "asian",
        "Asian Americans vote early here.",
        "Americans vote early here.",
    ),
]

OWN = [
    # religion: articles and determiners
    (
        "religion",
        "christian",
        "An old Christian hymn played.",
        "sikh",
        "An old Sikh hymn played.",
        "An old hymn played.",
    ),
    (
        "religion",
        "christian",
        "A Christian nurse helped me.",
        "atheist",
        "An atheist nurse helped me.",
        "A nurse helped me.",
    ),
    ("religion", "atheist", "An atheist spoke first.", "hindu", "A Hindu spoke first.", "A person spoke first."),
    ("religion", "atheist", "An atheist group met.", "muslim", "A Muslim group met.", "A group met."),
    (
        "religion",
        "muslim",
        "Every Muslim I know fasts.",
        "sikh",
        "Every Sikh I know fasts.",
        "Every person I know fasts.",
    ),
    (
        "religion",
        "jewish",
        "These Jewish families arrived in May.",
        "buddhist",
        "These Buddhist families arrived in May.",
        "These families arrived in May.",
    ),
    ("religion", "sikh", "Both Sikhs smiled.", "christian", "Both Christians smiled.", "Both people smiled."),
    (
        "religion",
        "buddhist",
        "No Buddhist would say that.",
        "jewish",
        "No Jew would say that.",
        "No person would say that.",
    ),
    # religion: possessives
    (
        "religion",
        "hindu",
        "The Hindu's shop opens at six.",
        "muslim",
        "The Muslim's shop opens at six.",
        "The person's shop opens at six.",
    ),
    (
        "religion",
        "christian",
        "The Christians' march was peaceful.",
        "atheist",
        "The atheists' march was peaceful.",
        "The people's march was peaceful.",
    ),
    ("religion", "atheist", "Atheists' rights matter.", "muslim", "Muslims' rights matter.", "People's rights matter."),
    (
        "religion",
        "sikh",
        "The Sikhs’ festival began.",
        "christian",
        "The Christians’ festival began.",
        "The people’s festival began.",
    ),
    # religion: a closing quote is no possessive
    (
        "religion",
        "muslim",
        "He wrote 'Muslims' on the card.",
        "hindu",
        "He wrote 'Hindus' on the card.",
        "He wrote 'people' on the card.",
    ),
    # religion: capitals, lower case, sentence starts
    (
        "religion",
        "muslim",
        "MUSLIMS ARE WELCOME HERE.",
        "jewish",
        "JEWS ARE WELCOME HERE.",
        "PEOPLE ARE WELCOME HERE.",
    ),
    (
        "religion",
        "muslim",
        "THE MUSLIMS' HALL IS OPEN.",
        "hindu",
        "THE HINDUS' HALL IS OPEN.",
        "THE PEOPLE'S HALL IS OPEN.",
    ),
    ("religion", "jewish", "A JEWISH BAKERY OPENED.", "christian", "A CHRISTIAN BAKERY OPENED.", "A BAKERY OPENED."),
    (
        "religion",
        "hindu",
        "I met my hindu neighbours today.",
        "christian",
        "I met my christian neighbours today.",
        "I met my neighbours today.",
    ),
    (
        "religion",
        "jewish",
        "Jews and Christians met.",
        "buddhist",
        "Buddhists and Christians met.",
        "People and Christians met.",
    ),
    # religion: hyphens
    ("religion", "sikh", "The Sikh-run kitchen feeds everyone.", "hindu", None, UNSWAPPABLE),
    ("religion", "muslim", "He is anti-Muslim.", "hindu", None, UNSWAPPABLE),
    # religion: copular and change-of-state verbs
    ("religion", "christian", "She grew up Christian.", "jewish", "She grew up Jewish.", NO_NEUTRAL),
    (
        "religion",
        "buddhist",
        "He turned Buddhist after the trip.",
        "sikh",
        "He turned Sikh after the trip.",
        NO_NEUTRAL,
    ),
    ("religion", "jewish", "She remains Jewish.", "muslim", "She remains Muslim.", NO_NEUTRAL),
    ("religion", "atheist", "I'm atheist, honestly.", "christian", "I'm Christian, honestly.", NO_NEUTRAL),
    ("religion", "atheist", "Her brother is an atheist.", "sikh", "Her brother is a Sikh.", "Her brother is a person."),
    # religion: subjects and objects, a noun against an adjective of one spelling
    (
        "religion",
        "muslim",
        "She wants to marry a Muslim.",
        "hindu",
        "She wants to marry a Hindu.",
        "She wants to marry a person.",
    ),
    (
        "religion",
        "hindu",
        "We visited an old Hindu temple.",
        "sikh",
        "We visited an old Sikh temple.",
        "We visited an old temple.",
    ),
    ("religion", "christian", "The Christian sat down.", "jewish", "The Jew sat down.", "The person sat down."),
    (
        "religion",
        "christian",
        "The Christian choir sat down.",
        "jewish",
        "The Jewish choir sat down.",
        "The choir sat down.",
    ),
    ("religion", "muslim", "Islam teaches charity.", "buddhist", "Buddhism teaches charity.", "Faith teaches charity."),
    # gender
    (
        "gender",
        "female",
        "Ladies' night is on Friday.",
        "male",
        "Men's night is on Friday.",
        "People's night is on Friday.",
    ),
    ("gender", "male", "The men's choir sang.", "female", "The women's choir sang.", "The people's choir sang."),
    (
        "gender",
        "female",
        "She gave him her scarf.",
        "male",
        "He gave him his scarf.",
        "The person gave him their scarf.",
    ),
    ("gender", "male", "I thanked him yesterday.", "female", "I thanked her yesterday.", "I thanked them yesterday."),
    ("gender", "female", "The new pilot is female.", "male", "The new pilot is male.", NO_NEUTRAL),
    ("gender", "male", "A male nurse helped us.", "female", "A female nurse helped us.", "A nurse helped us."),
    (
        "gender",
        "female",
        "Her sisters' letters arrived.",
        "male",
        "His brothers' letters arrived.",
        "Their siblings' letters arrived.",
    ),
    (
        "gender",
        "male",
        "My father's car broke down.",
        "female",
        "My mother's car broke down.",
        "My parent's car broke down.",
    ),
    ("gender", "female", "The actresses' union met.", "male", "The actors' union met.", "The performers' union met."),
    (
        "gender",
        "male",
        "He became a father in May.",
        "female",
        "She became a mother in May.",
        "The person became a parent in May.",
    ),
    ("gender", "female", "Every woman here votes.", "male", "Every man here votes.", "Every person here votes."),
    (
        "gender",
        "male",
        "Two men and a boy waited.",
        "female",
        "Two women and a girl waited.",
        "Two people and a child waited.",
    ),
    ("gender", "female", "SHE WON.", "male", "HE WON.", "THE PERSON WON."),
    ("gender", "male", "The baby turned out male.", "female", "The baby turned out female.", NO_NEUTRAL),
    ("gender", "female", "The book is hers.", "male", "The book is his.", "The book is theirs."),
    ("gender", "female", "A female-led team won.", "male", None, UNSWAPPABLE),
    ("gender", "male", "He hurt himself.", "female", "She hurt herself.", "The person hurt themselves."),
    (
        "gender",
        "female",
        "The Woman in the photo smiled.",
        "male",
        "The man in the photo smiled.",
        "The person in the photo smiled.",
    ),
    (
        "gender",
        "male",
        "Their husbands' jobs are far away.",
        "female",
        "Their wives' jobs are far away.",
        "Their spouses' jobs are far away.",
    ),
    ("gender", "female", "I met her mother.", "male", "I met his father.", "I met their parent."),
    ("gender", "male", "The boy's dog barked.", "female", "The girl's dog barked.", "The child's dog barked."),
    (
        "gender",
        "female",
        "My daughters' school is near.",
        "male",
        "My sons' school is near.",
        "My children's school is near.",
    ),
    ("gender", "male", "She asked him.", "female", "She asked her.", "She asked them."),
    # race
    (
        "race",
        "black",
        "The black students formed a club.",
        "white",
        "The white students formed a club.",
        "The students formed a club.",
    ),
    ("race", "asian", "An Asian American wrote it.", "black", "An African American wrote it.", "An American wrote it."),
    ("race", "white", "The Whites' farm is big.", "asian", "The Asians' farm is big.", "The people's farm is big."),
    (
        "race",
        "black",
        "African-Americans' votes count.",
        "hispanic",
        "Hispanic Americans' votes count.",
        "Americans' votes count.",
    ),
    ("race", "asian", "She seems Asian to me.", "hispanic", "She seems Hispanic to me.", NO_NEUTRAL),
    ("race", "black", "A Black-owned shop opened.", "white", None, UNSWAPPABLE),
    (
        "race",
        "hispanic",
        "Every Latina here works hard.",
        "black",
        "Every Black person here works hard.",
        "Every person here works hard.",
    ),
    (
        "race",
        "white",
        "I met a White person at the game.",
        "asian",
        "I met an Asian person at the game.",
        "I met a person at the game.",
    ),
    ("race", "asian", "ASIANS ARE WELCOME.", "white", "WHITES ARE WELCOME.", "PEOPLE ARE WELCOME."),
    (
        "race",
        "black",
        "The Black family moved in.",
        "hispanic",
        "The Hispanic family moved in.",
        "The family moved in.",
    ),
    (
        "race",
        "white",
        "The photo showed Caucasian faces.",
        "black",
        "The photo showed Black faces.",
        "The photo showed faces.",
    ),
    ("race", "hispanic", "Latinos' stories matter.", "asian", "Asians' stories matter.", "People's stories matter."),
    (
        "race",
        "asian",
        "My neighbour, who is Asian, cooks.",
        "black",
        "My neighbour, who is Black, cooks.",
        NO_NEUTRAL,
    ),
    ("race", "white", "white people live here.", "black", "Black people live here.", "People live here."),
    ("race", "hispanic", "Hispanic-Americans marched.", "white", "European Americans marched.", "Americans marched."),
    (
        "race",
        "black",
        "A Black teacher and an Asian nurse spoke.",
        "white",
        "A White teacher and an Asian nurse spoke.",
        "A teacher and an Asian nurse spoke.",
    ),
    (
        "race",
        "asian",
        "Two Asians and a Hispanic sat.",
        "black",
        "Two Blacks and a Hispanic sat.",
        "Two people and a Hispanic sat.",
    ),
    (
        "race",
        "white",
        "Caucasians' claims were heard.",
        "hispanic",
        "Hispanics' claims were heard.",
        "People's claims were heard.",
    ),
]


@pytest.mark.parametrize(("axis", "subgroup", "text", "target", "swapped", "neutral"), REFEREE + OWN)
def test_each_sentence_gets_its_hand_written_swap_and_neutral_form(axis, subgroup, text, target, swapped, neutral):
    found = LEXICON.axis(axis).variants(text, subgroup, [target, NEUTRAL])
    assert found.mentions >= 1
    if neutral == UNSWAPPABLE:
        assert found.texts == {} and found.unswappable != ""
    elif neutral == NO_NEUTRAL:
        assert found.texts == {target: swapped} and found.no_neutral != "" and found.unswappable == ""
    else:
        assert found.texts == {target: swapped, NEUTRAL: neutral}
        assert found.no_neutral == "" and found.unswappable == ""


def test_the_sentences_cover_every_axis_and_outcome():
    """At least 60 sentences of our own, each axis with a neutral form, none, and an unswappable one."""
    assert len(OWN) >= 60
    for axis in ("gender", "religion", "race"):
        outcomes = {n if n in (NO_NEUTRAL, UNSWAPPABLE) else "neutral" for a, *_, n in OWN if a == axis}
        assert outcomes == {"neutral", NO_NEUTRAL, UNSWAPPABLE}, axis


@pytest.mark.parametrize(
    ("text", "subgroup", "why"),
    [
        (
            "My uncle became Buddhist.",
            "buddhist",
            "a predicative word, which no neutral word replaces keeping the sense",
        ),
        ("Atheism is growing.", "atheist", "atheist's faith word, whose neutral word would change the meaning"),
    ],
)
def test_a_text_without_a_neutral_form_says_why(text, subgroup, why):
    assert LEXICON.axis("religion").variants(text, subgroup, [NEUTRAL]).no_neutral == why


def test_another_religions_faith_keeps_its_neutral_word():
    """Only atheism's name lacks a neutral form: "converted to Islam" → "converted to faith" keeps the sense."""
    found = LEXICON.axis("religion").variants("He converted to Islam.", "muslim", [NEUTRAL])
    assert found.texts == {NEUTRAL: "He converted to faith."}
