"""The one settings object that the CLI, the UI and the library all read.

Values come, highest priority first, from CLI flags (passed as init kwargs),
environment variables (``PAPER_ASSISTANT_*``), and a ``.env`` file in the
working directory. Keeping them in one place means the CLI and the app can
never disagree about where the index lives or how deep retrieval goes.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

import annotated_types
from pydantic import AliasChoices, Field, SecretStr, ValidationError
from pydantic_core import ErrorDetails
from pydantic_settings import BaseSettings, SettingsConfigDict

from assistant.errors import ConfigError

#: Variables that stop bundled libraries from phoning home; set at start-up.
OFFLINE_ENV = {
    "ORT_DISABLE_TELEMETRY": "1",
    "HF_HUB_OFFLINE": "1",
    "GRADIO_ANALYTICS_ENABLED": "False",
    "ANONYMIZED_TELEMETRY": "False",  # chromadb's posthog client
    "TOKENIZERS_PARALLELISM": "false",
}


def set_offline_env() -> None:
    """Make every library we load behave offline (user overrides win)."""
    for key, value in OFFLINE_ENV.items():
        os.environ.setdefault(key, value)


class Settings(BaseSettings):
    """Everything a user can configure, with the defaults that work offline."""

    model_config = SettingsConfigDict(
        env_prefix="PAPER_ASSISTANT_",
        env_file=".env",
        extra="ignore",
        populate_by_name=True,
    )

    storage: Path = Field(
        default=Path("storage"),
        description="Folder holding the persisted Chroma index and lexical index.",
    )
    collection: str = Field(
        default="papers",
        description="Chroma collection name (one collection per paper collection).",
    )
    chroma_url: str | None = Field(
        default=None,
        validation_alias=AliasChoices("chroma_url", "CHROMA_URL", "PAPER_ASSISTANT_CHROMA_URL"),
        description="A Chroma server (http://host:port) instead of the embedded store under `storage`.",
    )
    chroma_token: SecretStr | None = Field(
        default=None,
        validation_alias=AliasChoices("chroma_token", "CHROMA_AUTH_TOKEN", "PAPER_ASSISTANT_CHROMA_TOKEN"),
        description="Bearer token sent to the Chroma server (its token auth); never printed.",
    )
    top_k: int = Field(default=5, ge=1, le=100, description="Papers returned by search.")
    # -- retrieval (tuned on the dev split, see README "Hybrid retrieval") --
    rrf_k: float = Field(default=5.0, gt=0, le=1000, description="Reciprocal-rank-fusion constant: lower favours "
                                                                  "each side's first ranks.")
    dense_weight: float = Field(default=1.0, ge=0, le=100, description="Weight of the dense (embedding) ranking "
                                                                       "in the fusion; 0 leaves it out.")
    lexical_weight: float = Field(default=3.0, ge=0, le=100, description="Weight of the BM25 ranking in the fusion.")
    retrieval_candidates: int = Field(default=100, ge=10, le=2000,
                                      description="Papers each side (dense, BM25) contributes to the fusion.")
    focus_relative: float = Field(default=0.3, ge=0, le=1, description="A paper enters an answer's prompt when "
                                                                       "its fused score is this share of the best.")
    question_filters: bool = Field(default=True, description="Take a venue or year named in the question "
                                                             "('from ICLR 2026', '2025年') as a filter.")
    query_translation: Literal["auto", "llm", "dictionary"] = Field(
        default="auto", description="How a Chinese (CJK) query is put into English for search: the LLM (cached), "
                                    "the bundled term dictionary, or auto (the LLM where the command uses one).")
    embed_batch_size: int = Field(
        default=8, ge=1, le=512, description="Chunks embedded per ONNX call (8 measured fastest on 2 cores)."
    )
    embed_threads: int = Field(
        default=0,
        ge=0,
        description="onnxruntime intra-op threads; 0 uses every core.",
    )

    # -- the LLM endpoint -------------------------------------------------
    base_url: str | None = Field(
        default=None,
        validation_alias=AliasChoices("base_url", "PAPER_ASSISTANT_BASE_URL", "OPENAI_BASE_URL", "OPENAI_API_BASE"),
        description="OpenAI-compatible endpoint, e.g. https://api.openai.com/v1 or http://localhost:11434/v1.",
    )
    api_key: SecretStr | None = Field(
        default=None,
        validation_alias=AliasChoices("api_key", "PAPER_ASSISTANT_API_KEY", "OPENAI_API_KEY"),
        description="Key sent as a bearer token; never printed or logged.",
    )
    model: str | None = Field(
        default=None,
        description="Model name; when unset, the first model the endpoint lists.",
    )
    request_timeout: float = Field(default=120.0, gt=0, description="Seconds to wait for the LLM.")
    max_retries: int = Field(default=2, ge=0, le=10, description="Retries after 429/5xx replies.")
    retry_backoff: float = Field(default=1.0, ge=0, description="First retry delay in seconds (doubles).")
    max_concurrent_requests: int = Field(
        default=0, ge=0, le=1000, description="Most requests sent at once to a remote endpoint (a vLLM or OpenAI "
                                              "rate limit); more wait their turn in order. 0: no limit. The "
                                              "embedded model always takes one at a time."
    )
    context_window: int = Field(default=4096, ge=512, description="The model's context window in tokens.")
    max_answer_tokens: int = Field(default=400, ge=16, description="Tokens the model may generate.")
    temperature: float = Field(default=0.0, ge=0, le=2)
    # -- the embedded local model (used when no endpoint is configured) ---
    local_model: str = Field(default="default", description="'default' (Qwen2.5-Coder-1.5B) or 'fast' (0.5B).")
    local_port: int = Field(default=8765, ge=1, le=65535, description="Port of the local llama.cpp server.")
    local_threads: int = Field(default=0, ge=0, description="llama.cpp threads; 0 uses every core.")
    # -- what goes into the prompt -----------------------------------------
    answer_papers: int = Field(default=4, ge=1, le=20, description="Papers given to the model for a question.")
    each_max_papers: int = Field(
        default=4, ge=2, le=8, description="Most named papers one question is put to, paper by paper.")
    evidence_sentences: int = Field(default=3, ge=1, le=20, description="Sentences quoted per paper.")
    evidence_tokens: int = Field(
        default=450, ge=50, description="Budget (word pieces) for all quoted evidence in one prompt."
    )
    whole_abstract_tokens: int = Field(
        default=330, ge=0, description="The top paper's whole abstract is quoted when it has at most this many "
                                       "word pieces (0: never)."
    )
    overrule_refusal: float = Field(
        default=0.6, ge=0, le=1, description="P(yes) that the sources state the answer from which a model refusal "
                                             "is overruled with a quoted answer (calibrated on the dev split)."
    )
    refuse_answer: float = Field(
        default=0.45, ge=0, le=1, description="P(yes) below which a model answer is replaced by the refusal "
                                             "(calibrated on the dev split)."
    )
    topic_max_papers: int = Field(default=12, ge=1, le=50, description="Most papers a topic summary covers.")
    topic_min_score: float = Field(
        default=0.6, ge=0, le=1, description="Fused search score (share of the best possible: first in both "
                                             "rankings) from which a paper belongs to a topic (chosen on dev)."
    )
    topic_min_similarity: float = Field(
        default=0.2, ge=-1, le=1, description="Dense cosine below which a paper is off-topic whatever its rank."
    )
    support_threshold: float = Field(
        default=0.55, ge=-1, le=1, description="Cosine at which a source sentence supports an answer sentence."
    )

    def resolved_storage(self) -> Path:
        """The storage folder as an absolute path (so messages name it clearly)."""
        return self.storage.expanduser().resolve()


def env_names(field: str) -> list[str]:
    """The environment variables that set ``field``, in the order pydantic
    tries them (an alias list, or ``PAPER_ASSISTANT_<FIELD>``)."""
    alias = Settings.model_fields[field].validation_alias
    if isinstance(alias, AliasChoices):
        return [choice for choice in alias.choices if isinstance(choice, str) and choice.isupper()]
    return [f"{Settings.model_config.get('env_prefix', '')}{field}".upper()]


def load_settings(overrides: Mapping[str, Any], flags: Mapping[str, str]) -> Settings:
    """Settings from ``overrides`` (command-line flags) over the environment and
    ``.env``. A bad value is a ConfigError of one line naming the flag or the
    variable it came from and what it accepts: pydantic's own report is
    several lines aimed at programmers."""
    try:
        return Settings(**overrides)
    except ValidationError as exc:
        problems = [_problem(error, overrides, flags) for error in exc.errors()]
        raise ConfigError("; ".join(problems) + ".") from None


def _problem(error: ErrorDetails, overrides: Mapping[str, Any], flags: Mapping[str, str]) -> str:
    """One invalid value as a phrase: "--k must be a whole number from 1 to 100 (got 0)"."""
    field = _field_of(str(error["loc"][0]) if error["loc"] else "")
    if field is None:
        return f"invalid setting: {error['msg']}"
    if field in overrides:
        name = flags.get(field, "--" + field.replace("_", "-"))
    else:  # the environment, else the .env file: name the variable actually set when we can tell
        names = env_names(field)
        name = next((n for n in names if n in os.environ), names[0])
    info = Settings.model_fields[field]
    kind = "a whole number" if info.annotation is int else "a number" if info.annotation is float else None
    if kind is None:  # not a number: pydantic's own words, without echoing a value that may be secret
        return f"{name}: {error['msg']}"
    return f"{name} must be {kind}{_range(info.metadata)} (got {error['input']!r})"


def _field_of(loc: str) -> str | None:
    """The field a validation error is about; pydantic reports an alias when
    the value came through one (``OPENAI_BASE_URL``)."""
    if loc in Settings.model_fields:
        return loc
    return next((f for f in Settings.model_fields if loc.upper() in env_names(f)), None)


def _range(metadata: list[Any]) -> str:
    """A field's bounds as words: " from 1 to 100", " of at least 512"."""
    bounds = {kind: getattr(item, kind) for item in metadata for kind in ("ge", "gt", "le", "lt")
              if isinstance(item, getattr(annotated_types, kind.capitalize()))}
    if "ge" in bounds and "le" in bounds:
        return f" from {bounds['ge']:g} to {bounds['le']:g}"
    words = {"ge": "of at least", "gt": "greater than", "le": "of at most", "lt": "less than"}
    parts = [f"{words[kind]} {value:g}" for kind, value in bounds.items()]
    return " " + " and ".join(parts) if parts else ""
