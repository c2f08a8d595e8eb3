"""The paper index: one object that the commands, the UI and the MCP server
hold, composing the parts that each do one job.

- ``store.py``: the Chroma connection, its checks and one-line errors;
- ``records.py``: how a paper is stored as chunk records and read back;
- ``dense.py``: the nearest chunks, one cosine per paper;
- ``corpus.py`` / ``corpus_cache.py``: the read-only snapshot of all papers
  with their BM25 index, persisted and keyed on the collection's state;
- ``ingest.py``: reconciling the collection with loaded papers.

A long-lived process (the UI) calls ``refresh()`` before each request: when
another process has ingested since, the snapshot and the collection handle
are replaced, without a restart.
"""

from __future__ import annotations

import logging
import threading
import time
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

from assistant import ingest_record
from assistant.corpus import Corpus
from assistant.errors import AssistantError
from assistant.ingest import IngestReport, ingest
from assistant.papers import LoadResult, Paper, expand, load_papers
from assistant.records import read_papers
from assistant.settings import Settings
from assistant.store import ChromaStore, revision_of

if TYPE_CHECKING:
    from assistant.embedding import MiniLMEmbedding

log = logging.getLogger(__name__)

__all__ = ["IngestReport", "PaperIndex", "VenueFilter", "venue_matches", "venue_text"]


