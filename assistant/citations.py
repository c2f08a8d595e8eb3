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
from collections.abc import Collection
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

import numpy as np

from assistant.answerability import NUMBER_WORDS, responds
from assistant.chunking import ABBREVIATION_END, sentences
from assistant.crosslingual import CJK, dictionary_query, has_cjk
from assistant.evidence import Evidence
from assistant.lexical import tokenize
from assistant.mentions import as_word, says, unmentioned, without
from assistant.naming import WORDISH, is_coined
from assistant.papers import Paper
from assistant.quantities import misbound

if TYPE_CHECKING:
    from assistant.embedding import MiniLMEmbedding

_MARKER = re.compile(r"\s*[\[【]\s*(\d+(?:\s*[,，;、]\s*\d+)*)\s*[\]】]")
#: The prompt's "[n]" copied as if it were a citation: a citation never given.
_PLACEHOLDER = re.compile(r"\s*[\[【]\s*n\s*[\]】]")
#: A marker standing for its paper as a word of the sentence ("proposed in [1] for…", "在 [1] 中"):
#: removed, it would leave a hole, so the paper's name takes its place.
_MARKER_AS_NAME = re.compile(r"(\b(?:in|from|by|see|per)\s+|[在据见]\s*)[\[【]\s*(\d+)\s*[\]】]"
                             r"(?=\s*(?:[中里的,，]|[A-Za-z\u4e00-\u9fff]))", re.IGNORECASE)
#: Markers as the subject of their sentence or clause ("[1] focuses on human judges, while [2] considers…",
#: "[1] and [2] both use…"; 8 of 729 cached dev and test replies): a citation opening a sentence belongs to
#: the one before it ("… . [2] Next"), which would leave "focuses on…, while considers…" without its paper.
#: Within a sentence, or several of them, the papers' names take their places at once; one opening a
#: sentence is left to the check (``SentenceSupport.subject``): "[2] also identified exploding and vanishing
#: prediction errors" is [1]'s finding (dev), and is said under [1]'s name.
_MARKER_AS_SUBJECT = re.compile(
    r"(?:^\s*|(?<=[.!?:;,])\s+|\b(?:while|whereas|but|and|however,?)\s+)"
    r"(?P<run>[\[【]\s*\d+\s*[\]】](?:(?:\s*,\s*|\s*,?\s+and\s+)[\[【]\s*\d+\s*[\]】])*)"
    r"(?=\s+(?!(?:and|or|but|nor|which|that|who|whom|whose|where|when|while|whereas|as|in|on|for|with|to|of|by|"
    r"at|from|than|the|a|an|et)\b)[a-z])")
_LEADING_MARKERS = re.compile(r"^(?:\s*[\[【]\s*\d+(?:\s*[,，;、]\s*\d+)*\s*[\]】])+")
_BULLET = re.compile(r"^\s*(?:[-*•]|\d{1,2}[.)])\s+")
#: Where a sentence comparing two papers divides into its halves.
_CLAUSE = re.compile(r",?\s+(?:while|whereas|but|and in contrast|in contrast to|unlike)\s+|;\s+|,\s+and\s+(?=[A-Z])")
#: Where a sentence sets one thing against another ("…, while …"): its halves may be two papers' findings.
_CONTRAST = re.compile(r",?\s+(?:while|whereas|in contrast to|unlike)\s+|,\s+(?:and )?in contrast,?\s+")
#: A short sentence that states nothing ("Not stated.", "N/A").
_NO_CLAIM = re.compile(r"^\W*(?:not stated|not mentioned|n/?a|none|unknown|no information)\W*$", re.IGNORECASE)
#: A sentence about every paper of the answer ("Both papers…", "All three…", "Each of them…"): it needs a
#: source for each; cited to one, it gives that paper's fact to the others (27 of the 703 sentences of the
#: 2026-12-04 comparison narratives: "Both papers use a masked autoencoding objective … 60,000 hours [2]" of
#: REVE and SPINT, "Both papers share the goal of … iBCI systems [1]" of SPINT and REVE). A topic
#: summary's "They share that they both use a two-stream Mamba architecture … [1]" (EvoBrain's, said of
#: MixSignGraph too) is one: 15 dev summaries had such a sentence cited to one paper, none holding a gold fact.
_THEY = r"(?:they|the papers|the models|these (?:papers|models|works|studies|methods))"
_OF_EVERY_PAPER = re.compile(rf"^\W*(?:both\b|they both\b|{_THEY} (?:are |were )?(?:all|both)\b|{_THEY} share\b|"
                             r"all (?:two|three|four|five|six|seven|eight)\b|all of (?:them|these|the papers|the models)\b|"
                             r"each of (?:them|these|the)\b)", re.IGNORECASE)
#: What follows a list of the answer's papers to say the rest of the sentence of each ("REVE, CSBrain, and
#: CodeBrain all present pretraining models [1]").
_EACH_OF_THE_NAMED = re.compile(r",?\s*(?:all|both|each)\b", re.IGNORECASE)


#: A subject of several papers, one named, one perhaps described, then "both"/"all"/"each" ("HetSyn and the
#: Hebbian STDP paper both discuss synaptic heterogeneity [1]", in `make run`: the user's words for the paper).
_JOINT_SUBJECT = re.compile(r"^\W*[\w'’()-]+(?:,?\s+[\w'’()-]+){0,3},?\s+and\s+(?:[\w'’()-]+\s+){0,5}?"
                            r"(?:paper|model|method|study|work|approach|framework)s?\s+(?:both|all|each)\b", re.IGNORECASE)


