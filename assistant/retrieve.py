"""Hybrid retrieval: dense (Chroma) + BM25, fused, one hit per paper.

Dense vectors find papers by meaning, BM25 by exact terms, and a question
that names a method verbatim ("What is EvoBrain?") puts that paper first.
Fusion is weighted reciprocal rank fusion: ranks, not raw scores, so the two
scales never need calibrating against each other.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
from llama_index.core.base.base_retriever import BaseRetriever
from llama_index.core.schema import NodeWithScore, QueryBundle, TextNode

from assistant.corpus import Corpus
from assistant.errors import InputError
from assistant.index import PaperIndex, venue_matches
from assistant.papers import Paper

Mode = Literal["hybrid", "dense", "lexical"]
#: Reciprocal-rank-fusion constant and per-side weights (tuned in eval/, see README).
RRF_K = 5
DENSE_WEIGHT = 1.0
LEXICAL_WEIGHT = 3.0
#: Nearest chunks asked of Chroma per query, at least.
DENSE_CANDIDATES = 100
#: How far (in fused score) the best match of a description must lead the
#: next one before we take it as the paper meant, instead of asking; a paper
#: ranked first by both retrievers (score 1) is taken regardless.
RESOLVE_MARGIN = 0.12
#: Dense cosine below which a description matches no paper at all.
RESOLVE_MIN_SIMILARITY = 0.25


@dataclass(frozen=True)
class Hit:
    """One retrieved paper: fused ``score`` in [0, 1], and the dense cosine
    ``similarity`` that absolute cut-offs (topic summaries) rely on."""

    paper: Paper
    score: float
    similarity: float
    named: bool


@dataclass(frozen=True)
class Resolution:
    """What a name or description refers to: one paper, or candidates to choose from."""

    text: str
    paper: Paper | None
    candidates: list[Paper]


def _ranks(scores: dict[int, float]) -> dict[int, int]:
    ordered = sorted(scores, key=lambda i: -scores[i])
    return {i: r for r, i in enumerate(ordered, start=1)}


class PaperRetriever(BaseRetriever):
    """A LlamaIndex retriever over a ``PaperIndex``; ``search`` is the typed API."""

    def __init__(self, index: PaperIndex, k: int = 5, venue: str | None = None, year: int | None = None,
                 mode: Mode = "hybrid", **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.index = index
        self.k = k
        self.venue = venue
        self.year = year
        self.mode = mode

    def allowed(self, venue: str | None, year: int | None, corpus: Corpus | None = None) -> list[int]:
        """Positions (in the corpus snapshot) of papers passing the filters."""
        papers = (corpus or self.index.corpus).papers
        return [i for i, p in enumerate(papers) if venue_matches(p.venue, venue) and (year is None or p.year == year)]

    def check_filters(self, venue: str | None, year: int | None = None) -> None:
        """Raise an InputError naming the indexed venues (and years) when no
        paper passes the filters: a mistyped or absent venue is the user's to
        fix, not a question that "no matching papers" answer."""
        if (not venue and year is None) or self.allowed(venue, year):
            return
        papers = self.index.corpus.papers
        wanted = " and ".join(part for part in (f"venue {venue!r}" if venue else "",
                                                 f"year {year}" if year is not None else "") if part)
        known = f"indexed venues: {', '.join(sorted({p.venue for p in papers if p.venue})) or 'none'}"
        if year is not None:
            known += f"; years: {', '.join(str(y) for y in sorted({p.year for p in papers if p.year})) or 'none'}"
        raise InputError(f"No indexed paper is from {wanted} ({known}).")

    def search(self, query: str, k: int | None = None, venue: str | None = None, year: int | None = None,
               mode: Mode | None = None) -> list[Hit]:
        """The ``k`` best papers for ``query``, best first, each paper once."""
        k = k or self.k
        venue = venue if venue is not None else self.venue
        year = year if year is not None else self.year
        mode = mode or self.mode
        corpus = self.index.corpus  # one snapshot for the whole search, even if an ingest lands meanwhile
        lexical, papers, position = corpus.lexical, corpus.papers, corpus.position
        allowed = self.allowed(venue, year, corpus)
        if not allowed or not query.strip():
            return []
        sims: dict[int, float] = {}
        if mode != "lexical":
            where = self._where({papers[i].venue for i in allowed}, year, filtered=len(allowed) < len(papers))
            vector = self.index.embedder.get_query_embedding(query)
            for pid, sim in self.index.dense(vector, max(DENSE_CANDIDATES, 10 * k), where).items():
                if pid in position:
                    sims[position[pid]] = sim
        fused: dict[int, float] = {}
        if mode != "lexical":
            for i, r in _ranks(sims).items():
                fused[i] = DENSE_WEIGHT / (RRF_K + r)
        named: set[int] = set()
        if mode != "dense":
            bm25 = lexical.scores(query)
            keep = np.asarray(allowed)
            top = keep[np.argsort(-bm25[keep])[: max(DENSE_CANDIDATES, 10 * k)]]
            for r, i in enumerate((int(i) for i in top if bm25[i] > 0), start=1):
                fused[i] = fused.get(i, 0.0) + LEXICAL_WEIGHT / (RRF_K + r)
            named = set(lexical.named(query)) & set(allowed)
        best = (DENSE_WEIGHT * (mode != "lexical") + LEXICAL_WEIGHT * (mode != "dense")) / (RRF_K + 1)
        order = sorted(fused, key=lambda i: (i not in named, -fused[i]))[:k]
        return [
            Hit(papers[i], min(1.0, fused[i] / best), sims.get(i, 0.0), i in named)
            for i in order
        ]

    def resolve(self, text: str) -> Resolution:
        """The paper meant by a name, title, id, citation key or description ("CSBrain",
        "the 4D positional encoding EEG model"); candidates when unsure."""
        corpus = self.index.corpus
        lexical, papers = corpus.lexical, corpus.papers
        wanted = text.strip().casefold()
        exact = [p for p in papers if wanted in {p.paper_id.casefold(), p.name.casefold(), p.alias.casefold(),
                                                 p.title.casefold(), p.cite_key.casefold()} - {""}]
        named = exact or [papers[i] for i in lexical.named(text)]
        if len(named) == 1:
            return Resolution(text, named[0], [])
        if named:
            return Resolution(text, None, named)
        hits = [h for h in self.search(text, k=5) if h.similarity >= RESOLVE_MIN_SIMILARITY]
        if hits and (len(hits) == 1 or hits[0].score >= 0.999 or hits[0].score - hits[1].score >= RESOLVE_MARGIN):
            return Resolution(text, hits[0].paper, [])
        return Resolution(text, None, [h.paper for h in hits])

    @staticmethod
    def _where(venues: set[str], year: int | None, filtered: bool) -> dict[str, Any] | None:
        if not filtered:
            return None
        clauses: list[dict[str, Any]] = [{"venue": {"$in": sorted(venues)}}]
        if year is not None:
            clauses.append({"year": year})
        return clauses[0] if len(clauses) == 1 else {"$and": clauses}

    def _retrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        return [to_node(hit) for hit in self.search(query_bundle.query_str)]


def to_node(hit: Hit) -> NodeWithScore:
    """A hit as a LlamaIndex node: the abstract as text, the record as metadata."""
    paper = hit.paper
    node = TextNode(
        id_=paper.paper_id,
        text=paper.abstract,
        metadata={"paper_id": paper.paper_id, "name": paper.name, "venue": paper.venue, "title": paper.title},
    )
    return NodeWithScore(node=node, score=hit.score)
