"""The one settings tree that the CLI, the UI and the library all read.

``Settings`` holds one section per concern (``index``, ``retrieval``,
``answer``, ``compare``, ``topics``, ``llm``, ``local``, ``ui``), so a
module takes the section it needs and a new knob has an obvious home.

Values come, highest priority first, from CLI flags, environment variables
(``PAPER_ASSISTANT_*`` and a few standard names such as ``OPENAI_BASE_URL``),
a ``.env`` file in the working directory, a named preset
(``PAPER_ASSISTANT_PRESET`` or ``--preset``: ``assistant/presets/NAME.toml``)
and the defaults. Each section is its own pydantic-settings class with the
same ``PAPER_ASSISTANT_`` prefix: field names are unique across the tree, so
every variable keeps the flat name it had before the tree existed.
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Callable, Mapping
from functools import cache
from pathlib import Path
from typing import Any, Literal, Self

import annotated_types
from pydantic import AliasChoices, BaseModel, Field, SecretStr, ValidationError, field_validator
from pydantic.fields import FieldInfo
from pydantic_core import ErrorDetails, PydanticCustomError
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
#: The shipped presets, one TOML file each (tables named after the sections).
PRESETS = Path(__file__).parent / "presets"
#: The preset when none is chosen: it sets nothing.
DEFAULT_PRESET = "default"


def set_offline_env() -> None:
    """Make every library we load behave offline (user overrides win)."""
    for key, value in OFFLINE_ENV.items():
        os.environ.setdefault(key, value)


_FROM_ENVIRONMENT = SettingsConfigDict(env_prefix="PAPER_ASSISTANT_", env_file=".env", extra="ignore",
                                       populate_by_name=True)


class Section(BaseSettings):
    """One section of the tree: reads its fields from the environment and
    ``.env`` under their flat ``PAPER_ASSISTANT_<FIELD>`` names."""

    model_config = _FROM_ENVIRONMENT

    @classmethod
    def build(cls, overrides: Mapping[str, Any], preset: Mapping[str, Any]) -> Self:
        """The section with ``overrides`` (flags) over the environment and
        ``.env``, over ``preset``, over the defaults. pydantic-settings ranks
        init values above the environment, so the preset fills only the
        fields that neither flags nor the environment set."""
        section = cls(**overrides)
        # model_fields_set holds what flags, the environment and .env gave
        fill = {name: value for name, value in preset.items() if name not in section.model_fields_set}
        return cls(**fill, **overrides) if fill else section


class IndexSettings(Section):
    """Where the index lives and how papers are embedded into it."""

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
    embed_batch_size: int = Field(
        default=8, ge=1, le=512, description="Chunks embedded per ONNX call (8 measured fastest on 2 cores)."
    )
    embed_threads: int = Field(default=0, ge=0, description="onnxruntime intra-op threads; 0 uses every core.")
    chunk_tokens: int = Field(
        default=128, ge=16, le=256, description="Word pieces per embedded chunk (the model truncates at 256): "
                                                "128 gave the best top-5 and top-1 once fused with BM25 "
                                                "(eval/bench_chunking.py). A change re-embeds every paper at "
                                                "the next ingest.")

    def resolved_storage(self) -> Path:
        """The storage folder as an absolute path (so messages name it clearly)."""
        return self.storage.expanduser().resolve()


#: How dense and BM25 are fused (see ``assistant.fusion``): by scores, or by ranks (RRF).
FusionMethod = Literal["scores", "ranks"]


class RetrievalSettings(Section):
    """Hybrid search: the fusion of the dense and BM25 rankings (tuned on the
    dev split, see README "Hybrid retrieval") and how a query is read."""

    top_k: int = Field(default=5, ge=1, le=100, description="Papers returned by search.")
    fusion: FusionMethod = Field(
        default="scores", description="How dense and BM25 are fused: each side's scores as a share of its best, "
                                      "averaged (scores), or reciprocal rank fusion (ranks, the fusion before; "
                                      "use weights 1:3 with it). See assistant/fusion.py.")
    dense_floor: float = Field(default=0.5, ge=0, le=1, description="Fusion `scores`: the cosine the dense "
                                                                    "side's best counts as when it is lower, so "
                                                                    "that for a query no paper is near in "
                                                                    "meaning the nearest is no full match.")
    rrf_k: float = Field(default=5.0, gt=0, le=1000, description="Reciprocal-rank-fusion constant (fusion "
                                                                  "`ranks`): lower favours each side's first ranks.")
    dense_weight: float = Field(default=1.0, ge=0, le=100, description="Weight of the dense (embedding) side "
                                                                       "in the fusion; 0 leaves it out.")
    lexical_weight: float = Field(default=1.0, ge=0, le=100, description="Weight of the BM25 side in the fusion.")
    retrieval_candidates: int = Field(default=100, ge=10, le=2000,
                                      description="Papers each side (dense, BM25) contributes to the fusion.")
    focus_relative: float = Field(default=0.3, ge=0, le=1, description="A paper enters an answer's prompt when "
                                                                       "its fused score is this share of the best.")
    name_weight: int = Field(default=3, ge=1, le=10, description="Times a paper's names (title, method name) are "
                                                                 "repeated in its BM25 text, so a query naming a "
                                                                 "method finds its paper before papers that merely "
                                                                 "cite it.")
    resolve_margin: float = Field(default=0.12, ge=0, le=1, description="A description ('the EEG foundation model') "
                                                                        "names one paper when its fused score leads "
                                                                        "the next by this much.")
    resolve_min_similarity: float = Field(default=0.25, ge=-1, le=1, description="Dense cosine below which a search "
                                                                                "hit cannot be the paper a "
                                                                                "description names.")
    question_filters: bool = Field(default=True, description="Take a venue or year named in the question "
                                                             "('from ICLR 2026', '2025年') as a filter.")
    query_translation: Literal["auto", "llm", "dictionary"] = Field(
        default="auto", description="How a Chinese (CJK) query is put into English for search: the LLM (cached), "
                                    "the bundled term dictionary, or auto (the dictionary when it knows a term of "
                                    "the query, else the LLM where the command uses one).")


class AnswerSettings(Section):
    """What goes into an answer's prompt, how long the model may write, and
    the checks that decide between its answer, quotes and the refusal."""

    answer_papers: int = Field(default=2, ge=1, le=20, description="Papers given to the model for a question (2, "
                                                                   "chosen on dev over 4: fewer refusals and "
                                                                   "misattributions, a shorter prompt).")
    each_max_papers: int = Field(
        default=4, ge=2, le=8, description="Most named papers one question is put to, paper by paper.")
    evidence_sentences: int = Field(default=3, ge=1, le=20, description="Sentences quoted per paper.")
    evidence_tokens: int = Field(
        default=330, ge=50, description="Budget (word pieces) for all quoted evidence in one prompt (330 with "
                                        "280 below, chosen on dev: 46 fewer than 380/330 at p50 for one fact "
                                        "of 112 in the evidence; the prompt is most of the first word's wait)."
    )
    whole_abstract_tokens: int = Field(
        default=280, ge=0, description="Word pieces of the top paper's abstract quoted: all of it when it fits, "
                                       "else without its least relevant sentences (0: only its best sentences)."
    )
    term_bonus: float = Field(default=0.3, ge=0, le=2, description="Added to a sentence's cosine per share of the "
                                                                   "question's terms it contains: the embedding "
                                                                   "alone misses exact names and numbers.")
    number_bonus: float = Field(default=0.15, ge=0, le=2, description="Added to a sentence holding a digit when the "
                                                                      "question asks how many or how much.")
    gist_words: int = Field(default=45, ge=5, le=500, description="Words of a paper's quoted line in a summary or "
                                                                  "list: one line per paper says what it does.")
    unrelated_below: float = Field(
        default=0.25, ge=-1, le=1, description="Dense cosine of the closest paper found below which no paper is "
                                               "about a question naming none: refused without the model (chosen on dev "
                                               "with score fusion: every answerable dev question's top paper is "
                                               "at 0.277 or more, four unanswerable ones below 0.25).")
    overrule_refusal: float = Field(
        default=0.75, ge=0, le=1, description="P(yes) that the sources state the answer from which a reply that "
                                              "gives no answer (a refusal, the question said back, no number for "
                                              "'how many') is replaced by the quoted sentence the model copies "
                                              "(calibrated on the dev split, after the evidence rules of "
                                              "`assistant.answerability`; 0.65 before the question led the "
                                              "prompt, which lifts P(yes): 0.75 and 0.80 the same on dev, 0.70 "
                                              "between them and 0.65)."
    )
    refuse_answer: float = Field(
        default=0.42, ge=0, le=1, description="P(yes) below which a model answer is replaced by the refusal "
                                             "(calibrated on the dev split)."
    )
    support_threshold: float = Field(
        default=0.55, ge=-1, le=1, description="Cosine at which a source sentence supports an answer sentence."
    )
    named_support_threshold: float = Field(
        default=0.4, ge=-1, le=1, description="Cosine at which a source sentence supports an answer sentence tied "
                                              "to that source: it states a coined name only that source holds "
                                              "(\"evaluated on GSM8K and BBH\"), or every word it adds to the "
                                              "question stands in one sentence of it (chosen on dev: 4 facts kept "
                                              "that 0.55 dropped, no wrong sentence let in).")
    aside_relative: float = Field(default=0.8, ge=0, le=1, description="On the single-question path, a paper "
                                                                     "the answer cites whose closest sentence is "
                                                                     "below this share of the best sentence's "
                                                                     "cosine to the question is an aside, left "
                                                                     "out (chosen on dev).")
    extractive_sentences: int = Field(default=2, ge=1, le=10, description="Sentences quoted as the answer when the "
                                                                          "model gives none (the one it copied and "
                                                                          "its paper's next ones, else the most "
                                                                          "relevant): enough to answer, few enough "
                                                                          "to read.")
    extractive_relative: float = Field(default=0.85, ge=0, le=1, description="A sentence joins that extractive "
                                                                             "answer at this share of the best "
                                                                             "one's relevance.")
    copy_overlap: float = Field(default=0.7, ge=0, le=1, description="Share of a sentence the model copied that "
                                                                     "must be one source sentence's words; below, "
                                                                     "it paraphrased or invented.")
    part_share: float = Field(default=0.5, ge=0, le=1, description="Share of the words a question's part alone "
                                                                   "asks that a sentence must say to be quoted "
                                                                   "for that part when the answer leaves it out.")
    max_answer_tokens: int = Field(default=400, ge=16, description="Tokens the model may generate.")
    short_reply_tokens: int = Field(default=40, ge=8, le=400, description="Tokens for a one-line reply (a "
                                                                          "rewritten follow-up, a translated "
                                                                          "query): a cap stops a rambling model "
                                                                          "early.")
    copy_tokens: int = Field(default=120, ge=16, le=1000, description="Tokens for the one source sentence the "
                                                                      "model copies when its answer is overruled.")
    temperature: float = Field(default=0.0, ge=0, le=2, description="Sampling temperature (0: the same answer "
                                                                    "every time).")


class CompareSettings(Section):
    """The comparison table: which sentence answers an aspect, and how a
    value the model extracts is kept short and true to its quote."""

    aspect_words_share: float = Field(default=0.5, ge=0, le=1, description="Share of an aspect's words a sentence "
                                                                           "holds to answer it whatever its cosine.")
    aspect_min_similarity: float = Field(default=0.45, ge=-1, le=1, description="Cosine from which a sentence "
                                                                                "answers an aspect without its "
                                                                                "words.")
    aspect_word_bonus: float = Field(default=0.3, ge=0, le=2, description="Added to the cosine per share of the "
                                                                          "aspect's words (a word few sentences "
                                                                          "say weighs more), ranking a sentence "
                                                                          "that says them first.")
    value_words: int = Field(default=12, ge=1, le=100, description="Most words of an extracted value; a longer "
                                                                   "reply is not a value and the cell keeps "
                                                                   "the quote.")
    value_tokens: int = Field(default=32, ge=8, le=400, description="Tokens the model may write for one value.")
    value_in_quote: float = Field(default=0.75, ge=0, le=1, description="Share of a value's words its quote must "
                                                                        "hold: below, the model made it up.")
    model_values: bool = Field(default=True, description="The LLM reads each quoted cell for its short value "
                                                         "(off: cells keep their quotes and copied links or "
                                                         "counts, and the whole answer comes sooner: the "
                                                         "values are half of a 5-paper answer on 2 cores).")


class TopicSettings(Section):
    """The topic map and topic summaries."""

    topic_max_papers: int = Field(default=12, ge=1, le=50, description="Most papers a topic summary covers.")
    topic_min_score: float = Field(
        default=0.55, ge=0, le=1, description="Fused search score (1: first on both sides) from which a paper "
                                              "belongs to a topic (chosen on dev with score fusion)."
    )
    topic_min_similarity: float = Field(
        default=0.2, ge=-1, le=1, description="Dense cosine below which a paper is off-topic whatever its rank."
    )
    topic_check_papers: int = Field(
        default=3, ge=0, le=12, description="Papers of a topic search the model judges, one at a time, when a "
                                            "word of the topic is in no indexed paper: the summary or list goes "
                                            "on at the first judged on topic, and is refused when none is "
                                            "(assistant.relevance). 0: no check."
    )
    topic_check_min: float = Field(
        default=0.44, ge=0, le=1, description="P(yes) that a paper is about the topic from which it is (calibrated "
                                              "on dev, 1.5B model: every answerable topic's best of three at 0.47 "
                                              "or more, the 5 absent ones the search let through at 0.42 or less)."
    )
    topics_per_sqrt_paper: float = Field(default=1.25, gt=0, le=10, description="The map has about this × √papers "
                                                                                "topics: 8 at 38 papers, 97 at 6k "
                                                                                "(eval/bench_topics.py).")
    topics_per_area: int = Field(default=5, ge=1, le=50, description="Topics per area on the map's upper level.")


class LLMSettings(Section):
    """The OpenAI-compatible endpoint and how it is called."""

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


class LocalSettings(Section):
    """The embedded local model, used when no endpoint is configured."""

    local_model: str = Field(default="default", description="'default' (Qwen2.5-Coder-1.5B) or 'fast' (0.5B).")
    local_port: int = Field(default=8765, ge=1, le=65535, description="Port of the local llama.cpp server.")
    local_threads: int = Field(default=0, ge=0, description="llama.cpp threads; 0 uses every core.")


class UISettings(Section):
    """The web UI's address and login."""

    ui_host: str = Field(default="127.0.0.1", description="Address the UI binds (0.0.0.0 serves the network).")
    ui_port: int = Field(default=7860, ge=1, le=65535, description="Port the UI serves on.")
    ui_auth: SecretStr | None = Field(default=None, description="USER:PASSWORD the UI asks for; unset: no login. "
                                                                "Never printed.")

    @field_validator("ui_auth")
    @classmethod
    def _user_and_password(cls, value: SecretStr | None) -> SecretStr | None:
        if value is not None and not all(value.get_secret_value().partition(":")[::2]):
            raise PydanticCustomError("user_password", "takes USER:PASSWORD")
        return value

    def credentials(self) -> tuple[str, str] | None:
        """The login as Gradio takes it, or None when the UI is open."""
        if self.ui_auth is None:
            return None
        user, _, password = self.ui_auth.get_secret_value().partition(":")
        return user, password


