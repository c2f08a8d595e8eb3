"""Retrieval and answer metrics over a gold split (eval/gold/dev.jsonl, test.jsonl).

Tune on ``dev``, report ``test``: the same questions used to tune and to
report flattered every earlier figure. Gold questions name their papers by
position in the bundled lists ("neurips2025#4"); we map those to content
keys, so a seed paper still counts as found when the corpus's richer record
of the same paper is what the index holds. Every metric comes with a
baseline from the same run: BM25 and dense alone for retrieval, the same LLM
with the same system prompt and no sources for answers. Errors are counted
in the model's raw text, before any repair; a refusal never counts as a
success of anything but refusing. Answer runs are cached per question, so
an interrupted run resumes.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import re
import statistics
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from llama_index.core.llms import ChatMessage, MessageRole
from tqdm import tqdm

from assistant import answerability, compare, intent, prompts
from assistant.answer import Assistant, Draft, Final, Routed, language_of
from assistant.citations import markers as cited_numbers
from assistant.citations import placeholders
from assistant.cleaning import clean_text
from assistant.errors import InputError
from assistant.files import write_atomic
from assistant.finalize import ORIGINAL_LEAD, draft_of, finalize, is_refusal, quote_of, unanswered
from assistant.fusion import RANK_FUSION_BEFORE
from assistant.index import PaperIndex
from assistant.intent import topic_of, topic_scope
from assistant.lexical import tokenize
from assistant.papers import SEEDS_DIR, load_papers, seed_files
from assistant.result import AnswerResult
from assistant.retrieve import Hit, Mode, PaperRetriever
from assistant.settings import Settings, load_settings, set_offline_env

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
    intent: str = "ask"
    venue: str | None = None


def bench_parser(doc: str, split: str) -> argparse.ArgumentParser:
    """A gold-set bench's command line: which split, which index, where the report goes."""
    parser = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    parser.add_argument("--split", choices=["dev", "test", "all"], default=split)
    parser.add_argument("--storage", type=Path, help="an index holding the seeds (default: ingest into a temp folder)")
    parser.add_argument("--out", type=Path, default=Path(__file__).resolve().parents[1] / "eval" / "results")
    parser.add_argument("--tag", default="", help="added to the report's name (e.g. before)")
    return parser


def gold_rows(path: Path, split: str) -> list[dict[str, Any]]:
    """A bench's gold rows (JSON lines) of one split, or of all."""
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    return [r for r in rows if split == "all" or r["split"] == split]


@contextmanager
def seeds_assistant(storage: Path | None) -> Iterator[Assistant]:
    """A bench's assistant over the bundled seeds, offline: the index at
    ``storage``, else the seeds ingested into a temp folder for the bench's
    run, so that a bench needs no set-up of its own."""
    set_offline_env()
    with tempfile.TemporaryDirectory() as tmp:
        settings = load_settings({"storage": storage or Path(tmp)}, {})
        index = PaperIndex(settings)
        if storage is None:
            index.ingest(load_papers(seed_files()), progress=False)
        yield Assistant(settings, index=index)


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
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if line.strip():
            row = json.loads(line)
            unknown = [r for r in row["papers"] if r not in refs]
            if unknown:
                raise InputError(f"{path}:{number}: unknown paper {unknown[0]!r}: a gold paper is 'SEEDFILE#N', "
                                 "N counting that seed file's abstracts from 0.")
            gold.append(GoldQuestion(row["id"], row["type"], row["question"], [refs[r] for r in row["papers"]],
                                     row.get("facts", []), row.get("answerable", True), row.get("intent", "ask"),
                                     row.get("venue")))
    return gold


