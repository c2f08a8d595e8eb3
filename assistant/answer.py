"""Answers from the retrieved abstracts: chat, questions, topic summaries,
comparisons and lists, each a stream of events (see ``assistant.result``).

A chat message is routed first (``assistant.intent``): a summary request
gets the summary path, a comparison the compare path, "which papers…" a
cited list, so that no request is forced through the single-question path
and refused. Answers about several papers are built by construction: each
paper's line is that paper's own quoted sentence, cited to it, and the
model writes only the synthesis around them, which the citation check then
holds to the paper each sentence names. When the LLM fails, the sources
still come and the answer is quoted from the abstracts, marked as such.
"""

from __future__ import annotations

import re
import threading
import time
from collections import Counter
from collections.abc import Callable, Generator, Iterator
from contextlib import closing
from dataclasses import dataclass
from typing import Any

from llama_index.core.llms import ChatMessage, MessageRole

from assistant import answerability, compare, follow_ups, intent, prompts, relevance
from assistant.aspects import gist_sentence
from assistant.citations import SentenceSupport, render_claims
from assistant.crosslingual import TranslationCache, dictionary_query, has_cjk, known_terms, llm_query
from assistant.errors import LLMBusy, LLMUnavailable, NotFound
from assistant.evidence import Evidence, EvidenceSelector
from assistant.filters import topicless
from assistant.finalize import Checks, draft_of, finalize, loop_start, overruling, quote_of, source_json, unanswered
from assistant.index import PaperIndex, venue_text
from assistant.lexical import tokenize
from assistant.llm import LLMClient, Turn, resolve_endpoint
from assistant.mentions import as_written, naming_sentence, question_names, without
from assistant.papers import Paper
from assistant.result import AnswerResult, Draft, Event, Final, Routed, Sources, Table, Token, Waiting
from assistant.retrieve import Hit, PaperRetriever, Scope
from assistant.settings import Settings

__all__ = ["AnswerResult", "Assistant", "Conversation", "Draft", "Event", "Final", "Routed", "Sources", "Table",
           "Token", "Waiting", "language_of"]

#: Seconds before an endpoint that failed to resolve (or a local server that
#: failed to start) is tried again.
RETRY_ENDPOINT_AFTER_S = 30.0
#: Seconds a request waits for another one that is starting the LLM endpoint,
#: before it answers extractively instead.
LLM_START_WAIT_S = 10.0


def language_of(text: str) -> str:
    """The language to answer in: Chinese (or Japanese/Korean script) or English."""
    return "Chinese" if has_cjk(text) else "English"


def _focus(hits: list[Hit], share: float) -> list[Hit]:
    """Drop hits far weaker than the best (under ``share`` of its score):
    distractors cost a small model prompt time and accuracy."""
    return [h for h in hits if h.score >= share * hits[0].score] if hits else hits


def _ms(start: float) -> float:
    return round((time.perf_counter() - start) * 1000, 1)


def _gist(e: Evidence, most: int) -> str:
    """The paper's chosen sentences (see ``_gist_evidence``), each quoted and shortened to ``most`` words."""
    quoted = []
    for i in e.chosen:
        words = e.sentences[i].split()
        quoted.append("“" + " ".join(words[:most]) + (" …" if len(words) > most else "") + "”")
    return " ".join(quoted)


def _with_topic_sentence(e: Evidence, gist: int, topic: set[str]) -> list[int]:
    """A summary line's sentences: the paper's gist, and its sentence
    nearest the topic (the selector's pick) when that one says a word of
    the topic the gist does not. "Adversarial robustness" quoted EVNets's
    "we introduce EVNets, hybrid CNNs…", not its "…9.3% on robustness
    evaluations": what the paper is, and what it says on the topic."""
    best = e.chosen[0]
    if best == gist or not topic & set(tokenize(e.sentences[best])) - set(tokenize(e.sentences[gist])):
        return [gist]
    return [gist, best]


def _english(detail: str) -> str:
    """What the user asks of each paper (see ``intent.follow_on``) in
    English, the abstracts' language: a Chinese one ("它们在哪些任务上做了评估？")
    as the term dictionary's words ("task evaluate"), with no model call."""
    return dictionary_query(detail) if has_cjk(detail) else detail


def _quotes(e: Evidence) -> str:
    """The chosen sentences of a source, each quoted whole."""
    return " ".join(f"“{e.sentences[i]}”" for i in e.chosen)


def _paper_lines(evidence: list[Evidence], quote: Callable[[Evidence], str]) -> list[SentenceSupport]:
    """One line per paper, its own quoted sentences cited to itself: built,
    not generated, so a paper can never be described with another's words."""
    lines = [SentenceSupport(text=f"{e.paper.name}: {quote(e)}", cited=[e.n], lead="\n- ", status="quoted")
             for e in evidence]
    if lines:
        lines[0].lead = "\n\n- "  # a blank line between the model's synthesis and the list
    return lines


