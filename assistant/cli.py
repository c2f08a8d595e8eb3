"""The ``paper-assistant`` command line: parse, call the library, render.

The ``--json`` shapes printed here are a contract that outside tools and
the evaluation rely on; they are built by the ``*_json`` helpers only.
Every failure the user can cause ends as one line on stderr and exit 1.
"""

from __future__ import annotations

import _thread
import argparse
import atexit
import contextlib
import gc
import json
import logging
import os
import signal
import sys
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path
from types import FrameType
from typing import Any

from assistant.settings import Settings, load_settings, preset_names, set_offline_env

EXIT_ERROR = 1
EXIT_INTERRUPTED = 130
#: What a service manager, a terminal or a closed SSH session sends to stop us.
STOP_SIGNALS = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)
# At exit, skip the interpreter's last garbage collections over every object
# of Gradio, Chroma and LlamaIndex: they took 3-6 s of a 2-core machine, most of
# a service's stop time, and free nothing the OS does not free anyway.
atexit.register(gc.freeze)


class Stopped(KeyboardInterrupt):
    """A stop signal. It unwinds like Ctrl-C, so every ``finally`` runs: the
    answer in flight is abandoned, the local server stopped at exit."""

    def __init__(self, signum: int) -> None:
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


#: The stop signals received while a command runs (see ``_stop_signals``).
_RECEIVED: list[int] = []
#: Seconds a stopped command may run on without unwinding before the stop is raised again.
REDELIVER_AFTER_S = 1.5
#: Servers end on a stop signal by catching it, then close: nothing to raise again there.
_SERVERS = frozenset({"ui", "mcp", "llm"})


def _check_stop() -> None:
    """Raise ``Stopped`` again if a stop signal came: Python drops an
    exception raised while a finalizer runs, so the handler's own raise can
    be lost (seen once: an `ask` stopped mid-answer finished and exited 0).
    Checked between an answer's events and before any export; servers (ui,
    mcp, llm serve) end on a stop signal by design and do not check."""
    if _RECEIVED:
        raise Stopped(_RECEIVED[0])


