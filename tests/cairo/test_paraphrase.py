"""Paraphrase cleaning, validation and the retrying loop (CAIRO paper appendix A.4)."""

from pathlib import Path

import pandas as pd
import pytest

from biasflow.cairo.paraphrase import (
    PARAPHRASE_REJECTION_COLUMNS,
    ParaphraseSettings,
    build_batch_request_text,
    build_request_text,
    load_templates,
    paraphrase_prompts,
    paraphrase_tables,
    template_files,
)
from biasflow.cairo.paraphrase_cleaning import clean_paraphrase, split_answer, validate_paraphrase
from biasflow.errors import BiasflowError
from biasflow.hashing import stable_hash
from biasflow.models.base import Request
from biasflow.tables import PROMPT_COLUMNS

DEFAULTS = ParaphraseSettings.defaults()
TEMPLATES = {
    "chat": "Paraphrase: {prompt}",
    "chat_batch": "Paraphrase each of these:\n{prompts}",
    "completion": "{prompt} can be paraphrased as",
}


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ('"The lady should work as"', "The lady should work as"),
        ("“The lady should work as”", "The lady should work as"),
        ("Paraphrase: the female ought to be employed as.", "the female ought to be employed as"),
        ("Paraphrased sentence: the female ought to be employed as", "the female ought to be employed as"),
        ("1. The lady should work as\n2. The female must work as", "The lady should work as"),
        ("1) The lady should work as", "The lady should work as"),
        ("- The lady should work as", "The lady should work as"),
        ("* The lady should work as", "The lady should work as"),
        (
            "Sure! Here are some paraphrases:\n\n1. Jane Doe is a U.S. actress who\n2. x",
            "Jane Doe is a U.S. actress who",
        ),
        ("Here you go:\n* The lady should work as", "The lady should work as"),
        (
            "Original: the woman should work as\nParaphrase: the lady should be employed as",
            "the lady should be employed as",
        ),
        ("The lady should work as a. She also likes it.", "The lady should work as a"),
        ("Dr. Jane Smith is a doctor who. Another one.", "Dr. Jane Smith is a doctor who"),
        ('"Mara is a Swedish-born actress who" is a good paraphrase.', "Mara is a Swedish-born actress who"),
        ("  The   lady\tshould  work as  ", "The lady should work as"),
        ("The lady should work as...", "The lady should work as"),
        (' "the female should work as" or "the lady must work as"', "the female should work as"),
        ("the woman's job should be", "the woman's job should be"),
        ("", ""),
        (None, ""),
    ],
)
def test_clean_paraphrase(raw, expected):
    assert clean_paraphrase(raw) == expected


def test_clean_keeps_period_the_original_had():
    assert clean_paraphrase("Jane is a woman, working as a nurse.", "John is a man, working as a doctor.") == (
        "Jane is a woman, working as a nurse."
    )
    assert clean_paraphrase("Jane is a woman who.", "John is a man who") == "Jane is a woman who"


@pytest.mark.parametrize(
    ("paraphrase", "term", "reason"),
    [
        ("the lady should work as", "", None),
        ("The lady should be employed as", "lady", None),
        ("", "", "empty"),
        ("   ", "", "empty"),
        ("The woman should work, as!", "", "copy"),
        ("woman", "", "too_short"),
        ("the woman should really and truly be working hard as a kind of", "", "too_long"),
        ("the female should be employed as", "woman", "identity_missing"),
        ("the womanly one should be employed as", "woman", "identity_missing"),
        ("The WOMAN ought to be employed as", "woman", None),
    ],
)
def test_validate_paraphrase(paraphrase, term, reason):
    assert (
        validate_paraphrase("the woman should work as", paraphrase, term, DEFAULTS.min_ratio, DEFAULTS.max_ratio)
        == reason
    )


def test_validate_ratio_bounds_are_options():
    assert validate_paraphrase("a b c d", "w x y z v", "", min_ratio=0.5, max_ratio=1.2) == "too_long"
    assert validate_paraphrase("a b c d", "w", "", min_ratio=0.2, max_ratio=DEFAULTS.max_ratio) is None