#: Most papers "list all papers" lists; beyond, it points to Browse and ``papers``.
LIST_ALL_MOST = 60
#: A collection question asking for the papers themselves, not their number.
_LIST_ALL = re.compile(r"\b(?:list|show|give)\b|列出", re.IGNORECASE)


def _keywords_question(keywords: str, hits: list[Hit]) -> str:
    """The question a keyword query asks: which paper it points to, or,
    when it names the paper, what that paper reports on the other words."""
    named = hits[0].paper if hits and hits[0].named else None
    if named is None:
        return prompts.KEYWORDS.format(keywords=keywords)
    rest = " ".join(without(keywords, [n for n in (named.name, named.alias) if n]).split()).strip(" ,:;-")
    return prompts.KEYWORDS_NAMED.format(name=named.name, keywords=rest) if rest else prompts.KEYWORDS.format(
        keywords=keywords)


def _filter_only(scope: Scope) -> bool:
    """A list or summary asking for a venue's or a year's papers and no
    narrower topic ("which papers are from ICLR 2026?"): the filter's
    papers, listed, not a search for the word "papers"."""
    return (scope.venue is not None or scope.year is not None) and topicless(scope.query)


def _article(word: str) -> str:
    """"a" or "an" before a venue: "an ICLR 2026 paper", "a NeurIPS 2025
    paper" (an acronym is read letter by letter: "an NAACL paper")."""
    acronym = word[:2].isupper()
    return "an" if word[:1].upper() in ("AEFHILMNORSX" if acronym else "AEIO") else "a"


def _collection_lead(message: str, greeting: bool, filtered: bool, count: int) -> str:
    """Which first line an answer about the collection takes (a key of
    ``prompts.INDEX_ANSWERS``): what the assistant does (to a greeting), the
    papers of a venue or year (``filtered``), the whole collection listed,
    or its size; a list longer than ``LIST_ALL_MOST`` is a count and where
    to browse."""
    many = count > LIST_ALL_MOST
    if greeting:
        return "help"
    if filtered:
        return "filtered_too_many" if many else "filtered"
    if _LIST_ALL.search(message):
        return "too_many" if many else "listed"
    return "size"


def _index_answers(message: str) -> dict[str, str]:
    """The index's own answers in the message's language (Chinese or English)."""
    return prompts.INDEX_ANSWERS["Chinese" if language_of(message) == "Chinese" else "English"]


def _record_line(paper: Paper, n: int, said: dict[str, str], asks_title: bool) -> SentenceSupport:
    """What a paper's record says of it, cited to source ``n``: its venue,
    year, and its title when the record has one (or asked, that it has none)."""
    if paper.title and paper.title != paper.name:
        title = f", titled “{paper.title}”"
    else:  # the bundled lists give abstracts only: "POCO" is the name the app made, not a title
        title = said["no_title"].format(name=paper.name) if asks_title else ""
    year = f" ({paper.year})" if paper.year and str(paper.year) not in paper.venue else ""
    venue = paper.venue or "?"
    return SentenceSupport(text=said["paper"].format(name=paper.name, article=_article(venue), venue=venue,
                                                     year=year, title=title), cited=[n], status="quoted")


def _messages(content: str) -> list[ChatMessage]:
    """Every request starts with the same system prompt, so the server reuses
    its evaluated prefix (a follow-up's rewrite would otherwise evict it)."""
    return [ChatMessage(role=MessageRole.SYSTEM, content=prompts.SYSTEM_PROMPT),
            ChatMessage(role=MessageRole.USER, content=content)]


#: The paths whose reply stops where it begins to repeat itself: a comparison, which the
#: 1.5B model wrote again and again to the token limit (see ``finalize.LOOP_WORDS``). A topic
#: summary that restates a paper's description goes on to say how the papers differ.
LOOPING = frozenset({"compare"})


@dataclass
class _Run:
    """One answer's generation so far: the text, when its first token came,
    the refusal verdict, the sentence the model copied as the answer after
    refusing (kept raw, so that ``eval/recheck.py`` can quote it again), the time spent in the
    model's queue and the failure, if any (``busy``: the queue timed out;
    ``cut``: the reply stopped at the token limit; ``looped``: we stopped
    it where it began to repeat itself, see ``finalize.loop_start``)."""

    start: float
    text: str = ""
    model: str = ""
    ttft: float | None = None
    verdict: float | None = None
    copied: str | None = None
    error: str | None = None
    waited: float = 0.0
    busy: bool = False
    cut: bool = False
    looped: bool = False


