"""Answers from the retrieved abstracts: ask, chat, topic summaries, comparisons.

Each mode yields typed events (``Sources`` first, then ``Token`` deltas as
the model writes, then ``Final`` with the checked answer), which the CLI
prints and the UI renders. When the LLM fails, the sources still come and the
answer is extractive: the most relevant sentences, cited, marked as such.
"""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from llama_index.core.llms import ChatMessage, MessageRole

from assistant import prompts
from assistant.aspects import aspect_table
from assistant.citations import attribute, numbering, support_json
from assistant.errors import LLMUnavailable, NotFound
from assistant.evidence import Evidence, EvidenceSelector
from assistant.index import PaperIndex
from assistant.llm import LLMClient, resolve_endpoint
from assistant.papers import Paper
from assistant.retrieve import Hit, PaperRetriever
from assistant.settings import Settings

_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af]")
#: Sentences in an extractive answer, and how close to the best each must score.
EXTRACTIVE_SENTENCES = 3
EXTRACTIVE_RELATIVE = 0.7
#: Seconds before an endpoint that failed to resolve (or a local server that
#: failed to start) is tried again.
RETRY_ENDPOINT_AFTER_S = 30.0
#: A hit enters the prompt when its fused score is at least this share of the best.
FOCUS_RELATIVE = 0.3


@dataclass(frozen=True)
class Sources:
    """The papers the answer will draw on, known before the first token."""

    sources: list[dict[str, Any]]


@dataclass(frozen=True)
class Token:
    """A piece of the model's reply as it streams (citations not yet checked)."""

    text: str


@dataclass
class AnswerResult:
    """The checked answer and everything the ``--json`` contract carries."""

    mode: str
    question: str
    query: str
    answer: str
    citations: list[dict[str, Any]]
    sources: list[dict[str, Any]]
    abstained: bool
    model: str
    timings: dict[str, float]
    support: list[dict[str, Any]] = field(default_factory=list)
    extractive: bool = False
    error: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        payload = {
            "question": self.question, "answer": self.answer, "citations": self.citations,
            "sources": self.sources, "abstained": self.abstained, "model": self.model,
            "timings": self.timings, "mode": self.mode, "query": self.query, "support": self.support,
            "extractive": self.extractive, "error": self.error,
        }
        return payload | self.extra

    def to_markdown(self) -> str:
        """The answer with its table (compare) and reference list, for export."""
        lines = [f"# {self.question}", "", self.answer, ""]
        if self.extractive:
            lines[2:2] = [f"> The LLM was unavailable ({self.error}); these sentences are quoted from the abstracts.", ""]
        if self.extra.get("table"):
            names = [p["title"] for p in self.extra["papers"]]
            lines += [f"| aspect | {names[0]} | {names[1]} |", "|---|---|---|"]
            lines += [f"| {row['aspect']} | {_cell(row['a'])} | {_cell(row['b'])} |" for row in self.extra["table"]]
            lines.append("")
        lines += ["## References", ""]
        lines += [f"{s['n']}. {s['title']} — {s['venue']} (id `{s['paper_id']}`)"
                  + ("" if s["n"] <= len(self.citations) else " — not cited") for s in self.sources]
        return "\n".join(lines) + "\n"


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


@dataclass(frozen=True)
class Final:
    """The last event: the checked answer."""

    result: AnswerResult


Event = Sources | Token | Final


def language_of(text: str) -> str:
    """The language to answer in: Chinese (or Japanese/Korean script) or English."""
    return "Chinese" if _CJK.search(text) else "English"


def is_refusal(text: str) -> bool:
    """True when the model said the abstracts do not hold the answer."""
    folded = " ".join(text.casefold().split())
    return not folded or prompts.REFUSAL.casefold().rstrip(".") in folded


def _source_json(e: Evidence, n: int) -> dict[str, Any]:
    paper = e.paper
    return {"n": n, "paper_id": paper.paper_id, "title": paper.name, "venue": paper.venue,
            "score": round(e.hit.score, 4), "abstract": paper.abstract, "evidence": e.text()}


def _extractive(evidence: list[Evidence]) -> str:
    """The most relevant quoted sentences, cited: the answer when no LLM can
    give one. Sentences far below the best are left out."""
    ranked = sorted(((score, sentence, e.n) for e in evidence for score, sentence in e.best_sentences()), reverse=True)
    top = ranked[0][0] if ranked else 0.0
    return " ".join(f"{sentence} [{n}]" for score, sentence, n in ranked[:EXTRACTIVE_SENTENCES]
                    if score >= EXTRACTIVE_RELATIVE * top)


def _focus(hits: list[Hit]) -> list[Hit]:
    """Drop hits far weaker than the best: distractors cost a small model
    prompt time and accuracy."""
    return [h for h in hits if h.score >= FOCUS_RELATIVE * hits[0].score] if hits else hits


