"""The Gradio chat UI over the assistant library.

The app does no retrieval or prompting of its own: it renders the library's
``Sources`` / ``Token`` / ``Final`` events as they come, so the source cards
show before the first token and the answer streams. One ``Assistant`` serves
every browser session (it is thread-safe); each session keeps its own
conversation and the sources of its answers in ``gr.State``.
"""

from __future__ import annotations

import logging
import re
import shutil
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable, Generator, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from assistant.settings import Settings, set_offline_env

set_offline_env()  # before gradio is imported: it reads GRADIO_ANALYTICS_ENABLED at import

import gradio as gr
from fastapi.responses import JSONResponse

from assistant import compare, topics
from assistant.answer import AnswerResult, Assistant, Conversation, Draft, Final, Sources, Table, Token, Waiting
from assistant.errors import AssistantError, ConfigError
from assistant.papers import Paper
from assistant.references import answer_exports
from ui import render, topics_view

log = logging.getLogger(__name__)

#: Ask routes each message (question, summary, comparison, list); the others are explicit.
ASK, QUESTION, SUMMARY, COMPARE = "Ask", "Single question", "Topic summary", "Compare"
ALL_VENUES = "All venues"
#: Answers in progress at once across all sessions. The model's own queue
#: (assistant.admission) decides how many it writes at once; the rest wait
#: there, in order, and are told their place.
CONCURRENCY = 16
#: Seconds a stopping UI waits for answers in flight to reach the browser.
FINISH_ANSWERS_S = 3.0
PLACEHOLDERS = {ASK: "Ask, summarize or compare, e.g. What is SPINT? or Give me an overview of the EEG papers",
                QUESTION: "One question, e.g. What is SPINT?", SUMMARY: "A topic, e.g. EEG foundation models"}
BROWSE_HEADERS = ["name", "venue", "first line of abstract", "id"]
#: System fonts only: the default theme would fetch Google Fonts, and the app runs offline.
THEME = gr.themes.Default(font=["ui-sans-serif", "system-ui", "sans-serif"],
                          font_mono=["ui-monospace", "SFMono-Regular", "monospace"])
#: The page's styles live in their own file, for editors and linters that know CSS.
CSS = (Path(__file__).parent / "assets" / "app.css").read_text(encoding="utf-8")
#: How often, and from what age, Gradio deletes its copies of served export files (seconds).
EXPORT_CACHE = (3600, 3600)
#: How the export buttons are hidden: in the page but not shown. A component
#: hidden with ``visible=False`` is unmounted, and the first update that shows it
#: again can lose to a stale "hidden" one (gradio-app/gradio#13553): the quoted
#: table then stayed hidden while the chat went on (a flaky browser test).
#: ``HIDDEN`` components are in the page from the start; that made the race rarer,
#: not gone (the table still stayed hidden in 1 of the CI runs of 2026-12-05). So
#: the table's visibility is never updated at all: it is shown while it has a
#: table to show (``app.css``: hidden when empty), and its updates are content only.
HIDDEN: Literal["hidden"] = "hidden"
#: The Topics tab's summary is one answer at a time: its cards are numbered as answer 0.
TOPIC_TURN = 0


@dataclass(frozen=True)
class Example:
    """A one-click example for the bundled collection; shown only when the
    papers it names are indexed."""

    label: str
    mode: str
    needs: tuple[str, ...]
    text: str = ""
    papers: tuple[str, ...] = ()


EXAMPLES = (
    Example("What is SPINT?", ASK, ("SPINT",), text="What is SPINT?"),
    Example("Summarize the EEG foundation model papers", SUMMARY, ("CSBrain", "REVE"), text="EEG foundation models"),
    Example("Compare the EEG foundation models", COMPARE, ("CSBrain", "REVE", "CodeBrain"),
            papers=("CSBrain", "REVE", "CodeBrain")),
)


@dataclass
class Session:
    """One browser session: its conversation (follow-ups are rewritten from
    its history), its chat messages and the rendered sources of each answer."""

    conversation: Conversation
    messages: list[dict[str, str]] = field(default_factory=list)
    sections: list[str] = field(default_factory=list)
    export_dir: Path | None = None

    def drop_export(self) -> None:
        """Delete this session's export files (only its last answer's are offered)."""
        if self.export_dir is not None:
            shutil.rmtree(self.export_dir, ignore_errors=True)
            self.export_dir = None


