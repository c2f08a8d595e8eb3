"""The Chroma connection: client, the checked collection, its state marker,
and the store's failures as one-line errors.

Everything that talks to Chroma directly goes through ``ChromaStore.guard``,
so a read-only folder, a full disk or a lost server reads the same
everywhere, while a bug in our own code still surfaces as what it is.
"""

from __future__ import annotations

import logging
import shutil
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from functools import cached_property
from typing import Any
from urllib.parse import urlparse

from assistant.chunking import chunking_id
from assistant.embedding_model import DIMENSION, MODEL_ID
from assistant.errors import AssistantError, IndexMismatch, IndexMissing, StorageError
from assistant.settings import Settings

log = logging.getLogger(__name__)

#: Below this much free space a failed write is reported as a full disk.
LOW_DISK_MB = 64


def _free_mb(storage: str) -> float | None:
    """Free space where the index lives, in MB (None when unknown)."""
    try:
        return shutil.disk_usage(storage).free / 2**20
    except OSError:
        return None


def storage_error(storage: str, exc: Exception, action: str = "write") -> StorageError:
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


def _is_connection_failure(exc: Exception) -> bool:
    """Whether ``exc`` says the Chroma server could not be talked to, as
    opposed to a bug (a KeyError, a TypeError) that must surface as itself."""
    import httpx
    from chromadb.errors import ChromaError

    if isinstance(exc, (httpx.TransportError, ConnectionError, TimeoutError, ChromaError)):
        return True
    # chromadb's HttpClient reports a refused connection as a ValueError
    return isinstance(exc, ValueError) and "connect" in str(exc).lower()


def new_revision() -> str:
    """A fresh state marker for the collection, set whenever an ingest changes it."""
    return uuid.uuid4().hex[:16]


