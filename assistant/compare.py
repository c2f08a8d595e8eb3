"""Compare 2 to 8 papers in one table whose every cell is quoted.

The table is built in three steps, each useful on its own (the narrative
is written before the model's values, which it does not read):

1. **Extractive cells**, at once and without a model: for each (paper,
   aspect) the abstract's own sentence that states the aspect, or "not
   stated". The default aspects use the cue words and the abstract's arc
   (``assistant.aspects``); an aspect the user names is matched by its words
   and by MiniLM similarity to the sentence.
2. **Short values** ("60,000 hours", "92 datasets"): a link, a count or a
   field the aspect asks for is copied from the quote; otherwise the LLM reads each
   quote and copies the few words that state the aspect. A value whose
   words and numbers are not in its quote is dropped, never shown: a small
   model asked to fill a table invents and mixes papers up, so its output
   is held to the quote beside it. Where the model gives no such value, the
   clause of the quote that names the aspect is the value. (Letting the
   model say "none" was measured and dropped: the 1.5B model said none to
   quotes that do state the aspect more often than to those that do not.)
   The table is shown again after each value the model gives: 5 papers'
   values take about half a minute on 2 cores, so they fill in one by one,
   counted, after the narrative rather than before it
   (``settings.compare.model_values`` off: no model values).
3. **A cited narrative** of what the papers share and how they differ,
   through the same checked answer path as every answer.

A model that fails at step 2 or 3 costs only that step: the extractive
table is still there.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Callable, Generator, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from assistant import prompts
from assistant.aspects import ASPECT_CUES, ASPECTS, aspect_sentences, gist_sentence
from assistant.errors import InputError, LLMUnavailable, NotFound
from assistant.evidence import Evidence, EvidenceSelector
from assistant.lexical import tokenize
from assistant.naming import WORDISH
from assistant.papers import Paper
from assistant.result import Event, Table, cell_text, short
from assistant.retrieve import Hit
from assistant.settings import CompareSettings

MIN_PAPERS, MAX_PAPERS = 2, 8
MAX_ASPECTS = 10
#: Longest aspect name accepted, in characters.
MAX_ASPECT_CHARS = 60
DEFAULT_ASPECTS = tuple(ASPECTS)
#: A user's word for a default aspect: that aspect's cue-based picker fills it.
SYNONYMS = {
    "data": "data", "dataset": "data", "datasets": "data", "training data": "data", "corpus": "data",
    "result": "evaluation and results", "results": "evaluation and results", "evaluation": "evaluation and results",
    "evaluation and results": "evaluation and results", "performance": "evaluation and results",
    "approach": "approach", "method": "approach", "methods": "approach", "framework": "approach",
    "model": "approach", "model type": "approach", "type of model": "approach", "kind of model": "approach",
    "method type": "approach", "type of method": "approach", "contribution": "approach", "contributions": "approach",
    "key idea": "approach", "idea": "approach", "novelty": "approach",
    "problem": "problem", "motivation": "problem",
    "limitation": "limitations or scope", "limitations": "limitations or scope", "scope": "limitations or scope",
    "limitations or scope": "limitations or scope",
}


def default_aspect(aspect: str) -> str | None:
    """The default aspect a user's words name, whose cue-based picker then
    fills the cell: a word of ``SYNONYMS`` as written, or a short phrase it
    heads ("training data", "main results", or with a participle after it,
    "problem addressed", "method used"). A sentence stating the problem
    comes before the "we propose" one, where a user's own aspect is never
    looked for, so "problem addressed" found no sentence (4 of 4 dev cells)."""
    folded = _fold(aspect)
    if folded in SYNONYMS:
        return SYNONYMS[folded]
    words = folded.split()
    if not 2 <= len(words) <= 3 or "of" in words:  # "number of datasets" asks for a count, not the data
        return None
    if words[-1] in SYNONYMS:
        return SYNONYMS[words[-1]]
    if words[0] in SYNONYMS and all(w.endswith(("ed", "en")) for w in words[1:]):
        return SYNONYMS[words[0]]
    return None


def _fold(aspect: str) -> str:
    """An aspect as ``SYNONYMS`` spells it: case-folded, single-spaced."""
    return " ".join(aspect.casefold().split())


#: Words of an aspect that no sentence needs to repeat ("number of subjects").
_FILLER = frozenset(tokenize("number amount count kind type used size"))
_COUNT_ASPECT = re.compile(r"\s*(?:number|count|amount) of\b|\s*how many\b|\s*#", re.IGNORECASE)
_MANY = re.compile(r"\b(?:dozens|hundreds|thousands|millions|billions)\b", re.IGNORECASE)
#: Words of an aspect that asks for the paper's field ("application domain", "research area").
_FIELD = frozenset(tokenize("domain field area discipline"))
_NUMBER_WORDS = {w: str(n) for n, w in enumerate((
    "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve",
    "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen", "twenty"))}
_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")
_MARKER = re.compile(r"\s*\[\d+(?:,\s*\d+)*\]")
_LINK = re.compile(r"(?:https?://|www\.|github\.com/)\S+", re.IGNORECASE)
_LINK_ASPECT = re.compile(r"\b(?:code|github|link|url|repo\w*|website|project page|availab\w+|release\w*)\b",
                          re.IGNORECASE)
#: A number and the few words after it, within one sentence.
_COUNTED = re.compile(r"(?<![\w.,])\d[\d,.]*\+?%?(?:\s+[^\s\d][^\s]*){1,4}")
#: A name as papers write one: two capitals, or letters and digits in one word ("GSM8K", "mAP", "BERT").
_NAME = re.compile(r"\b(?=\w*[A-Z]\w*[A-Z])\w+|\b(?=[A-Za-z]*\d)(?=\d*[A-Za-z])\w{2,}")
#: Words kept before the aspect's word in a clause cut to a value's length.
_LEAD_WORDS = 5
#: Words that join a clause to what comes before it: a value cut from a clause does not start on one.
_JOINING = frozenset(["and", "or", "but", "nor", "that", "which", "while", "whereas", "thus", "so"])
#: Words that lead into what follows them: a value cut from a clause does not end on one (nor on a joining word).
_LEADING = frozenset(["a", "an", "the", "of", "to", "in", "on", "at", "by", "for", "with", "from", "into", "under",
                      "over", "as", "than", "across", "between", "via", "through", "within"])
#: Where a sentence's clauses part: punctuation and brackets, not the comma of "60,000".
_CLAUSE = re.compile(r"\s*(?:,(?!\d{3}\b)|[;:()\[\]])\s*|\s+[\u2013\u2014-]+\s+")
_NONE = re.compile(r"^(?:none|n/?a|not (?:stated|given|mentioned|specified)|no(?:t| answer)?|unknown|-+)\W*$",
                   re.IGNORECASE)


@dataclass
class Cell:
    """One paper's entry for one aspect: its own sentence (or none), and the
    short value the model found in that sentence, when it passed the check."""

    paper_id: str
    sentence: int | None
    quote: str
    value: str | None = None

    @property
    def stated(self) -> bool:
        return self.sentence is not None

    def to_json(self) -> dict[str, Any]:
        return {"paper_id": self.paper_id, "value": self.value, "quote": self.quote, "stated": self.stated}


@dataclass
class Grid:
    """The table: aspects down, papers across, the cells left for the
    model's values and the values the check dropped."""

    papers: list[Paper]
    aspects: list[str]
    rows: list[list[Cell]]
    left: list[tuple[Paper, str, Cell]] = field(default_factory=list)
    dropped: list[dict[str, str]] = field(default_factory=list)
    #: Why the model filled no (or not every) value, when it failed.
    error: str | None = None

    def to_json(self) -> list[dict[str, Any]]:
        """``[{"aspect", "cells": [...]}]``, plus today's ``a``/``b`` for two papers."""
        table = []
        for aspect, cells in zip(self.aspects, self.rows, strict=True):
            row: dict[str, Any] = {"aspect": aspect, "cells": [c.to_json() for c in cells]}
            if len(cells) == 2:
                row |= {side: short(c.quote) if c.stated else prompts.NOT_STATED for side, c in zip("ab", cells)}
            table.append(row)
        return table

    def event(self, values: bool, asked: int = 0, asking: int = 0) -> Table:
        return Table(papers_json(self.papers), list(self.aspects), self.to_json(), values, asked, asking)

    @property
    def query(self) -> str:
        return " vs ".join(p.name for p in self.papers)

    def extra(self) -> dict[str, Any]:
        """What a comparison adds to the answer JSON."""
        return {"papers": papers_json(self.papers), "aspects": list(self.aspects), "table": self.to_json(),
                "dropped_values": self.dropped, "values_error": self.error}