def _common(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--storage", type=Path, metavar="DIR",
                        help="index folder (default: $PAPER_ASSISTANT_STORAGE or ./storage)")
    parser.add_argument("--chroma-url", metavar="URL",
                        help="use a Chroma server (http://host:port) instead of the folder (default: $CHROMA_URL)")
    parser.add_argument("--preset", metavar="NAME",
                        help=f"a named set of settings, {', '.join(preset_names())}; flags and variables still "
                             "win (default: $PAPER_ASSISTANT_PRESET or default)")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="paper-assistant",
        description="Ask questions about a collection of paper abstracts.",
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    ingest = sub.add_parser("ingest", help="index paper lists (default: the bundled NeurIPS 2025 + ICLR 2026 lists)")
    ingest.add_argument("paths", nargs="*", type=Path, metavar="PATH",
                        help=".txt list, .jsonl/.json/.csv records, .bib/.ris reference export, or a folder of them")
    ingest.add_argument("--prune", action="store_true", help="remove indexed papers that the given sources no longer hold")
    _common(ingest)

    papers = sub.add_parser("papers", help="list the indexed papers")
    papers.add_argument("--venue", help="only papers of this venue, e.g. 'ICLR 2026'")
    papers.add_argument("--year", type=int, help="only papers of this year, e.g. 2025")
    papers.add_argument("--json", action="store_true", help="print a JSON list")
    _common(papers)

    search = sub.add_parser("search", help="find the papers that best match a query")
    search.add_argument("query", help="the query; '-' reads one query per line from stdin (JSON lines out)")
    search.add_argument("-k", "--k", type=int, default=None, help="papers to return (default 5)")
    search.add_argument("--venue", help="only papers of this venue")
    search.add_argument("--year", type=int, help="only papers of this year")
    search.add_argument("--json", action="store_true", help="print JSON")
    search.add_argument("--query-translation", choices=["auto", "llm", "dictionary"],
                        help="how a Chinese query is put into English: the LLM (cached), the bundled term "
                             "dictionary, or auto (the LLM when an endpoint is configured; the default)")
    _endpoint_options(search)
    _filter_options(search)
    _common(search)

    ask = sub.add_parser("ask", help="answer a question from the abstracts, with citations")
    ask.add_argument("question", help="the question; '-' reads one per line from stdin (JSON lines out)")
    ask.add_argument("--venue", help="only papers of this venue")
    _answer_options(ask)

    summarize = sub.add_parser("summarize", help="summarize every paper on a topic")
    summarize.add_argument("topic", help="the topic; '-' reads one per line from stdin (JSON lines out)")
    summarize.add_argument("--venue", help="only papers of this venue")
    _answer_options(summarize)

    compare = sub.add_parser("compare", help="compare 2 to 8 papers in one quoted table (by name, title, id or "
                                             "description)")
    compare.add_argument("papers", nargs="*", metavar="PAPER",
                         help="2 to 8 papers; '-' reads one comparison per line from stdin, papers separated by "
                              "'|' (JSON lines out)")
    compare.add_argument("--aspects", help="comma-separated aspects, e.g. 'dataset, subjects, result' (default: "
                                           "problem, approach, data, evaluation and results, limitations or scope); "
                                           "a leading '+' adds them to the defaults")
    compare.add_argument("--topic", metavar="ID", help="compare the papers of this topic (its 8 most typical)")
    compare.add_argument("--query", help="compare the best papers for this search")
    compare.add_argument("-k", "--k", type=int, help="papers to take from --query (2 to 8, default 5)")
    compare.add_argument("--venue", help="--query: only papers of this venue; --topic: the map built for it")
    compare.add_argument("--csv", type=Path, metavar="FILE", help="also write the table as CSV to FILE")
    _answer_options(compare)

    chat = sub.add_parser("chat", help="multi-turn chat on stdin: follow-ups may refer to earlier answers")
    chat.add_argument("--venue", help="only papers of this venue")
    _answer_options(chat, with_json=False)

    _topics_parser(sub)

    ev = sub.add_parser("eval", help="measure retrieval and answer quality on the gold questions")
    ev.add_argument("--retrieval-only", action="store_true", help="no LLM: retrieval metrics only (fast)")
    ev.add_argument("--split", choices=["dev", "test"], default="dev",
                    help="gold split: dev (tune on it, the default) or test (report only)")
    ev.add_argument("--gold", type=Path, help="gold question file (JSONL; default: eval/gold/SPLIT.jsonl)")
    ev.add_argument("--limit", type=int, help="only the first N questions (a quick look)")
    ev.add_argument("--types", help="only questions of these types, comma separated (e.g. "
                                    "fact,paraphrase,method,unanswerable,chinese: the single-question path)")
    ev.add_argument("--corpus", type=Path, nargs="*", default=None, metavar="PATH",
                    help="distractor papers for the scale variant (default: ../shared/corpora/*.jsonl if present; "
                         "give no PATH to skip it)")
    ev.add_argument("--out", type=Path, default=Path("eval/results"), help="report folder")
    ev.add_argument("--query-translation", choices=["auto", "llm", "dictionary"],
                    help="Chinese questions in retrieval: through the LLM's translation (llm) or the term "
                         "dictionary (the default)")
    _endpoint_options(ev)
    _common(ev)

    ui = sub.add_parser("ui", help="the web chat UI (Gradio) on http://127.0.0.1:7860")
    ui.add_argument("--host", dest="ui_host",
                    help="address to bind (default: $PAPER_ASSISTANT_UI_HOST or 127.0.0.1, this machine only; "
                         "0.0.0.0 serves the network)")
    ui.add_argument("--port", type=int, dest="ui_port", help="port to serve on (default: $PAPER_ASSISTANT_UI_PORT "
                                                             "or 7860)")
    ui.add_argument("--auth", metavar="USER:PASSWORD",
                    help="require this login (default: $PAPER_ASSISTANT_UI_AUTH, safer: not visible in `ps`)")
    _endpoint_options(ui)
    _common(ui)

    mcp = sub.add_parser("mcp", help="serve the collection to AI agents over MCP (stdio, or --http PORT)")
    mcp.add_argument("--http", type=int, metavar="PORT",
                     help="serve streamable HTTP on http://127.0.0.1:PORT/mcp instead of stdio")
    _endpoint_options(mcp)
    _common(mcp)

    llm = sub.add_parser("llm", help="the LLM endpoint: status, or serve the embedded local model")
    llm_sub = llm.add_subparsers(dest="llm_command", required=True, metavar="ACTION")
    status = llm_sub.add_parser("status", help="which endpoint and model answer, the local server's state "
                                               "(starts nothing)")
    status.add_argument("--json", action="store_true", help="print JSON")
    _llm_options(status)
    serve = llm_sub.add_parser("serve", help="run the embedded local model's server until Ctrl-C or SIGTERM")
    _llm_options(serve)
    stop = llm_sub.add_parser("stop", help="stop the local model's server on the port (one left by a crash, too)")
    _llm_options(stop)
    return parser