class EndpointStatus:
    """Which LLM answers, for the status line. Resolving the endpoint may start
    the local llama.cpp server (seconds), so it happens in a background
    thread and the page is served at once."""

    def __init__(self, assistant: Assistant, papers: list[Paper]) -> None:
        self.assistant = assistant
        self.settled = False
        self.error = ""
        self.collection = collection_text(papers)
        base_url = assistant.settings.llm.base_url
        self.kind, self.text = "starting", (f"LLM: connecting to {base_url}…" if base_url
                                            else "LLM: local model starting…")

    def start(self) -> None:
        threading.Thread(target=self._run, name="ui-endpoint", daemon=True).start()

    def _run(self) -> None:
        """Warm the retriever (embedding model, BM25) so the first question
        does not pay for it, then resolve the endpoint."""
        self._warm_up()
        try:
            self._ready()
        except AssistantError as exc:
            self._failed(str(exc))
        except Exception as exc:  # a bug must not leave the status line saying "starting" forever
            log.exception("resolving the LLM endpoint failed")
            self._failed(f"unexpected {type(exc).__name__}: {exc}")
        self.settled = True

    def _warm_up(self) -> None:
        try:
            self.assistant.retriever.search("warm up", k=1)
        except Exception:  # optional: the first question then pays for it, or reports the problem
            log.warning("warming up the retriever failed", exc_info=True)

    def _ready(self) -> None:
        endpoint = self.assistant.llm.endpoint
        self.kind = "ready"
        self.text = (f"LLM: local model {endpoint.model} (llama.cpp at {endpoint.base_url})" if endpoint.local
                     else f"LLM: {endpoint.model} at {endpoint.base_url}")

    def _failed(self, message: str) -> None:
        self.kind, self.text = "failed", f"LLM unavailable, answers are extractive: {message}"
        self.error = message

    def note(self, result: AnswerResult) -> None:
        """Follow what the last answer showed: the endpoint failed, or came
        back. Busy is not failed: a model answering others stays green."""
        if result.error and not result.extra.get("busy"):
            self._failed(result.error)
        elif result.model and self.kind != "ready":
            self._ready()

    def html(self) -> str:
        return render.status_line(self.kind, f"{self.text} · {self.collection}")

    def health(self) -> dict[str, str]:
        """The state for GET /health: what a service manager or a load balancer polls."""
        if self.kind == "failed":
            return {"status": f"failed: {self.error}"}
        return {"status": "ready" if self.kind == "ready" else "starting the model"}


def collection_text(papers: list[Paper]) -> str:
    venues = Counter(p.venue or "no venue" for p in papers)
    return f"{len(papers)} papers indexed ({', '.join(f'{v}: {n}' for v, n in sorted(venues.items()))})"


class Exports:
    """Answers written as markdown, and their references as BibTeX (the
    markdown cites the BibTeX keys), for the download buttons. Each session
    keeps only its last answer's files (the buttons offer no other), deleted
    when it writes the next or closes; the folder goes when the process exits."""

    def __init__(self) -> None:
        self._folder = tempfile.TemporaryDirectory(prefix="paper-assistant-ui-")

    def write(self, result: AnswerResult, papers: dict[str, Paper], session: Session) -> tuple[Path, Path, Path]:
        """The .md, .bib and (a comparison's table; empty otherwise) .csv files."""
        slug = re.sub(r"[^a-z0-9]+", "-", result.question.casefold()).strip("-")[:60] or "answer"
        session.drop_export()
        folder = session.export_dir = Path(tempfile.mkdtemp(dir=self._folder.name))
        markdown, bibtex = answer_exports(result, papers)
        table = compare.to_csv(result.extra["papers"], result.extra["table"]) if "table" in result.extra else ""
        for suffix, text in ((".md", markdown), (".bib", bibtex), (".csv", table)):
            (folder / f"{slug}{suffix}").write_text(text, encoding="utf-8")
        return folder / f"{slug}.md", folder / f"{slug}.bib", folder / f"{slug}.csv"


def close_session(session: Session | None) -> None:
    """Gradio's callback for a session that ended (tab closed, or idle past its time to live)."""
    if session is not None:
        session.drop_export()


@dataclass(frozen=True)
class Catalog:
    """What the UI keeps of the paper list, rebuilt whole when the index changes."""

    papers: list[Paper]
    by_id: dict[str, Paper]
    by_name: dict[str, str]
    venues: list[str]
    choices: list[tuple[str, str]]

    @classmethod
    def of(cls, papers: list[Paper]) -> Catalog:
        return cls(papers, {p.paper_id: p for p in papers}, {p.name: p.paper_id for p in papers},
                   [ALL_VENUES, *sorted({p.venue for p in papers})], [(f"{p.name} · {p.venue}", p.paper_id) for p in papers])