class _PresetChoice(BaseSettings):
    """Only the preset's name, read like every other setting (``PAPER_ASSISTANT_PRESET``, ``.env``)."""

    model_config = _FROM_ENVIRONMENT
    preset: str = DEFAULT_PRESET


def _section(name: str) -> Callable[[dict[str, Any]], Any]:
    """A default factory for section ``name`` from the environment and the
    preset already validated into ``data`` (so ``Settings()`` honours both)."""
    return lambda data: SECTIONS[name].build({}, preset_values(data["preset"]).get(name, {}))


class Settings(BaseModel):
    """Everything a user can configure, with the defaults that work offline.

    Build it with ``Settings.load(storage=..., top_k=...)`` (flat names, over
    the environment and the preset) or ``load_settings`` (the same, with
    one-line errors for the CLI); ``Settings()`` is ``Settings.load()``."""

    preset: str = Field(default_factory=lambda: _PresetChoice().preset,
                        description="The named preset under the environment (assistant/presets/NAME.toml).")
    index: IndexSettings = Field(default_factory=_section("index"))
    retrieval: RetrievalSettings = Field(default_factory=_section("retrieval"))
    answer: AnswerSettings = Field(default_factory=_section("answer"))
    compare: CompareSettings = Field(default_factory=_section("compare"))
    topics: TopicSettings = Field(default_factory=_section("topics"))
    llm: LLMSettings = Field(default_factory=_section("llm"))
    local: LocalSettings = Field(default_factory=_section("local"))
    ui: UISettings = Field(default_factory=_section("ui"))

    @classmethod
    def load(cls, **values: Any) -> Settings:
        """Settings with ``values`` by flat field name (``storage=``,
        ``top_k=``, ``preset=``) over the environment, ``.env``, the preset
        and the defaults. Raises ValidationError for a bad value, ConfigError
        for an unknown preset."""
        preset = values.pop("preset", None) or _PresetChoice().preset
        chosen = preset_values(preset)
        flat = _route(values)
        sections = {name: kind.build(flat.get(name, {}), chosen.get(name, {})) for name, kind in SECTIONS.items()}
        return cls.model_validate({"preset": preset, **sections})

    def with_(self, **values: Any) -> Settings:
        """A validated copy with ``values`` changed, by flat field name
        (``settings.with_(base_url=None, local_port=port)``): tests and
        benchmarks vary one knob without spelling out its section."""
        update = {}
        for name, changed in _route(values).items():
            section = getattr(self, name)
            update[name] = type(section).model_validate({**section.model_dump(), **changed})
        return self.model_copy(update=update)


