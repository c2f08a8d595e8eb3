"""Venue and year filters stated in the question itself.

Users scope a question in words, not flags: "NeurIPS papers on EEG", "from
ICLR 2026", "deepfake detection in 2025", "ICLR 2026 的哪些论文…",
"2025年关于…". Left in the query, those words only blur the ranking (the
abstracts rarely name their venue) and papers of every venue come back, so
they are parsed into the same venue/year filter that ``--venue``/``--year``
set, and removed from the text that is searched. The parser is pure (text
in, text and filters out); applying it, and what an explicit flag
overrides, is the retriever's business.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from assistant.lexical import tokenize

#: Conference and journal names recognised in a question, as usually spelled.
#: Indexed venues are recognised too (see ``parse_filters``'s ``venues``).
KNOWN_VENUES = (
    "NeurIPS", "NIPS", "ICLR", "ICML", "CVPR", "ICCV", "ECCV", "WACV", "BMVC", "ACL", "EMNLP", "NAACL", "EACL",
    "COLING", "AAAI", "IJCAI", "KDD", "WWW", "SIGIR", "WSDM", "CIKM", "AISTATS", "UAI", "COLT", "CoRL", "ICRA",
    "IROS", "RSS", "MICCAI", "ISBI", "TMLR", "JMLR", "ICASSP", "Interspeech", "CHI", "MLSys",
)
#: Old names of venues, said still: "NIPS 2025" is NeurIPS 2025 (renamed in 2018).
ALIASES = {"nips": "NeurIPS"}
_YEAR = r"(?:19[89]\d|20[0-3]\d)"
#: A venue the question rules out ("EEG papers not from ICLR", "除了 ICLR"): no filter, rather than its opposite.
_NEGATED = re.compile(r"(?:\b(?:not|excluding|except|other than|outside(?: of)?|besides|apart from|non)\b|不是|除了|以外)"
                      r"[\s\w'-]{0,12}$", re.IGNORECASE)
#: Words that introduce a venue or year ("papers from ICLR", "published in 2025", "在 ICLR 2026 上").
_BEFORE = (r"(?:(?<![A-Za-z])(?:(?:published|accepted|presented|appearing|appeared)\s+(?:in|at)|(?:from|at|in|of|for|"
           r"during)(?:\s+the)?)|发表(?:在|于)|来自|在)\s*")  # a whole word: "what ICLR" is not "wh" + "at ICLR"
#: Chinese particles that tie a venue or year to the noun after it ("ICLR 2026 的", "2025年里").
_AFTER_ZH = r"\s*(?:年)?\s*(?:会议)?\s*(?:上的|里的|中的|的|里|中|上)?"
#: Words that may follow "from 2025" when 2025 is a year ("from 2025 on EEG"), unlike "from 2000 subjects".
_GLUE = r"(?:on|about|in|at|and|or|that|which|with|for|to|papers?|works?|studies)\b"
#: A year on its own counts only with a cue: a word before it, "papers" after it, or 年.
_YEAR_ALONE = re.compile(
    rf"(?:{_BEFORE}(?P<a>{_YEAR})\b(?:\s*年)?(?!\s+(?!{_GLUE})[a-z])|\b(?P<b>{_YEAR})\s*(?:年{_AFTER_ZH}|(?='s\b|\s+(?:papers?|works?|"
    rf"studies|submissions|articles)\b))|\b(?P<article>an?|the)\s+(?P<c>20[1-3]\d)(?=\s+[a-z]))",
    re.IGNORECASE)


@dataclass(frozen=True)
class QuestionFilters:
    """What a question asks to be restricted to, and the question without
    those words; ``venues``: every venue it names (``venue`` is set only when
    that is one: "EEG papers from ICLR 2026 and NeurIPS 2025" asks for both,
    not for the first)."""

    question: str
    venue: str | None
    year: int | None
    venues: tuple[str, ...] = ()


def describe(applied: dict[str, object]) -> str:
    """A filter taken from a question, in words: "venue ICLR 2026, year 2025", "venues ICLR 2026 or NeurIPS 2025"."""
    return ", ".join(f"{field} {' or '.join(value) if isinstance(value, list) else value}"
                     for field, value in applied.items())


def _venue_pattern(names: Iterable[str]) -> re.Pattern[str]:
    alternatives = "|".join(re.escape(n) for n in sorted(set(names), key=len, reverse=True))
    return re.compile(
        # letters, digits or a hyphen next to it make it part of a word ("NAACL-style"); a CJK character
        # does not ("2025年NeurIPS上"), nor a hyphen before its year ("ICLR-2026")
        rf"(?:{_BEFORE})?(?<![A-Za-z0-9-])(?P<name>{alternatives})(?:(?:\s*['’]?\s*|-)(?P<year>{_YEAR}|\d\d)(?!\d))?"
        rf"(?![A-Za-z0-9-])(?:'s)?{_AFTER_ZH}",
        re.IGNORECASE)


_KNOWN = _venue_pattern(KNOWN_VENUES)


def _venue_names(venues: Iterable[str]) -> list[str]:
    """The name part of indexed venues ("Nature Neuroscience 2024" -> "Nature Neuroscience")."""
    names = {re.sub(rf"\s*{_YEAR}\s*$", "", v).strip() for v in venues}
    return [n for n in names if len(n) >= 3]


def _tidy(text: str) -> str:
    """The question once a filter's words are cut out: no doubled spaces or stray commas."""
    text = re.sub(r"\s+([,.?!:;])", r"\1", re.sub(r"\s{2,}", " ", text))
    # the word that joined two venues: "EEG papers from A and B" -> "EEG papers", "A 和 B 的脑电论文" -> "脑电论文"
    text = re.sub(r"\s+(?:and|or|vs\.?|versus)\s*(?=[?.!]?$)|^\s*(?:and|or|vs\.?|和|与|及|以及)\s+", "", text)
    return re.sub(r"^[\s,.:;]+|[\s,:;]+$", "", text).strip() or text.strip()


