"""Several people at once on the embedded model: UI sessions (through
gradio_client, each its own browser session) and `paper-assistant chat`
processes, two turns each (a question, then a follow-up that needs the
first turn to make sense), all started together against one `paper-assistant
ui` serving the real local model.

Checks that every answer came from the model (no "LLM failed" note, no
error) and that each follow-up was answered about its own session's paper,
then prints, per run: wait in the model's queue p50/p95 (UI sessions: from
the first "Waiting for the model" to the first word of the answer), answer
time p50/p95 (send to checked answer) and answers per minute.

    python eval/bench_load.py [--storage storage] [--port 7873] [--users 1,3,5] [--mixed 5,3]

Runs the local server on PAPER_ASSISTANT_LOCAL_PORT (8765 unless set); the
request timeout is raised to 900 s so the last in a queue of 16 answers on 2
cores waits instead of being told "busy".
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import threading
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gradio_client import Client

ROOT = Path(__file__).resolve().parents[1]
#: (first question, follow-up that only makes sense after it, the paper both are about)
CONVERSATIONS = [
    ("What is HetSyn?", "What does it improve on?", "HetSyn"),
    ("What does CityLens benchmark?", "How was it evaluated?", "CityLens"),
    ("What is BigMaQ?", "What data does it use?", "BigMaQ"),
    ("What is SPINT?", "What does it decode?", "SPINT"),
    ("What is REVE?", "How much data was it pretrained on?", "REVE"),
    ("What is CSBrain?", "What problem does it address?", "CSBrain"),
    ("What is EvoBrain?", "What does it model?", "EvoBrain"),
    ("What is POCO?", "What does it forecast?", "POCO"),
]
WAITING = "Waiting for the model"
FAILED = "The LLM failed"


@dataclass
class Turn:
    who: str
    paper: str
    sent: float
    waited: float = 0.0
    done: float = 0.0
    from_model: bool = False
    own_paper: bool = False
    note: str = ""


@dataclass
class Run:
    turns: list[Turn] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def add(self, turn: Turn) -> None:
        with self.lock:
            self.turns.append(turn)


def _text(content: Any) -> str:
    """A chat message's text, whatever shape Gradio gives it."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return " ".join(_text(part) for part in content)
    if isinstance(content, dict):
        return str(content.get("text") or content.get("content") or "")
    return str(content)


def _first_card(panel: str) -> str:
    """The first source card of the last answer in the sources panel."""
    section = panel.rsplit('class="turn', 1)[-1]
    return section.split('class="card', 2)[1] if section.count('class="card') else ""


def ui_session(url: str, n: int, run: Run) -> None:
    """One browser session: a question, then its follow-up."""
    client = Client(url, verbose=False)
    first, follow_up, paper = CONVERSATIONS[n]
    for message in (first, follow_up):
        turn = Turn(f"ui-{n}", paper, time.monotonic())
        waiting_since = None
        last, panel = "", ""
        for output in client.submit("Ask", message, "All venues", None, None, api_name="/respond"):
            chat, panel = output[0], output[1] if isinstance(output[1], str) else panel
            last = _text(chat[-1]["content"]) if chat else ""
            if WAITING in last and waiting_since is None:
                waiting_since = time.monotonic()
            elif waiting_since is not None and WAITING not in last and not turn.waited:
                turn.waited = time.monotonic() - waiting_since
        turn.done = time.monotonic()
        turn.from_model = FAILED not in last and not last.startswith("⚠")
        turn.own_paper = paper in _first_card(panel)
        turn.note = last[:160].replace("\n", " ")
        run.add(turn)


