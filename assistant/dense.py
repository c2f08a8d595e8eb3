"""Dense search: the nearest chunks in Chroma, folded to one cosine per paper."""

from __future__ import annotations

from typing import Any

from assistant.records import paper_of


def nearest_papers(col: Any, query_vector: list[float], n: int, where: dict[str, Any] | None) -> dict[str, float]:
    """Best cosine similarity per paper among the ``n`` nearest chunks.
    Only distances are fetched: chunk ids name their paper, and pulling the
    records' metadata would dominate the query time."""
    result = col.query(query_embeddings=[query_vector], n_results=n, where=where, include=["distances"])
    best: dict[str, float] = {}
    for chunk_id, dist in zip(result["ids"][0], result["distances"][0], strict=True):
        paper_id = paper_of(chunk_id)
        best[paper_id] = max(best.get(paper_id, -2.0), 1.0 - float(dist))
    return best
