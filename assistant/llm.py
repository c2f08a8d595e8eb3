"""Which endpoint answers, and talking to it through LlamaIndex's OpenAILike.

Any OpenAI-compatible server works: OpenAI, vLLM, Ollama, LM Studio. We
retry 429 and 5xx ourselves with a short doubling backoff and never retry a
timeout, so a dead server fails in one ``request_timeout`` instead of
hanging for minutes; every failure becomes one ``LLMUnavailable`` line that
names the endpoint and says what to do. Every request first takes its
place in the endpoint's queue (``assistant.admission``): a busy endpoint
makes a request wait its turn, never fail.
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Callable, Generator, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, TypeVar

import httpx
import openai
from llama_index.core.llms import ChatMessage
from llama_index.llms.openai_like import OpenAILike

from assistant.admission import LOCAL_SLOTS, Gate, Place, queue_folder
from assistant.errors import ConfigError, LLMUnavailable
from assistant.settings import Settings

T = TypeVar("T")


@dataclass(frozen=True)
class Endpoint:
    """An OpenAI-compatible endpoint and the model to ask there (the key is
    kept out of its repr, so no log or traceback shows it)."""

    base_url: str
    model: str
    api_key: str = field(repr=False)
    local: bool = False


def describe_failure(exc: BaseException, endpoint: Endpoint, settings: Settings) -> str:
    """One line: what went wrong at which endpoint, and what to do."""
    where = f"LLM endpoint {endpoint.base_url}"
    if isinstance(exc, openai.APITimeoutError):
        return f"{where} did not answer within {settings.llm.request_timeout:g} s: check the server or raise PAPER_ASSISTANT_REQUEST_TIMEOUT."
    if isinstance(exc, openai.APIConnectionError):
        return f"Cannot reach {where}: start the server or set OPENAI_BASE_URL to a running one."
    if isinstance(exc, openai.AuthenticationError):
        return f"{where} rejected the API key (401): set OPENAI_API_KEY to a valid key."
    if isinstance(exc, openai.NotFoundError):
        return f"{where} has no model '{endpoint.model}' (404): set PAPER_ASSISTANT_MODEL to a model it serves."
    if isinstance(exc, openai.RateLimitError):
        return f"{where} is rate-limiting (429) after {settings.llm.max_retries} retries: wait a minute and ask again."
    if isinstance(exc, openai.APIStatusError):
        return f"{where} failed with HTTP {exc.status_code} after {settings.llm.max_retries} retries: check the server's log."
    if isinstance(exc, (json.JSONDecodeError, openai.APIResponseValidationError)):
        return f"{where} sent a reply that is not OpenAI JSON: is it an OpenAI-compatible /v1 URL?"
    if isinstance(exc, (httpx.HTTPError, openai.APIError)):
        return f"{where} cut the answer off ({type(exc).__name__}): ask again."
    return f"{where} failed ({type(exc).__name__}: {str(exc)[:120]})."


def _retryable(exc: BaseException) -> bool:
    return isinstance(exc, (openai.RateLimitError, openai.InternalServerError))


class LLMClient:
    """One endpoint's chat model with our retry policy and error messages."""

    def __init__(self, settings: Settings, endpoint: Endpoint) -> None:
        self.settings = settings
        self.endpoint = endpoint
        self.llm = OpenAILike(
            model=endpoint.model,
            api_base=endpoint.base_url,
            api_key=endpoint.api_key,
            is_chat_model=True,
            context_window=settings.llm.context_window,
            max_tokens=settings.answer.max_answer_tokens,
            temperature=settings.answer.temperature,
            timeout=settings.llm.request_timeout,
            max_retries=0,
        )
        #: The SDK itself, for what LlamaIndex does not expose: log-probabilities, a stream we can close.
        self.client = openai.OpenAI(base_url=endpoint.base_url, api_key=endpoint.api_key,
                                    timeout=settings.llm.request_timeout, max_retries=0)
        self.gate = gate_for(settings, endpoint)

    def count_tokens(self, text: str) -> int | None:
        """``text``'s length in the model's own tokens, from the server's
        tokenizer (llama.cpp's ``/extras/tokenize/count``, which the embedded
        server has); None where the endpoint has no such route. The OpenAI
        protocol reports ``usage`` only after a reply, and llama.cpp's server
        leaves it out of a stream."""
        root = self.endpoint.base_url.removesuffix("/").removesuffix("/v1")
        try:
            reply = httpx.post(f"{root}/extras/tokenize/count", json={"input": text, "model": self.endpoint.model},
                               headers={"Authorization": f"Bearer {self.endpoint.api_key}"},
                               timeout=self.settings.llm.request_timeout)
            return int(reply.json()["count"]) if reply.status_code == 200 else None
        except (httpx.HTTPError, ValueError, KeyError, TypeError):
            return None

    def _with_retries(self, call: Callable[[], T]) -> T:
        delay = self.settings.llm.retry_backoff
        for attempt in range(self.settings.llm.max_retries + 1):
            try:
                return call()
            except Exception as exc:
                if not _retryable(exc) or attempt == self.settings.llm.max_retries:
                    raise LLMUnavailable(describe_failure(exc, self.endpoint, self.settings)) from exc
                time.sleep(_retry_after(exc, delay))
                delay *= 2
        raise AssertionError("unreachable")

    @contextmanager
    def turn(self) -> Iterator[Turn]:
        """A place in the endpoint's queue for one or more requests: iterate
        its ``wait()`` to learn the place, then ask. Leaving (also by a
        cancelled generator) frees the place."""
        with self.gate.place() as place:
            yield Turn(self, place)

    def complete(self, messages: list[ChatMessage], max_tokens: int | None = None) -> str:
        """The whole reply to ``messages``, after waiting for its turn (a
        stream and its verdict go through ``turn()``)."""
        with self.turn() as turn:
            return turn.complete(messages, max_tokens)

    def _complete(self, messages: list[ChatMessage], max_tokens: int | None = None) -> str:
        """``max_tokens`` caps a short reply (a search query, a copied
        sentence), so a rambling model cannot hold the answer back."""
        llm = self.llm if max_tokens is None else self.llm.model_copy(update={"max_tokens": max_tokens})
        response = self._with_retries(lambda: llm.chat(messages))
        return (response.message.content or "").strip()

    def _stream(self, messages: list[ChatMessage]) -> Generator[str, None, str | None]:
        """Retries happen only before the first delta; a stream cut later
        raises LLMUnavailable. Closing this generator closes the HTTP stream
        at once (so the server stops writing an answer nobody reads), which
        is why it holds the SDK's stream itself rather than LlamaIndex's.
        Returns the finish reason ("length": cut at the token limit)."""
        stream = self._with_retries(lambda: self.client.chat.completions.create(
            model=self.endpoint.model, messages=_wire(messages), stream=True,
            max_tokens=self.settings.answer.max_answer_tokens, temperature=self.settings.answer.temperature))
        said = False
        finish: str | None = None
        with stream:
            try:
                for chunk in stream:
                    delta = chunk.choices[0].delta.content if chunk.choices else None
                    finish = (chunk.choices[0].finish_reason if chunk.choices else None) or finish
                    if delta:
                        said = True
                        yield delta
            except Exception as exc:
                raise LLMUnavailable(describe_failure(exc, self.endpoint, self.settings)) from exc
        if not said:
            raise LLMUnavailable(
                f"LLM endpoint {self.endpoint.base_url} sent an empty answer: is it an OpenAI-compatible /v1 URL?"
            )
        return finish

    def _yes_probability(self, messages: list[ChatMessage]) -> float | None:
        """P(yes) against P(no) for a yes/no question, from the first token's
        log-probabilities (the text answer, 1 or 0, where an endpoint gives
        none); None when the endpoint fails: the caller then decides alone."""
        try:
            reply = self.client.chat.completions.create(model=self.endpoint.model, messages=_wire(messages),
                                                        max_tokens=1, temperature=0, logprobs=True, top_logprobs=10)
        except (openai.OpenAIError, httpx.HTTPError):
            return None
        choice = reply.choices[0]
        tops = choice.logprobs.content[0].top_logprobs if choice.logprobs and choice.logprobs.content else []
        mass = {"yes": 0.0, "no": 0.0}
        for top in tops:
            word = top.token.strip().casefold()
            if word in mass:
                mass[word] += math.exp(top.logprob)
        if mass["yes"] + mass["no"] > 0:
            return mass["yes"] / (mass["yes"] + mass["no"])
        return 1.0 if (choice.message.content or "").strip().casefold().startswith("yes") else 0.0