def _topics_parser(sub: Any) -> None:
    """`topics` prints the map; `topics build` and `topics show ID` are its actions.
    The actions' options default to SUPPRESS so `topics --venue V build` keeps V."""
    topics = sub.add_parser("topics", help="the topic map of the collection: areas, topics, cited summaries")
    topics.add_argument("--venue", help="the map of this venue's papers (built with `topics build --venue`)")
    topics.add_argument("--json", action="store_true", help="print the map as JSON")
    _common(topics)
    actions = topics.add_subparsers(dest="topics_command", metavar="ACTION")
    build = actions.add_parser("build", help="cluster the indexed papers into areas and topics, and store the map",
                               argument_default=argparse.SUPPRESS)
    build.add_argument("--venue", help="only this venue's papers")
    build.add_argument("--llm-labels", action="store_true", help="ask the LLM for better labels (cached)")
    _endpoint_options(build)
    _common(build)
    show = actions.add_parser("show", help="a topic's papers and a cited summary of them",
                              argument_default=argparse.SUPPRESS)
    show.add_argument("topic_id", metavar="ID", help="a topic id from `paper-assistant topics`, e.g. 3.2")
    show.add_argument("--venue", help="use the map built for this venue")
    _answer_options(show)


def _llm_options(parser: argparse.ArgumentParser) -> None:
    _endpoint_options(parser)
    parser.add_argument("--port", type=int, dest="local_port", help="port of the local server (default 8765)")
    _common(parser)


def _endpoint_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--base-url", help="OpenAI-compatible endpoint (default: $OPENAI_BASE_URL; "
                                           "unset: the embedded local model)")
    parser.add_argument("--model", help="model name (default: $PAPER_ASSISTANT_MODEL, else the endpoint's first)")
    parser.add_argument("--local-model", choices=["default", "fast"],
                        help="embedded model when no endpoint is set: default (1.5B) or fast (0.5B)")


def _filter_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--no-question-filters", dest="question_filters", action="store_const", const=False,
                        help="do not take a venue or year named in the question ('from ICLR 2026') as a filter")


def _answer_options(parser: argparse.ArgumentParser, with_json: bool = True) -> None:
    _endpoint_options(parser)
    _filter_options(parser)
    if with_json:
        parser.add_argument("--json", action="store_true", help="print the answer as JSON")
        parser.add_argument("--markdown", type=Path, metavar="FILE", help="also write the answer and references to FILE")
        parser.add_argument("--bibtex", type=Path, metavar="FILE", help="also write the references as BibTeX to FILE")
    _common(parser)


#: Settings fields (and the preset) that command-line flags set: field -> (argparse dest, flag).
FLAGS = {
    "storage": ("storage", "--storage"), "top_k": ("k", "--k"), "base_url": ("base_url", "--base-url"),
    "model": ("model", "--model"), "local_model": ("local_model", "--local-model"),
    "local_port": ("local_port", "--port"), "chroma_url": ("chroma_url", "--chroma-url"),
    "question_filters": ("question_filters", "--no-question-filters"),
    "query_translation": ("query_translation", "--query-translation"), "preset": ("preset", "--preset"),
    "ui_host": ("ui_host", "--host"), "ui_port": ("ui_port", "--port"), "ui_auth": ("auth", "--auth"),
}


def _settings(args: argparse.Namespace) -> Settings:
    """Settings with the given flags over the environment; an empty string
    flag leaves the environment's value (a bad number is a one-line error)."""
    given = {field: getattr(args, dest, None) for field, (dest, _) in FLAGS.items()}
    overrides = {field: value for field, value in given.items() if value is not None and value != ""}
    return load_settings(overrides, {field: flag for field, (_, flag) in FLAGS.items()})


def _print_json(payload: Any) -> None:
    print(json.dumps(payload, ensure_ascii=False))


def cmd_ingest(args: argparse.Namespace) -> int:
    from assistant.index import PaperIndex
    from assistant.papers import seed_files

    settings = _settings(args)
    index = PaperIndex(settings)
    report = index.ingest_files(args.paths or seed_files(), prune=args.prune, progress=None)
    for skip in report.skipped[:20]:
        print(f"skipped {skip.where}: {skip.reason}", file=sys.stderr)
    if len(report.skipped) > 20:
        print(f"... and {sum(s.count for s in report.skipped[20:])} more skipped", file=sys.stderr)
    print(
        f"Indexed {report.total} papers in {index.location} in {report.seconds:.1f} s: "
        f"{report.added} added, {report.updated} updated, {report.unchanged} unchanged, "
        f"{report.removed} removed, {report.merged} duplicates merged, {sum(s.count for s in report.skipped)} skipped"
        + (" (rebuilt for the current embedding model)" if report.rebuilt else "")
        + (" (nothing read: the same sources as the last ingest, and the index unchanged since)"
           if report.as_last_time else "")
        + "."
    )
    return 0