def _matches(paper: Paper, venue: str, words: str) -> bool:
    """Whether the browse filter keeps ``paper``: its venue, and every word
    somewhere in its names, authors, keywords or abstract."""
    if venue != ALL_VENUES and paper.venue != venue:
        return False
    text = f"{paper.name} {paper.alias} {paper.title} {paper.authors} {paper.keywords} {paper.abstract}".casefold()
    return all(word in text for word in words.casefold().split())


def _rows(papers: list[Paper]) -> list[list[str]]:
    return [[p.name, p.venue, render.first_line(p.abstract), p.paper_id] for p in papers]


def _label(catalog: Catalog, picked: str) -> str:
    return catalog.by_id[picked].name if picked in catalog.by_id else picked


def _and(names: Iterable[str]) -> str:
    """'A, B and C'."""
    listed = list(names)
    return ", ".join(listed[:-1]) + f" and {listed[-1]}" if len(listed) > 1 else "".join(listed)


def _venue(value: str | None) -> str | None:
    return None if not value or value == ALL_VENUES else value


#: The outputs of an answer, in order: chat, sources panel, markdown, BibTeX
#: and CSV export buttons, compare table, session state, status line, question box.
ANSWER_OUTPUTS = ("chat", "sources", "export", "export_bib", "export_csv", "table", "session", "status", "message")
AnswerUpdate = tuple[Any, ...]


def _update(**values: Any) -> AnswerUpdate:
    """An answer's outputs by name; the ones not given are left as they are."""
    return tuple(values.get(name, gr.skip()) for name in ANSWER_OUTPUTS)


