"""The adapter between Snakemake's ``snakemake`` script object and the library.

A workflow script is one call: :func:`run` with a function of the ``snakemake`` object
that passes its named inputs, outputs and params to one library step by keyword. This
module takes the object as it is given and never imports Snakemake. Logging
(and tqdm progress) go to the job's log file; a :class:`BiasflowError` becomes one line in
the log and on stderr plus a non-zero exit, so Snakemake removes the job's outputs and the
user sees what to fix without a traceback.
"""

from __future__ import annotations

import logging
import os
import sys
from collections.abc import Callable

from biasflow.errors import BiasflowError
from biasflow.models.openai_backend import GRANTED_REQUESTS


def run(job: Callable[[object], None], snakemake) -> None:
    # torch reads these when first imported, which happens inside the job.
    for variable in ("OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[variable] = str(snakemake.threads)
    # Requests in flight to an OpenAI-compatible server that Snakemake granted this job:
    # its `api` resource, capped by the global `api` limit; the backend reads it.
    granted = getattr(snakemake.resources, "api", 0)
    if granted:
        os.environ[GRANTED_REQUESTS] = str(granted)
    log_path = snakemake.log[0] if len(snakemake.log) else None
    # Left open on purpose: it is the job's stderr until the process exits (flushed below).
    stream = open(log_path, "w") if log_path else sys.stderr  # noqa: SIM115
    sys.stderr = stream  # tqdm and warnings go to the job's log
    logging.basicConfig(level=logging.INFO, stream=stream, format="%(asctime)s %(levelname)s %(message)s", force=True)
    try:
        job(snakemake)
    except BiasflowError as exc:
        logging.getLogger("biasflow").error("%s", exc)
        print(f"biasflow error: {exc}", file=sys.__stderr__)
        sys.exit(1)
    finally:
        stream.flush()