def papers_json(papers: Sequence[Paper]) -> list[dict[str, str]]:
    return [{"paper_id": p.paper_id, "title": p.name, "venue": p.venue} for p in papers]


# -- input -------------------------------------------------------------------------
def parse_aspects(text: str | None) -> list[str]:
    """The aspects asked for: the defaults when none, the user's list (comma
    or semicolon separated) instead of them, or added to them when it starts
    with "+". A list with nothing usable in it is an error, not the defaults."""
    if text is None:
        return list(DEFAULT_ASPECTS)
    extend = text.lstrip().startswith("+")
    named = [" ".join(a.split()) for a in re.split(r"[,;\n]", text.lstrip().lstrip("+"))]
    named = [a for a in named if a]
    if not named:
        raise InputError("The aspect list is empty: name what to compare, e.g. --aspects \"data, subjects, result\".")
    for aspect in named:
        if len(aspect) > MAX_ASPECT_CHARS or not re.search(r"[^\W\d_]{2}", aspect):
            raise InputError(f"'{aspect[:MAX_ASPECT_CHARS]}' is not an aspect: use a few words like \"dataset\" "
                             f"or \"number of subjects\" (at most {MAX_ASPECT_CHARS} characters).")
    aspects = list(dict.fromkeys([*DEFAULT_ASPECTS, *named] if extend else named))
    if len(aspects) > MAX_ASPECTS:
        raise InputError(f"{len(aspects)} aspects is too many for one table: name at most {MAX_ASPECTS}.")
    return aspects


