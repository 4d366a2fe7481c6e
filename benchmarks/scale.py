"""Scale of inputs: official-size prompt tables and million-entry caches, against named baselines.

Usage (from the repository root)::

    .venv/bin/python -m benchmarks.scale                 # official sizes, 1,000,000 cache entries
    .venv/bin/python -m benchmarks.scale --quick         # small sizes, 50,000 entries: seconds
    .venv/bin/python -m benchmarks.scale --parts cache --entries 200000

The official files cannot be shipped, so data of their format and size is synthesised in a
temporary folder from made-up words (:func:`synthesise_bold`, :func:`synthesise_holisticbias`):
BOLD's five domains with their official subgroup and prompt counts (23,679 prompts), and
HolisticBias v1.0's thirteen axes with enough descriptors, nouns and templates for about
460,000 sentences.

Part ``prompts``: the prompt table of every BOLD domain and every HolisticBias axis, built by
:func:`biasflow.cairo.datasets.write_prompts` (the ``original_prompts`` step: read, build, ids,
split, sort, write parquet). The workflow reads three axes of each; the others are
registered in the measuring process only, so they run through the same code. Baseline
(``floor``): parsing the same files with ``json.load`` and building the prompt strings with
plain Python, the I/O and string work no loader can avoid.

Part ``cache``: ``--entries`` generation-cache rows (16-hex key, a continuation of 20 made-up
words, a token count) written through :class:`biasflow.cache.ShardCache` in shards of 256
(what the transformers backend writes) and 4,096, and once in shards of 256 with compaction
off; then ``load(keys)`` for all keys and for 1% of them; and the scorer cache
(:func:`biasflow.scorers.cache.read_cache`) of ``--entries`` scores in shards of
``--score-shard`` rows. Baseline: ``pd.read_parquet`` of one file holding the same rows.

Every measurement runs in a fresh spawned process, so its peak resident memory
(``ru_maxrss``) is its own; ``imports`` is that process's peak before the job (Python,
pandas, pyarrow, biasflow). On Linux a child's peak starts at its parent's resident size, so
this process never holds the large inputs: a spawned one writes them. Peaks include what a
job reads before its timer starts (the rows to write; the keys to look up). Only the job is
timed. Prints a markdown table; the JSON goes to ``--json``.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import resource
import shutil
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

# BOLD's domains with their official subgroup and prompt counts (amazon-science/bold).
BOLD_SIZES = {
    "gender": (2, 3204),
    "race": (4, 7657),
    "religious_ideology": (7, 639),
    "political_ideology": (12, 1984),
    "profession": (18, 10195),
}
# HolisticBias v1.0's axes: (descriptors, buckets, descriptors with a noun gender,
# standalone phrases used as they are, standalone phrases filled with every noun).
# Made-up counts of the official order of magnitude: 459,612 sentences in all.
HB_SIZES = {
    "ability": (66, 6, 0, 0, 4),
    "age": (48, 6, 0, 0, 0),
    "body_type": (135, 10, 0, 0, 0),
    "characteristics": (62, 8, 0, 0, 3),
    "cultural": (34, 4, 0, 0, 0),
    "gender_and_sex": (52, 7, 12, 2, 0),
    "nationality": (32, 5, 0, 0, 0),
    "nonce": (8, 1, 0, 0, 0),
    "political_ideologies": (24, 1, 0, 0, 0),
    "race_ethnicity": (30, 8, 0, 0, 0),
    "religion": (40, 1, 0, 0, 0),
    "sexual_orientation": (16, 4, 0, 0, 0),
    "socioeconomic_class": (27, 4, 0, 0, 0),
}
HB_NOUNS_PER_GENDER = 10  # female, male, neutral
HB_TEMPLATES = 26
HB_MUST_BE_NOUN = 4
# The workflow's axis names of the dataset axes it reads (the others keep their own).
WORKFLOW_AXES = {
    ("BOLD", "gender"): "gender",
    ("BOLD", "religious_ideology"): "religion",
    ("BOLD", "race"): "race",
    ("HolisticBias", "gender_and_sex"): "gender",
    ("HolisticBias", "religion"): "religion",
    ("HolisticBias", "race_ethnicity"): "race",
}
SYLLABLES = ("ba", "de", "ki", "lo", "mu", "ra", "si", "to", "ve", "zo", "an", "el", "or", "un", "ip", "ne")


class Words:
    """Made-up words, each new one different from every earlier one."""

    def __init__(self):
        self.n = 0

    def __call__(self, capital: bool = False) -> str:
        self.n += 1
        i, out = self.n, []
        while i:
            i, digit = divmod(i, len(SYLLABLES))
            out.append(SYLLABLES[digit])
        word = "".join(out) + "x"
        return word.capitalize() if capital else word


# ---------------------------------------------------------------------------------------
# Synthetic official-format files


def synthesise_bold(directory: Path, sizes: dict[str, tuple[int, int]] = BOLD_SIZES) -> dict[str, int]:
    """``<domain>_prompt.json`` per domain, ``{subgroup: {page_title: [prompt, ...]}}``.

    ``sizes``: domain → (subgroups, prompts). Prompts go to the subgroups in turn and, within
    a subgroup, to pages of 1, 2, 3, 4, 5, 1, 2, ... prompts; every prompt names its page and
    ends in a space, as the official ones do. Returns the prompts written per domain.
    """
    directory.mkdir(parents=True, exist_ok=True)
    word = Words()
    written = {}
    for domain, (n_subgroups, n_prompts) in sizes.items():
        subgroups = [f"{word(capital=True)}_{word()}" for _ in range(n_subgroups)]
        counts = [n_prompts // n_subgroups + (i < n_prompts % n_subgroups) for i in range(n_subgroups)]
        data = {}
        for subgroup, count in zip(subgroups, counts, strict=True):
            pages, page_size = {}, 0
            while count:
                page_size = page_size % 5 + 1
                take = min(page_size, count)
                title = f"{word(capital=True)}_{word(capital=True)}"
                name = title.replace("_", " ")
                pages[title] = [f"{name} {word()} {word()} {word()} " for _ in range(take)]
                count -= take
            data[subgroup] = pages
        (directory / f"{domain}_prompt.json").write_text(json.dumps(data, indent=1), encoding="utf-8")
        written[domain] = n_prompts
    return written


def synthesise_holisticbias(
    directory: Path,
    sizes: dict[str, tuple[int, int, int, int, int]] = HB_SIZES,
    *,
    nouns_per_gender: int = HB_NOUNS_PER_GENDER,
    templates: int = HB_TEMPLATES,
    must_be_noun: int = HB_MUST_BE_NOUN,
) -> None:
    """The four v1.0 files: descriptors, nouns, sentence templates, standalone noun phrases.

    ``sizes``: axis → (descriptors, buckets, gendered descriptors, fixed standalone phrases,
    standalone phrases holding ``{article} {noun}``). Descriptors go to the buckets in turn;
    the gendered ones alternate female and male; every fifth is an object with an
    ``article`` of its own and a ``preference``. Half the templates are singular, half
    plural; the first ``must_be_noun`` are marked ``must_be_noun``.
    """
    directory.mkdir(parents=True, exist_ok=True)
    word = Words()
    descriptors, standalone = {}, {}
    for axis, (n_descriptors, n_buckets, n_gendered, n_fixed, n_filled) in sizes.items():
        buckets = {f"{axis}_{word()}": [] for _ in range(n_buckets)}
        names = list(buckets)
        for i in range(n_descriptors):
            entry: str | dict = word()
            if i < n_gendered:
                entry = {"descriptor": entry, "gender": ("female", "male")[i % 2]}
            elif i % 5 == 4:
                entry = {"descriptor": entry, "article": "a", "preference": "reviewed"}
            buckets[names[i % n_buckets]].append(entry)
        descriptors[axis] = buckets
        phrases: list = []
        for _ in range(n_fixed):
            stem = word()
            phrases.append({"noun_phrase": f"a {stem} of {word()}", "plural_noun_phrase": f"{stem}s of {word()}"})
        phrases += [f"{{article}} {{noun}} with {word()}" for _ in range(n_filled)]
        if phrases:
            standalone[axis] = phrases
    nouns = {
        gender: [[noun, noun + "s"] for noun in (word() for _ in range(nouns_per_gender))]
        for gender in ("female", "male", "neutral")
    }
    template_specs = {}
    for i in range(templates):
        field = "{noun_phrase}" if i % 2 == 0 else "{plural_noun_phrase}"
        template = f"{word(capital=True)} {word()} {field} {word()}."
        template_specs[template] = {"must_be_noun": True} if i < must_be_noun else {}
    for name, obj in [
        ("descriptors.json", descriptors),
        ("nouns.json", nouns),
        ("sentence_templates.json", template_specs),
        ("standalone_noun_phrases.json", standalone),
    ]:
        (directory / name).write_text(json.dumps(obj, indent=1), encoding="utf-8")


# ---------------------------------------------------------------------------------------
# Baselines: the I/O and string floor of a prompt table


def floor_bold(path: Path) -> int:
    """Parse a BOLD file and strip its prompts: what any loader must do at least."""
    with open(path, encoding="utf-8") as f:
        data = json.load(f)
    texts = [p.strip() for pages in data.values() for prompts in pages.values() for p in prompts]
    return len(texts)


def floor_holisticbias(directory: Path, hb_axis: str) -> int:
    """Parse the four files and build every sentence of ``hb_axis`` as a plain string."""
    files = ("descriptors", "nouns", "sentence_templates", "standalone_noun_phrases")
    descriptors, nouns, templates, standalone = (
        json.loads((directory / f"{name}.json").read_text(encoding="utf-8")) for name in files
    )
    flat = [(gender, singular, plural) for gender, pairs in nouns.items() for singular, plural in pairs]
    phrases = []  # (singular, plural, has a noun)
    for entries in descriptors[hb_axis].values():
        for entry in entries:
            entry = {"descriptor": entry} if isinstance(entry, str) else entry
            d, gender = entry["descriptor"], entry.get("gender")
            art = entry.get("article") or ("an" if d[0].lower() in "aeiou" else "a")
            phrases.append((d, d, False))
            phrases += [(f"{art} {d} {s}", f"{d} {p}", True) for g, s, p in flat if gender in (None, g)]
    for entry in standalone.get(hb_axis, []):
        entry = {"noun_phrase": entry} if isinstance(entry, str) else entry
        singular = entry["noun_phrase"]
        plural = entry.get("plural_noun_phrase", singular)
        if "{noun}" in singular:
            phrases += [
                (
                    singular.replace("{article}", "an" if s[0] in "aeiou" else "a").replace("{noun}", s),
                    plural.replace("{article} ", "").replace("{noun}", p),
                    True,
                )
                for _, s, p in flat
            ]
        else:
            phrases.append((singular, plural, False))
    sentences = []
    for template, spec in templates.items():
        plural = "{plural_noun_phrase}" in template
        field = "{plural_noun_phrase}" if plural else "{noun_phrase}"
        for singular, plural_phrase, has_noun in phrases:
            if has_noun or not spec.get("must_be_noun"):
                sentences.append(template.replace(field, plural_phrase if plural else singular))
    return len(sentences)


# ---------------------------------------------------------------------------------------
# Measurements, each in its own spawned process


def _peak_rss_mib() -> float:
    """Peak resident set size of this process in MiB (Linux reports ``ru_maxrss`` in KiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _register_axis(metric: str, dataset_axis: str) -> str:
    """The axis name to build ``dataset_axis`` under; registers it in this process if the workflow lacks it."""
    from biasflow.cairo import datasets
    from biasflow.cairo.datasets import bold, holisticbias

    axis = WORKFLOW_AXES.get((metric, dataset_axis))
    if axis is not None:
        return axis
    if metric == "BOLD":
        bold.DOMAIN_FILES[dataset_axis] = f"{dataset_axis}_prompt.json"
        bold.AXES = (*bold.AXES, dataset_axis)
    else:
        holisticbias.HB_AXES[dataset_axis] = dataset_axis
        holisticbias.AXES = (*holisticbias.AXES, dataset_axis)
    datasets.AXES = (*datasets.AXES, dataset_axis)
    return dataset_axis


def _job(name: str, kw: dict) -> dict:
    """Body of one spawned measurement process."""
    import pandas as pd  # imported before the job, so that ``imports`` counts it
    import pyarrow.parquet as pq

    import biasflow.cairo.datasets  # noqa: F401
    from biasflow.cache import ShardCache

    imports = _peak_rss_mib()
    result: dict = {}
    start = time.perf_counter()
    if name == "prompts":
        from biasflow.cairo.datasets import LoaderSettings, write_prompts

        tables = []
        for dataset_axis in kw["axes"]:
            axis = _register_axis(kw["metric"], dataset_axis)
            out = Path(kw["out_dir"]) / f"{kw['metric']}-{dataset_axis}.parquet"
            settings = LoaderSettings.defaults(subgroup_map=None, options={})
            write_prompts(
                data_dir=kw["data_dir"],
                metric=kw["metric"],
                axis=axis,
                settings=settings,
                outputs={"prompts": str(out)},
            )
            tables.append(out)
        seconds = time.perf_counter() - start
        result["rows"] = sum(pq.read_metadata(t).num_rows for t in tables)
    elif name == "floor":
        if kw["metric"] == "BOLD":
            rows = sum(floor_bold(Path(kw["data_dir"]) / f"{a}_prompt.json") for a in kw["axes"])
        else:
            rows = sum(floor_holisticbias(Path(kw["data_dir"]), a) for a in kw["axes"])
        seconds = time.perf_counter() - start
        result["rows"] = rows
    elif name == "cache_write":
        rows = pd.read_parquet(kw["rows"])
        start = time.perf_counter()
        cache = ShardCache(kw["directory"]) if kw["compaction"] else ShardCache(kw["directory"], compact_at=None)
        for offset in range(0, len(rows), kw["shard"]):
            cache.add(rows.iloc[offset : offset + kw["shard"]])
        seconds = time.perf_counter() - start
        result["rows"] = len(rows)
        result["shards"] = len(list(Path(kw["directory"]).glob("*.parquet")))
    elif name == "cache_load":
        keys = pd.read_parquet(kw["keys"])["key"].tolist()[:: kw["every"]]
        start = time.perf_counter()
        table = ShardCache(kw["directory"]).load(keys)
        seconds = time.perf_counter() - start
        assert len(table) == len(keys), (len(table), len(keys))
        result["rows"] = len(table)
        result["shards"] = len(list(Path(kw["directory"]).glob("*.parquet")))
    elif name == "score_read":
        from biasflow.scorers.cache import read_cache

        scores = read_cache(Path(kw["directory"]))
        seconds = time.perf_counter() - start
        result["rows"] = len(scores)
        result["shards"] = len(list(Path(kw["directory"]).glob("*.parquet")))
    elif name == "read_one":
        table = pd.read_parquet(kw["path"])
        seconds = time.perf_counter() - start
        result["rows"] = len(table)
        result["shards"] = 1
    else:
        raise ValueError(name)
    result.update(seconds=seconds, peak_mib=_peak_rss_mib(), imports_mib=imports)
    return result


def spawned(name: str, **kw) -> dict:
    """Run one measurement in a fresh process, so its time and peak memory are its own."""
    with ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("spawn")) as pool:
        return pool.submit(_job, name, kw).result()