def _of_every_paper(text: str, evidence: list[Evidence]) -> bool:
    """The sentence says something of every paper: "Both papers …", "They
    share …", two or more papers named and then "all", "both" or "each",
    or one named in a subject of several said "both" ("A and the B paper both …")."""
    if _OF_EVERY_PAPER.match(text):
        return True
    ends = _mention_ends(text, evidence)
    return (len(ends) >= 2 and bool(_EACH_OF_THE_NAMED.match(text, max(ends.values())))) or (
        bool(ends) and bool(_JOINT_SUBJECT.match(text)))


#: Citation markers standing in for the words ("the benchmarks are [1], [2] and [3]"): with them gone,
#: a list of nothing remains.
_MARKERS_AS_WORDS = re.compile(r"[\[【]\d+[\]】]\s*[,，、]\s*(?:(?:and|or)\s+)?[\[【]\d+[\]】]\s*[,，、]?\s*(?:and|or)\s+[\[【]\d")
#: A reference list the model appends under a heading of its own ("参考文献：[1] …", "Sources:"):
#: the sources panel lists them already, and the copied source lines are no claims.
_REFERENCE_LIST = re.compile(r"\n[ \t]*(?:#+[ \t]*|\*\*)?(?:参考文献|参考资料|引用|来源|references?|sources?)(?:\*\*)?[ \t]*[:：]?"
                             r"[ \t]*(?=\n|\[|【|\Z).*\Z", re.IGNORECASE | re.DOTALL)
#: The prompt's own scaffolding, which the 1.5B model sometimes writes back before (or instead
#: of) its answer: the sources' tags and the question's label lines (2026-12-04: 9 of 29 dev
#: comparison answers opened on "<sources>", some with "Question: …" and "Answer: …" after it).
_TAG_LINE = re.compile(r"^[ \t]*</?sources>?[ \t]*$", re.IGNORECASE | re.MULTILINE)
_ECHO_LINE = re.compile(r"^[ \t]*(?:question|request|topic)[ \t]*[:：].*$", re.IGNORECASE | re.MULTILINE)
_ANSWER_LABEL = re.compile(r"^[ \t]*answer[ \t]*[:：][ \t]*", re.IGNORECASE | re.MULTILINE)


def without_scaffolding(answer: str) -> str:
    """The answer without the prompt's scaffolding written back: what
    follows an "Answer:" label after an echoed prompt, else the text with
    the tag and label lines taken out (a copied source line stays, its
    "[n] Name (Venue):" naming the paper it quotes)."""
    echoed = _TAG_LINE.search(answer) or _ECHO_LINE.search(answer)
    if not echoed:
        return answer
    labels = list(_ANSWER_LABEL.finditer(answer, echoed.start()))
    if labels and answer[labels[-1].end():].strip():
        return answer[labels[-1].end():].strip()
    return _ECHO_LINE.sub("", _TAG_LINE.sub("", answer)).strip()


#: Where a sentence ends: its stop (a period before a space, not "3.5"), then any citations and closing quotes.
_SENTENCE_END = re.compile(r"(?:[.!?](?=[\s\[【\"'”’)）]|$)|[。！？])(?:\s*[\[【][\d\s,，;、]+[\]】])*[\"'”’)）]*")


def whole_sentences(answer: str) -> str:
    """A reply cut at the token limit without its unfinished end: the
    last line up to its last finished sentence, or without the last line
    when none finished there (a list item's line is finished by its break).
    A cut just after "e.g." or "et al." is no sentence's end."""
    head, sep, last = answer.rpartition("\n")
    ends = [m.end() for m in _SENTENCE_END.finditer(last) if not ABBREVIATION_END.search(last[:m.start() + 1])]
    return (head + sep + last[:ends[-1]] if ends else head).rstrip()


#: Sentences shorter than this (in words) carry no claim to check ("In short:").
MIN_CLAIM_WORDS = 4
#: model: as written; added/corrected: citation fixed; quoted/built by construction; unsupported: dropped.
Status = Literal["model", "added", "corrected", "quoted", "unsupported"]


@dataclass
class SentenceSupport:
    """One answer sentence, the sources it cites, and how well they support it.

    ``lead`` is what stood before the sentence in the model's text (a line
    break, a list bullet), so lists and paragraphs survive checking.
    ``misattributed`` records the model's own error, before any repair: the
    sentence names one paper but cites another, or states a number or name
    found only in a source it does not cite.
    """

    text: str
    cited: list[int]
    lead: str = ""
    scores: dict[int, float] = field(default_factory=dict)
    quotes: dict[int, int] = field(default_factory=dict)
    status: Status = "model"
    misattributed: bool = False
    #: The source whose marker opened the sentence as its subject ("[2] identified…"): the name of the
    #: source the check finally cites takes its place (see ``_named_subjects``).
    subject: int | None = None

    def render(self, numbering: dict[int, int]) -> str:
        marks = "".join(f"[{numbering[n]}]" for n in self.cited if n in numbering)
        if not marks:
            return self.text
        stripped = self.text.rstrip()
        end = stripped[-1] if stripped and stripped[-1] in ".!?。！？" else ""
        body = stripped[: -1] if end else stripped
        return f"{body} {marks}{end}"


def markers(text: str) -> list[int]:
    """Every citation number in a text, in order ([1], [1, 2], 【1】), valid or not."""
    return [int(n) for match in _MARKER.finditer(text) for n in re.split(r"[,，;、]", match.group(1))]


def placeholders(text: str) -> int:
    """How many "[n]" the model wrote for a citation (counted as invalid ones)."""
    return len(_PLACEHOLDER.findall(text))


