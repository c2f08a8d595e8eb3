"""The Chroma collection of paper chunks, and idempotent incremental ingest.

Chroma is the single source of truth: every chunk record carries its
paper's id and venue (for filters); the first chunk of each paper also
carries the whole record (names, metadata, cleaned and original abstract),
which is what listing, BM25 and answers read back. Ingest compares a hash of
each paper with what is stored, so a second run embeds nothing.
"""

from __future__ import annotations

import hashlib
import json
import logging
import shutil
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field, fields
from functools import cached_property
from typing import Any
from urllib.parse import urlparse

from tqdm import tqdm

from assistant.chunking import CHUNKING_ID, chunk_texts
from assistant.embedding import DIMENSION, MODEL_ID, MiniLMEmbedding
from assistant.errors import AssistantError, IndexMismatch, IndexMissing, StorageError
from assistant.lexical import LexicalDoc, LexicalIndex
from assistant.naming import assign_names
from assistant.papers import LATER_FIELDS, LoadResult, Paper, Skip, merge
from assistant.settings import Settings

log = logging.getLogger(__name__)

#: Below this much free space a failed write is reported as a full disk.
LOW_DISK_MB = 64
#: Records per Chroma write: one paper's chunks always travel in one call.
WRITE_BATCH = 256
#: Chunk ids are '<paper_id>::<n>'.
CHUNK_SEP = "::"
_PAPER_FIELDS = [f.name for f in fields(Paper)]


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


