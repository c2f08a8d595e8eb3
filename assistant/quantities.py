"""What a number in a sentence counts: "114 disciplines", "78 mice", "78只猴子".

An answer may take a number its source states and say it of another
thing: "There are 114 questions in Earth-Iron" where the abstract counts
114 disciplines, "用了78只猴子" (78 monkeys) where it counts 78 mice, "共有 8
小时的数据" (8 hours) where it counts 8 downstream tasks (dev, all three
unanswerable). The number is in the source, so the check that a sentence's
numbers are its sources' passes; the thing counted is not, and no source
says it. The counted thing is the one or two words after the number (a
Chinese one through the field dictionary); the source's number must have
one of them within a few words of it, before or after ("improves AUROC
by 23%", "a dataset of 3.3 million neurons"). A number the source does not
state, a year, a percentage, and a count whose words the dictionary does
not know are not judged here.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from assistant.crosslingual import CJK, known_terms
from assistant.lexical import tokenize

#: A number as a count: not a name's digits ("GPT-4", "3D", "L2"), a citation marker ("[1]") or a share ("23%", "78.5%").
_NUMBER = re.compile(r"(?<![A-Za-z0-9_.,\-\[/])\d[\d,]*(?:\.\d+)?(?![A-Za-z0-9_%％]|[.,]\d)")
#: Scale words between a number and what it counts ("3.3 million neurons", "150亿个").
_SCALE = re.compile(r"\s*(?:(?:million|billion|thousand|hundred)\b|[万亿千百])?\s*", re.IGNORECASE)
_WORD = re.compile(r"[A-Za-z][\w-]*")
_YEAR = re.compile(r"(?:19|20)\d\d")
#: How far around a source's number its counted thing may stand, in characters.
_BEFORE, _AFTER = 50, 60
#: Things an answer may count in other words than its source: "25,000 participants" for "25,000 subjects".
_SAME_THING = [set(tokenize(group)) for group in (
    "subjects participants people persons individuals humans volunteers",
    "papers articles publications", "datasets corpus corpora data", "samples examples instances",
    "hours hrs", "models networks", "neurons units cells")]


def _plain(number: str) -> str:
    return number.replace(",", "")


def counted(text: str, end: int) -> set[str]:
    """The stemmed words of what the number ending at ``end`` counts: the
    next two English words, or the English of the next Chinese characters
    the dictionary knows (empty: nothing to judge)."""
    rest = text[end:end + 40]
    rest = _SCALE.sub("", rest, count=1)  # matches at the start, if only the empty string
    if CJK.match(rest):
        run = re.match(r"[\u3400-\u4dbf\u4e00-\u9fff]{1,5}", rest)
        words = set(tokenize(" ".join(known_terms(run.group() if run else ""))))
    else:
        words = set(tokenize(" ".join(_WORD.findall(rest)[:2])))
    return words.union(*(group for group in _SAME_THING if words & group))


def misbound(sentence: str, sources: Iterable[str], asked: str = "") -> list[str]:
    """The counts of ``sentence`` ("114 questions") whose number the
    ``sources`` state only of other things; a number the question (``asked``)
    says is its own premise, not judged here."""
    texts = list(sources)
    given = {_plain(m.group()) for m in _NUMBER.finditer(asked)}
    wrong = []
    for m in _NUMBER.finditer(sentence):
        number = _plain(m.group())
        words = counted(sentence, m.end())
        if not words or number in given or _YEAR.fullmatch(number):
            continue
        near = [set(tokenize(t[max(0, s.start() - _BEFORE): s.end() + _AFTER]))
                for t in texts for s in _NUMBER.finditer(t) if _plain(s.group()) == number]
        if near and not any(words & window for window in near):
            wrong.append(sentence[m.start():m.end() + 12].strip())
    return wrong
