"""Numbers given as text, in every table a ``biasflow`` command reads (issue 29, item 6).

A parquet string column, or a table exported by a spreadsheet or a pandas 3 string column,
holds numbers as text ("0.63"). Each case is a command, a table it reads and that table's
numeric columns: with those columns as text the command writes what it writes with numbers,
byte for byte; with a word ("low") in one of them it prints one line naming the file and the
column, exits non-zero, and writes nothing.
"""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from biasflow.cairo.stats import STATS_NUMBERS
from biasflow.cli import main
from biasflow.fairpair.comparisons import TESTED_NUMBERS as FAIRPAIR_SCORE_NUMBERS
from biasflow.tables import CONTINUATION_NUMBERS, SCORE_NUMBERS, as_numbers

PREDICTION_NUMBERS = ["y_true", "y_pred"]


# --- inputs: each builder writes a command's inputs into a folder and returns its argv and outputs -----------


def scored_continuations(folder: Path) -> tuple[list[str], list[str]]:
    """Two models' BOLD gender continuations, both subgroups in both splits, and their profanity scores."""
    rng = np.random.default_rng(0)
    rows = [
        {
            "prompt_id": f"p{i}",
            "metric": "BOLD",
            "axis": "gender",
            "subgroup": subgroup,
            "split": split,
            "group_key": f"k{i}",
            "promptset": "original",
            "source_id": f"p{i}",
            "text": f"prompt {i}",
            "identity_term": "",
            "model": model,
            "seed": 0,
            "sample": sample,
            "continuation": "words",
        }
        for model in ("m1", "m2")
        for sample in (0, 1)
        for i, (subgroup, split) in enumerate(
            [(g, s) for g in ("female", "male") for s in ("valid", "test") for _ in range(3)]
        )
    ]
    continuations = pd.DataFrame(rows)
    continuations.to_parquet(folder / "continuations.parquet")
    scores = continuations[["prompt_id", "model", "seed", "sample"]].assign(
        scorer="profanity", score=rng.random(len(rows))
    )
    scores.to_parquet(folder / "scores.parquet")
    return (
        [
            "cairo-stats",
            "--continuations",
            str(folder / "continuations.parquet"),
            "--scores",
            str(folder / "scores.parquet"),
            "--scorer",
            "profanity",
            "--out-dir",
            str(folder / "out"),
        ],
        ["out/stats/gender.parquet", "out/bias/gender.csv"],
    )


def stats_table(folder: Path) -> None:
    from benchmarks.synthetic import paper_sized_stats

    # Three models on one pair of metrics: the smallest table a selection and a power plan take.
    paper_sized_stats(
        n_models=3,
        metrics=("BOLD", "HONEST"),
        n_paraphrasers=1,
        seeds_per_paraphraser=2,
        n_gen_seeds=2,
        subgroups=2,
        axis="gender",
        clusters=3,
    ).to_parquet(folder / "stats.parquet")


def selection(folder: Path) -> tuple[list[str], list[str]]:
    stats_table(folder)
    return (
        [
            "cairo-select",
            "--stats",
            str(folder / "stats.parquet"),
            "--out-dir",
            str(folder / "out"),
            "--max-sets",
            "2",
            "--permutations",
            "9",
            "--bootstrap",
            "9",
            "--null-draws",
            "9",
        ],
        ["out/gender_curve.csv", "out/gender.csv", "out/gender.json"],
    )


def cairo_pilot(folder: Path) -> tuple[list[str], list[str]]:
    stats_table(folder)
    return ["power", "--method", "cairo", "--pilot", str(folder / "stats.parquet"), "--out", str(folder / "p.csv")], [
        "p.csv"
    ]


def religion_continuations(folder: Path) -> tuple[list[str], list[str]]:
    """Two models' continuations about three religions, with the workflow's seed and sample columns."""
    words = {"muslim": "Muslim", "christian": "Christian", "hindu": "Hindu"}
    rows = [
        {"model": model, "subgroup": group, "continuation": text.format(word), "seed": 3, "sample": sample}
        for model in ("m1", "m2")
        for group, word in words.items()
        for sample in (0, 1)
        for text in ("My {} neighbour cooks.", "The {} family is kind.", "It rained all day.")
    ]
    pd.DataFrame(rows).to_parquet(folder / "c.parquet")
    return (
        [
            "scorer-bias",
            "--continuations",
            str(folder / "c.parquet"),
            "--scorer",
            "profanity",
            "--axis",
            "religion",
            "--bootstrap",
            "9",
            "--out-dir",
            str(folder / "d"),
        ],
        ["d/religion_scorer.csv", "d/religion_models.csv"],
    )


