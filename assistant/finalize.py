"""From the model's raw reply to the checked answer: a pure step, no server.

Whether the abstracts hold the answer is not left to the model's reply: a
1.5B model refuses a third of the questions whose answer it was shown. The
caller also asks it one yes/no question over the same evidence ("do the
sources state the answer?"), and its probability of yes, with thresholds
calibrated on the dev split, decides: a refusal with a high P(yes) is
overruled by the best sentences, quoted and cited; an answer with a very low
P(yes) becomes the refusal. A partial refusal keeps its supported sentences,
and sentences no source supports leave the answer text (they are listed
apart in ``support``).
"""

from __future__ import annotations

import re
from collections.abc import Collection
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from assistant import prompts
from assistant.answerability import CONNECTIVE, adds_to, for_all_papers, parts_left, quotable, responds, states_part
from assistant.chunking import sentences
from assistant.citations import (
    MIN_CLAIM_WORDS,
    SentenceSupport,
    attribute,
    numbering,
    render_claims,
    split_claims,
    support_json,
    whole_sentences,
)
from assistant.crosslingual import asked_terms, has_cjk
from assistant.evidence import Evidence, points_to_code
from assistant.lexical import tokenize
from assistant.mentions import says, without
from assistant.result import AnswerResult
from assistant.settings import AnswerSettings

if TYPE_CHECKING:
    from assistant.embedding import MiniLMEmbedding

#: Ways a model says "not in the sources" besides the exact refusal phrase.
_REFUSING = re.compile(
    r"\b(?:(?:do|does|did) not (?:contain|mention|specify|state|provide|include|say|report|give|describe|discuss)|"
    r"(?:is|are|was|were) not (?:mentioned|specified|stated|provided|given|reported|included|available|described)|"
    r"no (?:information|mention|details?|data) (?:about|on|regarding|is|are)|cannot (?:be )?(?:determined|answer|find)|"
    r"(?:not|never) (?:explicitly )?(?:mentioned|stated|specified) in the (?:sources?|abstracts?))|"
    r"未(?:提及|提到|说明|给出)|没有(?:提及|提到|说明|相关信息)|不包含",
    re.IGNORECASE)


def is_refusal(text: str) -> bool:
    """True when a reply (or one sentence of it) says the sources lack the answer."""
    folded = " ".join(text.casefold().split())
    return not folded or prompts.REFUSAL.casefold().rstrip(".") in folded or bool(_REFUSING.search(folded))


def _quote(e: Evidence, i: int, *more: int) -> SentenceSupport:
    """Sentence ``i`` of a source (and the ``more`` after it), quoted as
    written, after its paper's name (an abstract's "we" or "our model" does
    not say which paper it is), and cited to it."""
    quoted = " ".join(f"“{e.sentences[j]}”" for j in (i, *more))
    return SentenceSupport(text=f"{e.paper.name}: {quoted}", cited=[e.n], lead=" ", scores={e.n: 1.0}, quotes={e.n: i},
                           status="quoted")


def quoted(evidence: list[Evidence], settings: AnswerSettings) -> list[SentenceSupport]:
    """The most relevant quoted sentences, each cited to its paper: the
    answer when the model gives none. Sentences far below the best are left out."""
    ranked = sorted(((score, i, e) for e in evidence for score, i in e.best_sentences()),
                    key=lambda r: -r[0])[:settings.extractive_sentences]
    top = ranked[0][0] if ranked else 0.0
    return [_quote(e, i) for score, i, e in ranked if score >= settings.extractive_relative * top]


def draft_of(evidence: list[Evidence], settings: AnswerSettings, lines: list[SentenceSupport] | None = None) -> str:
    """What is on screen before the model's first word: the built ``lines``,
    else the best quoted sentences, each cited to its source."""
    return render_claims(lines if lines is not None else quoted(evidence, settings), {e.n: e.n for e in evidence})


def refused_outright(text: str) -> bool:
    """Every sentence of the reply says the sources lack the answer (a
    partial refusal keeps its other sentences and needs no quote)."""
    return all(is_refusal(s) for s in sentences(text) or [text])


