"""Backend for models served behind an OpenAI-compatible HTTP API.

This covers the official OpenAI API as well as local servers that speak the same
protocol (``vllm serve``, llama.cpp's server, and similar), so a model that cannot be
loaded in-process can still be evaluated.

Reproducibility is weaker than for the in-process backends: every request carries its
own ``seed`` (``Request.rng_seed()``), but OpenAI documents seeding as best-effort, so
the same request may return a different continuation on a later run. Servers that
implement seeding exactly (vLLM) do return the same text.

The key is read from the environment at construction and handed to the client only; it
is never part of this object's repr, of a log line, or of an error message.
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from typing import Any, cast

from biasflow.errors import BiasflowError
from biasflow.extras import require
from biasflow.models.base import Backend, Decoding, Generation, ModelSpec, ProgressCallback, Request

log = logging.getLogger(__name__)

OFFICIAL_BASE_URL = "https://api.openai.com/v1"
DEFAULT_API_KEY_ENV = "OPENAI_API_KEY"
DEFAULT_MAX_CONCURRENCY = 4
DEFAULT_TIMEOUT = 60.0
# Large jobs send thousands of requests; a few more retries than the client's default
# of 2 ride out rate limits without failing a job that is hours in.
DEFAULT_MAX_RETRIES = 5
# Requests in flight that a workflow job was granted; set by biasflow.snakemake_adapter.
GRANTED_REQUESTS = "BIASFLOW_API_REQUESTS"


def _import_openai():
    return require("openai", "the openai backend")


def request_params(decoding: Decoding, request: Request) -> dict:
    """The sampling arguments of one API call.

    ``top_k`` is not part of the OpenAI API. It is sent as an extra body field only when
    set, because vLLM and llama.cpp servers honour it while the official API rejects
    unknown fields; dropping it silently would change the decoding the cache key claims.
    Prompt truncation to ``max_prompt_tokens`` is not applied: the server's tokenizer is
    not available here, and cutting by words would only approximate it.
    """
    params: dict[str, Any] = {
        "temperature": decoding.temperature if decoding.do_sample else 0.0,
        "top_p": decoding.top_p,
        "max_tokens": decoding.max_new_tokens,
        "seed": request.rng_seed(),
    }
    if decoding.do_sample and decoding.top_k > 0:
        params["extra_body"] = {"top_k": decoding.top_k}
    return params


class OpenAIBackend(Backend):
    """Continuations from an OpenAI-compatible server.

    ``spec.model`` is the served model name. ``spec.options`` may set ``base_url``
    (default: ``$OPENAI_BASE_URL``, else the official API), ``api_key_env`` (the
    environment variable holding the key, default ``OPENAI_API_KEY``),
    ``max_concurrency`` (parallel requests, default 4), ``timeout`` (seconds per
    request) and ``max_retries`` (retries with exponential backoff on rate limits,
    timeouts, connection errors and server errors; done by the openai client).

    A spec without ``chat`` continues the prompt with the completions endpoint; with ``chat``
    sends it as one user message to the chat completions endpoint. Both get
    ``max_tokens``, the field every compatible server reads (OpenAI's reasoning models
    want ``max_completion_tokens`` instead and are not a target here).

    Each request sends ``seed=request.rng_seed()``, but OpenAI's seed is best-effort:
    the same request may give a different continuation on another run, so cached
    results are the record, not something a rerun reproduces.
    """

    name = "openai"
    # `model` names what the server serves; no weights are loaded here.
    local_weights = False
    trainable = False
    options = ("base_url", "api_key_env", "max_concurrency", "timeout", "max_retries")
    # Requests per call between cache saves: every answer that arrived is kept if a job stops.
    chunk_size = 256
    sampler = "server"

    @staticmethod
    def requests_in_flight(options: dict) -> int:
        """Requests this backend keeps open at once: its ``max_concurrency``."""
        return int(options.get("max_concurrency", DEFAULT_MAX_CONCURRENCY))

    @staticmethod
    def resolved(spec: ModelSpec) -> ModelSpec:
        """``spec`` as it is: the server decides the numbers it computes in."""
        return spec

    @staticmethod
    def check_environment(spec: ModelSpec, where: str = "") -> str:
        """The API key from the environment, checked before any job runs; an error names the variable.

        Only the variable's name appears in messages, never its value.
        """
        key_env = spec.options.get("api_key_env", DEFAULT_API_KEY_ENV)
        key = os.environ.get(key_env)
        if not key:
            prefix = f"{where}: " if where else ""
            raise BiasflowError(
                f"{prefix}model {spec.name!r} (openai backend) reads its API key from the environment "
                f"variable {key_env}, which is not set. Export it before running (any "
                f"non-empty value for a server that needs no key), or name another variable "
                f"with options.api_key_env."
            )
        return key

    def __init__(self, spec: ModelSpec, cache_dir: str | None = None):
        openai = _import_openai()
        self.spec = spec
        options = spec.options
        self.base_url = options.get("base_url") or os.environ.get("OPENAI_BASE_URL") or OFFICIAL_BASE_URL
        key = self.check_environment(spec)
        self.max_concurrency = self.requests_in_flight(options)
        # A workflow job may be granted fewer requests than the entry asks for: the global
        # `api` limit caps the sum over all jobs (profiles/default/config.yaml).
        granted = os.environ.get(GRANTED_REQUESTS)
        if granted:
            self.max_concurrency = min(self.max_concurrency, int(granted))
        if self.max_concurrency < 1:
            raise BiasflowError(f"Model {spec.name!r}: options.max_concurrency must be at least 1.")
        self._openai = openai
        self._lock = threading.Lock()
        self._usage = {"requests": 0, "prompt_tokens": 0, "completion_tokens": 0}
        self._client = openai.OpenAI(
            api_key=key,
            base_url=self.base_url,
            timeout=float(options.get("timeout", DEFAULT_TIMEOUT)),
            max_retries=int(options.get("max_retries", DEFAULT_MAX_RETRIES)),
        )

    def __repr__(self) -> str:
        return f"OpenAIBackend(model={self.spec.model!r}, base_url={self.base_url!r})"

    def generate(self, requests: Sequence[Request], progress: ProgressCallback | None = None) -> list[Generation]:
        """One continuation per request, in request order, ``max_concurrency`` at a time.

        ``progress(1)`` is called from the calling thread as each request finishes. The
        first failure cancels the requests not yet sent and is raised.
        """
        chat = self.spec.chat
        self._warn_long_prompts(requests)
        results: list[Generation | None] = [None] * len(requests)
        pool = ThreadPoolExecutor(max_workers=self.max_concurrency, thread_name_prefix="biasflow-openai")
        try:
            futures = {pool.submit(self._one, request, chat): i for i, request in enumerate(requests)}
            for future in as_completed(futures):
                results[futures[future]] = future.result()
                if progress is not None:
                    progress(1)
        finally:
            pool.shutdown(wait=True, cancel_futures=True)
        used = self.usage
        log.info(
            "model %s at %s: %d requests so far, %d prompt and %d completion tokens (as the server counts them)",
            self.spec.model,
            self.base_url,
            used["requests"],
            used["prompt_tokens"],
            used["completion_tokens"],
        )
        return cast("list[Generation]", results)  # every request's slot is filled above

    @property
    def usage(self) -> dict:
        """Requests answered and the tokens the server reported for them, since this backend was built."""
        with self._lock:
            return dict(self._usage)

    def _warn_long_prompts(self, requests: Sequence[Request]) -> None:
        """Say when the untruncated prompts certainly exceed the cap other backends apply.

        A word is at least one token, so more words than ``max_prompt_tokens`` means the
        prompt is longer than the cap and the comparison with other backends is off.
        """
        cap = self.spec.decoding.max_prompt_tokens
        n_long = sum(len(r.prompt.split()) > cap for r in requests)
        if n_long:
            log.warning(
                "%d prompt(s) have more than max_prompt_tokens=%d words; the openai backend sends prompts untruncated.",
                n_long,
                cap,
            )

    def _one(self, request: Request, chat: bool) -> Generation:
        params = request_params(self.spec.decoding, request)
        try:
            if chat:
                response = self._client.chat.completions.create(
                    model=self.spec.model,
                    messages=[{"role": "user", "content": request.prompt}],
                    **params,
                )
                text = response.choices[0].message.content or ""
            else:
                response = self._client.completions.create(model=self.spec.model, prompt=request.prompt, **params)
                text = response.choices[0].text or ""
        except (self._openai.APIStatusError, self._openai.APIConnectionError) as err:
            raise self._user_error(err, chat) from None
        except (self._openai.APIError, IndexError, AttributeError, TypeError, ValueError) as err:
            raise BiasflowError(
                f"The server at {self.base_url} gave model {self.spec.model!r} an answer that is not an OpenAI "
                f"{'chat completion' if chat else 'completion'} ({type(err).__name__}); is options.base_url the "
                "server's /v1 address?"
            ) from None
        usage = getattr(response, "usage", None)
        completion_tokens = getattr(usage, "completion_tokens", None)
        n_tokens = completion_tokens if completion_tokens is not None else len(text.split())
        with self._lock:
            self._usage["requests"] += 1
            self._usage["prompt_tokens"] += getattr(usage, "prompt_tokens", None) or 0
            self._usage["completion_tokens"] += completion_tokens or 0
        return Generation(text=text, n_tokens=n_tokens)

    def _user_error(self, err: Any, chat: bool) -> BiasflowError:
        """Turn a client error (an ``openai.APIStatusError`` or ``APIConnectionError``) into one clear message that
        names model and server.

        The server's own text is kept where it helps (a bad parameter, an unknown model)
        but with the key blanked out, and it is dropped for authentication failures,
        whose text often quotes part of the key.
        """
        openai = self._openai
        where = f"model {self.spec.model!r} at {self.base_url}"
        if isinstance(err, openai.APITimeoutError):
            return BiasflowError(
                f"No answer from {self.base_url} for model {self.spec.model!r} within {self._client.timeout} s, "
                "after all retries. Check the server, or raise options.timeout."
            )
        if isinstance(err, openai.APIConnectionError):
            return BiasflowError(
                f"Could not reach {self.base_url} for model {self.spec.model!r} after all "
                f"retries ({type(err).__name__}). Check that the server runs and options.base_url."
            )
        if isinstance(err, (openai.AuthenticationError, openai.PermissionDeniedError)):
            key_env = self.spec.options.get("api_key_env", DEFAULT_API_KEY_ENV)
            return BiasflowError(
                f"The server rejected the API key from ${key_env} for {where} "
                f"(HTTP {err.status_code}). Check the key and options.base_url."
            )
        detail = str(err.message).replace(self._client.api_key, "***")
        chat_hint = "" if chat else " If the model is a chat model, set chat: true in its entry."
        if isinstance(err, openai.NotFoundError):
            return BiasflowError(
                f"Not found: {where} ({detail}). Check the model name the server serves and "
                f"options.base_url (it usually ends in /v1).{chat_hint}"
            )
        if isinstance(err, openai.RateLimitError):
            return BiasflowError(
                f"Rate limit or quota exceeded for {where} after all retries ({detail}). "
                f"Lower options.max_concurrency or raise options.max_retries."
            )
        endpoint = "chat completions" if chat else "completions"
        hint = chat_hint if err.status_code in (400, 422) else ""
        return BiasflowError(f"The {endpoint} request for {where} failed with HTTP {err.status_code}: {detail}.{hint}")
