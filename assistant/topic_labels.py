"""Names for topics: keywords by class-based TF-IDF, a short readable label
made from them, and optionally a better label from the LLM.

Why c-TF-IDF: a topic is a class of papers, and what names it is what its
papers say often and the rest of the collection says rarely. Author keywords,
where the source has them, are the authors' own words for the topic, so they
are counted twice. Keyword labels need no LLM and are always there; an LLM
label replaces one only when it passes checks (short, and about the
keywords), so a small model's junk never reaches the map.
"""

from __future__ import annotations

import hashlib
import json
import logging
import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import Stemmer
from scipy import sparse
from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS, CountVectorizer
from tqdm import tqdm

from assistant.errors import AssistantError
from assistant.papers import Paper

if TYPE_CHECKING:
    from assistant.llm import LLMClient

log = logging.getLogger(__name__)

#: Keywords kept per topic.
KEYWORDS = 10
#: Words in a label, at most (and at least, for an LLM's).
LABEL_MAX_WORDS = 6
LLM_LABEL_MIN_WORDS = 2
#: Abstracts' opening sentences shown to the LLM per topic.
LLM_EXAMPLES = 4
#: Words of an abstract's opening shown to the LLM.
LLM_EXAMPLE_WORDS = 40

#: Words of scientific prose that name no topic; removed before n-grams are formed.
_FILLER = {
    "paper", "propose", "proposed", "proposes", "approach", "approaches", "method", "methods", "novel", "new",
    "result", "results", "show", "shows", "shown", "demonstrate", "demonstrates", "existing", "based", "using",
    "use", "used", "uses", "work", "works", "study", "studies", "framework", "frameworks", "performance",
    "state", "art", "experiments", "experimental", "extensive", "significantly", "significant", "outperforms",
    "outperform", "achieves", "achieve", "achieving", "however", "while", "first", "also", "via", "well",
    "effective", "effectively", "improve", "improves", "improved", "improving", "improvement", "improvements",
    "introduce", "introduces", "present", "presents", "across", "including", "different", "various", "key",
    "challenge", "challenges", "challenging", "problem", "problems", "remains", "remain", "recent", "recently",
    "furthermore", "moreover", "specifically", "particular", "widely", "often", "still", "yet", "without",
    "within", "thus", "therefore", "paradigm", "superior", "strong", "stronger", "better", "best", "robust",
    "efficient", "efficiently", "leverage", "leverages", "leveraging", "enable", "enables", "enabling",
    "address", "addresses", "addressing", "code", "available", "github", "com", "https", "http", "www",
    "despite", "make", "makes", "making", "provide", "provides", "providing", "given", "able", "like", "way",
    "wide", "range", "several", "many", "number", "called", "termed", "named", "lead", "leads", "leading",
    "prior", "previous", "current", "typically", "crucial", "critical", "important", "potential", "highly",
    "consistently", "substantially", "simple", "general", "practical", "real", "world", "benchmarks",
    "benchmark", "datasets", "dataset", "tasks", "task", "baselines", "baseline", "evaluation", "evaluate",
    "evaluated", "empirical", "empirically", "theoretical", "theoretically", "analysis", "insights",
}
_STOP = frozenset(ENGLISH_STOP_WORDS | _FILLER)
#: Words too broad to stand alone as a keyword, but kept inside phrases
#: ("diffusion models", "graph neural networks").
_GENERIC = {"model", "models", "learning", "data", "network", "networks", "training", "neural", "deep", "large",
            "language", "information", "system", "systems", "time", "based", "level", "high", "low", "method",
            "representation", "representations", "process", "single", "multiple", "small", "set", "sets", "space",
            "features", "feature", "inference", "algorithm", "algorithms", "function", "functions", "structure",
            "generation", "quality", "scale", "human", "test", "step", "steps", "input", "output", "loss"}
_TOKEN = r"(?u)\b[a-zA-Z][a-zA-Z0-9]*(?:-[a-zA-Z0-9]+)*\b"
_WORD = re.compile(_TOKEN)
#: Punctuation ends a phrase: no n-gram spans "(LLMs)" or a comma.
_PHRASE_BREAK = re.compile(r"[^\w\s-]+")
MAX_NGRAM = 3
_STEMMER = Stemmer.Stemmer("english")


def stems(text: str) -> set[str]:
    """Stemmed content words of ``text`` (for 'is this label about these keywords?')."""
    words = [part for word in re.findall(_TOKEN, text.casefold()) for part in word.split("-")]
    return {s for s in _STEMMER.stemWords([w for w in words if w not in ENGLISH_STOP_WORDS and len(w) > 2]) if s}


def paper_text(paper: Paper) -> str:
    """What a paper says about its topic: title, abstract, and its author keywords twice."""
    keywords = paper.keywords.replace(";", ".")
    return f"{paper.title}. {paper.abstract} {keywords}. {keywords}."