def paper_hash(paper: Paper) -> str:
    """Changes whenever anything we store or embed for the paper changes."""
    # getattr, not asdict: asdict deep-copies, and was a quarter of a 6k re-ingest
    record = {k: v for k in _PAPER_FIELDS if (v := getattr(paper, k)) or k not in LATER_FIELDS}
    payload = json.dumps([record, CHUNKING_ID, MODEL_ID], sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()[:16]


def _to_metadata(paper: Paper) -> dict[str, Any]:
    """Flat Chroma metadata (no None values) for a paper's first chunk."""
    return {k: v for k, v in asdict(paper).items() if v is not None}


def _from_metadata(meta: dict[str, Any]) -> Paper:
    return Paper(**{k: meta[k] for k in _PAPER_FIELDS if k in meta})


def lexical_doc(paper: Paper) -> LexicalDoc:
    return LexicalDoc(paper.paper_id, paper.name, paper.alias, paper.title, paper.keywords, paper.abstract,
                      paper.cite_key)


def _free_mb(storage: str) -> float | None:
    """Free space where the index lives, in MB (None when unknown)."""
    try:
        return shutil.disk_usage(storage).free / 2**20
    except OSError:
        return None


def _storage_error(storage: str, exc: Exception, action: str = "write") -> StorageError:
    """One line for a failed write: the OS's reason when we can tell it."""
    text = str(exc).lower()
    free = _free_mb(storage)
    if "readonly" in text or "read-only" in text or "permission" in text:
        hint = ("it is read-only (Chroma needs write access, even to search): make it writable, or copy it "
                "elsewhere and pass --storage DIR")
    elif any(word in text for word in ("no space", "disk is full", "disk i/o", "too large", "quota")) or (
            free is not None and free < LOW_DISK_MB):
        hint = (f"the disk is full ({free:.1f} MB free)" if free is not None else "the disk is full") + (
            ": free space and run ingest again (what was indexed before is kept)")
    elif isinstance(exc, OSError) and exc.strerror:
        hint = f"{exc.strerror.lower()}: check the path or pass --storage DIR"
    else:
        hint = f"{exc.__class__.__name__}: {str(exc)[:200]}"
    return StorageError(f"Cannot {action} the index in {storage}: {hint}.")


class PaperIndex:
    """One collection of papers in Chroma plus the lexical index derived from it."""

    def __init__(self, settings: Settings, embedder: MiniLMEmbedding | None = None) -> None:
        self.settings = settings
        self.storage = settings.resolved_storage()
        self._embedder = embedder

    # -- connection -------------------------------------------------------
    @property
    def embedder(self) -> MiniLMEmbedding:
        if self._embedder is None:
            self._embedder = MiniLMEmbedding(
                embed_batch_size=self.settings.embed_batch_size, threads=self.settings.embed_threads
            )
        return self._embedder

    @cached_property
    def client(self) -> Any:
        """The embedded PersistentClient under ``storage``, or a Chroma server's HttpClient."""
        import chromadb
        import httpx
        from chromadb.config import Settings as ChromaSettings
        from chromadb.errors import ChromaError

        chroma_settings = ChromaSettings(anonymized_telemetry=False)
        if self.settings.chroma_url:
            url = urlparse(self.settings.chroma_url)
            token = self.settings.chroma_token
            headers = {"Authorization": f"Bearer {token.get_secret_value()}"} if token else None
            try:
                return chromadb.HttpClient(host=url.hostname or "localhost", port=url.port or 8000,
                                           ssl=url.scheme == "https", headers=headers, settings=chroma_settings)
            # chromadb reports refused/DNS as ValueError, auth as ChromaError; others come from httpx or the OS
            except (ValueError, ChromaError, httpx.HTTPError, OSError) as exc:
                raise StorageError(
                    f"Cannot reach the Chroma server at {self.settings.chroma_url} ({type(exc).__name__}): start it "
                    "(`chroma run --path DIR --port PORT`) or fix CHROMA_URL."
                ) from None
        try:
            return chromadb.PersistentClient(path=str(self.storage / "chroma"), settings=chroma_settings)
        except Exception as exc:  # chromadb raises many types for a bad folder
            raise _storage_error(str(self.storage), exc) from exc

    @contextmanager
    def _guard(self, action: str) -> Iterator[None]:
        """Turn the store's failures into one line: a lost Chroma server, a
        read-only folder, a full disk. Our own errors pass through."""
        try:
            yield
        except AssistantError:
            raise
        except Exception as exc:
            if self.settings.chroma_url:
                raise StorageError(
                    f"Lost the Chroma server at {self.location} while trying to {action} ({type(exc).__name__}): "
                    "is it running? Run the command again once it is back; nothing is lost or duplicated."
                ) from None
            if type(exc).__module__.startswith("chromadb") or isinstance(exc, OSError):
                raise _storage_error(str(self.storage), exc, action) from None
            raise

    @property
    def location(self) -> str:
        """Where the index lives, for messages."""
        return self.settings.chroma_url or str(self.storage)

    def _exists(self) -> bool:
        if self.settings.chroma_url:
            return True
        return (self.storage / "chroma" / "chroma.sqlite3").exists()

    def collection(self) -> Any:
        """The collection for reading; IndexMissing/IndexMismatch when unusable."""
        if not self._exists():
            raise IndexMissing(f"No index in {self.location}: run `paper-assistant ingest` first.")
        with self._guard("read"):
            if self.settings.collection not in {c.name for c in self.client.list_collections()}:
                raise IndexMissing(
                    f"No collection '{self.settings.collection}' in {self.location}: run `paper-assistant ingest` first."
                )
            col = self.client.get_collection(self.settings.collection)
            count = col.count()
        self._check_model(col.metadata or {})
        if (col.metadata or {}).get("state") == "ingesting":
            log.warning("An ingest into %s is running or did not finish: if none is running, run "
                        "`paper-assistant ingest` again to complete it.", self.location)
        if count == 0:
            raise IndexMissing(f"The index in {self.location} is empty: run `paper-assistant ingest` first.")
        return col

    @cached_property
    def reader(self) -> Any:
        """The checked collection, kept for the many queries of one session."""
        return self.collection()

    def _check_model(self, meta: dict[str, Any]) -> None:
        if meta.get("embedding_model") != MODEL_ID or meta.get("dimension") != DIMENSION:
            raise IndexMismatch(
                f"The index in {self.location} was built with embedding model "
                f"{meta.get('embedding_model', 'unknown')} (dimension {meta.get('dimension', '?')}); this version "
                f"uses {MODEL_ID} ({DIMENSION}): run `paper-assistant ingest` to re-index."
            )

    def _collection_metadata(self, state: str) -> dict[str, Any]:
        """What the collection records about itself; ``state`` is 'ingesting'
        while an ingest runs and stays so if it was killed."""
        return {"embedding_model": MODEL_ID, "dimension": DIMENSION, "chunking": CHUNKING_ID, "state": state}

    # -- reading ----------------------------------------------------------
    def stored_papers(self, col: Any | None = None) -> list[Paper]:
        """Every paper in the collection, read from its first chunk."""
        col = col if col is not None else self.collection()
        papers: list[Paper] = []
        offset = 0
        with self._guard("read"):
            while True:
                page = col.get(where={"chunk": 0}, include=["metadatas"], limit=5000, offset=offset)
                papers.extend(_from_metadata(m) for m in page["metadatas"])
                if len(page["ids"]) < 5000:
                    return papers
                offset += 5000

    def papers(self, venue: str | None = None) -> list[Paper]:
        """The collection's papers in a stable order, optionally one venue's."""
        listed = [p for p in self.stored_papers() if venue_matches(p.venue, venue)]
        return sorted(listed, key=lambda p: (p.venue, p.name.casefold()))

    @cached_property
    def lexical(self) -> tuple[LexicalIndex, list[Paper]]:
        """BM25 over the stored papers, rebuilt from Chroma on first use."""
        papers = self.stored_papers()
        return LexicalIndex([lexical_doc(p) for p in papers]), papers

    def dense(self, query_vector: list[float], n: int, where: dict[str, Any] | None) -> dict[str, float]:
        """Best cosine similarity per paper among the ``n`` nearest chunks.
        Only distances are fetched: chunk ids name their paper, and pulling
        the records' metadata would dominate the query time."""
        col = self.reader
        n = min(n, len(self.lexical[1]))
        with self._guard("search"):
            result = col.query(query_embeddings=[query_vector], n_results=n, where=where, include=["distances"])
        best: dict[str, float] = {}
        for chunk_id, dist in zip(result["ids"][0], result["distances"][0], strict=True):
            paper_id = chunk_id.rsplit(CHUNK_SEP, 1)[0]
            best[paper_id] = max(best.get(paper_id, -2.0), 1.0 - float(dist))
        return best

    # -- writing ----------------------------------------------------------
    def ingest(self, loaded: LoadResult, prune: bool = False, progress: bool | None = None) -> IngestReport:
        """Bring the collection in line with ``loaded``: add new papers,
        re-embed changed ones, leave unchanged ones alone and, with ``prune``,
        drop papers the sources no longer hold."""
        start = time.perf_counter()
        report = IngestReport(skipped=list(loaded.skipped), merged=loaded.merged)
        with self._guard("write"):
            col, existing, rebuilt = self._open_for_ingest()
            report.rebuilt = rebuilt
            col.modify(metadata=self._collection_metadata("ingesting"))
            wanted, replaced = self._reconcile(existing, loaded.papers, prune)
            stored = {p.paper_id: p for p in existing}
            changed = [p for p in wanted if p.paper_id not in stored or paper_hash(stored[p.paper_id]) != paper_hash(p)]
            report.added = sum(1 for p in changed if p.paper_id not in stored)
            report.updated = len(changed) - report.added
            report.unchanged = len(wanted) - len(changed)
            wanted_ids = {p.paper_id for p in wanted}
            gone = [pid for pid in stored if pid not in wanted_ids]
            report.removed = len(gone) - len(replaced)
            # A rebuild's collection starts empty: every wanted paper is written
            # (the counts above still compare with what the old one held).
            self._write(col, wanted if rebuilt else changed, {} if rebuilt else stored, progress)
            if not rebuilt:
                self._delete_papers(col, gone)
            col.modify(metadata=self._collection_metadata("ready"))
            if rebuilt:
                self._swap_rebuilt(col)
            report.total = len(wanted)
        self.__dict__.pop("lexical", None)
        self.__dict__.pop("reader", None)
        report.seconds = time.perf_counter() - start
        return report

    def _check_writable(self) -> None:
        """Fail early, with the OS's reason, when the folder cannot take writes."""
        if self.settings.chroma_url:
            return
        probe = self.storage / "chroma" / ".write-test"
        try:
            probe.parent.mkdir(parents=True, exist_ok=True)
            probe.write_bytes(b"ok")
            probe.unlink()
        except OSError as exc:
            raise _storage_error(str(self.storage), exc) from None

    def _open_for_ingest(self) -> tuple[Any, list[Paper], bool]:
        """The collection to write to, its current papers, and whether it is a
        fresh rebuild (the stored one came from another embedding model)."""
        from chromadb.errors import NotFoundError

        self._check_writable()
        try:
            col = self.client.get_collection(self.settings.collection)
        except NotFoundError:
            col = None
        if col is not None:
            try:
                self._check_model(col.metadata or {})
                return col, self.stored_papers(col), False
            except IndexMismatch:
                log.warning("index built with another embedding model: rebuilding it")
                target = self._create(self.settings.collection + "-rebuild", replace=True)
                # The old records are read back so that papers from other files are carried over.
                return target, self.stored_papers(col), True
        return self._create(self.settings.collection, replace=False), [], False

    def _create(self, name: str, replace: bool) -> Any:
        from chromadb.errors import NotFoundError

        if replace:
            try:
                self.client.delete_collection(name)
            except NotFoundError:
                log.debug("no leftover collection %s to delete", name)
        return self.client.create_collection(
            name,
            configuration={"hnsw": {"space": "cosine"}},
            metadata=self._collection_metadata("ingesting"),
        )

    def _swap_rebuilt(self, rebuilt: Any) -> None:
        """Replace the old collection by the completed rebuild."""
        self.client.delete_collection(self.settings.collection)
        rebuilt.modify(name=self.settings.collection)

    def _reconcile(self, existing: list[Paper], loaded: list[Paper], prune: bool) -> tuple[list[Paper], set[str]]:
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

    def _write(self, col: Any, papers: list[Paper], stored: dict[str, Paper], progress: bool | None) -> None:
        """Embed and upsert ``papers``; drop chunks an update no longer has."""
        bar = tqdm(total=len(papers), desc="Embedding", unit="paper", disable=progress is False or not papers,
                   leave=False)
        with bar:
            for batch in _batches(papers, WRITE_BATCH // 2):
                ids, docs, metas = [], [], []
                for paper in batch:
                    pieces = chunk_texts(_heading(paper), paper.abstract, self.embedder.count_tokens)
                    base = {"paper_id": paper.paper_id, "venue": paper.venue, "paper_hash": paper_hash(paper)}
                    if paper.year is not None:
                        base["year"] = paper.year
                    for n, text in enumerate(pieces):
                        ids.append(f"{paper.paper_id}{CHUNK_SEP}{n}")
                        docs.append(text)
                        metas.append({**base, "chunk": n, **(_to_metadata(paper) if n == 0 else {})})
                vectors = self.embedder.embed(docs)
                col.upsert(ids=ids, documents=docs, metadatas=metas, embeddings=vectors)
                for paper in batch:
                    if paper.paper_id in stored:
                        count = sum(1 for i in ids if i.startswith(f"{paper.paper_id}{CHUNK_SEP}"))
                        col.delete(where={"$and": [{"paper_id": paper.paper_id}, {"chunk": {"$gte": count}}]})
                bar.update(len(batch))

    def _delete_papers(self, col: Any, paper_ids: list[str]) -> None:
        for batch in _batches(paper_ids, 500):
            col.delete(where={"paper_id": {"$in": batch}})


def _heading(paper: Paper) -> str:
    """What heads a paper's first chunk: its name, and its method name when
    the title does not already say it."""
    if paper.alias and paper.alias.casefold() not in paper.name.casefold():
        return f"{paper.alias}: {paper.name}"
    return paper.name


def _batches(items: list[Any], size: int) -> Iterator[list[Any]]:
    for start in range(0, len(items), size):
        yield items[start: start + size]


def venue_matches(venue: str, wanted: str | None) -> bool:
    """Venue filter that forgives case and spacing ('neurips2025' = 'NeurIPS 2025')."""
    if not wanted:
        return True
    squash = lambda s: "".join(s.split()).casefold()
    return squash(wanted) in squash(venue)