def asked_first(asked: Sequence[str]) -> list[str]:
    """A chat comparison's aspects: those its message names ("differ in
    tokenizing EEG", see ``intent.asked_aspects``) first, then the default
    aspects they do not stand for ("datasets" fills the "data" row). A
    name too long for an aspect is left out, not an error: it was read
    from a message, not typed into an aspects box."""
    named = [a for a in asked if len(a) <= MAX_ASPECT_CHARS][: MAX_ASPECTS - 1]
    covered = {default_aspect(a) for a in named}
    return list(dict.fromkeys([*named, *(d for d in DEFAULT_ASPECTS if d not in covered)]))[:MAX_ASPECTS]


def check_number(count: int) -> None:
    """2 to 8 papers, or a line that says what to change."""
    if count < MIN_PAPERS:
        raise InputError(f"Name at least {MIN_PAPERS} papers to compare, e.g. `compare CSBrain REVE` (got {count}).")
    if count > MAX_PAPERS:
        raise InputError(f"Compare at most {MAX_PAPERS} papers in one table (got {count}): leave some out.")


def check_count(papers: Sequence[Paper]) -> None:
    """2 to 8 different papers."""
    check_number(len(papers))
    ids = [p.paper_id for p in papers]
    twice = next((p for i, p in enumerate(papers) if p.paper_id in ids[:i]), None)
    if twice is not None:
        raise InputError(f"{twice.name} is in the list twice: compare different papers.")


def resolve(names: Sequence[str], resolve_one: Callable[[str], Paper]) -> list[Paper]:
    """Each name resolved to its paper (an unknown or ambiguous one is an
    error listing candidates); the same paper under two names is an error."""
    check_number(len(names))
    papers = [resolve_one(name) for name in names]
    for i, paper in enumerate(papers):
        for j in range(i):
            if papers[j].paper_id == paper.paper_id:
                raise NotFound(f"'{names[j]}' and '{names[i]}' are the same paper ({paper.name}): "
                               "name different papers.")
    return papers


