"""The command line: JSON contract, batch mode, exit codes, one-line errors."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from assistant.cli import main
from assistant.settings import Settings


def run_cli(*args: str, stdin: str | None = None, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    """The real console entry point in a child process."""
    return subprocess.run(
        [sys.executable, "-m", "assistant.cli", *args], input=stdin, check=False, capture_output=True, text=True, timeout=300,
        env={**os.environ, **(env or {})},
    )


def test_search_json_contract(seed_settings: Settings, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["search", "What is SPINT?", "--json", "--k", "3", "--storage", str(seed_settings.index.storage)]) == 0
    payload = json.loads(capsys.readouterr().out)
    assert payload["query"] == "What is SPINT?"
    assert len(payload["results"]) == 3
    assert set(payload["results"][0]) == {"paper_id", "title", "venue", "score", "abstract"}
    assert payload["results"][0]["title"] == "SPINT" and payload["results"][0]["venue"] == "NeurIPS 2025"
    assert 0 < payload["results"][0]["score"] <= 1
    assert main(["search", "What is SPINT?", "--json", "-k", "2", "--storage", str(seed_settings.index.storage)]) == 0
    assert len(json.loads(capsys.readouterr().out)["results"]) == 2  # -k, as users type it, is --k


def test_papers_json_contract_and_venue_filter(seed_settings: Settings, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["papers", "--json", "--venue", "ICLR 2026", "--storage", str(seed_settings.index.storage)]) == 0
    papers = json.loads(capsys.readouterr().out)
    assert len(papers) == 19 and {p["venue"] for p in papers} == {"ICLR 2026"}
    assert set(papers[0]) == {"paper_id", "title", "venue", "abstract"}
    assert main(["papers", "--storage", str(seed_settings.index.storage)]) == 0
    text = capsys.readouterr().out
    assert "CSBrain" in text and text.rstrip().endswith("38 papers.")
    assert main(["papers", "--json", "--year", "2025", "--storage", str(seed_settings.index.storage)]) == 0
    assert {p["venue"] for p in json.loads(capsys.readouterr().out)} == {"NeurIPS 2025"}  # one year's papers
    assert main(["papers", "--year", "2024", "--storage", str(seed_settings.index.storage)]) == 0
    assert capsys.readouterr().out.strip() == "No papers from year 2024."


def test_batch_search_from_stdin(seed_settings: Settings) -> None:
    result = run_cli("search", "-", "--k", "2", "--storage", str(seed_settings.index.storage),
                     stdin="What is REVE?\n\nWhat is HEIST?\n")
    assert result.returncode == 0, result.stderr
    lines = [json.loads(line) for line in result.stdout.splitlines()]
    assert [line["results"][0]["title"] for line in lines] == ["REVE", "HEIST"]


def test_ingest_prints_counts_and_is_idempotent(tmp_path: Path) -> None:
    storage = str(tmp_path / "s")
    first = run_cli("ingest", "--storage", storage)
    assert first.returncode == 0, first.stderr
    assert "38 added" in first.stdout
    second = run_cli("ingest", "--storage", storage)
    assert "0 added, 0 updated, 38 unchanged" in second.stdout


def test_storage_from_environment(seed_settings: Settings) -> None:
    result = run_cli("papers", "--json", env={"PAPER_ASSISTANT_STORAGE": str(seed_settings.index.storage)})
    assert result.returncode == 0 and len(json.loads(result.stdout)) == 38


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["search", "EEG"], "run `paper-assistant ingest` first"),
        (["papers"], "run `paper-assistant ingest` first"),
        (["ingest", "/no/such/file.jsonl"], "No such file or folder"),
    ],
)
def test_errors_are_one_line_without_traceback(tmp_path: Path, args: list[str], message: str) -> None:
    result = run_cli(*args, "--storage", str(tmp_path / "empty"))
    assert result.returncode == 1
    assert message in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1 and "Traceback" not in result.stderr


@pytest.mark.parametrize(
    ("args", "env", "message"),
    [
        (["search", "x", "--k", "0"], {}, "--k must be a whole number from 1 to 100 (got 0)."),
        (["search", "x", "--k", "101"], {}, "--k must be a whole number from 1 to 100 (got 101)."),
        (["search", "x"], {"PAPER_ASSISTANT_TOP_K": "many"},
         "PAPER_ASSISTANT_TOP_K must be a whole number from 1 to 100 (got 'many')."),
        (["llm", "status", "--port", "0"], {}, "--port must be a whole number from 1 to 65535 (got 0)."),
        (["papers"], {"PAPER_ASSISTANT_REQUEST_TIMEOUT": "0", "PAPER_ASSISTANT_CONTEXT_WINDOW": "100"},
         ("PAPER_ASSISTANT_REQUEST_TIMEOUT must be a number greater than 0 (got '0'); "
          "PAPER_ASSISTANT_CONTEXT_WINDOW must be a whole number of at least 512 (got '100').")),
    ],
)
def test_a_bad_setting_is_one_line_naming_its_flag_or_variable(
    tmp_path: Path, args: list[str], env: dict[str, str], message: str
) -> None:
    result = run_cli(*args, "--storage", str(tmp_path / "empty"), env=env)
    assert result.returncode == 1 and result.stdout == ""
    assert result.stderr == f"error: {message}\n"


def test_unknown_venue_and_empty_query(seed_settings: Settings) -> None:
    result = run_cli("search", "EEG", "--venue", "CVPR 1999", "--storage", str(seed_settings.index.storage))
    assert result.returncode == 1
    assert result.stderr == "error: No indexed paper is from venue 'CVPR 1999' (indexed venues: ICLR 2026, NeurIPS 2025).\n"
    result = run_cli("search", "  ", "--storage", str(seed_settings.index.storage))
    assert result.returncode == 1 and "query is empty" in result.stderr