#: The sections by their attribute on ``Settings``.
SECTIONS: dict[str, type[Section]] = {
    name: info.annotation for name, info in Settings.model_fields.items()
    if isinstance(info.annotation, type) and issubclass(info.annotation, Section)
}
#: Every field of the tree by its flat name, and the section it sits in.
FIELDS: dict[str, FieldInfo] = {field: info for kind in SECTIONS.values() for field, info in kind.model_fields.items()}
SECTION_OF: dict[str, str] = {field: name for name, kind in SECTIONS.items() for field in kind.model_fields}
assert len(FIELDS) == sum(len(kind.model_fields) for kind in SECTIONS.values()), "a field name is in two sections"


def preset_names() -> list[str]:
    return sorted(path.stem for path in PRESETS.glob("*.toml"))


@cache
def preset_values(name: str) -> dict[str, dict[str, Any]]:
    """The values preset ``name`` sets, by section; a ConfigError of one line
    for an unknown name (listing the known ones) or a key the tree lacks."""
    if name not in preset_names():
        raise ConfigError(f"Unknown preset '{name}' (PAPER_ASSISTANT_PRESET or --preset): use one of "
                          f"{', '.join(preset_names())}.")
    values = tomllib.loads((PRESETS / f"{name}.toml").read_text(encoding="utf-8"))
    for section, fields in values.items():
        unknown = sorted(set(fields) - set(SECTIONS[section].model_fields)) if section in SECTIONS else [section]
        if unknown:
            raise ConfigError(f"Preset '{name}' sets unknown settings: {', '.join(unknown)}.")
    return values


