"""Nothing trusted blindly: secrets out of reprs, the store's errors kept
apart from bugs (with the real cause behind PAPER_ASSISTANT_DEBUG), shared
state built once, and a starting endpoint not holding other sessions."""

from __future__ import annotations

import socket
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from assistant import answer
from assistant.answer import Assistant
from assistant.errors import LLMUnavailable, StorageError
from assistant.index import PaperIndex
from assistant.llm import Endpoint
from assistant.settings import Settings
from assistant.store import ChromaStore

from .test_cli import run_cli


def test_endpoint_repr_hides_the_key() -> None:
    endpoint = Endpoint(base_url="http://127.0.0.1:1/v1", model="m", api_key="sk-very-secret")
    assert "sk-very-secret" not in repr(endpoint) and "sk-very-secret" not in str(endpoint)


def test_a_bug_under_the_server_guard_stays_a_bug(tmp_path: Path) -> None:
    store = ChromaStore(Settings.load(storage=tmp_path, chroma_url="http://127.0.0.1:9"))
    with pytest.raises(KeyError), store.guard("read"):
        raise KeyError("paper_id")
    with pytest.raises(StorageError, match="Lost the Chroma server"), store.guard("read"):
        raise ConnectionRefusedError("refused")


def test_debug_shows_the_real_cause_of_a_store_error(tmp_path: Path) -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{sock.getsockname()[1]}"  # nothing listens there
    args = ("search", "EEG", "--chroma-url", url, "--storage", str(tmp_path))
    plain = run_cli(*args)
    assert plain.returncode == 1 and len(plain.stderr.strip().splitlines()) == 1 and "Chroma server" in plain.stderr
    debug = run_cli(*args, env={"PAPER_ASSISTANT_DEBUG": "1"})
    assert debug.returncode == 1 and "Traceback" in debug.stderr
    assert debug.stderr.strip().splitlines()[-1] == plain.stderr.strip()


def test_concurrent_first_use_builds_the_corpus_once(seed_settings: Settings, embedder) -> None:
    index = PaperIndex(seed_settings, embedder)
    start = threading.Barrier(8)

    def first_use(_: int) -> int:
        start.wait()
        return id(index.corpus)

    with ThreadPoolExecutor(8) as pool:
        assert len(set(pool.map(first_use, range(8)))) == 1


def test_a_starting_endpoint_does_not_hold_other_sessions(seed_index: PaperIndex, monkeypatch: pytest.MonkeyPatch
                                                          ) -> None:
    monkeypatch.setattr(answer, "LLM_START_WAIT_S", 0.5)
    with socket.socket() as silent:  # accepts connections, never answers: a server still loading
        silent.bind(("127.0.0.1", 0))
        silent.listen(8)
        settings = Settings.load(storage=seed_index.settings.index.storage, base_url=f"http://127.0.0.1:{silent.getsockname()[1]}/v1",
                            request_timeout=6.0)
        shared = Assistant(settings, index=seed_index)
        starter = threading.Thread(target=lambda: pytest.raises(LLMUnavailable, lambda: shared.llm))
        starter.start()
        time.sleep(0.3)
        began = time.monotonic()
        with pytest.raises(LLMUnavailable, match="still starting"):
            shared.llm  # noqa: B018 - the property starts the endpoint
        assert time.monotonic() - began < 3.0
        starter.join(timeout=30)
