"""What a question takes for granted about a paper, and whether the paper
says otherwise: "how many monkeys…?" of a paper that recorded mice, "how
does SynBrain reconstruct images from EEG (脑电)?" of an fMRI paper.

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

from assistant.crosslingual import dictionary_query, has_cjk
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