def _split_line(line: str, valid: set[int], names: dict[int, str]) -> list[SentenceSupport]:
    """One line's sentences; a citation opening a sentence ("... . [2] Next")
    belongs to the sentence before it, unless it is the sentence's subject
    ("[2] focuses on…"), when the paper's name takes its place."""
    merged: list[str] = []

    def named(m: re.Match[str]) -> str:
        return m.group(0) if int(m.group(2)) not in names else f"{m.group(1)}{names[int(m.group(2))]} [{m.group(2)}]"

    def subjects(m: re.Match[str]) -> str:
        run = markers(m.group("run"))
        opening = len(run) == 1 and (m.start() == 0 or line[m.start() - 1] in ".!?")
        if opening or any(n not in names for n in run):
            return m.group(0)  # one opening a sentence is left to the check
        return m.group(0)[: m.start("run") - m.start()] + re.sub(
            r"[\[【]\s*(\d+)\s*[\]】]", lambda n: f"{names[int(n.group(1))]} [{n.group(1)}]", m.group("run"))

    line = _MARKER_AS_NAME.sub(named, _PLACEHOLDER.sub("", line))
    line = _MARKER_AS_SUBJECT.sub(subjects, line)
    subject: dict[int, int] = {}  # sentence -> the source its opening marker stands for
    for part in sentences(line):
        lead = _LEADING_MARKERS.match(part)
        opening = markers(lead.group(0)) if lead and _MARKER_AS_SUBJECT.match(part) else []
        if len(opening) == 1 and opening[0] in names:
            subject[len(merged)] = opening[0]  # "[2] identified…": the source is its subject
        elif lead and merged:
            merged[-1] += " " + lead.group(0).strip()
            part = part[lead.end():].strip()
        if part:
            merged.append(part)
    claims = []
    for k, part in enumerate(merged):
        cited = [n for n in dict.fromkeys(markers(part)) if n in valid]
        text = re.sub(r"\s+([.,;:!?。])", r"\1", _MARKER.sub("", part)).strip()
        if text.endswith(("?", "？")):
            continue  # a question is no claim: the user's question said back ("HetSyn vs Meta-PCN - what's …? [1]")
        claims.append(SentenceSupport(text=text, cited=cited, lead=" ",
                                      status="unsupported" if _MARKERS_AS_WORDS.search(part) else "model",
                                      subject=subject.get(k)))
    return claims


def _named_subjects(claims: list[SentenceSupport], names: dict[int, str]) -> list[SentenceSupport]:
    """Each sentence opened by a marker as its subject, opened by the name
    of the source the check cites for it: the one the model wrote when it
    still stands, else the only one cited."""
    for claim in claims:
        if claim.subject is not None:
            n = claim.subject if claim.subject in claim.cited or len(claim.cited) != 1 else claim.cited[0]
            claim.text = f"{names[n]} {claim.text}"
    return claims


def split_claims(answer: str, valid: set[int], names: dict[int, str] | None = None) -> list[SentenceSupport]:
    """Answer sentences with their valid citation numbers (markers removed;
    one standing for its paper, by ``names``, gives way to the paper's name),
    each remembering the line break or list bullet that preceded it."""
    claims: list[SentenceSupport] = []
    breaks = ""
    for line in _REFERENCE_LIST.sub("", without_scaffolding(answer)).strip().split("\n"):
        if not line.strip():
            breaks = "\n\n"
            continue
        bullet = _BULLET.match(line)
        body = line[bullet.end():] if bullet else line
        line_claims = _split_line(body, valid, names or {})
        if line_claims:
            line_claims[0].lead = (breaks or "\n") + (bullet.group(0).strip() + " " if bullet else "")
            claims.extend(line_claims)
            breaks = ""
    if claims:
        claims[0].lead = claims[0].lead.lstrip("\n")
    return claims


def render_claims(claims: list[SentenceSupport], order: dict[int, int]) -> str:
    """The kept sentences with their citations, in the model's layout. A
    dropped sentence that opened a line hands its line break and bullet to
    the next sentence of that line."""
    out: list[str] = []
    carried = ""
    for claim in claims:
        if claim.status == "unsupported" or not claim.text:
            if claim.lead != " ":
                carried = carried or claim.lead
            continue
        lead = carried if carried and claim.lead == " " else claim.lead
        carried = ""
        out.append(lead + claim.render(order))
    return "".join(out).strip()


def _claim_size(text: str) -> int:
    """Words, counting two CJK characters as one (Chinese has no spaces)."""
    cjk = len(CJK.findall(text))
    return len(CJK.sub(" ", text).split()) + cjk // 2


def _salient(text: str) -> set[str]:
    """Numbers and coined names in a text: what a model invents when it
    confabulates ('1e-5', '10 hours', 'GPT-4'), normalised for matching."""
    numbers = {n.replace(",", "") for n in re.findall(r"\d+(?:[.,]\d+)*", text)}
    words = (_name_part(w) for w in WORDISH.findall(text))
    return numbers | {w.casefold() for w in words if is_coined(w)}


def _name_part(word: str) -> str:
    """A hyphenated word without its plain lower-case parts: "DNN-based"
    names DNN, "SubcorticalBlock-enhanced" names SubcorticalBlock (an answer
    saying "the DNN-based method" of an abstract that says "DNN" was
    dropped as naming what no source holds)."""
    parts = word.split("-")
    named = [p for p in parts if not (p.isalpha() and p.islower())]
    return "-".join(named) if named and len(named) < len(parts) else word


