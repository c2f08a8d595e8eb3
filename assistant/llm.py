"""Which endpoint answers, and talking to it through LlamaIndex's OpenAILike.

Any OpenAI-compatible server works: OpenAI, vLLM, Ollama, LM Studio. We
retry 429 and 5xx ourselves with a short doubling backoff and never retry a
timeout, so a dead server fails in one ``request_timeout`` instead of
hanging for minutes; every failure becomes one ``LLMUnavailable`` line that
names the endpoint and says what to do.
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, TypeVar, cast

import httpx
import openai
from llama_index.core.llms import ChatMessage
from llama_index.llms.openai_like import OpenAILike

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
        return f"{where} did not answer within {settings.request_timeout:g} s: check the server or raise PAPER_ASSISTANT_REQUEST_TIMEOUT."
    if isinstance(exc, openai.APIConnectionError):
        return f"Cannot reach {where}: start the server or set OPENAI_BASE_URL to a running one."
    if isinstance(exc, openai.AuthenticationError):
        return f"{where} rejected the API key (401): set OPENAI_API_KEY to a valid key."
    if isinstance(exc, openai.NotFoundError):
        return f"{where} has no model '{endpoint.model}' (404): set PAPER_ASSISTANT_MODEL to a model it serves."
    if isinstance(exc, openai.RateLimitError):
        return f"{where} is rate-limiting (429) after {settings.max_retries} retries: wait a minute and ask again."
    if isinstance(exc, openai.APIStatusError):
        return f"{where} failed with HTTP {exc.status_code} after {settings.max_retries} retries: check the server's log."
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
            context_window=settings.context_window,
            max_tokens=settings.max_answer_tokens,
            temperature=settings.temperature,
            timeout=settings.request_timeout,
            max_retries=0,
        )

    def _with_retries(self, call: Callable[[], T]) -> T:
        delay = self.settings.retry_backoff
        for attempt in range(self.settings.max_retries + 1):
            try:
                return call()
            except Exception as exc:
                if not _retryable(exc) or attempt == self.settings.max_retries:
                    raise LLMUnavailable(describe_failure(exc, self.endpoint, self.settings)) from exc
                time.sleep(_retry_after(exc, delay))
                delay *= 2
        raise AssertionError("unreachable")

    def complete(self, messages: list[ChatMessage], max_tokens: int | None = None) -> str:
        """The whole reply to ``messages``; at most ``max_tokens`` long when
        given, so that a reply meant to be a few words cannot ramble for a minute."""
        llm = self.llm if max_tokens is None else self.llm.model_copy(update={"max_tokens": max_tokens})
        response = self._with_retries(lambda: llm.chat(messages))
        return (response.message.content or "").strip()

    def stream(self, messages: list[ChatMessage]) -> Iterator[str]:
        """Text deltas of the reply as they arrive. Retries happen only
        before the first delta; a stream cut later raises LLMUnavailable."""
        stream = self._with_retries(lambda: _first_and_rest(self.llm.stream_chat(messages)))
        said = False
        try:
            for chunk in stream:
                if chunk.delta:
                    said = True
                    yield chunk.delta
        except Exception as exc:
            raise LLMUnavailable(describe_failure(exc, self.endpoint, self.settings)) from exc
        if not said:
            raise LLMUnavailable(
                f"LLM endpoint {self.endpoint.base_url} sent an empty answer: is it an OpenAI-compatible /v1 URL?"
            )


    def yes_probability(self, messages: list[ChatMessage]) -> float | None:
        """P(yes) against P(no) for a yes/no question, from the first token's
        log-probabilities (the text answer, 1 or 0, where an endpoint gives
        none); None when the endpoint fails: the caller then decides alone."""
        client = openai.OpenAI(base_url=self.endpoint.base_url, api_key=self.endpoint.api_key,
                               timeout=self.settings.request_timeout, max_retries=0)
        try:
            reply = client.chat.completions.create(
                model=self.endpoint.model, messages=cast(Any, [{"role": m.role.value, "content": m.content or ""}
                                                                for m in messages]),
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


def _first_and_rest(stream: Iterator[Any]) -> Iterator[Any]:
    """Pull the first chunk now (so connection errors surface inside the
    retry loop), then hand back an iterator over all of them."""
    first = next(stream, None)

    def chained() -> Iterator[Any]:
        if first is not None:
            yield first
        yield from stream

    return chained()


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
    if not settings.base_url:
        from assistant.local import shared_server

        server = shared_server(settings)
        base_url = server.ensure()
        return Endpoint(base_url=base_url, model=server.model.alias, api_key=server.api_key, local=True)
    key = settings.api_key.get_secret_value() if settings.api_key else "not-needed"
    base_url = settings.base_url.rstrip("/")
    endpoint = Endpoint(base_url=base_url, model=settings.model or "", api_key=key)
    if settings.model:
        return endpoint
    client = openai.OpenAI(base_url=base_url, api_key=key, timeout=min(settings.request_timeout, 10.0), max_retries=0)
    try:
        models = [m.id for m in client.models.list()]
    except Exception as exc:
        raise LLMUnavailable(describe_failure(exc, endpoint, settings)) from exc
    if not models:
        raise ConfigError(f"LLM endpoint {base_url} lists no models: set PAPER_ASSISTANT_MODEL.")
    return Endpoint(base_url=base_url, model=models[0], api_key=key)
