"""A chat follow-up that points back at the last answer's papers ("which
datasets do these papers pretrain on?", "what's the main result of each?",
"how big is its dataset?"), written out with those papers' names.

Why by rule and not by the LLM's rewrite: the 1.5B model dropped the group
("summarize the EEG foundation models", then "which datasets do these
papers pretrain on?" was rewritten without the papers and listed REVE,
EVNets and HEIST; "and how many downstream tasks does each evaluate?" was
refused). The last answer's cited papers are known exactly, and a message
that names them is routed as one the user typed with the names: one
question put to each paper, or a comparison. It also spares the rewrite's
model call. A follow-up without such a pointer ("what about HEIST?"), or
whose pointer fits the last answer's papers ambiguously ("its dataset"
after an answer citing three), is left to the LLM's rewrite.
"""

from __future__ import annotations

import re

from assistant.crosslingual import has_cjk
from assistant.intent import DUMMY_IT

#: What a paper is called in a follow-up ("these papers", "the three models").
_NOUNS = r"(?:papers?|models?|methods?|studies|study|works?|approaches|approach|ones|benchmarks?|frameworks?|articles?)"
_COUNT = r"(?:(?:two|three|four|five|six|seven|eight|\d+)\s+)?"
#: Not a new noun phrase ("the papers on memory", "the models that use EEG").
_QUALIFIER = r"on|about|that|which|who|using|with|in|from|for|of|related|dealing|where|whose"
_UNQUALIFIED = rf"(?!\s+(?:{_QUALIFIER})\b)"
#: The papers as a group, in English: the replacement keeps ``lead`` ("each of", "both").
_GROUP = re.compile(
    rf"\b(?P<lead>(?:each|both|all|any|either|neither|none|which|one)\s+of\s+)(?:"
    rf"(?:the|these|those)\s+{_COUNT}{_NOUNS}|them|these|those)\b{_UNQUALIFIED}|"
    rf"\b(?P<which>which one)\b|"
    rf"\b(?P<both>both|all)(?:\s+(?:of\s+)?(?:the|these|those))?\s+{_COUNT}{_NOUNS}\b{_UNQUALIFIED}|"
    rf"\b(?:these|those|the)\s+{_COUNT}(?:papers|models|methods|studies|works|approaches|ones|benchmarks|"
    rf"frameworks|articles)\b{_UNQUALIFIED}|"
    r"\b(?P<each>each|both)\b(?!\s+(?:other|of\b))(?:\s+one\b)?|"
    r"\b(?:they|them|these|those)\b(?!\s+(?:papers?|models?|methods?|studies|works?|ones?)\b)|"
    r"\b(?P<own>their)\b", re.IGNORECASE)
#: One paper, in English: "it", "its", "this paper", "that model".
_ONE = re.compile(r"\b(?:(?:this|that)\s+(?:paper|model|method|study|work|approach|framework|benchmark|article)|"
                  rf"it(?!{DUMMY_IT}))\b|\b(?P<own>its)\b", re.IGNORECASE)
#: In Chinese: the group ("这些论文", "它们", "这三篇") and one paper ("这篇论文", "它").
_GROUP_ZH = re.compile(r"这些(?:论文|文章|工作|模型|方法|研究)?|这(?:几|两|三|四|五|六|七|八)篇(?:论文|文章)?|它们|他们")
_ONE_ZH = re.compile(r"(?:这篇|该)(?:论文|文章|工作|研究)|这篇|(?:这个|该)(?:模型|方法|框架)|它(?!们)")
#: A message that brings its own papers for a pronoun to point at ("which papers use Mamba, and what do they
#: predict?"): a paper noun not led by a pointer ("these papers", "the three studies").
_PAPER_NOUN = re.compile(r"\b(?:papers|studies|works|articles)\b", re.IGNORECASE)
_QUALIFIED = re.compile(rf"\b(?:papers|studies|works|articles)\s+(?:{_QUALIFIER})\b", re.IGNORECASE)
_POINTER_BEFORE = re.compile(rf"\b(?:these|those|the|both|all)\s+{_COUNT}$", re.IGNORECASE)
_OWN_SUBJECT_ZH = re.compile(r"哪些(?:论文|文章|研究|工作)|有没有")