def retrieval_metrics(retriever: PaperRetriever, gold: list[GoldQuestion], k: int = 5,
                      modes: tuple[Mode, ...] = MODES, translate: Callable[[str], str] | None = None,
                      baseline: PaperRetriever | None = None) -> dict[str, Any]:
    """hit@1, hit@k, MRR (first gold paper) and recall@k (all gold papers),
    per mode and per question type, plus retrieval latency. Each question goes
    through ``scope`` first, as search, ask and summarize do: the venue or
    year it names becomes the filter, a Chinese one is put into English
    (``translate``, else the term dictionary). ``off_venue@k`` is the share of
    a venue-scoped question's top k from another venue. ``baseline`` (a
    retriever with another fusion) adds its hybrid ranking as one more row,
    ``hybrid-before``, from the same run."""
    report: dict[str, Any] = {}
    scopes = {q.id: retriever.scope(q.question, translate=translate) for q in gold if q.keys}
    runs: list[tuple[str, PaperRetriever, Mode]] = [(mode, retriever, mode) for mode in modes]
    if baseline is not None:
        runs.append(("hybrid-before", baseline, "hybrid"))
    for label, searcher, mode in runs:
        per_type: dict[str, list[dict[str, float]]] = defaultdict(list)
        latencies: list[float] = []
        misses: list[str] = []
        off_venue: list[float] = []
        for q in (q for q in gold if q.keys):
            scope = scopes[q.id]
            start = time.perf_counter()
            hits = searcher.search(scope.query, k=max(k, 20), venue=scope.venue, year=scope.year, mode=mode)
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
            if q.venue:
                off_venue.append(sum(h.paper.venue != q.venue for h in hits[:k]) / max(1, len(hits[:k])))
            if not row[f"hit@{k}"]:
                misses.append(q.id)
        report[label] = {
            t: {m: round(statistics.fmean(r[m] for r in rows), 3) for m in rows[0]} | {"n": len(rows)}
            for t, rows in sorted(per_type.items())
        }
        report[label]["latency_ms"] = _pcts(latencies)
        report[label]["off_venue"] = {f"off_venue@{k}": round(statistics.fmean(off_venue), 3) if off_venue else 0.0,
                                      "n": len(off_venue)}
        report[label]["misses"] = misses
    return report


def topic_candidates(retriever: PaperRetriever, gold: list[GoldQuestion],
                     settings: Settings) -> list[tuple[GoldQuestion, list[Hit]]]:
    """Every question with several gold papers that asks for a summary or a
    list, with its topic summary's candidate set (the papers ``summarize``
    would cover)."""
    knobs = settings.topics
    rows = []
    for q in gold:
        if len(q.keys) > 1 and q.intent in _LISTING:
            scope = topic_scope(retriever.scope(topic_of(q.question)))
            rows.append((q, retriever.topic(scope.query, scope.venue, scope.year, knobs.topic_max_papers,
                                            knobs.topic_min_score, knobs.topic_min_similarity,
                                            scope.plain)[: knobs.topic_max_papers]))
    return rows


def topic_recall(retriever: PaperRetriever, gold: list[GoldQuestion], settings: Settings) -> dict[str, Any]:
    """Recall of the gold papers in each ``topic_candidates`` set."""
    rows = [len({h.paper.key for h in found} & set(q.keys)) / len(q.keys)
            for q, found in topic_candidates(retriever, gold, settings)]
    return {f"recall@{settings.topics.topic_max_papers}": round(statistics.fmean(rows), 3) if rows else None,
            "n": len(rows)}


def _norm(text: str) -> str:
    """Lower-cased, LaTeX-free, thousands separators and % signs dropped: so
    '60,000 hours' matches '60000 hours' and '78.5\\%' matches '78.5%'."""
    text = clean_text(text).casefold().replace("%", "")
    return " ".join(re.sub(r"(?<=\d),(?=\d{3})", "", text).split())


def comparable(text: str) -> str:
    """Case, thousands separators, number words ("five" is "5"), dashes and
    spaces made comparable: a compare-table cell against its gold phrases."""
    text = re.sub(r"(?<=\d),(?=\d{3})", "", compare.number_digits(text.casefold()))
    return " ".join(re.sub(r"[\u2010-\u2015]", "-", text).split())


