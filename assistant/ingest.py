"""Ingest reconciliation: bring the collection in line with loaded papers.

Compares a hash of each paper with what is stored, so a second run embeds
nothing; merges the same abstract met twice; with ``prune`` drops papers the
sources no longer hold. An index built with another embedding model is
rebuilt into a fresh collection, carrying every stored paper over, and
swapped in only when complete.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from tqdm import tqdm

from assistant.errors import IndexMismatch
from assistant.naming import assign_names
from assistant.papers import LoadResult, Paper, Skip, merge
from assistant.records import chunk_records, paper_hash, read_papers
from assistant.store import ChromaStore, new_revision, revision_of

if TYPE_CHECKING:
    from assistant.embedding import MiniLMEmbedding

log = logging.getLogger(__name__)

#: Records per Chroma write: one paper's chunks always travel in one call.
WRITE_BATCH = 256


@dataclass
class IngestReport:
    """What an ingest did, for the summary line and for tests."""

    added: int = 0
    updated: int = 0
    unchanged: int = 0
    removed: int = 0
    merged: int = 0
    skipped: list[Skip] = field(default_factory=list)
    seconds: float = 0.0
    total: int = 0
    rebuilt: bool = False
    #: Nothing was read: the sources and the index are as the last ingest left them.
    as_last_time: bool = False


@dataclass
class _Target:
    """The collection an ingest writes to and what it starts from."""

    col: Any
    existing: list[Paper]
    rebuilt: bool
    revision: str | None


def ingest(store: ChromaStore, embedder: Callable[[], MiniLMEmbedding], loaded: LoadResult, prune: bool, progress: bool | None,
           stored_at: Callable[[Any, str | None], list[Paper]]) -> IngestReport:
    """Add new papers, re-embed changed ones, leave unchanged ones alone and,
    with ``prune``, drop papers the sources no longer hold. ``stored_at(col,
    revision)`` gives the stored papers (from the corpus cache when it holds that revision);
    ``embedder()`` is called only when a paper needs embedding, so an unchanged
    re-ingest never loads the model."""
    start = time.perf_counter()
    report = IngestReport(skipped=list(loaded.skipped), merged=loaded.merged)
    with store.guard("write"):
        target = _open(store, stored_at)
        col = target.col
        report.rebuilt = target.rebuilt
        col.modify(metadata=store.metadata("ingesting", target.revision or ""))
        wanted, replaced = reconcile(target.existing, loaded.papers, prune)
        stored = {p.paper_id: p for p in target.existing}
        tokens = store.settings.index.chunk_tokens
        # an equal record is unchanged without hashing both (a third of a 6k re-ingest's reconciling)
        changed = [p for p in wanted if p.paper_id not in stored or (
            stored[p.paper_id] != p and paper_hash(stored[p.paper_id], tokens) != paper_hash(p, tokens))]
        report.added = sum(1 for p in changed if p.paper_id not in stored)
        report.updated = len(changed) - report.added
        report.unchanged = len(wanted) - len(changed)
        wanted_ids = {p.paper_id for p in wanted}
        gone = [pid for pid in stored if pid not in wanted_ids]
        report.removed = len(gone) - len(replaced)
        # A rebuild's collection starts empty: every wanted paper is written
        # (the counts above still compare with what the old one held).
        _write(col, embedder, wanted if target.rebuilt else changed, {} if target.rebuilt else stored, tokens, progress)
        if not target.rebuilt:
            _delete_papers(col, gone)
        touched = target.rebuilt or changed or gone or not target.revision
        col.modify(metadata=store.metadata("ready", new_revision() if touched else str(target.revision)))
        if target.rebuilt:
            store.client.delete_collection(store.settings.index.collection)
            col.modify(name=store.settings.index.collection)
        report.total = len(wanted)
    report.seconds = time.perf_counter() - start
    return report


def _open(store: ChromaStore, stored_at: Callable[[Any, str | None], list[Paper]]) -> _Target:
    """The collection to write to, its current papers, whether it is a fresh
    rebuild (the stored one came from another embedding model or chunking) and its revision."""
    from chromadb.errors import NotFoundError

    store.check_writable()
    name = store.settings.index.collection
    try:
        col = store.client.get_collection(name)
    except NotFoundError:
        return _Target(store.create(name, replace=False, revision=""), [], False, None)
    try:
        store.check_model(col.metadata or {})
        store.check_chunking(col.metadata or {})
    except IndexMismatch:
        log.warning("index built with another embedding model or chunking: rebuilding it")
        target = store.create(name + "-rebuild", replace=True, revision="")
        # The old records are read back so that papers from other files are carried over.
        return _Target(target, read_papers(col), True, None)
    revision = revision_of(col.metadata or {})
    return _Target(col, stored_at(col, revision), False, revision)


def reconcile(existing: list[Paper], loaded: list[Paper], prune: bool) -> tuple[list[Paper], set[str]]:
    """The collection as it should be, named as one collection: stored
    papers (unless pruned) with the loaded ones merged in. A loaded paper
    is the same as a stored one when its abstract is (merged, loaded
    fields winning unless the stored record is richer) or, when its abstract
    changed, when it has the same source id (replaced). Also returns the
    stored ids that a richer record of the same paper replaces."""
    by_key: dict[str, Paper] = {} if prune else {p.key: p for p in existing}
    key_of_id = {p.paper_id: p.key for p in existing}
    for paper in loaded:
        old_key = key_of_id.get(paper.paper_id)
        if paper.key in by_key:
            by_key[paper.key] = merge(paper, by_key[paper.key])
        elif old_key is not None and old_key != paper.key:
            by_key.pop(old_key, None)
            by_key[paper.key] = paper
        else:
            by_key[paper.key] = paper
    wanted = assign_names(list(by_key.values()))
    stored_ids = {p.key: p.paper_id for p in existing}
    replaced = {stored_ids[p.key] for p in wanted if p.key in stored_ids and stored_ids[p.key] != p.paper_id}
    return wanted, replaced


def _write(col: Any, embedder: Callable[[], MiniLMEmbedding], papers: list[Paper], stored: dict[str, Paper], chunk_tokens: int,
           progress: bool | None) -> None:
    """Embed and upsert ``papers``; drop chunks an update no longer has."""
    if not papers:
        return
    model = embedder()
    bar = tqdm(total=len(papers), desc="Embedding", unit="paper", disable=progress is False,
               leave=False)
    with bar:
        for batch in _batches(papers, WRITE_BATCH // 2):
            ids: list[str] = []
            docs: list[str] = []
            metas: list[dict[str, Any]] = []
            counts: dict[str, int] = {}
            for paper in batch:
                chunk_ids, texts, chunk_metas = chunk_records(paper, model.count_tokens, chunk_tokens)
                ids += chunk_ids
                docs += texts
                metas += chunk_metas
                counts[paper.paper_id] = len(chunk_ids)
            col.upsert(ids=ids, documents=docs, metadatas=metas, embeddings=model.embed(docs))
            for paper_id, count in counts.items():
                if paper_id in stored:
                    col.delete(where={"$and": [{"paper_id": paper_id}, {"chunk": {"$gte": count}}]})
            bar.update(len(batch))


def _delete_papers(col: Any, paper_ids: list[str]) -> None:
    for batch in _batches(paper_ids, 500):
        col.delete(where={"paper_id": {"$in": batch}})


def _batches(items: list[Any], size: int) -> Iterator[list[Any]]:
    for start in range(0, len(items), size):
        yield items[start: start + size]
