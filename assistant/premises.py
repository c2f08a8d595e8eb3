"""What a question takes for granted about a paper, and whether the paper
says otherwise: "how many monkeys…?" of a paper that recorded mice, "how
does SynBrain reconstruct images from EEG (脑电)?" of an fMRI paper, "why
does the agent do worse than an LSTM when the input is sparse?" of a
paper whose model "outperforms LSTM cores under sparse input conditions".

The 1.5B model answers such a question as asked ("The monkeys were trained
on 20 mice"): its premise is in no abstract, so the answer can only be made
up. Only kinds whose members exclude each other within one study's data
are judged (which animals, which recording), and only when the paper names
another member of the kind and never the question's: a paper silent on its
species contradicts nothing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from assistant.chunking import sentences
from assistant.crosslingual import dictionary_query, has_cjk
from assistant.lexical import tokenize
from assistant.papers import Paper


def _kind(**members: str) -> dict[str, re.Pattern[str]]:
    return {name.replace("_", " "): re.compile(pattern, re.IGNORECASE) for name, pattern in members.items()}


#: Kinds of premise, each member with the words that say it (a Chinese question is read through the
#: term dictionary: 小鼠 -> "mice mouse", 脑电 -> "EEG"). Humans are no member: "human-level",
#: "human judges" and "participants" are written of every kind of study.
KINDS: dict[str, dict[str, re.Pattern[str]]] = {
    "animals": _kind(mice=r"\bmice\b|\bmouse\b|\bmurine\b", rats=r"\brats?\b",
                     monkeys=r"\bmonkeys?\b|\bmacaques?\b|\bprimates?\b|\brhesus\b|\bmarmosets?\b",
                     apes=r"\bchimp(?:anzee)?s?\b|\bgorillas?\b|\borangutans?\b|\bbonobos?\b|\bapes\b",
                     zebrafish=r"\bzebrafish\b|\blarval fish\b", flies=r"\bdrosophila\b|\bfruit ?fl(?:y|ies)\b",
                     worms=r"\bc\. ?elegans\b|\bnematodes?\b", birds=r"\bsongbirds?\b|\bzebra finch(?:es)?\b"),
    "recordings": _kind(EEG=r"\beeg\b|\belectroencephalogra", fMRI=r"\bfmri\b|\bfunctional magnetic resonance\b",
                        MEG=r"\bmeg\b|\bmagnetoencephalogra", ECoG=r"\becog\b|\belectrocorticogra",
                        calcium_imaging=r"\bcalcium imaging\b|\btwo-photon\b|\b2-photon\b",
                        spike_recordings=r"\bneuropixels\b|\bintracortical\b|\bmicroelectrodes?\b|"
                                         r"\bsingle[- ]units?\b|\belectrophysiolog"),
}


@dataclass(frozen=True)
class Conflict:
    """A premise of the question that a paper's abstract contradicts."""

    paper: str
    asked: str
    stated: tuple[str, ...]

    def __str__(self) -> str:
        stated = ", ".join(self.stated[:-1]) + " and " + self.stated[-1] if len(self.stated) > 1 else self.stated[0]
        return f"the abstract of {self.paper} speaks of {stated}, not {self.asked}"


@dataclass(frozen=True)
class Reversal:
    """A comparison the question takes one way and the paper's sentence on
    the same things states the other way."""

    paper: str
    sentence: str

    def __str__(self) -> str:
        words = self.sentence.split()
        said = " ".join(words[:_QUOTED_WORDS]) + (" …" if len(words) > _QUOTED_WORDS else "")
        return f"the abstract of {self.paper} states the opposite: “{said}”"


#: Anything a question's premise runs into.
Premise = Conflict | Reversal

#: The two ways a comparison goes.
_BETTER = re.compile(r"\b(?:better|outperform(?:s|ed|ing)?|beats?|beating|surpass(?:es|ed|ing)?|exceeds?|superior|"
                     r"more accurate)\b", re.IGNORECASE)
_WORSE = re.compile(r"\b(?:worse|underperform(?:s|ed|ing)?|fails? to (?:beat|match)|falls? short|inferior|"
                    r"los(?:es|e|ing) to|less accurate|lags? behind)\b", re.IGNORECASE)