def holds(text: str | None, must: list[str]) -> bool:
    """Whether ``text`` contains every required phrase of a compare gold cell
    (any one of its "|" alternatives): for the benchmark's scores and for the
    test that holds the gold file to its abstracts."""
    return bool(text) and all(any(comparable(alt) in comparable(text or "") for alt in item.split("|"))
                              for item in must)


_SENTENCE_END = re.compile(r"(?<=[.!?;])\s+|[。！？；\n]")
_NUMBER = re.compile(r"\d+(?:\.\d+)?")
#: Names as written in English text: CSBrain, GSM8K, Krotov (a word with a capital letter).
_NAME = re.compile(r"\b[a-z]*[A-Z][\w-]*")


def _fact_in(fact: str, folded: str, sentences: list[str]) -> bool:
    """A fact is stated when its normalised text is in the answer, or when
    one sentence of the answer holds its stemmed content words one after
    the other ("scales exponentially with the number of hidden units" states
    "exponential in the number of hidden units"). In a Chinese answer the
    fact's numbers and Latin-script names must all be in one sentence
    ("60000 小时" states "60,000 hours", "Krotov和Hopfield" states "Krotov
    and Hopfield"); a fact with neither cannot be matched
    there. A one-word fact must match as written."""
    if _norm(fact) in folded:
        return True
    words = tokenize(fact)
    if len(words) < 2 and not _NUMBER.search(fact):
        return False
    for sentence in sentences:
        if language_of(sentence) == "English":
            if len(words) >= 2 and _in_sequence(words, tokenize(sentence)):
                return True
            continue
        needed = set(_NUMBER.findall(_norm(fact))) | {w.casefold() for w in _NAME.findall(fact)}
        if needed and all(re.search(rf"(?<![\w.]){re.escape(n)}(?!\w)", sentence, re.ASCII) for n in needed):
            return True
    return False


def _in_sequence(words: list[str], tokens: list[str]) -> bool:
    """``words`` occur in ``tokens`` one after the other."""
    return any(tokens[i: i + len(words)] == words for i in range(len(tokens) - len(words) + 1))


def facts_found(answer: str, facts: list[str]) -> int:
    """How many required facts the answer states (see ``_fact_in``). A
    fact may list ways of saying it apart by "|" ("sparse
    autoencoders|稀疏自编码器": a Chinese answer writes the Chinese term);
    any one of them states it."""
    folded = _norm(answer)
    sentences = [s for s in _SENTENCE_END.split(folded) if s.strip()]
    return sum(1 for fact in facts if any(_fact_in(alt, folded, sentences) for alt in fact.split("|")))


#: Routes that give the same answer shape (a cited list of papers): a
#: "which papers…" question answered by either is answered.
_LISTING = {"summarize", "list"}



def _self_cited(result: Any) -> tuple[int, int]:
    """Built per-paper lines ("Name: “…” [n]") and how many cite their own paper."""
    lines = [s for s in result.support if s["status"] == "quoted" and ": “" in s["sentence"]]
    own = sum(1 for s in lines if s["citations"]
              and result.citations[s["citations"][0] - 1]["title"] == s["sentence"].split(": “")[0])
    return len(lines), own


def run_question(assistant: Assistant, q: GoldQuestion, key_of: dict[str, str]) -> dict[str, Any]:
    """One gold question through the chat front door (routed as a user's
    message is), reduced to what the metrics need."""
    start = time.perf_counter()
    route, draft_ms, draft, result = "", None, "", None
    for event in assistant.respond(q.question):
        if isinstance(event, Routed):
            route = event.kind
        elif isinstance(event, Draft) and draft_ms is None:
            draft_ms, draft = round((time.perf_counter() - start) * 1000, 1), event.text
        elif isinstance(event, Final):
            result = event.result
    assert result is not None
    return _row(q, route, draft, result, key_of) | {"timings": result.timings | {"draft_ms": draft_ms or 0.0}}