class Handlers:
    """What the UI does, over one Assistant shared by every session: the
    event handlers, without the layout. Reads the paper list at start (an
    IndexMissing error here means nothing was ingested), again whenever an
    ingest changed the index (checked before each question and browse), and
    starts resolving the LLM endpoint."""

    def __init__(self, assistant: Assistant) -> None:
        self.assistant = assistant
        self.catalog = Catalog.of(assistant.index.papers())
        self.examples = [e for e in EXAMPLES if set(e.needs) <= self.catalog.by_name.keys()]
        self.status = EndpointStatus(assistant, self.catalog.papers)
        self.status.start()
        self.exports = Exports()
        self.topic_map, self.topic_note = self._topic_map()
        #: Each browser session's answer in progress, by session hash: set to stop it.
        self._running: dict[str, threading.Event] = {}
        self._running_lock = threading.Lock()

    def current(self) -> Catalog:
        """The paper list, reloaded first when another process ingested since
        it was read (the index's state marker changed); sessions are kept."""
        try:
            changed = self.assistant.index.refresh()
        except AssistantError as exc:  # the index is unreachable now: the question will say so
            log.warning("checking the index for changes failed: %s", exc)
            return self.catalog
        if changed:
            self.catalog = Catalog.of(self.assistant.index.papers())
            self.status.collection = collection_text(self.catalog.papers)
        return self.catalog

    def _topic_map(self) -> tuple[topics.TopicMap | None, str]:
        """The stored map of the whole collection, and the line above it: when
        it was built, or why there is none, or that the index changed since."""
        try:
            topic_map = topics.load(topics.topics_path(self.assistant.index.storage, None))
        except AssistantError as exc:
            return None, render.status_line("note", str(exc))
        built = topic_map.built_from
        stale = topics.stale_note(topic_map, self.assistant.index)
        text = (f"{built['papers']} papers in {built['areas']} areas and {built['topics']} topics, built "
                f"{built['built_at']}. Pick a topic in the table to list its papers and summarize them.")
        return topic_map, render.status_line("note", text) + (render.status_line("note stale", f"Note: {stale}")
                                                              if stale else "")

    # -- chat ----------------------------------------------------------------
    def respond(self, mode: str, text: str, venue: str, picked: list[str] | None, aspects: str | None,
                session: Session | None, request: gr.Request) -> Iterator[AnswerUpdate]:
        """Stream one answer: the user's message, the cards as soon as the
        sources are known, its place in the model's queue while it waits, the
        reply as it is written, then the checked answer with linked citations,
        highlighted cards and the export files. A comparison shows its quoted
        table first, then its narrative as written, then the table's values. A new question in the same session stops
        this one (and frees its place in the model's queue)."""
        session = session or Session(self.assistant.conversation())
        catalog = self.current()
        text, picked = (text or "").strip(), [p.strip() for p in picked or [] if p and p.strip()]
        if (mode == COMPARE and len(picked) < 2) or (mode != COMPARE and not text):
            gr.Warning("Pick at least two papers to compare." if mode == COMPARE else "Type a question or topic first.")
            yield _update()
            return
        question = {COMPARE: f"Compare {_and(_label(catalog, p) for p in picked)}",
                    SUMMARY: f"Topic summary: {text}"}.get(mode, text)
        turn = len(session.sections) + 1
        reply = {"role": "assistant", "content": "_Searching the collection…_"}
        session.messages += [{"role": "user", "content": render.chat_text(question)}, reply]
        stop = self._start(request.session_hash)
        yield self._progress(session, render.sources_section(turn, question, None), clear=True)
        streamed, ahead, shown = "", -1, 0.0
        events = self._events(mode, text, _venue(venue), picked, aspects, session)
        try:
            for event in events:
                if stop.is_set():  # a new question in this session, or the tab closed
                    reply["content"] = render.stopped()
                    yield _update(chat=self._chat(session))
                    return
                if isinstance(event, Table):
                    if not streamed:  # the values fill in after the narrative: its text stays on screen
                        reply["content"] = render.table_note(event)
                    yield _update(chat=self._chat(session), table=render.compare_table(
                        event.papers, event.table, event.values, asked=event.asked, asking=event.asking))
                elif isinstance(event, Sources):
                    reply["content"] = render.reading(len(event.sources))
                    yield self._progress(session, render.sources_section(turn, question, event.sources))
                elif isinstance(event, Waiting) and (event.ahead != ahead or time.monotonic() - shown > 1):
                    ahead, shown = event.ahead, time.monotonic()  # a yield a second also lets Gradio see a closed tab
                    reply["content"] = render.waiting(ahead)
                    yield _update(chat=self._chat(session))
                elif isinstance(event, Draft) and not streamed:
                    reply["content"] = render.draft(event.text)
                    yield _update(chat=self._chat(session))
                elif isinstance(event, Token):
                    streamed += event.text
                    reply["content"] = render.streaming_text(streamed)
                    yield _update(chat=self._chat(session))
                elif isinstance(event, Final):
                    yield self._finish(event.result, mode, question, turn, session, catalog, reply)
        except AssistantError as exc:
            yield self._failed(str(exc), session, reply)
        except Exception as exc:  # a bug: logged with its traceback, shown as one line
            log.exception("answering %r failed", question)
            yield self._failed(f"Unexpected {type(exc).__name__}: {exc} (details in the server log).", session, reply)
        finally:
            if isinstance(events, Generator):
                events.close()  # leaves the model's queue, or closes the stream being written
            self._end(request.session_hash, stop)

    def _start(self, session_hash: str | None) -> threading.Event:
        """Register a session's new answer, stopping the one it still runs."""
        stop = threading.Event()
        with self._running_lock:
            previous = self._running.get(session_hash or "")
            if previous is not None:
                previous.set()
            self._running[session_hash or ""] = stop
        return stop

    def _end(self, session_hash: str | None, stop: threading.Event) -> None:
        with self._running_lock:
            if self._running.get(session_hash or "") is stop:
                del self._running[session_hash or ""]

    def unload(self, request: gr.Request) -> None:
        """The tab was closed: stop its answer and free its place in the queue."""
        with self._running_lock:
            stop = self._running.pop(request.session_hash or "", None)
        if stop is not None:
            stop.set()

    def _events(self, mode: str, text: str, venue: str | None, picked: list[str], aspects: str | None,
                session: Session) -> Iterator[Any]:
        if mode == COMPARE:
            return self.assistant.compare(*picked, aspects=compare.parse_aspects(aspects or None))
        if mode == SUMMARY:
            return self.assistant.summarize(text, venue=venue)
        return session.conversation.send(text, venue=venue, routed=mode == ASK)

    @staticmethod
    def _chat(session: Session) -> list[dict[str, str]]:
        return [dict(m) for m in session.messages]  # copies: Gradio diffs each update against the last

    def _progress(self, session: Session, current: str, clear: bool = False) -> AnswerUpdate:
        """The chat and the sources panel with the answer being written;
        ``clear``: also hide the last exports and table and empty the question box."""
        panel = render.sources_panel([*session.sections, current])
        if clear:
            hidden = gr.DownloadButton(visible=HIDDEN)
            return _update(chat=self._chat(session), sources=panel, export=hidden, export_bib=hidden, export_csv=hidden,
                           table="", session=session, message="")
        return _update(chat=self._chat(session), sources=panel)

    def _finish(self, result: AnswerResult, mode: str, question: str, turn: int, session: Session,
                catalog: Catalog, reply: dict[str, str]) -> AnswerUpdate:
        if mode not in (ASK, QUESTION):  # so that a follow-up can refer to a summary or comparison too
            session.conversation.remember(question, result)
        reply["content"] = render.answer_message(result, turn)
        session.sections.append(render.sources_section(turn, question, result.sources, result))
        self.status.note(result)
        markdown, bibtex, table = self.exports.write(result, catalog.by_id, session)
        compared = "table" in result.extra
        return _update(chat=self._chat(session), sources=render.sources_panel(session.sections),
                       export=gr.DownloadButton(value=markdown, visible=True),
                       export_bib=gr.DownloadButton(value=bibtex, visible=True),
                       export_csv=gr.DownloadButton(value=table, visible=True if compared else HIDDEN),
                       table=render.compare_table(result.extra["papers"], result.extra["table"], True,
                                                  len(result.extra["dropped_values"]),
                                                  error=result.extra["values_error"]) if compared else "",
                       session=session, status=self.status.html())

    def _failed(self, message: str, session: Session, reply: dict[str, str]) -> AnswerUpdate:
        reply["content"] = render.error_message(message)
        return _update(chat=self._chat(session), sources=render.sources_panel(session.sections), session=session)

    def fill(self, example: Example) -> Callable[[], tuple[str, str, list[str]]]:
        """A handler that puts ``example`` into the mode, question and picker."""
        by_name = self.catalog.by_name
        return lambda: (example.mode, example.text, [by_name[name] for name in example.papers])

    @staticmethod
    def new_conversation(session: Session | None) -> tuple[Any, ...]:
        close_session(session)
        hidden = gr.DownloadButton(visible=HIDDEN)
        return [], render.sources_panel([]), hidden, hidden, hidden, "", None

    @staticmethod
    def mode_view(mode: str) -> tuple[Any, ...]:
        return (gr.Row(visible=mode != COMPARE), gr.Column(visible=mode == COMPARE),
                gr.Textbox(placeholder=PLACEHOLDERS.get(mode, "")))

    def status_tick(self) -> tuple[str, gr.Timer]:
        """The status line, polled until the endpoint is resolved."""
        return self.status.html(), gr.Timer(active=not self.status.settled)

    # -- browse ----------------------------------------------------------------
    def browse(self, venue: str, words: str) -> list[list[str]]:
        return _rows([p for p in self.current().papers if _matches(p, venue, words or "")])

    def select(self, evt: gr.SelectData) -> tuple[Any, ...]:
        """A row picked: remember its paper, show it, enable its buttons."""
        paper = self.catalog.by_id.get(evt.row_value[-1]) if evt.row_value else None
        if paper is None:
            return (gr.skip(),) * 4
        return (paper.paper_id, render.paper_card(paper), *[gr.Button(interactive=True)] * 2)

    def ask_about(self, paper_id: str) -> tuple[Any, ...]:
        return gr.Tabs(selected="chat"), ASK, f'What does "{self.catalog.by_id[paper_id].name}" propose?'

    @staticmethod
    def add_to_compare(paper_id: str, picked: list[str] | None) -> tuple[Any, ...]:
        """The browsed paper added to the comparison's papers (at most 8: the
        oldest pick makes room), and the chat shown in Compare mode."""
        papers = [p for p in picked or [] if p != paper_id] + [paper_id]
        return gr.Tabs(selected="chat"), COMPARE, papers[-compare.MAX_PAPERS:]

    # -- topics ------------------------------------------------------------------
    def topic_figure(self) -> Any:
        return topics_view.map_figure(self.topic_map, self.catalog.by_id) if self.topic_map else None

    def topic_rows(self) -> list[list[Any]]:
        return topics_view.topic_rows(self.topic_map) if self.topic_map else []

    def pick_topic(self, evt: gr.SelectData) -> tuple[Any, Any]:
        """A topic picked in the table: remember it for "Compare this topic"."""
        topic_id = str(evt.row_value[1]) if evt.row_value else None
        return topic_id, gr.Button(interactive=topic_id is not None)

    def compare_topic(self, topic_id: str | None) -> tuple[Any, ...]:
        """The picked topic's most typical papers (at most 8) in the compare picker."""
        if self.topic_map is None or topic_id is None:
            return gr.skip(), gr.skip(), gr.skip()
        _, topic = self.topic_map.find(topic_id)
        by_id = self.current().by_id
        papers = [pid for pid in topic.papers if pid in by_id][: compare.MAX_PAPERS]
        return gr.Tabs(selected="chat"), COMPARE, papers

    def topic_summary(self, evt: gr.SelectData) -> Iterator[tuple[Any, Any, Any]]:
        """A topic picked in the table: its papers at once, then its summary
        streamed over them (its most typical papers when it has more than a
        summary covers), with the sources panel."""
        if self.topic_map is None or not evt.row_value:
            yield gr.skip(), gr.skip(), gr.skip()
            return
        try:
            _, topic = self.topic_map.find(str(evt.row_value[1]))
        except AssistantError as exc:
            yield render.error_message(str(exc)), "", ""
            return
        by_id = self.current().by_id
        papers = [by_id[pid] for pid in topic.papers if pid in by_id]
        covered = min(len(papers), self.assistant.settings.topics.topic_max_papers)
        listing = topics_view.topic_papers(topic, papers, covered)
        question = f"Topic {topic.topic_id}: {topic.label}"
        yield listing, "_Reading the topic's papers…_", render.sources_section(TOPIC_TURN, question, None)
        streamed = ""
        try:
            for event in self.assistant.summarize(topic.label, papers=papers):
                if isinstance(event, Sources):
                    yield gr.skip(), render.reading(len(event.sources)), render.sources_section(
                        TOPIC_TURN, question, event.sources)
                elif isinstance(event, Waiting):
                    yield gr.skip(), render.waiting(event.ahead), gr.skip()
                elif isinstance(event, Token):
                    streamed += event.text
                    yield gr.skip(), render.streaming_text(streamed), gr.skip()
                elif isinstance(event, Final):
                    self.status.note(event.result)
                    yield (gr.skip(), render.answer_message(event.result, TOPIC_TURN),
                           render.sources_section(TOPIC_TURN, question, event.result.sources, event.result))
        except AssistantError as exc:
            yield gr.skip(), render.error_message(str(exc)), gr.skip()
        except Exception as exc:  # a bug: logged with its traceback, shown as one line
            log.exception("summarizing topic %s failed", topic.topic_id)
            yield gr.skip(), render.error_message(f"Unexpected {type(exc).__name__}: {exc} (details in the server "
                                                  "log)."), gr.skip()