#: A question asking whether ("did it do worse than…?") takes neither way for granted.
_WHETHER = re.compile(r"^\W*(?:does|did|do|is|are|was|were|can|could|has|have|will|would)\b", re.IGNORECASE)
#: Words that say nothing of what is compared.
_GENERIC = frozenset(tokenize("paper papers model models study work method approach really much"))
#: Words of what is compared that the question and the paper's sentence share, at the least: they compare
#: the same things ("LSTM", "sparse", "input"), not any two ("more accurate than neural operator baselines").
_SAME_THINGS = 2
#: Words after a comparison's word that name what it is compared with ("than an LSTM when …").
_RIVAL_WORDS = 3
#: Words of the paper's sentence a reason quotes.
_QUOTED_WORDS = 24


def _ways(text: str) -> set[str]:
    return {way for way, said in (("better", _BETTER), ("worse", _WORSE)) if said.search(text)}


def reversals(clause: str, papers: list[Paper]) -> list[Reversal]:
    """Where ``clause`` takes a comparison one way ("why does it do worse
    than an LSTM…", "in what situations does RIGNO lose to the
    baselines…") and a paper's sentence sharing the most of its other
    words (at least ``_SAME_THINGS``) states it the other way ("the model
    outperforms LSTM cores under sparse input conditions"). The 1.5B model
    explains the reversed finding as asked (dev). Only the sentence that
    shares the most words, of all ``papers`` (ties: the first paper's),
    is read: another paper's comparison is of other things. A question asking
    whether, or naming both ways, takes none for granted; a Chinese one is
    not judged (its words are not the abstract's)."""
    asked = _ways(clause)
    if len(asked) != 1 or _WHETHER.match(clause) or has_cjk(clause):
        return []
    words = set(tokenize(_WORSE.sub(" ", _BETTER.sub(" ", clause)))) - _GENERIC
    stating = [(len(words & set(tokenize(s))), -k, s, p) for k, p in enumerate(papers)
               for s in sentences(p.abstract) if _ways(s)]
    shared, _, best, paper = max(stating, key=lambda t: t[:2], default=(0, 0, "", None))
    if not paper or shared < _SAME_THINGS or _ways(best) & asked:
        return []
    rival = _around(clause)[1]
    before, after = _around(best)
    return [Reversal(paper.name, best)] if rival & after and not rival & before else []


def _around(text: str) -> tuple[set[str], set[str]]:
    """The words before a comparison's first word (who is compared) and the
    few right after it (what with: "worse than an LSTM", "outperforms LSTM
    cores"). The question's rival must be the sentence's too, and not its
    subject: "X is worse than Y" is "Y outperforms X", not its opposite."""
    match = min((m for said in (_BETTER, _WORSE) if (m := said.search(text))), key=lambda m: m.start())
    after = [w for w in tokenize(text[match.end():]) if w not in _GENERIC][:_RIVAL_WORDS]
    return set(tokenize(text[:match.start()])), set(after)


def _members(text: str) -> set[tuple[str, str]]:
    return {(kind, name) for kind, members in KINDS.items() for name, said in members.items() if said.search(text)}


def conflicts(clause: str, papers: list[Paper]) -> list[Conflict]:
    """The members a question's ``clause`` writes that none of ``papers``
    does, where a paper writes another member of the same kind that the
    clause does not ("which primate datasets was POCO trained on?": POCO
    names mice, zebrafish and C. elegans). A clause that also names one
    the paper writes ("mice or monkeys?") asks which, and is not judged."""
    asked = _members(dictionary_query(clause) if has_cjk(clause) else clause)
    stated = [(p, _members(f"{p.title} {p.abstract}")) for p in papers]
    found = []
    for kind, name in sorted(asked):
        if any(member in said for member in asked if member[0] == kind for _, said in stated):
            continue  # the question names the paper's own member too: it asks which one
        for paper, said in stated:
            others = tuple(sorted(n for k, n in said if k == kind and (k, n) not in asked))
            if others:
                found.append(Conflict(paper.name, name, others))
                break
    return found