def _mention_ends(text: str, evidence: list[Evidence]) -> dict[int, int]:
    """Sources whose paper the sentence names (by its short name), each with where its last mention ends."""
    folded = text.casefold()
    found = {e.n: [m.end() for m in re.finditer(rf"(?<![\w-]){re.escape(e.paper.name.casefold())}(?![\w-])", folded)]
             for e in evidence if len(e.paper.name) >= 3}
    return {n: ends[-1] for n, ends in found.items() if ends}


def _mentions(text: str, evidence: list[Evidence]) -> list[int]:
    """Sources whose paper the sentence names (by its short name)."""
    return list(_mention_ends(text, evidence))


def _parts(text: str, evidence: list[Evidence]) -> list[str]:
    """A sentence about two named papers ("A does X, while B does Y") is
    checked clause by clause: no single source sentence says both halves.
    So is a contrast that names one paper among several sources ("HetSyn
    models …, while the Hebbian STDP rule relates to noisy gradient
    descent [1]"): the paper set against it goes by the user's words for
    it, not its name, and its finding was cited to HetSyn."""
    named = len(_mentions(text, evidence))
    if named < 2 and not (named == 1 and len(evidence) >= 2 and _CONTRAST.search(text)):
        return [text]
    parts = [p for p in (_CLAUSE if named >= 2 else _CONTRAST).split(text) if _claim_size(p) >= 3]
    return parts if len(parts) > 1 else [text]


@dataclass
class _Part:
    """One checked clause: its best sentence per source, and what it may cite."""

    scores: dict[int, float]
    quotes: dict[int, int]
    named: list[int]
    owners: list[set[int]]
    tied: set[int] = field(default_factory=set)  # sources held to the lower bar (see ``attribute``)
    restated: set[int] = field(default_factory=set)  # sources one sentence of which says it all: no cosine needed
    foreign: set[int] = field(default_factory=set)  # sources the clause's words place in the asked-about paper


def _owners(items: set[str], known: dict[int, set[str]]) -> list[set[int]]:
    """For each number or coined name a clause states, the sources that hold it."""
    return [{n for n, theirs in known.items() if item in theirs} for item in items]


def _holding(cited: list[int], owners: list[set[int]]) -> list[int]:
    """The cited sources that hold one of a clause's numbers or names
    (all of them when it states none): a source holding none gives none of its facts."""
    return [n for n in cited if any(n in own for own in owners)] if owners else cited


def _check(part: _Part, cited: list[int], valid: set[int], threshold: float, lower: float) -> list[int] | None:
    """The sources that support a clause, preferring those the model cited;
    None when none does. A clause naming a paper may cite only that paper,
    and the sources it cites must hold its numbers and coined names. A
    source the clause is tied to supports it from the ``lower`` cosine,
    one that restates it whatever the cosine; a ``foreign`` one never does."""
    allowed = (set(part.named) or valid) - part.foreign

    def holds(n: int) -> bool:
        return n in part.restated or part.scores[n] >= (min(lower, threshold) if n in part.tied else threshold)

    supported = _holding([n for n in cited if n in allowed and holds(n)], part.owners)
    if supported and all(own & set(supported) for own in part.owners):
        return supported
    candidates = allowed.intersection(*part.owners) if part.owners else allowed
    best = max(candidates, key=lambda n: (holds(n), part.scores[n]), default=None)
    return [best] if best is not None and holds(best) else None


#: How much closer a clause naming one paper must be to another paper's
#: sentence than to any of its own to be that other paper's finding.
ELSEWHERE_MARGIN = 0.1


def _elsewhere(part: _Part, threshold: float) -> bool:
    """The clause names a paper but restates another paper's sentence: one
    of another source is close (``threshold``) and nearer, by
    ``ELSEWHERE_MARGIN``, than any sentence of the paper it names. "DeepSADR
    builds a spatial cell graph and each cell is represented by its … gene
    co-expression network graph" is HEIST's sentence (cosine 0.77 to it,
    0.64 to DeepSADR's best) and holds no number or name to catch it by. On
    the dev replies the nearest right clause was 0.103 short of the margin
    (dev comparisons; on the single-question path 0.297 short)."""
    if not part.named:
        return False
    own = max(part.scores[n] for n in part.named)
    other = max((v for n, v in part.scores.items() if n not in part.named), default=-1.0)
    return other >= threshold and other - own >= ELSEWHERE_MARGIN


#: Words that make a restated clause say the opposite ("it does not go away").
_NEGATION = re.compile(r"\b(?:not|no|never|cannot|neither|nor)\b|n't\b", re.IGNORECASE)


@dataclass(frozen=True)
class _Words:
    """A source's stemmed words, tokenized once per answer checked: its
    abstract's, and each sentence's with whether it negates."""

    abstract: frozenset[str]
    sentences: tuple[tuple[frozenset[str], bool], ...]

    @classmethod
    def of(cls, e: Evidence) -> _Words:
        return cls(frozenset(tokenize(e.paper.abstract)),
                   tuple((frozenset(tokenize(s)), bool(_NEGATION.search(s))) for s in e.sentences))


#: Words of a clause, beyond the question's, that one source sentence must
#: all hold for the clause to stand without a cosine (see ``_contained``).
RESTATED_WORDS = 3
#: Words only another shown paper uses that make a clause that paper's.
FOREIGN_WORDS = 2


#: English terms an uncited Chinese sentence must share with one source, and
#: more than with any other, to be cited to it (see ``_cjk_source``).
CJK_SHARED_TERMS = 2
#: Terms every abstract uses: sharing them says nothing of where a sentence comes from.
_EVERYWHERE = frozenset(tokenize("paper study work model models method approach result results data network networks "
                                 "neural learning propose proposed task tasks performance framework"))