def cli_session(n: int, run: Run, env: dict[str, str], storage: str) -> None:
    """One `paper-assistant chat` process: both messages on its stdin."""
    first, follow_up, paper = CONVERSATIONS[n]
    started = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "assistant.cli", "chat", "--storage", storage],
                          input=f"{first}\n{follow_up}\n", env=env, capture_output=True, text=True, timeout=1800,
                          check=False)
    ended = time.monotonic()
    reading = re.findall(r"^Reading: (.*)$", done.stdout, re.MULTILINE)
    for i in range(2):
        turn = Turn(f"cli-{n}", paper, started, done=ended)
        turn.from_model = done.returncode == 0 and "warning:" not in done.stderr and len(reading) == 2
        turn.own_paper = len(reading) == 2 and reading[i].startswith(paper)
        turn.note = (done.stderr.strip().splitlines() or [""])[-1][:160]
        run.add(turn)


def measure(url: str, ui_users: int, cli_users: int, env: dict[str, str], storage: str) -> tuple[Run, float]:
    run = Run()
    threads = [threading.Thread(target=ui_session, args=(url, n, run)) for n in range(ui_users)]
    threads += [threading.Thread(target=cli_session, args=(ui_users + n, run, env, storage)) for n in range(cli_users)]
    start = time.monotonic()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return run, time.monotonic() - start


def pct(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def report(label: str, run: Run, elapsed: float) -> None:
    ui = [t for t in run.turns if t.who.startswith("ui")]
    waits = [t.waited for t in ui]
    answers = [t.done - t.sent for t in ui]
    good = sum(t.from_model for t in run.turns)
    own = sum(t.own_paper for t in run.turns)
    print(f"| {label} | {len(run.turns)} | {good}/{len(run.turns)} | {own}/{len(run.turns)} | "
          f"{statistics.median(waits) if waits else 0:.1f} / {pct(waits, 0.95):.1f} s | "
          f"{statistics.median(answers) if answers else 0:.1f} / {pct(answers, 0.95):.1f} s | "
          f"{len(run.turns) / elapsed * 60:.2f} |", flush=True)
    for t in run.turns:
        if not (t.from_model and t.own_paper):
            print(f"  {t.who} ({t.paper}): from model {t.from_model}, own paper {t.own_paper}: {t.note}", flush=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--storage", default="storage")
    parser.add_argument("--port", type=int, default=7873)
    parser.add_argument("--users", default="1,3,5", help="UI sessions per run, comma-separated")
    parser.add_argument("--mixed", default="5,3", help="UI sessions,CLI processes of the mixed run ('' to skip)")
    args = parser.parse_args()
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PAPER_ASSISTANT_REQUEST_TIMEOUT": "900"}
    ui = subprocess.Popen([sys.executable, "-m", "assistant.cli", "ui", "--port", str(args.port), "--storage",
                           args.storage], env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    url = f"http://127.0.0.1:{args.port}"
    try:
        started = time.monotonic()
        while True:  # the local model loaded and warmed up
            try:
                with urllib.request.urlopen(f"{url}/health", timeout=5) as response:
                    if response.status == 200:
                        break
            except OSError:
                pass
            if ui.poll() is not None or time.monotonic() - started > 300:
                print(ui.stdout.read() if ui.stdout else "", file=sys.stderr)
                raise SystemExit("the UI did not become ready")
            time.sleep(1)
        print(f"UI and local model ready in {time.monotonic() - started:.1f} s\n")
        print("| users | answers | from the model | follow-ups about their own paper* | wait p50 / p95 | "
              "answer p50 / p95 | answers/min |")
        print("|---|---|---|---|---|---|---|")
        for users in [int(u) for u in args.users.split(",") if u]:
            report(f"{users} UI", *measure(url, users, 0, env, args.storage))
        if args.mixed:
            ui_users, cli_users = (int(x) for x in args.mixed.split(","))
            report(f"{ui_users} UI + {cli_users} CLI", *measure(url, ui_users, cli_users, env, args.storage))
        print("\n* both turns counted; wait and answer times are the UI sessions'; answers/min counts every answer.")
    finally:
        ui.terminate()
        ui.wait(timeout=30)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