def cmd_papers(args: argparse.Namespace) -> int:
    from assistant.index import PaperIndex
    from assistant.payloads import papers_json

    papers = PaperIndex(_settings(args)).papers(args.venue, args.year)
    if args.json:
        _print_json(papers_json(papers))
        return 0
    if not papers:
        wanted = " and ".join(part for part in (f"venue '{args.venue}'" if args.venue else "",
                                                 f"year {args.year}" if args.year is not None else "") if part)
        print(f"No papers from {wanted}." if wanted else "No papers.")
        return 0
    width = max(len(p.paper_id) for p in papers)
    for p in papers:
        print(f"{p.paper_id:<{width}}  {p.venue:<13}  {p.name}")
    print(f"{len(papers)} papers.")
    return 0


def cmd_search(args: argparse.Namespace) -> int:
    from assistant.errors import InputError
    from assistant.filters import describe
    from assistant.index import PaperIndex
    from assistant.payloads import search_json
    from assistant.retrieve import PaperRetriever

    settings = _settings(args)
    index = PaperIndex(settings)
    retriever = PaperRetriever(index, k=settings.retrieval.top_k, venue=args.venue, year=args.year)
    retriever.check_filters(args.venue, args.year)
    translate = None
    translation = settings.retrieval.query_translation
    if translation == "llm" or (translation == "auto" and settings.llm.base_url):
        from assistant.answer import Assistant

        translate = Assistant(settings, index=index).translate  # the LLM starts only for a CJK query
    if args.query == "-":
        for line in sys.stdin:
            if line.strip():
                scope, hits = retriever.find(line.strip(), translate=translate)
                _print_json(search_json(line.strip(), hits, scope))
                sys.stdout.flush()
        return 0
    if not args.query.strip():
        raise InputError("The query is empty: say what you are looking for.")
    scope, hits = retriever.find(args.query, translate=translate)
    if args.json:
        _print_json(search_json(args.query, hits, scope))
        return 0
    if scope.parsed:
        print(f"Filter from the query: {describe(scope.parsed)} (--no-question-filters searches every paper).")
    if scope.unmatched:
        print(scope.unmatched)
    if scope.translated:
        print(f"Searched as: {scope.query}")
    for rank, hit in enumerate(hits, start=1):
        print(f"{rank}. {hit.paper.name}  [{hit.paper.venue}]  score {hit.score:.2f}  id {hit.paper.paper_id}")
        print(f"   {hit.paper.abstract[:220]}{'…' if len(hit.paper.abstract) > 220 else ''}")
    if not hits:
        print("No matching papers.")
    return 0


def _render(events: Iterator[Any], args: argparse.Namespace, batch: bool = False, index: Any = None) -> Any:
    """Print an answer's events: sources first, tokens as they stream (on a
    terminal), then the checked answer with its references, and write the
    exports asked for (``index`` has the papers they need). Returns the result."""
    from assistant.answer import Draft, Final, Routed, Sources, Table, Token, Waiting

    as_json = batch or getattr(args, "json", False)
    live = not as_json and sys.stdout.isatty()
    streamed, ahead = "", -1
    for event in events:
        _check_stop()
        if isinstance(event, Waiting) and event.ahead != ahead:  # on stderr: stdout keeps the answer alone
            ahead = event.ahead
            print(f"Waiting for the model ({ahead} ahead)…", file=sys.stderr, flush=True)
        if isinstance(event, Routed) and not as_json:
            print(f"Route: {event.kind} ({event.reason})", flush=True)
        elif isinstance(event, Table) and live and not event.values and not event.asked:
            print("Quoted from the abstracts (short values follow the comparison):", flush=True)
            _print_table(event.papers, event.table)
        elif isinstance(event, Table) and live and not event.values:  # on stderr, like the queue's lines
            print(f"Short values: {event.asked} of {event.asking}…", file=sys.stderr, flush=True)
        elif isinstance(event, Draft) and live:
            print(f"Quoted while the model writes:\n{event.text}\n", flush=True)
        elif isinstance(event, Sources) and not as_json:
            names = ", ".join(f"{s['title']} ({s['venue']})" for s in event.sources)
            print(f"Reading: {names or 'no matching papers'}\n", flush=True)
        elif isinstance(event, Token) and live:
            streamed += event.text
            print(event.text, end="", flush=True)
        elif isinstance(event, Final):
            result = event.result
            if result.error:
                print(f"warning: {result.error} Showing an extractive answer.", file=sys.stderr)
            if result.extra.get("values_error") and result.extra["values_error"] != result.error:
                print(f"warning: {result.extra['values_error']} The table's other cells keep their quotes.",
                      file=sys.stderr)
            if as_json:
                _print_json(result.to_json())
            else:
                _print_answer(result, streamed)
            _export(result, args, index)
            return result
    return None