def fairpair_sides(folder: Path, name: str = "c.parquet") -> list[dict]:
    """Six prompts with 12 samples a side: as text, samples "10" and "11" would sort before "2"."""
    rng = np.random.default_rng(0)
    words = ["good", "kind", "work", "hard", "late", "nurse", "doctor", "day"]
    rows = [
        {"prompt_id": f"p{p}", "side": side, "sample": s, "text": " ".join(rng.choice(words, 4))}
        for p in range(6)
        for side in ("perturbed_original", "counterfactual")
        for s in range(12)
    ]
    pd.DataFrame(rows).to_parquet(folder / name)
    return rows


def fairpair_score(folder: Path) -> tuple[list[str], list[str]]:
    fairpair_sides(folder)
    return (
        [
            "fairpair-score",
            "--continuations",
            str(folder / "c.parquet"),
            "--out",
            str(folder / "f.csv"),
            "--null-draws",
            "19",
            "--bootstrap",
            "9",
        ],
        ["f.csv", "f_summary.csv"],
    )


def fairpair_pilot(folder: Path) -> tuple[list[str], list[str]]:
    """Per-prompt FairPair scores as the workflow writes them (``fairpair-score`` on sides), as a pilot."""
    fairpair_sides(folder, "sides.parquet")
    assert (
        main(
            [
                "fairpair-score",
                "--continuations",
                str(folder / "sides.parquet"),
                "--out",
                str(folder / "m.parquet"),
                "--dissimilarities",
                "jaccard",
                "--null-draws",
                "19",
                "--bootstrap",
                "0",
            ]
        )
        == 0
    )
    (folder / "m_summary.parquet").unlink()
    return ["power", "--method", "fairpair", "--pilot", str(folder / "m.parquet"), "--out", str(folder / "p.csv")], [
        "p.csv"
    ]


def predictions(folder: Path) -> None:
    rng = np.random.default_rng(0)
    rows = [
        {
            "y_true": y,
            "y_pred": int(rng.integers(3)),
            "category": "race",
            "group": g,
            "text": f"t{i}",
            "run_id": r,
            "template_id": f"t{i % 4}",
        }
        for r in range(3)
        for g in ("black", "white")
        for i, y in enumerate([0, 1, 2] * 4)
    ]
    pd.DataFrame(rows).to_parquet(folder / "m.parquet")


def gaps(folder: Path) -> tuple[list[str], list[str]]:
    predictions(folder)
    return [
        "fpr-gaps",
        "--predictions",
        str(folder / "m.parquet"),
        "--out",
        str(folder / "g.csv"),
        "--bootstrap",
        "9",
    ], ["g.csv"]


def fpr_pilot(folder: Path) -> tuple[list[str], list[str]]:
    predictions(folder)
    return ["power", "--method", "fpr", "--pilot", str(folder / "m.parquet"), "--out", str(folder / "p.csv")], ["p.csv"]


# Case -> (its inputs' builder, the table whose numbers are given as text, that table's numeric columns).
CASES = {
    "cairo-stats scores": (scored_continuations, "scores.parquet", SCORE_NUMBERS),
    "cairo-stats continuations": (scored_continuations, "continuations.parquet", CONTINUATION_NUMBERS),
    "cairo-select statistics": (selection, "stats.parquet", STATS_NUMBERS),
    "power cairo statistics": (cairo_pilot, "stats.parquet", STATS_NUMBERS),
    "scorer-bias continuations": (religion_continuations, "c.parquet", CONTINUATION_NUMBERS),
    "fairpair-score continuations": (fairpair_score, "c.parquet", ["sample"]),
    "power fairpair scores": (fairpair_pilot, "m.parquet", FAIRPAIR_SCORE_NUMBERS),
    "fpr-gaps predictions": (gaps, "m.parquet", PREDICTION_NUMBERS),
    "power fpr predictions": (fpr_pilot, "m.parquet", PREDICTION_NUMBERS),
}