@dataclass
class ChatTab:
    mode: gr.Radio
    venue: gr.Dropdown
    chatbot: gr.Chatbot
    ask_row: gr.Row
    message: gr.Textbox
    send: gr.Button
    compare_row: gr.Column
    picked: gr.Dropdown
    aspects: gr.Textbox
    compare: gr.Button
    table: gr.HTML
    examples: list[tuple[gr.Button, Example]]
    clear: gr.Button
    export: gr.DownloadButton
    export_bib: gr.DownloadButton
    export_csv: gr.DownloadButton
    sources: gr.HTML


@dataclass
class BrowseTab:
    venue: gr.Dropdown
    words: gr.Textbox
    table: gr.Dataframe
    detail: gr.HTML
    ask: gr.Button
    add: gr.Button


def _chat_tab(h: Handlers) -> ChatTab:
    """The chat beside its sources panel; the question box or the two
    pickers, by mode; examples, new conversation and export below."""
    with gr.Row():
        with gr.Column(scale=3):
            with gr.Row():
                mode = gr.Radio([ASK, QUESTION, SUMMARY, COMPARE], value=ASK, label="Mode", scale=3, elem_id="mode")
                venue = gr.Dropdown(h.catalog.venues, value=ALL_VENUES, label="Venue (Ask, Topic summary)", scale=2,
                                    elem_id="venue")
            chatbot = gr.Chatbot(label="Answers", height=540, sanitize_html=True, feedback_options=None,
                                 buttons=["copy", "copy_all"], elem_id="chat",
                                 placeholder="Answers with citations appear here.")
            with gr.Row() as ask_row:
                message = gr.Textbox(show_label=False, placeholder=PLACEHOLDERS[ASK], scale=5, elem_id="message")
                send = gr.Button("Send", variant="primary", scale=1, elem_id="send")
            with gr.Column(visible=False) as compare_row:
                with gr.Row():
                    picked = gr.Dropdown(h.catalog.choices, value=[], multiselect=True, max_choices=compare.MAX_PAPERS,
                                         label=f"Papers ({compare.MIN_PAPERS} to {compare.MAX_PAPERS}: type a name, "
                                               "title or description)", filterable=True, allow_custom_value=True,
                                         elem_id="pick-papers", scale=5)
                    compare_button = gr.Button("Compare", variant="primary", scale=1, elem_id="compare")
                aspects = gr.Textbox(label="Aspects (comma-separated; empty: problem, approach, data, evaluation and "
                                           "results, limitations or scope; start with + to add to those)",
                                     placeholder="e.g. dataset, subjects, channels, result", elem_id="aspects")
            table = gr.HTML("", elem_id="compare-table")  # shown by its content (see ``HIDDEN``)
            with gr.Row(visible=bool(h.examples)):
                examples = [(gr.Button(e.label, size="sm"), e) for e in h.examples]
            with gr.Row():
                clear = gr.Button("New conversation", size="sm")
                export = gr.DownloadButton("Export answer (.md)", visible=HIDDEN, size="sm", elem_id="export")
                export_bib = gr.DownloadButton("BibTeX (.bib)", visible=HIDDEN, size="sm", elem_id="export-bib")
                export_csv = gr.DownloadButton("Table (.csv)", visible=HIDDEN, size="sm", elem_id="export-csv")
        with gr.Column(scale=2):
            sources = gr.HTML(render.sources_panel([]), elem_id="sources")
    return ChatTab(mode, venue, chatbot, ask_row, message, send, compare_row, picked, aspects, compare_button, table,
                   examples, clear, export, export_bib, export_csv, sources)


