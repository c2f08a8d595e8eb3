"""Reliability: a real Chroma server, many concurrent users, kill -9 during
ingest, read-only and full disks, ingest while users query."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from assistant.answer import Assistant, Final
from assistant.index import PaperIndex
from assistant.papers import load_papers, seed_files
from assistant.retrieve import PaperRetriever
from assistant.settings import Settings

from .conftest import corpus_records, write_jsonl
from .openai_server import ScriptedOpenAI
from .test_cli import run_cli

CHROMA = Path(sys.executable).parent / "chroma"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def start_chroma(path: Path, port: int) -> subprocess.Popen[bytes]:
    """`chroma run` from the chromadb package, waited for until it answers."""
    process = subprocess.Popen([str(CHROMA), "run", "--path", str(path), "--port", str(port)],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        with socket.socket() as sock:
            if sock.connect_ex(("127.0.0.1", port)) == 0:
                return process
        time.sleep(0.2)
    process.kill()
    raise RuntimeError("chroma run did not start")


def stop(process: subprocess.Popen[bytes]) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGKILL)
    process.wait(timeout=10)


@pytest.fixture(scope="module")
def chroma_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    port = free_port()
    process = start_chroma(tmp_path_factory.mktemp("chroma-server"), port)
    yield f"http://127.0.0.1:{port}"
    stop(process)


def test_chroma_server_serves_two_app_instances_alike(chroma_server: str, tmp_path: Path, embedder,
                                                       server: ScriptedOpenAI) -> None:
    """Two instances with their own storage folders but one Chroma server:
    BM25 is rebuilt from the server's records, so they rank identically."""
    first = PaperIndex(Settings.load(storage=tmp_path / "a", chroma_url=chroma_server), embedder)
    report = first.ingest(load_papers(seed_files()), progress=False)
    assert report.added == 38 and not (tmp_path / "a" / "chroma").exists()
    second = PaperIndex(Settings.load(storage=tmp_path / "b", chroma_url=chroma_server), embedder)
    for query in ("What is EvoBrain?", "masked autoencoding pretraining", "fairness under differential privacy"):
        a = [h.paper.paper_id for h in PaperRetriever(first).search(query)]
        b = [h.paper.paper_id for h in PaperRetriever(second).search(query)]
        assert a == b
    settings = Settings.load(storage=tmp_path / "b", chroma_url=chroma_server, base_url=server.base_url, model="m")
    server.reply("EvoBrain integrates a two-stream Mamba architecture with a GCN [1].")
    result = [e for e in Assistant(settings, index=second).ask("What is EvoBrain?")][-1].result
    assert result.citations[0]["title"] == "EvoBrain"
    again = first.ingest(load_papers(seed_files()), progress=False)
    assert (again.added, again.unchanged) == (0, 38)


def test_chroma_server_down_is_one_clear_line(tmp_path: Path) -> None:
    port = free_port()
    process = start_chroma(tmp_path / "srv", port)
    url = f"http://127.0.0.1:{port}"
    assert run_cli("ingest", "--chroma-url", url, "--storage", str(tmp_path / "s")).returncode == 0
    stop(process)
    for args in (["search", "EEG"], ["ingest"], ["papers"]):
        result = run_cli(*args, "--chroma-url", url, "--storage", str(tmp_path / "s"))
        assert result.returncode == 1 and "Traceback" not in result.stderr
        assert "Chroma server" in result.stderr and url in result.stderr
        assert len(result.stderr.strip().splitlines()) == 1


