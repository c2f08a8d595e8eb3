"""One slot or two on the embedded model: which answers more questions per
minute on this machine?

llama-cpp-python's server (our runtime) writes one answer at a time; it has
no parallel slots. The way to answer two at once is two servers, so this
compares one server on all cores, answering in turn, with two servers on
half the cores each, answering two at a time. Both get the same real answer
prompts (the seed questions through the retrieval and evidence of `ask`).

    python eval/bench_slots.py [--storage storage] [--questions 6]

Uses ports PAPER_ASSISTANT_LOCAL_PORT and that + 10.
"""

from __future__ import annotations

import argparse
import os
import statistics
import threading
import time
from collections import deque
from pathlib import Path

from assistant.answer import Assistant, _messages
from assistant.llm import Endpoint, LLMClient
from assistant.local import LocalServer
from assistant.settings import Settings

QUESTIONS = ["What is SPINT?", "What is HetSyn?", "What does CityLens benchmark?", "What is BigMaQ?",
             "How much EEG data was REVE pretrained on?", "What is CSBrain?", "What does POCO forecast?",
             "What is EvoBrain?"]


def clients(settings: Settings, servers: int) -> tuple[list[LLMClient], list[LocalServer]]:
    cores = os.cpu_count() or 1
    started, made = [], []
    for i in range(servers):
        own = settings.with_(local_port=settings.local.local_port + 10 * i,
                             local_threads=max(1, cores // servers))
        server = LocalServer(own)
        base_url = server.ensure()
        started.append(server)
        made.append(LLMClient(own, Endpoint(base_url, server.model.alias, server.api_key, local=True)))
    return made, started


def run(settings: Settings, prompts: list[str], servers: int) -> tuple[float, list[float]]:
    made, started = clients(settings, servers)
    todo: deque[str] = deque(prompts)
    times: list[float] = []
    lock = threading.Lock()

    def worker(client: LLMClient) -> None:
        while True:
            with lock:
                if not todo:
                    return
                prompt = todo.popleft()
            begun = time.monotonic()
            client.complete(_messages(prompt))
            with lock:
                times.append(time.monotonic() - begun)

    try:
        begin = time.monotonic()
        threads = [threading.Thread(target=worker, args=(c,)) for c in made]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        return time.monotonic() - begin, times
    finally:
        for server in started:
            server.stop()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--storage", type=Path, default=Path("storage"))
    parser.add_argument("--questions", type=int, default=6)
    args = parser.parse_args()
    settings = Settings.load(storage=args.storage, base_url=None)
    assistant = Assistant(settings)
    prompts = [assistant.prepare_ask(q)[2] for q in QUESTIONS[: args.questions]]
    print(f"{len(prompts)} answer prompts, {os.cpu_count()} cores\n")
    print("| setup | answers/min | answer p50 | answer max |\n|---|---|---|---|")
    for servers in (1, 2):
        elapsed, times = run(settings, prompts, servers)
        label = "1 server, all cores, one answer at a time" if servers == 1 else \
            "2 servers, half the cores each, two answers at a time"
        print(f"| {label} | {len(times) / elapsed * 60:.2f} | {statistics.median(times):.1f} s | {max(times):.1f} s |",
              flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
