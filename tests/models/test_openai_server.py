"""The OpenAI-compatible backend against a real server: `transformers serve` on the loopback
interface with a tiny local model, as a user would run a vLLM or llama.cpp server.

It generates, paraphrases and perturbs through the server, and runs the workflow's
paraphrasing with a recognisable fake key that must appear in no output, log, params file
or Snakemake metadata.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pandas as pd
import pytest

from biasflow.cairo.paraphrase import ParaphraseSettings, load_templates, paraphrase_prompts, template_files
from biasflow.fairpair.perturbation import PerturbationSettings, llm_perturb, load_perturbation_template
from biasflow.fairpair.prompts import PromptSettings, common_sents
from biasflow.generation import CachedGenerator
from biasflow.models import load_backend
from biasflow.models.base import ModelSpec, Request
from specs import make_decoding, make_spec
from workflow_helpers import snakemake, tiny_config, write_config

pytest.importorskip("openai", reason="the openai backend needs: pip install -e '.[openai]'")

KEY = "sk-biasflow-FAKE-KEY-7f3c9a1e5d"
KEY_ENV = "BIASFLOW_TEST_SERVER_KEY"
STARTUP_S = 60


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture(scope="module")
def served(tiny_models, tmp_path_factory):
    """(base URL, served model name) of `transformers serve` with the tiny chat model, offline."""
    if shutil.which("transformers", path=os.path.dirname(sys.executable)) is None:
        pytest.skip("`transformers serve` needs transformers[serving]: pip install -e '.[test]'")
    port = free_port()
    hub_cache = tmp_path_factory.mktemp("hub-cache")
    # One thread: the tiny model's steps are too small to share, and a second thread competes with the tests.
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "HF_HUB_CACHE": str(hub_cache), "OMP_NUM_THREADS": "1"}
    command = [
        str(Path(sys.executable).parent / "transformers"),
        "serve",
        str(tiny_models["tiny-chat"]),
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
    ]
    with open(tmp_path_factory.mktemp("server") / "serve.log", "w") as log:
        process = subprocess.Popen(command, env=env, stdout=log, stderr=subprocess.STDOUT)
        base = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + STARTUP_S
        while time.monotonic() < deadline:
            try:
                urllib.request.urlopen(f"{base}/health", timeout=1)
                break
            except OSError:
                if process.poll() is not None:
                    pytest.fail(f"transformers serve exited: {Path(log.name).read_text()[-2000:]}")
                time.sleep(0.5)
        else:
            process.kill()
            pytest.fail(f"transformers serve was not up within {STARTUP_S} s")
        yield f"{base}/v1", str(tiny_models["tiny-chat"])
        process.terminate()
        process.wait(timeout=30)


@pytest.fixture
def key(monkeypatch):
    monkeypatch.setenv(KEY_ENV, KEY)
    for var in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"):
        monkeypatch.delenv(var, raising=False)


def spec(served, chat=False, max_new_tokens=8, max_concurrency=2) -> ModelSpec:
    base_url, model = served
    return make_spec(
        name="served",
        backend="openai",
        model=model,
        chat=chat,
        decoding=make_decoding(max_new_tokens=max_new_tokens),
        options={"base_url": base_url, "api_key_env": KEY_ENV, "max_concurrency": max_concurrency},
    )


@pytest.mark.parametrize("chat", [False, True], ids=["completions", "chat"])
def test_seeded_requests_repeat_and_usage_is_counted(served, key, chat, tmp_path):
    """One request at a time: this server seeds its one global generator with each request's
    seed, so concurrent requests would interleave their draws (vLLM's server seeds each
    request apart; OpenAI's seed is best-effort)."""
    backend = load_backend(spec(served, chat, max_concurrency=1), str(tmp_path))
    requests = [Request("the woman worked as a", seed=0, sample=k) for k in range(4)]
    first = backend.generate(requests)
    again = backend.generate(list(reversed(requests)))
    assert [g.text for g in first] == [g.text for g in reversed(again)], "the server honours each request's seed"
    assert len({g.text for g in first}) > 1, "different samples differ"
    assert all(0 < g.n_tokens <= 8 for g in first)
    assert backend.usage["requests"] == 8
    assert backend.usage["completion_tokens"] == 2 * sum(g.n_tokens for g in first)


def test_paraphrase_and_perturb_through_the_server(served, key, tmp_path):
    originals = pd.DataFrame(
        {
            "prompt_id": ["a", "b"],
            "metric": "BOLD",
            "axis": "gender",
            "subgroup": ["female", "male"],
            "split": "valid",
            "group_key": ["k1", "k2"],
            "promptset": "original",
            "source_id": ["s1", "s2"],
            "text": ["the woman worked as a", "the man worked as a"],
            "identity_term": "",
        }
    )
    generator = CachedGenerator(spec(served, chat=True, max_new_tokens=12), str(tmp_path))
    settings = ParaphraseSettings.defaults(
        seeds=[0], max_attempts=2, min_ratio=0.01, max_ratio=100, keep_identity_term=False
    )
    rows, rejections = paraphrase_prompts(
        originals,
        lambda rs: [g.text for g in generator(rs)],
        paraphraser="served",
        chat=True,
        templates=load_templates(template_files(settings, chat=True)),
        settings=settings,
    )
    assert int(rejections["n_prompts"].sum()) == 2
    assert len(rows) + int(rejections["n_dropped"].sum()) == 2
    prompts = common_sents(PromptSettings.defaults().pairs, ["doctor"], [])
    continuations = pd.DataFrame(
        {
            "prompt_id": prompts["prompt_id"].iloc[0],
            "sample": [0, 1],
            "text": [" He said his day was long.", " He smiled."],
        }
    )
    perturbation = PerturbationSettings.defaults(method="llm")
    perturbed, counts = llm_perturb(
        prompts,
        continuations,
        lambda rs: [g.text for g in generator(rs)],
        entity_gender=perturbation.entity_gender,
        counterpart_gender=perturbation.counterpart_gender,
        max_jaccard=perturbation.max_jaccard,
        template=load_perturbation_template(perturbation.template),
    )
    assert int(counts["n"].sum()) == 2, "both continuations were sent and judged by the paper's filters"
    assert len(perturbed) == int(counts["n_accepted"].sum())


@pytest.mark.workflow
def test_workflow_paraphrases_through_the_server_and_never_shows_the_key(served, tiny_models, tmp_path):
    base_url, model = served
    config = tiny_config(tiny_models, tmp_path)
    config["paraphrasers"] = {
        "served": {
            "backend": "openai",
            "model": model,
            "chat": True,
            "decoding": {"max_new_tokens": 12},
            "options": {"base_url": base_url, "api_key_env": KEY_ENV, "max_concurrency": 2},
        }
    }
    write_config(config, tmp_path)
    missing = snakemake(tmp_path, "results/prompts/sets/BOLD/gender.parquet", check=False)
    assert missing.returncode != 0 and f"from the environment variable {KEY_ENV}, which is not set" in missing.stderr
    assert not (tmp_path / "results").exists(), "the key is checked before any job runs"
    result = snakemake(tmp_path, "results/prompts/sets/BOLD/gender.parquet", env={KEY_ENV: KEY})
    log = (tmp_path / "logs/paraphrase/served/gender.log").read_text()
    assert f"at {base_url}:" in log and "completion tokens (as the server counts them)" in log
    seen = [result.stdout, result.stderr]
    for path in tmp_path.rglob("*"):
        if path.is_file():
            seen.append(path.read_bytes().decode("utf-8", errors="replace"))
    assert not any(KEY in text for text in seen), "the API key leaked into an output, log or Snakemake metadata"
