"""Hand-written sentences identical but for the group word, on every axis of the bundled lexicon.

Each entry: the role it exercises, the sentence as each subgroup's own text would write it
(its own word for the role, "a" or "an" as that word needs), and the one neutral sentence
every subgroup's text must become, or None where the mention has no neutral form (a
predicate: docs/methods.md §5.5). Counterfactual rescoring must turn each subgroup's sentence
into every other's exactly, and all of them into the neutral one or into none alike, and must
leave out alike every subgroup's sentence of a frame in ``UNSWAPPABLE_FRAMES``.
tests/scorers/test_identity_lexicon.py checks the swaps, tests/cairo/test_scorer_bias.py
what the statistics make of them.
"""

from __future__ import annotations

from biasflow.scorers.word_roles import GRADED, HYPHENATED, NO_ROLE, NOUN_OR_VERB

# adjective, noun, the noun with its article, the adjective with its article (sentence start), plural,
# the noun with its article (sentence start), plural (sentence start)
RELIGION_WORDS = {
    "jewish": ("Jewish", "Jew", "a Jew", "A Jewish", "Jews", "A Jew", "Jews"),
    "christian": ("Christian", "Christian", "a Christian", "A Christian", "Christians", "A Christian", "Christians"),
    "muslim": ("Muslim", "Muslim", "a Muslim", "A Muslim", "Muslims", "A Muslim", "Muslims"),
    "hindu": ("Hindu", "Hindu", "a Hindu", "A Hindu", "Hindus", "A Hindu", "Hindus"),
    "buddhist": ("Buddhist", "Buddhist", "a Buddhist", "A Buddhist", "Buddhists", "A Buddhist", "Buddhists"),
    "sikh": ("Sikh", "Sikh", "a Sikh", "A Sikh", "Sikhs", "A Sikh", "Sikhs"),
    "atheist": ("atheist", "atheist", "an atheist", "An atheist", "atheists", "An atheist", "Atheists"),
}
_KEYS = ("adj", "noun", "a_noun", "A_adj", "plural", "A_noun", "Plural")
RELIGION_FRAMES: list[tuple[str, str, str | None]] = [
    ("attributive", "The {adj} bakery sells bread.", "The bakery sells bread."),
    ("attributive", "{A_adj} teacher visited us.", "A teacher visited us."),
    ("attributive", "We walked past two {adj} shrines.", "We walked past two shrines."),
    ("noun", "I spoke with {a_noun} on the train.", "I spoke with a person on the train."),
    ("noun", "She is a proud {noun}.", "She is a proud person."),
    ("subject", "The {noun} waved at us.", "The person waved at us."),
    ("subject", "{A_noun} opened the door.", "A person opened the door."),
    ("subject", "{Plural} gathered outside.", "People gathered outside."),
    ("possessive", "The {noun}'s garden is lovely.", "The person's garden is lovely."),
    ("plural possessive", "The {plural}' garden is lovely.", "The people's garden is lovely."),
    ("plural", "Several {plural} joined the choir.", "Several people joined the choir."),
    ("quantifier", "Each {noun} brings a dish.", "Each person brings a dish."),
    ("quantifier", "No {noun} was left behind.", "No person was left behind."),
    ("object", "We invited {a_noun} to dinner.", "We invited a person to dinner."),
    ("predicative", "My cousin is {adj}.", None),
    ("change of state", "He became {adj} in college.", None),
    ("copula", "She stayed {adj} all her life.", None),
]
# Contents that name their group in a form no swap can keep grammatical, identical but for the group word:
# (why, per biasflow.scorers.word_roles; the sentence). Every subgroup's sentence gets no variants, for the same reason.
UNSWAPPABLE_FRAMES = [
    (GRADED, "The village is very {adj}."),  # "very a person"
    (HYPHENATED, "A {adj}-run school opened."),  # "A -run school"
    (NOUN_OR_VERB, "The {adj} parents teach."),  # "parents": a plural noun or a verb
    (NO_ROLE, "{Adj} or not, she stayed."),  # neither before a noun, nor after a determiner or a copula
]


