"""The corpus snapshot (papers + BM25) persisted beside the index, keyed on
the collection's state marker, so that a process starts in the same time at
30,000 papers as at 38 instead of reading every record and re-indexing.

A cache entry is a folder written whole under a temp name and renamed into
place; its key covers the collection (where, which, which revision) and the
code that builds it, so a stale entry is never read, only left behind and
pruned. Everything is JSON or plain numpy arrays (nothing pickled): a file
in the storage folder can at worst make retrieval wrong, never run code.
Any failure to read or write a cache falls back to Chroma's records, the
source of truth.
"""

from __future__ import annotations

import contextlib
import hashlib
import itertools
import json
import logging
import os
import shutil
import uuid
import zlib
from collections.abc import Sequence
from pathlib import Path
from typing import overload

import orjson

from assistant import lexical, papers
from assistant.corpus import Corpus
from assistant.lexical import LexicalIndex
from assistant.papers import Paper
from assistant.records import PAPER_FIELDS

log = logging.getLogger(__name__)

#: Bumped when the layout of an entry changes.
CACHE_FORMAT = 3


def _code_version() -> str:
    """A hash of the code that decides what a snapshot holds: tokenising and
    name keys (lexical.py) and the paper record (papers.py)."""
    digest = hashlib.sha256(str(CACHE_FORMAT).encode())
    for module in (lexical, papers):
        digest.update(Path(str(module.__file__)).read_bytes())
    return digest.hexdigest()


def entry_key(location: str, collection: str, state: str, name_weight: int) -> str:
    """The name of the cache entry for one state of one collection, indexed
    with one ``name_weight`` (the setting shapes the BM25 index)."""
    payload = json.dumps([location, collection, state, name_weight, _code_version()])
    return f"{collection}@{hashlib.sha256(payload.encode()).hexdigest()[:20]}"


class StoredPapers(Sequence[Paper]):
    """The snapshot's papers, each record decoded from its JSON line when
    first asked for: a search reads a handful, so a process at 30,000
    papers no longer parses 100 MB of records to start (about 1 s)."""

    def __init__(self, data: bytes, starts: list[int]) -> None:
        self._data, self._starts = data, starts  # row i is data[starts[i]:starts[i + 1] - 1]
        self._papers: list[Paper | None] = [None] * (len(starts) - 1)

    def __len__(self) -> int:
        return len(self._papers)

    @overload
    def __getitem__(self, i: int) -> Paper: ...
    @overload
    def __getitem__(self, i: slice) -> Sequence[Paper]: ...

    def __getitem__(self, i: int | slice) -> Paper | Sequence[Paper]:
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(len(self)))]
        paper = self._papers[i]
        if paper is None:  # two threads may both decode it: the same record either way
            row = orjson.loads(self._data[self._starts[i]: self._starts[i + 1] - 1])
            paper = self._papers[i] = Paper(**dict(zip(PAPER_FIELDS, row, strict=True)))
        return paper


def load(folder: Path, key: str, state: str) -> Corpus | None:
    """The snapshot saved under ``key``, or None when there is none (or it is unreadable)."""
    entry = folder / key
    if not entry.is_dir():
        return None
    try:
        data = (entry / "papers.jsonl").read_bytes()
        columns = orjson.loads((entry / "columns.json").read_bytes())
        # rows are decoded later, so check them now (a CRC: 0.07 s for 100 MB, half of a sha256)
        if zlib.crc32(data) != columns["crc32"] or columns["starts"][-1] != len(data) + 1:
            raise ValueError("the paper list does not match its checksum")
        index = LexicalIndex.load(entry)
        count = len(columns["starts"]) - 1
        if not len(index.paper_ids) == count == len(columns["venues"]) == len(columns["years"]):
            raise ValueError("papers, columns and BM25 index differ in length")
    except (OSError, ValueError, TypeError, KeyError) as exc:  # orjson.JSONDecodeError is a ValueError
        log.warning("Ignoring the unreadable corpus cache %s (%s); rebuilding it from the index.", entry, exc)
        return None
    return Corpus(state, StoredPapers(data, columns["starts"]), index, tuple(columns["venues"]),
                  tuple(columns["years"]))


def save(folder: Path, key: str, corpus: Corpus) -> None:
    """Write ``corpus`` under ``key`` and remove this collection's older
    entries. Best effort: a read-only or full disk only costs the next start its time."""
    tmp = folder / f".tmp-{os.getpid()}-{uuid.uuid4().hex[:8]}"
    try:
        tmp.mkdir(parents=True)
        rows = [orjson.dumps([getattr(p, f) for f in PAPER_FIELDS]) for p in corpus.papers]
        starts = [0, *itertools.accumulate(len(row) + 1 for row in rows)]  # + 1: the newline after each row
        data = b"\n".join(rows)  # orjson never writes a newline inside a row
        (tmp / "papers.jsonl").write_bytes(data)
        (tmp / "columns.json").write_bytes(orjson.dumps({"venues": corpus.venues, "years": corpus.years,
                                                         "starts": starts, "crc32": zlib.crc32(data)}))
        corpus.lexical.save(tmp)
        os.rename(tmp, folder / key)
    except OSError as exc:  # includes another process having written the same entry first
        log.debug("corpus cache not written to %s: %s", folder / key, exc)
        shutil.rmtree(tmp, ignore_errors=True)
        return
    collection = key.rsplit("@", 1)[0]
    for old in folder.iterdir():
        if old.name != key and old.name.rsplit("@", 1)[0] == collection:
            with contextlib.suppress(OSError):
                shutil.rmtree(old)
