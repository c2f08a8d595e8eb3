"""The JSON shapes that outside tools rely on: the CLI's ``--json`` output
and the MCP server's tool results are built here and nowhere else, so the
two can never drift apart. (Answers carry their own: ``AnswerResult.to_json``.)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from assistant.papers import Paper
from assistant.references import cite_key

if TYPE_CHECKING:
    from assistant.retrieve import Hit, Scope


def search_json(query: str, hits: Sequence[Hit], scope: Scope | None = None) -> dict[str, Any]:
    """The ``search --json`` contract: ``filter`` is the venue/year taken from
    the query's words (null when none), ``searched`` the text searched (the
    query without those words, a Chinese query in English);
    ``filter_unmatched``, only when there is one, what the query named that
    no indexed paper is from."""
    return {
        "query": query,
        "searched": scope.query if scope else query,
        **(scope.extra() if scope else {"filter": None}),
        "results": [
            {"paper_id": h.paper.paper_id, "title": h.paper.name, "venue": h.paper.venue,
             "score": round(h.score, 4), "abstract": h.paper.abstract}
            for h in hits
        ],
    }


def papers_json(papers: Sequence[Paper]) -> list[dict[str, Any]]:
    """The ``papers --json`` contract: ``title`` is the paper's name."""
    return [{"paper_id": p.paper_id, "title": p.name, "venue": p.venue, "abstract": p.abstract} for p in papers]


def paper_json(paper: Paper) -> dict[str, Any]:
    """One paper in full: the ``papers --json`` fields plus its metadata and
    the key its BibTeX export uses."""
    return papers_json([paper])[0] | {
        "source_title": paper.title, "method_name": paper.alias, "authors": paper.authors, "year": paper.year,
        "keywords": paper.keywords, "url": paper.url, "doi": paper.doi, "bibtex_key": cite_key(paper),
    }
