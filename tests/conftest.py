"""Shared fixtures: the real embedding model, and a temp index of the seeds
built once per test session."""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from pydantic import SecretStr

from assistant.answer import Assistant
from assistant.embedding import MiniLMEmbedding
from assistant.index import PaperIndex
from assistant.papers import load_papers, seed_files
from assistant.retrieve import PaperRetriever
from assistant.settings import Settings, set_offline_env

from .openai_server import ScriptedOpenAI

set_offline_env()

CORPORA = Path(__file__).resolve().parents[2] / "shared" / "corpora"


@pytest.fixture(scope="session")
def embedder() -> MiniLMEmbedding:
    return MiniLMEmbedding()


@pytest.fixture(scope="session")
def seed_settings(tmp_path_factory: pytest.TempPathFactory, embedder: MiniLMEmbedding) -> Settings:
    """Settings whose storage holds the 38 bundled seeds, ingested once."""
    settings = Settings.load(storage=tmp_path_factory.mktemp("seeds"))
    PaperIndex(settings, embedder).ingest(load_papers(seed_files()), progress=False)
    return settings


@pytest.fixture(scope="session")
def seed_index(seed_settings: Settings, embedder: MiniLMEmbedding) -> PaperIndex:
    return PaperIndex(seed_settings, embedder)


@pytest.fixture(scope="session")
def seed_retriever(seed_index: PaperIndex) -> PaperRetriever:
    return PaperRetriever(seed_index)


@pytest.fixture
def fresh_index(tmp_path: Path, embedder: MiniLMEmbedding) -> PaperIndex:
    """An empty index of its own, for tests that write."""
    return PaperIndex(Settings.load(storage=tmp_path / "storage"), embedder)


def corpus_records(limit: int | None = None) -> Iterator[dict]:
    """Real ICLR 2026 records from ../shared/corpora (skips when absent)."""
    path = CORPORA / "iclr2026.jsonl"
    if not path.exists():
        pytest.skip(f"{path} is not available")
    with path.open(encoding="utf-8") as handle:
        for n, line in enumerate(handle):
            if limit is not None and n >= limit:
                return
            yield json.loads(line)


def copy_storage(source: Path, target: Path) -> Path:
    """A writable copy of a storage folder whose 1.1 GB local model is a hard
    link, not a copy: ten copied folders per run filled CI's disk (2026-12-07).
    The model is only ever read; the index files, which tests write, are copied."""

    def copy(src: str, dst: str) -> None:
        if src.endswith(".gguf"):
            os.link(src, dst)
        else:
            shutil.copy2(src, dst)

    shutil.copytree(source, target, copy_function=copy)
    return target


def write_jsonl(path: Path, records: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8")
    return path


@pytest.fixture(scope="session")
def llm_server() -> Iterator[ScriptedOpenAI]:
    """A real OpenAI-protocol server on 127.0.0.1 with scripted replies."""
    with ScriptedOpenAI() as server:
        yield server


@pytest.fixture
def server(llm_server: ScriptedOpenAI) -> Iterator[ScriptedOpenAI]:
    """The shared server, reset before each test."""
    llm_server.reset()
    yield llm_server
    llm_server.reset()


@pytest.fixture
def answer_settings(seed_settings: Settings, server: ScriptedOpenAI) -> Settings:
    """Seed index + the scripted endpoint, with fast retries and timeouts."""
    return seed_settings.with_(
        base_url=server.base_url, model="test-model", api_key=SecretStr("sk-test-secret-123"),
        retry_backoff=0.0, max_retries=1, request_timeout=2.0,
    )


@pytest.fixture
def assistant(answer_settings: Settings, seed_index: PaperIndex) -> Assistant:
    return Assistant(answer_settings, index=seed_index)


def source_number(body: dict, name: str) -> int:
    """The number the prompt gave to the paper called ``name``."""
    import re

    prompt = body["messages"][-1]["content"]
    match = re.search(rf"^\[(\d+)\] {re.escape(name)} \(", prompt, re.MULTILINE)
    assert match, f"{name} not among the sources:\n{prompt}"
    return int(match.group(1))


def compare_replies(values: dict[str, dict[str, str]], narrative: str = "") -> Callable[[dict], str]:
    """A scripted reply for a comparison: a value request (one per stated
    cell) gets ``values[paper][aspect]`` ("none" when not given), every
    other request gets ``narrative``."""
    import re

    def reply(body: dict) -> str:
        prompt = body["messages"][-1]["content"]
        asked = re.search(r"^\[1\] (.+?): .*\n</sources>\n\nAspect: (.+)\n", prompt, re.MULTILINE)
        return narrative if asked is None else values.get(asked.group(1), {}).get(asked.group(2), "none")

    return reply