def test_kill_9_during_ingest_then_ingest_again(tmp_path: Path) -> None:
    source = write_jsonl(tmp_path / "c.jsonl", list(corpus_records(1200)))
    storage = tmp_path / "s"
    cmd = [sys.executable, "-m", "assistant.cli", "ingest", str(source), "--storage", str(storage)]
    process = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(6.0)  # loading and model start (~3 s), then part of ~13 s of embedding
    process.send_signal(signal.SIGKILL)
    process.wait()
    assert process.returncode == -signal.SIGKILL
    result = subprocess.run(cmd, check=False, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    line = result.stdout.strip().splitlines()[-1]
    added = int(line.split(": ")[1].split(" added")[0])
    unchanged = int(line.split("updated, ")[1].split(" unchanged")[0])
    assert added + unchanged == 1200 and "Indexed 1200 papers" in line
    index = PaperIndex(Settings.load(storage=storage))
    assert index.collection().count() == 1200 == len({p.paper_id for p in index.papers()})
    assert PaperRetriever(index).search("What is EvoBrain?", k=1) is not None


@contextlib.contextmanager
def mounted(kind: str, target: Path, source: Path | None = None) -> Iterator[None]:
    """A tmpfs of a given size or a read-only bind mount (root only)."""
    target.mkdir(parents=True, exist_ok=True)
    if kind.startswith("tmpfs:"):
        cmds = [["mount", "-t", "tmpfs", "-o", f"size={kind.split(':')[1]}", "tmpfs", str(target)]]
    else:
        cmds = [["mount", "--bind", str(source), str(target)], ["mount", "-o", "remount,bind,ro", str(target)]]
    for cmd in cmds:
        if subprocess.run(cmd, check=False, capture_output=True).returncode != 0:
            subprocess.run(["umount", str(target)], check=False, capture_output=True)
            pytest.skip(f"cannot {' '.join(cmd)} here (needs root)")
    try:
        yield
    finally:
        subprocess.run(["umount", "-l", str(target)], check=False, capture_output=True)


def test_read_only_storage_is_a_clear_error_and_loses_nothing(tmp_path: Path) -> None:
    source = tmp_path / "index"
    assert run_cli("ingest", "--storage", str(source)).returncode == 0
    with mounted("ro", tmp_path / "ro", source):
        for args in (["ingest"], ["search", "EEG"]):
            result = run_cli(*args, "--storage", str(tmp_path / "ro"))
            assert result.returncode == 1 and "read-only" in result.stderr and "Traceback" not in result.stderr
    result = run_cli("papers", "--json", "--storage", str(source))
    assert result.returncode == 0 and result.stdout.count('"paper_id"') == 38


def test_full_disk_keeps_what_was_indexed(tmp_path: Path) -> None:
    target = tmp_path / "small"
    with mounted("tmpfs:3m", target):
        storage = target / "s"
        assert run_cli("ingest", "--storage", str(storage)).returncode == 0
        big = write_jsonl(tmp_path / "big.jsonl", list(corpus_records(300)))
        result = run_cli("ingest", str(big), "--storage", str(storage))
        assert result.returncode == 1 and "the disk is full" in result.stderr
        assert len(result.stderr.strip().splitlines()[-1:]) == 1 and "Traceback" not in result.stderr
        subprocess.run(["mount", "-o", "remount,size=64m", str(target)], check=True)
        result = run_cli("ingest", str(big), "--storage", str(storage))
        assert result.returncode == 0, result.stderr
        papers = PaperIndex(Settings.load(storage=storage)).papers()
        assert len(papers) == 338 and {"SPINT", "REVE"} <= {p.name for p in papers}


def test_twenty_concurrent_chat_sessions_stay_apart(answer_settings: Settings, seed_index: PaperIndex,
                                                    server: ScriptedOpenAI) -> None:
    """20 users, two turns each, at once: no errors, and no answer or memory
    crosses sessions (each reply echoes the paper its own prompt was about)."""
    names = sorted(p.name for p in seed_index.papers() if p.alias)[:20]

    def reply(body: dict) -> str:
        prompt = body["messages"][-1]["content"]
        if "Rewrite the follow-up" in prompt:
            asked = prompt.split("User: ")[1].split("\n")[0]
            return f"{asked} What data did it use?"
        question = prompt.split("Question: ")[1].split("\n")[0]
        return f"You asked: {question} [1]."

    server.set_default(reply)
    # 20 threads and the scripted server share one interpreter: a reply can take longer than the suite's 2 s
    assistant = Assistant(answer_settings.with_(request_timeout=20.0), index=seed_index)

    def session(name: str) -> tuple[str, list[str], float]:
        conversation = assistant.conversation()
        start = time.perf_counter()
        answers = []
        for message in (f"What is {name}?", "what about the data?"):  # rewritten by the model from the history
            result = next(e.result for e in conversation.send(message) if isinstance(e, Final))
            assert not result.error, result.error
            answers.append(result.query)
        return name, answers, time.perf_counter() - start

    with ThreadPoolExecutor(max_workers=20) as pool:
        results = list(pool.map(session, names, timeout=120))
    for name, (first, follow_up), _ in results:
        assert first == f"What is {name}?"
        assert follow_up.startswith(f"What is {name}?")  # its own history, nobody else's
    latencies = sorted(r[2] for r in results)
    print(f"\n20 sessions x 2 turns: p50 {statistics.median(latencies):.2f} s, p95 {latencies[-1]:.2f} s")


def test_ingest_while_users_query(tmp_path: Path, embedder) -> None:
    settings = Settings.load(storage=tmp_path / "s")
    PaperIndex(settings, embedder).ingest(load_papers(seed_files()), progress=False)
    errors: list[BaseException] = []
    done = threading.Event()

    def query() -> None:
        reader = PaperRetriever(PaperIndex(settings, embedder))
        while not done.is_set():
            try:
                assert reader.search("What is HEIST?", k=1)[0].paper.name == "HEIST"
            except BaseException as exc:  # noqa: BLE001 - any failure of a reader is the finding
                errors.append(exc)
                return

    source = write_jsonl(tmp_path / "c.jsonl", list(corpus_records(200)))  # may skip: before any reader starts
    readers = [threading.Thread(target=query, daemon=True) for _ in range(3)]
    for thread in readers:
        thread.start()
    try:
        result = run_cli("ingest", str(source), "--storage", str(settings.index.storage))
    finally:  # the readers stop whatever happened, or pytest waits for them forever at exit
        done.set()
        for thread in readers:
            thread.join(timeout=30)
    assert result.returncode == 0, result.stderr
    assert errors == []
    assert len(PaperIndex(settings, embedder).papers()) == 238