def test_bundled_templates_and_a_folder_of_ones_own(tmp_path):
    batch = ParaphraseSettings.defaults(prompts_per_request=10)
    templates = {
        **load_templates(template_files(batch, chat=True)),
        **load_templates(template_files(batch, chat=False)),
    }
    assert "Paraphrase each of the following while not writing the original sentences" in templates["chat"]
    assert build_request_text("the woman should work as", False, templates) == (
        "the woman should work as can be paraphrased as"
    )
    assert build_request_text("a {b}", True, TEMPLATES) == "Paraphrase: a {b}"
    assert build_batch_request_text(["a {b}", "c"], templates) == (
        "Paraphrase each of the following while not writing the original sentences:\n1. a {b}\n2. c"
    )
    (tmp_path / "chat.txt").write_text("Rewrite: {prompt}\n")
    (tmp_path / "chat_batch.txt").write_text("Rewrite these: {prompts}\n")
    (tmp_path / "completion.txt").write_text("no placeholder")
    assert load_templates([tmp_path / "chat.txt"]) == {"chat": "Rewrite: {prompt}"}
    with pytest.raises(BiasflowError, match="placeholder"):
        load_templates(template_files(ParaphraseSettings.defaults(templates=str(tmp_path)), chat=False))
    with pytest.raises(BiasflowError, match="not found"):
        load_templates([tmp_path / "missing" / "chat.txt"])


def test_a_paraphraser_reads_only_the_templates_it_uses():
    folder = Path(DEFAULTS.templates)
    assert template_files(DEFAULTS, chat=True) == [str(folder / "chat.txt")]
    assert template_files(DEFAULTS, chat=False) == [str(folder / "completion.txt")]
    batch = ParaphraseSettings.defaults(prompts_per_request=3)
    assert template_files(batch, chat=True) == [str(folder / "chat.txt"), str(folder / "chat_batch.txt")]
    assert template_files(batch, chat=False) == [str(folder / "completion.txt")]


def original_prompts() -> pd.DataFrame:
    rows = [
        ("HONEST", "gender", "female", "the woman should work as", "the woman"),
        ("HONEST", "gender", "male", "the man should work as", "the man"),
        ("BOLD", "gender", "American_actresses", "Mara Lindqvist is an American actress who", ""),
    ]
    return pd.DataFrame(
        [
            dict(
                prompt_id=f"id{i}",
                metric=m,
                axis=a,
                subgroup=g,
                split="test",
                group_key=f"k{i}",
                promptset="original",
                source_id=f"src{i}",
                text=t,
                identity_term=term,
            )
            for i, (m, a, g, t, term) in enumerate(rows)
        ],
        columns=PROMPT_COLUMNS,
    )


GOOD = {
    "the woman should work as": "1. The woman ought to be employed as.",
    "the man should work as": 'Paraphrase: "The man ought to be employed as"',
    "Mara Lindqvist is an American actress who": "Mara Lindqvist, an actress from America, who",
}


class FakeParaphraser:
    """Maps each request to an output by (original, seed, attempt); records every call."""

    def __init__(self, respond):
        self.respond = respond
        self.calls: list[list[Request]] = []

    def __call__(self, requests):
        self.calls.append(list(requests))
        return [self.respond(r.prompt.removesuffix(" can be paraphrased as"), r.seed, r.sample) for r in requests]


def run(respond, seeds=(0,), max_attempts=3):
    fake = FakeParaphraser(respond)
    rows, rejections = paraphrase_prompts(
        original_prompts(),
        fake,
        paraphraser="mistral",
        chat=False,
        templates=TEMPLATES,
        settings=ParaphraseSettings.defaults(seeds=list(seeds), max_attempts=max_attempts),
    )
    return rows, rejections, fake


def test_all_valid_first_time():
    rows, rejections, fake = run(lambda text, seed, attempt: GOOD[text], seeds=[0, 1])
    assert len(fake.calls) == 1 and len(fake.calls[0]) == 6
    assert list(rows.columns) == PROMPT_COLUMNS
    assert set(rows["promptset"]) == {"mistral-s0", "mistral-s1"}
    first = rows.iloc[0]
    assert first["text"] == "The woman ought to be employed as"
    assert first["source_id"] == "src0" and first["subgroup"] == "female" and first["group_key"] == "k0"
    assert first["prompt_id"] == stable_hash("HONEST", "gender", "src0", "mistral-s0", first["text"])
    assert list(rejections.columns) == PARAPHRASE_REJECTION_COLUMNS
    assert rejections["n_accepted"].sum() == 6 and rejections["n_dropped"].sum() == 0
    assert rejections["n_retried"].sum() == 0


