"""Readable names for papers known only by their abstract.

A researcher says "CSBrain", not "the third abstract". When a source gives a
title, that is the name; otherwise the name is what the abstract introduces
("we propose X", "termed X", "Long Form (X)"), and failing that a short
description of what the paper does. The derived method name is kept as the
paper's ``alias`` even when a title exists, so lexical matching of method
names works at any scale.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import replace
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from assistant.papers import Paper

#: A word as names are written: "RaCO-DP", "GPT-4o", "DNN-based", "REVE".
WORDISH = re.compile(r"[A-Za-z][A-Za-z0-9]*(?:-[A-Za-z0-9]+)*")
# A token that looks like a coined name: inner capitals or digits (RIGNO,
# CSBrain, RaCO-DP, Meta-PCN, EVNets), not an ordinary capitalised word.
_TOKEN = r"[A-Za-z][A-Za-z0-9]*(?:[-‐][A-Za-z0-9]+)*\*?"
_INTRO = r"(?:propose|proposes|introduce|introduces|introducing|present|presents|develop|develops|developing|design|create|release|construct)"
_NAMING = r"(?:termed|called|dubbed|named|coined)"
_SKIP_WORDS = {
    "a", "an", "the", "novel", "new", "simple", "first", "unified", "general", "generalized", "comprehensive",
    "professional", "robust", "practical",
}
#: Common field acronyms that are never the paper's own name.
_COMMON = {
    "AI", "ML", "RL", "NLP", "LLM", "LLMs", "MLLM", "MLLMs", "LVLM", "LVLMs", "VLM", "VLMs", "GNN", "GNNs",
    "CNN", "CNNs", "RNN", "RNNs", "DNN", "DNNs", "LSTM", "MLP", "EEG", "fMRI", "MEG", "ECoG", "PDE", "PDEs",
    "MoE", "LoRA", "GPU", "GPUs", "SGD", "SGDA", "DP", "QA", "ID", "MM", "3D", "2D", "1D", "4D", "GLM", "API",
    "SNN", "SNNs", "LIF", "BCI", "iBCI", "SOTA", "NO", "NOs", "OOD", "MAE", "ViT", "GPT", "IT", "V1", "V4",
}
_DESCRIBE_VERBS = (
    r"(?:propose|introduce|introducing|present|develop|developing|study|investigate|relate|frame|formalize|"
    r"categorize|implement|probe|audit|analy[sz]e)\b"
)
_CLAUSE_END = re.compile(r"\s*(?:[,;:—–(]| that | which | whose | where | to | by | as | with | from | in order| across | tailored )")
_TRAILING = {"of", "and", "the", "a", "an", "to", "for", "in", "on", "with", "by", "at", "from", "its", "their"}
_MAX_NAME_WORDS = 6


def is_coined(token: str) -> bool:
    """True for RIGNO, CSBrain, RaCO-DP, Meta-PCN; false for Early, Stimulus-Evoked, EEG."""
    core = token.rstrip("*")
    if core in _COMMON or len(core) < 2:
        return False
    return any(
        any(ch.isupper() for ch in part[1:]) or (any(ch.isdigit() for ch in part) and part[0].isupper())
        for part in re.split(r"[-‐]", core)
    )


def _acronym_fits(abbrev: str, long_form: str) -> bool:
    """'EVNets' fits 'Early Vision Networks', 'SnS' fits 'Stretch-and-Squeeze':
    the abbreviation's letters appear in order in the words just before it,
    starting at a word's initial (Schwartz & Hearst's rule)."""
    letters = [ch.lower() for ch in abbrev if ch.isalpha()]
    words = re.findall(r"[A-Za-z][\w-]*", long_form)[-len(letters) - 3:]
    for start, word in enumerate(words):
        if word[0].lower() != letters[0]:
            continue
        text = " ".join(words[start:]).lower()
        pos = 0
        for ch in letters:
            pos = text.find(ch, pos) + 1
            if pos == 0:
                break
        else:
            return True
    return False


def method_name(abstract: str) -> str:
    """The method, model, dataset or benchmark the abstract introduces, or ''."""
    named = re.search(_NAMING + r"\s+(?:as\s+)?(?:the\s+)?(" + _TOKEN + r")", abstract)
    if named and is_coined(named.group(1)):
        return named.group(1).rstrip("*")
    for intro in re.finditer(r"\b" + _INTRO + r"\b", abstract):
        tail = abstract[intro.end(): intro.end() + 200]
        clause = re.split(r"(?<=[a-z0-9)])\.\s", tail, maxsplit=1)[0]
        for paren in re.finditer(r"\(([^()]{2,20})\)", clause):
            abbrev = paren.group(1).strip()
            if re.fullmatch(_TOKEN, abbrev) and is_coined(abbrev) and _acronym_fits(abbrev, clause[: paren.start()]):
                return abbrev.rstrip("*")
        for word in (w.strip(",;:") for w in clause.split()[:8]):
            if word.lower() not in _SKIP_WORDS and re.fullmatch(_TOKEN, word) and is_coined(word):
                return word.rstrip("*")
    return ""


def _emphasised_term(raw: str) -> str:
    """A term the authors emphasised right after 'we introduce' (*Schedule Deviation*)."""
    match = re.search(
        r"\b[Ww]e\s+" + _INTRO + r"\s+(?:the\s+|a\s+|an\s+)?(?:\*([^*]{2,40})\*|\\(?:textit|emph|textbf)\{([^{}]{2,40})\})",
        raw,
    )
    return (match.group(1) or match.group(2)).strip() if match else ""


def describe(abstract: str) -> str:
    """A short descriptive name for a paper that names no method: the object
    of its first 'we present/study/...' clause, else its opening words."""
    match = re.search(
        r"\b(?:[Ww]e|[Tt]his (?:paper|work|study))\b(?:\W+\w+){0,12}?\W+" + _DESCRIBE_VERBS + r"\s+(.+)", abstract
    )
    phrase = match.group(1) if match else abstract
    phrase = re.split(r"(?<=[a-z0-9)])\.\s", phrase, maxsplit=1)[0]
    phrase = re.sub(r"^(?:(?:whether|how|that|on|and|" + "|".join(_SKIP_WORDS) + r")\s+)+", "", phrase, flags=re.IGNORECASE)
    for cut in _CLAUSE_END.finditer(phrase):
        if len(phrase[: cut.start()].split()) >= 3:
            phrase = phrase[: cut.start()]
            break
    words = phrase.split()[:_MAX_NAME_WORDS]
    while words and words[-1].lower().strip(".,") in _TRAILING:
        words.pop()
    name = " ".join(words).rstrip(".,;:")
    return name[:1].upper() + name[1:] if name else "Untitled abstract"


def assign_names(papers: list[Paper]) -> list[Paper]:
    """Fill ``alias`` and ``name`` for every paper, making names distinct."""
    named: list[Paper] = []
    for paper in papers:
        alias = method_name(paper.abstract) or _emphasised_term(paper.abstract_raw)
        name = paper.title or alias or describe(paper.abstract)
        named.append(replace(paper, alias=alias, name=name))
    counts = Counter(p.name.casefold() for p in named)
    seen: Counter[str] = Counter()
    distinct: list[Paper] = []
    for paper in named:
        folded = paper.name.casefold()
        if counts[folded] > 1:
            seen[folded] += 1
            label = paper.venue or paper.paper_id[:8]
            suffix = f" ({label})" if seen[folded] == 1 or not paper.venue else f" ({label}, {seen[folded]})"
            paper = replace(paper, name=paper.name + suffix)
        distinct.append(paper)
    return distinct
