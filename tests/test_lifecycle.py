"""Start and stop: stop signals end every command without leaving the local
llama.cpp server behind, a server a crash left behind is recognised by its
record (reused, or stopped), and a foreign process on the port is refused.
The server tests run the real local model through the real CLI."""

from __future__ import annotations

import json
import os
import queue
import signal
import socket
import stat
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from assistant import local
from assistant.errors import LLMUnavailable
from assistant.files import write_atomic
from assistant.llm import Endpoint
from assistant.settings import Settings

from .openai_server import ScriptedOpenAI
from .test_local import _real_model_available

real_model = pytest.mark.skipif(_real_model_available() is not None, reason=str(_real_model_available()))
#: Seconds a stopped command may take to exit with its server gone (the
#: server gets 1 s before SIGKILL; 5 s was once exceeded by a whole-suite run
#: on 2 cores, the same command stopping in about 2 s alone).
STOP_WITHIN_S = 10.0


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def port_free(port: int) -> bool:
    with socket.socket() as sock:
        return sock.connect_ex(("127.0.0.1", port)) != 0


class Command:
    """``python -m assistant.cli ...`` in a child process, its stdout read by
    a thread so a test can wait for a line without blocking forever."""

    def __init__(self, *args: str, storage: Path, llm_port: int) -> None:
        env = {k: v for k, v in os.environ.items() if k not in {"OPENAI_BASE_URL", "OPENAI_API_BASE",
                                                                 "PAPER_ASSISTANT_BASE_URL"}}
        env |= {"PAPER_ASSISTANT_LOCAL_PORT": str(llm_port), "PYTHONPATH": str(Path(__file__).parents[1])}
        self.process = subprocess.Popen([sys.executable, "-m", "assistant.cli", *args, "--storage", str(storage)],
                                        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
        self.lines: queue.Queue[str] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.put(line)

    def wait_for(self, text: str, timeout: float = 180.0) -> str:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                line = self.lines.get(timeout=0.5)
            except queue.Empty:
                assert self.process.poll() is None, f"exited {self.process.returncode}: {self.process.stderr.read()}"
                continue
            if text in line:
                return line
        raise AssertionError(f"no line with {text!r} within {timeout:.0f} s")

    def kill(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait()


@pytest.fixture
def llm_port(seed_settings: Settings) -> Iterator[int]:
    """A free port for the local server; whatever a test left on it is stopped after."""
    port = free_port()
    local.model_file(seed_settings, progress=False)  # assembled once here, not in each child
    yield port
    local.stop_recorded(seed_settings.with_(local_port=port))


def cli_json(*args: str, storage: Path, llm_port: int) -> dict:
    env = {**os.environ, "PAPER_ASSISTANT_LOCAL_PORT": str(llm_port)}
    done = subprocess.run([sys.executable, "-m", "assistant.cli", *args, "--storage", str(storage)],
                          capture_output=True, text=True, timeout=60, env=env, check=False)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_endpoint_repr_hides_the_key() -> None:
    endpoint = Endpoint(base_url="http://127.0.0.1:1/v1", model="m", api_key="sk-secret-123", local=True)
    assert "sk-secret-123" not in repr(endpoint) and "sk-secret-123" not in str(endpoint)


def test_atomic_write_is_whole_and_private(tmp_path: Path) -> None:
    path = tmp_path / "record.json"
    write_atomic(path, "secret", mode=0o600)
    assert path.read_text() == "secret" and stat.S_IMODE(path.stat().st_mode) == 0o600
    assert [p.name for p in tmp_path.iterdir()] == ["record.json"]


def test_foreign_process_on_the_port_is_never_reused(seed_settings: Settings, llm_server: ScriptedOpenAI) -> None:
    """An OpenAI server of someone else's on the port (it accepts any key),
    even with a record claiming it: refused with a one-line error."""
    port = int(llm_server.base_url.rsplit(":", 1)[1].split("/")[0])
    settings = seed_settings.with_(local_port=port)
    me = local._process(os.getpid())
    assert me is not None
    forged = local.ServerRecord(pid=os.getpid(), pid_start=me[0], port=port, model=local.MODELS["default"].alias,
                                started="now", owner=1, owner_start="", api_key="k")
    local.record_path(settings).parent.mkdir(parents=True, exist_ok=True)
    write_atomic(local.record_path(settings), json.dumps(forged.__dict__))
    assert not forged.serves() and not forged.healthy()
    with pytest.raises(LLMUnavailable, match=rf"^Port {port} is taken by another program.*PAPER_ASSISTANT_LOCAL_PORT"):
        local.LocalServer(settings).ensure()
    assert not local.record_path(settings).exists()  # the stale record is gone, the foreign process untouched
    assert llm_server.base_url and not port_free(port)


def health(port: int) -> tuple[int, dict]:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=5) as response:
            return response.status, json.load(response)
    except urllib.error.HTTPError as exc:
        return exc.code, json.load(exc)


@real_model
def test_sigterm_to_the_ui_stops_its_local_server(seed_settings: Settings, llm_port: int) -> None:
    """`paper-assistant ui` under a service manager: ready line, /health,
    `llm status --json`; SIGTERM stops the UI and the llama.cpp server it started."""
    ui_port = free_port()
    ui = Command("ui", "--port", str(ui_port), storage=seed_settings.index.storage, llm_port=llm_port)
    try:
        assert ui.wait_for("ready on").strip() == f"paper-assistant UI ready on http://127.0.0.1:{ui_port}"
        deadline = time.monotonic() + 180
        code, state = health(ui_port)
        while state["status"] != "ready" and time.monotonic() < deadline:
            assert code == 503 and state["status"] == "starting the model", state
            time.sleep(0.5)
            code, state = health(ui_port)
        assert (code, state) == (200, {"status": "ready"})

        path = local.record_path(seed_settings, llm_port)
        record = local.read_record(path)
        assert record is not None and record.serves() and record.owner == ui.process.pid
        assert stat.S_IMODE(path.stat().st_mode) == 0o600
        assert record.api_key not in Path(f"/proc/{record.pid}/cmdline").read_text()  # not shown by `ps`
        status = cli_json("llm", "status", "--json", storage=seed_settings.index.storage, llm_port=llm_port)["server"]
        assert status["pid"] == record.pid and status["port"] == llm_port and status["healthy"] is True
        assert status["owner"] == ui.process.pid and status["started"] == record.started

        start = time.monotonic()
        ui.process.send_signal(signal.SIGTERM)
        assert ui.process.wait(timeout=STOP_WITHIN_S) == 0
        while record.serves() and time.monotonic() - start < STOP_WITHIN_S:
            time.sleep(0.05)
        assert not record.serves(), "the llama.cpp server outlived the UI"
        assert port_free(llm_port) and port_free(ui_port) and not path.exists()
        assert time.monotonic() - start < STOP_WITHIN_S
    finally:
        ui.kill()


@real_model
def test_sigterm_mid_answer_cancels_it_and_writes_nothing(seed_settings: Settings, llm_port: int,
                                                         tmp_path: Path) -> None:
    """`ask` stopped while the model writes: exit 143, one line, no
    half-written --markdown file, no server left."""
    out = tmp_path / "answer.md"
    ask = Command("ask", "How much EEG data was REVE pretrained on?", "--markdown", str(out),
                  storage=seed_settings.index.storage, llm_port=llm_port)
    try:
        ask.wait_for("Reading:")  # sources printed: the model is writing now
        record = local.read_record(local.record_path(seed_settings, llm_port))
        assert record is not None and record.serves()
        ask.process.send_signal(signal.SIGTERM)
        assert ask.process.wait(timeout=STOP_WITHIN_S) == 128 + signal.SIGTERM
        assert ask.process.stderr.read().strip().splitlines()[-1].startswith("stopped by SIGTERM")
        assert not out.exists() and not list(tmp_path.iterdir())
        assert not record.serves() and port_free(llm_port)
    finally:
        ask.kill()


@real_model
def test_a_stop_whose_raise_was_lost_still_stops_the_answer_and_its_export(tmp_path: Path) -> None:
    """Python drops an exception raised while a finalizer runs: a stop
    signal handled there is recorded, and the next event raises it again."""
    import argparse

    from assistant import cli
    from assistant.result import Draft

    def events() -> Iterator[Draft]:
        yield Draft("quoted")
        cli._RECEIVED.append(signal.SIGTERM)  # the handler ran, its raise was swallowed
        yield Draft("more")

    out = tmp_path / "answer.md"
    try:
        with pytest.raises(cli.Stopped):
            cli._render(events(), argparse.Namespace(markdown=out, json=False))
    finally:
        cli._RECEIVED.clear()
    assert not out.exists()


#: A command under ``cli._stop_signals``: a stop signal handled inside a
#: finalizer (its raise lost, as Python drops it there), or during a cleanup
#: that outlasts ``REDELIVER_AFTER_S``; then work that never checks for a stop.
_STOP_SCRIPT = """
import signal, sys, time
from assistant import cli

class Finalized:
    def __del__(self):
        signal.raise_signal(signal.SIGTERM)

try:
    with cli._stop_signals(server=sys.argv[1] == "server"):
        if sys.argv[2] == "lost":
            Finalized()  # collected at once: the handler's raise happens in __del__
            print("raise lost", flush=True)
        else:
            try:
                signal.raise_signal(signal.SIGTERM)
            finally:
                try:
                    raise OSError("a cleanup's own error")
                except OSError:
                    time.sleep(2 * cli.REDELIVER_AFTER_S)
                time.sleep(2 * cli.REDELIVER_AFTER_S)
                print("cleanup done", flush=True)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            sum(range(10_000))
        print("ran on", flush=True)
except cli.Stopped as exc:
    print(f"stopped by {exc}", flush=True)
"""


def _stop_script(server: str, case: str) -> list[str]:
    done = subprocess.run([sys.executable, "-c", _STOP_SCRIPT, server, case], check=True, capture_output=True, text=True,
                          timeout=60, env=os.environ | {"PYTHONPATH": str(Path(__file__).parents[1])})
    return done.stdout.split("\n")[:-1]


def test_a_lost_stop_is_raised_again_while_the_command_runs_on() -> None:
    """The raise lost in a finalizer: the command is stopped within seconds,
    not at its next answer event (a whole prompt's reading away)."""
    lines = _stop_script("command", "lost")
    assert lines == ["raise lost", "stopped by SIGTERM"]  # before its 10 s of work ran out
    assert _stop_script("server", "lost") == ["raise lost", "ran on"]  # a server closes by itself


def test_a_stop_is_not_raised_again_into_the_cleanup_it_started() -> None:
    """A cleanup running for the stop (here with an error of its own) is
    left to finish, however long it takes."""
    assert _stop_script("command", "cleanup") == ["cleanup done", "stopped by SIGTERM"]


def test_crash_leftover_is_adopted_then_stopped_when_unhealthy(seed_settings: Settings, llm_port: int) -> None:
    """kill -9 of `llm serve` orphans its server: the next start reuses it
    (same pid, our key), a hung one is stopped and replaced, `llm stop` ends it."""
    settings = seed_settings.with_(local_port=llm_port)
    serve = Command("llm", "serve", storage=seed_settings.index.storage, llm_port=llm_port)
    try:
        serve.wait_for("Local model")
        serve.process.send_signal(signal.SIGKILL)
        serve.process.wait()
        orphan = local.read_record(local.record_path(settings))
        assert orphan is not None and orphan.serves() and not orphan.owner_alive()
        status = cli_json("llm", "status", "--json", storage=seed_settings.index.storage, llm_port=llm_port)["server"]
        assert status["pid"] == orphan.pid and status["healthy"] is True and status["owner"] is None

        adopter = local.LocalServer(settings)
        adopter.ensure()
        assert adopter.record is not None and adopter.record.pid == orphan.pid and adopter.owned
        assert adopter.api_key == orphan.api_key and adopter.record.owner == os.getpid()
        adopter.record, adopter.owned = None, False  # as if this process had crashed in turn
        local._OWNED.discard(adopter)

        os.kill(orphan.pid, signal.SIGSTOP)  # hung: it no longer answers
        fresh = local.LocalServer(settings)
        fresh.ensure()
        assert fresh.process is not None and fresh.record is not None and fresh.record.pid != orphan.pid
        assert not orphan.serves()
        done = subprocess.run([sys.executable, "-m", "assistant.cli", "llm", "stop", "--port", str(llm_port),
                               "--storage", str(seed_settings.index.storage)], capture_output=True, text=True, timeout=30, check=False)
        assert done.stdout.strip() == f"Stopped the local model server (pid {fresh.record.pid}, port {llm_port})."
        assert not fresh.record.serves() and port_free(llm_port)
        fresh.stop()
    finally:
        serve.kill()
