"""The ``paper-assistant`` command line: parse, call the library, render.

The ``--json`` shapes printed here are a contract that outside tools and
the evaluation rely on; they are built by the ``*_json`` helpers only.
Every failure the user can cause ends as one line on stderr and exit 1.
"""

from __future__ import annotations

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

from assistant.settings import Settings, set_offline_env

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


def _common(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--storage", type=Path, metavar="DIR",
                        help="index folder (default: $PAPER_ASSISTANT_STORAGE or ./storage)")
    parser.add_argument("--chroma-url", metavar="URL",
                        help="use a Chroma server (http://host:port) instead of the folder (default: $CHROMA_URL)")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="paper-assistant",
        description="Ask questions about a collection of paper abstracts.",
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    ingest = sub.add_parser("ingest", help="index paper lists (default: the bundled NeurIPS 2025 + ICLR 2026 lists)")
    ingest.add_argument("paths", nargs="*", type=Path, metavar="PATH",
                        help=".txt list, .jsonl/.json/.csv records, or a folder of them")
    ingest.add_argument("--prune", action="store_true", help="remove indexed papers that the given sources no longer hold")
    _common(ingest)

    papers = sub.add_parser("papers", help="list the indexed papers")
    papers.add_argument("--venue", help="only papers of this venue, e.g. 'ICLR 2026'")
    papers.add_argument("--json", action="store_true", help="print a JSON list")
    _common(papers)

    search = sub.add_parser("search", help="find the papers that best match a query")
    search.add_argument("query", help="the query; '-' reads one query per line from stdin (JSON lines out)")
    search.add_argument("--k", type=int, default=None, help="papers to return (default 5)")
    search.add_argument("--venue", help="only papers of this venue")
    search.add_argument("--year", type=int, help="only papers of this year")
    search.add_argument("--json", action="store_true", help="print JSON")
    _common(search)

    ask = sub.add_parser("ask", help="answer a question from the abstracts, with citations")
    ask.add_argument("question", help="the question; '-' reads one per line from stdin (JSON lines out)")
    ask.add_argument("--venue", help="only papers of this venue")
    _answer_options(ask)

    summarize = sub.add_parser("summarize", help="summarize every paper on a topic")
    summarize.add_argument("topic", help="the topic; '-' reads one per line from stdin (JSON lines out)")
    summarize.add_argument("--venue", help="only papers of this venue")
    _answer_options(summarize)

    compare = sub.add_parser("compare", help="compare two papers (by name, title, id or description)")
    compare.add_argument("a", help="the first paper; '-' reads 'A | B' pairs from stdin (JSON lines out)")
    compare.add_argument("b", nargs="?", help="the second paper")
    _answer_options(compare)

    chat = sub.add_parser("chat", help="multi-turn chat on stdin: follow-ups may refer to earlier answers")
    chat.add_argument("--venue", help="only papers of this venue")
    _answer_options(chat, with_json=False)

    ev = sub.add_parser("eval", help="measure retrieval and answer quality on the gold questions")
    ev.add_argument("--retrieval-only", action="store_true", help="no LLM: retrieval metrics only (fast)")
    ev.add_argument("--gold", type=Path, default=Path("eval/gold/questions.jsonl"), help="gold question set (JSONL)")
    ev.add_argument("--corpus", type=Path, nargs="*", default=None, metavar="PATH",
                    help="distractor papers for the scale variant (default: ../shared/corpora/*.jsonl if present; "
                         "give no PATH to skip it)")
    ev.add_argument("--out", type=Path, default=Path("eval/results"), help="report folder")
    _endpoint_options(ev)
    _common(ev)

    ui = sub.add_parser("ui", help="the web chat UI (Gradio) on http://127.0.0.1:7860")
    ui.add_argument("--host", default="127.0.0.1",
                    help="address to bind (default 127.0.0.1, this machine only; 0.0.0.0 serves the network)")
    ui.add_argument("--port", type=int, default=7860, help="port to serve on (default 7860)")
    ui.add_argument("--auth", metavar="USER:PASSWORD",
                    help="require this login (default: $PAPER_ASSISTANT_UI_AUTH, safer: not visible in `ps`)")
    _endpoint_options(ui)
    _common(ui)

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