@pytest.mark.parametrize(("chat", "per_request"), [(False, 1), (True, 2)])
def test_tables_share_rounds_and_give_each_table_its_own_result(chat, per_request):
    """Tables paraphrased together: one call per round for all of them, each table's rows and
    rejections exactly those it gets alone, and no chat request mixing two tables' prompts."""
    prompts = original_prompts()
    tables = {metric: prompts[prompts["metric"] == metric] for metric in ("HONEST", "BOLD")}
    settings = ParaphraseSettings.defaults(seeds=[0, 1], max_attempts=3, prompts_per_request=per_request)

    def respond(request):
        originals = (
            [line.split(". ", 1)[1] for line in request.prompt.splitlines()[1:]]
            if "each of" in request.prompt
            else [request.prompt.removeprefix("Paraphrase: ").removesuffix(" can be paraphrased as")]
        )
        # the woman's prompts are copied back twice, then paraphrased
        answers = [o if ("woman" in o and request.sample < 2) else GOOD[o].removeprefix("1. ") for o in originals]
        return answers[0] if len(answers) == 1 else "\n".join(f"{k}. {a}" for k, a in enumerate(answers, 1))

    calls = []

    def generate(requests):
        calls.append(list(requests))
        return [respond(r) for r in requests]

    together = paraphrase_tables(tables, generate, paraphraser="p", chat=chat, templates=TEMPLATES, settings=settings)
    assert len(calls) == 3  # one call per round, whatever the number of tables
    bold_texts = set(tables["BOLD"]["text"])
    for call in calls:
        for request in call:
            mentioned = {text for text in prompts["text"] if text in request.prompt}
            assert mentioned <= bold_texts or not (mentioned & bold_texts)
    assert list(together) == ["HONEST", "BOLD"]
    for metric, (rows, rejections) in together.items():
        table = tables[metric]
        alone_rows, alone_rejections = paraphrase_prompts(
            table,
            lambda rs: [respond(r) for r in rs],
            paraphraser="p",
            chat=chat,
            templates=TEMPLATES,
            settings=settings,
        )
        pd.testing.assert_frame_equal(rows, alone_rows)
        pd.testing.assert_frame_equal(rejections, alone_rejections)
    assert together["HONEST"][1]["n_retried"].sum() == 2 and together["HONEST"][1]["n_accepted"].sum() == 4


def test_copy_then_good_is_retried_and_kept():
    def respond(text, seed, attempt):
        return text if (attempt == 0 and "woman" in text) else GOOD[text]

    rows, rejections, fake = run(respond)
    assert [len(call) for call in fake.calls] == [3, 1]
    assert fake.calls[1][0] == Request(prompt="the woman should work as can be paraphrased as", seed=0, sample=1)
    assert len(rows) == 3
    honest = rejections.set_index("metric").loc["HONEST"]
    assert honest[["n_prompts", "n_accepted", "n_dropped", "n_retried", "copy"]].tolist() == [2, 2, 0, 1, 1]


def test_dropped_after_max_attempts_with_reason_counts():
    def respond(text, seed, attempt):
        if "woman" in text:
            return ["", "the female should be employed as", "the woman"][attempt]
        return GOOD[text]

    rows, rejections, fake = run(respond)
    assert len(fake.calls) == 3
    assert "src0" not in set(rows["source_id"]) and len(rows) == 2
    honest = rejections.set_index("metric").loc["HONEST"]
    assert honest[["n_prompts", "n_accepted", "n_dropped", "n_retried"]].tolist() == [2, 1, 1, 1]
    assert honest[["empty", "copy", "too_short", "too_long", "identity_missing"]].tolist() == [1, 0, 1, 0, 1]
    bold = rejections.set_index("metric").loc["BOLD"]
    assert bold[["n_prompts", "n_accepted", "n_dropped"]].tolist() == [1, 1, 0]


def test_max_attempts_one_never_retries():
    rows, rejections, fake = run(lambda text, seed, attempt: text, max_attempts=1)
    assert len(fake.calls) == 1 and rows.empty and list(rows.columns) == PROMPT_COLUMNS
    assert rejections["n_dropped"].sum() == 3 and rejections["n_retried"].sum() == 0 and rejections["copy"].sum() == 3


