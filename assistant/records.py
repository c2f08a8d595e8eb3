"""How a paper is stored in Chroma: its chunk records, and reading them back.

Every chunk record carries its paper's id and venue (for filters); the first
chunk of each paper also carries the whole record (names, metadata, cleaned
and original abstract), which is what listing, BM25 and answers read back.
A hash of everything stored tells ingest whether a paper changed.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, fields
from typing import Any

from assistant.chunking import chunk_texts, chunking_id
from assistant.embedding_model import MODEL_ID
from assistant.papers import LATER_FIELDS, Paper

#: Chunk ids are '<paper_id>::<n>'.
CHUNK_SEP = "::"
#: Records per page when reading every paper back.
READ_PAGE = 5000
PAPER_FIELDS = tuple(f.name for f in fields(Paper))


def paper_hash(paper: Paper, chunk_tokens: int) -> str:
    """Changes whenever anything we store or embed for the paper changes."""
    # getattr, not asdict: asdict deep-copies, and was a quarter of a 6k re-ingest
    record = {k: v for k in PAPER_FIELDS if (v := getattr(paper, k)) or k not in LATER_FIELDS}
    payload = json.dumps([record, chunking_id(chunk_tokens), MODEL_ID], sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()[:16]


def to_metadata(paper: Paper) -> dict[str, Any]:
    """Flat Chroma metadata (no None values) for a paper's first chunk."""
    return {k: v for k, v in asdict(paper).items() if v is not None}


def from_metadata(meta: dict[str, Any]) -> Paper:
    return Paper(**{k: meta[k] for k in PAPER_FIELDS if k in meta})


def paper_of(chunk_id: str) -> str:
    """The paper id a chunk id names."""
    return chunk_id.rsplit(CHUNK_SEP, 1)[0]


def heading(paper: Paper) -> str:
    """What heads a paper's first chunk: its name, and its method name when
    the title does not already say it."""
    if paper.alias and paper.alias.casefold() not in paper.name.casefold():
        return f"{paper.alias}: {paper.name}"
    return paper.name


def chunk_records(paper: Paper, count_tokens: Any,
                  chunk_tokens: int) -> tuple[list[str], list[str], list[dict[str, Any]]]:
    """The ids, texts and metadata of a paper's chunks, ready to embed and upsert."""
    pieces = chunk_texts(heading(paper), paper.abstract, count_tokens, chunk_tokens)
    base: dict[str, Any] = {"paper_id": paper.paper_id, "venue": paper.venue,
                            "paper_hash": paper_hash(paper, chunk_tokens)}
    if paper.year is not None:
        base["year"] = paper.year
    ids = [f"{paper.paper_id}{CHUNK_SEP}{n}" for n in range(len(pieces))]
    metas = [{**base, "chunk": n, **(to_metadata(paper) if n == 0 else {})} for n in range(len(pieces))]
    return ids, pieces, metas


def read_papers(col: Any) -> list[Paper]:
    """Every paper in the collection, read from its first chunk."""
    papers: list[Paper] = []
    offset = 0
    while True:
        page = col.get(where={"chunk": 0}, include=["metadatas"], limit=READ_PAGE, offset=offset)
        papers.extend(from_metadata(m) for m in page["metadatas"])
        if len(page["ids"]) < READ_PAGE:
            return papers
        offset += READ_PAGE