def _browse_tab(h: Handlers) -> BrowseTab:
    """The collection as a table, filtered by venue and words; the selected
    paper in full, with buttons that hand it to the chat."""
    with gr.Row():
        venue = gr.Dropdown(h.catalog.venues, value=ALL_VENUES, label="Venue", scale=1, elem_id="browse-venue")
        words = gr.Textbox(label="Words", placeholder="name, title, author or words of the abstract", scale=3,
                           elem_id="browse-words")
    table = gr.Dataframe(_rows(h.catalog.papers), headers=BROWSE_HEADERS, interactive=False, wrap=True, max_height=460,
                         column_widths=["18%", "12%", "55%", "15%"], elem_id="browse-table")
    detail = gr.HTML('<p class="pending">Select a paper to read it, ask about it or compare it.</p>',
                     elem_id="browse-detail")
    with gr.Row():
        ask = gr.Button("Ask about this paper", interactive=False, elem_id="ask-about")
        add = gr.Button("Add to comparison", interactive=False, elem_id="add-compare")
    return BrowseTab(venue, words, table, detail, ask, add)


@dataclass
class TopicsTab:
    table: gr.Dataframe
    compare: gr.Button
    papers: gr.HTML
    summary: gr.Markdown
    sources: gr.HTML


def _topics_tab(h: Handlers) -> TopicsTab:
    """The map of the whole collection (points coloured by area), the topic
    table beside it; a picked topic's papers, summary and sources below."""
    gr.HTML(h.topic_note, elem_id="topic-note")
    with gr.Row():
        with gr.Column(scale=3):
            gr.Plot(h.topic_figure(), show_label=False, elem_id="topic-map", visible=h.topic_map is not None)
        with gr.Column(scale=2):
            table = gr.Dataframe(h.topic_rows(), headers=topics_view.TOPIC_HEADERS, interactive=False, wrap=True,
                                 max_height=620, column_widths=["24%", "9%", "30%", "9%", "28%"],
                                 elem_id="topic-table")
            compare_topic = gr.Button("Compare this topic", interactive=False, elem_id="compare-topic")
    with gr.Row():
        with gr.Column(scale=3):
            papers = gr.HTML('<p class="pending">Pick a topic to list its papers.</p>', elem_id="topic-papers")
            summary = gr.Markdown(elem_id="topic-summary")
        with gr.Column(scale=2):
            sources = gr.HTML(elem_id="topic-sources")
    return TopicsTab(table, compare_topic, papers, summary, sources)


