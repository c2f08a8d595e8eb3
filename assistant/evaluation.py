"""Retrieval metrics over the gold question set (eval/gold/questions.jsonl).

Gold questions name their papers by position in the bundled lists
("neurips2025#4"); we map those to content keys, so a seed paper still counts
as found when the corpus's richer record of the same paper is what the
index holds.
"""

from __future__ import annotations

import json
import statistics
import time
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from assistant.papers import SEEDS_DIR, load_papers
from assistant.retrieve import Mode, PaperRetriever

MODES: tuple[Mode, ...] = ("lexical", "dense", "hybrid")


@dataclass
class GoldQuestion:
    """One gold question with the content keys of the papers that answer it."""

    id: str
    type: str
    question: str
    keys: list[str]
    facts: list[str] = field(default_factory=list)
    answerable: bool = True


def seed_keys() -> dict[str, str]:
    """'neurips2025#4' -> content key of that seed abstract."""
    refs: dict[str, str] = {}
    for path in sorted(SEEDS_DIR.glob("*.txt")):
        for n, paper in enumerate(load_papers([path]).papers):
            refs[f"{path.stem}#{n}"] = paper.key
    return refs


def load_gold(path: Path) -> list[GoldQuestion]:
    """The gold set, each question's paper refs resolved to content keys."""
    refs = seed_keys()
    gold = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            row = json.loads(line)
            gold.append(GoldQuestion(row["id"], row["type"], row["question"], [refs[r] for r in row["papers"]],
                                     row.get("facts", []), row.get("answerable", True)))
    return gold


def retrieval_metrics(retriever: PaperRetriever, gold: list[GoldQuestion], k: int = 5,
                      modes: tuple[Mode, ...] = MODES) -> dict[str, Any]:
    """hit@1, hit@k, MRR (first gold paper) and recall@k (all gold papers),
    per mode and per question type, plus retrieval latency."""
    report: dict[str, Any] = {}
    for mode in modes:
        per_type: dict[str, list[dict[str, float]]] = defaultdict(list)
        latencies: list[float] = []
        misses: list[str] = []
        for q in (q for q in gold if q.keys):
            start = time.perf_counter()
            hits = retriever.search(q.question, k=max(k, 20), mode=mode)
            latencies.append((time.perf_counter() - start) * 1000)
            keys = [h.paper.key for h in hits]
            rank = next((r for r, key in enumerate(keys, start=1) if key in q.keys), None)
            row = {
                "hit@1": float(rank == 1),
                f"hit@{k}": float(rank is not None and rank <= k),
                "mrr": 1.0 / rank if rank else 0.0,
                f"recall@{k}": len(set(keys[:k]) & set(q.keys)) / len(q.keys),
            }
            per_type[q.type].append(row)
            per_type["all"].append(row)
            if not row[f"hit@{k}"]:
                misses.append(q.id)
        report[mode] = {
            t: {m: round(statistics.fmean(r[m] for r in rows), 3) for m in rows[0]} | {"n": len(rows)}
            for t, rows in sorted(per_type.items())
        }
        report[mode]["latency_ms"] = {
            "p50": round(statistics.median(latencies), 1),
            "p95": round(sorted(latencies)[int(0.95 * (len(latencies) - 1))], 1),
        }
        report[mode]["misses"] = misses
    return report
