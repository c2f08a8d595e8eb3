"""The corpus snapshot: every stored paper and the BM25 index over them,
as of one state of the collection.

Retrieval, routing and exports read papers by position in this snapshot
(BM25 scores come back aligned with it). It is immutable: when the index
changes, a new snapshot replaces the old one whole, so a search that holds
one never sees half of an ingest.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
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
    their lexical index, the venue and year of each (the columns filters
    read, so that a search never needs every full record), and the
    collection ``state`` they were read at (None when it had none: then it
    is never cached)."""

    state: str | None
    papers: Sequence[Paper]
    lexical: LexicalIndex
    venues: tuple[str, ...]
    years: tuple[int | None, ...]

    @classmethod
    def build(cls, state: str | None, papers: list[Paper], name_weight: int) -> Corpus:
        """Index ``papers`` for BM25 (what a cache miss costs: seconds at 30k papers)."""
        return cls(state, tuple(papers), LexicalIndex([lexical_doc(p) for p in papers], name_weight),
                   tuple(p.venue for p in papers), tuple(p.year for p in papers))

    @cached_property
    def by_id(self) -> Mapping[str, Paper]:
        """Papers by id, each record read when asked for."""
        return _ById(self.papers, self.position)

    @cached_property
    def position(self) -> dict[str, int]:
        """Where each paper id sits in ``papers``."""
        return {pid: i for i, pid in enumerate(self.lexical.paper_ids)}


class _ById(Mapping[str, Paper]):
    def __init__(self, papers: Sequence[Paper], position: dict[str, int]) -> None:
        self._papers, self._position = papers, position

    def __getitem__(self, paper_id: str) -> Paper:
        return self._papers[self._position[paper_id]]

    def __iter__(self) -> Iterator[str]:
        return iter(self._position)

    def __len__(self) -> int:
        return len(self._position)