# -- the table -------------------------------------------------------------------------
def _custom_sentence(aspect: str, sents: list[str], vectors: np.ndarray, aspect_vector: np.ndarray,
                     settings: CompareSettings) -> int | None:
    """The sentence stating a user's aspect: most of the aspect's words, or
    close in meaning; the best by cosine plus a bonus for those words.
    Sentences before the "we propose" one are left out: they describe the
    field ("recent models leverage unified architectures"), not the paper;
    so an aspect asking for that field takes the first sentence (dev cells
    for "application domain": 7 of 10 right, 0 before). An aspect asking a
    count needs a sentence that counts it (see ``count_value``): "number of
    models evaluated" had a sentence that names models and counts none, and
    "number of downstream tasks" EvoBrain's sentence naming its task with
    "23%" and "30%" in it (dev "not stated" recall 0.84 → 0.88). The
    bonus weighs each word by how few of the abstract's sentences say it:
    "tokenizing EEG" found CSBrain's "we propose … EEG decoding" sentence
    over its "Cross-scale Spatiotemporal Tokenization" one, for "EEG" is in
    most of them (dev cells: one wrong quote swapped for another)."""
    words = _aspect_words(aspect)
    if words & _FIELD:
        return 0  # abstracts open on their field: "In large-scale recommendation systems, …"
    tokens = [set(tokenize(s)) for s in sents]
    strength = np.array([[_word_strength(w, s, t) for w in words] for s, t in zip(sents, tokens, strict=True)])
    says = (strength > 0).astype(float)
    share = says.mean(axis=1)
    rarity = np.log((len(sents) + 1) / (says.sum(axis=0) + 1)) + 1e-3
    rare_share = strength @ rarity / rarity.sum()  # weighed by how surely each word is said (``_word_strength``)
    cosine = vectors @ aspect_vector
    own = np.arange(len(sents)) >= gist_sentence(sents)
    ok = own & ((share >= settings.aspect_words_share) | (cosine >= settings.aspect_min_similarity))
    if _COUNT_ASPECT.match(aspect):  # a count is stated by a number of the thing counted, not by the word alone
        ok &= np.array([bool(count_value(aspect, number_digits(s)) or _MANY.search(s)) for s in sents])
    if not ok.any():
        return None
    score = np.where(ok, cosine + settings.aspect_word_bonus * rare_share, -np.inf)
    return int(np.argmax(score))


def _names_default(aspect: str) -> bool:
    """Whether the aspect is a default one in so many words ("limitations",
    "results"), not a kind of one ("theoretical result"): its cue words
    alone decide, for "limitations" in a user's words would take "To
    address these limitations, we propose…", the prior work's."""
    return _fold(aspect) in SYNONYMS


def _aspect_words(aspect: str) -> set[str]:
    """An aspect's stemmed words that a sentence must say, "number of" and
    the like left out (all of them when that leaves none)."""
    return set(tokenize(aspect)) - _FILLER or set(tokenize(aspect))


def _states_word(word: str, sentence: str, tokens: set[str]) -> bool:
    """Whether a sentence (its ``tokens``) says an aspect's stemmed word, or one of its cues."""
    return _word_strength(word, sentence, tokens) > 0


def _word_strength(word: str, sentence: str, tokens: set[str]) -> float:
    """How surely a sentence says an aspect's word: 1 for the word itself
    or two different cue words, half for one cue word. One cue word is a
    weak sign ("reduces predictive errors" for "metric"; "dynamic GNN
    method" for "architecture"), two say it ("normalized root mean square
    error (nRMSE)"; "a two-stream Mamba architecture with a GCN"): dev
    cells 0.796 → 0.811 (3 right quotes for metric and architecture, none
    lost), no test cell changed (2026-12-07)."""
    if word in tokens:
        return 1.0
    cue = ASPECT_CUES.get(word)
    if not cue:
        return 0.0
    hits = {m.group().casefold() for m in cue.finditer(sentence)}
    return min(1.0, 0.5 * len(hits)) if hits else 0.0


def _names_aspect(aspect: str, value: str) -> bool:
    """Whether a value says its aspect: for an aspect with cue words, one
    of them or its own word, or a name ("GSM8K", "mAP": a benchmark or a
    metric is named, not described); any other aspect passes."""
    words = _aspect_words(aspect)
    if not any(w in ASPECT_CUES for w in words) or _NAME.search(value):
        return True
    tokens = set(tokenize(value))
    return any(_states_word(w, value, tokens) for w in words)


def extract(papers: list[Paper], aspects: list[str],
            sentence_vectors: Callable[[Paper], tuple[list[str], np.ndarray]],
            embed: Callable[[list[str]], np.ndarray], settings: CompareSettings) -> Grid:
    """The extractive table: each paper's sentence for each aspect, or none."""
    looked_up = [a for a in aspects if not _names_default(a)]  # the only ones _custom_sentence may read
    aspect_vectors = dict(zip(looked_up, embed(looked_up), strict=True)) if looked_up else {}
    columns = []
    for paper in papers:
        sents, vectors = sentence_vectors(paper)
        cued = aspect_sentences(sents, paper.name)
        column = []
        for aspect in aspects:
            default = default_aspect(aspect)
            i = cued[default] if default else None
            if i is None and not _names_default(aspect):
                # "theoretical result": no results cue after "we propose", but "rigorously prove" says it
                i = _custom_sentence(aspect, sents, vectors, aspect_vectors[aspect], settings)
            column.append(Cell(paper.paper_id, i, sents[i] if i is not None else ""))
        columns.append(column)
    return Grid(papers, aspects, [list(row) for row in zip(*columns, strict=True)])


