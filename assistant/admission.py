"""How many requests go to an LLM endpoint at once, and who goes next.

The embedded llama.cpp server answers one request at a time; a second one
sent while it streams used to cut the first ("sent an empty answer"), and
every UI session and ``paper-assistant`` process shares it. So each request
first takes a place in one queue per endpoint, in first-come order, across
threads and processes alike: a ticket file in a queue folder (beside the
local server's record, or in the storage folder for a remote endpoint),
held locked by its owner with ``flock``. A ticket whose lock is free has lost
its owner (a crash, ``kill -9``) and is removed by whoever sees it; so is a
ticket of a request that was cancelled. A waiter learns how many are ahead
of it (the UI shows "waiting for the model (2 ahead)") and gives up with a
"busy, N ahead" line after the request timeout, never with "unavailable".
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import os
import time
from collections.abc import Iterator
from pathlib import Path
from types import TracebackType
from typing import Self

from assistant.errors import LLMBusy, StorageError

#: Requests the embedded server takes at once: llama-cpp-python's server runs
#: one, and two servers sharing 2 cores answered fewer per minute (README).
LOCAL_SLOTS = 1
#: Seconds between looks at the queue while waiting.
POLL_S = 0.2
_SUFFIX = ".ticket"


def queue_folder(storage: Path, base_url: str) -> Path:
    """The queue of a remote endpoint: one per URL, shared by every process on this storage."""
    return storage / "queues" / hashlib.sha256(base_url.encode()).hexdigest()[:16]


class Gate:
    """The queue in front of one endpoint: ``slots`` requests at once
    (0: no limit), the rest wait in order of arrival for at most ``timeout``
    seconds. ``name`` is what the busy line calls the endpoint."""

    def __init__(self, folder: Path, slots: int, timeout: float, name: str) -> None:
        self.folder = folder
        self.slots = slots
        self.timeout = timeout
        self.name = name

    def place(self) -> Place:
        """A place at the back of the queue (not yet admitted: see ``Place.wait``)."""
        return Place(self)

    @contextlib.contextmanager
    def _locked(self) -> Iterator[None]:
        """The queue folder's own lock: taking a number and reading the queue
        are atomic against every other process."""
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            fd = os.open(self.folder / "lock", os.O_RDWR | os.O_CREAT, 0o600)
        except OSError as exc:
            raise StorageError(f"Cannot write the request queue in {self.folder} ({exc.strerror or exc}): "
                               "make the storage folder writable.") from exc
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            yield
        finally:
            os.close(fd)

    def _next_number(self) -> int:
        counter = self.folder / "last"
        try:
            number = int(counter.read_text()) + 1
        except (OSError, ValueError):
            number = 1
        counter.write_text(str(number))
        return number

    def live_tickets(self) -> list[Path]:
        """The queue in order, after removing tickets whose owner is gone."""
        live = []
        for path in sorted(self.folder.glob(f"*{_SUFFIX}")):
            try:
                fd = os.open(path, os.O_RDONLY)
            except FileNotFoundError:
                continue
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                live.append(path)  # its owner holds it
            else:
                path.unlink(missing_ok=True)  # nobody holds it: its process died
            finally:
                os.close(fd)
        return live


class Place:
    """One request's place in a ``Gate``'s queue. Use it as a context manager
    (leaving frees the place, whether admitted, cancelled or failed) and
    iterate ``wait()`` until admitted."""

    def __init__(self, gate: Gate) -> None:
        self.gate = gate
        self.path: Path | None = None
        self._fd: int | None = None
        if gate.slots <= 0:
            return
        with gate._locked():
            number = gate._next_number()
            self.path = gate.folder / f"{number:012d}-{os.getpid()}{_SUFFIX}"
            self._fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
            fcntl.flock(self._fd, fcntl.LOCK_EX)  # held until we leave: the sign that we are alive

    def ahead(self) -> int:
        """How many requests came before this one and are still queued or answered."""
        if self.path is None:
            return 0
        with self.gate._locked():
            live = self.gate.live_tickets()
        return live.index(self.path) if self.path in live else 0

    def wait(self) -> Iterator[int]:
        """Yields the number ahead every ``POLL_S`` while this request must wait
        (so a caller can show it, and can stop waiting by stopping iterating);
        returns once admitted. Raises ``LLMBusy`` after the gate's timeout."""
        deadline = time.monotonic() + self.gate.timeout
        while (ahead := self.ahead()) >= self.gate.slots > 0:
            if time.monotonic() > deadline:
                raise LLMBusy(f"{self.gate.name} is busy, {ahead} ahead of this request after "
                              f"{self.gate.timeout:g} s of waiting: ask again in a minute, or raise "
                              "PAPER_ASSISTANT_REQUEST_TIMEOUT.")
            yield ahead
            time.sleep(POLL_S)

    def leave(self) -> None:
        """Free the place (idempotent)."""
        fd, path, self._fd, self.path = self._fd, self.path, None, None
        if path is not None:
            path.unlink(missing_ok=True)
        if fd is not None:
            os.close(fd)

    def __enter__(self) -> Self:
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self.leave()

    def __del__(self) -> None:  # a place abandoned without leaving (a generator never closed) must not block others
        self.leave()