def _export(result: Any, args: argparse.Namespace, index: Any) -> None:
    """``--markdown``, ``--bibtex`` and (compare) ``--csv``: the markdown's
    references cite the BibTeX keys."""
    if not (getattr(args, "markdown", None) or getattr(args, "bibtex", None) or getattr(args, "csv", None)):
        return
    _check_stop()  # a stopped command writes nothing
    from assistant.compare import to_csv
    from assistant.errors import StorageError
    from assistant.files import write_atomic
    from assistant.references import answer_exports

    markdown, bibtex = answer_exports(result, index.corpus.by_id)
    table = to_csv(result.extra["papers"], result.extra["table"]) if "table" in result.extra else ""
    for path, text in ((getattr(args, "markdown", None), markdown), (getattr(args, "bibtex", None), bibtex),
                       (getattr(args, "csv", None), table)):
        if path is not None:
            try:
                write_atomic(path, text)
            except OSError as exc:
                raise StorageError(f"Cannot write {path}: {exc.strerror or exc}.") from exc


def _print_answer(result: Any, streamed: str) -> None:
    if streamed and streamed.strip() != result.answer:
        print("\n\nWith checked citations:")
    elif streamed:
        print()
    if not streamed or streamed.strip() != result.answer:
        print(result.answer)
    if result.quoted:
        print(f"({result.quoted_note()})")
    if result.extra.get("unanswerable"):
        print(f"(Refused without asking the model: {result.extra['unanswerable']}.)")
    if result.extra.get("table"):
        _print_table(result.extra["papers"], result.extra["table"])
    unsupported = [s["sentence"] for s in result.support if s["supported"] is False]
    if unsupported:
        print(f"({len(unsupported)} sentence(s) not supported by any abstract: {' | '.join(unsupported)})")
    if result.extra.get("filter_unmatched"):
        print(f"({result.extra['filter_unmatched']})")
    if result.extra.get("filter"):
        from assistant.filters import describe

        print(f"(Filter from the question: {describe(result.extra['filter'])}; --no-question-filters searches "
              "every paper.)")
    if not result.sources:
        return  # nothing found to list: no heading over nothing
    heading = "Closest papers:" if result.abstained else "References:"
    print(f"\n{heading}")
    for s in result.sources:
        cited = s["n"] <= len(result.citations)
        if cited or result.abstained or not result.citations:
            print(f"[{s['n']}] {s['title']} — {s['venue']} ({s['paper_id']})")


def _print_table(papers: list[dict[str, Any]], table: list[dict[str, Any]]) -> None:
    """A comparison's table, aspect by aspect: each paper's value and the quote it rests on."""
    from assistant.compare import cell_text

    width = max(len(p["title"]) for p in papers)
    for row in table:
        print(f"\n{row['aspect']}:")
        for paper, cell in zip(papers, row["cells"], strict=True):
            quote = f"  “{cell['quote']}”" if cell["value"] else ""
            print(f"  {paper['title']:<{width}}  {cell_text(cell)}{quote}")
    print()


def _assistant(args: argparse.Namespace) -> Any:
    """The assistant with its LLM endpoint resolved (the local server started)
    up front; when that fails, answers still come, extractive, with a warning.
    A ``--venue`` no indexed paper has is an error before any of that."""
    from assistant.answer import Assistant
    from assistant.errors import LLMUnavailable

    assistant = Assistant(_settings(args))
    assistant.retriever.check_filters(getattr(args, "venue", None))
    try:
        assistant.llm  # noqa: B018 - resolve now, before the first question
    except LLMUnavailable:
        pass  # reported with the first answer
    return assistant


def _answer_command(args: argparse.Namespace, run: Any) -> int:
    """Shared driver of ask/summarize/compare: one input, or JSON lines from stdin."""
    assistant = _assistant(args)
    first = args.question if hasattr(args, "question") else args.topic
    if first == "-":
        for line in sys.stdin:
            if line.strip():
                _render(run(assistant, line.strip()), args, batch=True, index=assistant.index)
                sys.stdout.flush()
        return 0
    if not first.strip():
        from assistant.errors import InputError

        raise InputError("The question is empty: say what you want to know.")
    _render(run(assistant, first), args, index=assistant.index)
    return 0


def cmd_ask(args: argparse.Namespace) -> int:
    return _answer_command(args, lambda a, q: a.respond(q, venue=args.venue))


def cmd_summarize(args: argparse.Namespace) -> int:
    return _answer_command(args, lambda a, q: a.summarize(q, venue=args.venue))


def _names(line: str) -> list[str]:
    """The papers of one stdin line: 'A | B | C' (or tabs, or 'A vs B')."""
    for sep in ("|", "\t", " vs ", " versus "):
        if sep in line:
            return [part.strip() for part in line.split(sep) if part.strip()]
    return [line.strip()]


