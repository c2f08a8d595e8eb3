"""Several users at once: requests queue for the model in order of arrival,
across threads and processes, say how many are ahead, give up with a
"busy, N ahead" line after the request timeout, and free their place when
cancelled. Against the scripted OpenAI server made slow (``delay``), which
counts the requests it answers at once."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from llama_index.core.llms import ChatMessage, MessageRole

from assistant.admission import Gate, queue_folder
from assistant.answer import Assistant, Final, Token, Waiting
from assistant.llm import LLMClient, gate_for, resolve_endpoint
from assistant.settings import Settings

from .openai_server import ScriptedOpenAI
from .test_local import _real_model_available

ROOT = Path(__file__).resolve().parents[1]


def one_at_a_time(settings: Settings, **update: object) -> Settings:
    return settings.with_(max_concurrent_requests=1, **update)


def ask(text: str) -> list[ChatMessage]:
    return [ChatMessage(role=MessageRole.USER, content=text)]


def wait_until(condition: object, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():  # type: ignore[operator]
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.02)


def test_requests_go_one_at_a_time_in_order_of_arrival(answer_settings: Settings, server: ScriptedOpenAI) -> None:
    settings = one_at_a_time(answer_settings, request_timeout=30.0)
    server.delay = 0.15
    server.set_default(lambda body: f"reply to {body['messages'][-1]['content']}")
    client = LLMClient(settings, resolve_endpoint(settings))
    replies: dict[str, str] = {}
    threads = [threading.Thread(target=lambda n=n: replies.__setitem__(n, client.complete(ask(n))))
               for n in ("first", "second", "third", "fourth", "fifth")]
    for thread in threads:  # arrivals 50 ms apart, each while the first is still being answered
        thread.start()
        time.sleep(0.05)
    for thread in threads:
        thread.join(timeout=30)
    assert [r["messages"][-1]["content"] for r in server.requests] == ["first", "second", "third", "fourth", "fifth"]
    assert replies["third"] == "reply to third"
    assert server.max_in_flight == 1
    assert client.gate.live_tickets() == []


def test_no_limit_by_default_for_a_remote_endpoint(answer_settings: Settings, server: ScriptedOpenAI) -> None:
    server.delay = 0.3
    client = LLMClient(answer_settings, resolve_endpoint(answer_settings))
    threads = [threading.Thread(target=client.complete, args=(ask("hi"),)) for _ in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=10)
    assert server.max_in_flight == 3


def test_waiting_answer_says_how_many_are_ahead_then_streams(assistant: Assistant, answer_settings: Settings,
                                                             server: ScriptedOpenAI) -> None:
    settings = one_at_a_time(answer_settings, request_timeout=30.0)
    assistant = Assistant(settings, index=assistant.index)
    gate = assistant.llm.gate
    with gate.place() as first, gate.place() as second:
        for _ in first.wait():
            raise AssertionError("the first place is admitted at once")
        events = assistant.ask("What is SPINT?")
        waits = []
        for event in events:
            if isinstance(event, Waiting):
                waits.append(event.ahead)
                if len(waits) == 3:
                    break
        assert waits == [2, 2, 2] and second.ahead() == 1
    rest = list(events)
    assert [e.ahead for e in rest if isinstance(e, Waiting)] == []
    result = rest[-1].result
    assert any(isinstance(e, Token) for e in rest) and not result.error and result.timings["wait_ms"] > 0


def test_a_request_waiting_past_the_timeout_is_busy_not_unavailable(assistant: Assistant, answer_settings: Settings,
                                                                     server: ScriptedOpenAI) -> None:
    settings = one_at_a_time(answer_settings, request_timeout=0.5)
    assistant = Assistant(settings, index=assistant.index)
    with assistant.llm.gate.place():
        result = [e for e in assistant.ask("What is SPINT?")][-1].result
    assert result.extractive and result.extra["busy"] is True and result.citations
    assert f"LLM endpoint {server.base_url} is busy, 1 ahead of this request after 0.5 s of waiting" in result.error
    assert "PAPER_ASSISTANT_REQUEST_TIMEOUT" in result.error and server.requests == []
    assert assistant.llm.gate.live_tickets() == []


def test_cancelled_while_waiting_frees_the_place(assistant: Assistant, answer_settings: Settings,
                                                  server: ScriptedOpenAI) -> None:
    settings = one_at_a_time(answer_settings, request_timeout=30.0)
    assistant = Assistant(settings, index=assistant.index)
    gate = assistant.llm.gate
    with gate.place():
        events = assistant.ask("What is SPINT?")
        next(e for e in events if isinstance(e, Waiting))
        assert len(gate.live_tickets()) == 2
        events.close()  # what the UI does when the tab closes or a new question comes
        assert len(gate.live_tickets()) == 1
    assert server.requests == []


def test_cancelled_while_streaming_closes_the_stream(assistant: Assistant, answer_settings: Settings,
                                                     server: ScriptedOpenAI) -> None:
    settings = one_at_a_time(answer_settings, request_timeout=30.0)
    assistant = Assistant(settings, index=assistant.index)
    server.delay = 0.1
    server.set_default("SPINT decodes behaviour from neural populations of any size and order, say its authors. " * 5)
    events = assistant.ask("What is SPINT?")
    next(e for e in events if isinstance(e, Token))
    events.close()
    assert assistant.llm.gate.live_tickets() == []
    wait_until(lambda: server.in_flight == 0 and server.disconnects == 1, timeout=5)  # the server stopped writing


def test_queue_is_shared_by_processes_in_order(answer_settings: Settings, server: ScriptedOpenAI) -> None:
    """Three `ask` processes started together against an endpoint that takes
    one request at a time: all answered by the model, never two at once."""
    server.delay = 0.05
    server.set_default("SPINT is a transformer for neural decoding [1].")
    env = {**os.environ, "PYTHONPATH": str(ROOT), "OPENAI_BASE_URL": server.base_url, "PAPER_ASSISTANT_MODEL": "m",
           "OPENAI_API_KEY": "sk-test", "PAPER_ASSISTANT_MAX_CONCURRENT_REQUESTS": "1",
           "PAPER_ASSISTANT_REQUEST_TIMEOUT": "120", "PAPER_ASSISTANT_STORAGE": str(answer_settings.index.storage)}
    children = [subprocess.Popen([sys.executable, "-m", "assistant.cli", "ask", "What is SPINT?", "--json"],
                                 env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
                for _ in range(3)]
    outputs = [child.communicate(timeout=300) for child in children]
    for (out, err), child in zip(outputs, children, strict=True):
        assert child.returncode == 0, err
        result = json.loads(out)
        assert result["error"] is None and "transformer" in result["answer"]
    assert len(server.requests) == 3 and server.max_in_flight == 1
    assert any("Waiting for the model (1 ahead)" in err or "Waiting for the model (2 ahead)" in err
               for _, err in outputs)


def test_a_killed_process_loses_its_place(tmp_path: Path) -> None:
    """A process killed while it holds the model leaves a ticket nobody
    holds: the next in line goes on at once."""
    folder = queue_folder(tmp_path, "http://example/v1")
    script = ("import time; from pathlib import Path; from assistant.admission import Gate\n"
              f"place = Gate(Path({str(folder)!r}), 1, 60, 'x').place()\nprint('held', flush=True)\ntime.sleep(60)")
    holder = subprocess.Popen(
        [sys.executable, "-c", script],
        env={**os.environ, "PYTHONPATH": str(ROOT)}, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        gate = Gate(folder, 1, 30, "x")
        with gate.place() as place:
            waiting = place.wait()
            assert next(waiting) == 1
            os.kill(holder.pid, signal.SIGKILL)
            holder.wait()
            started = time.monotonic()
            for _ in waiting:  # admitted once the dead holder's ticket is seen unlocked
                assert time.monotonic() - started < 5
            assert place.ahead() == 0
    finally:
        holder.kill()


def test_remote_gate_lives_in_the_storage_folder(answer_settings: Settings) -> None:
    endpoint = resolve_endpoint(one_at_a_time(answer_settings))
    gate = gate_for(one_at_a_time(answer_settings), endpoint)
    assert gate.slots == 1 and gate.folder == queue_folder(answer_settings.index.resolved_storage(), endpoint.base_url)
    assert gate_for(answer_settings, endpoint).slots == 0


@pytest.mark.parametrize("value", ["-1", "x"])
def test_bad_limit_is_one_line(value: str, tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PAPER_ASSISTANT_MAX_CONCURRENT_REQUESTS": value}
    done = subprocess.run([sys.executable, "-m", "assistant.cli", "ask", "What is SPINT?", "--storage", str(tmp_path)],
                          env=env, capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert "PAPER_ASSISTANT_MAX_CONCURRENT_REQUESTS" in done.stderr and len(done.stderr.strip().splitlines()) == 1


def test_ui_status_stays_ready_when_busy(assistant: Assistant, answer_settings: Settings,
                                         server: ScriptedOpenAI) -> None:
    from ui.app import EndpointStatus

    settings = one_at_a_time(answer_settings, request_timeout=0.3)
    assistant = Assistant(settings, index=assistant.index)
    status = EndpointStatus(assistant, assistant.index.papers())
    status._ready()
    with assistant.llm.gate.place():
        busy = [e for e in assistant.ask("What is SPINT?")][-1]
    assert isinstance(busy, Final) and "busy" in (busy.result.error or "")
    status.note(busy.result)
    assert status.kind == "ready" and status.health() == {"status": "ready"}



@pytest.mark.slow
@pytest.mark.skipif(_real_model_available() is not None, reason=str(_real_model_available()))
def test_real_local_model_answers_everyone_at_once(seed_settings: Settings, tmp_path: Path) -> None:
    """Two sessions in this process and an `ask` process started with them,
    all on the real embedded model: each answered by the model (before the
    queue, the model cut all but one short with "an empty answer")."""
    import socket

    from assistant import local

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    models = seed_settings.index.resolved_storage() / "models"
    models.mkdir(exist_ok=True)
    for name in ("qwen2.5-coder-1.5b-instruct-q4_k_m.gguf", "qwen2.5-coder-1.5b-instruct-q4_k_m.verified"):
        shared = ROOT / "storage" / "models" / name  # reuse an assembled model rather than assemble 1.1 GB again
        if shared.exists() and not (models / name).exists():
            (models / name).symlink_to(shared.resolve())
    settings = seed_settings.with_(base_url=None, local_port=port, request_timeout=900.0)
    local._SERVERS.clear()
    assistant = Assistant(settings)
    try:
        assistant.llm  # noqa: B018 - start the server first, so the process below reuses it
        env = {**os.environ, "PYTHONPATH": str(ROOT), "PAPER_ASSISTANT_LOCAL_PORT": str(port),
               "PAPER_ASSISTANT_REQUEST_TIMEOUT": "900", "PAPER_ASSISTANT_STORAGE": str(settings.index.storage)}
        child = subprocess.Popen([sys.executable, "-m", "assistant.cli", "ask", "What is BigMaQ?", "--json"],
                                 env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        results: dict[str, object] = {}
        threads = [threading.Thread(target=lambda q=q: results.__setitem__(q, [e for e in assistant.ask(q)][-1]))
                   for q in ("What is SPINT?", "What is HetSyn?")]
        for thread in threads:
            thread.start()
        out, err = child.communicate(timeout=900)
        for thread in threads:
            thread.join(timeout=900)
        # in question order: the threads finish in whatever order the queue served them
        answers = [json.loads(out)] + [r.result.to_json() for q in ("What is SPINT?", "What is HetSyn?")
                                       if isinstance(r := results.get(q), Final)]
        assert child.returncode == 0, err
        assert len(answers) == 3
        for answer, name in zip(answers, ("BigMaQ", "SPINT", "HetSyn"), strict=True):
            assert answer["error"] is None and not answer["extractive"], answer["error"]
            assert answer["model"] == local.MODELS["default"].alias and answer["model_text"].strip()
            assert answer["sources"][0]["title"] == name
    finally:
        local.shared_server(settings).stop()
        local._SERVERS.clear()
