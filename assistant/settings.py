"""The one settings object that the CLI, the UI and the library all read.

Values come, highest priority first, from CLI flags (passed as init kwargs),
environment variables (``PAPER_ASSISTANT_*``), and a ``.env`` file in the
working directory. Keeping them in one place means the CLI and the app can
never disagree about where the index lives or how deep retrieval goes.
"""

from __future__ import annotations

import os
from pathlib import Path

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict

#: Variables that stop bundled libraries from phoning home; set at start-up.
OFFLINE_ENV = {
    "ORT_DISABLE_TELEMETRY": "1",
    "HF_HUB_OFFLINE": "1",
    "GRADIO_ANALYTICS_ENABLED": "False",
    "ANONYMIZED_TELEMETRY": "False",  # chromadb's posthog client
    "TOKENIZERS_PARALLELISM": "false",
}


def set_offline_env() -> None:
    """Make every library we load behave offline (user overrides win)."""
    for key, value in OFFLINE_ENV.items():
        os.environ.setdefault(key, value)


class Settings(BaseSettings):
    """Everything a user can configure, with the defaults that work offline."""

    model_config = SettingsConfigDict(
        env_prefix="PAPER_ASSISTANT_",
        env_file=".env",
        extra="ignore",
    )

    storage: Path = Field(
        default=Path("storage"),
        description="Folder holding the persisted Chroma index and lexical index.",
    )
    collection: str = Field(
        default="papers",
        description="Chroma collection name (one collection per paper collection).",
    )
    top_k: int = Field(default=5, ge=1, le=100, description="Papers returned by search.")
    embed_batch_size: int = Field(
        default=32, ge=1, le=512, description="Chunks embedded per ONNX call."
    )
    embed_threads: int = Field(
        default=0,
        ge=0,
        description="onnxruntime intra-op threads; 0 uses every core.",
    )

    def resolved_storage(self) -> Path:
        """The storage folder as an absolute path (so messages name it clearly)."""
        return self.storage.expanduser().resolve()
