"""Retrieval quality at 38 papers and at 6k (seeds + ../shared/corpora), per mode.

Usage: python eval/bench_retrieval.py [--storage-root DIR] [--scale seeds|corpus|both]
Indexes are built once under the storage root and reused (ingest is idempotent).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from assistant.evaluation import load_gold, retrieval_metrics
from assistant.index import PaperIndex
from assistant.papers import load_papers, seed_files
from assistant.retrieve import PaperRetriever
from assistant.settings import Settings, set_offline_env

ROOT = Path(__file__).resolve().parent.parent
CORPORA = ROOT.parent / "shared" / "corpora"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--storage-root", type=Path, default=Path("/tmp/pa-bench"))
    parser.add_argument("--scale", choices=["seeds", "corpus", "both"], default="both")
    parser.add_argument("--gold", type=Path, default=ROOT / "eval" / "gold" / "questions.jsonl")
    args = parser.parse_args()
    set_offline_env()
    gold = load_gold(args.gold)
    scales = {"seeds": [], "corpus": sorted(CORPORA.glob("*.jsonl"))}
    for scale, extra in scales.items():
        if args.scale not in (scale, "both"):
            continue
        index = PaperIndex(Settings(storage=args.storage_root / scale))
        report = index.ingest(load_papers(seed_files() + extra))
        print(f"[{scale}] papers={report.total} added={report.added} unchanged={report.unchanged} "
              f"ingest_s={report.seconds:.1f}")
        metrics = retrieval_metrics(PaperRetriever(index), gold)
        for mode, table in metrics.items():
            print(f"  {mode}: latency={table['latency_ms']} misses={table['misses']}")
            for qtype, row in table.items():
                if qtype not in ("latency_ms", "misses"):
                    print(f"    {qtype:13s} {json.dumps(row)}")


if __name__ == "__main__":
    main()
