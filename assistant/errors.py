"""Typed errors that the CLI and UI turn into one readable line each.

Every error carries a message written for the user: what went wrong and what
to do about it. Anything that is not one of these is a bug.
"""

from __future__ import annotations


class AssistantError(Exception):
    """Base class: ``str(err)`` is the one-line message shown to the user."""


class InputError(AssistantError):
    """A paper source cannot be read (missing path, bad format, bad record)."""


class IndexMissing(AssistantError):
    """There is no index yet, or it is empty: the user must run ``ingest``."""


class IndexMismatch(AssistantError):
    """The index was built with another embedding model or dimension."""


class ModelError(AssistantError):
    """The packaged embedding model is missing or fails its checksum."""


class StorageError(AssistantError):
    """The storage folder cannot be written (read-only, disk full, locked)."""


class ConfigError(AssistantError):
    """The configuration cannot work (no endpoint, bad value)."""


class LLMUnavailable(AssistantError):
    """The LLM endpoint failed; the answer falls back to extractive."""


class NotFound(AssistantError):
    """A paper named in a request cannot be resolved."""


class LLMBusy(LLMUnavailable):
    """The endpoint is answering others and this request waited its whole
    timeout in the queue: it works, it is only busy (the UI keeps it green)."""
