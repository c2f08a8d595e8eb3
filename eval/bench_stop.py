"""Stop time: SIGTERM to `paper-assistant ui` (idle, and with an answer in
flight) and to `paper-assistant ask` mid-answer, with the real local model.

Times from the signal until the command has exited AND its llama.cpp server
is gone (the port free), and says what the in-flight UI answer ended as.

Usage: python eval/bench_stop.py [--runs 3] [--storage DIR] [--local-model default|fast]
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from datetime import date
from pathlib import Path

from gradio_client import Client

from assistant import local
from assistant.settings import Settings

QUESTION = "How much EEG data was REVE pretrained on?"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def start(args: list[str], storage: Path, llm_port: int, model: str) -> subprocess.Popen[str]:
    env = {k: v for k, v in os.environ.items() if k not in {"OPENAI_BASE_URL", "OPENAI_API_BASE"}}
    env |= {"PAPER_ASSISTANT_LOCAL_PORT": str(llm_port), "PAPER_ASSISTANT_LOCAL_MODEL": model}
    return subprocess.Popen([sys.executable, "-m", "assistant.cli", *args, "--storage", str(storage)],
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=env)


def ready(ui_port: int, timeout: float = 300) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{ui_port}/health", timeout=2) as response:
                if json.load(response)["status"] == "ready":
                    return
        except (OSError, ValueError, urllib.error.URLError):
            pass
        time.sleep(0.2)
    raise SystemExit("the UI did not become ready")


def stopped(process: subprocess.Popen[str], record: local.ServerRecord) -> float:
    """SIGTERM ``process``; seconds until it exited and its server is gone."""
    begin = time.perf_counter()
    process.send_signal(signal.SIGTERM)
    process.wait(timeout=60)
    while record.serves() or not local._port_free(record.port):
        time.sleep(0.01)
    return time.perf_counter() - begin


def ui_run(storage: Path, settings: Settings, in_flight: bool) -> tuple[float, str]:
    ui_port, llm_port = free_port(), free_port()
    process = start(["ui", "--port", str(ui_port)], storage, llm_port, settings.local.local_model)
    ready(ui_port)
    record = local.read_record(local.record_path(settings, llm_port))
    assert record is not None
    outcome = "idle"
    if in_flight:
        job = Client(f"http://127.0.0.1:{ui_port}/", verbose=False, download_files=False).submit(
            "Ask", QUESTION, "All venues", None, None, api_name="/respond")
        while len(job.outputs()) < 4:  # the question, the sources, then tokens: the model is writing
            time.sleep(0.05)
    seconds = stopped(process, record)
    if in_flight:
        deadline = time.monotonic() + 5
        while not job.done() and time.monotonic() < deadline:
            time.sleep(0.05)
        try:
            text = job.outputs()[-1][0][-1]["content"][0]["text"]
        except (IndexError, KeyError, TypeError):
            text = ""
        outcome = ("extractive answer with sources" if "The LLM failed" in text
                   else "model's answer" if text and not text.startswith("_") else "no final answer")
    return seconds, outcome


def ask_run(storage: Path, settings: Settings) -> float:
    llm_port = free_port()
    process = start(["ask", QUESTION], storage, llm_port, settings.local.local_model)
    assert process.stdout is not None
    for line in process.stdout:
        if line.startswith("Reading:"):
            break
    record = local.read_record(local.record_path(settings, llm_port))
    assert record is not None
    return stopped(process, record)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--storage", type=Path, help="an index to serve (default: a temp index of the seeds)")
    parser.add_argument("--local-model", default="default", choices=sorted(local.MODELS))
    args = parser.parse_args()
    storage = args.storage or Path(tempfile.mkdtemp())
    if args.storage is None:
        subprocess.run([sys.executable, "-m", "assistant.cli", "ingest", "--storage", str(storage)],
                       check=True, capture_output=True)
    settings = Settings.load(storage=storage, local_model=args.local_model)
    local.model_file(settings)
    idle = [ui_run(storage, settings, in_flight=False)[0] for _ in range(args.runs)]
    busy = [ui_run(storage, settings, in_flight=True) for _ in range(args.runs)]
    asks = [ask_run(storage, settings) for _ in range(args.runs)]
    print(f"{date.today()} · stop time, SIGTERM to exit with the llama.cpp server gone and its port free "
          f"({args.local_model} model, {os.cpu_count()} cores, {args.runs} runs each):")
    for name, times in (("ui, idle", idle), ("ui, answer in flight", [s for s, _ in busy]),
                        ("ask, mid-answer", asks)):
        print(f"  {name}: median {statistics.median(times):.2f} s, max {max(times):.2f} s")
    print(f"  in-flight UI answers: {', '.join(outcome for _, outcome in busy)}")


if __name__ == "__main__":
    main()
