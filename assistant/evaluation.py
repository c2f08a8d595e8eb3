"""Retrieval and answer metrics over the gold set (eval/gold/questions.jsonl).

Gold questions name their papers by position in the bundled lists
("neurips2025#4"); we map those to content keys, so a seed paper still counts
as found when the corpus's richer record of the same paper is what the
index holds. Every metric comes with a baseline from the same run: BM25 and
dense alone for retrieval, the same LLM without retrieval for answers.
Answer runs are cached per question, so an interrupted run resumes.
"""

from __future__ import annotations

import hashlib
import json
import re
import statistics
import time
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from llama_index.core.llms import ChatMessage, MessageRole
from tqdm import tqdm

from assistant import prompts
from assistant.answer import Assistant, Final, is_refusal, language_of
from assistant.cleaning import clean_text
from assistant.files import write_atomic
from assistant.index import PaperIndex
from assistant.papers import SEEDS_DIR, load_papers, seed_files
from assistant.retrieve import Mode, PaperRetriever
from assistant.settings import Settings

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


def _norm(text: str) -> str:
    """Lower-cased, LaTeX-free, thousands separators and % signs dropped: so
    '60,000 hours' matches '60000 hours' and '78.5\\%' matches '78.5%'."""
    text = clean_text(text).casefold().replace("%", "")
    return " ".join(re.sub(r"(?<=\d),(?=\d{3})", "", text).split())


def facts_found(answer: str, facts: list[str]) -> int:
    """How many required facts the answer states (normalised substring match)."""
    folded = _norm(answer)
    return sum(1 for fact in facts if _norm(fact) in folded)


def _run_question(assistant: Assistant, q: GoldQuestion, key_of: dict[str, str]) -> dict[str, Any]:
    """One gold question through the real answer path, reduced to what the metrics need."""
    events = assistant.summarize(q.question) if q.type == "topic" else assistant.ask(q.question)
    result = next(e.result for e in events if isinstance(e, Final))
    numbers = {int(n) for n in re.findall(r"\[(\d+)\]", result.answer)}
    row = {
        "id": q.id, "type": q.type, "answerable": q.answerable, "answer": result.answer,
        "abstained": result.abstained, "extractive": result.extractive, "error": result.error,
        "cited": [key_of.get(c["paper_id"], c["paper_id"]) for c in result.citations],
        "invalid_citations": sum(1 for n in numbers if not 1 <= n <= len(result.sources)),
        "citations_total": len(numbers), "facts": len(q.facts), "facts_found": facts_found(result.answer, q.facts),
        "language_ok": language_of(result.answer) == language_of(q.question) or result.abstained,
        "timings": result.timings, "prompt_tokens": result.extra.get("prompt_tokens", 0),
    }
    if q.type == "compare" and len(q.keys) == 2:
        names = [next(p.name for p in assistant.index.lexical[1] if p.key == k) for k in q.keys]
        compared = next(e.result for e in assistant.compare(*names) if isinstance(e, Final))
        cells = [cell for r in compared.extra["table"] for cell in (r["a"], r["b"])]
        row["table_cells"], row["table_filled"] = len(cells), sum(1 for c in cells if c != prompts.NOT_STATED)
    return row


def _closed_book(assistant: Assistant, q: GoldQuestion) -> dict[str, Any]:
    """The baseline: the same model asked with no abstracts."""
    closed = assistant.llm.complete([ChatMessage(role=MessageRole.USER,
                                                 content=prompts.CLOSED_BOOK.format(question=q.question))])
    return {"id": q.id, "closed_book": {"answer": closed, "abstained": is_refusal(closed),
                                        "facts_found": facts_found(closed, q.facts)}}