def cmd_compare(args: argparse.Namespace) -> int:
    """Papers by name, or those of a topic or a search, compared on the
    aspects asked for; every input problem is one line before the LLM starts."""
    from assistant import compare
    from assistant.errors import InputError

    aspects = compare.parse_aspects(args.aspects)
    sources = [bool(args.papers), args.topic is not None, args.query is not None]
    if sum(sources) != 1:
        raise InputError("Say which papers to compare: name 2 to 8 (`compare CSBrain REVE`), or give --topic ID "
                         "or --query TEXT, one of the three.")
    if args.k is not None and (args.query is None or not compare.MIN_PAPERS <= args.k <= compare.MAX_PAPERS):
        raise InputError(f"--k goes with --query and takes {compare.MIN_PAPERS} to {compare.MAX_PAPERS} papers "
                         f"(got {args.k}).")
    if args.papers and args.papers != ["-"]:
        compare.check_number(len(args.papers))
    assistant = _assistant(args)
    if args.papers == ["-"]:
        for line in sys.stdin:
            if line.strip():
                _render(_compare_line(assistant, line, aspects), args, batch=True, index=assistant.index)
                sys.stdout.flush()
        return 0
    if args.papers:
        events = assistant.compare(*args.papers, aspects=aspects)
    else:
        papers, question = _topic_papers(args, assistant) if args.topic is not None else _query_papers(args, assistant)
        events = assistant.compare_papers(papers, question, aspects)
    _render(events, args, index=assistant.index)
    return 0


def _compare_line(assistant: Any, line: str, aspects: list[str]) -> Iterator[Any]:
    """One stdin comparison; a bad line is its own JSON error, not the end of the batch."""
    from assistant.errors import AssistantError

    try:
        yield from assistant.compare(*_names(line), aspects=aspects)
    except AssistantError as exc:
        _print_json({"question": line.strip(), "error": str(exc)})


def _topic_papers(args: argparse.Namespace, assistant: Any) -> tuple[list[Any], str]:
    """A topic's most typical papers (at most 8), said on stderr when it has more."""
    from assistant import compare, topics

    topic_map = topics.load(topics.topics_path(assistant.index.storage, args.venue), args.venue)
    _, topic = topic_map.find(args.topic)
    papers = topics.topic_papers(topic, assistant.index)
    if len(papers) > compare.MAX_PAPERS:
        print(f"note: topic {topic.topic_id} has {len(papers)} papers; comparing its {compare.MAX_PAPERS} most "
              "typical.", file=sys.stderr)
    return papers[: compare.MAX_PAPERS], f"Topic {topic.topic_id}: {topic.label}"


def _query_papers(args: argparse.Namespace, assistant: Any) -> tuple[list[Any], str]:
    from assistant.errors import InputError

    if not args.query.strip():
        raise InputError("The query is empty: say which papers to compare, e.g. --query \"EEG foundation models\".")
    hits = assistant.retriever.search(args.query, k=args.k or 5, venue=args.venue)
    return [h.paper for h in hits], args.query


def cmd_chat(args: argparse.Namespace) -> int:
    assistant = _assistant(args)
    conversation = assistant.conversation()
    prompt = "you> " if sys.stdin.isatty() else ""
    while True:
        try:
            message = input(prompt)
        except EOFError:
            return 0
        if message.strip() in {"/exit", "/quit"}:
            return 0
        if message.strip():
            _render(conversation.send(message.strip(), venue=args.venue), args)
            print()


def cmd_topics(args: argparse.Namespace) -> int:
    """The topic map: build it, print it, or summarize one topic."""
    from assistant import topics
    from assistant.index import PaperIndex

    settings = _settings(args)
    index = PaperIndex(settings)
    venue = getattr(args, "venue", None)
    path = topics.topics_path(index.storage, venue)
    if args.topics_command == "build":
        llm = None
        if getattr(args, "llm_labels", False):
            assistant = _assistant(args)
            llm = lambda: assistant.llm
        topic_map, error = topics.build(index, venue, settings.topics.topic_max_papers, progress=None, llm=llm)
        if error:
            print(f"warning: {error} Keeping keyword labels.", file=sys.stderr)
        topics.save(topic_map, path)
        built = topic_map.built_from
        print(f"Built {built['areas']} areas and {built['topics']} topics from {built['papers']} papers in "
              f"{built['seconds']:.1f} s: {path}")
        return 0
    topic_map = topics.load(path, venue)
    note = topics.stale_note(topic_map, index)
    if note:
        print(f"warning: {note}", file=sys.stderr)
    if args.topics_command == "show":
        return _show_topic(args, topic_map, index)
    if getattr(args, "json", False):
        _print_json(topic_map.to_json())
        return 0
    built = topic_map.built_from
    print(f"{built['papers']} papers{f' from {venue}' if venue else ''}: {built['areas']} areas, "
          f"{built['topics']} topics (built {built['built_at']}).")
    for area in topic_map.areas:
        print(f"\n{area.area_id}. {area.label} ({area.size} papers) — {', '.join(area.keywords[:6])}")
        for topic in area.topics:
            print(f"   {topic.topic_id:<6} {topic.label} ({topic.size}) — {', '.join(topic.keywords[:5])}")
    print("\n`paper-assistant topics show ID` lists a topic's papers and summarizes them.")
    return 0