def _cjk_source(text: str, asked: set[str], words: dict[int, _Words]) -> list[int]:
    """The source an uncited sentence in Chinese states: MiniLM cannot
    compare it, but its Latin-script terms ("Krotov", "Set Transformer") and
    the term dictionary's English for its Chinese ones (联想记忆: associative
    memory) can be looked up. The one source sharing the most of them, at
    least ``CJK_SHARED_TERMS`` beyond the question's and the generic ones;
    none on a tie. 24 of the 38 sentences of 16 Chinese dev answers had no
    citation, 5 answers none at all (2026-12-04)."""
    terms = set(tokenize(dictionary_query(text))) - asked - _EVERYWHERE
    shared = {n: len(terms & w.abstract) for n, w in words.items()}
    best = max(shared.values(), default=0)
    top = [n for n, k in shared.items() if k == best]
    return top if best >= CJK_SHARED_TERMS and len(top) == 1 else []


#: Number words as ``tokenize`` stems them: all that a "how many" answer may add to its question.
_NUMBER_WORDS = frozenset(tokenize(" ".join(NUMBER_WORDS)))


def _foreign(said: set[str], words: dict[int, _Words], by: int | None = None) -> set[int]:
    """The sources a clause (``said``, its words) cannot be from: it uses
    ``FOREIGN_WORDS`` words their abstract lacks and another shown paper's
    (``by``: that source's) has; one such word ("people", "than") is chance."""
    return {n for n, own in words.items()
            if any(len((said - own.abstract) & other.abstract) >= FOREIGN_WORDS
                   for m, other in words.items() if m != n and by in (None, m))}


def _contained(text: str, said: set[str], asked: set[str], words: dict[int, _Words],
               foreign: set[int]) -> tuple[set[int], int]:
    """The sources in one sentence of which every word the clause adds to
    the question (``asked``, at least two words, or one that is a number:
    "Earth-Iron covers five Earth spheres" for "how many Earth spheres do
    Earth-Iron and Earth-Silver cover?", cosine 0.45 to the sentence listing
    five spheres, 114 disciplines and 11 task categories; one added name is
    too little: "DeepSADR models retinal ganglion cells…" adds only
    "DeepSADR", which its own abstract holds) stands, the clause
    negating only where that sentence does, and how many words it adds.
    "The subjects were recorded from human and non-human primates" for
    "…which kinds of subjects…?" is the source's "…in human and non-human
    primates", at cosine 0.43 to it; "Probing was 278 times less
    computationally expensive than fine-tuning" is a clause of one long
    sentence, at cosine 0.25 to it. Not a ``foreign`` source (see
    ``_foreign``): "the study on AI debate with biased judges considers 22
    demographic groups" describes the debate paper with the other paper's
    figure. ``said``: the clause's words, tokenized."""
    added = said - asked
    if len(added) < 2 and not (added and added <= _NUMBER_WORDS | {w for w in added if w.isdigit()}):
        return set(), len(added)
    negates = bool(_NEGATION.search(text))
    return {n for n, own in words.items() if n not in foreign
            and any(added <= sentence and negates == negated for sentence, negated in own.sentences)}, len(added)


#: A sentence led by the answer to a yes-or-no question.
_YES_NO = re.compile(r"\s*(?:yes|no)\b", re.IGNORECASE)
#: Words a sentence may add to its question and still only say the question back (see ``_premise``).
PREMISE_ADDED_WORDS = 1
#: The question's words, in no shown abstract, that make such a sentence the question's own premise.
PREMISE_UNSTATED_WORDS = 3


def _premise(text: str, asked: set[str], shown: set[str]) -> bool:
    """Whether a sentence states the question's own premise: it adds at
    most ``PREMISE_ADDED_WORDS`` words to the question (``asked``) and says
    at least ``PREMISE_UNSTATED_WORDS`` of the question's words that no
    shown abstract uses (``shown``: their words). "The authors admit that
    HetSyn introduces an extra memory cost and training cost per-synapse
    time constants" for "what downsides of HetSyn do the authors admit,
    like the extra memory or training cost of per-synapse time constants?"
    (dev): the cosine to HetSyn's abstract passes, as the question's does.
    Two such words are too few ("Temporal modeling should be done before
    graph modeling" answers "in what order … should be done?"), and a
    negated sentence, or one led by "Yes"/"No", answers a yes-or-no question
    ("… does not go away with bigger models")."""
    if has_cjk(text) or _YES_NO.match(text) or _NEGATION.search(text):
        return False  # Chinese is not tokenized; a yes or a no answers the question
    said = set(tokenize(text))
    return len(said - asked) <= PREMISE_ADDED_WORDS and len((said & asked) - shown) >= PREMISE_UNSTATED_WORDS


#: A result of one paper against another ("CSBrain consistently outperforms REVE across 11 tasks").
_AGAINST = re.compile(r"\b(?:outperform\w*|beat(?:s|ing)?|surpass\w*|(?:better|worse|stronger|weaker) than|"
                      r"superior to|inferior to|exceed\w*|improves? (?:up)?on)\b|优于|超过|胜过|不如|强于|好于", re.IGNORECASE)


