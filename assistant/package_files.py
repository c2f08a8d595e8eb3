"""Finding a data file inside an installed package without importing it.

The model packages come from anonymous publishers: importing one would run
its ``__init__.py`` before we had checked anything. Their files are found
from the installed distribution's file list (its RECORD) or, failing that,
from the import system's spec of the package, which locates it without
executing it; the caller then checks the file's sha256 before any use.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
from pathlib import Path


def package_file(distribution: str, module: str, relative: str) -> Path | None:
    """The installed ``module/relative`` of ``distribution``, or None when it is not installed."""
    wanted = f"{module}/{relative}"
    try:
        for entry in importlib.metadata.files(distribution) or []:
            if entry.as_posix() == wanted:
                located = Path(str(entry.locate()))
                if located.is_file():
                    return located
    except importlib.metadata.PackageNotFoundError:
        pass
    # A top-level name: find_spec only searches sys.path, it runs no package code.
    spec = importlib.util.find_spec(module)
    for folder in (spec.submodule_search_locations or []) if spec else []:
        candidate = Path(folder) / relative
        if candidate.is_file():
            return candidate
    return None