def parse_filters(question: str, venues: Iterable[str] = ()) -> QuestionFilters:
    """The venue and year a question names, and the question without them.

    ``venues`` are the indexed venues, so that one outside ``KNOWN_VENUES``
    ("Nature Neuroscience") is recognised too. A venue with its year
    ("ICLR 2026", "NeurIPS'25") is one venue string; a year on its own
    ("papers from 2025", "2025年") is the year filter. Bare numbers are
    never taken as years ("2000 neurons")."""
    extra = _venue_names(venues)
    pattern = _venue_pattern([*KNOWN_VENUES, *extra]) if extra else _KNOWN
    year: int | None = None
    text = question
    named: list[str] = []
    for match in reversed([m for m in pattern.finditer(text) if not _NEGATED.search(text[: m.start()])]):
        name = next((v for v in (*KNOWN_VENUES, *extra) if v.casefold() == match["name"].casefold()), match["name"])
        name = ALIASES.get(name.casefold(), name)
        digits = match["year"]
        named.insert(0, f"{name} {digits if len(digits) == 4 else '20' + digits}" if digits else name)
        text = text[: match.start()] + " " + text[match.end():]
    named = _distinct(named)
    found = _YEAR_ALONE.search(text)
    if found:
        year = int(found["a"] or found["b"] or found["c"])
        keep = found["article"] or ""  # "a 2026 model" -> "a model"
        text = text[: found.start()] + f" {keep} " + text[found.end():]
    if not named and year is None:
        return QuestionFilters(question, None, None)
    return QuestionFilters(_tidy(text), named[0] if len(named) == 1 else None, year, tuple(named))


def _distinct(venues: list[str]) -> list[str]:
    """The venues named, each once: "NeurIPS" said beside "NeurIPS 2025" is
    that one ("NeurIPS 2025, the NeurIPS paper on …"), in the order said."""
    squash = [v.replace(" ", "").casefold() for v in venues]
    return list(dict.fromkeys(
        max((w for w, s in zip(venues, squash, strict=True) if s.startswith(own) or own.startswith(s)), key=len)
        for own in squash))


#: The words of a request for papers that name no topic: "list the papers", "what papers do you have?".
_NO_TOPIC = frozenset(tokenize(
    "list show give tell me us all every overview summary summarize rundown gist available included accepted "
    "published presented there have has do does you your we see browse collection index work works studies "
    "articles abstracts any ones quick brief short please pls can could would how many count number total"))
#: The same in Chinese ("论文有哪些", "列出所有的文章"), with punctuation and spaces.
_NO_TOPIC_ZH = re.compile(r"论文|文章|工作|有哪些|哪些|哪几篇|列出|所有|全部|总结|概述|一下|介绍|有|的|吗|呢|[^\w]|_")


def topicless(question: str) -> bool:
    """Whether a question, its venue and year words taken out, asks for the
    papers and nothing narrower ("which papers are from ICLR 2026?" leaves
    "which papers are?"): the filter's papers are the answer, not a search
    for the word "papers" (which found none, and the answer was a refusal)."""
    rest = _NO_TOPIC_ZH.sub(" ", question)
    return not re.search(r"[^\x00-\x7f]", rest) and not set(tokenize(rest)) - _NO_TOPIC