def _route(values: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """Flat field names grouped by section: ``{"top_k": 3}`` -> ``{"retrieval": {"top_k": 3}}``."""
    routed: dict[str, dict[str, Any]] = {}
    for field, value in values.items():
        if field not in SECTION_OF:
            raise TypeError(f"no setting named {field!r}")
        routed.setdefault(SECTION_OF[field], {})[field] = value
    return routed


def env_names(field: str) -> list[str]:
    """The environment variables that set ``field`` (a flat name), in the
    order pydantic tries them (an alias list, or ``PAPER_ASSISTANT_<FIELD>``)."""
    alias = FIELDS[field].validation_alias
    if isinstance(alias, AliasChoices):
        return [choice for choice in alias.choices if isinstance(choice, str) and choice.isupper()]
    return [f"{_FROM_ENVIRONMENT.get('env_prefix', '')}{field}".upper()]


def load_settings(overrides: Mapping[str, Any], flags: Mapping[str, str]) -> Settings:
    """Settings from ``overrides`` (command-line flags, by flat field name,
    and ``preset``) over the environment, ``.env`` and the preset. A bad value
    is a ConfigError of one line naming the flag or the variable it came from
    and what it accepts: pydantic's own report is several lines aimed at
    programmers."""
    try:
        return Settings.load(**overrides)
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
    info = FIELDS[field]
    kind = "a whole number" if info.annotation is int else "a number" if info.annotation is float else None
    if kind is None:  # not a number: pydantic's own words, without echoing a value that may be secret
        return f"{name}: {error['msg']}"
    return f"{name} must be {kind}{_range(info.metadata)} (got {error['input']!r})"


def _field_of(loc: str) -> str | None:
    """The field a validation error is about; pydantic reports an alias when
    the value came through one (``OPENAI_BASE_URL``)."""
    if loc in FIELDS:
        return loc
    return next((f for f in FIELDS if loc.upper() in env_names(f)), None)


def _range(metadata: list[Any]) -> str:
    """A field's bounds as words: " from 1 to 100", " of at least 512"."""
    bounds = {kind: getattr(item, kind) for item in metadata for kind in ("ge", "gt", "le", "lt")
              if isinstance(item, getattr(annotated_types, kind.capitalize()))}
    if "ge" in bounds and "le" in bounds:
        return f" from {bounds['ge']:g} to {bounds['le']:g}"
    words = {"ge": "of at least", "gt": "greater than", "le": "of at most", "lt": "less than"}
    parts = [f"{words[kind]} {value:g}" for kind, value in bounds.items()]
    return " " + " and ".join(parts) if parts else ""
