"""Embedded local model speed: server start, TTFT, prompt and generation tokens/s.

Starts the local llama.cpp server (as `paper-assistant` does with no
endpoint configured) on an index of the seeds, asks seed questions through
the real answer path, and prints figures for the README.

Usage: python eval/bench_local.py [--local-model default|fast] [--questions 8] [--storage DIR]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from datetime import date
from pathlib import Path

import openai

from assistant import prompts
from assistant.answer import Assistant, Final
from assistant.index import PaperIndex
from assistant.local import shared_server
from assistant.papers import load_papers, seed_files
from assistant.settings import Settings, set_offline_env

QUESTIONS = [
    "What is SPINT?",
    "How much EEG data was REVE pretrained on?",
    "Which datasets was POCO trained on?",
    "What does HEIST model tissues as?",
    "What learning rate did CodeBrain use?",
    "How does MiCRo partition the language model?",
    "What accuracy did AI judges with personas reach in the debate study?",
    "What is CityLens?",
    "How many scenes does BigMaQ contain?",
    "Which components does CSBrain introduce?",
]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--local-model", default="default", choices=["default", "fast"])
    parser.add_argument("--questions", type=int, default=8)
    parser.add_argument("--storage", type=Path, help="an index of the seeds to reuse (default: a temp one)")
    args = parser.parse_args()
    set_offline_env()
    storage = args.storage or Path(tempfile.mkdtemp())
    settings = Settings.load(storage=storage, local_model=args.local_model)
    index = PaperIndex(settings)
    index.ingest(load_papers(seed_files()), progress=False)
    server = shared_server(settings)
    start = time.perf_counter()
    base_url = server.ensure()
    started = time.perf_counter() - start
    assistant = Assistant(settings, index=index)
    client = openai.OpenAI(base_url=base_url, api_key=server.api_key)  # the per-run key of the server
    ttfts, prompt_rates, gen_rates, prompt_tokens = [], [], [], []
    for question in QUESTIONS[: args.questions]:
        events = list(assistant.ask(question))
        result = events[-1].result if isinstance(events[-1], Final) else None
        assert result is not None and not result.error, result and result.error
        ttfts.append(result.timings["ttft_ms"] - result.timings["retrieval_ms"])
        # The same prompt once more, unstreamed, for token counts.
        messages = [{"role": "system", "content": prompts.SYSTEM_PROMPT},
                    {"role": "user", "content": assistant.prepare_ask(question)[2]}]
        t0 = time.perf_counter()
        reply = client.chat.completions.create(model=server.model.alias, messages=messages, max_tokens=1, temperature=0)
        first = time.perf_counter() - t0
        prompt_tokens.append(reply.usage.prompt_tokens)
        prompt_rates.append(reply.usage.prompt_tokens / max(result.timings["ttft_ms"] - result.timings["retrieval_ms"], 1) * 1000)
        t0 = time.perf_counter()
        reply = client.chat.completions.create(model=server.model.alias, messages=messages, max_tokens=64, temperature=0)
        gen_rates.append(max(reply.usage.completion_tokens - 1, 1) / max(time.perf_counter() - t0 - first, 1e-3))
        print(f"  {question[:50]:50s} ttft {ttfts[-1] / 1000:.1f} s, prompt {prompt_tokens[-1]} tok")
    server.stop()
    print(f"\n{date.today()} · {server.model.alias} · server start {started:.1f} s")
    print("| model | prompt tokens p50 | TTFT p50 s | TTFT p95 s | prompt tok/s | gen tok/s |")
    print("|---|---|---|---|---|---|")
    print(f"| {server.model.alias} | {statistics.median(prompt_tokens):.0f} | {statistics.median(ttfts) / 1000:.1f} | "
          f"{sorted(ttfts)[int(0.95 * (len(ttfts) - 1))] / 1000:.1f} | {statistics.median(prompt_rates):.0f} | "
          f"{statistics.median(gen_rates):.1f} |")


if __name__ == "__main__":
    main()
