"""The scripted OpenAI server speaks the protocol well enough for the real SDK,
including the faults other tests rely on it to produce."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

import httpx
import openai
import pytest

from .openai_server import ScriptedOpenAI

MESSAGES = [{"role": "user", "content": "What is retrieval augmented generation?"}]


@pytest.fixture
def server() -> Iterator[ScriptedOpenAI]:
    with ScriptedOpenAI() as srv:
        yield srv


@pytest.fixture
def client(server: ScriptedOpenAI) -> openai.OpenAI:
    return openai.OpenAI(base_url=server.base_url, api_key="sk-test", max_retries=0, timeout=2)


def _ask(client: openai.OpenAI, content: str = "hi") -> str | None:
    result = client.chat.completions.create(model="test-model", messages=[{"role": "user", "content": content}])
    return result.choices[0].message.content


def test_models_list(client: openai.OpenAI) -> None:
    assert [m.id for m in client.models.list()] == ["test-model"]


def test_non_streaming_reply_and_recorded_request(server: ScriptedOpenAI, client: openai.OpenAI) -> None:
    server.reply("Retrieval augmented generation grounds answers in documents.")
    result = client.chat.completions.create(model="test-model", messages=MESSAGES)
    assert result.choices[0].message.content == "Retrieval augmented generation grounds answers in documents."
    assert result.choices[0].finish_reason == "stop"
    assert result.usage is not None and result.usage.total_tokens == result.usage.prompt_tokens + 7
    (request,) = server.requests
    assert request["messages"] == MESSAGES
    assert request["_headers"]["authorization"] == "Bearer sk-test"
    # Empty queue: the default answers.
    server.set_default("default answer")
    assert _ask(client) == "default answer"


def test_streaming_reassembles_to_same_text(server: ScriptedOpenAI, client: openai.OpenAI) -> None:
    text = "  The quick brown fox\njumps over the lazy dog, twice.  "
    server.reply(text)
    stream = client.chat.completions.create(
        model="test-model", messages=MESSAGES, stream=True, stream_options={"include_usage": True}
    )
    chunks = list(stream)
    content = [c.choices[0].delta.content for c in chunks if c.choices and c.choices[0].delta.content]
    assert len(content) > 2  # really split into several events
    assert "".join(content) == text
    assert chunks[0].choices[0].delta.role == "assistant"
    assert [c.choices[0].finish_reason for c in chunks if c.choices][-1] == "stop"
    assert chunks[-1].choices == [] and chunks[-1].usage is not None


def test_a_reply_past_max_tokens_is_cut_with_finish_reason_length(server: ScriptedOpenAI,
                                                                  client: openai.OpenAI) -> None:
    server.reply("one two three four five six")
    result = client.chat.completions.create(model="test-model", messages=MESSAGES, max_tokens=4)
    assert result.choices[0].message.content == "one two three four" and result.choices[0].finish_reason == "length"
    server.reply("one two three four five six")
    chunks = list(client.chat.completions.create(model="test-model", messages=MESSAGES, max_tokens=4, stream=True))
    assert "".join(c.choices[0].delta.content or "" for c in chunks if c.choices) == "one two three four"
    assert [c.choices[0].finish_reason for c in chunks if c.choices][-1] == "length"


def test_callable_reply_sees_request(server: ScriptedOpenAI, client: openai.OpenAI) -> None:
    server.reply(lambda body: "you said: " + body["messages"][-1]["content"])
    assert _ask(client, "hello server") == "you said: hello server"


def test_api_key_enforced_when_configured() -> None:
    with ScriptedOpenAI(api_key="sk-right") as srv:
        good = openai.OpenAI(base_url=srv.base_url, api_key="sk-right", max_retries=0, timeout=2)
        bad = openai.OpenAI(base_url=srv.base_url, api_key="sk-wrong", max_retries=0, timeout=2)
        assert _ask(good) == "This is a scripted answer."
        with pytest.raises(openai.AuthenticationError):
            _ask(bad)


@pytest.mark.parametrize(
    ("kind", "error", "code"),
    [
        ("401", openai.AuthenticationError, "invalid_api_key"),
        ("404", openai.NotFoundError, "model_not_found"),
        ("429", openai.RateLimitError, "rate_limit_exceeded"),
        ("500", openai.InternalServerError, None),
    ],
)
def test_http_error_faults(
    server: ScriptedOpenAI, client: openai.OpenAI, kind: str, error: type[openai.APIStatusError], code: str | None
) -> None:
    server.fail(kind)
    with pytest.raises(error) as info:
        _ask(client)
    assert info.value.status_code == int(kind)
    assert info.value.code == code
    if kind == "429":
        assert info.value.response.headers["retry-after"] == "0"
    # A fault is used once; the next request is answered normally.
    assert _ask(client) == "This is a scripted answer."


def test_fault_then_reply_with_sdk_retries(server: ScriptedOpenAI) -> None:
    """Faults don't consume replies: a retrying client gets the queued answer."""
    retrying = openai.OpenAI(base_url=server.base_url, api_key="sk-test", max_retries=2, timeout=2)
    server.fail("429", times=2)
    server.reply("after the storm")
    assert _ask(retrying) == "after the storm"
    assert len(server.requests) == 3


