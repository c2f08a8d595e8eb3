"""Our answers against LlamaIndex's stock CitationQueryEngine, same LLM, same questions, one run.

The reference point the answers are built to beat: LlamaIndex's
``CitationQueryEngine`` with its own prompt, over whole abstracts (one node
per paper, its top 2 by our embedding, as ``VectorStoreIndex`` retrieves),
asked through the same endpoint as ours (the embedded model unless one is
configured). Its prompt never asks for a refusal, so it states more facts
and invents answers to unanswerable questions; ours should keep its recall
and our honesty. Both are scored by the evaluation's own fact matching and
refusal phrases (``assistant.evaluation``); ours goes through the chat
front door, as in ``paper-assistant eval``.

Usage: python eval/bench_citation_engine.py [--split dev|test | --gold FILE] [--types LIST] [--limit N]
Prints one table (facts, facts in what each was shown, false refusals,
refusal recall, whole-answer time p50/p95) and writes per-question rows to
``--out`` (default: a dated JSON in eval/results). Without --storage the
seeds are ingested into a temp folder.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from llama_index.core import Document, VectorStoreIndex
from llama_index.core.query_engine import CitationQueryEngine
from tqdm import tqdm

from assistant.answer import Assistant
from assistant.evaluation import GoldQuestion, facts_found, load_gold, run_question
from assistant.finalize import is_refusal
from assistant.index import PaperIndex
from assistant.papers import load_papers, seed_files
from assistant.settings import load_settings, set_offline_env

ROOT = Path(__file__).resolve().parents[1]
#: The question types of the single-question path: what the stock engine answers too.
TYPES = "fact,paraphrase,method,unanswerable,chinese"


def stock_row(engine: CitationQueryEngine, q: GoldQuestion) -> dict[str, Any]:
    """One question through the stock engine, scored like ours."""
    start = time.perf_counter()
    response = engine.query(q.question)
    seconds = time.perf_counter() - start
    text = str(response)
    shown = " ".join(n.node.get_content() for n in response.source_nodes)
    return {"answer": text, "facts_found": facts_found(text, q.facts), "facts_in_evidence": facts_found(shown, q.facts),
            "abstained": is_refusal(text), "total_ms": round(seconds * 1000, 1)}


def summary(rows: list[dict[str, Any]], gold: dict[str, GoldQuestion]) -> dict[str, Any]:
    """Facts (stated, shown), false refusals, refusal recall and time of one system's rows."""
    answerable = [r for r in rows if gold[r["id"]].answerable]
    unanswerable = [r for r in rows if not gold[r["id"]].answerable]
    facts = sum(len(gold[r["id"]].facts) for r in answerable) or 1
    times = sorted(r["total_ms"] / 1000 for r in rows)
    return {"facts": sum(r["facts_found"] for r in answerable) / facts,
            "facts_shown": sum(r["facts_in_evidence"] for r in answerable) / facts,
            "false_refusals": sum(r["abstained"] for r in answerable) / max(len(answerable), 1),
            "refusal_recall": sum(r["abstained"] for r in unanswerable) / len(unanswerable) if unanswerable else None,
            "seconds_p50": statistics.median(times), "seconds_p95": times[int(0.95 * (len(times) - 1))],
            "answerable": len(answerable), "unanswerable": len(unanswerable)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    which = parser.add_mutually_exclusive_group()
    which.add_argument("--split", choices=["dev", "test"], default="dev")
    which.add_argument("--gold", type=Path, help="a gold file instead of a split")
    parser.add_argument("--types", default=TYPES, help=f"question types (default: {TYPES})")
    parser.add_argument("--limit", type=int, help="only the first N questions")
    parser.add_argument("--storage", type=Path, help="an index of the 38 seeds (default: a temp folder)")
    parser.add_argument("--out", type=Path, help="per-question rows (default: eval/results/DATE-SPLIT-citation-engine.json)")
    args = parser.parse_args()
    set_offline_env()
    gold_path = args.gold or ROOT / "eval" / "gold" / f"{args.split}.jsonl"
    types = set(args.types.split(","))
    questions = [q for q in load_gold(gold_path) if q.type in types][: args.limit]
    with tempfile.TemporaryDirectory() as tmp:
        settings = load_settings({"storage": args.storage or Path(tmp)}, {})
        index = PaperIndex(settings)
        index.ingest(load_papers(seed_files()), progress=False)
        ours = Assistant(settings, index=index)
        papers = index.corpus.papers
        vectors = VectorStoreIndex.from_documents([Document(text=p.abstract, metadata={"paper_id": p.paper_id})
                                                   for p in papers], embed_model=index.embedder)
        engine = CitationQueryEngine.from_args(vectors, llm=ours.llm.llm, similarity_top_k=2)
        key_of = {p.paper_id: p.key for p in papers}
        rows = []
        for q in tqdm(questions, desc="Answering (ours, then stock)", unit="question"):
            mine = run_question(ours, q, key_of)
            rows.append({"id": q.id, "type": q.type, "ours": {k: mine[k] for k in ("answer", "facts_found",
                                                                                  "facts_in_evidence", "abstained")}
                         | {"total_ms": mine["timings"]["total_ms"]}, "stock": stock_row(engine, q)})
    gold = {q.id: q for q in questions}
    table = {name: summary([r[name] | {"id": r["id"]} for r in rows], gold) for name in ("ours", "stock")}
    today = dt.date.today().isoformat()
    out = args.out or ROOT / "eval" / "results" / f"{today}-{gold_path.stem}-citation-engine.json"
    out.write_text(json.dumps({"date": today, "gold": gold_path.name, "types": sorted(types), "summary": table,
                               "rows": rows}, indent=1, ensure_ascii=False), encoding="utf-8")
    first = next(iter(table.values()))
    print(f"{gold_path.stem}, {len(rows)} questions ({first['answerable']} answerable, "
          f"{first['unanswerable']} unanswerable), {ours.llm.endpoint.model}, {today}")
    print("| system | facts stated | facts shown | false refusals | refusal recall | answer s p50 / p95 |")
    print("|---|---|---|---|---|---|")
    for name, label in (("ours", "paper-assistant"), ("stock", "CitationQueryEngine, whole abstracts, top 2")):
        m = table[name]
        recall = "—" if m["refusal_recall"] is None else f"{m['refusal_recall']:.3f}"
        print(f"| {label} | {m['facts']:.3f} | {m['facts_shown']:.3f} | {m['false_refusals']:.3f} | {recall} | "
              f"{m['seconds_p50']:.1f} / {m['seconds_p95']:.1f} |")
    print(f"rows: {out}")


if __name__ == "__main__":
    main()