def _show_topic(args: argparse.Namespace, topic_map: Any, index: Any) -> int:
    """A topic's papers, then a cited summary over them (its most typical
    papers when there are more than a summary covers)."""
    from assistant.answer import Final
    from assistant.topics import topic_papers

    area, topic = topic_map.find(args.topic_id)
    papers = topic_papers(topic, index)
    if not papers:
        from assistant.errors import NotFound

        raise NotFound(f"None of topic {topic.topic_id}'s papers is still indexed: run `paper-assistant topics build`.")
    as_json = getattr(args, "json", False)
    if not as_json:
        print(f"Topic {topic.topic_id}: {topic.label} — {len(papers)} papers, in area {area.area_id}. {area.label}")
        print(f"Keywords: {', '.join(topic.keywords)}\n")
        for p in papers:
            print(f"- {p.name} — {p.venue} ({p.paper_id})")
        covered = min(len(papers), index.settings.topics.topic_max_papers)
        if covered < len(papers):
            print(f"\nSummarized from its {covered} most representative papers of {len(papers)}.")
        print()
    assistant = _assistant(args)
    info = {"topic_id": topic.topic_id, "label": topic.label, "keywords": topic.keywords, "size": len(papers),
            "area_id": area.area_id, "area": area.label,
            "papers": [{"paper_id": p.paper_id, "title": p.name, "venue": p.venue} for p in papers]}

    def events() -> Iterator[Any]:
        for event in assistant.summarize(topic.label, papers=papers):
            if isinstance(event, Final):
                event.result.extra["topic"] = info
            yield event

    _render(events(), args, index=assistant.index)
    return 0


def cmd_eval(args: argparse.Namespace) -> int:
    from assistant.errors import InputError
    from assistant.evaluation import run_eval

    gold = args.gold or Path("eval") / "gold" / f"{args.split}.jsonl"
    if not gold.exists():
        raise InputError(f"No gold set at {gold}: run from the project folder or pass --gold FILE.")
    corpus = args.corpus
    if corpus is None:
        default = Path("..") / "shared" / "corpora"
        corpus = sorted(default.glob("*.jsonl")) if default.is_dir() else []
    types = {t.strip() for t in args.types.split(",") if t.strip()} if args.types else None
    path, _ = run_eval(_settings(args), gold, args.out, corpus, args.retrieval_only, limit=args.limit, types=types)
    print(path.read_text(encoding="utf-8"))
    print(f"Report: {path} (and {path.with_suffix('.json')})")
    return 0


def cmd_ui(args: argparse.Namespace) -> int:
    from ui.app import launch

    launch(_settings(args))
    return 0


def cmd_mcp(args: argparse.Namespace) -> int:
    from assistant.mcp_server import serve

    serve(_settings(args), http_port=args.http)
    return 0


def cmd_llm(args: argparse.Namespace) -> int:
    from assistant.local import MODELS, record_path, server_status, shared_server, stop_recorded

    settings = _settings(args)
    if args.llm_command == "stop":
        stopped = stop_recorded(settings)
        print(f"Stopped the local model server (pid {stopped.pid}, port {stopped.port})." if stopped
              else f"No local model server of paper-assistant runs on port {settings.local.local_port}.")
        return 0
    if args.llm_command == "serve":
        if settings.llm.base_url:
            from assistant.errors import ConfigError

            raise ConfigError(f"An endpoint is configured ({settings.llm.base_url}): `llm serve` runs the local model; "
                              "unset OPENAI_BASE_URL to use it.")
        server = shared_server(settings)
        print(f"Local model {server.model.alias} at {server.ensure()} (API key: api_key in "
              f"{record_path(settings)}; Ctrl-C or SIGTERM stops it)", flush=True)
        with contextlib.suppress(KeyboardInterrupt):  # a stop signal is how a server ends: exit 0
            try:
                while server.record is not None and server.record.serves():
                    _pause()
            finally:
                server.stop()
        return 0
    status: dict[str, Any]
    if settings.llm.base_url:
        status = {"endpoint": settings.llm.base_url, "model": settings.llm.model or "(the endpoint's first model)",
                  "local": False}
    else:
        from assistant.local import chosen_model, model_file_status

        model = chosen_model(settings)
        status = {"endpoint": f"http://127.0.0.1:{settings.local.local_port}/v1", "model": model.alias, "local": True,
                  "description": model.description, "model_file": model_file_status(settings),
                  "server": server_status(settings), "choices": sorted(MODELS)}
    if args.json:
        _print_json(status)
        return 0
    for key, value in status.items():
        if key == "server":
            value = (f"pid {value['pid']} on port {value['port']}, started {value['started']}, "
                     f"{'healthy' if value['healthy'] else 'NOT answering'}" if value else "not running")
        print(f"{key}: {value}")
    return 0


