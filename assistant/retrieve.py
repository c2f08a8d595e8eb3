"""Hybrid retrieval: dense (Chroma) + BM25, fused, one hit per paper.

Dense vectors find papers by meaning, BM25 by exact terms, and a question
that names a method verbatim ("What is EvoBrain?") puts that paper first.
Fusion (``assistant.fusion``) averages each side's score as a share of that
side's best for the query, so neither scale needs calibrating against the
other and a side that barely separates its first papers barely moves the order.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
from llama_index.core.base.base_retriever import BaseRetriever
from llama_index.core.schema import NodeWithScore, QueryBundle, TextNode

from assistant.corpus import Corpus
from assistant.crosslingual import dictionary_query, has_cjk
from assistant.errors import InputError
from assistant.filters import parse_filters, topicless
from assistant.fusion import Fusion
from assistant.index import PaperIndex, VenueFilter, venue_matches, venue_text
from assistant.lexical import tokenize
from assistant.mentions import abbreviates, as_written, question_names, unmentioned
from assistant.papers import Paper
from assistant.synonyms import expanded, matches, scoped

Mode = Literal["hybrid", "dense", "lexical"]
#: Words of a chat message that name no topic ("any papers here on …, pls"), stemmed as the index is.
_CHAT_WORDS = frozenset(tokenize(
    "pls please quick quickly brief briefly here any anything something stuff say says like etc tell me us give show "
    "overview summary summarize summarise big main some lot lots kind kinds sort thing things did does do doing "
    "venue venues publish published conference conferences when year "
    "what whats you your have has got get deal whatever everything style "
    "you've you're we've i've i'm what's that's there's it's ve re ll s d m t"))


@dataclass(frozen=True)
class Hit:
    """One retrieved paper: fused ``score`` in [0, 1], and the dense cosine
    ``similarity`` that absolute cut-offs (topic summaries) rely on."""

    paper: Paper
    score: float
    similarity: float
    named: bool


@dataclass(frozen=True)
class Scope:
    """What to search for a question: the English query, the venue and year
    filters, and which of them came from the question's own words
    (``parsed``, shown to the user as the filter applied)."""

    query: str
    venue: VenueFilter
    year: int | None
    parsed: dict[str, Any] | None = None
    translated: str | None = None
    #: A venue with its year, or a year, that the question names and no indexed paper has, said in words.
    unmatched: str | None = None
    #: The English query before the field's words for its everyday ones were added (None: none were; see ``synonyms``).
    plain: str | None = None

    def as_json(self) -> dict[str, Any] | None:
        """The ``"filter"`` field of the JSON answers: the filter taken from the question, if any."""
        return dict(self.parsed) if self.parsed else None

    def extra(self) -> dict[str, Any]:
        """The answers' JSON fields about the scope: ``filter``, and
        ``filter_unmatched`` when the question named what the index lacks."""
        return {"filter": self.as_json(), **({"filter_unmatched": self.unmatched} if self.unmatched else {})}


#: Words of a topic request that name no topic: "papers on graphs" is about "graphs".
_PAPER_WORDS = frozenset(tokenize("paper papers work works study studies research"))
#: Most words of a topic whose repetition in an abstract alone puts the paper on it (see ``PaperRetriever.topic``).
_SHORT_TOPIC = 2


def _short_topic(query: str) -> list[re.Pattern[str]]:
    """A one- or two-word topic's words as written, an "s" of the plural
    aside, not by stem ("graphs" is said by "graph" and "graph-based";
    "transformers" is not said by "transformations", which share its
    stem); none for a longer topic."""
    words = [w.casefold().removesuffix("s") for w in re.findall(r"[A-Za-z][\w-]+", query)
             if not set(tokenize(w)) <= _CHAT_WORDS | _PAPER_WORDS]
    return [re.compile(rf"\b{re.escape(w)}", re.IGNORECASE) for w in words] if len(words) <= _SHORT_TOPIC else []


def _topic_words(text: str) -> list[str]:
    """A topic's stemmed words, each once, chat words left out."""
    return [w for w in dict.fromkeys(tokenize(text)) if w not in _CHAT_WORDS]


def _repeats(paper: Paper, words: list[re.Pattern[str]], times: int = 2) -> bool:
    """Whether the abstract says each of a short topic's ``words`` at least ``times`` times."""
    return bool(words) and all(len(w.findall(paper.abstract)) >= times for w in words)