def value_in_quote(value: str, quote: str, settings: CompareSettings) -> bool:
    """Whether ``value`` is stated by ``quote``: every number of it is in the
    quote (number words count as digits, "60,000" as "60000") and most of its
    words are, stemmed ("11 tasks" follows from "11 representative EEG tasks"),
    but every name is: "REVE struggles to generalize across variations" is not
    "Existing EEG foundation models struggle to generalize across these
    variations" (seen in `make run`: the model made the paper the subject)."""
    value_numbers, quote_numbers = _numbers(value), _numbers(quote)
    if not value_numbers <= quote_numbers:
        return False
    quoted_words = {part.casefold() for w in WORDISH.findall(quote) for part in (w, *w.split("-"))}  # "Set Transformer"
    if any(w.casefold() not in quoted_words for w in WORDISH.findall(value) if not w.islower()):
        return False
    words = [w for w in tokenize(number_digits(value)) if not _NUMBER.fullmatch(w)]
    quote_words = set(tokenize(number_digits(quote)))
    if not words:
        return bool(value_numbers)
    return sum(w in quote_words for w in words) >= settings.value_in_quote * len(words)


def number_digits(text: str) -> str:
    """Number words as digits ("five datasets" is "5 datasets"): a value and its quote may write either."""
    return re.sub(r"[A-Za-z]+", lambda m: _NUMBER_WORDS.get(m.group(0).casefold(), m.group(0)), text)


def _numbers(text: str) -> set[str]:
    """The numbers of ``text``, "60,000" and "60, 000" (a model's spacing) as "60000"."""
    joined = re.sub(r"(?<=\d),\s?(?=\d{3}\b)", "", number_digits(text))
    return {n.replace(",", "").rstrip(".") for n in _NUMBER.findall(joined)}


def clean_value(raw: str, settings: CompareSettings) -> str | None:
    """A reply made a value: its first line, quotes, citation markers and a
    final period stripped; "none" (or a refusal) is None; a sentence is no
    value either."""
    first = (raw.strip().splitlines() or [""])[0]
    value = _MARKER.sub("", first).strip().rstrip(".").strip("\"'“”‘’`* ").rstrip(".").strip()
    return None if not value or _NONE.match(value) or len(value.split()) > settings.value_words else value


def link_value(aspect: str, quote: str) -> str | None:
    """The link a quote gives for an aspect about code, data or a project
    page: copied as is, with no model call (the 1.5B model answers "none"
    to most of them, measured on the dev cells)."""
    if not _LINK_ASPECT.search(aspect):
        return None
    link = _LINK.search(quote)
    return link.group(0).rstrip(".,;:)") if link else None


def count_value(aspect: str, quote: str) -> str | None:
    """The count a quote gives for a counted aspect, copied as written: a
    number followed, within four words of one clause, by a word of the aspect
    ("25,000 subjects" for "subjects", "11 representative EEG tasks" for
    "number of downstream tasks"). No model call: asked for such cells, the
    1.5B model gave another count of the same sentence ("92 datasets" for
    "subjects", measured on the dev cells). Not for the broad default
    aspects: a count is only part of a paper's "data"."""
    if default_aspect(aspect):
        return None
    wanted = set(tokenize(aspect)) - _FILLER
    for match in _COUNTED.finditer(quote):
        words = match.group(0).split()
        last = 0
        for j, word in enumerate(words[1:], 1):
            if set(tokenize(word)) & wanted:
                last = j  # the last of the aspect's words: "10 downstream EEG tasks", not "10 downstream"
            if word[-1] in ",;:)":
                break  # the clause ends: a later word counts something else
        if last:
            return " ".join(words[: last + 1]).rstrip(".,;:)")
    return None


#: Where an abstract's opening names its field: "In large-scale recommendation systems, …",
#: "Recent advances in scientific machine learning (SciML) have …", "… great potential in automating seizure detection."
_FIELD_PHRASE = re.compile(
    r"^(?:In|Within|Across) (?P<lead>[^,]{3,80}?),"
    r"|\b(?:advances|progress|research|problems|work|interest|potential|applications?) (?:in|on) "
    r"(?P<after>(?:(?!\b(?:have|has|is|are|was|were|can|remains?)\b)[^,;.]){3,80}?)(?=\s+(?:have|has|is|are|was|were|can|remains?)\b|[,;.]|$)")


