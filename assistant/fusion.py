"""Weighted reciprocal rank fusion of the dense and BM25 rankings.

Ranks, not raw scores, are fused, so cosine and BM25 scales never need
calibrating against each other. This is the one fusion: the retriever and
the benchmark scripts in eval/ call it, so a figure measured there is what
search does. Its constants are settings (``PAPER_ASSISTANT_RRF_K`` …).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

import numpy as np

from assistant.settings import RetrievalSettings


@dataclass(frozen=True)
class Fusion:
    """RRF constant, per-side weights and how deep each ranking is read."""

    rrf_k: float = 5.0
    dense_weight: float = 1.0
    lexical_weight: float = 3.0
    candidates: int = 100

    @classmethod
    def from_settings(cls, settings: RetrievalSettings) -> Fusion:
        return cls(settings.rrf_k, settings.dense_weight, settings.lexical_weight, settings.retrieval_candidates)

    def fuse(self, dense: Mapping[int, float] | None, lexical: np.ndarray | None, allowed: np.ndarray,
             named: Iterable[int] = (), depth: int = 0) -> list[tuple[int, float]]:
        """Positions best first, each with its fused score scaled to 0-1 (1 =
        ranked first by every side used). ``dense`` maps positions to cosine
        (the nearest candidates), ``lexical`` holds BM25 scores of every
        position; ``None`` leaves a side out. Only ``allowed`` positions
        compete; ``named`` ones (the question states their method name) come
        first. Each side is read ``max(candidates, depth)`` deep."""
        deep = max(self.candidates, depth)
        fused: dict[int, float] = {}
        if dense is not None:
            for rank, i in enumerate(sorted(dense, key=lambda i: -dense[i])[:deep], start=1):
                fused[i] = self.dense_weight / (self.rrf_k + rank)
        if lexical is not None and len(allowed):
            top = allowed[np.argsort(-lexical[allowed], kind="stable")[:deep]]
            for rank, i in enumerate((int(i) for i in top if lexical[i] > 0), start=1):
                fused[i] = fused.get(i, 0.0) + self.lexical_weight / (self.rrf_k + rank)
        best = (self.dense_weight * (dense is not None) + self.lexical_weight * (lexical is not None)) / (self.rrf_k + 1)
        first = set(named) & set(allowed.tolist())
        for i in first:
            fused.setdefault(i, 0.0)
        order = sorted(fused, key=lambda i: (i not in first, -fused[i]))
        return [(i, min(1.0, fused[i] / best) if best else 0.0) for i in order]
