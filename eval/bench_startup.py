"""Start-up at scale: a whole `paper-assistant search` process at 38, ~6k
and ~30k papers, with re-ingest time, search p50 and peak RSS.

The 30k collection is the 6k one plus renamed, slightly altered copies
(new ids, "(copy N)" in title and abstract, so dedup keeps them), written
to a temporary benchmark file. Embedding 24k more abstracts would add
about 6 minutes (70 abstracts/s on 2 cores) to every run and measure
nothing about start-up, so the copies reuse their original's vector; the records are exactly what `ingest` writes for that file (named
by the same code), so re-ingesting it finds everything unchanged.

`search` is timed as a process, cold (the first after an ingest: it reads
every record and builds the corpus cache) and warm (median of --repeat
runs: the cache is read). `--baseline DIR` also times the same commands
with another checkout's code (e.g. /work/main) on the same indexes.

Usage: python eval/bench_startup.py [--scales 38,6k,30k] [--repeat 3] [--baseline DIR] [--index-6k DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import date
from pathlib import Path

from assistant.embedding import MiniLMEmbedding
from assistant.index import PaperIndex
from assistant.ingest import reconcile
from assistant.papers import load_papers, seed_files
from assistant.records import chunk_records
from assistant.retrieve import PaperRetriever
from assistant.settings import Settings, set_offline_env
from assistant.store import ChromaStore, new_revision

ROOT = Path(__file__).resolve().parent.parent
CORPORA = ROOT.parent / "shared" / "corpora"
COPY = "~copy"
QUERY = "EEG foundation model pretraining"


def run(code: Path, *args: str) -> tuple[float, float]:
    """(seconds, peak RSS in MiB) of one CLI process running ``code``'s package.
    A wrapper process runs it, so that the peak is this process's alone
    (RUSAGE_CHILDREN is the largest child a process ever waited for)."""
    env = {**os.environ, "PYTHONPATH": str(code)}
    wrapper = ("import resource, subprocess, sys; subprocess.run(sys.argv[1:], check=True, capture_output=True); "
               "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)")
    start = time.perf_counter()
    # cwd too: `python -m` puts the working folder first on sys.path, ahead of PYTHONPATH
    out = subprocess.run([sys.executable, "-c", wrapper, sys.executable, "-m", "assistant.cli", *args], check=True,
                         capture_output=True, text=True, env=env, cwd=code).stdout
    return time.perf_counter() - start, int(out.split()[-1]) / 1024


def copies_file(path: Path, copies: int) -> Path:
    """Seeds + corpora + ``copies`` renamed, slightly altered copies of the corpora, as one JSONL file."""
    records = [json.loads(line) for f in sorted(CORPORA.glob("*.jsonl"))
               for line in f.read_text(encoding="utf-8").splitlines() if line.strip()]
    with path.open("w", encoding="utf-8") as out:
        for r in records:
            out.write(json.dumps(r, ensure_ascii=False) + "\n")
        for n in range(2, copies + 2):
            for r in records:
                out.write(json.dumps({**r, "id": f"{r['id']}{COPY}{n}", "title": f"{r.get('title', '')} (copy {n})",
                                      "abstract": f"{r['abstract']} (Copy {n}.)"}, ensure_ascii=False) + "\n")
    return path


def index_copies(source: Path, storage: Path, paths: list[Path], embedder: MiniLMEmbedding) -> int:
    """Write the collection ``ingest paths`` would write into ``storage``,
    each copy with its original's vector from the ``source`` index."""
    col = ChromaStore(Settings.load(storage=source)).collection()
    vectors: dict[str, list[float]] = {}
    offset = 0
    while True:
        page = col.get(include=["embeddings"], limit=5000, offset=offset)
        vectors.update({i.rsplit("::", 1)[0]: list(v) for i, v in zip(page["ids"], page["embeddings"], strict=True)})
        if len(page["ids"]) < 5000:
            break
        offset += 5000
    wanted, _ = reconcile([], load_papers(paths).papers, prune=False)
    store = ChromaStore(Settings.load(storage=storage))
    target = store.create(store.settings.index.collection, replace=False, revision="")
    for start in range(0, len(wanted), 500):
        ids, docs, metas, embeddings = [], [], [], []
        for paper in wanted[start: start + 500]:
            chunk_ids, texts, chunk_metas = chunk_records(paper, embedder.count_tokens,
                                                          store.settings.index.chunk_tokens)
            ids += chunk_ids
            docs += texts
            metas += chunk_metas
            embeddings += [vectors[paper.paper_id.split(COPY)[0]]] * len(chunk_ids)
        target.upsert(ids=ids, documents=docs, metadatas=metas, embeddings=embeddings)
    target.modify(metadata=store.metadata("ready", new_revision()))
    return len(wanted)