def unanswered(question: str, text: str) -> bool:
    """The reply refuses outright, or says nothing the question does not
    (see ``answerability.responds``): either way the model gave no answer,
    and the sentence it copies from the sources may stand instead."""
    said = [c.text for c in split_claims(text, set()) if not is_refusal(c.text)]
    return refused_outright(text) or not responds(question, said)


def quote_of(text: str, evidence: list[Evidence], settings: AnswerSettings) -> list[SentenceSupport]:
    """The source sentence a model copied (``text``), quoted from the
    abstract and cited to it, then that source's most relevant other shown
    sentences (up to ``extractive_sentences`` in all); none when most of the
    copy's words are not one source sentence's (the model paraphrased or
    invented). A copy of part of a sentence finds the whole: ties go to the
    sentence closest in length. The copy tells which paper answers more
    often than it is the sentence that answers, so that paper's next
    sentence comes with it (dev: the copy alone stated 33 of 46 facts, with
    the next sentence 39)."""
    words = set(tokenize(text))
    best, found = (0.0, 0.0), None
    for e in evidence:
        for i, sentence in enumerate(e.sentences):
            theirs = set(tokenize(sentence))
            shared = len(words & theirs)
            score = (shared / max(len(words), 1), shared / max(len(words | theirs), 1))
            if score > best:
                best, found = score, (e, i)
    if found is None or best[0] < settings.copy_overlap:
        return []
    source, picked = found
    others = [i for _, i in source.best_sentences() if i != picked][:settings.extractive_sentences - 1]
    return [_quote(source, i) for i in [picked, *others]]


def overruling(question: str, pick: list[SentenceSupport], evidence: list[Evidence], settings: AnswerSettings,
               papers: Collection[str] = ()) -> list[SentenceSupport]:
    """The quotes that replace a refusal the evidence answers: the model's
    ``pick`` (see ``quote_of``), else the most relevant sentences; none
    when they cannot answer (``quotable``). A pick is judged alone, not with
    the context quoted after it: that context is not what the model chose."""
    offered = pick or quoted(evidence, settings)
    judged = offered[:1] if pick else offered
    return offered if quotable(question, [c.text for c in judged], [e.paper for e in evidence], papers) else []


@dataclass(frozen=True)
class Checks:
    """What the checking step needs: the embedder, and its knobs in the answer settings."""

    embedder: MiniLMEmbedding
    settings: AnswerSettings


def source_json(e: Evidence, n: int) -> dict[str, Any]:
    paper = e.paper
    return {"n": n, "paper_id": paper.paper_id, "title": paper.name, "venue": paper.venue,
            "score": round(e.hit.score, 4), "abstract": paper.abstract, "evidence": e.text()}


