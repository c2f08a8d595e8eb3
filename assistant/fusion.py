"""Fusion of the dense and BM25 sides into one ranking.

Two ways, one class (the retriever and the benchmark scripts in eval/ call
it, so a figure measured there is what search does; its constants are
settings, ``PAPER_ASSISTANT_FUSION`` …):

- ``scores`` (the default): each side's scores as a share of that side's
  best for this query, then their weighted mean. A side that barely
  separates its first papers (BM25 on a paraphrase sharing few words with
  the abstract) then barely moves the order, and the other side decides;
  rank fusion gives a rank-1 paper its full weight however thin its lead.
  On dev at 6,135 papers it lifted hit@1 from 0.785 (ranks) to 0.825 (BM25
  alone 0.776); every dense:BM25 weight from 1:3 to 3:2 scored 0.812-0.825
  (``eval/tune_fusion.py``).
- ``ranks``: weighted reciprocal rank fusion (RRF), the fusion before it,
  kept as the evaluation's baseline.

Either way a paper's fused score is in 0-1, 1 meaning first on every side used.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

import numpy as np

from assistant.settings import FusionMethod, RetrievalSettings


@dataclass(frozen=True)
class Fusion:
    """How the sides are fused, their weights, the RRF constant (``ranks``)
    and how deep each ranking is read."""

    rrf_k: float = 5.0
    dense_weight: float = 1.0
    lexical_weight: float = 1.0
    candidates: int = 100
    method: FusionMethod = "scores"
    dense_floor: float = 0.5

    @classmethod
    def from_settings(cls, settings: RetrievalSettings) -> Fusion:
        return cls(settings.rrf_k, settings.dense_weight, settings.lexical_weight, settings.retrieval_candidates,
                   settings.fusion, settings.dense_floor)

    def fuse(self, dense: Mapping[int, float] | None, lexical: np.ndarray | None, allowed: np.ndarray,
             named: Iterable[int] = (), depth: int = 0) -> list[tuple[int, float]]:
        """Positions best first, each with its fused score in 0-1. ``dense``
        maps positions to cosine (the nearest candidates), ``lexical`` holds
        BM25 scores of every position; ``None`` leaves a side out. Only
        ``allowed`` positions compete; ``named`` ones (the question states
        their method name) come first. Each side is read ``max(candidates, depth)`` deep."""
        deep = max(self.candidates, depth)
        nearest = sorted(dense, key=lambda i: -dense[i])[:deep] if dense is not None else []
        top: list[int] = []
        if lexical is not None and len(allowed):
            top = [int(i) for i in allowed[np.argsort(-lexical[allowed], kind="stable")[:deep]] if lexical[i] > 0]
        if self.method == "ranks":
            fused = self._ranks(nearest, top, dense is not None, lexical is not None)
        else:
            fused = self._scores(dense or {}, nearest, lexical, top)
        first = set(named) & set(allowed.tolist())
        for i in first:
            fused.setdefault(i, 0.0)
        order = sorted(fused, key=lambda i: (i not in first, -fused[i]))
        return [(i, min(1.0, max(0.0, fused[i]))) for i in order]  # a negative cosine's share is below 0

    def _ranks(self, nearest: list[int], top: list[int], dense_used: bool, lexical_used: bool) -> dict[int, float]:
        """Weighted RRF over both rankings, scaled by its best possible value."""
        best = (self.dense_weight * dense_used + self.lexical_weight * lexical_used) / (self.rrf_k + 1)
        if not best:
            return dict.fromkeys(nearest + top, 0.0)
        fused: dict[int, float] = {}
        for rank, i in enumerate(nearest, start=1):
            fused[i] = self.dense_weight / (self.rrf_k + rank) / best
        for rank, i in enumerate(top, start=1):
            fused[i] = fused.get(i, 0.0) + self.lexical_weight / (self.rrf_k + rank) / best
        return fused

    def _scores(self, dense: Mapping[int, float], nearest: list[int], lexical: np.ndarray | None,
                top: list[int]) -> dict[int, float]:
        """The weighted mean of each side's score over its best. The dense
        best counts as at least ``dense_floor``: when no paper is near in
        meaning (best cosine 0.17 for "which conference published
        Stretch-and-Squeeze?"), the nearest is no full match and BM25's
        exact name decides. A paper beyond the nearest dense candidates
        gets the farthest candidate's share: it is at least that far off."""
        weights = self.dense_weight * bool(nearest) + self.lexical_weight * (lexical is not None)
        if not weights:
            return dict.fromkeys(nearest + top, 0.0)
        best_cos = max(dense[nearest[0]], self.dense_floor) if nearest else 0.0
        share = {i: dense[i] / best_cos if best_cos > 0 else 0.0 for i in nearest}
        floor = min(share.values(), default=0.0)
        best_bm25 = float(lexical[top[0]]) if lexical is not None and top else 0.0
        fused = {}
        for i in dict.fromkeys(nearest + top):
            bm25 = float(lexical[i]) / best_bm25 if lexical is not None and best_bm25 > 0 else 0.0
            dense_part = self.dense_weight * share.get(i, floor) if nearest else 0.0
            fused[i] = (dense_part + self.lexical_weight * bm25) / weights
        return fused


#: The fusion search used before ``scores``: RRF, k = 5, dense:BM25 1:3 (tuned on dev); the evaluation's baseline.
RANK_FUSION_BEFORE = Fusion(rrf_k=5.0, dense_weight=1.0, lexical_weight=3.0, method="ranks")
