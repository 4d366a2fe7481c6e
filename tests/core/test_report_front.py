"""The report's front page after `make demo`, and what the README, docs/methods.md and the report say of CAIRO's
permutation floor, against what the demo's configuration gives (issue 39).

The front page is ``workflow/report/workflow.rst`` filled from :func:`biasflow.report_front.front_page`. Snakemake
renders it with Jinja (blocks trimmed), appends a link target per result of the report (named by its file name)
and per category, and turns the text into HTML with docutils; :func:`rendered` does the same here, so the
template's links are checked without a run (tests/workflow/test_workflow.py checks a real report).
"""

from __future__ import annotations

import copy
import re
import warnings
from collections import namedtuple
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from biasflow.config import read_config_files, resolve_bundled, validate_config
from biasflow.report_front import front_page
from workflow_helpers import REPO

DEMO_CONFIG = REPO / "config" / "config.yaml"
# A category of the report's results, as the template sees one: its name.
Category = namedtuple("Category", "name")
# What `make demo` computes: the main job, CAIRO's gender axis (of the embedded default's gender and religion).
DEMO_RESULTS = [
    "results/cairo/gender.csv",
    "results/cairo/gender_tables.html",
    "results/cairo/gender_comparisons.csv",
    "results/cairo/gender_variance.csv",
]


@pytest.fixture(scope="module")
def demo_config() -> dict:
    config = read_config_files([DEMO_CONFIG])
    validate_config(config)
    return resolve_bundled(config, REPO / "src" / "biasflow" / "data")


@pytest.fixture
def after_demo(tmp_path, monkeypatch, demo_config):
    """A working directory holding the files `make demo` writes that the front page looks at, and the config."""
    for path in DEMO_RESULTS:
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text("x\n")
    monkeypatch.chdir(tmp_path)
    return copy.deepcopy(demo_config)


def demo_floor(config: dict) -> float:
    """The demo's perm_p_floor, from its permutations counted here: (1 + identity draws) / (B + 1) (§1.8)."""
    n, draws, seed = (
        len(config["models"]),
        config["cairo"]["selection"]["permutations"],
        config["cairo"]["selection"]["seed"],
    )
    perms = np.random.default_rng(seed).permuted(np.tile(np.arange(n), (draws, 1)), axis=1)
    return (1 + sum(tuple(p) == tuple(range(n)) for p in perms)) / (draws + 1)


def rendered(page: dict, config: dict, records: list[tuple[str, str]]) -> str:
    """workflow.rst as Snakemake's report renders it, with ``records`` (category, path) the report's results."""
    from docutils.core import publish_parts
    from jinja2 import Environment

    categories: dict = {}
    for category, path in records:
        record = SimpleNamespace(path=Path(path), target=Path(path).name)
        categories.setdefault(Category(category), {}).setdefault("", []).append(record)
    names = dict.fromkeys(Path(path).name for _, path in records)  # the first result of a name gets the target
    targets = "".join(f"\n.. _{name}: javascript:show('{name}')" for name in names)
    targets += "".join(f"\n.. _{category.name}: javascript:category('{category.name}')" for category in categories)
    text = (REPO / "workflow" / "report" / "workflow.rst").read_text() + "\n" + targets + "\n"
    snakemake = SimpleNamespace(config={**config, "__report__": page})
    filled = (
        Environment(trim_blocks=True, lstrip_blocks=True)
        .from_string(text)
        .render(snakemake=snakemake, categories=categories, files=[])
    )
    with warnings.catch_warnings():  # docutils's notice of its next version's argument names
        warnings.simplefilter("ignore", PendingDeprecationWarning)
        return publish_parts(filled, writer_name="html")["html_body"]