class PaperIndex:
    """One collection of papers in Chroma plus the corpus snapshot derived from it."""

    def __init__(self, settings: Settings, embedder: MiniLMEmbedding | None = None) -> None:
        self.settings = settings
        self.store = ChromaStore(settings)
        self.storage = self.store.storage
        self._embedder = embedder
        self._corpus: Corpus | None = None
        self._reader: Any = None
        # One lock for the lazily built shared state, so that concurrent first
        # requests build the embedder and the snapshot once, not once each.
        self._lock = threading.RLock()

    @property
    def embedder(self) -> MiniLMEmbedding:
        if self._embedder is None:
            from assistant.embedding import MiniLMEmbedding  # here: LlamaIndex and onnxruntime take ~2 s to import

            with self._lock:
                if self._embedder is None:
                    self._embedder = MiniLMEmbedding(
                        embed_batch_size=self.settings.index.embed_batch_size, threads=self.settings.index.embed_threads
                    )
        return self._embedder

    @property
    def location(self) -> str:
        """Where the index lives, for messages."""
        return self.store.location

    @property
    def client(self) -> Any:
        return self.store.client

    def collection(self) -> Any:
        """The collection for reading; IndexMissing/IndexMismatch when unusable."""
        return self.store.collection()

    @cached_property
    def _cache_folder(self) -> Any:
        return self.storage / "cache" / "corpus"

    # -- the snapshot -------------------------------------------------------
    @property
    def corpus(self) -> Corpus:
        """Every stored paper with its BM25 index; loaded on first use from the
        cache when it holds the collection's current state, else read from
        Chroma (and cached for the next process)."""
        corpus = self._corpus
        if corpus is None:
            with self._lock:
                if self._corpus is None:
                    self._load()
                corpus = self._corpus
        assert corpus is not None
        return corpus

    def _load(self) -> None:
        from assistant import corpus_cache

        col = self.store.collection()
        state = revision_of(col.metadata or {})
        key = self._cache_key(state) if state else ""
        corpus = corpus_cache.load(self._cache_folder, key, state) if state else None
        if corpus is None:
            with self.store.guard("read"):
                papers = read_papers(col)
            corpus = Corpus.build(state, papers, self.settings.retrieval.name_weight)
            if state:
                corpus_cache.save(self._cache_folder, key, corpus)
        self._reader, self._corpus = col, corpus

    def _cache_key(self, state: str) -> str:
        from assistant import corpus_cache

        return corpus_cache.entry_key(self.location, self.settings.index.collection, state,
                                      self.settings.retrieval.name_weight)

    def refresh(self) -> bool:
        """Reload the snapshot when the collection changed since it was read
        (an ingest by any process); True when it did. Costs one metadata read."""
        if self._corpus is None:
            return False
        state = self.store.state()
        if state is None or state == self._corpus.state:  # None: an ingest is running; keep what we have
            return False
        with self._lock:
            if self._corpus is not None and state != self._corpus.state:
                log.info("the index in %s changed: reloading its papers", self.location)
                self._load()
                return True
        return False

    # -- reading ------------------------------------------------------------
    def stored_papers(self) -> list[Paper]:
        """Every paper in the collection, in the snapshot's order."""
        return list(self.corpus.papers)

    def papers(self, venue: str | None = None, year: int | None = None) -> list[Paper]:
        """The collection's papers in a stable order, optionally one venue's or one year's."""
        listed = [p for p in self.corpus.papers if venue_matches(p.venue, venue) and (year is None or p.year == year)]
        return sorted(listed, key=lambda p: (p.venue, p.name.casefold()))

    def dense(self, query_vector: list[float], n: int, where: dict[str, Any] | None) -> dict[str, float]:
        """Best cosine similarity per paper among the ``n`` nearest chunks."""
        from assistant.dense import nearest_papers

        corpus = self.corpus
        with self.store.guard("search"):
            return nearest_papers(self._reader, query_vector, min(n, len(corpus.papers)), where)

    # -- writing ------------------------------------------------------------
    def ingest_files(self, paths: list[Path], prune: bool = False, progress: bool | None = None) -> IngestReport:
        """Ingest the papers of ``paths`` (files or folders); when the last
        ingest read the same sources into this very index, report it again
        without reading anything (see ``ingest_record.py``)."""
        start = time.perf_counter()
        files = expand(paths)
        key = ingest_record.fingerprint(files, prune, self.location, self.settings)
        report = ingest_record.unchanged(self.storage, key, self._revision())
        if report is None:
            ingest_record.forget(self.storage)
            report = self.ingest(load_papers(files), prune, progress)
            ingest_record.record(self.storage, key, self._revision(), report)
        report.seconds = time.perf_counter() - start
        return report

    def _revision(self) -> str | None:
        """The collection's revision marker; None when there is no complete collection."""
        if not self.store.exists():
            return None
        try:
            return self.store.state()
        except AssistantError:
            return None

    def ingest(self, loaded: LoadResult, prune: bool = False, progress: bool | None = None) -> IngestReport:
        """Bring the collection in line with ``loaded`` (see ``ingest.py``)."""
        report = ingest(self.store, lambda: self.embedder, loaded, prune, progress, self._stored_at)
        with self._lock:
            self._corpus = self._reader = None
        return report

    def _stored_at(self, col: Any, revision: str | None) -> list[Paper]:
        """The stored papers of ``col``: from the corpus cache when it holds
        this revision (a 6k re-ingest then reads no records), else from Chroma."""
        from assistant import corpus_cache

        if revision:
            cached = corpus_cache.load(self._cache_folder, self._cache_key(revision), revision)
            if cached is not None:
                return list(cached.papers)
        return read_papers(col)


#: A venue filter: one venue, several (a question naming "ICLR 2026 and NeurIPS 2025" asks for either), or none.
VenueFilter = str | tuple[str, ...] | None


def venue_matches(venue: str, wanted: VenueFilter) -> bool:
    """Venue filter that forgives case and spacing ('neurips2025' = 'NeurIPS 2025'); several venues: any of them."""
    if not wanted:
        return True
    squash = lambda s: "".join(s.split()).casefold()
    return any(squash(w) in squash(venue) for w in ((wanted,) if isinstance(wanted, str) else wanted))


def venue_text(venue: VenueFilter, joined: str = " or ") -> str:
    """A venue filter in words: "ICLR 2026 or NeurIPS 2025"."""
    return venue if isinstance(venue, str) else joined.join(venue or ())