def build_app(assistant: Assistant) -> gr.Blocks:
    """The whole UI over ``assistant``: chat with sources beside it, the
    collection to browse, and its topic map."""
    return _blocks(Handlers(assistant))


def _blocks(h: Handlers) -> gr.Blocks:
    hidden: dict[str, Any] = {"show_progress": "hidden"}
    # Gradio copies every export it serves into its cache: drop copies older than an hour, hourly.
    with gr.Blocks(title="paper-assistant", analytics_enabled=False, delete_cache=EXPORT_CACHE) as demo:
        session = gr.State(None, delete_callback=close_session)
        selected, picked_topic = gr.State(None), gr.State(None)
        with gr.Row(equal_height=True):
            gr.HTML("<h1 style='margin:0'>paper-assistant</h1>", scale=0, min_width=220)
            status = gr.HTML(h.status.html(), elem_id="status")
        timer = gr.Timer(1.0)
        with gr.Tabs() as tabs:
            with gr.Tab("Chat", id="chat"):
                chat = _chat_tab(h)
            with gr.Tab("Browse", id="browse"):
                browse = _browse_tab(h)
            with gr.Tab("Topics", id="topics"):
                topic_tab = _topics_tab(h)

        answer: dict[str, Any] = {
            "fn": h.respond, "inputs": [chat.mode, chat.message, chat.venue, chat.picked, chat.aspects, session],
            "outputs": [chat.chatbot, chat.sources, chat.export, chat.export_bib, chat.export_csv, chat.table, session,
                        status, chat.message],
            # "multiple": a new question is sent while an answer is still written; respond() stops the older one
            "concurrency_id": "answer", "trigger_mode": "multiple", **hidden,
        }
        gr.on([chat.message.submit, chat.send.click, chat.compare.click, chat.aspects.submit], **answer)
        for button, example in chat.examples:
            button.click(h.fill(example), outputs=[chat.mode, chat.message, chat.picked],
                         **hidden).then(**answer)
        gr.on([chat.clear.click, chat.chatbot.clear], h.new_conversation, inputs=session,
              outputs=[chat.chatbot, chat.sources, chat.export, chat.export_bib, chat.export_csv, chat.table, session],
              **hidden)
        chat.mode.change(h.mode_view, chat.mode, [chat.ask_row, chat.compare_row, chat.message], **hidden)
        demo.unload(h.unload)
        gr.on([demo.load, timer.tick], h.status_tick, outputs=[status, timer], **hidden)
        gr.on([browse.venue.change, browse.words.change], h.browse, [browse.venue, browse.words], browse.table,
              trigger_mode="always_last", **hidden)
        browse.table.select(h.select, outputs=[selected, browse.detail, browse.ask, browse.add], **hidden)
        browse.ask.click(h.ask_about, selected, [tabs, chat.mode, chat.message], **hidden)
        browse.add.click(h.add_to_compare, [selected, chat.picked], [tabs, chat.mode, chat.picked], **hidden)
        topic_tab.table.select(h.pick_topic, outputs=[picked_topic, topic_tab.compare], **hidden)
        topic_tab.compare.click(h.compare_topic, picked_topic, [tabs, chat.mode, chat.picked], **hidden)
        topic_tab.table.select(h.topic_summary, outputs=[topic_tab.papers, topic_tab.summary, topic_tab.sources],
                               concurrency_id="answer", **hidden)
    return demo


