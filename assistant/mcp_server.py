"""The collection as tools for agents: an MCP server on the official SDK.

An agent (Claude Desktop, an IDE, any MCP client) gets the same six things a
researcher gets from the command line: search, ask, summarize, compare,
list_papers and get_paper. Each returns exactly the JSON of the matching
``--json`` command (built by ``payloads.py`` and ``AnswerResult.to_json``),
as text and, for objects, as structured content. Every paper is also a
resource, ``paper://ID``, holding its record as JSON.

Bad input is the agent's to fix, so it comes back as a tool error with one
readable line (a missing or wrong-typed argument, an unknown paper, a ``k``
too large) and the server keeps serving. Answers go through the same
``Assistant`` as the CLI, so an LLM failure still gives the extractive answer
with its ``error`` field, not a tool error.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Annotated, Any
from urllib.parse import quote

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ResourceNotFoundError, ToolError
from mcp.server.mcpserver.resources import FunctionResource
from mcp_types import CallToolResult, TextContent
from pydantic import Field, ValidationError

from assistant import compare as comparison
from assistant.answer import Assistant, Final
from assistant.errors import AssistantError
from assistant.papers import Paper
from assistant.payloads import paper_json, papers_json, search_json
from assistant.retrieve import PaperRetriever
from assistant.settings import Settings

#: More papers than a search may return in one call: beyond this an agent
#: should narrow the query, not page through the collection.
MAX_K = 50
#: Longest query, question or paper reference accepted (characters).
MAX_TEXT = 2000

INSTRUCTIONS = (
    "Question answering over a collection of research-paper abstracts. Answers come strictly from the abstracts, "
    "with [n] citations to the listed sources; 'The abstracts do not contain this information.' is a real answer. "
    "Find papers with search or list_papers; paper ids work in get_paper and compare."
)

Text = Annotated[str, Field(min_length=1, max_length=MAX_TEXT)]
Papers = Annotated[list[Text], Field(min_length=comparison.MIN_PAPERS, max_length=comparison.MAX_PAPERS,
                                      description="the papers to compare, in table order")]
Aspects = Annotated[str | None, Field(max_length=MAX_TEXT, description="comma-separated aspects, e.g. 'dataset, "
                                      "subjects, result' (default: the standard ones; '+x' adds x to them)")]
Venue = Annotated[str | None, Field(description="only papers of this venue, e.g. 'NeurIPS 2025' (case and spaces "
                                                "are forgiven)")]


class PaperServer(MCPServer):
    """MCPServer whose argument errors are one readable line ("... search:
    missing argument 'query'") instead of pydantic's multi-line report."""

    async def call_tool(self, name: str, arguments: dict[str, Any], context: Any = None) -> Any:
        try:
            return await super().call_tool(name, arguments, context)
        except ToolError as exc:
            if isinstance(exc.__cause__, ValidationError):
                problems = "; ".join(_problem(e) for e in exc.__cause__.errors())
                raise ToolError(f"Error executing tool {name}: {problems}") from exc.__cause__
            raise


def _problem(error: Any) -> str:
    where = ".".join(str(part) for part in error["loc"]) or "arguments"
    if error["type"] == "missing":
        return f"missing argument '{where}'"
    return f"argument '{where}': {error['msg']}"


def _result(payload: dict[str, Any] | list[Any]) -> CallToolResult:
    """The CLI's JSON as the tool's text; objects also as structured content."""
    text = json.dumps(payload, ensure_ascii=False)
    return CallToolResult(content=[TextContent(type="text", text=text)],
                          structured_content=payload if isinstance(payload, dict) else None)


def _run(work: Callable[[], dict[str, Any] | list[Any]]) -> CallToolResult:
    """Run a tool's work; our one-line errors become tool errors (anything
    else is a bug, which the SDK reports without its details)."""
    try:
        return _result(work())
    except AssistantError as exc:
        raise ToolError(str(exc)) from exc


def _answer(events: Iterator[Any]) -> dict[str, Any]:
    for event in events:
        if isinstance(event, Final):
            return event.result.to_json()
    raise ToolError("The answer ended without a result.")


def build_server(settings: Settings, assistant: Assistant | None = None) -> PaperServer:
    """The MCP server over one Assistant for ``settings``. Reads the paper list
    now, so a missing index stops it with one line before any client connects."""
    assistant = assistant or Assistant(settings)
    index = assistant.index
    papers = index.papers()
    retriever = PaperRetriever(index, k=settings.retrieval.top_k)
    server = PaperServer("paper-assistant", version=_version(), instructions=INSTRUCTIONS, log_level="WARNING")

    ids = {p.paper_id: p for p in papers}

    def by_id(paper_id: str) -> Any:
        found = ids.get(paper_id)
        if found is None:
            raise ToolError(f"No paper with id '{paper_id}': take ids from search or list_papers.")
        return found

    @server.tool()
    def search(query: Text, k: Annotated[int, Field(ge=1, le=MAX_K)] = settings.retrieval.top_k, venue: Venue = None,
               year: int | None = None) -> CallToolResult:
        """The papers that best match a query (hybrid dense + BM25 retrieval), best first, with their abstracts."""
        def work() -> dict[str, Any]:
            retriever.check_filters(venue, year)
            scope, hits = retriever.find(query, k=k, venue=venue, year=year)
            return search_json(query, hits, scope)
        return _run(work)

    @server.tool()
    def ask(question: Text, venue: Venue = None) -> CallToolResult:
        """Answer a question strictly from the best few abstracts, with [n] citations and checked support."""
        return _run(lambda: _answer(assistant.ask(question, venue=venue)))

    @server.tool()
    def summarize(topic: Text, venue: Venue = None) -> CallToolResult:
        """Summarize every paper about a topic (a relevance cut-off, not a fixed number), with citations."""
        return _run(lambda: _answer(assistant.summarize(topic, venue=venue)))

    @server.tool()
    def compare(papers: Papers, aspects: Aspects = None) -> CallToolResult:
        """Compare 2 to 8 papers, each named by id, name, title, BibTeX key or description: an aspect table
        filled from the abstracts, then a cited narrative. An ambiguous name is an error listing candidates."""
        return _run(lambda: _answer(assistant.compare(*papers, aspects=comparison.parse_aspects(aspects))))

    @server.tool()
    def list_papers(venue: Venue = None) -> CallToolResult:
        """Every indexed paper (id, name, venue, abstract), optionally one venue's."""
        return _run(lambda: papers_json(index.papers(venue)))

    @server.tool()
    def get_paper(paper_id: Text) -> CallToolResult:
        """One paper in full by its id: names, venue, year, authors, keywords, URL, DOI, abstract, BibTeX key."""
        return _run(lambda: paper_json(by_id(paper_id)))

    def reader(paper: Paper) -> Callable[[], str]:
        return lambda: json.dumps(paper_json(paper), ensure_ascii=False)

    for paper in papers:
        server.add_resource(FunctionResource(
            uri=f"paper://{quote(paper.paper_id, safe='')}", name=paper.paper_id, title=paper.name,
            description=f"{paper.name} ({paper.venue})" if paper.venue else paper.name,
            mime_type="application/json", fn=reader(paper),
        ))

    @server.resource("paper://{paper_id}", name="paper", mime_type="application/json")
    def paper_resource(paper_id: str) -> str:
        """A paper by id (the listed resources, under their plain id)."""
        try:
            return json.dumps(paper_json(by_id(paper_id)), ensure_ascii=False)
        except ToolError as exc:
            raise ResourceNotFoundError(str(exc)) from None

    return server


def _version() -> str:
    from importlib.metadata import version

    return version("paper-assistant")


def serve(settings: Settings, http_port: int | None = None) -> None:
    """Serve over stdio (what desktop clients launch), or streamable HTTP on
    127.0.0.1:``http_port`` at /mcp."""
    server = build_server(settings)
    if http_port is None:
        server.run("stdio")
    else:
        server.run("streamable-http", host="127.0.0.1", port=http_port)