def _ms(start: float) -> float:
    return round((time.perf_counter() - start) * 1000, 1)


class Assistant:
    """The library's front door: one per process, shared by CLI and UI."""

    def __init__(self, settings: Settings, index: PaperIndex | None = None, llm: LLMClient | None = None) -> None:
        self.settings = settings
        self.index = index or PaperIndex(settings)
        self.retriever = PaperRetriever(self.index, k=settings.answer_papers)
        self.selector = EvidenceSelector(self.index.embedder)
        self._llm = llm
        self._llm_failure: tuple[float, LLMUnavailable | None] = (0.0, None)
        self._llm_lock = threading.Lock()

    @property
    def llm(self) -> LLMClient:
        """The endpoint's client, resolved (and the local server started) on
        first use. A failure is remembered for a while so that every question
        does not pay for a server that cannot start."""
        with self._llm_lock:  # UI sessions share one assistant: start one server, not several
            if self._llm is None:
                failed_at, error = self._llm_failure
                if error is not None and time.monotonic() - failed_at < RETRY_ENDPOINT_AFTER_S:
                    raise error
                try:
                    self._llm = LLMClient(self.settings, resolve_endpoint(self.settings))
                except LLMUnavailable as exc:
                    self._llm_failure = (time.monotonic(), exc)
                    raise
            return self._llm

    # -- the modes ----------------------------------------------------------
    def ask(self, question: str, venue: str | None = None, asked: str | None = None) -> Iterator[Event]:
        """Answer ``question`` from the best few papers. ``asked`` is the
        user's own words when ``question`` is a rewritten follow-up."""
        start = time.perf_counter()
        query, evidence, prompt = self.prepare_ask(question, venue, asked)
        yield from self._generate("ask", asked or question, query, evidence, prompt, start)

    def prepare_ask(self, question: str, venue: str | None = None, asked: str | None = None
                    ) -> tuple[str, list[Evidence], str]:
        """The search query, the evidence and the user prompt for a question."""
        query = self._search_query(question)
        hits = _focus(self.retriever.search(query, k=self.settings.answer_papers, venue=venue))
        evidence = self.selector.select(query, hits, self.settings.evidence_sentences, self.settings.evidence_tokens)
        prompt = prompts.ASK.format(sources=self._format(evidence), question=question,
                                    language=language_of(asked or question))
        return query, evidence, prompt

    def summarize(self, topic: str, venue: str | None = None, *, papers: list[Paper] | None = None
                  ) -> Iterator[Event]:
        """Overview of every paper about ``topic`` (a relevance cut-off, not a fixed k), or of
        exactly ``papers`` (most relevant first; no retrieval), e.g. a topic map's."""
        start = time.perf_counter()
        query = self._search_query(topic)
        pool = (self.retriever.search(query, k=3 * self.settings.topic_max_papers, venue=venue) if papers is None
                else [Hit(p, 1.0, 1.0, True) for p in papers])
        best = max((h.similarity for h in pool), default=0.0)
        cutoff = max(self.settings.topic_min_similarity, best - self.settings.topic_window)
        about = [h for h in pool if h.named or h.similarity >= cutoff]
        shown = about[: self.settings.topic_max_papers]
        budget = max(self.settings.evidence_tokens, 45 * len(shown))
        evidence = self.selector.select(query, shown, 1, budget)
        prompt = prompts.SUMMARIZE.format(sources=self._format(evidence), topic=topic, count=len(shown),
                                          language=language_of(topic))
        extra = {"found": len(about), "shown": len(shown)}
        yield from self._generate("summarize", topic, query, evidence, prompt, start, extra)

    def compare(self, a: str, b: str) -> Iterator[Event]:
        """Aspect table filled from each abstract, then a cited narrative."""
        start = time.perf_counter()
        papers = [self._resolve(a), self._resolve(b)]
        if papers[0].paper_id == papers[1].paper_id:
            raise NotFound(f"'{a}' and '{b}' are the same paper ({papers[0].name}): name two different papers.")
        hits = [Hit(p, 1.0, 1.0, True) for p in papers]
        evidence = self.selector.select(f"{papers[0].name} {papers[1].name}", hits, 1, self.settings.evidence_tokens)
        table, used = aspect_table([e.sentences for e in evidence])
        for e, indices in zip(evidence, used, strict=True):
            e.chosen = indices or e.chosen  # the model sees what the table shows
        prompt = prompts.COMPARE.format(sources=self._format(evidence), a=papers[0].name, b=papers[1].name,
                                        language=language_of(a + b))
        extra = {
            "papers": [{"paper_id": p.paper_id, "title": p.name, "venue": p.venue} for p in papers],
            "table": table,
        }
        yield from self._generate("compare", f"{a} vs {b}", f"{papers[0].name} vs {papers[1].name}", evidence,
                                  prompt, start, extra)

    def conversation(self) -> Conversation:
        return Conversation(self)

    # -- shared steps ---------------------------------------------------------
    def _search_query(self, question: str) -> str:
        """Questions in another script are translated into an English search
        query first (MiniLM and BM25 see English abstracts)."""
        if language_of(question) == "English":
            return question
        try:
            translated = self.llm.complete([ChatMessage(role=MessageRole.USER,
                                                        content=prompts.TRANSLATE_QUERY.format(question=question))])
        except LLMUnavailable:
            return question
        return f"{translated.splitlines()[0] if translated else ''} {question}".strip()

    def _resolve(self, text: str) -> Paper:
        found = self.retriever.resolve(text)
        if found.paper is not None:
            return found.paper
        if not found.candidates:
            raise NotFound(f"No paper matches '{text}': try its name, title or id (see `paper-assistant papers`).")
        names = "; ".join(p.name for p in found.candidates[:5])
        raise NotFound(f"'{text}' is ambiguous: did you mean one of {names}? Name one of them.")

    def _format(self, evidence: list[Evidence]) -> str:
        return prompts.format_sources([(e.n, e.paper.name, e.paper.venue, e.text()) for e in evidence])

    def _generate(self, mode: str, question: str, query: str, evidence: list[Evidence], prompt: str,
                  start: float, extra: dict[str, Any] | None = None) -> Iterator[Event]:
        """Stream the model's answer over ``evidence``, then check it."""
        retrieval_ms = _ms(start)
        yield Sources([_source_json(e, e.n) for e in evidence])
        text, error, ttft = "", None, None
        model = ""
        if evidence:
            messages = [ChatMessage(role=MessageRole.SYSTEM, content=prompts.SYSTEM_PROMPT),
                        ChatMessage(role=MessageRole.USER, content=prompt)]
            try:
                model = self.llm.endpoint.model
                for delta in self.llm.stream(messages):
                    ttft = ttft if ttft is not None else _ms(start)
                    text += delta
                    yield Token(delta)
            except LLMUnavailable as exc:
                error = str(exc)
        extractive = error is not None
        if extractive:
            text = _extractive(evidence)
        abstained = not evidence or (not extractive and is_refusal(text))
        claims = [] if abstained else attribute(text, evidence, self.index.embedder, self.settings.support_threshold,
                                                question)
        checked = [c for c in claims if c.scores]
        if checked and all(c.status == "unsupported" for c in checked):
            abstained, claims = True, []  # nothing the model said is in the abstracts: that is a refusal
        order = numbering(claims)
        renumbered = order | {e.n: len(order) + i for i, e in enumerate((e for e in evidence if e.n not in order), 1)}
        by_n = {e.n: e for e in evidence}
        sources = sorted((_source_json(by_n[n], new) for n, new in renumbered.items()), key=lambda s: s["n"])
        answer = prompts.REFUSAL if abstained else " ".join(c.render(order) for c in claims if c.text)
        result = AnswerResult(
            mode=mode, question=question, query=query, answer=answer,
            citations=[{k: s[k] for k in ("n", "paper_id", "title", "venue")} for s in sources if s["n"] <= len(order)],
            sources=sources, abstained=abstained, model=model,
            timings={"retrieval_ms": retrieval_ms, "ttft_ms": ttft if ttft is not None else 0.0, "total_ms": _ms(start)},
            support=support_json(claims, order, evidence), extractive=extractive, error=error,
            extra=(extra or {}) | {"prompt_tokens": sum(self.index.embedder.count_tokens([prompts.SYSTEM_PROMPT,
                                                                                          prompt]))},
        )
        yield Final(result)


class Conversation:
    """A multi-turn chat: follow-ups are rewritten into standalone questions
    from this conversation's own history before retrieval."""

    def __init__(self, assistant: Assistant, max_turns: int = 4) -> None:
        self.assistant = assistant
        self.max_turns = max_turns
        self.history: list[tuple[str, str]] = []

    def standalone(self, message: str) -> str:
        """The follow-up rewritten with the conversation's context (or as is)."""
        if not self.history:
            return message
        history = "\n".join(f"User: {q}\nAssistant: {a}" for q, a in self.history[-self.max_turns:])
        try:
            rewritten = self.assistant.llm.complete([ChatMessage(
                role=MessageRole.USER, content=prompts.CONDENSE.format(history=history, question=message))])
        except LLMUnavailable:
            return f"{self.history[-1][0]} {message}"
        return rewritten.splitlines()[0].strip() if rewritten.strip() else message

    def send(self, message: str, venue: str | None = None) -> Iterator[Event]:
        """Answer one message of the conversation."""
        for event in self.assistant.ask(self.standalone(message), venue=venue, asked=message):
            if isinstance(event, Final):
                self.history.append((message, event.result.answer))
                event.result.mode = "chat"
            yield event