def test_after_make_demo_the_front_page_lists_the_axis_computed_and_links_its_page(after_demo):
    """The embedded default names gender and religion; `make demo` computes gender only."""
    config = after_demo
    assert set(config["cairo"]["axes"]) == {"gender", "religion"}
    page = front_page(config, ["cairo"], REPO / "src" / "biasflow" / "data")
    [cairo] = page["methods"]
    assert "gender: BOLD, HolisticBias, HONEST" in cairo["settings"] and "religion" not in cairo["settings"]
    assert cairo["pages"] == ["results/cairo/gender_tables.html"]
    assert cairo["comparisons"] == ["results/cairo/gender_comparisons.csv"]
    assert cairo["variance"] == ["results/cairo/gender_variance.csv"]
    assert [line.split(":")[0] for line in page["data"]] == ["BOLD", "HONEST", "HolisticBias"]
    assert all("the small bundled set written by biasflow" in line for line in page["data"]), page["data"]
    html = rendered(
        page, config, [("CAIRO", "results/cairo/gender_tables.html"), ("CAIRO", "results/cairo/gender_curve.png")]
    )
    assert "religion" not in html and "System Message" not in html and "system-message" not in html
    assert re.search(
        r'<a class="reference external" href="javascript:show\(\'gender_tables.html\'\)">'
        r"gender_tables.html</a>",
        html,
    ), "the report's own page of the tables, linked"
    assert "results/cairo/gender_comparisons.csv" in html and "results/cairo/religion" not in html


def test_a_page_whose_file_name_another_result_shares_is_shown_as_its_path_not_linked(after_demo):
    """results/fairpair/summary.html and results/fpr/summary.html: a link by name would open the first of them."""
    shared = (("FairPair", "results/fairpair/summary.html"), ("Group FPR gaps", "results/fpr/summary.html"))
    page = {
        "methods": [
            {
                "name": name,
                "citation": "c",
                "models": ["m"],
                "settings": "s.",
                "pages": [path],
                "comparisons": [],
                "variance": [],
            }
            for name, path in shared
        ],
        "not_run": ["CAIRO"],
        "data": [],
    }
    html = rendered(
        page, after_demo, [("FairPair", "results/fairpair/summary.html"), ("FPR gaps", "results/fpr/summary.html")]
    )
    assert "System Message" not in html and "system-message" not in html
    assert 'href="javascript:show' not in html
    for path in ("results/fairpair/summary.html", "results/fpr/summary.html"):
        assert f'<tt class="docutils literal">{path}</tt>' in html


def test_what_the_readme_docs_and_report_say_of_4_models_is_what_their_floor_is(after_demo):
    """The demo's 4 models leave a floor of 0.036, below 0.05: "4 models cannot be significant" was wrong."""
    config = after_demo
    floor = demo_floor(config)
    assert len(config["models"]) == 4 and 0.025 < floor < 0.05 and f"{floor:.3f}" == "0.036"
    readme = " ".join((REPO / "README.md").read_text().split())
    methods = " ".join((REPO / "docs" / "methods.md").read_text().split())
    report = (REPO / "workflow" / "report" / "workflow.rst").read_text()
    for name, text in (("README.md", readme), ("docs/methods.md", methods), ("workflow.rst", report)):
        assert "cannot be significant" not in text, name
    assert (
        f"across 4 systems can barely be shown significant: with 4 models the permutation p-value cannot fall "
        f"below {floor:.3f}" in readme
    )
    assert f"0.161 with 3 models, {floor:.3f} with 4" in readme
    assert f"the draws give 0.161, {floor:.3f} and 0.007" in methods
    assert "with 4 it is below α, so p < 0.05 is reachable" in methods
    [cairo] = front_page(config, ["cairo"], REPO / "src" / "biasflow" / "data")["methods"]
    assert f"With 4 models the permutation p-value cannot fall below {floor:.3f} (perm_p_floor" in cairo["settings"]
    assert "within a factor of 2 of 0.05: p < 0.05 needs almost every other permutation" in cairo["settings"]