def field_value(aspect: str, quote: str) -> str | None:
    """The field an abstract's opening names, for an aspect asking it
    ("application domain"), copied with no model call: the 1.5B model gave
    "Dynamic GNNs" for "… have shown great potential in automating seizure
    detection" and nothing for "In large-scale recommendation systems, …"
    (dev cells)."""
    if not _aspect_words(aspect) & _FIELD:
        return None
    match = _FIELD_PHRASE.search(quote)
    phrase = match and (match.group("lead") or match.group("after"))
    return phrase.strip() if phrase and len(phrase.split()) <= 10 else None


#: How many words a value cut mid-clause may gain when completed from its quote.
_COMPLETE_WORDS = 8
#: Where a completed value stops: a clause's end, or a verb that starts a new clause after a
#: noun value ("cancer treatment efficacy" is not run on into "… exhibits high heterogeneity").
_CLAUSE_END = re.compile(r"[,;:.()\[\]]|\s[\u2013\u2014-]+\s|$|(?:^|\s)(?:is|are|was|were|has|have|had|can|could|will|"
                         r"would|may|might|must|should|does|do|did|exhibits?|shows?|remains?|becomes?)\b")


def complete_value(value: str, quote: str) -> str:
    """A value the model copied from its quote, run on to the end of its
    clause when the quote's words go on ("action labels" → "action labels
    derived from a curated ethogram"; "much higher capacity" → "much higher
    capacity: exponential in the number of hidden units"), at most
    ``_COMPLETE_WORDS`` more words, else as it is: on the dev cells the 1.5B
    model stopped mid-phrase for a third of the values whose quote was right
    and whose value was wrong. A count ("60,000 hours") is whole as it is."""
    start = quote.casefold().find(value.casefold())
    end = start + len(value)
    if start < 0 or any(ch.isdigit() for ch in value) or (end < len(quote) and quote[end].isalnum()):
        return value
    colon = quote[end:].startswith(":")  # "capacity: exponential in …" — what follows the colon says it
    rest = quote[end + colon:]
    if rest[:1] not in {" ", ""} or not rest.strip():
        return value
    stop = _CLAUSE_END.search(rest.lstrip())
    added = rest.lstrip()[: stop.start() if stop else None].strip()
    if not added or len(added.split()) > _COMPLETE_WORDS:
        return value
    return quote[start:end] + (":" if colon else "") + " " + added


def quoted_span(value: str, quote: str, settings: CompareSettings) -> str:
    """The quote's own words for a value the model reworded: the shortest
    run of at most ``value_words`` quote words that holds every word of the
    value ("5 datasets" → "five sign language datasets"), else the value as
    it is. The table promises values copied from their quote, and on the dev
    cells the 1.5B model rewrote a tenth of the values it was asked to copy."""
    if value.casefold() in quote.casefold():
        return value
    wanted = set(tokenize(number_digits(value)))
    if not wanted:
        return value
    words = [(m.start(), m.end(), set(tokenize(number_digits(m.group(0))))) for m in re.finditer(r"\S+", quote)]
    best: tuple[int, int] | None = None
    for i in range(len(words)):
        found: set[str] = set()
        for j in range(i, min(len(words), i + settings.value_words)):
            found |= words[j][2]
            if wanted <= found:
                if best is None or j - i < best[1] - best[0]:
                    best = (i, j)
                break
    if best is None:
        return value
    start, end = best
    said = {w.strip(".,;:()").casefold() for w in value.split()}
    while end + 1 < len(words) and quote[words[end + 1][0]: words[end + 1][1]].strip(".,;:()").casefold() in said:
        end += 1  # a word the value says that search leaves out ("100,000 research papers")
    span = quote[words[start][0]: words[end][1]].strip(" .,;:\"'")
    if span.count("(") != span.count(")"):  # "(TCTC)" is kept whole, a half of one is not
        span = span.strip("()")
    return span


