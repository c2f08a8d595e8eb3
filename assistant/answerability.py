"""Whether the shown abstracts can hold an answer, decided from the question
and the evidence alone, before the model reads anything.

The 1.5B model's own yes/no verdict does not separate answerable from
unanswerable questions (on dev its P(yes) for both spans 0.32–0.69), so two
kinds of unanswerable question that the evidence itself gives away are
refused here, without a model call:

- **no paper is about it**: the question names no indexed paper (nor a
  capitalised name the closest abstract uses) and the closest paper is far
  off in meaning (dense cosine below the cut-off that keeps a topic summary
  from listing the best of nothing);
- **a detail abstracts leave out**: the question asks only for a training
  detail (learning rate, batch size, GPUs, training time, …) and no sentence
  of the abstracts it is about (the papers it names, else all those
  retrieved) mentions it at all. When one does, or the
  question also asks something else, the model answers as usual.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from assistant.evidence import Evidence
from assistant.lexical import name_keys
from assistant.papers import Paper


@dataclass(frozen=True)
class Detail:
    """A detail papers' abstracts rarely state: how a question asks for it,
    and the words an abstract would use if it did state it."""

    name: str
    asked: re.Pattern[str]
    stated: re.Pattern[str]


def _detail(name: str, asked: str, stated: str) -> Detail:
    return Detail(name, re.compile(asked, re.IGNORECASE), re.compile(stated, re.IGNORECASE))


#: Training and bookkeeping details (English and Chinese cues).
DETAILS = (
    _detail("learning rate", r"\blearning[- ]rates?\b|学习率", r"\blearning[- ]rates?\b|\blr\b"),
    _detail("batch size", r"\bbatch[- ]?sizes?\b|批(?:量|次)?大小", r"\bbatch"),
    _detail("optimizer", r"\boptimi[sz]ers?\b|优化器", r"\boptimi[sz]er|\badamw?\b|\bsgd\b"),
    _detail("training epochs", r"\bepochs?\b|\bhow many (?:training )?(?:steps|iterations)\b|训练轮数",
            r"\bepochs?\b|\b(?:steps|iterations)\b"),
    _detail("hardware", r"\b(?:gpus?|tpus?|hardware|accelerators?)\b|显卡",
            r"\b(?:gpus?|tpus?|hardware|accelerators?|[ahv]100s?)\b"),
    _detail("training time",
            r"\bhow long (?:did|does|do|would|will) (?:it|they|\w+) (?:take )?(?:to )?(?:pre-?)?train|"
            r"\b(?:pre-?)?training (?:time|duration)\b|\bwall[- ]?clock\b|训练(?:了)?多(?:久|长时间)|训练时间",
            r"\bwall[- ]?clock\b|\btraining time\b|\b(?:gpu|tpu)[- ]?(?:hours|days)\b|"
            r"\b(?:hours|days|weeks) (?:of|to) (?:pre-?)?train|\btrain\w* (?:for|in|takes?) [^.]{0,20}"
            r"\b(?:minutes|hours|days|weeks)\b"),
    _detail("sampling temperature", r"\b(?:sampling|decoding|softmax) temperature\b|\btemperature (?:setting|value)\b",
            r"\btemperature\b"),
    _detail("random seeds", r"\b(?:random )?seeds?\b|随机种子", r"\bseeds?\b"),
    _detail("author affiliations", r"\buniversit(?:y|ies)\b|\binstitutions?\b|\baffiliations?\b|哪(?:所|个)大学|机构",
            r"\buniversit|\binstitut|\baffiliat|\blaborator"),
    _detail("funding", r"\bfund(?:ed|ing|er|ers)\b|\bgrants?\b|资助", r"\bfund(?:ed|ing|s)?\b|\bgrants?\b"),
    _detail("licence", r"\blicen[cs]e[sd]?\b|许可证", r"\blicen[cs]"),
    _detail("hyperparameters", r"\bhyper-?parameters?\b|\bweight decay\b|\bdropout (?:rate|probability)\b|超参数",
            r"\bhyper-?parameter|\bweight decay\b|\bdropout\b"),
    _detail("privacy budget", r"\bprivacy budget\b|\bepsilon\b|ε", r"\bprivacy budget\b|\bepsilon\b|ε"),
)


#: Where a question asks a second thing ("What is SPINT and which GPU…?").
_CLAUSES = re.compile(r"[?;？；]|\b(?:and|also|but)\s+(?=(?:what|which|how|who|where|when|why|whose|is|are|was|were|"
                      r"do|does|did|can)\b)|以及|并且", re.IGNORECASE)


def _calls(question: str, paper: Paper) -> bool:
    """The question calls the paper by a capitalised name its abstract uses
    ("which conference published Stretch-and-Squeeze?"): it is about that
    paper, however far the question's words are from the abstract's meaning."""
    names = {w for w in name_keys(question.split(maxsplit=1)[-1]) if w[0].isupper() and len(w) >= 3}
    return any(re.search(rf"(?<![\w-]){re.escape(w)}(?![\w-])", paper.abstract) for w in names)


def asked_details(question: str) -> list[Detail]:
    """The details of ``DETAILS`` a question asks for."""
    return [d for d in DETAILS if d.asked.search(question)]


def missing(question: str, evidence: list[Evidence], min_similarity: float) -> str | None:
    """Why the shown abstracts cannot answer ``question`` (None: they may).

    A question refused for a detail asks for nothing else: a part that asks
    something else ("What is SPINT and which GPU…?") goes to the model,
    which answers it and declines the rest (a partial refusal)."""
    if not evidence:
        return None
    top = evidence[0].hit
    if not any(e.hit.named for e in evidence) and top.similarity < min_similarity and not _calls(question, top.paper):
        return f"no paper is about this (the closest, {top.paper.name}, is far off in meaning)"
    asked = [asked_details(clause) for clause in _CLAUSES.split(question) if clause.strip()]
    if not asked or not all(asked):
        return None
    details = list(dict.fromkeys(d for part in asked for d in part))
    about = [e for e in evidence if e.hit.named] or evidence  # a paper it names, else every paper found
    if any(d.stated.search(s) for d in details for e in about for s in e.sentences):
        return None
    return f"the abstracts found do not mention the {' or the '.join(d.name for d in details)}"