def _answer_options(parser: argparse.ArgumentParser, with_json: bool = True) -> None:
    _endpoint_options(parser)
    if with_json:
        parser.add_argument("--json", action="store_true", help="print the answer as JSON")
        parser.add_argument("--markdown", type=Path, metavar="FILE", help="also write the answer and references to FILE")
    _common(parser)


def _settings(args: argparse.Namespace) -> Settings:
    overrides: dict[str, Any] = {}
    if getattr(args, "storage", None) is not None:
        overrides["storage"] = args.storage
    if getattr(args, "k", None) is not None:
        overrides["top_k"] = args.k
    for flag in ("base_url", "model", "local_model", "local_port", "chroma_url"):
        if getattr(args, flag, None):
            overrides[flag] = getattr(args, flag)
    return Settings(**overrides)


def _print_json(payload: Any) -> None:
    print(json.dumps(payload, ensure_ascii=False))


def cmd_ingest(args: argparse.Namespace) -> int:
    from assistant.index import PaperIndex
    from assistant.papers import load_papers, seed_files

    settings = _settings(args)
    sources = args.paths or seed_files()
    loaded = load_papers(sources)
    index = PaperIndex(settings)
    report = index.ingest(loaded, prune=args.prune, progress=None)
    for skip in report.skipped[:20]:
        print(f"skipped {skip.where}: {skip.reason}", file=sys.stderr)
    if len(report.skipped) > 20:
        print(f"... and {len(report.skipped) - 20} more skipped", file=sys.stderr)
    print(
        f"Indexed {report.total} papers in {index.location} in {report.seconds:.1f} s: "
        f"{report.added} added, {report.updated} updated, {report.unchanged} unchanged, "
        f"{report.removed} removed, {report.merged} duplicates merged, {len(report.skipped)} skipped"
        + (" (rebuilt for the current embedding model)" if report.rebuilt else "")
        + "."
    )
    return 0


def cmd_papers(args: argparse.Namespace) -> int:
    from assistant.index import PaperIndex

    papers = PaperIndex(_settings(args)).papers(args.venue)
    if args.json:
        _print_json([{"paper_id": p.paper_id, "title": p.name, "venue": p.venue, "abstract": p.abstract} for p in papers])
        return 0
    if not papers:
        print(f"No papers from venue '{args.venue}'." if args.venue else "No papers.")
        return 0
    width = max(len(p.paper_id) for p in papers)
    for p in papers:
        print(f"{p.paper_id:<{width}}  {p.venue:<13}  {p.name}")
    print(f"{len(papers)} papers.")
    return 0


def search_json(query: str, hits: Sequence[Any]) -> dict[str, Any]:
    """The ``search --json`` contract."""
    return {
        "query": query,
        "results": [
            {"paper_id": h.paper.paper_id, "title": h.paper.name, "venue": h.paper.venue,
             "score": round(h.score, 4), "abstract": h.paper.abstract}
            for h in hits
        ],
    }


def cmd_search(args: argparse.Namespace) -> int:
    from assistant.errors import InputError
    from assistant.index import PaperIndex
    from assistant.retrieve import PaperRetriever

    settings = _settings(args)
    retriever = PaperRetriever(PaperIndex(settings), k=settings.top_k, venue=args.venue, year=args.year)
    if not retriever.allowed(args.venue, args.year):
        venues = sorted({p.venue for p in retriever.index.lexical[1]})
        raise InputError(f"No indexed papers match venue={args.venue!r} year={args.year}; venues: {', '.join(venues)}.")
    if args.query == "-":
        for line in sys.stdin:
            if line.strip():
                _print_json(search_json(line.strip(), retriever.search(line.strip())))
                sys.stdout.flush()
        return 0
    if not args.query.strip():
        raise InputError("The query is empty: say what you are looking for.")
    hits = retriever.search(args.query)
    if args.json:
        _print_json(search_json(args.query, hits))
        return 0
    for rank, hit in enumerate(hits, start=1):
        print(f"{rank}. {hit.paper.name}  [{hit.paper.venue}]  score {hit.score:.2f}  id {hit.paper.paper_id}")
        print(f"   {hit.paper.abstract[:220]}{'…' if len(hit.paper.abstract) > 220 else ''}")
    if not hits:
        print("No matching papers.")
    return 0


