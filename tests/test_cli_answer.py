"""ask / summarize / compare / chat through the real command line and a real
OpenAI-protocol server."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from assistant import prompts
from assistant.settings import Settings

from .conftest import source_number
from .openai_server import ScriptedOpenAI
from .test_cli import run_cli

KEY = "sk-cli-secret-456"


def env_for(server: ScriptedOpenAI, settings: Settings) -> dict[str, str]:
    return {"OPENAI_BASE_URL": server.base_url, "OPENAI_API_KEY": KEY, "PAPER_ASSISTANT_MODEL": "test-model",
            "PAPER_ASSISTANT_STORAGE": str(settings.index.storage), "PAPER_ASSISTANT_RETRY_BACKOFF": "0",
            "PAPER_ASSISTANT_REQUEST_TIMEOUT": "3"}


def test_a_list_of_nothing_has_no_heading_over_nothing(server: ScriptedOpenAI, seed_settings: Settings) -> None:
    result = run_cli("ask", "any papers here on stock price or financial time series forecasting?",
                     env=env_for(server, seed_settings))
    assert result.returncode == 0, result.stderr
    assert "Reading: no matching papers" in result.stdout and prompts.REFUSAL in result.stdout
    assert "Closest papers:" not in result.stdout and server.requests == []


def test_ask_json_and_markdown(server: ScriptedOpenAI, seed_settings: Settings, tmp_path: Path) -> None:
    server.set_default(lambda body: f"REVE was pretrained on over 60,000 hours of EEG data [{source_number(body, 'REVE')}].")
    out = tmp_path / "answer.md"
    result = run_cli("ask", "How much EEG data was REVE pretrained on?", "--json", "--markdown", str(out),
                     env=env_for(server, seed_settings))
    assert result.returncode == 0, result.stderr
    payload = json.loads(result.stdout)
    assert payload["answer"] == "REVE was pretrained on over 60,000 hours of EEG data [1]."
    assert payload["citations"][0]["title"] == "REVE" and not payload["abstained"]
    text = out.read_text(encoding="utf-8")
    assert text.startswith("# How much EEG data was REVE pretrained on?") and "## References" in text
    assert "1. REVE — NeurIPS 2025" in text
    assert server.requests[-1]["_headers"]["authorization"] == f"Bearer {KEY}"
    assert KEY not in result.stdout + result.stderr + text


def test_batch_ask_from_stdin(server: ScriptedOpenAI, seed_settings: Settings) -> None:
    server.set_default(prompts.REFUSAL)
    server.judgement = 0.1
    result = run_cli("ask", "-", stdin="What GPU trained POCO?\nWho wrote HEIST?\n", env=env_for(server, seed_settings))
    assert result.returncode == 0, result.stderr
    rows = [json.loads(line) for line in result.stdout.splitlines()]
    assert [r["abstained"] for r in rows] == [True, True]
    assert [r["sources"][0]["title"] for r in rows] == ["POCO", "HEIST"]


def test_a_refusal_decided_on_the_evidence_says_why(server: ScriptedOpenAI, seed_settings: Settings) -> None:
    result = run_cli("ask", "Which GPU trained POCO?", env=env_for(server, seed_settings))
    assert result.returncode == 0, result.stderr
    assert prompts.REFUSAL in result.stdout and "Closest papers:\n[1] POCO" in result.stdout
    assert "(Refused without asking the model: the abstracts found do not mention the hardware.)" in result.stdout
    assert server.requests == []


def test_summarize_and_compare_json(server: ScriptedOpenAI, seed_settings: Settings) -> None:
    server.set_default("They are pretrained on large EEG corpora [1].")
    summary = json.loads(run_cli("summarize", "EEG foundation models", "--json", env=env_for(server, seed_settings)).stdout)
    assert summary["found"] >= 3 and summary["mode"] == "summarize"
    compare = run_cli("compare", "POCO", "SPINT", "--json", env=env_for(server, seed_settings))
    payload = json.loads(compare.stdout)
    assert [p["title"] for p in payload["papers"]] == ["POCO", "SPINT"]
    assert {row["aspect"] for row in payload["table"]} >= {"problem", "approach", "data"}


def test_chat_reads_turns_from_stdin(server: ScriptedOpenAI, seed_settings: Settings) -> None:
    server.reply("HEIST is a hierarchical graph transformer foundation model for spatial transcriptomics [1].")
    server.reply("HEIST is pretrained on 22.3M cells from 124 tissues across 15 organs [1].")
    result = run_cli("chat", stdin="What is HEIST?\nhow many cells did it see?\n", env=env_for(server, seed_settings))
    assert result.returncode == 0, result.stderr
    assert "22.3M cells" in result.stdout and result.stdout.count("References:") == 2
    # "it": the paper the first answer cited, named without a rewrite by the model
    assert "Question: how many cells did HEIST see?" in server.requests[1]["messages"][-1]["content"]
    assert "read as “how many cells did HEIST see?”" in result.stdout


def test_llm_fault_prints_a_warning_and_an_extractive_answer(server: ScriptedOpenAI, seed_settings: Settings) -> None:
    server.fail("401", times=5)
    result = run_cli("ask", "What is SPINT?", env=env_for(server, seed_settings))
    assert result.returncode == 0
    assert result.stderr.strip().startswith("warning: LLM endpoint") and "(401)" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1 and KEY not in result.stderr + result.stdout
    assert "these sentences are quoted from the abstracts" in result.stdout and "[1] SPINT" in result.stdout


def test_local_model_failure_and_ambiguous_compare_are_one_line_messages(server: ScriptedOpenAI, seed_settings: Settings) -> None:
    env = {"PAPER_ASSISTANT_STORAGE": str(seed_settings.index.storage), "OPENAI_BASE_URL": "", "OPENAI_API_BASE": "",
           "PAPER_ASSISTANT_LOCAL_MODEL": "huge"}
    result = run_cli("ask", "What is SPINT?", env=env)
    assert result.returncode == 0 and "Unknown local model 'huge'" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1 and "[1] SPINT" in result.stdout
    result = run_cli("compare", "CSBrain", "EEG", env=env_for(server, seed_settings))
    assert result.returncode == 1 and "ambiguous" in result.stderr and "Traceback" not in result.stderr
    result = run_cli("compare", "CSBrain", env=env_for(server, seed_settings))
    assert result.returncode == 1 and "Name at least 2 papers" in result.stderr


@pytest.mark.parametrize("command", [["ask", "What is SPINT?"], ["ask", "What is SPINT?", "--json"],
                                     ["summarize", "EEG"], ["chat"]])
def test_a_venue_no_paper_has_is_an_error_listing_the_venues(
    server: ScriptedOpenAI, seed_settings: Settings, command: list[str]
) -> None:
    result = run_cli(*command, "--venue", "CVPR 2030", stdin="What is SPINT?\n", env=env_for(server, seed_settings))
    assert result.returncode == 1 and result.stdout == ""
    assert result.stderr == "error: No indexed paper is from venue 'CVPR 2030' (indexed venues: ICLR 2026, NeurIPS 2025).\n"
    assert not server.requests