def _row(q: GoldQuestion, route: str, draft: str, result: AnswerResult, key_of: dict[str, str]) -> dict[str, Any]:
    """What the metrics need of one answer (``draft``: the quoted content shown before the model's)."""
    shown = " ".join(f"{s['title']} ({s['venue']}): {s['evidence']}" for s in result.sources)
    markers = cited_numbers(result.model_text)
    built, own = _self_cited(result)
    checked = [s for s in result.support if s["supported"] is not None and s["status"] != "quoted"]
    return {
        "id": q.id, "type": q.type, "intent": q.intent, "route": route, "answerable": q.answerable,
        "answer": result.answer, "model_text": result.model_text, "abstained": result.abstained,
        "quoted": result.quoted, "extractive": result.extractive, "error": result.error,
        "cited": [key_of.get(c["paper_id"], c["paper_id"]) for c in result.citations],
        "invalid_citations": sum(1 for n in markers if not 1 <= n <= len(result.sources))
        + placeholders(result.model_text),
        "citations_total": len(markers) + placeholders(result.model_text),
        "sentences_checked": len(checked), "misattributed": sum(1 for s in checked if s.get("misattributed")),
        "built_lines": built, "built_self_cited": own,
        "facts": len(q.facts), "facts_found": facts_found(result.answer, q.facts),
        "facts_in_evidence": facts_found(shown, q.facts),
        # what the refusal policy needs to be calibrated offline on dev: the model's own
        # verdict, whether it answered, and what the quoted alternative (the draft) states
        "verdict": result.extra.get("verdict"), "model_answered": result.extra.get("model_answered"),
        "copied": result.extra.get("copied"),
        "cut": result.extra.get("cut", False), "looped": result.extra.get("looped", False),
        "facts_in_draft": facts_found(draft, q.facts),
        # the 原文 quote under a Chinese answer is the paper's English: the answer's language is the text above it
        "language_ok": not result.abstained
        and language_of(result.answer.split(ORIGINAL_LEAD)[0]) == language_of(q.question),
        "prompt_tokens": result.extra.get("prompt_tokens", 0),
        "table_cells": sum(len(r["cells"]) for r in result.extra.get("table", [])),
        "table_filled": sum(c["stated"] for r in result.extra.get("table", []) for c in r["cells"]),
    }


def rescored(rows: list[dict[str, Any]], gold: list[GoldQuestion]) -> list[dict[str, Any]]:
    """Cached answer rows with their facts counted again against today's
    gold facts (new ways of saying a fact), the answers as they were."""
    by_id = {q.id: q for q in gold}
    out = []
    for row in rows:
        q = by_id[row["id"]]
        again = dict(row, facts=len(q.facts), facts_found=facts_found(row["answer"], q.facts))
        if "closed_book" in row:
            again["closed_book"] = dict(row["closed_book"],
                                        facts_found=facts_found(row["closed_book"]["answer"], q.facts))
        out.append(again)
    return out