def _render(events: Iterator[Any], args: argparse.Namespace, batch: bool = False) -> Any:
    """Print an answer's events: sources first, tokens as they stream (on a
    terminal), then the checked answer with its references. Returns the result."""
    from assistant.answer import Final, Sources, Token

    as_json = batch or getattr(args, "json", False)
    live = not as_json and sys.stdout.isatty()
    streamed = ""
    for event in events:
        if isinstance(event, Sources) and not as_json:
            names = ", ".join(f"{s['title']} ({s['venue']})" for s in event.sources)
            print(f"Reading: {names or 'no matching papers'}\n", flush=True)
        elif isinstance(event, Token) and live:
            streamed += event.text
            print(event.text, end="", flush=True)
        elif isinstance(event, Final):
            result = event.result
            if result.error:
                print(f"warning: {result.error} Showing an extractive answer.", file=sys.stderr)
            if as_json:
                _print_json(result.to_json())
            else:
                _print_answer(result, streamed)
            if getattr(args, "markdown", None):
                from assistant.files import write_atomic

                write_atomic(args.markdown, result.to_markdown())
            return result
    return None


def _print_answer(result: Any, streamed: str) -> None:
    if streamed and streamed.strip() != result.answer:
        print("\n\nWith checked citations:")
    elif streamed:
        print()
    if not streamed or streamed.strip() != result.answer:
        print(result.answer)
    if result.extractive:
        print("(extractive: sentences quoted from the abstracts)")
    for row in result.extra.get("table", []):
        print(f"- {row['aspect']}: A: {row['a']}\n  {'':{len(row['aspect'])}}  B: {row['b']}")
    unsupported = [s["sentence"] for s in result.support if s["supported"] is False]
    if unsupported:
        print(f"({len(unsupported)} sentence(s) not supported by any abstract: {' | '.join(unsupported)})")
    heading = "Closest papers:" if result.abstained else "References:"
    print(f"\n{heading}")
    for s in result.sources:
        cited = s["n"] <= len(result.citations)
        if cited or result.abstained or not result.citations:
            print(f"[{s['n']}] {s['title']} — {s['venue']} ({s['paper_id']})")


def _assistant(args: argparse.Namespace) -> Any:
    """The assistant with its LLM endpoint resolved (the local server started)
    up front; when that fails, answers still come, extractive, with a warning."""
    from assistant.answer import Assistant
    from assistant.errors import LLMUnavailable

    assistant = Assistant(_settings(args))
    try:
        assistant.llm  # noqa: B018 - resolve now, before the first question
    except LLMUnavailable:
        pass  # reported with the first answer
    return assistant


def _answer_command(args: argparse.Namespace, run: Any) -> int:
    """Shared driver of ask/summarize/compare: one input, or JSON lines from stdin."""
    assistant = _assistant(args)
    first = args.question if hasattr(args, "question") else args.topic if hasattr(args, "topic") else args.a
    if first == "-":
        for line in sys.stdin:
            if line.strip():
                _render(run(assistant, line.strip()), args, batch=True)
                sys.stdout.flush()
        return 0
    if not first.strip():
        from assistant.errors import InputError

        raise InputError("The question is empty: say what you want to know.")
    _render(run(assistant, first), args)
    return 0


def cmd_ask(args: argparse.Namespace) -> int:
    return _answer_command(args, lambda a, q: a.ask(q, venue=args.venue))


def cmd_summarize(args: argparse.Namespace) -> int:
    return _answer_command(args, lambda a, q: a.summarize(q, venue=args.venue))


def _pair(text: str, second: str | None) -> tuple[str, str]:
    from assistant.errors import InputError

    if second:
        return text, second
    for sep in ("|", "\t", " vs ", " versus "):
        if sep in text:
            a, b = (part.strip() for part in text.split(sep, 1))
            if a and b:
                return a, b
    raise InputError(f"Name two papers to compare, e.g. `compare CSBrain REVE` (got '{text}').")