def _head_to_head(text: str, named: list[int], papers: dict[int, Paper]) -> bool:
    """Whether a clause sets two shown papers against each other ("CSBrain
    consistently outperforms REVE", asked "Does CSBrain beat REVE?") though
    neither's abstract names the other: each abstract reports its own
    results against its own baselines, so no source can state the match
    (its cosine to CSBrain's "outperforms both task-specific and foundation
    models" passes). ``papers``: the shown papers by source number."""
    sides = [n for n in dict.fromkeys(named) if n in papers]
    if len(sides) < 2 or any(all(says(papers[n].abstract, papers[m].name) for m in sides if m != n) for n in sides):
        return False
    at = {n: [m.start() for m in re.finditer(as_word(papers[n].name), text, re.IGNORECASE)] for n in sides}
    # the result stands between the two names ("A outperforms B", "B is beaten by A"), not after a heading
    # that names both ("POCO vs SPINT: SPINT … outperforming existing baselines")
    return any(any(i < match.start() for i in at[a]) and any(j > match.end() for j in at[b])
               for match in _AGAINST.finditer(text) for a in sides for b in sides if a != b)


#: A verdict between papers that needs no object ("better", "the best"); what it may be against ("than prior
#: models"). "Outperforms" says what it beats ("… outperforms both task-specific models"): ``_head_to_head``.
_VERDICT = re.compile(r"\b(?:better|best|worse|worst|superior|inferior|stronger|weaker|preferable|wins?)\b|"
                      r"更好|更优|最好|最佳|更强", re.IGNORECASE)
_TARGET = re.compile(r"\b(?:than|compared (?:to|with)|over|against|relative to|versus|vs\.?)\b|比|相比|优于", re.IGNORECASE)


def _verdict(text: str, named: list[int], rivals: list[int], papers: dict[int, Paper]) -> bool:
    """Whether a clause gives the verdict a question asks between shown
    papers (``rivals``: "Which model is better for sleep staging, REVE or
    CodeBrain?" got "CodeBrain is better for sleep staging [2]"), with
    nothing it is against, though the paper it names never names the
    others: each abstract reports its own baselines, never the other
    paper. "CodeBrain generalizes better than prior EEG models" says what
    it is against, and stands or falls by the cosine."""
    sides = [n for n in dict.fromkeys(named) if n in rivals]
    return (len(rivals) >= 2 and bool(sides) and bool(_VERDICT.search(text)) and not _TARGET.search(text)
            and not any(says(papers[n].abstract, papers[m].name) for n in sides for m in rivals if m != n))


#: A sentence going on about the paper of the one before it ("它使用了…", "It uses…").
_PRONOUN_LED = re.compile(r"^\s*(?:它们?|该(?:论文|模型|方法|研究)?|这(?:篇|个)?(?:论文|模型|方法|研究)|"
                          r"(?:it|they|this (?:paper|model|method|work|study))\b)", re.IGNORECASE)
#: Where a long source sentence lists separate findings: "…: (1) …; and (2) …", "…, while …".
_SOURCE_CLAUSE = re.compile(r";\s+|:\s+(?=\(?\d\))|,?\s+(?:and\s+)?\(\d\)\s+|,\s+(?:while|whereas)\s+")
#: Words from which a source sentence is also matched clause by clause.
LONG_SENTENCE_WORDS = 20


def source_clauses(e: Evidence) -> list[tuple[int, str]]:
    """The clauses of a source's long sentences, each with its sentence's
    index. An answer sentence stating one finding of a sentence that lists
    two ("two pathologies: (1) … at network boundaries; and (2) exploding and
    vanishing prediction errors sensitive to weight variance") is far from
    the whole in MiniLM (cosine 0.39) and near its clause (0.66)."""
    found = []
    for i, sentence in enumerate(e.sentences):
        if len(sentence.split()) >= LONG_SENTENCE_WORDS:
            parts = [p for p in _SOURCE_CLAUSE.split(sentence) if len(p.split()) >= MIN_CLAIM_WORDS]
            found += [(i, p) for p in parts] if len(parts) > 1 else []
    return found


@dataclass(frozen=True)
class _Clauses:
    """A source's clauses (see ``source_clauses``): their sentences' indices and vectors."""

    index: np.ndarray
    vectors: np.ndarray

    def scores(self, e: Evidence, vector: np.ndarray) -> np.ndarray:
        """Cosine to each sentence of the source: the sentence's, or its best clause's when higher."""
        scores = e.vectors @ vector
        if len(self.index):
            np.maximum.at(scores, self.index, self.vectors @ vector)
        return scores


#: Words whose swap turns a finding around, as ``tokenize`` stems them ("278 times more expensive").
_OPPOSITES = tuple((frozenset(tokenize(a)), frozenset(tokenize(b))) for a, b in (
    ("more", "less fewer"), ("higher", "lower"), ("increase", "decrease"), ("better", "worse"),
    ("faster", "slower"), ("larger", "smaller"), ("outperforms", "underperforms")))


def _unflipped(scores: np.ndarray, said: set[str], source: _Words) -> np.ndarray:
    """``scores`` with the sentences that say the opposite of the clause
    (``said``, its words) left out: MiniLM puts "278 times more
    computationally expensive" as near to "278 times less computationally
    expensive" as to itself, all the nearer in a clause of its own."""
    flipped = [i for i, (words, _) in enumerate(source.sentences)
               for one, other in _OPPOSITES for a, b in ((one, other), (other, one))
               if said & a and not words & a and words & b]
    if flipped:
        scores = scores.copy()
        scores[flipped] = -1.0
    return scores


def _embedded(embedder: MiniLMEmbedding, texts: list[str], evidence: list[Evidence]
              ) -> tuple[np.ndarray, dict[int, _Clauses]]:
    """The vectors of ``texts`` and each source's clauses, in one call to the embedder."""
    clauses = {e.n: source_clauses(e) for e in evidence}
    vectors = np.asarray(embedder.embed(texts + [c for n in clauses for _, c in clauses[n]]))
    out, at = {}, len(texts)
    for n, found in clauses.items():
        out[n] = _Clauses(np.array([i for i, _ in found], dtype=int), vectors[at:at + len(found)])
        at += len(found)
    return vectors[:len(texts)], out