def rechecked(assistant: Assistant, rows: list[dict[str, Any]], gold: list[GoldQuestion]
              ) -> tuple[list[dict[str, Any]], int]:
    """Cached answer rows with the single-question path's model replies
    checked again by today's code (citation check, refusal policy), with
    the model's cached reply and P(yes): a change of the checking step
    measured on a whole split in seconds, the model's noise left out.
    Evidence is selected again (``prepare_ask``), so the run must be of
    today's retrieval; a question today's evidence rules refuse is refused
    (no model needed). A refusal the model was asked to overrule by copying
    a sentence is quoted again from its cached copy (``copied``; caches
    from before it was kept keep such rows as cached). Rows of other paths,
    refusals today's thresholds would ask a copy for where the run did not,
    and questions the rules refused in the run but no longer do are kept as
    cached. Returns the rows and how many were checked again."""
    by_id = {q.id: q for q in gold}
    key_of = {p.paper_id: p.key for p in assistant.index.corpus.papers}
    names = assistant.index.corpus.lexical.names
    out, checked = [], 0
    for row in rows:
        q = by_id[row["id"]]
        route = intent.route(q.question, assistant.index.corpus.lexical.mentioned)
        if row.get("route") != "ask" or route.kind != "ask" or route.each or route.metadata or row["error"]:
            out.append(row)
            continue
        scope, evidence, _ = assistant.prepare_ask(q.question, keywords=route.keywords)
        refused = answerability.missing(q.question, evidence, assistant.settings.answer.unrelated_below, names)
        copied = row.get("copied")
        if not refused and _needs_model(row, q.question, route.keywords, assistant.settings.answer.overrule_refusal):
            out.append(row)  # the model's reply is needed, or its copied sentence
            continue
        result = finalize("ask", q.question, scope.query, "" if refused else row["model_text"], evidence,
                          assistant.checks, verdict=None if refused else row["verdict"],
                          quote_refusal=route.keywords and not refused, papers=names,
                          pick=quote_of(copied, evidence, assistant.settings.answer) if copied else None,
                          identify=route.keywords or intent.identifies(q.question), cut=row.get("cut", False))
        result.extra["prompt_tokens"] = row["prompt_tokens"]
        out.append(row | _row(q, "ask", draft_of(evidence, assistant.settings.answer), result, key_of))
        checked += 1
    return out, checked


def _needs_model(row: dict[str, Any], question: str, keywords: bool, overrule: float) -> bool:
    """Whether checking a cached row again needs a model call it lacks: no
    reply, or one that gave no answer (a refusal, the question said back:
    see ``finalize.unanswered``) whose copied sentence was not kept (an
    older cache) or not asked for where today's threshold (``overrule``) would ask."""
    if not row["model_text"]:
        return True
    if not unanswered(question, row["model_text"]):
        return False
    return "copied" not in row or (row["copied"] is None and (keywords or (row["verdict"] or 0.0) >= overrule))