def clause_value(aspect: str, quote: str, settings: CompareSettings) -> str | None:
    """The clause of a quote that names its aspect ("Using a masked
    autoencoding objective" for "pretraining objective"), at most
    ``value_words`` words, from a few before the aspect's word (a value
    comes on either side of it: "the EEGSSM architecture", "the task of
    action recognition"): the value when the model gave none that its quote holds
    (the 1.5B model missed most named values on the dev cells). A default
    aspect's clause is found by its cue words ("outperforms" for results);
    a result's clause with a figure comes first ("surpassing … by 6.2%",
    not "can be further improved when paired with …")."""
    wanted = _aspect_words(aspect)
    default = default_aspect(aspect)
    cue = ASPECTS[default][0] if default else None

    def says(word: str) -> bool:
        tokens = set(tokenize(word))
        return bool(cue and cue.search(word)) or any(_states_word(w, word, tokens) for w in wanted)

    clauses = _CLAUSE.split(quote)
    if default == "evaluation and results":  # a result's clause with its figure first ("by 6.2%")
        clauses.sort(key=lambda c: not (_NUMBER.search(c) and any(says(w) for w in c.split())))
    for clause in clauses:
        words = clause.split()
        hits = [j for j, word in enumerate(words) if says(word)]
        if not hits or len(hits) == len(words):
            continue  # no word of the aspect, or nothing but them ("However," for the problem)
        last = len(words) - settings.value_words  # the start of the window that ends with the clause
        start = max(0, last if hits[0] >= last else hits[0] - _LEAD_WORDS)
        end = start + settings.value_words
        while start < hits[0] and words[start].casefold() in _JOINING:
            start += 1  # a cut clause neither starts on "and" nor ends on "under the"
        while end - 1 > hits[0] and end < len(words) and words[end - 1].casefold() in _JOINING | _LEADING:
            end -= 1
        words = words[start:end]
        return " ".join(words).strip(" .,;:") or None
    return None


def copy_values(grid: Grid) -> list[tuple[Paper, str, Cell]]:
    """Each stated cell's link, count or field, copied from its quote with
    no model call; returns the stated cells left for the model, in order."""
    left = []
    for p, paper in enumerate(grid.papers):
        for aspect, row in zip(grid.aspects, grid.rows, strict=True):
            cell = row[p]
            if not cell.stated:
                continue
            if copied := (link_value(aspect, cell.quote) or count_value(aspect, cell.quote)
                          or field_value(aspect, cell.quote)):
                cell.value = copied
            else:
                left.append((paper, aspect, cell))
    return left


def fill_values(grid: Grid, left: Sequence[tuple[Paper, str, Cell]], ask: Callable[[str], str],
                settings: CompareSettings) -> Generator[Table, None, str | None]:
    """The model's value for each cell ``copy_values`` left (one short
    request per cell), held to its quote; after each but the last, the
    table so far. Returns the failure that stopped it, if one did: the
    cells filled so far keep their values, the rest keep their quotes."""
    for asked, (paper, aspect, cell) in enumerate(left, start=1):
        try:
            value = clean_value(ask(prompts.COMPARE_VALUE.format(name=paper.name, quote=cell.quote, aspect=aspect,
                                                                 words=settings.value_words)), settings)
        except LLMUnavailable as exc:
            return str(exc)
        held = value is not None and value_in_quote(value, cell.quote, settings)
        if value is not None and not held:
            grid.dropped.append({"paper_id": paper.paper_id, "aspect": aspect, "value": value})
        kept = quoted_span(value, cell.quote, settings) if value is not None and held else None
        if not (kept and _names_aspect(aspect, kept)):  # none held, or one that does not say its aspect
            # ("16 channels" for "baseline"): the clause naming the aspect, else the held value, else none
            kept = clause_value(aspect, cell.quote, settings) or kept
        cell.value = complete_value(kept, cell.quote) if kept else None
        if asked < len(left):  # the last one is the final table, the caller's
            yield grid.event(values=False, asked=asked, asking=len(left))
    return None


# -- the comparison ----------------------------------------------------------------------
def table(selector: EvidenceSelector, papers: list[Paper], aspects: list[str], settings: CompareSettings) -> Grid:
    """The table shown at once: each cell's quote, and the links, counts
    and fields copied from the quotes (no model call); the cells left for
    the model are those ``values`` asks about."""
    check_count(papers)
    grid = extract(papers, aspects, selector.sentence_vectors, selector.embedder.embed, settings)
    left = copy_values(grid)
    grid.left = left if settings.model_values else []
    return grid


def values(grid: Grid, ask: Callable[[str, int], str], settings: CompareSettings) -> Generator[Event, None, None]:
    """The model's short values for the cells ``table`` left, the table
    again after each (``ask(prompt, max_tokens)`` sends the model one
    prompt), then the whole table. They come after the narrative: a value
    per cell takes about half a minute for 5 papers on 2 cores, and the
    narrative, which reads the quotes and not the values, waited for them
    (its first word 48 s after a two-paper comparison asked in chat)."""
    grid.error = yield from fill_values(grid, grid.left, lambda prompt: ask(prompt, settings.value_tokens), settings)
    yield grid.event(values=True)