def launch(settings: Settings, prevent_thread_lock: bool = False, quiet: bool = False) -> gr.Blocks:
    """Serve the UI over one Assistant for ``settings`` (its address and
    login from ``settings.ui``), with GET /health, and print one "ready" line
    once it serves. Blocks until Ctrl-C or a stop signal (then shuts down,
    see ``shut_down``) unless ``prevent_thread_lock``; returns the Blocks."""
    host, port, auth = settings.ui.ui_host, settings.ui.ui_port, settings.ui.credentials()
    if host not in {"127.0.0.1", "localhost", "::1"} and auth is None:
        log.warning("serving on %s without auth: anyone who can reach port %d can use the assistant", host, port)
    handlers = Handlers(Assistant(settings))
    demo = _blocks(handlers)
    demo.queue(default_concurrency_limit=CONCURRENCY)
    try:
        demo.launch(server_name=host, server_port=port, auth=auth, prevent_thread_lock=True,
                    quiet=True, share=False, show_error=False, ssr_mode=False, mcp_server=False, pwa=False,
                    footer_links=[], theme=THEME, css=CSS)
    except OSError as exc:
        raise ConfigError(f"Cannot serve the UI on {host}:{port} ({exc}): pass another --port.") from exc
    _add_health(demo, handlers.status)
    if not quiet:
        print(f"paper-assistant UI ready on http://{host}:{demo.server_port}", flush=True)
    if prevent_thread_lock:
        return demo
    try:
        while demo.is_running:
            time.sleep(0.2)
    except KeyboardInterrupt:  # Ctrl-C, or SIGTERM/SIGHUP turned into one by assistant.cli
        if not quiet:
            print("paper-assistant UI stopping", flush=True)
    finally:
        shut_down(demo)
    return demo


def _add_health(demo: gr.Blocks, status: EndpointStatus) -> None:
    """GET /health: 200 with {"status": "ready"}, else 503 with "starting the
    model" or "failed: why" (answers are then extractive)."""
    def health() -> JSONResponse:
        state = status.health()
        return JSONResponse(state, status_code=200 if state["status"] == "ready" else 503)

    demo.app.add_api_route("/health", health, methods=["GET"], include_in_schema=False)


def shut_down(demo: gr.Blocks) -> None:
    """Stop the local model first: the answers in flight lose their stream and
    end at once with their extractive answer and sources, instead of a broken
    page; give those ``FINISH_ANSWERS_S`` to reach the browser, then close."""
    from assistant.local import stop_all

    stop_all()
    deadline = time.monotonic() + FINISH_ANSWERS_S
    while not _answers_sent(demo) and time.monotonic() < deadline:
        time.sleep(0.05)
    demo.close(verbose=False)


def _answers_sent(demo: gr.Blocks) -> bool:
    """Whether Gradio's queue runs no job and holds no message for a browser."""
    queue = demo._queue
    return not any(queue.active_jobs) and all(m.empty() for m in queue.pending_messages_per_session.values())