def _closed_book(assistant: Assistant, q: GoldQuestion) -> dict[str, Any]:
    """The baseline: the same model and system prompt, no sources."""
    prompt = prompts.CLOSED_BOOK.format(question=q.question, language=language_of(q.question))
    closed = assistant.llm.complete([ChatMessage(role=MessageRole.SYSTEM, content=prompts.SYSTEM_PROMPT),
                                     ChatMessage(role=MessageRole.USER, content=prompt)])
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
    key_of = {p.paper_id: p.key for p in assistant.index.corpus.papers}
    cache.parent.mkdir(parents=True, exist_ok=True)
    passes = [("Answering", "answer", lambda q: run_question(assistant, q, key_of)),
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


def ratio(numerator: float, denominator: float) -> float | None:
    """A share rounded for a report; None when there is nothing to share (no question of that kind)."""
    return round(numerator / denominator, 3) if denominator else None


def _pcts(values: list[float]) -> dict[str, float]:
    """Median and 95th percentile (nearest rank: with few values it is the
    largest, never below the median, as flooring made it for two values)."""
    ordered = sorted(values) or [0.0]
    return {"p50": round(statistics.median(ordered), 1),
            "p95": round(ordered[math.ceil(0.95 * len(ordered)) - 1], 1)}


def answer_metrics(rows: list[dict[str, Any]], gold: list[GoldQuestion]) -> dict[str, Any]:
    """The issue's answer metrics, each able to fail, with the closed-book
    baseline beside those that have one."""
    by_id = {q.id: q for q in gold}
    answerable = [r for r in rows if r["answerable"]]
    unanswerable = [r for r in rows if not r["answerable"]]
    with_facts = [r for r in answerable if r["facts"]]
    cited = [(set(r["cited"]), set(by_id[r["id"]].keys)) for r in answerable if by_id[r["id"]].keys]
    listing = [r for r in answerable if r["intent"] in _LISTING and len(by_id[r["id"]].keys) > 1]

    def refusal(get: Any) -> dict[str, float | None]:
        predicted = [get(r) for r in rows]
        truth = [not r["answerable"] for r in rows]
        tp = sum(p and t for p, t in zip(predicted, truth, strict=True))
        return {"precision": ratio(tp, sum(predicted)), "recall": ratio(tp, sum(truth))}

    def facts(key: Any) -> float | None:
        return ratio(sum(key(r) for r in with_facts), sum(r["facts"] for r in with_facts))

    baseline = all("closed_book" in r for r in rows)  # an interrupted run may lack it: no baseline then

    chinese = [r for r in answerable if r["type"] == "chinese"]
    compare = [r for r in rows if r["table_cells"]]
    answered = [r for r in rows if r["timings"]["ttft_ms"]]
    return {
        "questions": len(rows),
        "fact_coverage": facts(lambda r: r["facts_found"]),
        "fact_coverage_closed_book": facts(lambda r: r["closed_book"]["facts_found"]) if baseline else None,
        "evidence_coverage": facts(lambda r: r["facts_in_evidence"]),
        "false_refusals": ratio(sum(r["abstained"] for r in answerable), len(answerable)),
        "false_refusals_closed_book": ratio(sum(r["closed_book"]["abstained"] for r in answerable), len(answerable))
        if baseline else None,
        "refusal": refusal(lambda r: r["abstained"]),
        "refusal_closed_book": refusal(lambda r: r["closed_book"]["abstained"]) if baseline
        else {"precision": None, "recall": None},
        "citation_precision": ratio(sum(len(c & g) for c, g in cited), sum(len(c) for c, g in cited)),
        "citation_recall": ratio(sum(len(c & g) for c, g in cited), sum(len(g) for c, g in cited)),
        "invalid_citation_rate": ratio(sum(r["invalid_citations"] for r in rows),
                                        sum(r["citations_total"] for r in rows)) or 0.0,
        "misattribution_rate": ratio(sum(r["misattributed"] for r in rows),
                                      sum(r["sentences_checked"] for r in rows)) or 0.0,
        "route_accuracy": ratio(sum(r["route"] == r["intent"] or {r["route"], r["intent"]} <= _LISTING
                                     for r in rows), len(rows)),
        "route_accuracy_strict": ratio(sum(r["route"] == r["intent"] for r in rows), len(rows)),
        "topic_papers_listed": ratio(sum(len(set(r["cited"]) & set(by_id[r["id"]].keys)) for r in listing),
                                      sum(len(by_id[r["id"]].keys) for r in listing)),
        "topic_lines_self_cited": ratio(sum(r["built_self_cited"] for r in rows), sum(r["built_lines"] for r in rows)),
        "language_match": ratio(sum(r["language_ok"] for r in chinese), len(chinese)),
        "table_cells_filled": ratio(sum(r["table_filled"] for r in compare), sum(r["table_cells"] for r in compare)),
        "quoted_answers": sum(r["quoted"] and not r["extractive"] for r in rows),
        "extractive_fallbacks": sum(r["extractive"] for r in rows),
        "unanswerable": len(unanswerable),
        "latency_ms": {k: _pcts([r["timings"][k] for r in (answered if k == "ttft_ms" else rows)])
                       for k in ("retrieval_ms", "draft_ms", "ttft_ms", "total_ms")},
        "ttft_ms_chinese": _pcts([r["timings"]["ttft_ms"] for r in answered if r["type"] == "chinese"]),
        "prompt_tokens": _pcts([r["prompt_tokens"] for r in rows]),
    }


def _retrieval_table(title: str, report: dict[str, Any]) -> list[str]:
    lines = [f"### Retrieval — {title}", "", "| mode | type | n | hit@1 | hit@5 | MRR | recall@5 |", "|---|---|---|---|---|---|---|"]
    for mode, table in report.items():
        for qtype, row in table.items():
            if qtype not in ("latency_ms", "misses", "off_venue"):
                lines.append(f"| {mode} | {qtype} | {row['n']} | {row['hit@1']:.3f} | {row['hit@5']:.3f} | "
                             f"{row['mrr']:.3f} | {row['recall@5']:.3f} |")
    lines += ["", "Latency ms: " + ", ".join(f"{m} p50 {t['latency_ms']['p50']} / p95 {t['latency_ms']['p95']}"
                                           for m, t in report.items()),
              "", "Venue-scoped questions, share of the top 5 from another venue: "
              + ", ".join(f"{m} {t['off_venue']['off_venue@5']:.3f}" for m, t in report.items())
              + f" (n = {next(iter(report.values()))['off_venue']['n']})", ""]
    return lines


def _answer_table(metrics: dict[str, Any], model: str) -> list[str]:
    fmt = lambda v: "—" if v is None else f"{v:.3f}" if isinstance(v, float) else str(v)
    rows = [
        ("required-fact coverage", metrics["fact_coverage"], metrics["fact_coverage_closed_book"]),
        ("evidence coverage (facts in what the model is shown)", metrics["evidence_coverage"], None),
        ("false refusals (share of answerable)", metrics["false_refusals"], metrics["false_refusals_closed_book"]),
        ("refusal recall (unanswerable)", metrics["refusal"]["recall"], metrics["refusal_closed_book"]["recall"]),
        ("refusal precision", metrics["refusal"]["precision"], metrics["refusal_closed_book"]["precision"]),
        ("citation precision (cited papers that are gold)", metrics["citation_precision"], None),
        ("citation recall (gold papers cited)", metrics["citation_recall"], None),
        ("invalid citations in the raw model text", metrics["invalid_citation_rate"], None),
        ("misattributed sentences in the raw model text", metrics["misattribution_rate"], None),
        ("route accuracy (summary and list as one)", metrics["route_accuracy"], None),
        ("route accuracy (strict)", metrics["route_accuracy_strict"], None),
        ("topic/list: gold papers listed", metrics["topic_papers_listed"], None),
        ("quoted per-paper lines cited to their own paper", metrics["topic_lines_self_cited"], None),
        ("language match (answerable Chinese questions; a refusal is a miss)", metrics["language_match"], None),
        ("compare-table cells filled (vs not stated)", metrics["table_cells_filled"], None),
    ]
    lines = [f"### Answers — {model}, {metrics['questions']} questions ({metrics['unanswerable']} unanswerable)", "",
             "| metric | paper-assistant | same LLM, no sources |", "|---|---|---|"]
    lines += [f"| {name} | {fmt(ours)} | {fmt(base)} |" for name, ours, base in rows]
    lat = metrics["latency_ms"]
    lines += ["", "Latency ms p50/p95: " + ", ".join(f"{k.removesuffix('_ms')} {v['p50']}/{v['p95']}"
                                                     for k, v in lat.items())
              + f"; TTFT of Chinese questions {metrics['ttft_ms_chinese']['p50']}/{metrics['ttft_ms_chinese']['p95']}; "
              f"prompt size p50/p95 {metrics['prompt_tokens']['p50']}/{metrics['prompt_tokens']['p95']} "
              f"({metrics.get('prompt_tokens_by', 'MiniLM word pieces')}); "
              f"answers quoted because the model refused: {metrics['quoted_answers']}; "
              f"extractive because the LLM failed: {metrics['extractive_fallbacks']}.", ""]
    return lines


def _use_llm_tokenizer(assistant: Assistant) -> bool:
    """Count prompt sizes with the LLM's own tokenizer where the endpoint
    offers one (the embedded server does); False: MiniLM word pieces stay."""
    llm = assistant.llm
    if llm.count_tokens(prompts.SYSTEM_PROMPT) is None:
        return False

    def count(texts: list[str]) -> int:
        return sum(llm.count_tokens(t) or 0 for t in texts)

    assistant.count_prompt = count
    return True


def settings_tag(settings: Settings) -> str:
    """Names a report after the model that answered it."""
    return "full" if settings.llm.base_url else f"local-{settings.local.local_model}"


def run_eval(settings: Settings, gold_path: Path, out_dir: Path, corpus: list[Path], retrieval_only: bool,
             progress: bool | None = None, limit: int | None = None,
             types: set[str] | None = None) -> tuple[Path, dict[str, Any]]:
    """The whole evaluation: retrieval at 38 papers (and with ``corpus`` as
    distractors), answers at 38 papers unless ``retrieval_only``. Writes a
    dated markdown and JSON report into ``out_dir`` and returns the markdown's path.
    Chinese questions are searched through the LLM's translation when
    ``settings.retrieval.query_translation`` is ``llm`` (``--query-translation llm``),
    else through the term dictionary, as ``search`` does without an endpoint."""
    gold = [q for q in load_gold(gold_path) if types is None or q.type in types][:limit]
    if not gold:
        raise InputError(f"No gold question in {gold_path} is of the types asked for ({', '.join(sorted(types or []))}).")
    split = gold_path.stem
    report: dict[str, Any] = {"date": time.strftime("%Y-%m-%d"), "gold": str(gold_path), "split": split,
                              "questions": len(gold)}
    lines = [f"# paper-assistant evaluation, {report['date']}, split `{split}`", "",
             f"Gold set: {gold_path.name}, {len(gold)} questions over the 38 bundled abstracts.", ""]
    scales = {"seeds": [], "corpus": corpus} if corpus else {"seeds": []}
    indexes: dict[str, PaperIndex] = {}
    translate: Callable[[str], str] | None = None
    for scale, extra in scales.items():
        index = PaperIndex(settings.with_(storage=settings.index.resolved_storage() / f"eval-{scale}"))
        index.ingest(load_papers(seed_files() + extra), progress=progress)
        indexes[scale] = index
        if settings.retrieval.query_translation == "llm" and translate is None:
            translate = Assistant(indexes["seeds"].settings, index=indexes["seeds"]).translate
        retriever = PaperRetriever(index)
        before = PaperRetriever(index)
        before.fusion = RANK_FUSION_BEFORE
        report[f"retrieval_{scale}"] = retrieval_metrics(retriever, gold, translate=translate, baseline=before)
        report[f"topic_{scale}"] = topic_recall(retriever, gold, settings)
        title = f"{len(index.corpus.papers):,} papers" + (" (seeds + corpus distractors)" if extra else " (seeds)")
        lines += _retrieval_table(title, report[f"retrieval_{scale}"])
        topic = report[f"topic_{scale}"]
        lines += [(f"Topic and list questions, gold papers in the summary's candidate set: "
                  f"{' '.join(f'{m} {v}' for m, v in topic.items())}."), ""]
    if not retrieval_only:
        assistant = Assistant(indexes["seeds"].settings, index=indexes["seeds"])
        model = assistant.llm.endpoint.model
        llm_tokens = _use_llm_tokenizer(assistant)
        counted_by = f"{model}'s own tokenizer" if llm_tokens else "MiniLM word pieces (the endpoint has no tokenizer route)"
        prompts_id = hashlib.sha256("".join(v for k, v in sorted(vars(prompts).items())
                                            if k.isupper() and isinstance(v, str)).encode()).hexdigest()[:8]
        unit = "-llmtok" if llm_tokens else ""  # rows counted one way only
        cache = out_dir / f".cache-{split}-{model}-{prompts_id}-{report['date']}{unit}.jsonl"  # new prompts, new answers
        rows = answer_rows(assistant, gold, cache, progress)
        report["answers"] = answer_metrics(rows, gold) | {"model": model, "prompt_tokens_by": counted_by}
        lines += _answer_table(report["answers"], model)
    out_dir.mkdir(parents=True, exist_ok=True)
    stem = (f"{report['date']}-{split}-{'retrieval' if retrieval_only else settings_tag(settings)}"
            + ("-" + "+".join(sorted(types)) if types else ""))
    write_atomic(out_dir / f"{stem}.json", json.dumps(report, indent=1, ensure_ascii=False))
    path = out_dir / f"{stem}.md"
    write_atomic(path, "\n".join(lines))
    return path, report
