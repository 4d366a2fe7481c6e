"""Hand-written sentences identical but for the group word, on every axis of the bundled lexicon and in every position.

Each entry: the position it exercises, the sentence as each subgroup's own text would
write it (grammatical: its own word for the role, "a" or "an" as that word needs), and the
one neutral sentence every subgroup's text must become. Counterfactual rescoring must turn
each subgroup's sentence into every other's exactly, and all of them into the neutral one
(docs/methods.md §5.5), and must leave out alike every subgroup's sentence of a frame in
``UNSWAPPABLE_FRAMES``; tests/scorers/test_identity_lexicon.py checks the swaps and
tests/cairo/test_scorer_bias.py what the statistics make of them.
"""

from __future__ import annotations

from biasflow.scorers.word_roles import GRADED, HYPHENATED, NO_ROLE, NOUN_OR_VERB

RELIGION_WORDS = {
    # adjective, noun, the noun with its article, the adjective with its article (sentence start), plural, faith,
    # the noun with its article (sentence start)
    "jewish": ("Jewish", "Jew", "a Jew", "A Jewish", "Jews", "Judaism", "A Jew"),
    "christian": ("Christian", "Christian", "a Christian", "A Christian", "Christians", "Christianity", "A Christian"),
    "muslim": ("Muslim", "Muslim", "a Muslim", "A Muslim", "Muslims", "Islam", "A Muslim"),
    "hindu": ("Hindu", "Hindu", "a Hindu", "A Hindu", "Hindus", "Hinduism", "A Hindu"),
    "buddhist": ("Buddhist", "Buddhist", "a Buddhist", "A Buddhist", "Buddhists", "Buddhism", "A Buddhist"),
    "sikh": ("Sikh", "Sikh", "a Sikh", "A Sikh", "Sikhs", "Sikhism", "A Sikh"),
    "atheist": ("atheist", "atheist", "an atheist", "An atheist", "atheists", "atheism", "An atheist"),
}
RELIGION_FRAMES = [
    ("predicative", "My neighbour, who is {adj}, brought soup.", "My neighbour, who is a person, brought soup."),
    ("predicative", "He is {adj} and proud of it.", "He is a person and proud of it."),
    ("attributive", "{a_adj} student asked a question.", "A student asked a question."),
    ("attributive", "The {adj} community held a fair.", "The community held a fair."),
    ("noun", "She said she is {a_noun}.", "She said she is a person."),
    ("noun", "He is a devout {noun}.", "He is a devout person."),
    ("noun", "I met {a_noun} at the market.", "I met a person at the market."),
    ("noun", "The {noun} brought soup.", "The person brought soup."),
    ("possessive", "The {noun}'s house is on the corner.", "The person's house is on the corner."),
    ("plural", "Some {plural} came to dinner.", "Some people came to dinner."),
    ("faith", "She studies {faith} at night.", "She studies faith at night."),
    # after a determiner or quantifier, the noun before a verb (issue 39: "Every Jewish deserves", "Every deserves")
    ("quantifier", "Every {noun} deserves respect.", "Every person deserves respect."),
    ("quantifier", "Each {noun} prays at home.", "Each person prays at home."),
    ("quantifier", "No {noun} was turned away.", "No person was turned away."),
    ("quantifier", "Any {noun} can come in.", "Any person can come in."),
    ("quantifier", "Some {noun} told me so.", "Some person told me so."),
    ("quantifier", "I think every {noun} smiles here.", "I think every person smiles here."),
    # after a copular or change-of-state verb ("He became last year")
    ("copula", "He became {adj} last year.", "He became a person last year."),
    ("copula", "She remained {adj} after the war.", "She remained a person after the war."),
    ("copula", "He seems {adj} to me.", "He seems a person to me."),
    ("copula", "He turned {adj} in college.", "He turned a person in college."),
    ("copula", "She is no longer {adj}.", "She is no longer a person."),
    ("copula", "I'm {adj} now.", "I'm a person now."),
    # the subject of its sentence ("The sings")
    ("subject", "The {noun} sings.", "The person sings."),
    ("subject", "The {noun} smiles.", "The person smiles."),
    ("subject", "{A_noun} sings a song.", "A person sings a song."),
    ("subject", "Here {plural} pray together.", "Here people pray together."),
]
# Contents that name their group in a form no swap can keep grammatical, identical but for the group word:
# (why, per biasflow.scorers.word_roles; the sentence). Every subgroup's sentence gets no variants, for the same reason.
UNSWAPPABLE_FRAMES = [
    (GRADED, "He is very {adj}."),  # "very a person"
    (GRADED, "A deeply {adj} town."),  # "A deeply town"
    (HYPHENATED, "A {adj}-owned shop."),  # "A -owned shop"
    (NOUN_OR_VERB, "The {adj} schools teach."),  # "schools": a plural noun or a verb
    (NO_ROLE, "{Adj} or not, he came."),  # neither before a noun, nor after a determiner or a copula
]


def _religion(frame: str) -> dict[str, str]:
    keys = ("adj", "noun", "a_noun", "a_adj", "plural", "faith", "A_noun")
    return {group: frame.format(**dict(zip(keys, words, strict=True))) for group, words in RELIGION_WORDS.items()}