def finalize(mode: str, question: str, query: str, text: str, evidence: list[Evidence], checks: Checks,
             error: str | None = None, built: list[SentenceSupport] | None = None, allow_quote: bool = True,
             verdict: float | None = None, quote_refusal: bool = False,
             pick: list[SentenceSupport] | None = None, papers: Collection[str] = (),
             identify: bool = False, cut: bool = False) -> AnswerResult:
    """The checked answer for the model's ``text`` over ``evidence``.

    ``verdict`` is P(yes) that the sources state the answer (None: not asked).
    ``built`` are sentences made by construction (a summary's per-paper
    lines, a metadata answer): appended after the model's, never judged.
    ``allow_quote`` lets a quoted answer replace a refusal (not for summaries,
    whose list already quotes every paper); ``quote_refusal`` makes it replace
    any refusal (a keyword query: the top paper is what was asked for).
    ``pick`` is the sentence the model chose as the answer after refusing
    (see ``quote_of``): quoted instead of the most similar sentences, which
    often restate the question rather than answer it. Quotes do not
    overrule a refusal they cannot answer (see ``answerability.quotable``);
    ``papers`` are the indexed papers' names. ``identify``: the question
    asks which paper (see ``intent.identifies``), so an answer that names
    none of its sources is led by the name of the one it cites. ``cut``:
    the reply stopped at the token limit, so its unfinished last sentence
    ("In contrast, AGM proposes") is no claim and is left out.
    """
    built = built or []
    written = whole_sentences(text) if cut else text
    # a reply cut off by a failure is not an answer: the quoted sentences replace it
    claims = [] if not evidence or not written or error else attribute(
        written, evidence, checks.embedder, checks.settings.support_threshold, question, papers,
        checks.settings.named_support_threshold, about=evidence[0].n if mode == "ask" else None, identify=identify)
    again = _repeated(claims)
    no_claims = [c for c in claims if is_refusal(c.text) or (mode == "summarize" and not adds_to(question, c.text))
                 or id(c) in again]
    for claim in no_claims:
        claim.status = "unsupported"  # "The abstracts do not contain…", "The papers study the topic of EEG": no claims
    for claim in claims:
        if mode in ("summarize", "compare") and for_all_papers(claim.text, claim.cited, len(evidence)):
            claim.status = "unsupported"  # one paper's claim given to all: removed, listed apart
    kept = [c for c in claims if c.status != "unsupported" and c.text]
    if mode == "ask" and evidence:
        kept = _without_asides(kept, query, evidence, checks)
    if kept and allow_quote and not responds(question, [c.text for c in kept]):
        kept = []  # the question said back, or no number for "how many": no answer, as a refusal is none
    answered = bool(kept)
    if kept and verdict is not None and verdict < checks.settings.refuse_answer:
        kept = []  # true sentences, but the evidence does not answer what was asked
    elif kept and mode == "ask":
        added = _parts_quoted(question, kept, evidence, checks.settings)
        kept, claims = kept + added, claims + added
    elif not kept and evidence and allow_quote and (error or quote_refusal
                                                    or (verdict or 0.0) >= checks.settings.overrule_refusal):
        offered = ((pick or quoted(evidence, checks.settings)) if error or quote_refusal
                   else overruling(question, pick or [], evidence, checks.settings, papers))
        if offered:
            claims = kept = offered
    if identify and kept and not responds(question, [_unnamed(c.text, evidence) for c in kept]):
        # a paper's name and nothing the question does not say: a guess ("REVE." for EvoBrain's description)
        kept = quoted(evidence[:1], checks.settings)  # the paper retrieval put first, named and quoted
        claims = kept = [_naming_line(kept, evidence), *kept]
    elif identify and kept and (not _names_source(kept, evidence) or all(c.status == "quoted" for c in kept)):
        # a quote names its paper only in its "Name: “…”" lead: the answer to "which paper" comes first
        if kept[0].lead == "":
            kept[0].lead = " "  # the name now stands before it
        claims = kept = [_naming_line(kept, evidence), *kept]
    if kept and kept[0].status != "quoted":
        kept[0].text = _without_opening_connective(kept[0].text)
    if kept and has_cjk(question) and all(c.status == "quoted" for c in kept):
        # the quotes stay English, as in a list answer: the lead says so in the user's language
        lead = SentenceSupport(text=prompts.QUOTED_LEAD_CHINESE, cited=[], status="quoted")
        claims, kept = [lead, *claims], [lead, *kept]
    elif kept and has_cjk(question) and not built:  # built lines quote their papers already
        original = _original(kept, evidence, question, checks.embedder)
        claims, kept = claims + original, kept + original
    abstained = not kept and not built
    order = numbering(kept + built)
    renumbered = order | {e.n: len(order) + i for i, e in enumerate((e for e in evidence if e.n not in order), 1)}
    by_n = {e.n: e for e in evidence}
    sources = sorted((source_json(by_n[n], new) for n, new in renumbered.items()), key=lambda s: s["n"])
    answer = prompts.REFUSAL if abstained else render_claims(claims + built, order)
    return AnswerResult(
        mode=mode, question=question, query=query, answer=answer,
        citations=[{k: s[k] for k in ("n", "paper_id", "title", "venue")} for s in sources if s["n"] <= len(order)],
        sources=sources, abstained=abstained, model="", timings={},
        support=support_json([c for c in claims + built if all(c is not r for r in no_claims)], order, evidence),
        extractive=error is not None, error=error, model_text=text,
        quoted=bool(kept) and all(c.status == "quoted" for c in kept), extra={"verdict": verdict, "model_answered": answered},
    )


def _without_opening_connective(text: str) -> str:
    """The answer's first sentence without a connective tying it to a sentence
    before it (see ``CONNECTIVE``): there is none when the check removed it."""
    rest = CONNECTIVE.sub("", text, count=1)
    return rest[:1].upper() + rest[1:] if rest != text else text


