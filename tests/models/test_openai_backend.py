"""The OpenAI-compatible backend against a stand-in server on the loopback interface.

Only for what a real server cannot show (a real one, `transformers serve`, is in
test_openai_server.py): the exact request bodies and headers the client sends, answers
that arrive out of order under concurrency, and faults on demand (429 with Retry-After,
500 and 503, timeouts, malformed answers, rejected keys, a refused connection). The
server implements just enough of ``/v1/completions`` and ``/v1/chat/completions`` for the
openai client and records every request.
"""

from __future__ import annotations

import json
import sys
import threading
import time
from dataclasses import replace
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from biasflow.errors import BiasflowError
from biasflow.models.base import Decoding, ModelSpec, Request
from biasflow.models.openai_backend import OpenAIBackend, request_params
from specs import make_decoding, make_spec

KEY = "sk-test-0123456789-SECRET"


class FakeServer:
    """A threaded HTTP server on 127.0.0.1 that speaks a sliver of the OpenAI API."""

    def __init__(self, key: str = KEY):
        self.key = key
        self.calls: list[dict] = []
        # model name -> replies to give, in turn, before answering normally:
        # (status, payload (dict, or bytes sent as they are), headers, seconds to wait first)
        self.faults: dict[str, list[tuple]] = {}
        self.in_flight = 0
        self.max_in_flight = 0
        self.lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                auth = self.headers.get("Authorization", "")
                with server.lock:
                    server.calls.append({"path": self.path, "auth": auth, "body": body})
                    server.in_flight += 1
                    server.max_in_flight = max(server.max_in_flight, server.in_flight)
                try:
                    status, payload, headers, wait = server.fault(body) or (
                        *server.answer(self.path, auth, body),
                        {},
                        0,
                    )
                    time.sleep(wait)
                finally:
                    with server.lock:
                        server.in_flight -= 1
                data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
                try:
                    self.send_response(status)
                    for name, value in {"Content-Type": "application/json", **headers}.items():
                        self.send_header(name, value)
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (a timeout test)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.base_url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)

    def fault(self, body: dict) -> tuple | None:
        """The next scripted fault for this request's model, if any is left."""
        with self.lock:
            script = self.faults.get(body["model"])
            return script.pop(0) if script else None

    def answer(self, path: str, auth: str, body: dict) -> tuple[int, dict]:
        if auth != f"Bearer {self.key}":
            received = auth.removeprefix("Bearer ")
            return 401, {"error": {"message": f"Incorrect API key provided: {received}", "code": "invalid_api_key"}}
        if body["model"] == "missing-model":
            return 404, {"error": {"message": f"The model `{body['model']}` does not exist", "code": "model_not_found"}}
        usage = None if body["model"] == "no-usage" else {"prompt_tokens": 1, "completion_tokens": 7, "total_tokens": 8}
        if path == "/v1/completions":
            prompt = body["prompt"]
            self._delay(prompt)
            choice = {"index": 0, "text": f" after {prompt}", "finish_reason": "length", "logprobs": None}
            return 200, {
                "id": "c",
                "object": "text_completion",
                "created": 0,
                "model": body["model"],
                "choices": [choice],
                "usage": usage,
            }
        if path == "/v1/chat/completions":
            prompt = body["messages"][0]["content"]
            self._delay(prompt)
            choice = {
                "index": 0,
                "message": {"role": "assistant", "content": f"reply to {prompt}"},
                "finish_reason": "stop",
            }
            return 200, {
                "id": "c",
                "object": "chat.completion",
                "created": 0,
                "model": body["model"],
                "choices": [choice],
                "usage": usage,
            }
        return 404, {"error": {"message": f"no route {path}"}}

    @staticmethod
    def _delay(prompt: str) -> None:
        """Prompts named ``p<i>`` with a small ``i`` take longest, so completions arrive out of order."""
        if prompt.startswith("p") and prompt[1:].isdigit():
            time.sleep(max(0.0, 0.08 - 0.01 * int(prompt[1:])))

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def env(monkeypatch):
    """The key set, no base URL from the environment, and no proxy between client and loopback.

    The openai client's own backoff between retries starts at 0.01 s instead of 0.5 s: the retries and their
    count are what is tested here, the length of its waits is the client's (a Retry-After is still honoured).
    """
    pytest.importorskip("openai", reason="the openai backend needs: pip install -e '.[openai]'")
    monkeypatch.setattr("openai._base_client.INITIAL_RETRY_DELAY", 0.01)
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    for var in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"):
        monkeypatch.delenv(var, raising=False)
    return monkeypatch


@pytest.fixture
def server(env):
    with FakeServer() as fake:
        yield fake