def answer_rows(assistant: Assistant, gold: list[GoldQuestion], cache: Path, progress: bool | None = None
                ) -> list[dict[str, Any]]:
    """Every gold question answered, then asked closed-book, each read back
    from ``cache`` (a JSONL file that makes the run resumable) when done before.
    The two passes run apart so consecutive answers share the server's cached
    system-prompt prefix, as a user's consecutive questions do."""
    done: dict[str, dict[str, Any]] = {}
    text = cache.read_text(encoding="utf-8") if cache.exists() else ""
    if text:
        for line in text.splitlines():
            try:
                row = json.loads(line)
            except ValueError:  # torn by a kill -9 mid-write: that question is asked again
                continue
            done.setdefault(row["id"], {}).update(row)
    key_of = {p.paper_id: p.key for p in assistant.index.lexical[1]}
    cache.parent.mkdir(parents=True, exist_ok=True)
    passes = [("Answering", "answer", lambda q: _run_question(assistant, q, key_of)),
              ("Closed book", "closed_book", lambda q: _closed_book(assistant, q))]
    with cache.open("a", encoding="utf-8") as out:
        if text and not text.endswith("\n"):
            out.write("\n")  # after a torn line, not glued to it
        for label, field_name, run in passes:
            for q in tqdm(gold, desc=label, unit="question", disable=progress is False, leave=False):
                if field_name not in done.get(q.id, {}):
                    row = run(q)
                    done.setdefault(q.id, {}).update(row)
                    out.write(json.dumps(row, ensure_ascii=False) + "\n")
                    out.flush()
    return [done[q.id] for q in gold]


def _ratio(numerator: float, denominator: float) -> float | None:
    return round(numerator / denominator, 3) if denominator else None


def _pcts(values: list[float]) -> dict[str, float]:
    ordered = sorted(values) or [0.0]
    return {"p50": round(statistics.median(ordered), 1), "p95": round(ordered[int(0.95 * (len(ordered) - 1))], 1)}


def answer_metrics(rows: list[dict[str, Any]], gold: list[GoldQuestion]) -> dict[str, Any]:
    """Fact coverage, citation precision/recall, invalid citations, refusal
    precision/recall, language match, table fill and latency, with the
    closed-book baseline beside them."""
    by_id = {q.id: q for q in gold}
    answerable = [r for r in rows if r["answerable"]]
    with_facts = [r for r in answerable if r["facts"]]
    cited = [(set(r["cited"]), set(by_id[r["id"]].keys)) for r in answerable if by_id[r["id"]].keys]

    def refusal(get: Any) -> dict[str, float | None]:
        predicted = [get(r) for r in rows]
        truth = [not r["answerable"] for r in rows]
        tp = sum(p and t for p, t in zip(predicted, truth, strict=True))
        return {"precision": _ratio(tp, sum(predicted)), "recall": _ratio(tp, sum(truth))}

    chinese = [r for r in rows if r["type"] == "chinese"]
    compare = [r for r in rows if "table_cells" in r]
    return {
        "questions": len(rows),
        "fact_coverage": _ratio(sum(r["facts_found"] for r in with_facts), sum(r["facts"] for r in with_facts)),
        "fact_coverage_closed_book": _ratio(sum(r["closed_book"]["facts_found"] for r in with_facts),
                                            sum(r["facts"] for r in with_facts)),
        "citation_precision": _ratio(sum(len(c & g) for c, g in cited), sum(len(c) for c, g in cited)),
        "citation_recall": _ratio(sum(len(c & g) for c, g in cited), sum(len(g) for c, g in cited)),
        "invalid_citation_rate": _ratio(sum(r["invalid_citations"] for r in rows), sum(r["citations_total"] for r in rows)) or 0.0,
        "refusal": refusal(lambda r: r["abstained"]),
        "refusal_closed_book": refusal(lambda r: r["closed_book"]["abstained"]),
        "language_match": _ratio(sum(r["language_ok"] for r in chinese), len(chinese)),
        "table_cells_filled": _ratio(sum(r["table_filled"] for r in compare), sum(r["table_cells"] for r in compare)),
        "extractive_fallbacks": sum(r["extractive"] for r in rows),
        "latency_ms": {k: _pcts([r["timings"][k] for r in rows]) for k in ("retrieval_ms", "ttft_ms", "total_ms")},
        "prompt_tokens": _pcts([r["prompt_tokens"] for r in rows]),
    }


def _retrieval_table(title: str, report: dict[str, Any]) -> list[str]:
    lines = [f"### Retrieval — {title}", "", "| mode | type | n | hit@1 | hit@5 | MRR | recall@5 |", "|---|---|---|---|---|---|---|"]
    for mode, table in report.items():
        for qtype, row in table.items():
            if qtype not in ("latency_ms", "misses"):
                lines.append(f"| {mode} | {qtype} | {row['n']} | {row['hit@1']:.3f} | {row['hit@5']:.3f} | "
                             f"{row['mrr']:.3f} | {row['recall@5']:.3f} |")
    lines += ["", "Latency ms: " + ", ".join(f"{m} p50 {t['latency_ms']['p50']} / p95 {t['latency_ms']['p95']}"
                                           for m, t in report.items()), ""]
    return lines


