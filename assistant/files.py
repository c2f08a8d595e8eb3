"""Writing files so that an interrupted run never leaves half of one behind,
and reading the bundled term tables."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path


def write_atomic(path: Path, text: str, mode: int = 0o644) -> None:
    """Write ``text`` to ``path`` whole or not at all: a stop signal or a
    crash mid-write leaves the old file (or none), never a truncated one.
    ``mode`` applies from creation, so a secret is never readable by others."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, mode)
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise


def read_pairs(path: Path) -> list[tuple[str, str]]:
    """The entries of a bundled table (``data/*.tsv``: one ``key<TAB>value``
    a line, ``#`` lines are comments), stripped, in file order."""
    pairs = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line and not line.startswith("#"):
            key, value = line.split("\t", 1)
            pairs.append((key.strip(), value.strip()))
    return pairs