class Assistant:
    """The library's front door: one per process, shared by CLI and UI."""

    def __init__(self, settings: Settings, index: PaperIndex | None = None, llm: LLMClient | None = None) -> None:
        self.settings = settings
        self.index = index or PaperIndex(settings)
        self.retriever = PaperRetriever(self.index, k=settings.answer.answer_papers)
        self.selector = EvidenceSelector(self.index.embedder, settings.answer)
        self.checks = Checks(self.index.embedder, settings.answer)
        self._llm = llm
        self._llm_failure: tuple[float, LLMUnavailable | None] = (0.0, None)
        self._llm_lock = threading.Lock()
        self._translations = TranslationCache(settings.index.resolved_storage() / "translations.json")
        #: How an answer's prompt size (``prompt_tokens``) is counted: MiniLM word pieces, free and
        #: offline; the evaluation swaps in the LLM's own tokenizer (see ``LLMClient.count_tokens``).
        self.count_prompt: Callable[[list[str]], int] = lambda texts: sum(self.index.embedder.count_tokens(texts))

    @property
    def llm(self) -> LLMClient:
        """The endpoint's client, resolved (and the local server started) on
        first use. A failure is remembered for a while so that every question
        does not pay for a server that cannot start."""
        if self._llm is not None:
            return self._llm
        # UI sessions share one assistant: one of them starts the server; the
        # others wait a little, not the two minutes a local model may take.
        if not self._llm_lock.acquire(timeout=LLM_START_WAIT_S):
            raise LLMUnavailable("The LLM endpoint is still starting (the local model loads once, in up to two "
                                 "minutes): this answer is extractive; ask again in a moment.")
        try:
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
        finally:
            self._llm_lock.release()

    # -- the modes ----------------------------------------------------------
    def respond(self, message: str, venue: str | None = None, asked: str | None = None) -> Iterator[Event]:
        """A message in the user's words, sent down the path it asks for.
        ``asked`` is the user's own text when ``message`` is a rewritten follow-up."""
        papers = self.index.corpus.papers
        route, chosen = self.route(message)
        reason = route.reason
        most = self.settings.answer.each_max_papers if route.each else compare.MAX_PAPERS
        if route.kind == "compare" and len(route.papers) > most:  # said, not dropped in silence
            left = ", ".join(papers[i].name for i in route.papers[most:])
            held = f"one question is put to at most {most}" if route.each else f"a table holds at most {most}"
            reason += f"; {held}, so {left} {'is' if len(route.papers) == most + 1 else 'are'} left out"
        yield Routed(route.kind, reason)
        if route.small_talk or route.collection:  # a venue picked in the UI narrows "list all papers" to it
            yield from self.about_collection(asked or message, route.small_talk,
                                             Scope(message, venue, None) if venue and route.collection else None)
        elif route.each:
            yield from self.ask_each(message, [papers[i] for i in route.papers], asked)
        elif route.kind == "compare":
            yield from self.compare_papers(chosen, asked or message, compare.asked_first(route.aspects))
        elif route.kind in ("summarize", "list") and not route.metadata and _filter_only(
                scope := self.retriever.scope(message, venue)):  # its topic would be "2025" for "papers from 2025"
            yield from self.about_collection(asked or message, False, scope)
        elif route.kind == "summarize":
            topic, detail = intent.topic_parts(message)
            yield from self.summarize(topic, venue=venue, asked=asked or message, detail=detail)
        elif route.metadata:
            yield from self.paper_facts(message, [papers[i] for i in route.papers], asked)
        elif route.kind == "list":
            topic, detail = intent.topic_parts(message)
            yield from self.list_papers(topic, venue, asked or message, detail)
        else:
            yield from self.ask(message, venue=venue, asked=asked, keywords=route.keywords)

    def route(self, message: str) -> tuple[intent.Route, list[Paper]]:
        """The path for a message (see ``intent.route``) and the papers it
        names, up to a table's worth. A comparison that names one paper and
        describes the other ("compare HetSyn and the Hebbian STDP paper"),
        or describes both ("AI debate paper vs the board game evaluation
        paper"), is one when the descriptions resolve to other papers: asked
        as a question about HetSyn, the answer cited HetSyn for the Hebbian
        paper's finding."""
        papers = self.index.corpus.papers
        named = self.index.corpus.lexical.mentioned
        route = intent.route(message, named)
        chosen = [papers[i] for i in route.papers[: compare.MAX_PAPERS]]
        sides = intent.described_sides(message, named) if route.kind == "ask" and len(chosen) <= 1 else []
        found = [self.retriever.resolve(side).paper for side in sides]
        others = [p for p in found if p is not None]
        both = [*chosen, *others]
        keys = {p.key for p in both}
        if not sides or len(others) < len(sides) or len(keys) < max(2, len(both)):  # each side another paper
            return route, chosen
        described = " and ".join(p.name for p in others)
        reason = (f"asks to compare {chosen[0].name} with the paper it describes, {described}" if chosen
                  else f"asks to compare the papers it describes, {described}")
        return intent.Route("compare", reason, route.papers, aspects=intent.asked_aspects(message, named)), both

    def ask(self, question: str, venue: str | None = None, asked: str | None = None,
            keywords: bool = False) -> Iterator[Event]:
        """Answer ``question`` from the best few papers. A bare keyword query
        asks which paper it points to and what that paper does."""
        start = time.perf_counter()
        scope, evidence, prompt = self.prepare_ask(question, venue, asked, keywords)
        extra: dict[str, Any] = scope.extra()
        lacking = answerability.missing(question, evidence, self.settings.answer.unrelated_below,
                                        self.index.corpus.lexical.names)
        if lacking:  # the refusal, without asking the model
            yield from self._answer("ask", asked or question, scope.query, evidence, "", start,
                                    extra | {"unanswerable": lacking})
            return
        # a keyword query asks for the paper it points to: the top paper is the answer even when the model demurs
        yield from self._answer("ask", asked or question, scope.query, evidence, prompt, start, extra,
                                quote_refusal=keywords, identify=keywords or intent.identifies(asked or question))

    def prepare_ask(self, question: str, venue: str | None = None, asked: str | None = None,
                    keywords: bool = False) -> tuple[Scope, list[Evidence], str]:
        """What was searched, the evidence and the user prompt for a question."""
        scope = self._scope(question, venue)
        query = scope.query
        knobs = self.settings.answer
        hits = _focus(self.retriever.search(query, k=knobs.answer_papers, venue=scope.venue, year=scope.year),
                      self.settings.retrieval.focus_relative)
        whole = knobs.whole_abstract_tokens
        if hits and hits[0].named and not any(h.named for h in hits[1:]) and not intent.compares(question):
            # a question naming one paper (and comparing it with none) is about it: its abstract
            # alone, whole within the budget (another paper's sentences lure a small model away)
            hits, whole = hits[:1], knobs.evidence_tokens
        evidence = self.selector.select(query, hits, knobs.evidence_sentences, knobs.evidence_tokens, whole=whole)
        shown = _keywords_question(question, hits) if keywords else question
        prompt = prompts.ASK.format(sources=self._format(evidence), question=shown,
                                    language=language_of(asked or question))
        return scope, evidence, prompt

    def summarize(self, topic: str, venue: str | None = None, asked: str | None = None,
                  papers: list[Paper] | None = None, detail: str = "") -> Iterator[Event]:
        """Overview of every paper about ``topic`` (a relevance cut-off, not a
        fixed k), or of the given ``papers``: one quoted line per paper, and
        the model's cited synthesis above them. ``detail``: what the user asks
        of each paper (see ``_gist_evidence``)."""
        start = time.perf_counter()
        scope = self._topic_scope(topic, venue) if papers is None else Scope(topic, venue, None)
        if papers is None and _filter_only(scope):
            yield from self.about_collection(asked or topic, False, scope)
            return
        query = scope.query
        about = (yield from self._topic_hits(scope)) if papers is None else [Hit(p, 1.0, 1.0, True) for p in papers]
        evidence = self._gist_evidence(query, about[: self.settings.topics.topic_max_papers], detail=detail)
        template = prompts.SUMMARIZE_ONE if len(evidence) == 1 else prompts.SUMMARIZE
        prompt = template.format(sources=self._format(evidence), topic=topic, count=len(evidence),
                                 language=language_of(asked or topic))
        lines = _paper_lines(evidence, self._gist_quote)
        extra = {"found": len(about), "shown": len(evidence), **scope.extra()}
        yield from self._answer("summarize", asked or topic, query, evidence, prompt, start, extra, lines)

    def list_papers(self, question: str, venue: str | None = None, asked: str | None = None,
                    detail: str = "") -> Iterator[Event]:
        """"Which papers…" as a cited list of every matching paper, each
        line the paper's own sentence: built from the index, no model. Asked
        in Chinese, a Chinese line leads the list (2026-12-03: Chinese list
        answers had no Chinese word at all)."""
        start = time.perf_counter()
        scope = self._topic_scope(question, venue)
        if _filter_only(scope):
            yield from self.about_collection(asked or question, False, scope)
            return
        hits = yield from self._topic_hits(scope)
        evidence = self._gist_evidence(scope.query, hits[: self.settings.topics.topic_max_papers], detail=detail)
        lines = _paper_lines(evidence, self._gist_quote)
        if lines and language_of(asked or question) == "Chinese":  # the quotes stay English: the lead says so
            lines.insert(0, SentenceSupport(text=prompts.LIST_LEAD_CHINESE.format(count=len(lines)), cited=[],
                                            status="quoted"))
        yield from self._answer("list", asked or question, scope.query, evidence, "", start,
                                {"shown": len(evidence), **scope.extra()}, lines)

    def paper_facts(self, question: str, named: list[Paper], asked: str | None = None) -> Iterator[Event]:
        """Papers' venue, year and title, from their records, a line each:
        the papers named, else the one the question describes."""
        start = time.perf_counter()
        query = self._scope(question, None).query
        papers = named or [p for p in [self.retriever.resolve(query).paper] if p is not None]
        if not papers:  # no one paper fits the description: answer it as a question
            yield from self.ask(question, asked=asked)
            return
        evidence = self._gist_evidence(query, [Hit(p, 1.0, 1.0, True) for p in papers], on_topic=False)
        said = _index_answers(asked or question)
        lines = [_record_line(e.paper, e.n, said, intent.asks_title(question)) for e in evidence]
        for line in lines[1:]:
            line.lead = "\n"  # a line per paper
        yield from self._answer("list", asked or question, query, evidence, "", start, {"shown": len(lines)}, lines)

    def about_collection(self, message: str, greeting: bool, scope: Scope | None = None) -> Iterator[Event]:
        """What the collection holds, from the index: how many papers of
        which venues, every paper's name when the message asks for the list
        (up to ``LIST_ALL_MOST``), or, to a greeting, what the assistant
        does. Searched, "how many papers are in the collection?" and "hi"
        were refused beside papers far off in meaning. With ``scope``: the
        papers of its venue and year ("which papers are from ICLR 2026?"),
        listed."""
        start = time.perf_counter()
        corpus = self.index.corpus
        chosen = self.retriever.allowed(scope.venue, scope.year) if scope else range(len(corpus.papers))
        said = _index_answers(message)
        venues = said["and"].join(said["venue"].format(n=n, venue=venue) if venue else said["no_venue"].format(n=n)
                                  for venue, n in Counter(corpus.venues[i] for i in chosen).most_common())
        count = len(chosen)
        lead = _collection_lead(message, greeting, scope is not None, count)
        what = " ".join(str(part) for part in (venue_text(scope.venue, said["or"]), scope.year) if part) if scope else ""
        lines = [SentenceSupport(text=said[lead].format(count=count, venues=venues, total=len(corpus.papers),
                                                        what=what), cited=[], status="quoted")]
        if lead in ("listed", "filtered"):
            named = sorted((corpus.venues[i] or "", corpus.papers[i].name) for i in chosen)
            lines += [SentenceSupport(text=f"{name} ({venue})" if venue else name, cited=[], lead="\n- ",
                                      status="quoted") for venue, name in named]
        yield from self._answer("list", message, message, [], "", start, {"shown": 0, **(scope.extra() if scope else {})},
                                lines)

    def ask_each(self, question: str, papers: list[Paper], asked: str | None = None) -> Iterator[Event]:
        """One question about several named papers, put to each paper alone
        with its own abstract: the model cannot give one paper's facts to
        another, and a short prompt per paper keeps the first words quick.
        The parts are then checked as one answer."""
        start = time.perf_counter()
        query = self._scope(question, None).query
        most = self.settings.answer.each_max_papers
        evidence = [self._whole(query, paper, n) for n, paper in enumerate(papers[:most], 1)]
        # the papers' own names are what is asked about, no name an abstract must use: "Hebbian" of
        # "Hebbian spike-timing-dependent plasticity rule" is not in STEER's abstract
        named = re.compile("|".join(re.escape(p.name) for p in papers), re.IGNORECASE)
        checked = named.sub(" ", question)
        retrieval_ms = _ms(start)
        yield from self._preview(evidence, None)
        run = _Run(start)
        language = language_of(asked or question)
        sent: list[str] = []
        try:
            with self.llm.turn() as turn:  # one place in the queue for all the parts
                yield from self._admitted(turn, run)
                for e in evidence:
                    if run.text:
                        run.text += "\n\n"
                        yield Token("\n\n")
                    part = len(run.text)
                    if answerability.missing(checked, [e], self.settings.answer.unrelated_below,
                                             self.index.corpus.lexical.names):
                        run.text += prompts.REFUSAL  # a detail this abstract never mentions: not asked
                        yield Token(prompts.REFUSAL)
                        continue
                    prompt = prompts.ASK_ONE.format(sources=self._format([e]), question=question, name=e.paper.name,
                                                    n=e.n, language=language)
                    sent.append(prompt)
                    yield from self._generate(turn, prompt, run)
                    knobs = self.settings.answer
                    if (unanswered(question, run.text[part:])
                            and (self._verdict(turn, prompt) or 0.0) >= knobs.overrule_refusal):
                        quote = overruling(question, quote_of(self._pick(turn, prompt), [e], knobs), [e], knobs,
                                           self.index.corpus.lexical.names)  # the model missed it
                        if quote:
                            run.text = run.text[:part] + render_claims(quote, {e.n: e.n})
        except LLMUnavailable as exc:
            run.error, run.busy = str(exc), isinstance(exc, LLMBusy)
        yield self._final("ask", asked or question, query, evidence, run, retrieval_ms, sent)

    def compare(self, *names: str, aspects: list[str] | None = None) -> Iterator[Event]:
        """2 to 8 papers, each by name, title, id or description, compared
        aspect by aspect (see ``assistant.compare``), then a cited narrative."""
        papers = compare.resolve(names, self._resolve)
        yield from self.compare_papers(papers, " vs ".join(names), aspects)

    def compare_papers(self, papers: list[Paper], question: str,
                       aspects: list[str] | None = None) -> Iterator[Event]:
        """The comparison of resolved papers: the quoted table at once, the
        narrative written from the table's sentences, then the table's
        values (see ``compare.values``); the answer comes last, with them."""
        start = time.perf_counter()
        grid = compare.table(self.selector, papers, aspects or list(compare.DEFAULT_ASPECTS), self.settings.compare)
        yield grid.event(values=False)
        # every paper gets its own quoted line, even where the narrative skips it or the model refuses
        own = compare.lines_evidence(self.selector, grid.papers, question)
        evidence = compare.evidence(self.selector, grid, own)
        prompt = prompts.COMPARE.format(sources=self._format(evidence), papers=compare.listing(evidence),
                                        count=len(evidence), language=language_of(question), question=question)
        final = yield from self._answering("compare", question, grid.query, evidence, prompt, start, grid.extra(),
                                           _paper_lines(own, _quotes))
        yield from compare.values(grid, lambda prompt, most: self.llm.complete(_messages(prompt), most),
                                  self.settings.compare)
        final.result.extra |= grid.extra()
        final.result.timings["total_ms"] = _ms(start)
        yield final

    def conversation(self) -> Conversation:
        return Conversation(self)

    # -- shared steps ---------------------------------------------------------
    def _topic_hits(self, scope: Scope) -> Generator[Event, None, list[Hit]]:
        """Every paper about a topic (see ``PaperRetriever.topic``); none
        when a word of the topic is in no indexed paper and the model judges
        none of the first papers to be about it (see ``relevance``; waiting
        for the model's queue, as an answer does). A paper the question
        names is listed whatever the model says; without a model the
        search's papers stand. The papers' quoted lines are on screen while
        the model judges (one call, ≈ 3.5 s a paper on 2 cores): the issue
        asks for quoted content within 1 s, and the refusal replaces them
        as it replaces an answer's draft."""
        s = self.settings.topics
        hits = self.retriever.topic(scope.query, scope.venue, scope.year, s.topic_max_papers, s.topic_min_score,
                                    s.topic_min_similarity, scope.plain)
        first = hits[: s.topic_check_papers]
        if not first or any(h.named for h in first) or not self.retriever.unknown_words(scope.query, scope.plain,
                                                                                        scope.venue, scope.year):
            return hits
        topic = scope.plain or scope.query
        shown = self._gist_evidence(scope.query, hits[: s.topic_max_papers])
        yield from self._preview(shown, _paper_lines(shown, self._gist_quote))
        try:
            with self.llm.turn() as turn:
                for ahead in turn.wait():
                    yield Waiting(ahead)
                on_topic = relevance.about_topic(topic, hits, lambda prompt: turn.yes_probability(_messages(prompt)),
                                                 s.topic_check_papers, s.topic_check_min)
        except LLMUnavailable:
            return hits
        return hits if on_topic else []

    def _gist_quote(self, e: Evidence) -> str:
        """A summary line's quote: the paper's gist, cut to ``gist_words``."""
        return _gist(e, self.settings.answer.gist_words)

    def _gist_evidence(self, query: str, hits: list[Hit], on_topic: bool = True, detail: str = "") -> list[Evidence]:
        """Each paper's gist sentence, which its listed line quotes and the
        model reads; the sentence saying a name the query asks about, when
        the gist does not (see ``mentions.naming_sentence``); ``on_topic``,
        its sentence on the topic (see ``_with_topic_sentence``); and, given
        ``detail``, what the user asks of each paper ("…, and what tasks do
        they evaluate on?"), its sentence on that: the topic's sentence is
        chosen for the topic and the detail together, and the sentence
        nearest the detail alone is added: with the topic's words beside it,
        "what datasets were the EEG foundation models trained on?" quoted
        REVE's "Existing EEG foundation models struggle to generalize…", not
        its "…from 92 datasets"."""
        english = _english(detail)
        query = f"{query} {english}".strip()
        evidence = self.selector.select(query, hits, 1, 0)
        asked = self.selector.select(english, hits, 1, 0) if english else []
        names = question_names(as_written(query, [h.paper for h in hits]), self.index.corpus.lexical.names)
        topic = set(tokenize(query))
        for k, e in enumerate(evidence):
            gist = naming_sentence(e.sentences, names, gist_sentence(e.sentences, e.paper.name))
            e.chosen = _with_topic_sentence(e, gist, topic) if on_topic else [gist]
            if asked and asked[k].chosen[0] not in e.chosen:
                e.chosen.append(asked[k].chosen[0])
        return evidence

    def _scope(self, question: str, venue: str | None) -> Scope:
        """The English query and the filters for a message (see ``PaperRetriever.scope``)."""
        return self.retriever.scope(question, venue, translate=self.translate)

    def _topic_scope(self, topic: str, venue: str | None) -> Scope:
        """``_scope`` for a summary's or a list's topic (see ``intent.topic_scope``)."""
        return intent.topic_scope(self._scope(topic, venue))

    def translate(self, question: str) -> str:
        """A CJK question as an English search query (MiniLM and BM25 see
        English abstracts): by the bundled term dictionary when it knows a
        term of the question (``auto``) or always (``dictionary``), else by
        the LLM, cached per model. The dictionary comes first because it costs
        no model call (3–5 s of the first word's wait on 2 cores) and found
        the paper as often: top 1 for all 15 dev Chinese questions at 38
        papers, top 5 for 15 of 15 held-out test questions at 6k."""
        mode = self.settings.retrieval.query_translation
        if mode == "dictionary" or (mode == "auto" and known_terms(question)):
            return dictionary_query(question)
        try:
            llm = self.llm
            english = self._translations.get(llm.endpoint.model, question, lambda q: llm.complete(
                _messages(prompts.TRANSLATE_QUERY.format(question=q)),
                max_tokens=self.settings.answer.short_reply_tokens))
        except LLMUnavailable:
            return dictionary_query(question)
        return llm_query(question, english)

    def _resolve(self, text: str) -> Paper:
        found = self.retriever.resolve(text)
        if found.paper is not None:
            return found.paper
        if not found.candidates:
            raise NotFound(f"No paper matches '{text}': try its name, title or id (see `paper-assistant papers`).")
        names = "; ".join(p.name for p in found.candidates[:5])
        raise NotFound(f"'{text}' is ambiguous: did you mean one of {names}? Name one of them.")

    def _whole(self, query: str, paper: Paper, n: int) -> Evidence:
        """A paper's abstract, whole up to the top-paper allowance (else its
        sentences closest to ``query`` within it), as source ``n``."""
        budget = self.settings.answer.whole_abstract_tokens
        [evidence] = self.selector.select(query, [Hit(paper, 1.0, 1.0, True)], 10 ** 3, budget, whole=budget)
        evidence.n = n
        return evidence

    def _format(self, evidence: list[Evidence]) -> str:
        return prompts.format_sources([(e.n, e.paper.name, e.paper.venue, e.text()) for e in evidence])

    def _answer(self, mode: str, question: str, query: str, evidence: list[Evidence], prompt: str, start: float,
                extra: dict[str, Any] | None = None, lines: list[SentenceSupport] | None = None,
                quote_refusal: bool = False, identify: bool = False) -> Iterator[Event]:
        """Sources, a quoted draft at once, the model's stream (when there is
        a ``prompt``), then the checked answer (see ``_answering``)."""
        yield (yield from self._answering(mode, question, query, evidence, prompt, start, extra, lines,
                                          quote_refusal, identify))

    def _answering(self, mode: str, question: str, query: str, evidence: list[Evidence], prompt: str, start: float,
                   extra: dict[str, Any] | None = None, lines: list[SentenceSupport] | None = None,
                   quote_refusal: bool = False, identify: bool = False) -> Generator[Event, None, Final]:
        """``_answer``'s events, the checked answer returned rather than
        yielded: a path that adds to it after more events holds it so.
        ``lines`` are sentences built by construction, placed after the
        model's; ``identify``: the answer must name the paper (see ``finalize``)."""
        retrieval_ms = _ms(start)
        yield from self._preview(evidence, lines)
        run = _Run(start)
        if evidence and prompt:
            try:
                with self.llm.turn() as turn:  # one place in the model's queue for the answer and what follows it
                    yield from self._admitted(turn, run)
                    yield from self._generate(turn, prompt, run, stop_loops=mode in LOOPING)
                    if mode == "ask" and not quote_refusal:
                        run.verdict = self._verdict(turn, prompt)
                    overruled = (run.verdict or 0.0) >= self.settings.answer.overrule_refusal
                    if unanswered(question, run.text) and (quote_refusal or overruled):
                        run.copied = self._pick(turn, prompt)
            except LLMUnavailable as exc:
                run.error, run.busy = str(exc), isinstance(exc, LLMBusy)
        return self._final(mode, question, query, evidence, run, retrieval_ms, [prompt] if prompt else [], extra,
                           lines, quote_refusal, identify)

    def _preview(self, evidence: list[Evidence], lines: list[SentenceSupport] | None) -> Iterator[Event]:
        """What is on screen before the model's first word: the sources and
        a quoted draft (the built lines, else the best quoted sentences)."""
        yield Sources([source_json(e, e.n) for e in evidence])
        draft = draft_of(evidence, self.settings.answer, lines)
        if draft:
            yield Draft(draft)

    def _admitted(self, turn: Turn, run: _Run) -> Iterator[Event]:
        """Wait for a place in the model's queue, telling the user how many are ahead."""
        queued = time.perf_counter()
        for ahead in turn.wait():
            yield Waiting(ahead)
        run.waited += _ms(queued)

    def _generate(self, turn: Turn, prompt: str, run: _Run, stop_loops: bool = False) -> Iterator[Event]:
        """Stream the model's reply to ``prompt`` into ``run``; with
        ``stop_loops``, close the stream where the reply starts repeating
        itself and keep the text before it."""
        run.model = turn.endpoint.model
        with closing(turn.stream(_messages(prompt))) as deltas:  # closed: the server stops writing
            for delta in deltas:
                run.ttft = run.ttft if run.ttft is not None else _ms(run.start)
                run.text += delta
                yield Token(delta)
                if stop_loops and (at := loop_start(run.text)) is not None:
                    run.text, run.looped = run.text[:at].rstrip(), True
                    return
        run.cut = turn.cut

    def _verdict(self, turn: Turn, prompt: str) -> float | None:
        """P(yes) that the sources state the answer: the same prompt up to its
        last line, so the server reuses everything it has evaluated."""
        return turn.yes_probability(_messages(prompt.rsplit("\n", 1)[0] + prompts.VERIFY))

    def _pick(self, turn: Turn, prompt: str) -> str:
        """The source sentence the model copies as the answer (the prompt
        reused up to its last line), as it wrote it: ``quote_of`` finds it
        in the abstracts."""
        return turn.complete(_messages(prompt.rsplit("\n", 1)[0] + prompts.PICK_QUOTE),
                             max_tokens=self.settings.answer.copy_tokens)

    def _final(self, mode: str, question: str, query: str, evidence: list[Evidence], run: _Run, retrieval_ms: float,
               sent: list[str], extra: dict[str, Any] | None = None, lines: list[SentenceSupport] | None = None,
               quote_refusal: bool = False, identify: bool = False) -> Final:
        """The checked answer, with its timings and the prompt size (``sent``: the user prompts)."""
        result = finalize(mode, question, query, run.text, evidence, self.checks, run.error, lines, cut=run.cut,
                          allow_quote=lines is None, verdict=run.verdict, quote_refusal=quote_refusal,
                          pick=quote_of(run.copied, evidence, self.settings.answer) if run.copied else None,
                          papers=self.index.corpus.lexical.names, identify=identify)
        result.model = run.model
        result.timings = {"retrieval_ms": retrieval_ms, "wait_ms": run.waited,
                          "ttft_ms": run.ttft if run.ttft is not None else 0.0, "total_ms": _ms(run.start)}
        if run.busy:
            result.extra["busy"] = True
        tokens = self.count_prompt([prompts.SYSTEM_PROMPT, *sent]) if sent else 0
        result.extra |= (extra or {}) | {"prompt_tokens": tokens, "copied": run.copied, "cut": run.cut,
                                         "looped": run.looped}
        return Final(result)


