"""The corpus snapshot persisted beside the index: keyed on the collection's
state, never stale, never required (a broken cache falls back to Chroma)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from assistant import corpus_cache
from assistant.index import PaperIndex
from assistant.papers import load_papers, seed_files
from assistant.retrieve import PaperRetriever

from .conftest import corpus_records, write_jsonl


def entries(index: PaperIndex) -> list[Path]:
    folder = index.storage / "cache" / "corpus"
    return sorted(p for p in folder.iterdir() if not p.name.startswith(".")) if folder.exists() else []


def test_a_new_process_reads_the_same_corpus_from_the_cache(fresh_index: PaperIndex) -> None:
    fresh_index.ingest(load_papers(seed_files()), progress=False)
    built = fresh_index.corpus
    [entry] = entries(fresh_index)
    state = fresh_index.store.state()
    assert state is not None and built.state == state
    cached = corpus_cache.load(entry.parent, entry.name, state)
    assert cached is not None and list(cached.papers) == list(built.papers)
    assert (cached.venues, cached.years, dict(cached.by_id)) == (built.venues, built.years, dict(built.by_id))
    for query in ("What is EvoBrain?", "spiking neural networks", "CSBrain"):
        assert np.allclose(cached.lexical.scores(query), built.lexical.scores(query))
        assert cached.lexical.named(query) == built.lexical.named(query)
    again = PaperIndex(fresh_index.settings, fresh_index.embedder)
    assert [h.paper.paper_id for h in PaperRetriever(again).search("EEG foundation model")] == \
        [h.paper.paper_id for h in PaperRetriever(fresh_index).search("EEG foundation model")]


def test_an_ingest_that_changes_the_index_makes_a_new_entry(tmp_path: Path, fresh_index: PaperIndex) -> None:
    fresh_index.ingest(load_papers(seed_files()), progress=False)
    assert len(fresh_index.corpus.papers) == 38
    first = entries(fresh_index)
    fresh_index.ingest(load_papers(seed_files()), progress=False)  # nothing changed: the entry stays valid
    assert PaperIndex(fresh_index.settings, fresh_index.embedder).corpus.state == fresh_index.store.state()
    assert entries(fresh_index) == first
    extra = write_jsonl(tmp_path / "extra.jsonl", list(corpus_records(3)))
    fresh_index.ingest(load_papers([extra]), progress=False)
    reader = PaperIndex(fresh_index.settings, fresh_index.embedder)
    assert len(reader.corpus.papers) == 41
    assert len(entries(fresh_index)) == 1 and entries(fresh_index) != first  # the old entry pruned


def test_a_broken_cache_entry_falls_back_to_the_records(fresh_index: PaperIndex) -> None:
    fresh_index.ingest(load_papers(seed_files()), progress=False)
    fresh_index.corpus  # noqa: B018 - writes the cache
    [entry] = entries(fresh_index)
    lines = (entry / "papers.jsonl").read_text(encoding="utf-8").split("\n")
    lines[5] = lines[5][:40]  # one record cut short: the entry keeps its length but not its checksum
    (entry / "papers.jsonl").write_text("\n".join(lines), encoding="utf-8")
    reader = PaperIndex(fresh_index.settings, fresh_index.embedder)
    assert len(reader.corpus.papers) == 38
    assert PaperRetriever(reader).search("What is HEIST?", k=1)[0].paper.name == "HEIST"


def test_a_running_process_sees_another_process_ingest(tmp_path: Path, fresh_index: PaperIndex) -> None:
    fresh_index.ingest(load_papers(seed_files()), progress=False)
    ui = PaperIndex(fresh_index.settings, fresh_index.embedder)
    retriever = PaperRetriever(ui)
    assert len(ui.papers()) == 38 and not ui.refresh()
    rows = list(corpus_records(3))
    writer = PaperIndex(fresh_index.settings, fresh_index.embedder)
    writer.ingest(load_papers([write_jsonl(tmp_path / "new.jsonl", rows)]), progress=False)
    assert ui.refresh() and len(ui.papers()) == 41
    assert rows[0]["id"] in {h.paper.paper_id for h in retriever.search(rows[0]["title"], k=3)}
    assert not ui.refresh()


def test_another_name_weight_never_reads_the_cached_bm25(fresh_index: PaperIndex) -> None:
    """``name_weight`` shapes the BM25 index, so it is part of the entry's key."""
    fresh_index.ingest(load_papers(seed_files()), progress=False)
    default = fresh_index.corpus
    [first] = entries(fresh_index)
    light = PaperIndex(fresh_index.settings.with_(name_weight=1), fresh_index.embedder).corpus
    assert entries(fresh_index) != [first]
    assert not np.allclose(light.lexical.scores("EvoBrain"), default.lexical.scores("EvoBrain"))