GENDER = [
    (
        "predicative",
        {"female": "The new doctor is female.", "male": "The new doctor is male."},
        "The new doctor is a person.",
    ),
    ("attributive", {"female": "A female doctor called.", "male": "A male doctor called."}, "A doctor called."),
    (
        "noun",
        {"female": "I met a woman at the market.", "male": "I met a man at the market."},
        "I met a person at the market.",
    ),
    ("possessive", {"female": "The woman's car is red.", "male": "The man's car is red."}, "The person's car is red."),
    ("determiner", {"female": "I borrowed her book.", "male": "I borrowed his book."}, "I borrowed their book."),
    ("possessive pronoun", {"female": "The book is hers.", "male": "The book is his."}, "The book is theirs."),
    (
        "object",
        {"female": "I gave her the keys yesterday.", "male": "I gave him the keys yesterday."},
        "I gave them the keys yesterday.",
    ),
    ("object", {"female": "I saw her at the park.", "male": "I saw him at the park."}, "I saw them at the park."),
    (
        "subject",
        {"female": "She is kind to everyone.", "male": "He is kind to everyone."},
        "The person is kind to everyone.",
    ),
    ("kinship", {"female": "My sister visited us.", "male": "My brother visited us."}, "My sibling visited us."),
    (
        "quantifier",
        {"female": "Every woman deserves respect.", "male": "Every man deserves respect."},
        "Every person deserves respect.",
    ),
    (
        "copula",
        {"female": "The baby turned out female after all.", "male": "The baby turned out male after all."},
        "The baby turned out a person after all.",
    ),
    ("subject", {"female": "The woman sings.", "male": "The man sings."}, "The person sings."),
    ("object", {"female": "I saw her last week.", "male": "I saw him last week."}, "I saw them last week."),
]

RACE = [
    (
        "predicative",
        {
            "black": "My neighbour, who is Black, brought soup.",
            "white": "My neighbour, who is White, brought soup.",
            "asian": "My neighbour, who is Asian, brought soup.",
            "hispanic": "My neighbour, who is Hispanic, brought soup.",
        },
        "My neighbour, who is a person, brought soup.",
    ),
    (
        "attributive",
        {
            "black": "A Black student asked a question.",
            "white": "A White student asked a question.",
            "asian": "An Asian student asked a question.",
            "hispanic": "A Hispanic student asked a question.",
        },
        "A student asked a question.",
    ),
    (
        "noun",
        {
            "black": "I met a Black person at the market.",
            "white": "I met a White person at the market.",
            "asian": "I met an Asian person at the market.",
            "hispanic": "I met a Hispanic person at the market.",
        },
        "I met a person at the market.",
    ),
    (
        "noun",
        {
            "black": "She is an African American.",
            "white": "She is a European American.",
            "asian": "She is an Asian American.",
            "hispanic": "She is a Hispanic American.",
        },
        "She is an American.",
    ),
    (
        "possessive",
        {
            "black": "The Black person's house is on the corner.",
            "white": "The White person's house is on the corner.",
            "asian": "The Asian person's house is on the corner.",
            "hispanic": "The Hispanic person's house is on the corner.",
        },
        "The person's house is on the corner.",
    ),
    (
        "plural",
        {
            "black": "Many African Americans live here.",
            "white": "Many European Americans live here.",
            "asian": "Many Asian Americans live here.",
            "hispanic": "Many Hispanic Americans live here.",
        },
        "Many people live here.",
    ),
    (
        "quantifier",
        {
            "black": "Every Black person deserves respect.",
            "white": "Every White person deserves respect.",
            "asian": "Every Asian person deserves respect.",
            "hispanic": "Every Hispanic person deserves respect.",
        },
        "Every person deserves respect.",
    ),
    (
        "copula",
        {
            "black": "He identified as Black last year.",
            "white": "He identified as White last year.",
            "asian": "He identified as Asian last year.",
            "hispanic": "He identified as Hispanic last year.",
        },
        "He identified as a person last year.",
    ),
    (
        "copula",
        {
            "black": "She seems Black to me.",
            "white": "She seems White to me.",
            "asian": "She seems Asian to me.",
            "hispanic": "She seems Hispanic to me.",
        },
        "She seems a person to me.",
    ),
    (
        "subject",
        {
            "black": "The Black person sings.",
            "white": "The White person sings.",
            "asian": "The Asian person sings.",
            "hispanic": "The Hispanic person sings.",
        },
        "The person sings.",
    ),
]


def unswappable_religion(frame: str) -> dict[str, str]:
    """Each religion's sentence of an :data:`UNSWAPPABLE_FRAMES` frame (``{Adj}``: the adjective capitalised)."""
    return {
        group: frame.format(adj=words[0], Adj=words[0][:1].upper() + words[0][1:])
        for group, words in RELIGION_WORDS.items()
    }


# Every axis: (position, {subgroup: sentence}, neutral sentence).
SENTENCES = {
    "religion": [(position, _religion(frame), neutral) for position, frame, neutral in RELIGION_FRAMES],
    "gender": GENDER,
    "race": RACE,
}
