"""Pick the few sentences of each abstract that matter for a question.

A 1.5B model on two CPU cores reads about 130 prompt tokens a second, so
pasting whole abstracts would cost ten seconds before the first word. We
quote only the sentences closest to the question (MiniLM cosine), within a
token budget; the same sentence vectors later check which source supports
each sentence of the answer.
"""

from __future__ import annotations

import re
import threading
from collections import OrderedDict
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from assistant.chunking import sentences
from assistant.lexical import tokenize
from assistant.papers import Paper
from assistant.retrieve import Hit
from assistant.settings import AnswerSettings

if TYPE_CHECKING:
    from assistant.embedding import MiniLMEmbedding

#: Papers whose sentence vectors are kept in memory (a few MB).
CACHE_PAPERS = 2048
_QUANTITY = re.compile(r"\b(?:how (?:many|much|large|big|long|fast|well|accurate)|number of|percent(?:age)?|"
                       r"accuracy|rate|score|size|by how|what fraction|多少|几)", re.IGNORECASE)
_DIGIT = re.compile(r"\d")
#: A sentence that points to code, data or a project page ("Code is available at https://…"). It says
#: nothing of the work, yet a question naming the paper matched its link (github.com/camlab-ethz/rigno),
#: and it was quoted as the answer's source.
_LINK = re.compile(r"https?://|\bgithub\b|\bwww\.|\b4open\.science\b|\b[\w-]+\.(?:github\.io|com|org|io)/"
                   r"|^\W*(?:all\s+(?:of\s+)?|the\s+|our\s+)?(?:source\s+)?(?:code|codes|models?|project page)\b"
                   r"[^.]{0,80}\b(?:available|released?|open-?sourced)\b", re.IGNORECASE)
def points_to_code(sentence: str) -> bool:
    """Whether a sentence only points to code, data or a project page (see ``_LINK``)."""
    return bool(_LINK.search(sentence))


#: A question about a paper's code, released data or links, which such a sentence answers.
_ASKS_LINK = re.compile(r"\b(?:code|codes|github|repo|repository|open[- ]?sourced?|links?|url|website|"
                        r"project page|download|released?|weights)\b", re.IGNORECASE)
#: Taken from a link sentence's relevance when the question does not ask for links: below every other
#: sentence (cosine ≤ 1 plus the bonuses), so it is never quoted as the answer and is the first left
#: out of a prompt over budget. A whole abstract that fits keeps it: taking it out of the prompt
#: changed the 1.5B model's replies to 5 of 53 dev questions, 3 for the worse.
_UNASKED_LINK = 10.0


@dataclass
class Evidence:
    """One source as the model sees it: the paper, its sentences and
    their vectors, and which sentences are quoted."""

    n: int
    hit: Hit
    sentences: list[str]
    vectors: np.ndarray
    chosen: list[int]
    relevance: np.ndarray
    tokens: list[int]

    def best_sentences(self) -> list[tuple[float, int]]:
        """The quoted sentences' relevance to the question and their index, best first."""
        return sorted(((float(self.relevance[i]), i) for i in self.chosen), reverse=True)

    @property
    def paper(self) -> Paper:
        return self.hit.paper

    def text(self) -> str:
        return " ".join(self.sentences[i] for i in sorted(self.chosen))

    def cost(self) -> int:
        """Word pieces of the quoted sentences (as of ``text``: no special tokens, so they add up)."""
        return sum(self.tokens[i] for i in self.chosen)


class EvidenceSelector:
    """Sentence vectors and word-piece counts per paper (cached) and budgeted selection."""

    def __init__(self, embedder: MiniLMEmbedding, settings: AnswerSettings) -> None:
        self.embedder = embedder
        self.term_bonus, self.number_bonus = settings.term_bonus, settings.number_bonus
        self._cache: OrderedDict[str, tuple[list[str], np.ndarray, list[int]]] = OrderedDict()
        self._lock = threading.Lock()  # shared by concurrent UI sessions

    def sentence_vectors(self, paper: Paper) -> tuple[list[str], np.ndarray]:
        """The paper's sentences and their embeddings."""
        sents, vecs, _ = self._sentences(paper)
        return sents, vecs

    def _sentences(self, paper: Paper) -> tuple[list[str], np.ndarray, list[int]]:
        """The paper's sentences, their embeddings and word-piece counts."""
        with self._lock:
            cached = self._cache.get(paper.key)
            if cached is not None:
                self._cache.move_to_end(paper.key)
                return cached
        sents = sentences(paper.abstract) or [paper.abstract]
        cached = (sents, self.embedder.embed(sents), self.embedder.count_tokens(sents))
        with self._lock:
            self._cache[paper.key] = cached
            if len(self._cache) > CACHE_PAPERS:
                self._cache.popitem(last=False)
        return cached

    def select(self, query: str, hits: list[Hit], per_paper: int, budget: int, whole: int = 0) -> list[Evidence]:
        """Up to ``per_paper`` sentences from each hit, best first, until
        ``budget`` word pieces are used; every paper keeps at least one. The
        first hit's abstract is quoted up to ``whole`` word pieces (all of
        it when it fits): a three-sentence pick misses answers that a
        question paraphrases, and the top paper is usually the one asked about."""
        qvec = self.embedder.embed([query])[0]
        terms = set(tokenize(query))
        wants_number = bool(_QUANTITY.search(query))
        asks_link = bool(_ASKS_LINK.search(query))
        evidence: list[Evidence] = []
        candidates: list[tuple[float, int, int]] = []  # (-relevance, paper index, sentence index)
        for n, hit in enumerate(hits, start=1):
            sents, vecs, tokens = self._sentences(hit.paper)
            sims = vecs @ qvec + self.term_bonus * np.array([_overlap(terms, s) for s in sents])
            if wants_number:
                sims = sims + self.number_bonus * np.array([bool(_DIGIT.search(s)) for s in sents])
            links = np.array([not asks_link and bool(_LINK.search(s)) for s in sents])
            sims = sims - _UNASKED_LINK * links
            order = ([int(i) for i in np.argsort(-sims) if not links[i]] or [int(np.argmax(sims))])[:per_paper]
            evidence.append(Evidence(n, hit, sents, vecs, [order[0]], sims, tokens))
            candidates.extend((-float(sims[i]), n - 1, i) for i in order[1:])
        if evidence and whole:
            evidence[0].chosen = self._fit(evidence[0], whole)
            candidates = [c for c in candidates if c[1] != 0]
        used = sum(e.cost() for e in evidence)
        for _, paper_index, sentence_index in sorted(candidates):
            cost = evidence[paper_index].tokens[sentence_index]
            if used + cost <= budget:
                evidence[paper_index].chosen.append(sentence_index)
                used += cost
        return evidence

    def _fit(self, evidence: Evidence, allowance: int) -> list[int]:
        """The top paper's abstract within ``allowance`` word pieces: whole
        when it fits, else without its least relevant sentences (a code link
        first, then an intro), so that a paraphrased answer is still quoted."""
        chosen: list[int] = []
        used = 0
        for _, i in sorted((-float(evidence.relevance[i]), i) for i in range(len(evidence.sentences))):
            cost = evidence.tokens[i]
            if used + cost <= allowance or not chosen:
                chosen.append(i)
                used += cost
        return sorted(chosen)


def _overlap(terms: set[str], sentence: str) -> float:
    """Share of the query's content words found in the sentence: lifts the
    sentence that names the method ("What is SPINT?") over paraphrases."""
    return len(terms & set(tokenize(sentence))) / len(terms) if terms else 0.0