def openai_spec(base_url: str, model: str = "fake-model", decoding: Decoding | None = None, **options) -> ModelSpec:
    return make_spec(
        name="fake",
        backend="openai",
        model=model,
        decoding=decoding or make_decoding(temperature=0.7, top_p=0.9, max_new_tokens=12),
        options={"base_url": base_url, "max_retries": 0, **options},
    )


def test_completions_endpoint_gets_the_decoding_settings(server):
    backend = OpenAIBackend(openai_spec(server.base_url))
    request = Request("The nurse said", seed=3, sample=1)

    [generation] = backend.generate([request])

    assert generation.text == " after The nurse said"
    assert generation.n_tokens == 7
    [call] = server.calls
    assert call["path"] == "/v1/completions"
    body = call["body"]
    assert body["model"] == "fake-model"
    assert body["prompt"] == "The nurse said"
    assert body["temperature"] == 0.7
    assert body["top_p"] == 0.9
    assert body["max_tokens"] == 12
    assert body["seed"] == request.rng_seed()
    assert "top_k" not in body


def test_chat_uses_chat_endpoint_with_one_user_message(server):
    backend = OpenAIBackend(replace(openai_spec(server.base_url), chat=True))

    [generation] = backend.generate([Request("Tell me about doctors")])

    assert generation.text == "reply to Tell me about doctors"
    [call] = server.calls
    assert call["path"] == "/v1/chat/completions"
    assert call["body"]["messages"] == [{"role": "user", "content": "Tell me about doctors"}]
    assert call["body"]["max_tokens"] == 12
    assert call["body"]["seed"] == Request("Tell me about doctors").rng_seed()


def test_greedy_sends_temperature_zero_and_top_k_only_when_sampling(server):
    greedy = OpenAIBackend(openai_spec(server.base_url, decoding=make_decoding(do_sample=False, top_k=40)))
    greedy.generate([Request("a")])
    sampled = OpenAIBackend(openai_spec(server.base_url, decoding=make_decoding(top_k=40)))
    sampled.generate([Request("b")])

    assert server.calls[0]["body"]["temperature"] == 0
    assert "top_k" not in server.calls[0]["body"]
    assert server.calls[1]["body"]["top_k"] == 40


def test_seed_differs_per_request_and_is_stable():
    decoding = make_decoding()
    a = request_params(decoding, Request("x", seed=0, sample=0))["seed"]
    assert a == request_params(decoding, Request("x", seed=0, sample=0))["seed"]
    assert a != request_params(decoding, Request("x", seed=0, sample=1))["seed"]
    assert a != request_params(decoding, Request("x", seed=1, sample=0))["seed"]


def test_order_is_preserved_under_concurrency(server):
    backend = OpenAIBackend(openai_spec(server.base_url, max_concurrency=4))
    requests = [Request(f"p{i}") for i in range(8)]
    finished = []

    generations = backend.generate(requests, progress=finished.append)

    assert [g.text for g in generations] == [f" after p{i}" for i in range(8)]
    assert server.max_in_flight > 1
    assert sum(finished) == 8


def test_missing_usage_falls_back_to_whitespace_count(server):
    backend = OpenAIBackend(openai_spec(server.base_url, model="no-usage"))

    [generation] = backend.generate([Request("one two")])

    assert generation.text == " after one two"
    assert generation.n_tokens == 3


def test_key_is_sent_as_bearer_but_never_shown(server):
    backend = OpenAIBackend(openai_spec(server.base_url))
    backend.generate([Request("hello")])

    assert server.calls[0]["auth"] == f"Bearer {KEY}"
    assert KEY not in repr(backend)
    assert KEY not in str(backend)


def test_rejected_key_is_a_biasflow_error_without_the_key(server):
    server.key = "the-key-the-server-wants"
    backend = OpenAIBackend(openai_spec(server.base_url))

    with pytest.raises(BiasflowError) as info:
        backend.generate([Request("hello")])

    message = str(info.value)
    assert "fake-model" in message and server.base_url in message
    assert "OPENAI_API_KEY" in message
    assert KEY not in message
    assert KEY not in repr(info.value)


def test_unknown_model_is_a_biasflow_error_naming_model_and_server(server):
    backend = OpenAIBackend(openai_spec(server.base_url, model="missing-model"))

    with pytest.raises(BiasflowError) as info:
        backend.generate([Request("hello")])

    message = str(info.value)
    assert "missing-model" in message and server.base_url in message
    assert KEY not in message


def test_unreachable_server_is_a_biasflow_error(env):
    with FakeServer() as fake:
        base_url = fake.base_url
    backend = OpenAIBackend(openai_spec(base_url, timeout=2))

    with pytest.raises(BiasflowError, match="Could not reach") as info:
        backend.generate([Request("hello")])
    assert KEY not in str(info.value)