def _pause() -> None:
    """Sleep until a signal or a second passes (so a dead server is noticed)."""
    import time

    time.sleep(1.0)


def _unwinding(thread_id: int) -> bool:
    """Whether the thread handles a stop: runs an ``except`` or ``finally``
    for it, or for an exception raised there (a cleanup's own errors)."""
    info = sys._current_exceptions().get(thread_id)
    exc = info[1] if isinstance(info, tuple) else info  # a (type, value, tb) tuple before Python 3.12
    for _ in range(32):  # a context chain is short; the bound guards against a cycle
        if exc is None:
            return False
        if isinstance(exc, KeyboardInterrupt):
            return True
        exc = exc.__context__
    return False


def _raise_again(signum: int, unwound: threading.Event, again: threading.Event) -> None:
    """Raise the stop again in the main thread while it runs on without
    unwinding: the handler's raise was lost in a finalizer, and the next
    ``_check_stop`` may be a whole prompt's reading away. A thread that
    unwinds (cleanups, rollbacks) is left alone."""
    main = threading.main_thread().ident
    calm = 0.0
    while main is not None and not unwound.wait(0.25):
        calm = 0.0 if _unwinding(main) else calm + 0.25
        if calm >= REDELIVER_AFTER_S:
            again.set()
            _thread.interrupt_main(signal.Signals(signum))
            calm = 0.0


@contextlib.contextmanager
def _stop_signals(server: bool = False) -> Iterator[None]:
    """The first SIGTERM, SIGINT or SIGHUP raises ``Stopped`` (a clean
    unwind, the local server stopped by the exit hook), raised again if the
    command runs on (not for a ``server``, which catches it to close); a
    second signal kills the local server and exits at once. The handlers stay
    once a signal came, so a second one during the exit hook still works."""
    if threading.current_thread() is not threading.main_thread():  # signal handlers belong to the main thread
        yield
        return
    _RECEIVED.clear()
    unwound, again = threading.Event(), threading.Event()

    def handler(signum: int, frame: FrameType | None) -> None:
        if again.is_set():  # the same stop, raised again by _raise_again
            again.clear()
            raise Stopped(_RECEIVED[0])
        _RECEIVED.append(signum)
        if len(_RECEIVED) > 1:
            local = sys.modules.get("assistant.local")  # not imported: no server to kill
            if local is not None:
                local.kill_all()
            os._exit(128 + signum)
        if not server:
            threading.Thread(target=_raise_again, args=(signum, unwound, again), name="stop-again", daemon=True).start()
        raise Stopped(signum)

    previous = {sig: signal.signal(sig, handler) for sig in STOP_SIGNALS}
    try:
        yield
    finally:
        unwound.set()
        if not _RECEIVED:
            for sig, old in previous.items():
                signal.signal(sig, old)


COMMANDS = {
    "ingest": cmd_ingest, "papers": cmd_papers, "search": cmd_search,
    "ask": cmd_ask, "summarize": cmd_summarize, "compare": cmd_compare, "chat": cmd_chat, "llm": cmd_llm,
    "eval": cmd_eval, "ui": cmd_ui, "mcp": cmd_mcp, "topics": cmd_topics,
}


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point: run one command, turning every known failure into one line."""
    set_offline_env()
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s: %(message)s")
    logging.getLogger("chromadb").setLevel(logging.ERROR)
    args = build_parser().parse_args(argv)
    from assistant.errors import AssistantError

    try:
        with _stop_signals(server=args.command in _SERVERS):
            return COMMANDS[args.command](args)
    except AssistantError as exc:
        if os.environ.get("PAPER_ASSISTANT_DEBUG") and exc.__cause__ is not None:
            import traceback

            traceback.print_exception(exc.__cause__, file=sys.stderr)  # the real cause, then the one line
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_ERROR
    except KeyboardInterrupt as exc:
        print(f"{'stopped by ' + str(exc) if isinstance(exc, Stopped) else 'interrupted'}: nothing half-written is "
              "used; run the command again.", file=sys.stderr)
        return 128 + exc.signum if isinstance(exc, Stopped) else EXIT_INTERRUPTED
    except BrokenPipeError:
        return 0
    except Exception as exc:
        if os.environ.get("PAPER_ASSISTANT_DEBUG"):
            raise
        print(f"error: unexpected {type(exc).__name__}: {exc} (set PAPER_ASSISTANT_DEBUG=1 for details)",
              file=sys.stderr)
        return EXIT_ERROR


if __name__ == "__main__":
    sys.exit(main())