def as_text(path: Path, columns: list[str], change=None) -> None:
    """Rewrite the table at ``path`` with ``columns`` as text (a string column), then ``change`` it."""
    table = pd.read_parquet(path)
    assert set(columns) <= set(table.columns), "the case's table lacks a column it names"
    table = table.astype(dict.fromkeys(columns, "str"))
    (change or (lambda t: t))(table).to_parquet(path)


def outputs(folder: Path, names: list[str]) -> dict[str, object]:
    """What the command wrote: parquet tables as frames, every other file as its bytes."""
    return {
        name: pd.read_parquet(folder / name) if name.endswith(".parquet") else (folder / name).read_bytes()
        for name in names
    }


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """``built(build, folder)``: a builder's inputs copied into ``folder``, with its argv and outputs. Each builder
    writes them once (fairpair_pilot runs fairpair-score to make its own); every test works on a copy."""
    made = {}

    def copy(build, folder: Path) -> tuple[list[str], list[str]]:
        if build not in made:
            template = tmp_path_factory.mktemp(build.__name__)
            made[build] = template, build(template)
        template, (argv, names) = made[build]
        shutil.copytree(template, folder, dirs_exist_ok=True)
        return [arg.replace(str(template), str(folder)) for arg in argv], names

    return copy


@pytest.fixture(scope="module")
def from_numbers(built, tmp_path_factory):
    """``from_numbers(build)``: what the builder's command writes from its inputs as numbers, run once per builder
    (the two cairo-stats cases share one run)."""
    written = {}

    def output(build) -> dict[str, object]:
        if build not in written:
            folder = tmp_path_factory.mktemp("numbers")
            argv, names = built(build, folder)
            assert main(argv) == 0
            written[build] = outputs(folder, names)
        return written[build]

    return output


@pytest.mark.parametrize("case", CASES)
def test_numbers_given_as_text_give_the_same_output_as_numbers(case, tmp_path, built, from_numbers):
    build, table, columns = CASES[case]
    argv, names = built(build, tmp_path)
    as_text(tmp_path / table, columns)
    assert main(argv) == 0
    text = outputs(tmp_path, names)
    for name, expected in from_numbers(build).items():
        if isinstance(expected, pd.DataFrame):
            pd.testing.assert_frame_equal(text[name], expected, check_exact=True)
        else:
            assert text[name] == expected, name


def snapshot(folder: Path) -> dict[str, str]:
    return {
        str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest() if p.is_file() else "dir"
        for p in sorted(folder.rglob("*"))
    }


def one_word(column: str):
    def change(table: pd.DataFrame) -> pd.DataFrame:
        table.loc[table.index[0], column] = "low"
        return table

    return change


@pytest.mark.parametrize(
    ("case", "column"), [(case, column) for case, (_, _, columns) in CASES.items() for column in columns]
)
def test_a_word_in_a_numeric_column_is_one_line_naming_file_and_column(case, column, tmp_path, capsys, built):
    build, table, columns = CASES[case]
    argv, _ = built(build, tmp_path)
    as_text(tmp_path / table, columns, one_word(column))
    before = snapshot(tmp_path)
    capsys.readouterr()

    code = main(argv)

    err = capsys.readouterr().err.strip()
    assert code != 0
    assert err.startswith("biasflow: ") and len(err.splitlines()) == 1, err
    assert "Traceback" not in err
    assert f"{tmp_path / table}: column {column} " in err and "low" in err, err
    assert snapshot(tmp_path) == before, "a failing command wrote or changed a file"


def test_empty_text_stays_missing_for_the_table_to_judge():
    """A blank cell, or a missing number written out as text, is missing, as a CSV reader would read it."""
    table = pd.DataFrame({"x": pd.Series(["0.63", "", " nan ", "NA", None, "1e3"], dtype="str"), "y": "a"})
    read = as_numbers(table, ["x", "not there"], "t")
    pd.testing.assert_series_equal(read["x"], pd.Series([0.63, np.nan, np.nan, np.nan, np.nan, 1000.0], name="x"))
    assert read["y"].equals(table["y"])
