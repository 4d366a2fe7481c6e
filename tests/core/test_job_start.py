"""A job starts quickly: what the scoring and generation scripts import pulls in neither scipy nor torch.

Nor does what the rules import: Snakemake loads them at every start, a dry run included
(1.7 s with them lazy against 2.6 s, on a finished tiny run).

Each workflow job is a fresh Python process, and the demo runs a dozen scoring jobs and one
generation job per model (a rerun, every one with its results cached): scipy.stats alone
added over a second to each job's start, and torch about two (benchmarks/README.md, the demo's
profile). scipy and torch are imported where they compute.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys

from workflow_helpers import REPO


def rules_import() -> list[str]:
    """The biasflow modules the rules import, which every Snakemake start (a dry run included) loads."""
    text = "\n".join(path.read_text() for path in [REPO / "Snakefile", *sorted((REPO / "rules").glob("*.smk"))])
    return sorted(set(re.findall(r"^from (biasflow[\w.]*) import", text, flags=re.M)))


SCRIPTS_IMPORT = {
    "score": ["biasflow.scorers.table", "biasflow.cairo.continuation_steps", "biasflow.snakemake_adapter"],
    "generate": ["biasflow.generation", "biasflow.cairo.continuation_steps", "biasflow.snakemake_adapter"],
    "snakemake": rules_import(),
}


def test_the_jobs_imports_and_resolving_auto_on_a_cpu_pull_in_neither_scipy_nor_torch():
    """One fresh interpreter imports what each job imports (the scripts' and the rules'), then resolves a cached
    generation job's dtype and engine for its cache key without loading torch or CTranslate2 (Linux on x86). An
    import only adds modules, so the three jobs' imports together pull in no more than each job's alone: each is
    clean when all are."""
    modules = sorted({module for job in SCRIPTS_IMPORT.values() for module in job})
    code = (
        f"import sys, json; import {', '.join(modules)}; "
        "imported = sorted({m.split('.')[0] for m in sys.modules} & {'scipy', 'torch', 'ctranslate2'}); "
        "from biasflow.models.dtypes import cpu_flags, default_device, resolve_dtype; "
        "from biasflow.models import backend_class, model_spec; "
        "readable = cpu_flags() is not None; resolve_dtype('auto', default_device()); "
        "backend_class('transformers').resolved(model_spec('m', {'model': 'some/model'})); "
        "print(json.dumps([imported, readable, sorted({'torch', 'ctranslate2'} & set(sys.modules))]))"
    )
    imported, readable, loaded = json.loads(
        subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    )
    assert imported == [], f"a job's imports pull in {imported}: {SCRIPTS_IMPORT}"
    if readable and default_device_is_cpu():
        assert not loaded, f"resolving auto on a CPU loaded {loaded}"


def default_device_is_cpu() -> bool:
    import torch

    return not torch.cuda.is_available()