def test_hang_times_out(server: ScriptedOpenAI, client: openai.OpenAI) -> None:
    server.fail("hang")
    started = time.monotonic()
    with pytest.raises(openai.APITimeoutError):
        _ask(client)
    assert time.monotonic() - started < 4


def test_stop_returns_promptly_while_hanging() -> None:
    srv = ScriptedOpenAI().start()
    srv.fail("hang")
    slow = openai.OpenAI(base_url=srv.base_url, api_key="sk-test", max_retries=0, timeout=20)
    with ThreadPoolExecutor(1) as pool:
        pending = pool.submit(_ask, slow)
        deadline = time.monotonic() + 2
        while not srv.requests and time.monotonic() < deadline:
            time.sleep(0.01)
        assert srv.requests, "the hanging request never arrived"
        started = time.monotonic()
        srv.stop()
        assert time.monotonic() - started < 1
        # Released by stop(): the server closes without answering.
        with pytest.raises(openai.APIConnectionError):
            pending.result(timeout=5)


def test_cut_during_stream_raises_while_iterating(server: ScriptedOpenAI, client: openai.OpenAI) -> None:
    server.reply("one two three four five six seven eight nine")
    server.fail("cut")
    stream = client.chat.completions.create(model="test-model", messages=MESSAGES, stream=True)
    received: list[str] = []
    # openai 2.54 does not wrap errors raised mid-stream: iteration raises the raw
    # httpx.RemoteProtocolError ("peer closed connection without sending complete
    # message body (incomplete chunked read)"), not an openai.APIError.
    with pytest.raises(httpx.RemoteProtocolError):
        for chunk in stream:
            received.append(chunk.choices[0].delta.content or "")
    assert "".join(received) == "one two three four five six "
    # The cut did not consume the queued reply.
    assert _ask(client) == "one two three four five six seven eight nine"


def test_cut_non_streaming_is_connection_error(server: ScriptedOpenAI, client: openai.OpenAI) -> None:
    server.fail("cut")
    # The body is read inside the SDK's request, so the truncated body surfaces
    # as openai.APIConnectionError (caused by httpx.RemoteProtocolError).
    with pytest.raises(openai.APIConnectionError):
        _ask(client)


def test_garbage_body(server: ScriptedOpenAI, client: openai.OpenAI) -> None:
    server.fail("garbage")
    # openai 2.54 parses a 200 application/json body with response.json() and
    # lets json.JSONDecodeError (a ValueError) escape unwrapped.
    with pytest.raises(json.JSONDecodeError):
        _ask(client)


def test_twenty_concurrent_requests(server: ScriptedOpenAI, client: openai.OpenAI) -> None:
    def echo_number(body: dict) -> str:
        match = re.search(r"\d+", body["messages"][-1]["content"])
        assert match
        return f"answer {match.group()}"

    server.set_default(echo_number)
    with ThreadPoolExecutor(20) as pool:
        answers = list(pool.map(lambda i: _ask(client, f"question {i}"), range(20)))
    assert answers == [f"answer {i}" for i in range(20)]
    assert len(server.requests) == 20


def test_reset_clears_script_and_requests(server: ScriptedOpenAI, client: openai.OpenAI) -> None:
    _ask(client, "recorded")
    server.reply("queued")
    server.fail("500")
    server.reset()
    assert server.requests == []
    assert _ask(client) == "This is a scripted answer."


def test_unknown_fault_kind_rejected(server: ScriptedOpenAI) -> None:
    with pytest.raises(ValueError):
        server.fail("418")
