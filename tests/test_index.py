"""Ingest into a real Chroma: idempotent, incremental, consistent on failure."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from assistant.errors import IndexMismatch, IndexMissing, InputError
from assistant.index import PaperIndex
from assistant.papers import load_papers, seed_files
from assistant.settings import Settings

from .conftest import corpus_records, write_jsonl


def records(n: int, start: int = 0) -> list[dict]:
    return list(corpus_records(start + n))[start:]


def test_seed_index_holds_38_papers_once(seed_index: PaperIndex) -> None:
    papers = seed_index.papers()
    assert len(papers) == 38 == len({p.paper_id for p in papers})
    assert len(seed_index.papers("ICLR 2026")) == 19
    assert len(seed_index.papers("neurips2025")) == 19


def test_reingest_is_idempotent(fresh_index: PaperIndex) -> None:
    first = fresh_index.ingest(load_papers(seed_files()), progress=False)
    assert (first.added, first.unchanged) == (38, 0)
    second = fresh_index.ingest(load_papers(seed_files()), progress=False)
    assert (second.added, second.updated, second.unchanged, second.removed) == (0, 0, 38, 0)
    assert fresh_index.collection().count() == first.total
    assert second.seconds < first.seconds


def test_changed_file_updates_and_prune_removes(tmp_path: Path, fresh_index: PaperIndex) -> None:
    rows = records(6)
    path = write_jsonl(tmp_path / "c.jsonl", rows)
    assert fresh_index.ingest(load_papers([path]), progress=False).added == 6
    rows[0] = {**rows[0], "title": "A corrected title"}
    rows[1] = {**rows[1], "abstract": rows[1]["abstract"] + " We also release code."}
    write_jsonl(path, rows[:5])
    report = fresh_index.ingest(load_papers([path]), progress=False)
    assert (report.added, report.updated, report.unchanged, report.removed) == (0, 2, 4, 0)  # the dropped row stays until --prune
    stored = {p.paper_id: p for p in fresh_index.papers()}
    assert stored[rows[0]["id"]].name == "A corrected title"
    assert stored[rows[1]["id"]].abstract.endswith("We also release code.")
    assert len(stored) == 6
    pruned = fresh_index.ingest(load_papers([path]), prune=True, progress=False)
    assert pruned.removed == 1 and len(fresh_index.papers()) == 5
    assert fresh_index.collection().count() == 5  # one chunk per paper, none left behind


def test_corpus_after_seeds_merges_instead_of_duplicating(tmp_path: Path, fresh_index: PaperIndex) -> None:
    from assistant.cleaning import content_key

    fresh_index.ingest(load_papers(seed_files()), progress=False)
    keys = {p.key for p in fresh_index.papers()}
    matches = [r for r in corpus_records() if content_key(r["abstract"]) in keys]
    report = fresh_index.ingest(load_papers([write_jsonl(tmp_path / "m.jsonl", matches)]), progress=False)
    papers = fresh_index.papers()
    assert len(papers) == 38 and report.added == 19 and report.removed == 0
    assert {r["id"] for r in matches} <= {p.paper_id for p in papers}
    assert fresh_index.collection().count() == 38


def test_bad_input_leaves_the_index_intact(tmp_path: Path, fresh_index: PaperIndex) -> None:
    fresh_index.ingest(load_papers(seed_files()), progress=False)
    bad = tmp_path / "bad.txt"
    bad.write_bytes(b"\x00\x01binary")
    with pytest.raises(InputError):
        fresh_index.ingest(load_papers([bad]), prune=True, progress=False)
    assert len(fresh_index.papers()) == 38


def test_missing_and_empty_index_say_run_ingest(tmp_path: Path) -> None:
    index = PaperIndex(Settings.load(storage=tmp_path / "none"))
    with pytest.raises(IndexMissing, match="paper-assistant ingest"):
        index.papers()
    assert not (tmp_path / "none").exists()


def test_rebuild_for_another_model_carries_every_stored_paper_over(tmp_path: Path, fresh_index: PaperIndex) -> None:
    extra = write_jsonl(tmp_path / "extra.jsonl", records(5))
    fresh_index.ingest(load_papers([*seed_files(), extra]), progress=False)
    col = fresh_index.collection()
    col.modify(metadata={**col.metadata, "embedding_model": "old-model", "dimension": 768})
    with pytest.raises(IndexMismatch, match="re-index"):
        PaperIndex(fresh_index.settings, fresh_index.embedder).papers()
    report = fresh_index.ingest(load_papers(seed_files()), progress=False)
    assert report.rebuilt
    assert (report.added, report.updated, report.unchanged, report.removed, report.total) == (0, 0, 43, 0, 43)
    reopened = PaperIndex(fresh_index.settings, fresh_index.embedder)
    assert {r["id"] for r in records(5)} <= {p.paper_id for p in reopened.papers()}
    assert len(reopened.papers()) == 43 == reopened.collection().count()
    assert [c.name for c in reopened.client.list_collections()] == [fresh_index.settings.index.collection]
    pruned = fresh_index.ingest(load_papers(seed_files()), prune=True, progress=False)
    assert (pruned.removed, pruned.total) == (5, 38)


def test_stored_record_keeps_original_and_clean_text(seed_index: PaperIndex) -> None:
    bigmaq = next(p for p in seed_index.papers() if p.name == "BigMaQ")
    assert "\\textbf" in bigmaq.abstract_raw and "\\textbf" not in bigmaq.abstract
    assert json.dumps(bigmaq.__dict__)  # flat, serialisable


def test_reading_the_index_and_an_unchanged_reingest_load_no_model(seed_settings: Settings, tmp_path: Path) -> None:
    """`papers` and an ingest that finds nothing new never import LlamaIndex
    or onnxruntime (about 2 s of every such process) nor load the embedder."""
    import shutil
    import subprocess
    import sys

    storage = tmp_path / "storage"
    shutil.copytree(seed_settings.index.storage, storage, ignore=shutil.ignore_patterns("models"))
    folder = str(storage)
    files = [str(p) for p in seed_files()]
    code = ("import sys; from assistant.cli import main; "
            f"rc = main({['papers', '--storage', folder]!r}) + main({['ingest', *files, '--storage', folder]!r}); "
            "print('LOADED', rc, sorted({m.split('.')[0] for m in sys.modules} & {'llama_index', 'onnxruntime'}))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         cwd=Path(__file__).resolve().parents[1]).stdout
    assert "LOADED 0 []" in out, out
    assert "unchanged" in out  # the ingest did run, and found the 38 seeds unchanged


def test_another_chunk_size_re_embeds_at_ingest_but_still_searches(fresh_index: PaperIndex) -> None:
    """``chunk_tokens`` is recorded on the collection: an index cut to another
    size is searched as it is, and the next ingest re-embeds every paper."""
    fresh_index.ingest(load_papers(seed_files()), progress=False)
    shorter = PaperIndex(fresh_index.settings.with_(chunk_tokens=64), fresh_index.embedder)
    assert len(shorter.papers()) == 38
    assert shorter.collection().metadata["chunking"] == "sent-128x1"
    report = shorter.ingest(load_papers(seed_files()), progress=False)
    assert report.rebuilt and report.total == 38
    assert shorter.collection().metadata["chunking"] == "sent-64x1"
    assert fresh_index.ingest(load_papers(seed_files()), progress=False).rebuilt  # and back to the default


def test_the_same_ingest_again_reads_nothing_until_a_source_or_the_index_changes(fresh_index: PaperIndex,
                                                                                 tmp_path: Path) -> None:
    extra = write_jsonl(tmp_path / "extra.jsonl", list(corpus_records(3)))
    first = fresh_index.ingest_files([*seed_files(), extra])
    assert (first.added, first.as_last_time) == (41, False)
    again = fresh_index.ingest_files([*seed_files(), extra])
    assert again.as_last_time and (again.unchanged, again.total, again.added) == (41, 41, 0)
    assert not fresh_index.ingest_files([*seed_files(), extra], prune=True).as_last_time  # another flag

    records = list(corpus_records(3))
    records[0]["abstract"] += " We also release a new benchmark."
    write_jsonl(extra, records)  # a source changed: a real ingest, which finds the change
    changed = fresh_index.ingest_files([*seed_files(), extra])
    assert not changed.as_last_time and changed.updated == 1

    other = PaperIndex(fresh_index.settings, fresh_index.embedder)  # another process's ingest renews the revision
    other.ingest(load_papers([write_jsonl(tmp_path / "more.jsonl", list(corpus_records(4))[3:])]))
    after = fresh_index.ingest_files([*seed_files(), extra])
    assert not after.as_last_time and after.total == 42 and len(fresh_index.papers()) == 42