def _answer_table(metrics: dict[str, Any], model: str) -> list[str]:
    fmt = lambda v: "—" if v is None else f"{v:.3f}" if isinstance(v, float) else str(v)  # noqa: E731
    rows = [
        ("required-fact coverage", metrics["fact_coverage"], metrics["fact_coverage_closed_book"]),
        ("citation precision (cited papers that are gold)", metrics["citation_precision"], None),
        ("citation recall (gold papers cited)", metrics["citation_recall"], None),
        ("invalid-citation rate", metrics["invalid_citation_rate"], None),
        ("refusal precision (unanswerable part)", metrics["refusal"]["precision"], metrics["refusal_closed_book"]["precision"]),
        ("refusal recall (unanswerable part)", metrics["refusal"]["recall"], metrics["refusal_closed_book"]["recall"]),
        ("language match (Chinese questions)", metrics["language_match"], None),
        ("compare-table cells filled (vs not stated)", metrics["table_cells_filled"], None),
    ]
    lines = [f"### Answers — {model}, {metrics['questions']} questions", "",
             "| metric | paper-assistant | same LLM, no retrieval |", "|---|---|---|"]
    lines += [f"| {name} | {fmt(ours)} | {fmt(base)} |" for name, ours, base in rows]
    lat = metrics["latency_ms"]
    lines += ["", f"Latency ms p50/p95: retrieval {lat['retrieval_ms']['p50']}/{lat['retrieval_ms']['p95']}, "
                  f"TTFT {lat['ttft_ms']['p50']}/{lat['ttft_ms']['p95']}, total {lat['total_ms']['p50']}/"
                  f"{lat['total_ms']['p95']}; prompt tokens p50/p95 {metrics['prompt_tokens']['p50']}/"
                  f"{metrics['prompt_tokens']['p95']}; extractive fallbacks: {metrics['extractive_fallbacks']}.", ""]
    return lines


def run_eval(settings: Settings, gold_path: Path, out_dir: Path, corpus: list[Path], retrieval_only: bool,
             progress: bool | None = None) -> tuple[Path, dict[str, Any]]:
    """The whole evaluation: retrieval at 38 papers (and with ``corpus`` as
    distractors), answers at 38 papers unless ``retrieval_only``. Writes a
    dated markdown and JSON report into ``out_dir`` and returns the markdown's path."""
    gold = load_gold(gold_path)
    report: dict[str, Any] = {"date": time.strftime("%Y-%m-%d"), "gold": str(gold_path), "questions": len(gold)}
    lines = [f"# paper-assistant evaluation, {report['date']}", "",
             f"Gold set: {gold_path.name}, {len(gold)} questions over the 38 bundled abstracts.", ""]
    scales = {"seeds": [], "corpus": corpus} if corpus else {"seeds": []}
    indexes: dict[str, PaperIndex] = {}
    for scale, extra in scales.items():
        index = PaperIndex(settings.model_copy(update={"storage": settings.resolved_storage() / f"eval-{scale}"}))
        index.ingest(load_papers(seed_files() + extra), progress=progress)
        indexes[scale] = index
        report[f"retrieval_{scale}"] = retrieval_metrics(PaperRetriever(index), gold)
        title = f"{len(index.lexical[1]):,} papers" + (" (seeds + corpus distractors)" if extra else " (seeds)")
        lines += _retrieval_table(title, report[f"retrieval_{scale}"])
    if not retrieval_only:
        assistant = Assistant(indexes["seeds"].settings, index=indexes["seeds"])
        model = assistant.llm.endpoint.model
        prompts_id = hashlib.sha256((prompts.SYSTEM_PROMPT + prompts.ASK + prompts.SUMMARIZE).encode()).hexdigest()[:8]
        cache = out_dir / f".cache-{model}-{prompts_id}-{report['date']}.jsonl"  # new prompts, new answers
        rows = answer_rows(assistant, gold, cache, progress)
        report["answers"] = answer_metrics(rows, gold) | {"model": model}
        lines += _answer_table(report["answers"], model)
    out_dir.mkdir(parents=True, exist_ok=True)
    stem = f"{report['date']}-{'retrieval' if retrieval_only else 'full'}"
    write_atomic(out_dir / f"{stem}.json", json.dumps(report, indent=1, ensure_ascii=False))
    path = out_dir / f"{stem}.md"
    write_atomic(path, "\n".join(lines))
    return path, report