def _parts_quoted(question: str, kept: list[SentenceSupport], evidence: list[Evidence],
                  settings: AnswerSettings) -> list[SentenceSupport]:
    """For each part of the question the answer leaves out (see
    ``parts_left``), the sentence of the shown papers' abstracts that says
    most of what that part alone asks, quoted and cited (none below
    ``part_share``): the model's answer to the first part stays, and the
    second is answered in the paper's own words rather than dropped."""
    quoted_already = {(n, i) for c in kept if c.status == "quoted" for n, i in c.quotes.items()}
    added: list[SentenceSupport] = []
    for part, own in parts_left(question, [c.text for c in kept]):
        scored = [(states_part(part, own, s, settings.part_share), -e.n, i, e)
                  for e in evidence for i, s in enumerate(e.sentences) if (e.n, i) not in quoted_already]
        best = max(scored, key=lambda t: t[:3], default=None)
        if best and best[0]:
            quoted_already.add((best[3].n, best[2]))
            added.append(_quote(best[3], best[2]))
    return added


def _without_asides(kept: list[SentenceSupport], query: str, evidence: list[Evidence],
                    checks: Checks) -> list[SentenceSupport]:
    """An answer to one question without the papers it brings in aside:
    a cited paper (not the top one, nor one the question names) whose
    closest sentence to the question is far below the answer's best one
    (``aside_relative`` of its cosine). A small model writes back the other
    sources shown ("NeuroPaint (NeurIPS 2025): …" under a question about
    AGM): on dev 37 of the 113 papers the 0.5B model's answers cited were
    no gold paper, 4 of 82 for the 1.5B model. Only English sentences are
    judged (MiniLM knows no Chinese; ``query`` is the question in English),
    and only they lose an aside; the embedding is skipped for an answer
    citing one paper."""
    judged = [c for c in kept if c.cited and not has_cjk(c.text)]
    if len({n for c in judged for n in c.cited}) < 2:
        return kept
    vectors = checks.embedder.embed([query, *(c.text for c in judged)])
    cosine = (vectors[1:] @ vectors[0]).tolist()
    top = max(cosine)
    if top <= 0:
        return kept
    best: dict[int, float] = {}
    for c, v in zip(judged, cosine, strict=True):
        for n in c.cited:
            best[n] = max(best.get(n, -1.0), v)
    named = {e.n for e in evidence if says(query, e.paper.name)}
    aside = {n for n, v in best.items()
             if n != evidence[0].n and n not in named and v < checks.settings.aside_relative * top}
    for c in judged:
        if set(c.cited) <= aside:
            c.status = "unsupported"
        else:
            c.cited = [n for n in c.cited if n not in aside]
    return [c for c in kept if c.status != "unsupported"]


def _repeated(claims: list[SentenceSupport]) -> set[int]:
    """The ids of sentences the reply has already said word for word: the
    1.5B model sometimes writes its comparison twice (13 of 525 cached
    answers of 2026-12-04 repeated a sentence, 12 of them comparisons).
    Ids, not the claims: two claims with equal text are equal dataclasses,
    and only the later one is the repeat."""
    said: set[str] = set()
    again = set()
    for claim in claims:
        key = " ".join(claim.text.casefold().split())
        if key in said and len(key.split()) >= MIN_CLAIM_WORDS:
            again.add(id(claim))
        said.add(key)
    return again


#: Words in a row that a sentence shares with an earlier sentence of the same reply when the
#: model loops: the 1.5B model, asked for three to five sentences comparing papers, wrote its
#: comparison again and again to the token limit (9 of 44 cached comparison replies of
#: 2026-12-04…07 hit it; a 5-paper narrative spent 38 of its 58 s so). Twelve words of one
#: paper's description said again is a repeat; two sentences of a real answer share fewer.
LOOP_WORDS = 12
#: The prompt's sources block written back (see ``citations.without_scaffolding``): copied, not said twice.
_ECHOED = re.compile(r"<sources>.*?(?:</sources>|\Z)", re.IGNORECASE | re.DOTALL)
#: A citation marker, which is no word of what a sentence says ("[2]", "[1, 3]").
_MARKER = re.compile(r"[\[【][\d\s,，、]+[\]】]")
_SENTENCE = re.compile(r"[^\s.!?。！？][^\n.!?。！？]*(?:[.!?。！？]+|\n|\Z)")