class Turn:
    """One place in the endpoint's queue, held for several requests (an
    answer and then its yes/no verdict over the same prompt), so that no
    other request evicts the prompt the server cached in between."""

    def __init__(self, client: LLMClient, place: Place) -> None:
        self.client = client
        self.place = place
        self.endpoint = client.endpoint
        self._admitted = False
        #: Whether the last streamed reply stopped at the token limit (mid-sentence).
        self.cut = False

    def wait(self) -> Iterator[int]:
        """Yields how many requests are ahead while this one waits (five
        times a second); returns when admitted. Raises LLMBusy after the
        request timeout."""
        if not self._admitted:
            yield from self.place.wait()
            self._admitted = True

    def _admit(self) -> None:
        for _ in self.wait():
            pass

    def complete(self, messages: list[ChatMessage], max_tokens: int | None = None) -> str:
        self._admit()
        return self.client._complete(messages, max_tokens)

    def stream(self, messages: list[ChatMessage]) -> Generator[str, None, None]:
        self._admit()
        self.cut = (yield from self.client._stream(messages)) == "length"

    def yes_probability(self, messages: list[ChatMessage]) -> float | None:
        self._admit()
        return self.client._yes_probability(messages)


def gate_for(settings: Settings, endpoint: Endpoint) -> Gate:
    """The queue in front of ``endpoint``: the embedded server's beside its
    record (every process using it shares it), a remote endpoint's in the
    storage folder with ``max_concurrent_requests`` places (0: no queue)."""
    if endpoint.local:
        from assistant.local import record_path

        return Gate(record_path(settings).with_suffix(".queue"), LOCAL_SLOTS, settings.llm.request_timeout,
                    "The local model")
    return Gate(queue_folder(settings.index.resolved_storage(), endpoint.base_url),
                settings.llm.max_concurrent_requests, settings.llm.request_timeout, f"LLM endpoint {endpoint.base_url}")


