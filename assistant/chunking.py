"""Split an abstract into sentences and into the chunks we embed.

Why this chunking (measured in eval/bench_chunking.py, figures in the README):
abstracts run 150-450 word pieces, the model truncates at 256 and costs time
linear in tokens. One chunk per paper, headed by its name, of at most
``chunk_tokens`` word pieces (a setting, default 128) gives the best top-5 and top-1 of the options
measured once fused with BM25 (which sees the whole text), at the ingest speed
the issue asks for.
"""

from __future__ import annotations

import re
from collections.abc import Callable

#: Chunks per paper; 1 means the name plus the opening of the abstract.
MAX_CHUNKS = 1

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"“(\[])|(?<=[。！？])\s*(?=\S)")
#: A period that ends an abbreviation or an initial ("e.g.", "et al.", "J."), not a sentence.
ABBREVIATION_END = re.compile(r"(?:\b(?:e\.g|i\.e|et al|etc|vs|cf|Fig|Eq|approx|resp)\.|\b[A-Z]\.)$")


def sentences(text: str) -> list[str]:
    """Sentences of an abstract, not splitting after 'e.g.', 'et al.' or initials."""
    parts: list[str] = []
    for piece in _SENTENCE_END.split(text.strip()):
        if parts and ABBREVIATION_END.search(parts[-1]):
            parts[-1] = f"{parts[-1]} {piece}"
        elif piece:
            parts.append(piece)
    return parts


def chunking_id(chunk_tokens: int) -> str:
    """The chunking as recorded on the collection: a change re-embeds every paper."""
    return f"sent-{chunk_tokens}x{MAX_CHUNKS}"


def chunk_texts(
    heading: str,
    text: str,
    count_tokens: Callable[[list[str]], list[int]],
    chunk_tokens: int,
    max_chunks: int = MAX_CHUNKS,
) -> list[str]:
    """Whole sentences packed into chunks of at most ``chunk_tokens`` word
    pieces, the first one headed by the paper's name so it carries identity."""
    sents = sentences(text)
    sizes = count_tokens([heading, *sents])
    chunks: list[str] = []
    current: list[str] = [heading] if heading else []
    used = sizes[0]
    for sent, size in zip(sents, sizes[1:], strict=True):
        if current and used + size > chunk_tokens and (len(current) > 1 or not heading):
            chunks.append(" ".join(current))
            if len(chunks) == max_chunks:
                return chunks
            current, used = [], 0
        current.append(sent)
        used += size
    if current:
        chunks.append(" ".join(current))
    return chunks[:max_chunks]
