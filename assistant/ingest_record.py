"""The last ingest's fingerprint, so that running the same ingest again
(``make run`` does at every start) answers at once instead of reading,
naming and reconciling every paper (about 4 s a run at 6k papers).

The fingerprint holds everything the outcome depends on: each source
file's path and sha256, the ``--prune`` flag, where the collection is and
its chunk size, and the code that reads and stores papers. It is kept with
the collection's revision marker (which every ingest that changes the index
renews): another fingerprint, or any write since (another process's ingest),
means a real ingest.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
from dataclasses import asdict
from pathlib import Path

from assistant import chunking, cleaning, embedding_model, ingest, naming, papers, records
from assistant.files import write_atomic
from assistant.ingest import IngestReport
from assistant.papers import Skip
from assistant.settings import Settings

FILE = "last-ingest.json"
#: The modules whose code decides what an ingest stores.
_CODE = (papers, cleaning, naming, records, ingest, chunking, embedding_model)


def fingerprint(files: list[Path], prune: bool, location: str, settings: Settings) -> str | None:
    """What an ingest of ``files`` depends on, hashed; None when a source cannot be read."""
    index = settings.index
    digest = hashlib.sha256(json.dumps([prune, location, index.collection, index.chunk_tokens]).encode())
    try:
        for module in _CODE:
            digest.update(Path(str(module.__file__)).read_bytes())
        for path in files:
            digest.update(str(path.resolve()).encode() + b"\0")
            digest.update(hashlib.sha256(path.read_bytes()).digest())
    except OSError:  # an unreadable source: the real ingest says so in one line
        return None
    return digest.hexdigest()


def unchanged(storage: Path, key: str | None, revision: str | None) -> IngestReport | None:
    """The last ingest's report when it read the same sources into the index
    as it is now (at ``revision``); else None."""
    if key is None or revision is None:
        return None
    try:
        last = json.loads((storage / FILE).read_text(encoding="utf-8"))
        if last["key"] != key or last["revision"] != revision:
            return None
        return IngestReport(unchanged=last["total"], total=last["total"], merged=last["merged"],
                            skipped=[Skip(**s) for s in last["skipped"]], as_last_time=True)
    except (OSError, ValueError, KeyError, TypeError):
        return None


def forget(storage: Path) -> None:
    """Before a real ingest: a half-done one must not look finished."""
    with contextlib.suppress(OSError):
        (storage / FILE).unlink()


def record(storage: Path, key: str | None, revision: str | None, report: IngestReport) -> None:
    """Remember a finished ingest (best effort: without it the next one only takes longer)."""
    if key is None or revision is None:
        return
    payload = {"key": key, "revision": revision, "total": report.total, "merged": report.merged,
               "skipped": [asdict(s) for s in report.skipped]}
    with contextlib.suppress(OSError):
        storage.mkdir(parents=True, exist_ok=True)
        write_atomic(storage / FILE, json.dumps(payload))