def _wire(messages: list[ChatMessage]) -> Any:
    """LlamaIndex messages as the SDK sends them."""
    return [{"role": m.role.value, "content": m.content or ""} for m in messages]


def _retry_after(exc: BaseException, default: float) -> float:
    """Honour a server's Retry-After (capped at 10 s), else our backoff."""
    response = getattr(exc, "response", None)
    header = response.headers.get("retry-after") if response is not None else None
    try:
        return min(10.0, float(header)) if header is not None else default
    except ValueError:
        return default


def resolve_endpoint(settings: Settings) -> Endpoint:
    """The configured endpoint, else the embedded local model's server.
    The model is the first one the endpoint lists when PAPER_ASSISTANT_MODEL
    is unset (what vLLM, Ollama and LM Studio expect)."""
    if not settings.llm.base_url:
        from assistant.local import shared_server

        server = shared_server(settings)
        base_url = server.ensure()
        return Endpoint(base_url=base_url, model=server.model.alias, api_key=server.api_key, local=True)
    key = settings.llm.api_key.get_secret_value() if settings.llm.api_key else "not-needed"
    base_url = settings.llm.base_url.rstrip("/")
    endpoint = Endpoint(base_url=base_url, model=settings.llm.model or "", api_key=key)
    if settings.llm.model:
        return endpoint
    client = openai.OpenAI(base_url=base_url, api_key=key, timeout=min(settings.llm.request_timeout, 10.0),
                           max_retries=0)
    try:
        models = [m.id for m in client.models.list()]
    except Exception as exc:
        raise LLMUnavailable(describe_failure(exc, endpoint, settings)) from exc
    if not models:
        raise ConfigError(f"LLM endpoint {base_url} lists no models: set PAPER_ASSISTANT_MODEL.")
    return Endpoint(base_url=base_url, model=models[0], api_key=key)
