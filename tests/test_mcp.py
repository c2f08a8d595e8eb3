"""The MCP server as an agent sees it: ``paper-assistant mcp`` in a child
process, driven by the MCP SDK's own client over stdio and streamable HTTP,
against the seed index and the scripted OpenAI server."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import anyio
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client

from assistant.index import PaperIndex
from assistant.payloads import search_json
from assistant.retrieve import PaperRetriever
from assistant.settings import Settings

from .conftest import source_number
from .openai_server import ScriptedOpenAI
from .test_cli_answer import env_for

ROOT = Path(__file__).resolve().parents[1]
TOOLS = {"search", "ask", "summarize", "compare", "list_papers", "get_paper"}
REVE = "REVE was pretrained on over 60,000 hours of EEG data"


def stdio_params(server: ScriptedOpenAI, settings: Settings) -> StdioServerParameters:
    """The child gets only what we pass (the SDK does not hand it our environment)."""
    return StdioServerParameters(command=sys.executable, args=["-m", "assistant.cli", "mcp"], cwd=str(ROOT),
                                 env=env_for(server, settings) | {"PYTHONPATH": str(ROOT)})


def payload(result: Any) -> Any:
    assert not result.is_error, result.content[0].text
    return json.loads(result.content[0].text)


def test_stdio_tools_return_the_cli_json(server: ScriptedOpenAI, seed_settings: Settings, seed_index: PaperIndex,
                                         tmp_path: Path) -> None:
    server.set_default(lambda body: f"{REVE} [{source_number(body, 'REVE')}].")

    async def session() -> dict[str, Any]:
        with (tmp_path / "stderr.log").open("w") as errlog:
            async with stdio_client(stdio_params(server, seed_settings), errlog=errlog) as (read, write), \
                    ClientSession(read, write) as client:
                init = await client.initialize()
                tools = await client.list_tools()
                search = await client.call_tool("search", {"query": "What is SPINT?", "k": 3})
                ask = await client.call_tool("ask", {"question": "How much EEG data was REVE pretrained on?"})
                papers = await client.call_tool("list_papers", {"venue": "iclr2026"})
                resources = await client.list_resources()
                spint = next(r for r in resources.resources if r.title == "SPINT")
                read_back = await client.read_resource(spint.uri)
                detail = await client.call_tool("get_paper", {"paper_id": spint.name})
        return locals()

    got = anyio.run(session)
    assert got["init"].server_info.name == "paper-assistant"
    assert {t.name for t in got["tools"].tools} == TOOLS
    assert payload(got["search"]) == search_json("What is SPINT?", PaperRetriever(seed_index).search("What is SPINT?", k=3))
    assert got["search"].structured_content == payload(got["search"])
    answer = payload(got["ask"])
    assert answer["answer"] == f"{REVE} [1]." and answer["citations"][0]["title"] == "REVE"
    assert {"question", "citations", "sources", "support", "timings", "mode", "error"} <= answer.keys()
    assert server.requests[-1]["model"] == "test-model"  # the endpoint settings reached the child
    listed = payload(got["papers"])
    assert len(listed) == 19 and set(listed[0]) == {"paper_id", "title", "venue", "abstract"}
    assert len(got["resources"].resources) == 38
    record = json.loads(got["read_back"].contents[0].text)
    assert record == payload(got["detail"]) and record["title"] == "SPINT" and record["bibtex_key"].startswith("spint2025")
    assert "Traceback" not in (tmp_path / "stderr.log").read_text(encoding="utf-8")


def test_bad_calls_are_tool_errors_and_the_server_keeps_serving(server: ScriptedOpenAI, seed_settings: Settings,
                                                                 tmp_path: Path) -> None:
    calls = [
        ("search", {}, "missing argument 'query'"),
        ("search", {"query": "EEG", "k": "five"}, "argument 'k': Input should be a valid integer"),
        ("search", {"query": "EEG", "k": 10**9}, "argument 'k': Input should be less than or equal to 50"),
        ("search", {"query": "EEG", "venue": "Nature 1999"}, "No indexed paper is from venue 'Nature 1999'"),
        ("ask", {"question": 42}, "argument 'question': Input should be a valid string"),
        ("get_paper", {"paper_id": "no-such-paper"}, "No paper with id 'no-such-paper'"),
        ("compare", {"papers": ["CSBrain", "EEG"]}, "'EEG' is ambiguous"),
        ("compare", {"papers": ["CSBrain"]}, "argument 'papers': List should have at least 2 items"),
        ("compare", {"papers": ["CSBrain", "REVE"], "aspects": ";"}, "aspect"),
        ("no_such_tool", {}, "Unknown tool: no_such_tool"),
    ]

    async def session() -> tuple[list[Any], Any]:
        with (tmp_path / "stderr.log").open("w") as errlog:
            async with stdio_client(stdio_params(server, seed_settings), errlog=errlog) as (read, write), \
                    ClientSession(read, write) as client:
                await client.initialize()
                results = [await client.call_tool(name, args) for name, args, _ in calls]
                after = await client.call_tool("search", {"query": "What is SPINT?", "k": 1})
        return results, after

    results, after = anyio.run(session)
    for (name, _, message), result in zip(calls, results, strict=True):
        text = result.content[0].text
        assert result.is_error and message in text, (name, text)
        assert "\n" not in text and "Traceback" not in text
    assert payload(after)["results"][0]["title"] == "SPINT"


@contextmanager
def http_server(server: ScriptedOpenAI, settings: Settings) -> Iterator[str]:
    """``paper-assistant mcp --http PORT`` in a child process, until the block ends."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    child = subprocess.Popen([sys.executable, "-m", "assistant.cli", "mcp", "--http", str(port)], cwd=ROOT,
                             env=env_for(server, settings) | {"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 120
        while True:
            assert child.poll() is None, child.stderr.read().decode() if child.stderr else ""
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                assert time.monotonic() < deadline, "the MCP HTTP server did not start"
                time.sleep(0.2)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        child.terminate()
        child.wait(timeout=30)


def test_streamable_http_on_localhost(server: ScriptedOpenAI, seed_settings: Settings) -> None:
    async def session(url: str) -> tuple[Any, Any]:
        async with streamable_http_client(url) as (read, write), ClientSession(read, write) as client:
            await client.initialize()
            return await client.list_tools(), await client.call_tool("compare", {"papers": ["POCO", "SPINT", "HetSyn"],
                                                                               "aspects": "+compute"})

    server.set_default("POCO forecasts neural activity while SPINT decodes behavior [1][2].")
    with http_server(server, seed_settings) as url:
        tools, compared = anyio.run(session, url)
    assert {t.name for t in tools.tools} == TOOLS
    assert [p["title"] for p in payload(compared)["papers"]] == ["POCO", "SPINT", "HetSyn"]
    assert payload(compared)["aspects"][-1] == "compute"