class Conversation:
    """A multi-turn chat: a follow-up that leans on earlier turns ("how does
    it compare with POCO?", "which datasets do these papers use?") is
    rewritten into a standalone message before it is routed: with the last
    answer's papers' names where it points at them (see ``follow_ups``),
    else by the LLM from this conversation's own history."""

    def __init__(self, assistant: Assistant, max_turns: int = 4) -> None:
        self.assistant = assistant
        self.max_turns = max_turns
        self.history: list[tuple[str, str]] = []
        #: The last answer's cited papers' names, in its order: what "these papers" and "it" point at.
        self.papers: list[str] = []

    def remember(self, message: str, result: AnswerResult) -> None:
        """Keep an answered turn: its text for the LLM's rewrite, its papers for the pointers."""
        self.history.append((message, result.answer))
        self.papers = [c["title"] for c in result.citations]  # in number order (see ``finalize``): "[2]" is the second

    def standalone(self, message: str) -> str:
        """The follow-up rewritten with the conversation's context (or as is)."""
        if not self.history:
            return message
        written = follow_ups.named(message, self.papers)
        if written is not None and not intent.carries_over(written):
            return written
        if written is None and not intent.needs_context(message):
            return message
        asked = written or message  # "what about the second one?": "what about CSBrain?", the question carried over
        history = "\n".join(f"User: {q}\nAssistant: {a}" for q, a in self.history[-self.max_turns:])
        try:
            rewritten = self.assistant.llm.complete(
                _messages(prompts.CONDENSE.format(history=history, question=asked)),
                max_tokens=self.assistant.settings.answer.short_reply_tokens)
        except LLMUnavailable:
            return f"{self.history[-1][0]} {asked}"
        return rewritten.splitlines()[0].strip() if rewritten.strip() else asked

    def send(self, message: str, venue: str | None = None, routed: bool = True) -> Iterator[Event]:
        """Answer one message of the conversation: routed to the path it asks
        for, or (``routed=False``, the user's explicit choice) as one question."""
        standalone = self.standalone(message)
        events = (self.assistant.respond(standalone, venue=venue, asked=message) if routed
                  else self.assistant.ask(standalone, venue=venue, asked=message))
        route = None
        for event in events:
            if isinstance(event, Routed):
                if standalone != message:  # what was answered, so that a wrong reading shows
                    event = Routed(event.kind, f"{event.reason}; read as “{standalone}”")
                route = event
            if isinstance(event, Final):
                self.remember(message, event.result)
                if route is not None:
                    event.result.extra["route"] = {"kind": route.kind, "reason": route.reason}
                event.result.mode = "chat"
            yield event
