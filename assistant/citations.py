"""Make the answer's citations trustworthy, whatever the model wrote.

Small models state correct facts but drop or misplace their ``[n]`` markers.
So after generation each answer sentence is matched against the sentences of
every source (MiniLM cosine): a missing citation is added, one pointing at a
paper that does not support the sentence is corrected, a number that was
never given is dropped, and a sentence no source supports is marked. Then
citations are renumbered in order of first use. Invalid citations are thus
impossible by construction. A sentence carrying a number or a name found in
no source is unsupported whatever its similarity: that is how a small model
confabulates ("pretrained for 10 days").
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np

from assistant.chunking import sentences
from assistant.embedding import MiniLMEmbedding
from assistant.evidence import Evidence
from assistant.naming import is_coined

_MARKER = re.compile(r"\s*[\[【]\s*(\d+(?:\s*[,，;、]\s*\d+)*)\s*[\]】]")
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af]")
_LEADING_MARKERS = re.compile(r"^(?:\s*[\[【]\s*\d+(?:\s*[,，;、]\s*\d+)*\s*[\]】])+")
#: Sentences shorter than this (in words) carry no claim to check ("In short:").
MIN_CLAIM_WORDS = 4
Status = Literal["model", "added", "corrected", "unsupported"]


@dataclass
class SentenceSupport:
    """One answer sentence, the sources it cites, and how well they support it."""

    text: str
    cited: list[int]
    scores: dict[int, float] = field(default_factory=dict)
    quotes: dict[int, int] = field(default_factory=dict)
    status: Status = "model"

    def render(self, numbering: dict[int, int]) -> str:
        marks = "".join(f"[{numbering[n]}]" for n in self.cited)
        if not marks:
            return self.text
        stripped = self.text.rstrip()
        end = stripped[-1] if stripped and stripped[-1] in ".!?。！？" else ""
        body = stripped[: -1] if end else stripped
        return f"{body} {marks}{end}"


def split_claims(answer: str, valid: set[int]) -> list[SentenceSupport]:
    """Answer sentences with their valid citation numbers (markers removed)."""
    parts = sentences(answer.replace("\n", " \n "))
    merged: list[str] = []
    for part in parts:
        lead = _LEADING_MARKERS.match(part)
        if lead and merged:
            merged[-1] += " " + lead.group(0).strip()
            part = part[lead.end():].strip()
        if part:
            merged.append(part)
    claims = []
    for part in merged:
        cited: list[int] = []
        for match in _MARKER.finditer(part):
            for number in re.split(r"[,，;、]", match.group(1)):
                n = int(number)
                if n in valid and n not in cited:
                    cited.append(n)
        text = re.sub(r"\s+([.,;:!?。])", r"\1", _MARKER.sub("", part)).strip()
        claims.append(SentenceSupport(text=text, cited=cited))
    return claims


def _claim_size(text: str) -> int:
    """Words, counting two CJK characters as one (Chinese has no spaces)."""
    cjk = len(_CJK.findall(text))
    return len(_CJK.sub(" ", text).split()) + cjk // 2


def _mostly_cjk(text: str) -> bool:
    """MiniLM is English-only: a Chinese sentence cannot be checked against
    English abstracts, so its (valid) citations are kept unjudged."""
    return len(_CJK.findall(text)) > 0.3 * len(text.replace(" ", ""))


def _salient(text: str) -> set[str]:
    """Numbers and coined names in a text: what a model invents when it
    confabulates ('1e-5', '10 hours', 'GPT-4'), normalised for matching."""
    numbers = {n.replace(",", "") for n in re.findall(r"\d+(?:[.,]\d+)*", text)}
    names = {w.casefold() for w in re.findall(r"[A-Za-z][A-Za-z0-9]*(?:-[A-Za-z0-9]+)*", text) if is_coined(w)}
    return numbers | names


def attribute(answer: str, evidence: list[Evidence], embedder: MiniLMEmbedding, threshold: float,
              question: str = "") -> list[SentenceSupport]:
    """Check, add and correct the citations of every answer sentence. A
    sentence stating a number or a name that no source (nor the question)
    contains is unsupported, however similar it reads."""
    valid = {e.n for e in evidence}
    asked = _salient(question)
    known = {e.n: _salient(e.paper.abstract) | asked for e in evidence}
    claims = split_claims(answer, valid)
    checkable = [c for c in claims if _claim_size(c.text) >= MIN_CLAIM_WORDS and not _mostly_cjk(c.text)]
    if not checkable or not evidence:
        return claims
    vectors = embedder.embed([c.text for c in checkable])
    for claim, vector in zip(checkable, vectors, strict=True):
        for e in evidence:
            sims = e.vectors @ vector
            claim.quotes[e.n] = int(np.argmax(sims))
            claim.scores[e.n] = float(sims[claim.quotes[e.n]])
        best = max(claim.scores, key=claim.scores.__getitem__)
        supported = [n for n in claim.cited if claim.scores[n] >= threshold]
        if supported:
            claim.cited = supported
        elif claim.scores[best] >= threshold:
            claim.status = "corrected" if claim.cited else "added"
            claim.cited = [best]
        else:
            claim.status = "unsupported"
        if claim.status != "unsupported" and _salient(claim.text) - set().union(*(known[n] for n in claim.cited)):
            claim.status = "unsupported"
    return claims


def numbering(claims: list[SentenceSupport]) -> dict[int, int]:
    """Model source number -> citation number, in order of first use."""
    order: dict[int, int] = {}
    for claim in claims:
        for n in claim.cited:
            order.setdefault(n, len(order) + 1)
    return order


def support_json(claims: list[SentenceSupport], order: dict[int, int], evidence: list[Evidence]) -> list[dict[str, Any]]:
    """Per sentence: its citations, whether a source supports it, and the
    source sentence that supports it best (what the UI highlights)."""
    by_n = {e.n: e for e in evidence}
    rows = []
    for claim in claims:
        best = max(claim.scores, key=claim.scores.__getitem__) if claim.scores else None
        shown = claim.cited[0] if claim.cited and claim.scores else best
        rows.append({
            "sentence": claim.render(order),
            "citations": [order[n] for n in claim.cited],
            "supported": (claim.status != "unsupported") if claim.scores else None,
            "status": claim.status,
            "score": round(claim.scores[shown], 3) if shown is not None else None,
            "evidence": by_n[shown].sentences[claim.quotes[shown]] if shown is not None else None,
        })
    return rows