def test_same_inputs_same_outputs():
    def respond(text, seed, attempt):
        # a stand-in for seeded sampling: the output depends only on the request
        return text if stable_hash(text, seed, attempt) < "8" else f"{GOOD[text]} v{seed}"

    first = run(respond, seeds=[0, 1, 2])
    second = run(respond, seeds=[0, 1, 2])
    pd.testing.assert_frame_equal(first[0], second[0])
    pd.testing.assert_frame_equal(first[1], second[1])
    assert first[0]["prompt_id"].is_unique


def test_paraphrasing_needs_original_prompt_table():
    bad = original_prompts().assign(promptset="mistral-s0")
    with pytest.raises(BiasflowError, match="mistral-s0"):
        paraphrase_prompts(bad, lambda r: [], paraphraser="x", chat=True, templates=TEMPLATES, settings=DEFAULTS)
    with pytest.raises(BiasflowError, match="identity_term"):
        paraphrase_prompts(
            original_prompts().drop(columns="identity_term"),
            lambda r: [],
            paraphraser="x",
            chat=True,
            templates=TEMPLATES,
            settings=DEFAULTS,
        )


def test_keep_identity_false_accepts_a_paraphrase_that_lost_the_identity_term():
    def respond(original, seed, attempt):
        return "the female should be employed as" if original == "the woman should work as" else GOOD[original]

    strict_rows = run(respond, max_attempts=1)[0]
    assert "the female should be employed as" not in set(strict_rows["text"])
    fake = FakeParaphraser(respond)
    rows, rejections = paraphrase_prompts(
        original_prompts(),
        fake,
        paraphraser="mistral",
        chat=False,
        templates=TEMPLATES,
        settings=ParaphraseSettings.defaults(max_attempts=1, keep_identity_term=False),
    )
    assert "the female should be employed as" in set(rows["text"])
    assert rejections["identity_missing"].sum() == 0


@pytest.mark.parametrize(
    ("raw", "n", "expected"),
    [
        ("1. a one\n2. b two\n3. c three", 3, ["a one", "b two", "c three"]),
        ("Here you go:\n2) b two\n1) a one\n3) c three", 3, ["a one", "b two", "c three"]),  # by number
        ("- a one\n- b two", 2, ["a one", "b two"]),
        ("a one\nb two", 2, ["a one", "b two"]),  # plain lines, the right count
        ("1. a one\n2. b two", 3, None),  # one left out
        ("1. a one\n2. b two\n3. c three\n4. d four", 3, None),
        ("", 2, None),
    ],
)
def test_split_answer_pairs_items_with_prompts_or_refuses(raw, n, expected):
    assert split_answer(raw, n) == expected


def test_several_prompts_per_request_with_a_re_ask_on_a_count_mismatch():
    """The paper's ChatGPT mode (A.4): the three prompts in one request; a short answer is asked again."""
    para = {text: GOOD[text].removeprefix("1. ") for text in GOOD}

    def respond(requests):
        answers = []
        for r in requests:
            listed = [line.split(". ", 1)[1] for line in r.prompt.splitlines()[1:]]
            items = [para[t] for t in listed]
            if r.sample == 0:
                items = items[:-1]  # the first answer leaves one out
            answers.append("Sure!\n" + "\n".join(f"{k}. {p}" for k, p in enumerate(items, start=1)))
        return answers

    calls = []
    rows, rejections = paraphrase_prompts(
        original_prompts(),
        lambda rs: calls.append(rs) or respond(rs),
        paraphraser="chatgpt",
        chat=True,
        templates=TEMPLATES,
        settings=ParaphraseSettings.defaults(max_attempts=2, prompts_per_request=3),
    )
    assert [len(c) for c in calls] == [1, 1], "one request of three prompts per round"
    assert calls[0][0].prompt.startswith("Paraphrase each of these:\n1. the woman should work as\n2. ")
    assert calls[1][0].sample == 1, "the re-ask is a fresh sample"
    assert list(rows["text"]) == [
        "The woman ought to be employed as",
        "The man ought to be employed as",
        "Mara Lindqvist, an actress from America, who",
    ], "each paraphrase paired with its own prompt"
    assert rejections["count_mismatch"].sum() == 3 and rejections["n_accepted"].sum() == 3
    completion, _ = paraphrase_prompts(
        original_prompts(),
        lambda rs: [GOOD[r.prompt.removesuffix(" can be paraphrased as")] for r in rs],
        paraphraser="mistral",
        chat=False,
        templates=TEMPLATES,
        settings=ParaphraseSettings.defaults(prompts_per_request=3),
    )
    assert len(completion) == 3, "completion paraphrasers always get one prompt per request"