def phrases(text: str) -> list[str]:
    """Terms of 1-3 words that the text really writes together: runs of
    content words, broken by punctuation and stop words ("learning from
    human feedback" gives no "learning human feedback")."""
    terms: list[str] = []
    for piece in _PHRASE_BREAK.split(text.casefold()):
        run: list[str] = []
        for word in [*_WORD.findall(piece), ""]:
            if word and word not in _STOP:
                run.append(word)
                continue
            terms.extend(" ".join(run[i:i + n]) for n in range(1, MAX_NGRAM + 1) for i in range(len(run) - n + 1))
            run = []
    return terms


@dataclass(frozen=True)
class TermCounts:
    """Term counts per paper, counted once and shared by the area and topic labels."""

    texts: list[str]
    terms: np.ndarray
    counts: sparse.csr_matrix

    @classmethod
    def of(cls, papers: Sequence[Paper]) -> TermCounts:
        texts = [paper_text(p) for p in papers]
        vectorizer = CountVectorizer(analyzer=phrases, min_df=2 if len(papers) >= 10 else 1)
        try:
            counts = vectorizer.fit_transform(texts).tocsr()
        except ValueError:  # no term at all survives (tiny or empty texts)
            return cls(texts, np.array([], dtype=str), sparse.csr_matrix((len(texts), 0)))
        return cls(texts, vectorizer.get_feature_names_out(), counts)


@dataclass(frozen=True)
class Labels:
    """Each class's keywords (best first) and its keyword label."""

    keywords: list[list[str]]
    labels: list[str]