def test_missing_key_variable_is_named(env):
    env.delenv("MY_SERVER_KEY", raising=False)

    with pytest.raises(BiasflowError, match="MY_SERVER_KEY"):
        OpenAIBackend(openai_spec("http://127.0.0.1:9/v1", api_key_env="MY_SERVER_KEY"))


def test_base_url_defaults_to_environment(env):
    env.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    spec = make_spec(name="fake", backend="openai", model="m")

    assert OpenAIBackend(spec).base_url == "http://127.0.0.1:9/v1"
    env.delenv("OPENAI_BASE_URL")
    assert OpenAIBackend(spec).base_url == "https://api.openai.com/v1"


def test_missing_openai_package_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "openai", None)

    with pytest.raises(BiasflowError, match=r"pip install -e '\.\[openai\]'"):
        OpenAIBackend(openai_spec("http://127.0.0.1:9/v1"))


# --- faults: retries with backoff, or one clear error; nothing computed is lost --------------

ERROR = {"error": {"message": "busy", "type": "server_error"}}


def timed_generate(backend, requests):
    start = time.perf_counter()
    generations = backend.generate(requests)
    return generations, time.perf_counter() - start


def test_a_429_is_retried_after_the_time_the_server_asks_for(server):
    server.faults["fake-model"] = [(429, ERROR, {"Retry-After": "1"}, 0)]
    backend = OpenAIBackend(openai_spec(server.base_url, max_retries=2))
    [generation], seconds = timed_generate(backend, [Request("hello")])
    assert generation.text == " after hello"
    assert len(server.calls) == 2 and seconds >= 1.0, "waited the Retry-After before the second call"


def test_server_errors_are_retried_with_backoff_then_succeed(server):
    server.faults["fake-model"] = [(500, ERROR, {}, 0), (503, ERROR, {}, 0)]
    backend = OpenAIBackend(openai_spec(server.base_url, max_retries=3))
    [generation] = backend.generate([Request("hello")])
    assert generation.text == " after hello" and len(server.calls) == 3


def test_retries_that_run_out_end_in_one_clear_error(server):
    server.faults["fake-model"] = [(503, ERROR, {}, 0)] * 3
    backend = OpenAIBackend(openai_spec(server.base_url, max_retries=2))
    with pytest.raises(BiasflowError, match="failed with HTTP 503") as info:
        backend.generate([Request("hello")])
    assert len(server.calls) == 3 and KEY not in str(info.value)
    server.faults["fake-model"] = [(429, ERROR, {"Retry-After": "0"}, 0)] * 2
    with pytest.raises(BiasflowError, match=r"Rate limit or quota exceeded.*max_concurrency"):
        OpenAIBackend(openai_spec(server.base_url, max_retries=1)).generate([Request("again")])


def test_a_timeout_is_retried_then_one_clear_error(server):
    server.faults["fake-model"] = [(200, {}, {}, 1)] * 2
    backend = OpenAIBackend(openai_spec(server.base_url, timeout=0.3, max_retries=1))
    with pytest.raises(BiasflowError, match=r"within 0\.3 s, after all retries.*options.timeout"):
        backend.generate([Request("hello")])
    assert len(server.calls) == 2


def test_a_malformed_answer_is_one_clear_error(server):
    backend = OpenAIBackend(openai_spec(server.base_url))
    server.faults["fake-model"] = [(200, b"<html>not json</html>", {"Content-Type": "text/html"}, 0)]
    with pytest.raises(BiasflowError, match=r"not an OpenAI completion.*/v1 address"):
        backend.generate([Request("hello")])
    server.faults["fake-model"] = [(200, {"id": "c", "object": "text_completion", "choices": []}, {}, 0)]
    with pytest.raises(BiasflowError, match="not an OpenAI completion"):
        backend.generate([Request("hello")])


def test_a_refused_connection_after_retries_loses_nothing_already_computed(server, tmp_path):
    """A job whose server goes away keeps every chunk it finished; the rerun asks only for the rest."""
    from biasflow.generation import CachedGenerator

    spec = openai_spec(server.base_url, max_retries=1)
    requests = [Request(f"q{i}") for i in range(6)]
    first = CachedGenerator(spec, str(tmp_path), chunk_size=2)
    first(requests[:4])
    assert len(server.calls) == 4
    moved = replace(spec, options={**spec.options, "base_url": "http://127.0.0.1:9/v1"})
    with pytest.raises(BiasflowError, match="Could not reach"):
        CachedGenerator(moved, str(tmp_path), chunk_size=2)(requests)
    calls_before = len(server.calls)
    texts = [g.text for g in CachedGenerator(spec, str(tmp_path), chunk_size=2)(requests)]
    assert texts == [f" after q{i}" for i in range(6)]
    assert len(server.calls) - calls_before == 2, "only the two requests never answered"