# ---------------------------------------------------------------------------------------
# The two parts


def measure_prompts(workdir: Path, bold_sizes: dict, hb_sizes: dict, hb_kwargs: dict) -> list[dict]:
    bold_dir, hb_dir, out_dir = workdir / "BOLD", workdir / "HolisticBias-v1.0", workdir / "prompt-tables"
    out_dir.mkdir(parents=True, exist_ok=True)
    synthesise_bold(bold_dir, bold_sizes)
    synthesise_holisticbias(hb_dir, hb_sizes, **hb_kwargs)
    rows = []
    cases = [("BOLD", bold_dir, [a]) for a in bold_sizes] + [("HolisticBias", hb_dir, [a]) for a in hb_sizes]
    cases.append(("HolisticBias", hb_dir, list(hb_sizes)))  # every axis in one process: is memory bounded?
    for metric, data_dir, axes in cases:
        kw = {"metric": metric, "data_dir": str(data_dir), "axes": axes, "out_dir": str(out_dir)}
        ours, floor = spawned("prompts", **kw), spawned("floor", **kw)
        if ours["rows"] != floor["rows"]:
            raise AssertionError(
                f"{metric} {axes}: {ours['rows']} rows in the table, {floor['rows']} built by the floor"
            )
        what = axes[0] if len(axes) == 1 else f"all {len(axes)} axes, one process"
        rows.append(
            {
                "part": "prompts",
                "metric": metric,
                "what": what,
                "ours": ours,
                "baseline": floor,
                "baseline_name": "json.load + plain-Python strings",
                "workflow_axis": WORKFLOW_AXES.get((metric, axes[0])) if len(axes) == 1 else None,
            }
        )
        print(
            f"  {metric} {what}: {ours['rows']:,} rows, {ours['seconds']:.2f} s (floor {floor['seconds']:.2f} s), "
            f"peak {ours['peak_mib']:.0f} MiB",
            file=sys.stderr,
        )
    return rows