def loop_start(reply: str) -> int | None:
    """Where a reply (so far) starts saying again what it said: the start
    of its first sentence sharing ``LOOP_WORDS`` words in a row with an
    earlier one, outside an echoed sources block; None while it does not.
    The stream stops there: what follows is the loop, and reading it costs
    seconds per sentence on 2 cores."""
    echoed = [m.span() for m in _ECHOED.finditer(reply)]
    said: set[tuple[str, ...]] = set()
    for m in _SENTENCE.finditer(reply):
        if any(start <= m.start() < end for start, end in echoed):
            continue
        words = re.findall(r"\w+", _MARKER.sub(" ", m.group().casefold()))
        runs = {tuple(words[i:i + LOOP_WORDS]) for i in range(len(words) - LOOP_WORDS + 1)}
        if runs & said:
            return m.start()
        said |= runs
    return None


#: What stands before the 原文 quote: layout, as a list's bullet, so the line stays "Name: “…”".
ORIGINAL_LEAD = "\n\n" + prompts.ORIGINAL_CHINESE


def _original(kept: list[SentenceSupport], evidence: list[Evidence], question: str,
              embedder: MiniLMEmbedding) -> list[SentenceSupport]:
    """Under a Chinese answer, the English sentences of its first cited
    source closest to the question and to what it asks (``asked_terms``),
    quoted after "原文：": the 1.5B model's translations drop or change
    what was asked ("temporal memory buffer" became "缓冲和记忆", "Dale's
    law" was not said), and the researcher can check the translation
    against the paper's words. The question as a whole is nearest the
    sentence it describes the paper by ("研究网络权重正负号和视觉表征关系的那篇论文里，
    负权重主要编码的是什么信息？" found "Here, we investigate how signed
    weights shape visual representations…", not "…negative weights encode
    context"); on the dev Chinese questions' papers the sentence nearest
    the asking clauses holds 45 of 101 gold facts, the one nearest the
    whole question 43, the two together 54. Sentences quoted already are
    not repeated; a sentence pointing to code is not the answer's source."""
    n = next((c.cited[0] for c in kept if c.cited), None)
    source = next((e for e in evidence if e.n == n and e.chosen), None)
    if source is None:
        return []
    picked = [source.best_sentences()[0][1]]
    asked = asked_terms(question)
    if asked:
        closeness = source.vectors @ embedder.embed([asked])[0]
        answering = [i for i in range(len(source.sentences)) if not points_to_code(source.sentences[i])]
        picked += [max(answering, key=lambda i: closeness[i])] if answering else []
    quoted_already = {c.quotes.get(source.n) for c in kept if c.status == "quoted"}
    shown = sorted({i for i in picked if i not in quoted_already})
    if not shown:
        return []
    quote = _quote(source, *shown)
    quote.lead = ORIGINAL_LEAD
    return [quote]


def _names_source(kept: list[SentenceSupport], evidence: list[Evidence]) -> bool:
    """Whether the answer names one of its sources' papers."""
    text = " ".join(c.text for c in kept)
    return any(says(text, name) for e in evidence for name in (e.paper.name, e.paper.alias) if name)


def _unnamed(text: str, evidence: list[Evidence]) -> str:
    """An answer's sentence without its sources' names and venues: what it says of the paper."""
    return without(text, [n for e in evidence for n in (e.paper.name, e.paper.alias, e.paper.venue) if n])


def _naming_line(kept: list[SentenceSupport], evidence: list[Evidence]) -> SentenceSupport:
    """The paper the answer cites first (else the top source), by name and
    venue from its record: asked "which paper …?", the 1.5B model often
    answered with a sentence of the abstract, or "is titled <a sentence>",
    and never said the name (dev venue and keyword questions)."""
    n = next((c.cited[0] for c in kept if c.cited), evidence[0].n)
    paper = next((e.paper for e in evidence if e.n == n), evidence[0].paper)
    venue = f" ({paper.venue})" if paper.venue else ""
    return SentenceSupport(text=f"{paper.name}{venue}.", cited=[n], status="quoted")