def search_p50(storage: Path, queries: list[str]) -> float:
    """Median ms of one hybrid search in a warm process."""
    retriever = PaperRetriever(PaperIndex(Settings.load(storage=storage)))
    retriever.search("warm up")
    times = []
    for query in queries:
        start = time.perf_counter()
        retriever.search(query)
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--scales", default="38,6k,30k")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--baseline", type=Path, help="another checkout whose code to time on the same indexes")
    parser.add_argument("--index-6k", type=Path, help="copy this index of seeds + corpora instead of ingesting them")
    args = parser.parse_args()
    set_offline_env()
    gold = ROOT / "eval" / "gold" / "dev.jsonl"
    queries = [json.loads(line)["question"] for line in gold.read_text(encoding="utf-8").splitlines() if line.strip()]
    print(f"{date.today()} · {platform.machine()} · {len(os.sched_getaffinity(0))} cores · load "
          f"{os.getloadavg()[0]:.1f}")
    print("| papers | ingest s (papers/s) | re-ingest s | search process cold s | warm s | warm peak RSS MiB | "
          "search p50 ms | re-ingest after a search s |" + (" baseline search process s | baseline peak RSS MiB |" if args.baseline else ""))
    print("|---|---|---|---|---|---|---|---|" + ("---|---|" if args.baseline else ""))
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        six_k = base / "6k"
        scales = args.scales.split(",")
        for scale in scales:
            storage = base / scale
            if scale == "38":
                paths = seed_files()
            elif scale == "6k":
                paths = seed_files() + sorted(CORPORA.glob("*.jsonl"))
            else:
                paths = seed_files() + [copies_file(base / "copies.jsonl", 4)]
            if scale == "30k":
                if not six_k.exists():
                    run(ROOT, "ingest", *map(str, seed_files() + sorted(CORPORA.glob("*.jsonl"))), "--storage",
                        str(six_k))
                start = time.perf_counter()
                count = index_copies(six_k, storage, paths, MiniLMEmbedding())
                ingest = f"vectors copied ({time.perf_counter() - start:.0f} s)"
            elif scale == "6k" and args.index_6k:
                shutil.copytree(args.index_6k, storage, ignore=shutil.ignore_patterns("cache", "models"))
                count, ingest = len(PaperIndex(Settings.load(storage=storage)).papers()), "copied"
            else:
                seconds, _ = run(ROOT, "ingest", *map(str, paths), "--storage", str(storage))
                count = len(PaperIndex(Settings.load(storage=storage)).papers())
                ingest = f"{seconds:.1f} ({count / seconds:.0f})"
            again, _ = run(ROOT, "ingest", *map(str, paths), "--storage", str(storage))
            search = ("search", QUERY, "--json", "--storage", str(storage))
            cold, _ = run(ROOT, *search)
            warm = [run(ROOT, *search) for _ in range(args.repeat)]
            p50 = search_p50(storage, queries)
            after_search, _ = run(ROOT, "ingest", *map(str, paths), "--storage", str(storage))  # the snapshot cached
            row = (f"| {count:,} | {ingest} | {again:.1f} | {cold:.1f} | {statistics.median(w[0] for w in warm):.1f} | "
                   f"{max(w[1] for w in warm):.0f} | {p50:.1f} | {after_search:.1f} |")
            if args.baseline:
                old = [run(args.baseline, *search) for _ in range(args.repeat)]
                row += f" {statistics.median(o[0] for o in old):.1f} | {max(o[1] for o in old):.0f} |"
            print(row, flush=True)


if __name__ == "__main__":
    main()