def attribute(answer: str, evidence: list[Evidence], embedder: MiniLMEmbedding, threshold: float,
              question: str = "", papers: Collection[str] = (), named_threshold: float | None = None,
              about: int | None = None, identify: bool = False) -> list[SentenceSupport]:
    """Check, add and correct the citations of every answer sentence.

    A sentence is supported by a source when one of its sentences is close
    (cosine >= ``threshold``) and the source holds every number and coined
    name the sentence states (the question's own words excepted, but for
    names no abstract shown uses: "used FaceForensics++ and Celeb-DF" echoes
    the question's guess, and so does "ran on Llama and Qwen", though such
    plain capitalised words are not coined names). A sentence that names a paper may only cite that
    paper. So a fact of paper A written under paper B's name, or with B's
    numbers, is re-cited to the paper that states it, or dropped when none
    does. ``papers`` are the indexed papers' names (see ``unmentioned``).
    A clause tied to a source is held to ``named_threshold`` there
    (default: ``threshold``): one stating a coined name that only its
    source holds ("evaluated on GSM8K, BBH and CogBench", cosine 0.55 to the
    sentence listing them), or one whose added words all stand in one of
    the source's sentences (see ``_contained``). A short clause is far in
    MiniLM from the long sentence that says it, so a long source sentence is
    also matched clause by clause (see ``source_clauses``). A sentence said
    of every paper ("Both papers …") needs two sources that support it.
    ``about`` is the source the question asks about (the single-question
    path's top paper): another source never supports a clause that uses
    ``FOREIGN_WORDS`` words of its abstract that that source's lacks. "The
    behavioral dataset used to fit the DNN/RNN learning-rule models
    contained 78 mice [2]" (dev, unanswerable) cites the paper of the 78
    mice, at a cosine that passes; "DNN", "RNN", "learning" and "rule" are
    the asked-about paper's, which counts no mice. Any other source's
    words place nothing: a paraphrase of the question ("the
    mixture-of-LoRA-experts deepfake detector") often uses words of an
    unrelated paper shown beside (4 right dev answers lost a sentence).
    ``identify``: the question asks which paper (``intent.identifies``), so
    a clause naming ``about`` states the answer, a name only that source
    holds: it is tied to it (the question's own words said back around the
    name are still a premise, see ``_premise``). "MiCRo (ICLR 2026) splits
    a chatbot into four brain-like specialist modules" for "ICLR 2026 paper
    that splits a chatbot into brain-like specialist modules — how many
    modules, and what's it called?" is at cosine 0.43 to MiCRo's abstract:
    the user's words, not the abstract's (dev identification questions:
    facts 0.714 -> 0.810, false refusals 4 -> 3 of 17, refusals 5 of 6 kept).
    """
    named_threshold = threshold if named_threshold is None else named_threshold
    valid = {e.n for e in evidence}
    guessed = {w.casefold() for w in unmentioned(question, [e.paper for e in evidence], papers)}
    # every word the question writes, in any case: "RecSys" said back for "recsys" is the question's word
    asked = (_salient(question) | {_name_part(w).casefold() for w in WORDISH.findall(question)}) - guessed
    # guessed names as an answer would say them back ("Llama" is no coined name, so ``_salient`` misses it)
    echoed = [(g, re.compile(rf"(?<![\w-]){re.escape(g)}(?![\w-])", re.IGNORECASE)) for g in guessed]
    known = {e.n: _salient(f"{e.paper.abstract} {e.paper.name} {e.paper.venue}") for e in evidence}
    plain = _salient(" ".join(f"{e.paper.name} {e.paper.venue}" for e in evidence))  # naming a paper ties nothing
    question_words = set(tokenize(question))
    shown_names = [n for e in evidence for n in (e.paper.name, e.paper.alias, e.paper.venue) if n]
    # the shown papers a question sets against each other ("which is better, REVE or CodeBrain?")
    rivals = ([e.n for e in evidence if says(question, e.paper.name)]
              if _VERDICT.search(question) or _AGAINST.search(question) else [])
    abstracts = [e.paper.abstract for e in evidence]
    shown = {e.n: e.paper for e in evidence}
    names = {n: paper.name for n, paper in shown.items()}
    claims = split_claims(answer, valid, names)
    for claim in claims:
        if _NO_CLAIM.match(claim.text):
            claim.status = "unsupported"  # "not stated [2]": no claim to keep
    # a short sentence states too little to check, unless it says back the question's guess ("FaceForensics++ and
    # Celeb-DF.", which no abstract shown names)
    checkable = [c for c in claims if c.status != "unsupported" and (
        _claim_size(c.text) >= MIN_CLAIM_WORDS or any(pattern.search(c.text) for _, pattern in echoed))]
    checked = {id(c) for c in checkable}
    for claim in claims:  # too short to match, but "100,000 research papers [1][2]" is only [1]'s number
        if id(claim) in checked or claim.status == "unsupported":
            continue
        holding = _holding(claim.cited, _owners(_salient(claim.text) - asked, known))
        if holding and holding != claim.cited:
            claim.cited, claim.status = holding, "corrected"
    if not checkable or not evidence:
        return _named_subjects(claims, names)
    texts = [_parts(c.text, evidence) for c in checkable]
    claim_vectors, clauses = _embedded(embedder, [t for parts in texts for t in parts], evidence)
    vectors = iter(claim_vectors)
    source_words = {e.n: _Words.of(e) for e in evidence}
    shown_words = set().union(*(w.abstract for w in source_words.values()))
    name_words = {e.n: set(tokenize(e.paper.name)) for e in evidence}
    other_found: int | None = None  # the paper a removed Chinese "which paper" line named, in its paragraph
    for claim, part_texts in zip(checkable, texts, strict=True):
        if claim.lead.strip(" ") or not claim.lead:
            other_found = None  # a new line or paragraph
        elif other_found is not None and set(claim.cited) <= {other_found} and _PRONOUN_LED.match(claim.text):
            claim.status = "unsupported"  # "它使用了…" goes on about the paper said in place of the one found
            continue
        parts = []
        for text, vector in zip(part_texts, vectors):
            said_words = set(tokenize(text))
            sims = {e.n: _unflipped(clauses[e.n].scores(e, vector), said_words, source_words[e.n])
                    for e in evidence}
            quotes = {n: int(np.argmax(v)) for n, v in sims.items()}
            said = _salient(text) | {g for g, pattern in echoed if pattern.search(text)}
            own = said - asked
            coined = any(not item[0].isdigit() for item in own - plain)
            named = _mentions(text, evidence)
            placing = said_words - {w for n in named for w in name_words[n]}  # a name said ties by ``named``
            contained, added = _contained(text, said_words, question_words, source_words,
                                          _foreign(placing, source_words))
            answers = {about} if identify and about in named else set()  # the name asked for is the answer
            parts.append(_Part({n: float(sims[n][quotes[n]]) for n in sims}, quotes, named,
                               _owners(own, known),
                               valid if coined else contained | answers, contained if added >= RESTATED_WORDS else set(),
                               _foreign(placing, source_words, about) if about is not None else set()))
        for n in valid:  # what the UI shows: the sentence's best match in each source
            best = max(parts, key=lambda p: p.scores[n])
            claim.scores[n], claim.quotes[n] = best.scores[n], best.quotes[n]
        # MiniLM is English-only: a cosine says nothing of a sentence in Chinese
        elsewhere = not has_cjk(claim.text) and any(_elsewhere(p, threshold) for p in parts)
        claim.misattributed = elsewhere or (bool(claim.cited) and any(
            p.named and not set(p.named) & set(claim.cited) or any(o and not o & set(claim.cited) for o in p.owners)
            for p in parts))
        if elsewhere:
            claim.status = "unsupported"  # another paper's finding under this paper's name
            continue
        if _premise(claim.text, question_words, shown_words):
            claim.status = "unsupported"  # the question's guess said back as the paper's
            continue
        if any(_head_to_head(text, p.named, shown) or _verdict(text, p.named, rivals, shown)
               for text, p in zip(part_texts, parts, strict=True)):
            # "CSBrain outperforms REVE", "CodeBrain is better for sleep staging" (asked which of the two is):
            # no abstract says so
            claim.status, claim.misattributed = "unsupported", True
            continue
        if identify and has_cjk(claim.text) and any(p.named and about not in p.named for p in parts) and not responds(
                question, [without(claim.text, shown_names)]):
            # "CSBrain (NeurIPS 2025) 研究了深度脑刺激" for "哪篇论文研究了深度脑刺激？": the question said of
            # another paper than the one found, which no cosine can catch in Chinese
            claim.status, claim.misattributed = "unsupported", True
            other_found = next(n for p in parts for n in p.named if n != about)
            continue
        if any(not own for p in parts for own in p.owners):
            claim.status = "unsupported"  # a number or name no source states: confabulated, or the question's guess
            continue
        if misbound(claim.text, abstracts, question):
            claim.status = "unsupported"  # a source's number said of another thing: "114 questions" for 114 disciplines
            continue
        # MiniLM is English-only: a sentence in Chinese (English terms in it or not) is held to
        # its numbers, names and the paper it names, never to a cosine it cannot have
        bar = -1.0 if has_cjk(claim.text) else threshold
        if bar < threshold and not any(p.owners or p.named for p in parts):
            claim.scores.clear()  # nothing to hold it to: unjudged, its citations stand as written
            claim.quotes.clear()
            if not claim.cited:
                claim.cited = _cjk_source(claim.text, question_words, source_words)
                claim.status = "added" if claim.cited else claim.status
            continue
        picked = [_check(p, claim.cited, valid, bar, named_threshold) for p in parts]
        if any(p is None for p in picked):
            claim.status = "unsupported"
            continue
        if len(parts) > 1 and claim.cited and any(not set(p or []) & set(claim.cited) for p in picked):
            claim.misattributed = True  # a clause the model cited to a paper that does not state it
        cited = list(dict.fromkeys(n for p in picked for n in p or []))
        if len(cited) < 2 <= len(valid) and _of_every_paper(claim.text, evidence):
            # "Both papers pretrain on 60,000 hours of EEG [2]": one paper's fact said of every paper
            claim.status, claim.misattributed = "unsupported", True
            continue
        if not set(cited) <= set(claim.cited):
            claim.status = "corrected" if claim.cited else "added"
        claim.cited = cited
    return _named_subjects(claims, names)


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
            "citations": [order[n] for n in claim.cited if n in order],
            "supported": (claim.status != "unsupported") if claim.scores else None,
            "status": claim.status,
            "misattributed": claim.misattributed,
            "score": round(claim.scores[shown], 3) if shown is not None else None,
            "evidence": by_n[shown].sentences[claim.quotes[shown]] if shown is not None else None,
        })
    return rows