def evidence(selector: EvidenceSelector, grid: Grid, lines: Sequence[Evidence]) -> list[Evidence]:
    """Each paper as a source whose quoted sentences are its table cells and
    the sentences of its own line (``lines_evidence``): the model writes the
    narrative from what the answer shows. Without the lines' sentences a
    question asked of each paper ("what kind of graph does each one build?")
    went unanswered whenever no default aspect's cell held it: dev compare
    messages had 11 of 17 facts in the narrative's sources, 14 with them."""
    hits = [Hit(p, 1.0, 1.0, True) for p in grid.papers]
    chosen = selector.select(" ".join(p.name for p in grid.papers), hits, 1, 0)
    for p, (e, line) in enumerate(zip(chosen, lines, strict=True)):
        e.chosen = sorted({i for row in grid.rows if (i := row[p].sentence) is not None} | set(line.chosen))
    return chosen


#: Words that ask for a comparison, not about the papers: a question of only
#: these ("CSBrain vs REVE: what's actually different about them?") asks nothing of each paper.
_COMPARING = frozenset(tokenize("compare comparison versus vs differ differences similar similarity contrast "
                                "each both other what's actually about them they their it its this these those "
                                "how do does did is are was were between among"))


def lines_evidence(selector: EvidenceSelector, papers: Sequence[Paper], question: str) -> list[Evidence]:
    """Each paper's sentences for its own line in the answer: what it does
    (its "we propose" sentence, the one naming the paper where several
    propose: see ``gist_sentence``), the sentence right after it, where
    abstracts say how (the parts of the method: "REVE introduces a 4D
    positional encoding…"), and, when the question asks something of each
    paper ("what is each trying to predict?"), its two sentences after the
    first "we propose" that best answer it too.

    The sentence after "we propose" is there because MiniLM often ranks
    the one after an answer above it ("CSBrain vs EvoBrain, what does each
    use to capture dependencies across time?"). Two closest sentences, not
    one: "what does each rely on" missed AGM's "…with mutual information"
    and MixSignGraph's "…generates pseudo gloss labels" (dev comparison
    messages, 2026-12-04: 44 of 50 facts in the sources, 45 with the named
    "we propose", 47 with two). Sentences before the first "we propose"
    describe the field and its problem: "how does each one cope when the
    input channels change?" drew "the composition … of the recorded
    populations are unstable" over SPINT's answer (32 of 46 facts in the
    sources before they were left out, 36 after). The papers' names are
    taken out of the question first, so that no sentence wins only by
    naming its paper. Numbered as ``evidence``."""
    asked = question
    for paper in papers:
        for name in {paper.name, paper.title} - {""}:
            asked = re.sub(re.escape(name), " ", asked, flags=re.IGNORECASE)
    asks_each = {t for t in tokenize(asked) if len(t) > 2} - _COMPARING
    chosen = selector.select(asked if asks_each else question, [Hit(p, 1.0, 1.0, True) for p in papers], 1, 0)
    for e in chosen:
        gist = gist_sentence(e.sentences, e.paper.name)
        after = min(gist + 1, len(e.sentences) - 1)
        own = range(gist_sentence(e.sentences) + 1, len(e.sentences))  # from the first "we study" on
        best = sorted((i for i in own if i != gist), key=lambda i: -float(e.relevance[i]))[:2]
        e.chosen = sorted({gist, after, *best} if asks_each else {gist, after})
    return chosen


def listing(evidence: list[Evidence]) -> str:
    """'[1] CSBrain, [2] REVE': the papers as the narrative prompt names them."""
    return ", ".join(f"[{e.n}] {e.paper.name}" for e in evidence)


# -- exports ---------------------------------------------------------------------------
def to_csv(papers: Sequence[dict[str, Any]], table: Sequence[dict[str, Any]]) -> str:
    """The table for a spreadsheet: one row per paper; per aspect its value
    (or "not stated") and the quote it rests on."""
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(["paper", "venue", "paper_id", *[f"{row['aspect']}{part}" for row in table
                                                     for part in ("", " (quote)")]])
    for p, paper in enumerate(papers):
        cells = [row["cells"][p] for row in table]
        writer.writerow([paper["title"], paper["venue"], paper["paper_id"],
                         *[text for c in cells for text in (cell_text(c), c["quote"])]])
    return out.getvalue()