def cmd_compare(args: argparse.Namespace) -> int:
    if args.a != "-":
        _pair(args.a, args.b)  # a missing second paper is an input error before any work
    return _answer_command(args, lambda a, text: a.compare(*_pair(text, None if args.a == "-" else args.b)))


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


def cmd_eval(args: argparse.Namespace) -> int:
    from assistant.errors import InputError
    from assistant.evaluation import run_eval

    if not args.gold.exists():
        raise InputError(f"No gold set at {args.gold}: run from the project folder or pass --gold FILE.")
    corpus = args.corpus
    if corpus is None:
        default = Path("..") / "shared" / "corpora"
        corpus = sorted(default.glob("*.jsonl")) if default.is_dir() else []
    path, report = run_eval(_settings(args), args.gold, args.out, corpus, args.retrieval_only)
    print(path.read_text(encoding="utf-8"))
    print(f"Report: {path} (and {path.with_suffix('.json')})")
    return 0


def cmd_ui(args: argparse.Namespace) -> int:
    from assistant.errors import ConfigError
    from ui.app import launch

    credentials = args.auth or os.environ.get("PAPER_ASSISTANT_UI_AUTH")
    auth = None
    if credentials:
        user, _, password = credentials.partition(":")
        if not (user and password):
            raise ConfigError("--auth (or PAPER_ASSISTANT_UI_AUTH) takes USER:PASSWORD.")
        auth = (user, password)
    launch(_settings(args), host=args.host, port=args.port, auth=auth)
    return 0


def cmd_llm(args: argparse.Namespace) -> int:
    from assistant.local import MODELS, record_path, server_status, shared_server, stop_recorded

    settings = _settings(args)
    if args.llm_command == "stop":
        stopped = stop_recorded(settings)
        print(f"Stopped the local model server (pid {stopped.pid}, port {stopped.port})." if stopped
              else f"No local model server of paper-assistant runs on port {settings.local_port}.")
        return 0
    if args.llm_command == "serve":
        if settings.base_url:
            from assistant.errors import ConfigError

            raise ConfigError(f"An endpoint is configured ({settings.base_url}): `llm serve` runs the local model; "
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
    if settings.base_url:
        status = {"endpoint": settings.base_url, "model": settings.model or "(the endpoint's first model)",
                  "local": False}
    else:
        from assistant.local import chosen_model, model_file_status

        model = chosen_model(settings)
        status = {"endpoint": f"http://127.0.0.1:{settings.local_port}/v1", "model": model.alias, "local": True,
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


@contextlib.contextmanager
def _stop_signals() -> Iterator[None]:
    """The first SIGTERM, SIGINT or SIGHUP raises ``Stopped`` (a clean
    unwind, the local server stopped by the exit hook); a second one kills
    the local server and exits at once. The handlers stay once a signal came,
    so a second one during the exit hook still works."""
    if threading.current_thread() is not threading.main_thread():  # signal handlers belong to the main thread
        yield
        return
    received: list[int] = []

    def handler(signum: int, frame: FrameType | None) -> None:
        received.append(signum)
        if len(received) > 1:
            local = sys.modules.get("assistant.local")  # not imported: no server to kill
            if local is not None:
                local.kill_all()
            os._exit(128 + signum)
        raise Stopped(signum)

    previous = {sig: signal.signal(sig, handler) for sig in STOP_SIGNALS}
    try:
        yield
    finally:
        if not received:
            for sig, old in previous.items():
                signal.signal(sig, old)


COMMANDS = {
    "ingest": cmd_ingest, "papers": cmd_papers, "search": cmd_search,
    "ask": cmd_ask, "summarize": cmd_summarize, "compare": cmd_compare, "chat": cmd_chat, "llm": cmd_llm,
    "eval": cmd_eval, "ui": cmd_ui,
}


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point: run one command, turning every known failure into one line."""
    set_offline_env()
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s: %(message)s")
    logging.getLogger("chromadb").setLevel(logging.ERROR)
    args = build_parser().parse_args(argv)
    from assistant.errors import AssistantError

    try:
        with _stop_signals():
            return COMMANDS[args.command](args)
    except AssistantError as exc:
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