def _listed(venue: str | tuple[str, ...]) -> str | list[str]:
    """A venue filter as the JSON ``filter`` holds it: one venue's name, or the list of several."""
    return venue if isinstance(venue, str) else list(venue)


@dataclass(frozen=True)
class Resolution:
    """What a name or description refers to: one paper, or candidates to choose from."""

    text: str
    paper: Paper | None
    candidates: list[Paper]


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
        self.fusion = Fusion.from_settings(index.settings.retrieval)

    def scope(self, question: str, venue: VenueFilter = None, year: int | None = None,
              translate: Callable[[str], str] | None = None) -> Scope:
        """The query and filters for a question in the user's words: a venue or
        year it names ("from ICLR 2026", "2025年") becomes the filter unless
        an explicit ``venue``/``year`` says otherwise or the setting
        ``question_filters`` is off, and only when some indexed paper passes
        it (a venue merely mentioned, with no paper of it, filters nothing).
        Several indexed venues named ("from ICLR 2026 and NeurIPS 2025")
        are each asked for: the filter is any of them (``parsed``'s
        ``venues``), and a third indexed venue's papers stay out.
        A CJK question is put into English by ``translate`` (the LLM), else
        by the bundled term dictionary; everyday words get the field's words
        beside them ("brainwave" searches EEG too, see ``synonyms``)."""
        query: str = question
        parsed: dict[str, Any] | None = None
        unmatched: str | None = None
        if self.index.settings.retrieval.question_filters:
            found = parse_filters(question, {v for v in self.index.corpus.venues if v})
            indexed = tuple(v for v in found.venues if self.allowed(v, None))
            take_venue: VenueFilter = (indexed[0] if len(indexed) == 1 else indexed) if venue is None and indexed else None
            take_year = found.year if year is None else None
            if (take_venue or take_year is not None) and self.allowed(take_venue or venue, take_year or year):
                query, venue, year = found.question, take_venue or venue, take_year or year
                venue_key = "venue" if isinstance(take_venue, str) else "venues"
                parsed = {k: v for k, v in ((venue_key, take_venue and _listed(take_venue)), ("year", take_year)) if v}
            elif venue is None and len(indexed) > 1:
                query = found.question
            unmatched = self._unmatched([v for v in found.venues if v not in indexed], take_year, parsed)
            if unmatched:  # "ICLR 2027" is no topic word: searched, it kept a summary of graph papers from finding any
                query = found.question
        translated = None
        if has_cjk(query):
            translated = translate(query) if translate else dictionary_query(query)
            query = translated or query
        searched, plain = scoped(query)
        return Scope(searched, venue, year, parsed, translated, unmatched, plain)

    def _unmatched(self, lacking: Sequence[str], year: int | None, parsed: dict[str, Any] | None) -> str | None:
        """What the question scoped to that no indexed paper is from (``lacking``: its venues with none; "ICLR
        2027 papers on graphs", "EEG papers from 2024"), said with what the
        index holds: those papers were not there to find, and the answer
        came from every paper. Only a venue with its year counts ("better
        than CVPR baselines" names a venue without asking for its papers),
        and nothing is said when a filter was taken."""
        if parsed:
            return None
        corpus = self.index.corpus
        wanted = [v for v in lacking if re.search(r"\d{4}$", v)]
        if year is not None and not self.allowed(None, year):
            wanted.append(str(year))
        if not wanted:
            return None
        known = ", ".join(sorted({v for v in corpus.venues if v})) or "none"
        return f"No indexed paper is from {' or '.join(wanted)} (indexed: {known}), so every paper was searched."

    def allowed(self, venue: VenueFilter, year: int | None, corpus: Corpus | None = None) -> list[int]:
        """Positions (in the corpus snapshot) of papers passing the filters."""
        corpus = corpus or self.index.corpus
        return [i for i, (v, y) in enumerate(zip(corpus.venues, corpus.years, strict=True))
                if venue_matches(v, venue) and (year is None or y == year)]

    def check_filters(self, venue: VenueFilter, year: int | None = None) -> None:
        """Raise an InputError naming the indexed venues (and years) when no
        paper passes the filters: a mistyped or absent venue is the user's to
        fix, not a question that "no matching papers" answer."""
        if (not venue and year is None) or self.allowed(venue, year):
            return
        corpus = self.index.corpus
        wanted = " and ".join(part for part in (f"venue {venue_text(venue)!r}" if venue else "",
                                                 f"year {year}" if year is not None else "") if part)
        known = f"indexed venues: {', '.join(sorted({v for v in corpus.venues if v})) or 'none'}"
        if year is not None:
            known += f"; years: {', '.join(str(y) for y in sorted({y for y in corpus.years if y})) or 'none'}"
        raise InputError(f"No indexed paper is from {wanted} ({known}).")

    def search(self, query: str, k: int | None = None, venue: VenueFilter = None, year: int | None = None,
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
        sims: dict[int, float] | None = None
        if mode != "lexical":
            sims = {}
            where = self._where({corpus.venues[i] for i in allowed}, year, filtered=len(allowed) < len(papers))
            vector = self.index.embedder.get_query_embedding(query)
            for pid, sim in self.index.dense(vector, max(self.fusion.candidates, 10 * k), where).items():
                if pid in position:
                    sims[position[pid]] = sim
        bm25 = lexical.scores(query) if mode != "dense" else None
        named = set(lexical.named(query)) if mode != "dense" else set()
        ranked = self.fusion.fuse(sims, bm25, np.asarray(allowed), named, depth=10 * k)[:k]
        return [Hit(papers[i], score, (sims or {}).get(i, 0.0), i in named) for i, score in ranked]

    def find(self, question: str, k: int | None = None, venue: VenueFilter = None, year: int | None = None,
             translate: Callable[[str], str] | None = None) -> tuple[Scope, list[Hit]]:
        """``search`` for a question in the user's words: scoped first (filters it names, CJK put into English).
        A query that names a venue or year and nothing more ("NeurIPS 2025", "papers from 2025") gets that
        filter's first ``k`` papers in index order, scored 0: there is nothing to rank them by."""
        scope = self.scope(question, venue if venue is not None else self.venue,
                           year if year is not None else self.year, translate)
        if (scope.venue is not None or scope.year is not None) and topicless(scope.query):
            papers = self.index.corpus.papers
            return scope, [Hit(papers[i], 0.0, 0.0, False) for i in self.allowed(scope.venue, scope.year)[: k or self.k]]
        return scope, self.search(scope.query, k=k, venue=scope.venue, year=scope.year)

    def topic(self, query: str, venue: VenueFilter, year: int | None, most: int, min_score: float,
              min_similarity: float, plain: str | None = None) -> list[Hit]:
        """Every paper about a topic, best first: named outright, or ranked
        high by both BM25 and MiniLM (fused score ≥ ``min_score``) and not
        far off in meaning (dense cosine ≥ ``min_similarity``: ranks alone
        would list the best of nothing for a topic no paper covers), from the
        fused ranking's top ``3 * most`` (a summary covers the first ``most``).
        A dense-cosine window alone listed 0.55 of the dev topics' seed papers:
        abstracts word a topic in ways one embedding misses. A paper that
        uses every name the query writes ("which papers use Mamba?") needs
        half the score and no cosine: MiniLM knows no such name, so the one
        paper that uses it was far off in meaning (dev topic recall 0.801 →
        0.851 at 38 papers, 0.536 → 0.569 at 6k over dev's 30 answerable topic
        and list questions; its unanswerable ones list what they did).
        A paper that says each word of a one- or two-word topic at least
        twice is about it whatever its cosine: a whole abstract's vector is
        far from one word ("graphs": HEIST, whose abstract says "graph" five
        times, was at 0.11, and "ICLR 2026 papers on graphs" listed none;
        no dev topic question is that short, so dev figures are unchanged);
        of a one-word topic, a paper that says it once, at half the score
        ("transformers" listed SnS alone, for "transformations", and none of
        the five abstracts that say "transformer").
        A topic most of whose words (at least two) no indexed paper uses
        ("stock price or financial time series forecasting", "robot arm
        grasping") lists only papers it names: the nearest papers are
        about its one common word ("forecasting").
        ``plain``: the query in the user's words when ``query`` adds the
        field's words for its everyday ones (see ``synonyms``). The papers
        either one finds are listed: the field's words can put one paper so
        far ahead that the others fall under the cut-off ("real monkeys" +
        macaque listed BigMaQ alone, not the two papers recording from
        monkeys). Whether the topic is absent is judged on the user's words
        that no entry stands for: the field's words are known by design and
        would outvote them, and an everyday word with an entry ("brain-wave")
        is no sign of an absent topic."""
        listed = self._on_topic(query, venue, year, most, min_score, min_similarity, self._asked(query, plain))
        if plain is None:
            return listed
        seen = {h.paper.paper_id for h in listed}
        more = [h for h in self._on_topic(plain, venue, year, most, min_score, min_similarity, plain)
                if h.paper.paper_id not in seen]
        return sorted(listed + more, key=lambda h: -h.score)

    def unknown_words(self, query: str, plain: str | None = None, venue: VenueFilter = None,
                      year: int | None = None) -> list[str]:
        """The words of a topic (``topic``'s ``query`` and ``plain``) that
        no paper of the scope (``venue``, ``year``) uses, chat words aside:
        the sign of an absent topic that ``topic`` counts, and on which a
        summary asks the model (see ``relevance``)."""
        return self.index.corpus.lexical.unknown(_topic_words(self._asked(query, plain)), self._among(venue, year))

    def _among(self, venue: VenueFilter, year: int | None) -> list[int] | None:
        """The positions of the papers a filter keeps (None: no filter, every paper)."""
        return self.allowed(venue, year) if venue or year is not None else None

    def _asked(self, query: str, plain: str | None) -> str:
        """The words that say whether a topic is absent: the user's own
        (see ``_own_words``) when the query adds the field's words."""
        return self._own_words(plain) if plain is not None else query

    def _own_words(self, plain: str) -> str:
        """``plain`` without its everyday phrases whose field words some
        indexed paper uses ("brain-wave" is EEG): what is left says whether
        the topic is absent. A phrase whose field words no paper uses stays
        ("robot dogs" is quadruped locomotion, which no seed is about)."""
        lexical = self.index.corpus.lexical
        for phrase, words in matches(plain):
            fields = tokenize(" ".join(words))
            if fields and not lexical.unknown(fields):
                plain = plain.replace(phrase, " ")
        return plain

    def _on_topic(self, query: str, venue: VenueFilter, year: int | None, most: int, min_score: float,
                  min_similarity: float, asked: str) -> list[Hit]:
        """``topic``'s papers for one query; ``asked``: the words the absent-topic rule reads."""
        pool = self.search(query, k=3 * most, venue=venue, year=year)
        lexical = self.index.corpus.lexical
        words = _topic_words(asked)
        absent = lexical.unknown(words, self._among(venue, year))
        if len(absent) >= 2 and 2 * len(absent) >= len(words):
            return [h for h in pool if h.named]
        papers = lexical.names
        found = [h.paper for h in pool]
        written = as_written(query, found)
        names = question_names(written, papers)  # parsed once, not per paper of the pool
        coined = [n for n in names if not abbreviates(n, found)]
        short = _short_topic(query)
        return [h for h in pool if h.named or (h.score >= min_score and h.similarity >= min_similarity)
                or (coined and h.score >= min_score / 2 and not unmentioned(written, [h.paper], papers))
                or (h.score >= min_score / 2 and _repeats(h.paper, short, 1 if len(short) == 1 else 2))]

    def resolve(self, text: str) -> Resolution:
        """The paper meant by a name, title, id, citation key or description ("CSBrain",
        "the 4D positional encoding EEG model"); candidates when unsure."""
        corpus = self.index.corpus
        lexical, papers = corpus.lexical, corpus.papers
        wanted = text.strip().casefold()
        exact = [p for p in papers if wanted in {p.paper_id.casefold(), p.name.casefold(), p.alias.casefold(),
                                                 p.title.casefold(), p.cite_key.casefold()} - {""}]
        named = exact or [papers[i] for i in lexical.named(text)]
        if not named and len(text.split()) == 1:  # a bare name mistyped ("CSBrian"), not a description's word
            named = [papers[i] for i in lexical.misspelled(text.strip())]
        if len(named) == 1:
            return Resolution(text, named[0], [])
        if named:
            return Resolution(text, None, named)
        # A paper ranked first by both retrievers (score 1) is taken whatever the margin.
        knobs = self.index.settings.retrieval
        hits = [h for h in self.search(expanded(text), k=5) if h.similarity >= knobs.resolve_min_similarity]
        if hits and (len(hits) == 1 or hits[0].score >= 0.999 or hits[0].score - hits[1].score >= knobs.resolve_margin):
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