def keyword_labels(counts: TermCounts, classes: np.ndarray, n_classes: int,
                   avoid: Sequence[Sequence[str]] | None = None) -> Labels:
    """Keywords and a readable label for each class of papers (``classes[i]``
    is paper i's class), by class-based TF-IDF. ``avoid[c]``: words the label
    of class c should not lead with (its area's, which the map already shows)."""
    n = len(counts.texts)
    member = sparse.csr_matrix((np.ones(n), (classes, np.arange(n))), shape=(n_classes, n))
    class_counts = (member @ counts.counts).toarray()
    class_docs = (member @ (counts.counts > 0).astype(np.float64)).toarray()
    sizes = np.maximum(member.sum(axis=1).A1, 1.0)
    tf = class_counts / np.maximum(class_counts.sum(axis=1, keepdims=True), 1.0)
    idf = np.log1p(class_counts.sum() / max(n_classes, 1) / np.maximum(class_counts.sum(axis=0), 1.0))
    # A term spread over many of the class's papers names it better than one
    # paper's repeated jargon.
    scores = tf * idf * np.sqrt(class_docs / sizes[:, None])
    keywords = []
    for c in range(n_classes):
        members = [counts.texts[i] for i in np.flatnonzero(classes == c)]
        keywords.append([_surface(term, members) for term in _pick_keywords(counts.terms, scores[c])])
    # A keyword near the top of many classes ("Large Language Models") tells them apart poorly.
    seen = Counter(key for words in keywords for key in {_key(w) for w in words[:5]})
    common = [" ".join(sorted(key)) for key, n in seen.items() if n >= max(3, n_classes // 10)]
    labels = [readable_label(words, [*(avoid[c] if avoid else ()), *common]) for c, words in enumerate(keywords)]
    return Labels(keywords, labels)


def _key(term: str) -> frozenset[str]:
    """Stems with plurals folded ('PDEs' = 'PDE', which the stemmer keeps apart)."""
    return frozenset(s[:-1] if len(s) > 3 and s.endswith("s") else s for s in stems(term))


def _pick_keywords(terms: np.ndarray, scores: np.ndarray, count: int = KEYWORDS) -> list[str]:
    """The best terms, without repeats: a word already inside a chosen phrase,
    a plural of a chosen term, or a lone generic word. A longer phrase that
    holds a chosen term and scores at least half as well takes its place
    ('large language' → 'large language models'); a weaker one is left out."""
    chosen: list[str] = []
    keys: list[frozenset[str]] = []
    best: list[float] = []
    for i in np.argsort(-scores, kind="stable")[: count * 8]:
        if scores[i] <= 0:
            break
        term = str(terms[i])
        words = term.split()
        key = _key(term)
        if (len(words) == 1 and term in _GENERIC) or not key or len(set(words)) < len(words):
            continue
        if any(key <= other for other in keys):
            continue
        inside = [n for n, other in enumerate(keys) if other < key]
        if inside:  # redundant unless it is nearly as strong as every term it holds
            if all(scores[i] >= 0.5 * best[n] for n in inside):
                chosen[inside[0]], keys[inside[0]] = term, key
                for n in reversed(inside[1:]):
                    del chosen[n], keys[n], best[n]
            continue
        chosen.append(term)
        keys.append(key)
        best.append(float(scores[i]))
        if len(chosen) == count:
            break
    return chosen


def _surface(term: str, texts: Sequence[str], limit: int = 60) -> str:
    """The term as the papers most often write it ('llms' -> 'LLMs'),
    lower case when that is as common (sentence starts are capitalised)."""
    pattern = re.compile(r"\b" + r"[\s-]+".join(map(re.escape, term.split())) + r"\b", re.IGNORECASE)
    seen: Counter[str] = Counter()
    for text in texts[:limit]:
        seen.update(" ".join(m.split()) for m in pattern.findall(text))
    if not seen:
        return term
    best, n = seen.most_common(1)[0]
    lower = seen.get(best.casefold(), 0)
    return best.casefold() if lower * 2 >= n and not any(c.isupper() for c in best[1:]) else best


def readable_label(keywords: Sequence[str], avoid: Sequence[str] = ()) -> str:
    """A label of at most six words from the keywords: the best phrase, with
    a second keyword about something else when it fits. Keywords that are
    ``avoid``'s (the area's) go last, so sibling topics get distinct labels."""
    if not keywords:
        return "Papers"
    shared = set().union(*(_key(a) for a in avoid)) if avoid else set()
    ranked = sorted(keywords, key=lambda k: bool(_key(k) & shared))  # stable: keeps the score order otherwise
    first = next((k for k in ranked[:4] if len(k.split()) > 1), ranked[0])
    parts = [first]
    used = _key(first)
    for other in ranked:
        words = sum(len(p.split()) for p in parts) + len(other.split())
        if other != first and not (_key(other) & used) and words <= LABEL_MAX_WORDS:
            parts.append(other)
            used |= _key(other)
            if sum(len(p.split()) for p in parts) >= 3:
                break
    label = ", ".join(parts)
    return label[0].upper() + label[1:]


# -- LLM labels ---------------------------------------------------------------

LABEL_PROMPT = """These research papers form one topic.
Keywords: {keywords}
Openings of typical abstracts:
{examples}

Name the topic in 3 to 6 words, like a section heading. Reply with the name only."""


def label_prompt(keywords: Sequence[str], examples: Sequence[Paper]) -> str:
    lines = "\n".join(f"- {' '.join(p.abstract.split()[:LLM_EXAMPLE_WORDS])}…" for p in examples[:LLM_EXAMPLES])
    return LABEL_PROMPT.format(keywords=", ".join(keywords), examples=lines)


def clean_llm_label(reply: str, keywords: Sequence[str]) -> str | None:
    """The LLM's reply as a label, or None when it is not one: empty, longer
    than six words, or sharing no stemmed word with the keywords."""
    line = next((ln for ln in reply.splitlines() if ln.strip()), "")
    line = re.sub(r"^\s*(?:topic|label|name|title)\s*:\s*", "", line, flags=re.IGNORECASE)
    line = line.strip(" *#`\"'“”‘’.:;,")
    words = line.split()
    if not (LLM_LABEL_MIN_WORDS <= len(words) <= LABEL_MAX_WORDS):
        return None
    if not stems(line) & stems(" ".join(keywords)):
        return None
    return line[0].upper() + line[1:]


class LabelCache:
    """LLM replies by (model, prompt), in one JSON file beside the topic map:
    a rebuild over the same topics asks the LLM nothing."""

    def __init__(self, path: Path) -> None:
        self.path = path
        try:
            self.replies: dict[str, str] = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            self.replies = {}

    @staticmethod
    def key(model: str, prompt: str) -> str:
        return hashlib.sha256(f"{model}\n{prompt}".encode()).hexdigest()[:24]

    def save(self) -> None:
        from assistant.topics import write_atomic

        write_atomic(self.path, json.dumps(self.replies, ensure_ascii=False, indent=0))


def llm_labels(client_factory: Callable[[], LLMClient], prompts: Sequence[str], keywords: Sequence[Sequence[str]], cache: LabelCache,
               progress: bool | None = None) -> tuple[list[str | None], str | None]:
    """An LLM label (or None) per prompt, from the cache when asked before.
    Returns the labels and, when the LLM failed, the one-line reason (the
    remaining topics keep their keyword labels)."""
    from llama_index.core.llms import ChatMessage, MessageRole

    labels: list[str | None] = [None] * len(prompts)
    client, error = None, None
    bar = tqdm(total=len(prompts), desc="LLM labels", unit="topic", disable=progress is False, leave=False)
    with bar:
        for i, prompt in enumerate(prompts):
            bar.update(1)
            if error is not None:
                continue
            try:
                client = client or client_factory()
                key = LabelCache.key(client.endpoint.model, prompt)
                if key not in cache.replies:
                    cache.replies[key] = client.complete([ChatMessage(role=MessageRole.USER, content=prompt)])
            except AssistantError as exc:
                error = str(exc)
                continue
            labels[i] = clean_llm_label(cache.replies[key], keywords[i])
    if cache.replies:
        cache.save()
    return labels, error
