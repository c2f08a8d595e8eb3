"""Ingest throughput, peak memory and search latency, at 38 and ~6k papers.

Each ingest runs the real CLI in a child process on an empty temp storage
(so peak RSS is the ingest's own); search latency is measured in one warm
process over the gold questions. Prints a markdown table for the README.

Usage: python eval/bench_ingest.py [--scale seeds|corpus|both] [--repeat 3]
"""

from __future__ import annotations

import argparse
import json
import platform
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import date
from pathlib import Path

from assistant.index import PaperIndex
from assistant.papers import seed_files
from assistant.retrieve import PaperRetriever
from assistant.settings import Settings, set_offline_env

ROOT = Path(__file__).resolve().parent.parent
CORPORA = ROOT.parent / "shared" / "corpora"


def ingest(storage: Path, paths: list[Path]) -> tuple[float, float]:
    """(seconds, peak RSS in MiB) of `paper-assistant ingest` in a child."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "assistant.cli", "ingest", *map(str, paths), "--storage", str(storage)],
                   check=True, capture_output=True)
    seconds = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return seconds, max(peak, before) / 1024


def search_latency(storage: Path, queries: list[str], repeat: int) -> tuple[float, float]:
    """p50 and p95 of one hybrid search, in ms, in a warm process."""
    retriever = PaperRetriever(PaperIndex(Settings.load(storage=storage)))
    retriever.search("warm up")
    times = []
    for _ in range(repeat):
        for query in queries:
            start = time.perf_counter()
            retriever.search(query)
            times.append((time.perf_counter() - start) * 1000)
    times.sort()
    return statistics.median(times), times[int(0.95 * (len(times) - 1))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--scale", choices=["seeds", "corpus", "both"], default="both")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    set_offline_env()
    gold = ROOT / "eval" / "gold" / "dev.jsonl"
    queries = [json.loads(line)["question"] for line in gold.read_text(encoding="utf-8").splitlines() if line.strip()]
    scales = {"seeds": seed_files(), "corpus": seed_files() + sorted(CORPORA.glob("*.jsonl"))}
    print(f"{date.today()} · {platform.processor() or platform.machine()} · {len(__import__('os').sched_getaffinity(0))} cores")
    print("| collection | papers | ingest s | abstracts/s | peak RSS MiB | re-ingest s | search p50 ms | search p95 ms |")
    print("|---|---|---|---|---|---|---|---|")
    for scale, paths in scales.items():
        if args.scale not in (scale, "both"):
            continue
        with tempfile.TemporaryDirectory() as tmp:
            storage = Path(tmp)
            seconds, rss = ingest(storage, paths)
            again, _ = ingest(storage, paths)
            count = len(PaperIndex(Settings.load(storage=storage)).papers())
            p50, p95 = search_latency(storage, queries, args.repeat)
            print(f"| {scale} | {count} | {seconds:.1f} | {count / seconds:.0f} | {rss:.0f} | {again:.1f} | "
                  f"{p50:.1f} | {p95:.1f} |")


if __name__ == "__main__":
    main()