def _own_subject(message: str) -> bool:
    """Whether the message names papers of its own (a topic's), not the last answer's."""
    if _OWN_SUBJECT_ZH.search(message) or _QUALIFIED.search(message):
        return True
    return any(not _POINTER_BEFORE.search(message[: m.start()]) for m in _PAPER_NOUN.finditer(message))


#: One paper of the last answer by its place ("the second one", "the last paper", "[2]", "第二篇").
_PLACES = {"first": 0, "second": 1, "third": 2, "fourth": 3, "fifth": 4, "sixth": 5, "seventh": 6, "eighth": 7,
           "last": -1, "一": 0, "二": 1, "三": 2, "四": 3, "五": 4, "六": 5, "七": 6, "八": 7}
_PLACE = re.compile(r"\bthe\s+(?P<nth>first|second|third|fourth|fifth|sixth|seventh|eighth|last)(?:\s+(?:one|paper|"
                    r"model|method|study|work|article|benchmark)\b|(?=\s*(?:[?.,!;]|$|(?:and|or|vs)\b)))|"
                    r"第(?P<zh>[一二三四五六七八])(?:篇|个)(?:论文|文章|工作|模型)?|\[(?P<n>\d+)\]", re.IGNORECASE)


def _placed(message: str, names: list[str], chinese: bool) -> str | None:
    """``message`` with each paper it points at by place named; None when it points at none that is there."""
    def name(match: re.Match[str]) -> str:
        at = int(match["n"]) - 1 if match["n"] else _PLACES[(match["nth"] or match["zh"]).lower()]
        if not -len(names) <= at < len(names) or match["n"] is not None and at < 0:
            return match[0]
        return f" {names[at]} " if chinese else names[at]

    written = _PLACE.sub(name, message)
    return _tidy(written) if written != message else None


def _names(names: list[str], chinese: bool) -> str:
    """"A, B and C" (Chinese: "A、B 和 C")."""
    if len(names) == 1:
        return names[0]
    if chinese:
        return "、".join(names[:-1]) + " 和 " + names[-1]
    return ", ".join(names[:-1]) + " and " + names[-1]


def _group(match: re.Match[str], listed: str) -> str:
    """A group pointer as the names, with what it asked of them ("each of …", "… 's")."""
    if match["lead"]:
        return match["lead"] + listed
    if match["which"]:
        return f"which of {listed}"
    if match["both"] or match["each"]:
        word = (match["both"] or match["each"]).lower()
        return f"{'each of' if word == 'each' else word} {listed}"
    return f"{listed}'s" if match["own"] else listed


def _tidy(message: str) -> str:
    """Spaces set around names in Chinese text, no more than one, none at the ends."""
    return re.sub(r" {2,}", " ", message).strip()


def _one(match: re.Match[str], name: str) -> str:
    return f"{name}'s" if match["own"] else name


def named(message: str, names: list[str]) -> str | None:
    """``message`` with the papers it points at by place ("the second one",
    "[2]") named, else its first pointer to the last answer's papers
    (``names``, in the answer's order) replaced by their names (a pronoun
    after it points at the names: "which of them put out their code?" is
    "which of RIGNO and … put out their code?"); None when it has none,
    or when they do not fit those papers (a group pointer after one paper
    is the authors, "they", only; "it" after several is ambiguous), or when
    the message brings papers of its own for its pronouns to point at."""
    chinese = has_cjk(message)
    group, one = (_GROUP_ZH, _ONE_ZH) if chinese else (_GROUP, _ONE)
    if not names or _own_subject(message):
        return None
    placed = _placed(message, names, chinese)
    if placed is not None:
        return placed
    listed = _names(names, chinese)
    if len(names) > 1:
        if not group.search(message):
            return None
        return _tidy(group.sub(lambda m: f" {listed} " if chinese else _group(m, listed), message, count=1))
    if one.search(message):
        return _tidy(one.sub(lambda m: f" {listed} " if chinese else _one(m, listed), message, count=1))
    if not chinese and re.search(r"\b(?:they|them|their)\b", message, re.IGNORECASE):  # the paper's authors
        return re.sub(r"\b(?P<own>their)\b|\b(?:they|them)\b", lambda m: _one(m, listed), message, count=1,
                      flags=re.IGNORECASE)
    if chinese and group.search(message):
        return _tidy(group.sub(f" {listed} ", message, count=1))
    return None