class ChromaStore:
    """The Chroma client (a folder or a server) and the collection's checks."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.storage = settings.index.resolved_storage()

    @property
    def location(self) -> str:
        """Where the index lives, for messages."""
        return self.settings.index.chroma_url or str(self.storage)

    @cached_property
    def client(self) -> Any:
        """The embedded PersistentClient under ``storage``, or a Chroma server's HttpClient."""
        import chromadb
        import httpx
        from chromadb.config import Settings as ChromaSettings
        from chromadb.errors import ChromaError

        chroma_settings = ChromaSettings(anonymized_telemetry=False)
        if self.settings.index.chroma_url:
            url = urlparse(self.settings.index.chroma_url)
            token = self.settings.index.chroma_token
            headers = {"Authorization": f"Bearer {token.get_secret_value()}"} if token else None
            try:
                return chromadb.HttpClient(host=url.hostname or "localhost", port=url.port or 8000,
                                           ssl=url.scheme == "https", headers=headers, settings=chroma_settings)
            # chromadb reports refused/DNS as ValueError, auth as ChromaError; others come from httpx or the OS
            except (ValueError, ChromaError, httpx.HTTPError, OSError) as exc:
                raise StorageError(
                    f"Cannot reach the Chroma server at {self.settings.index.chroma_url} ({type(exc).__name__}): "
                    "start it (`chroma run --path DIR --port PORT`) or fix CHROMA_URL."
                ) from exc
        try:
            return chromadb.PersistentClient(path=str(self.storage / "chroma"), settings=chroma_settings)
        except Exception as exc:  # chromadb raises many types for a bad folder
            raise storage_error(str(self.storage), exc) from exc

    @contextmanager
    def guard(self, action: str) -> Iterator[None]:
        """Turn the store's failures into one line: a lost Chroma server, a
        read-only folder, a full disk. Our own errors, and anything that is not
        the store's (a bug), pass through; the cause stays chained, so
        PAPER_ASSISTANT_DEBUG=1 shows it."""
        try:
            yield
        except AssistantError:
            raise
        except Exception as exc:
            if self.settings.index.chroma_url and _is_connection_failure(exc):
                raise StorageError(
                    f"Lost the Chroma server at {self.location} while trying to {action} ({type(exc).__name__}): "
                    "is it running? Run the command again once it is back; nothing is lost or duplicated."
                ) from exc
            if not self.settings.index.chroma_url and (type(exc).__module__.startswith("chromadb")
                                                 or isinstance(exc, OSError)):
                raise storage_error(str(self.storage), exc, action) from exc
            raise

    def exists(self) -> bool:
        if self.settings.index.chroma_url:
            return True
        return (self.storage / "chroma" / "chroma.sqlite3").exists()

    def collection(self) -> Any:
        """The collection for reading; IndexMissing/IndexMismatch when unusable."""
        if not self.exists():
            raise IndexMissing(f"No index in {self.location}: run `paper-assistant ingest` first.")
        with self.guard("read"):
            if self.settings.index.collection not in {c.name for c in self.client.list_collections()}:
                raise IndexMissing(
                    f"No collection '{self.settings.index.collection}' in {self.location}: "
                    "run `paper-assistant ingest` first."
                )
            col = self.client.get_collection(self.settings.index.collection)
            count = col.count()
        self.check_model(col.metadata or {})
        if (col.metadata or {}).get("state") == "ingesting":
            log.warning("An ingest into %s is running or did not finish: if none is running, run "
                        "`paper-assistant ingest` again to complete it.", self.location)
        if count == 0:
            raise IndexMissing(f"The index in {self.location} is empty: run `paper-assistant ingest` first.")
        return col

    def state(self) -> str | None:
        """The collection's state marker as stored now: its revision when it is
        complete, None while an ingest runs (or died) or before any revision
        was recorded. Cheap (no records are read), so a long-lived UI asks it
        before every question to notice an ingest by another process."""
        with self.guard("read"):
            meta = self.client.get_collection(self.settings.index.collection).metadata or {}
        return revision_of(meta)

    def check_model(self, meta: dict[str, Any]) -> None:
        if meta.get("embedding_model") != MODEL_ID or meta.get("dimension") != DIMENSION:
            raise IndexMismatch(
                f"The index in {self.location} was built with embedding model "
                f"{meta.get('embedding_model', 'unknown')} (dimension {meta.get('dimension', '?')}); this version "
                f"uses {MODEL_ID} ({DIMENSION}): run `paper-assistant ingest` to re-index."
            )

    def check_chunking(self, meta: dict[str, Any]) -> None:
        """Raise IndexMismatch when the stored chunks were cut to another
        ``chunk_tokens`` (ingest then re-embeds them; searching does not care)."""
        stored, wanted = meta.get("chunking"), chunking_id(self.settings.index.chunk_tokens)
        if stored is not None and stored != wanted:
            raise IndexMismatch(f"The index in {self.location} was chunked as {stored}; the settings ask for {wanted}.")

    def metadata(self, state: str, revision: str) -> dict[str, Any]:
        """What the collection records about itself; ``state`` is 'ingesting'
        while an ingest runs and stays so if it was killed; ``revision``
        changes with every ingest that changes a record."""
        return {"embedding_model": MODEL_ID, "dimension": DIMENSION,
                "chunking": chunking_id(self.settings.index.chunk_tokens), "state": state, "revision": revision}

    def check_writable(self) -> None:
        """Fail early, with the OS's reason, when the folder cannot take writes."""
        if self.settings.index.chroma_url:
            return
        probe = self.storage / "chroma" / ".write-test"
        try:
            probe.parent.mkdir(parents=True, exist_ok=True)
            probe.write_bytes(b"ok")
            probe.unlink()
        except OSError as exc:
            raise storage_error(str(self.storage), exc) from exc

    def create(self, name: str, replace: bool, revision: str) -> Any:
        from chromadb.errors import NotFoundError

        if replace:
            try:
                self.client.delete_collection(name)
            except NotFoundError:
                log.debug("no leftover collection %s to delete", name)
        return self.client.create_collection(
            name,
            configuration={"hnsw": {"space": "cosine"}},
            metadata=self.metadata("ingesting", revision),
        )


def revision_of(meta: dict[str, Any]) -> str | None:
    """The revision of a complete collection (see ``ChromaStore.state``)."""
    revision = meta.get("revision")
    return str(revision) if revision and meta.get("state") == "ready" else None