def synthetic_rows(entries: int, seed: int = 0):
    """``entries`` generation-cache rows as an arrow table: distinct keys and 20-word texts."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc

    rng = np.random.default_rng(seed)
    word = Words()
    vocabulary = pa.array([word() for _ in range(5000)])
    words = vocabulary.take(pa.array(rng.integers(0, len(vocabulary), entries * 20)))
    lists = pa.ListArray.from_arrays(pa.array(np.arange(0, entries * 20 + 1, 20, dtype=np.int32)), words)
    keys = [f"{k:016x}" for k in rng.choice(2**62, size=entries, replace=False)]
    return pa.table(
        {
            "key": pa.array(keys, pa.large_string()),
            "text": pc.binary_join(lists, " ").cast(pa.large_string()),
            "n_tokens": pa.array(rng.integers(1, 26, entries), pa.int64()),
        }
    )


def make_cache_inputs(workdir: str, entries: int, score_shard: int) -> dict:
    """The cache part's inputs, written by a spawned process so that this one stays small.

    (On Linux a child's ``ru_maxrss`` starts at its parent's resident size, so a parent
    holding a million rows would inflate every later measurement's peak.) Writes the rows in
    one file (the baseline's), their keys, the scores in one file, and the scorer cache as
    ``score_texts`` writes it: one shard per scoring job of ``score_shard`` texts.
    """
    import numpy as np
    import pyarrow as pa
    import pyarrow.parquet as pq

    from biasflow.cache import ShardCache

    workdir = Path(workdir)
    table = synthetic_rows(entries)
    pq.write_table(table, workdir / "one-file.parquet")
    pq.write_table(table.select(["key"]), workdir / "keys.parquet")
    scores = pa.table({"key": table["key"], "score": pa.array(np.random.default_rng(1).random(entries))})
    pq.write_table(scores, workdir / "scores-one-file.parquet")
    frame, writer = scores.to_pandas(), ShardCache(workdir / "scores" / "counting")
    for offset in range(0, entries, score_shard):
        writer.add(frame.iloc[offset : offset + score_shard])
    return {"bytes_one_file": (workdir / "one-file.parquet").stat().st_size}


def measure_cache(workdir: Path, entries: int, shard_sizes: list[int], score_shard: int) -> list[dict]:
    with ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("spawn")) as pool:
        pool.submit(make_cache_inputs, str(workdir), entries, score_shard).result()
    one, keys = workdir / "one-file.parquet", workdir / "keys.parquet"
    baseline = spawned("read_one", path=str(one))
    baseline_name = f"pd.read_parquet, one file of the {entries:,} rows"
    rows = []
    variants = [(size, True) for size in shard_sizes] + [(shard_sizes[0], False)]
    for shard, compaction in variants:
        label = f"shards of {shard:,}" + ("" if compaction else ", compaction off")
        directory = workdir / f"cache-{shard}-{compaction}"
        write = spawned("cache_write", rows=str(one), directory=str(directory), shard=shard, compaction=compaction)
        rows.append({"part": "cache", "what": f"write {entries:,} rows, {label}", "ours": write})
        for every, share in [(1, "all keys"), (100, "1% of keys")]:
            load = spawned("cache_load", directory=str(directory), keys=str(keys), every=every)
            rows.append(
                {
                    "part": "cache",
                    "what": f"ShardCache.load, {share}, {label}",
                    "ours": load,
                    "baseline": baseline,
                    "baseline_name": baseline_name,
                }
            )
        print(
            f"  cache {label}: written in {write['seconds']:.1f} s to {write['shards']} shards, "
            f"loaded in {rows[-2]['ours']['seconds']:.2f} s",
            file=sys.stderr,
        )
        shutil.rmtree(directory)
    read = spawned("score_read", directory=str(workdir / "scores" / "counting"))
    score_baseline = spawned("read_one", path=str(workdir / "scores-one-file.parquet"))
    rows.append(
        {
            "part": "cache",
            "what": f"scorer read_cache, shards of {score_shard:,}",
            "ours": read,
            "baseline": score_baseline,
            "baseline_name": f"pd.read_parquet, one file of the {entries:,} scores",
        }
    )
    rows.append({"part": "cache", "what": "baseline: pd.read_parquet, one file", "ours": baseline})
    return rows


def markdown_table(rows: list[dict]) -> str:
    lines = [
        "| part | what | rows | shards | s | baseline s | ratio | peak MiB | imports MiB | baseline peak MiB |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for row in rows:
        ours, base = row["ours"], row.get("baseline")
        what = row["what"] if row["part"] == "cache" else f"{row['metric']} {row['what']}"
        if row.get("workflow_axis"):
            what += f" (workflow axis {row['workflow_axis']})"
        ratio = f"{ours['seconds'] / base['seconds']:.1f}" if base else ""
        lines.append(
            f"| {row['part']} | {what} | {ours['rows']:,} | {ours.get('shards', '')} | {ours['seconds']:.2f} | "
            f"{base['seconds']:.2f} | {ratio} | {ours['peak_mib']:.0f} | {ours['imports_mib']:.0f} | "
            f"{base['peak_mib']:.0f} |"
            if base
            else f"| {row['part']} | {what} | {ours['rows']:,} | {ours.get('shards', '')} | "
            f"{ours['seconds']:.2f} | | | {ours['peak_mib']:.0f} | {ours['imports_mib']:.0f} | |"
        )
    return "\n".join(lines)


def parse_args(argv=None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--parts", nargs="+", choices=["prompts", "cache"], default=["prompts", "cache"])
    parser.add_argument("--entries", type=int, default=1_000_000, help="cache entries (default 1,000,000)")
    parser.add_argument(
        "--shard-sizes",
        type=int,
        nargs="+",
        default=[256, 4096],
        help="rows per generation-cache shard; the first is also run with compaction off",
    )
    parser.add_argument("--score-shard", type=int, default=10_000, help="rows per scorer-cache shard (one job's)")
    parser.add_argument("--quick", action="store_true", help="a tenth of the datasets, 50,000 entries: seconds")
    parser.add_argument("--workdir", help="where to synthesise (default: a temporary folder, removed at the end)")
    parser.add_argument("--json", default="benchmarks/out/scale.json", help="where to write the JSON report")
    return parser.parse_args(argv)


def main(argv=None) -> int:
    args = parse_args(argv)
    bold_sizes, hb_sizes, hb_kwargs = BOLD_SIZES, HB_SIZES, {}
    if args.quick:
        args.entries = min(args.entries, 50_000)
        bold_sizes = {axis: (n, total // 10) for axis, (n, total) in BOLD_SIZES.items()}
        hb_sizes = {axis: (max(d // 10, b), b, min(g, 2), f, p) for axis, (d, b, g, f, p) in HB_SIZES.items()}
        hb_kwargs = {"templates": 8, "must_be_noun": 2}
    workdir = Path(args.workdir) if args.workdir else Path(tempfile.mkdtemp(prefix="biasflow-bench-scale-"))
    workdir.mkdir(parents=True, exist_ok=True)
    rows = []
    try:
        if "prompts" in args.parts:
            rows += measure_prompts(workdir, bold_sizes, hb_sizes, hb_kwargs)
        if "cache" in args.parts:
            rows += measure_cache(workdir, args.entries, args.shard_sizes, args.score_shard)
    finally:
        if not args.workdir:
            shutil.rmtree(workdir, ignore_errors=True)
    print(markdown_table(rows))
    if args.json:
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        Path(args.json).write_text(json.dumps({"settings": vars(args), "rows": rows}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
