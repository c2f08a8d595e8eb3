"""The corpus snapshot: every stored paper and the BM25 index over them,
as of one state of the collection.

Retrieval, routing and exports read papers by position in this snapshot
(BM25 scores come back aligned with it). It is immutable: when the index
changes, a new snapshot replaces the old one whole, so a search that holds
one never sees half of an ingest.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

from assistant.lexical import LexicalDoc, LexicalIndex
from assistant.papers import Paper


def lexical_doc(paper: Paper) -> LexicalDoc:
    return LexicalDoc(paper.paper_id, paper.name, paper.alias, paper.title, paper.keywords, paper.abstract,
                      paper.cite_key)


@dataclass(frozen=True)
class Corpus:
    """All papers of the collection (``papers[i]`` is BM25's document ``i``),
    their lexical index, and the collection ``state`` they were read at (None
    when it had none: then it is never cached)."""

    state: str | None
    papers: tuple[Paper, ...]
    lexical: LexicalIndex

    @classmethod
    def build(cls, state: str | None, papers: list[Paper], name_weight: int) -> Corpus:
        """Index ``papers`` for BM25 (what a cache miss costs: seconds at 30k papers)."""
        return cls(state, tuple(papers), LexicalIndex([lexical_doc(p) for p in papers], name_weight))

    @cached_property
    def by_id(self) -> dict[str, Paper]:
        return {p.paper_id: p for p in self.papers}

    @cached_property
    def position(self) -> dict[str, int]:
        """Where each paper id sits in ``papers``."""
        return {p.paper_id: i for i, p in enumerate(self.papers)}