def _religion(frame: str) -> dict[str, str]:
    return {group: frame.format(**dict(zip(_KEYS, words, strict=True))) for group, words in RELIGION_WORDS.items()}


def unswappable_religion(frame: str) -> dict[str, str]:
    """Each religion's sentence of an :data:`UNSWAPPABLE_FRAMES` frame (``{Adj}``: the adjective capitalised)."""
    return {
        group: frame.format(adj=words[0], Adj=words[0][:1].upper() + words[0][1:])
        for group, words in RELIGION_WORDS.items()
    }


GENDER: list[tuple[str, dict[str, str], str | None]] = [
    ("noun", {"female": "A woman fixed the roof.", "male": "A man fixed the roof."}, "A person fixed the roof."),
    ("plural", {"female": "Three women ran past.", "male": "Three men ran past."}, "Three people ran past."),
    (
        "plural possessive",
        {"female": "The girls' bikes are new.", "male": "The boys' bikes are new."},
        "The children's bikes are new.",
    ),
    ("determiner", {"female": "Her coat is wet.", "male": "His coat is wet."}, "Their coat is wet."),
    ("object", {"female": "We thanked her twice.", "male": "We thanked him twice."}, "We thanked them twice."),
    ("subject", {"female": "She sings well.", "male": "He sings well."}, "The person sings well."),
    ("kinship", {"female": "My aunt's daughter called.", "male": "My aunt's son called."}, "My aunt's child called."),
    ("attributive", {"female": "A female judge spoke.", "male": "A male judge spoke."}, "A judge spoke."),
    ("predicative", {"female": "The new judge is female.", "male": "The new judge is male."}, None),
]

RACE: list[tuple[str, dict[str, str], str | None]] = [
    (
        "attributive",
        {
            "black": "A Black singer won.",
            "white": "A White singer won.",
            "asian": "An Asian singer won.",
            "hispanic": "A Hispanic singer won.",
        },
        "A singer won.",
    ),
    (
        "noun",
        {
            "black": "I sat next to a Black person.",
            "white": "I sat next to a White person.",
            "asian": "I sat next to an Asian person.",
            "hispanic": "I sat next to a Hispanic person.",
        },
        "I sat next to a person.",
    ),
    (
        "bare plural",
        {
            "black": "Blacks moved here in 1920.",
            "white": "Whites moved here in 1920.",
            "asian": "Asians moved here in 1920.",
            "hispanic": "Hispanics moved here in 1920.",
        },
        "People moved here in 1920.",
    ),
    (
        "-American plural",
        {
            "black": "Some African Americans moved here.",
            "white": "Some European Americans moved here.",
            "asian": "Some Asian Americans moved here.",
            "hispanic": "Some Hispanic Americans moved here.",
        },
        "Some Americans moved here.",
    ),
    (
        "-American",
        {
            "black": "He is an African American.",
            "white": "He is a European American.",
            "asian": "He is an Asian American.",
            "hispanic": "He is a Hispanic American.",
        },
        "He is an American.",
    ),
    (
        "plural possessive",
        {
            "black": "The Blacks' church burned.",
            "white": "The Whites' church burned.",
            "asian": "The Asians' church burned.",
            "hispanic": "The Hispanics' church burned.",
        },
        "The people's church burned.",
    ),
    (
        "predicative",
        {
            "black": "Her mother is Black.",
            "white": "Her mother is White.",
            "asian": "Her mother is Asian.",
            "hispanic": "Her mother is Hispanic.",
        },
        None,
    ),
]

# Every axis: (role, {subgroup: sentence}, neutral sentence or None).
SENTENCES: dict[str, list[tuple[str, dict[str, str], str | None]]] = {
    "religion": [(role, _religion(frame), neutral) for role, frame, neutral in RELIGION_FRAMES],
    "gender": GENDER,
    "race": RACE,
}