def test_the_readme_the_package_and_the_report_say_three_methods_from_four_papers():
    import biasflow

    readme = " ".join((REPO / "README.md").read_text().split())
    report = (REPO / "workflow" / "report" / "workflow.rst").read_text()
    for name, text in (("README.md", readme), ("biasflow", biasflow.__doc__), ("workflow.rst", report)):
        assert "three methods from four papers" in text, name


def test_the_verdicts_of_the_compare_pairs_come_first_where_their_tables_exist(after_demo):
    """The release question before the methods (docs/methods.md §7): a pair whose tables exist is stated, with the
    measures each method judged and a link to its page, one without is not; a page without pairs has no such
    section."""
    config = {
        **after_demo,
        "compare": [
            {"baseline": "smollm2-t1.0", "candidate": "smollm2-t0.7", "margin": {}},
            {"baseline": "smollm2-t1.0", "candidate": "gemma3-t1.0", "margin": {}},
        ],
    }
    folder = Path("results/compare/smollm2-t1.0_vs_smollm2-t0.7")
    folder.mkdir(parents=True)
    (folder / "cairo.csv").write_text(
        "measure_name,verdict,p_worse,p_worse_holm,margin\ngender BOLD Eq. 1,not worse,0.7,1.0,0.05\n"
        "religion BOLD Eq. 1,worse by more than the margin,0.001,0.002,0.05\n"
    )
    (folder / "cairo.html").write_text("<html></html>\n")
    page = front_page(config, ["cairo"], REPO / "src" / "biasflow" / "data")
    assert page["verdicts"] == [
        {
            "text": "Candidate ``smollm2-t0.7`` against baseline ``smollm2-t1.0``: **worse** over 2 measure(s) of 1 "
            "method(s). CAIRO: worse (2 measure(s): gender BOLD Eq. 1, religion BOLD Eq. 1; margin ±0.05).",
            "pages": ["results/compare/smollm2-t1.0_vs_smollm2-t0.7/cairo.html"],
            "methods": ["cairo"],
        }
    ]
    records = [
        ("CAIRO", "results/cairo/gender_tables.html"),
        ("Did the candidate get worse?", str(folder / "cairo.html")),
    ]
    html = rendered(page, config, records)
    assert "System Message" not in html and "system-message" not in html
    first = html.index("Did the candidate get worse?")
    assert first < html.index("What was run") and "gemma3-t1.0</tt>:" not in html
    assert "<strong>worse</strong> over 2 measure(s)" in html[first:]
    assert "javascript:show('cairo.html')" in html[first:], "the pair's page is linked"
    assert "Did the candidate get worse?" not in rendered({**page, "verdicts": []}, config, [])


def test_pairs_an_earlier_run_compared_are_stated_without_the_pairs_config_and_their_methods_are_not_not_run(
    after_demo,
):
    """The new user's case: `snakemake compare --configfile config/config.yaml pairs.yaml`, then `make report`
    (without pairs.yaml). The verdicts come from results/compare/; FairPair, compared but without its own tables,
    is said to be compared, not "not run"."""
    folder = Path("results/compare/smollm2-t1.0_vs_smollm2-t0.7")
    folder.mkdir(parents=True)
    (folder / "fairpair.csv").write_text(
        "measure_name,verdict,p_worse,p_worse_holm,margin\nsentiment excess R,not worse,0.4,0.4,0.025\n"
    )
    Path("results/compare/a_vs_not-a-model").mkdir(parents=True)  # not two models of this config: left out
    page = front_page(after_demo, ["cairo"], REPO / "src" / "biasflow" / "data")
    [line] = page["verdicts"]
    assert line["text"].startswith("Candidate ``smollm2-t0.7`` against baseline ``smollm2-t1.0``: **not worse**")
    assert page["compared_only"] == ["FairPair"] and "FairPair" not in page["not_run"]
    html = rendered(page, after_demo, [])
    assert "Compared in the verdicts above, its own tables not computed in this run: FairPair." in html
    assert "Not run, so not shown: FairPair" not in html
