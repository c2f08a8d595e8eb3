"""The topic map against real parts: the seed index in Chroma, the real
embedding model, the command line in a child process and the scripted
OpenAI server for LLM labels and topic summaries."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from assistant import topics
from assistant.embedding import MiniLMEmbedding
from assistant.errors import IndexMissing, InputError, NotFound, StorageError
from assistant.index import PaperIndex
from assistant.papers import load_papers
from assistant.settings import Settings
from assistant.topic_labels import clean_llm_label, readable_label, stems

from .conftest import copy_storage, corpus_records, write_jsonl
from .openai_server import ScriptedOpenAI
from .test_cli import run_cli
from .test_cli_answer import env_for

SOURCE_LINE = re.compile(r"^\[(\d+)\] .* \([^()]*\): (.*)$", re.MULTILINE)


@pytest.fixture(scope="module")
def seed_map(seed_index: PaperIndex) -> topics.TopicMap:
    topic_map, error = topics.build(seed_index, progress=False)
    assert error is None
    return topic_map


@pytest.fixture
def own_seeds(tmp_path: Path, seed_settings: Settings, embedder: MiniLMEmbedding) -> PaperIndex:
    """A writable copy of the seed index (so papers can be added to it)."""
    copy_storage(seed_settings.index.storage, tmp_path / "storage")
    shutil.rmtree(tmp_path / "storage" / "topics", ignore_errors=True)
    return PaperIndex(Settings.load(storage=tmp_path / "storage"), embedder)


def cite_all(body: dict) -> str:
    """A summary citing every source it was given: its evidence quoted, each sentence cited."""
    quoted = SOURCE_LINE.findall(body["messages"][-1]["content"])
    return "\n".join(" ".join(f"{sentence.rstrip('.')} [{n}]." for sentence in re.split(r"(?<=[.!?])\s", text))
                     for n, text in quoted)


def test_seed_map_sizes_ids_and_contract(seed_map: topics.TopicMap) -> None:
    payload = seed_map.to_json()
    assert payload["built_from"]["papers"] == 38 and len(payload["built_from"]["papers_hash"]) == 16
    assert 2 <= len(payload["areas"]) <= 4
    all_topics = [t for a in payload["areas"] for t in a["topics"]]
    assert 5 <= len(all_topics) <= 10
    assert set(payload["areas"][0]) == {"area_id", "label", "keywords", "size", "topics"}
    assert set(all_topics[0]) == {"topic_id", "label", "keywords", "size", "papers", "representative"}
    papers = [pid for t in all_topics for pid in t["papers"]]
    assert len(papers) == len(set(papers)) == 38  # every paper in exactly one topic
    for area in payload["areas"]:
        assert area["size"] == sum(t["size"] for t in area["topics"])
        assert [t["topic_id"] for t in area["topics"]] == [f"{area['area_id']}.{n}"
                                                           for n in range(1, len(area["topics"]) + 1)]
        for topic in area["topics"]:
            assert 1 <= len(topic["label"].split()) <= 6 and topic["keywords"]
            assert topic["representative"] == topic["papers"][:12]
    assert [a["size"] for a in payload["areas"]] == sorted((a["size"] for a in payload["areas"]), reverse=True)
    assert set(seed_map.points) == set(papers)


def test_build_is_deterministic_and_eeg_papers_share_a_topic(seed_index: PaperIndex,
                                                             seed_map: topics.TopicMap) -> None:
    again, _ = topics.build(seed_index, progress=False)
    strip = lambda m: {**m.to_json(), "built_from": {k: v for k, v in m.built_from.items()
                                                     if k not in {"built_at", "seconds"}}}
    assert strip(again) == strip(seed_map) and again.points == seed_map.points
    names = {p.paper_id: p.name for p in seed_index.stored_papers()}
    topic_of = {names[pid]: t.topic_id for pid, (_, t) in seed_map.topic_of().items()}
    assert topic_of["CSBrain"] == topic_of["REVE"]


def test_stored_atomically_and_stale_after_an_ingest(own_seeds: PaperIndex, tmp_path: Path) -> None:
    topic_map, _ = topics.build(own_seeds, progress=False)
    path = topics.topics_path(own_seeds.storage, None)
    topics.save(topic_map, path)
    assert topics.load(path).to_json() == topic_map.to_json()
    assert [p.name for p in path.parent.iterdir()] == ["all.json"]  # no temp file left behind
    assert topics.stale_note(topics.load(path), own_seeds) is None
    extra = [{"id": r["id"], "title": r["title"], "abstract": r["abstract"], "venue": "ICLR 2026"}
             for r in corpus_records(2)]
    own_seeds.ingest(load_papers([write_jsonl(tmp_path / "more.jsonl", extra)]), progress=False)
    note = topics.stale_note(topics.load(path), own_seeds)
    assert note and "38 papers then, 40 now" in note and "paper-assistant topics build" in note


def test_a_failed_write_keeps_the_previous_map(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "topics" / "all.json"
    topics.write_atomic(path, '{"old": true}')

    def full_disk(*args: object, **kwargs: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(topics.os, "fsync", full_disk)
    with pytest.raises(StorageError, match="no space left on device"):
        topics.write_atomic(path, '{"new": true}')
    assert json.loads(path.read_text()) == {"old": True}
    assert [p.name for p in path.parent.iterdir()] == ["all.json"]


def test_one_paper_and_a_three_paper_venue(tmp_path: Path, embedder: MiniLMEmbedding) -> None:
    records = [{"id": r["id"], "title": r["title"], "abstract": r["abstract"],
                "venue": "Tiny Conf 2025" if n < 3 else "ICLR 2026", "keywords": r.get("keywords", [])}
               for n, r in enumerate(corpus_records(40))]
    index = PaperIndex(Settings.load(storage=tmp_path / "s"), embedder)
    index.ingest(load_papers([write_jsonl(tmp_path / "r.jsonl", records)]), progress=False)
    tiny, _ = topics.build(index, venue="tinyconf2025", progress=False)
    assert tiny.built_from["papers"] == 3 and tiny.built_from["venue"] == "tinyconf2025"
    assert sum(t.size for a in tiny.areas for t in a.topics) == 3 and len(tiny.areas) == 1
    assert topics.topics_path(index.storage, "Tiny Conf 2025") == topics.topics_path(index.storage, "tinyconf2025")
    with pytest.raises(InputError, match="No indexed papers from venue 'NeurIPS'; venues: ICLR 2026, Tiny Conf"):
        topics.build(index, venue="NeurIPS", progress=False)
    one = PaperIndex(Settings.load(storage=tmp_path / "one"), embedder)
    one.ingest(load_papers([write_jsonl(tmp_path / "one.jsonl", records[:1])]), progress=False)
    single, _ = topics.build(one, progress=False)
    assert [[t.papers for t in a.topics] for a in single.areas] == [[[records[0]["id"]]]]
    assert single.areas[0].topics[0].label


def test_empty_index_and_missing_map_are_one_line_errors(fresh_index: PaperIndex, tmp_path: Path) -> None:
    with pytest.raises(IndexMissing, match="run `paper-assistant ingest` first"):
        topics.build(fresh_index, progress=False)
    with pytest.raises(IndexMissing, match="run `paper-assistant topics build --venue 'X'` first"):
        topics.load(topics.topics_path(tmp_path, "X"), "X")
    broken = tmp_path / "topics" / "all.json"
    broken.parent.mkdir()
    broken.write_text('{"schema": 1, "areas": [', encoding="utf-8")
    with pytest.raises(InputError, match="cannot be read .* run `paper-assistant topics build` to rebuild"):
        topics.load(broken)


def test_unknown_topic_id_lists_the_range(seed_map: topics.TopicMap) -> None:
    with pytest.raises(NotFound, match=r"No topic '9\.9' in the map: topic ids run 1\.1 … \d\.\d+"):
        seed_map.find("9.9")


def test_label_helpers() -> None:
    assert readable_label(["graph neural networks", "molecules", "proteins"]) == "Graph neural networks, molecules"
    assert readable_label([]) == "Papers"
    keywords = ["diffusion models", "image generation", "sampling"]
    assert clean_llm_label('Label: "Diffusion Models for Image Synthesis".', keywords) == \
        "Diffusion Models for Image Synthesis"
    assert clean_llm_label("", keywords) is None
    assert clean_llm_label("A very long label that goes on and on about many things", keywords) is None
    assert clean_llm_label("Quantum chemistry of ligands", keywords) is None  # not about the keywords
    assert stems("Sampling of diffusions") == {"sampl", "diffus"}


def test_llm_labels_checked_cached_and_fallback(own_seeds: PaperIndex, server: ScriptedOpenAI) -> None:
    settings = own_seeds.settings.with_(base_url=server.base_url, model="test-model",
                                        retry_backoff=0.0, max_retries=0)
    from assistant.answer import Assistant

    assistant = Assistant(settings, index=own_seeds)
    plain, _ = topics.build(own_seeds, progress=False)

    def reply(body: dict) -> str:  # a good label for EEG topics, junk for the rest
        prompt = body["messages"][-1]["content"]
        return "EEG foundation models" if "EEG" in prompt.split("\n")[1] else "I cannot help with that request today."

    server.set_default(reply)
    labelled, error = topics.build(own_seeds, progress=False, llm=lambda: assistant.llm)
    assert error is None
    asked = len(server.requests)
    groups = len(plain.areas) + sum(len(a.topics) for a in plain.areas)
    assert 0 < asked <= groups  # one request per distinct prompt
    new = {t.topic_id: t.label for a in labelled.areas for t in a.topics}
    old = {t.topic_id: t.label for a in plain.areas for t in a.topics}
    changed = {k for k in new if new[k] != old[k]}
    assert changed and all(new[k] == "EEG foundation models" for k in changed)
    again, _ = topics.build(own_seeds, progress=False, llm=lambda: assistant.llm)
    assert len(server.requests) == asked  # cached: paid once
    assert again.to_json()["areas"] == labelled.to_json()["areas"]


def test_llm_down_keeps_keyword_labels(own_seeds: PaperIndex, server: ScriptedOpenAI) -> None:
    from assistant.answer import Assistant

    settings = own_seeds.settings.with_(base_url=server.base_url, model="test-model",
                                        retry_backoff=0.0, max_retries=0)
    server.fail("500", times=100)
    plain, _ = topics.build(own_seeds, progress=False)
    assistant = Assistant(settings, index=own_seeds)
    labelled, error = topics.build(own_seeds, progress=False, llm=lambda: assistant.llm)
    assert error and "failed with HTTP 500" in error
    assert len(server.requests) == 1  # not asked again once it failed
    assert labelled.to_json()["areas"] == plain.to_json()["areas"]


# -- the command line -----------------------------------------------------------------

def test_cli_build_map_and_show(own_seeds: PaperIndex, server: ScriptedOpenAI, tmp_path: Path) -> None:
    env = env_for(server, own_seeds.settings)
    built = run_cli("topics", "build", env=env)
    assert built.returncode == 0, built.stderr
    assert re.match(r"Built \d areas and \d+ topics from 38 papers in [\d.]+ s: .*topics/all\.json", built.stdout)
    text = run_cli("topics", env=env)
    assert text.returncode == 0 and text.stderr == "" and "38 papers: " in text.stdout
    payload = json.loads(run_cli("topics", "--json", env=env).stdout)
    assert set(payload) == {"built_from", "areas"}
    topic = max((t for a in payload["areas"] for t in a["topics"]), key=lambda t: t["size"])
    server.set_default(cite_all)
    out = tmp_path / "topic.md"
    shown = run_cli("topics", "show", topic["topic_id"], "--json", "--markdown", str(out), env=env)
    assert shown.returncode == 0, shown.stderr
    answer = json.loads(shown.stdout)
    assert answer["mode"] == "summarize" and answer["topic"]["topic_id"] == topic["topic_id"]
    assert answer["found"] == topic["size"] and answer["shown"] == min(12, topic["size"])
    assert sorted(s["paper_id"] for s in answer["sources"]) == sorted(topic["papers"][:12])
    assert len(answer["citations"]) == answer["shown"]  # every paper it covers is cited
    assert out.read_text(encoding="utf-8").startswith(f"# {topic['label']}")
    listing = run_cli("topics", "show", topic["topic_id"], env=env)
    assert f"Topic {topic['topic_id']}: {topic['label']}" in listing.stdout and "References:" in listing.stdout


def test_cli_stale_missing_and_bad_id(own_seeds: PaperIndex, server: ScriptedOpenAI, tmp_path: Path) -> None:
    env = env_for(server, own_seeds.settings)
    missing = run_cli("topics", env=env)
    assert missing.returncode == 1
    assert missing.stderr.strip().startswith("error: No topic map in ") and "topics build" in missing.stderr
    assert run_cli("topics", "build", env=env).returncode == 0
    bad = run_cli("topics", "show", "42.1", env=env)
    assert bad.returncode == 1 and len(bad.stderr.strip().splitlines()) == 1 and "Traceback" not in bad.stderr
    extra = [{"id": r["id"], "title": r["title"], "abstract": r["abstract"]} for r in corpus_records(1)]
    assert run_cli("ingest", str(write_jsonl(tmp_path / "x.jsonl", extra)), env=env).returncode == 0
    stale = run_cli("topics", env=env)
    assert stale.returncode == 0
    assert stale.stderr.strip().startswith("warning: the index changed since this topic map was built")
    assert "run `paper-assistant topics build` to rebuild it" in stale.stderr
    venue = run_cli("topics", "build", "--venue", "Nowhere 1999", env=env)
    assert venue.returncode == 1 and venue.stderr.startswith("error: No indexed papers from venue 'Nowhere 1999'")


def test_cli_llm_labels_with_the_llm_down(own_seeds: PaperIndex, server: ScriptedOpenAI) -> None:
    server.fail("500", times=100)
    env = env_for(server, own_seeds.settings) | {"PAPER_ASSISTANT_MAX_RETRIES": "0"}
    built = run_cli("topics", "build", "--llm-labels", env=env)
    assert built.returncode == 0 and built.stdout.startswith("Built ")
    warnings = [line for line in built.stderr.splitlines() if line.startswith("warning")]
    assert len(warnings) == 1 and "Keeping keyword labels" in warnings[0] and "Traceback" not in built.stderr

