"""A question's everyday words, searched as the words abstracts use.

Users ask in plain words ("a foundation model for brainwave recordings",
"which papers work with rodents?", "brain scans from pictures"); abstracts
say EEG, mice and fMRI. BM25 matches no such pair, and MiniLM does not put
"brainwave" near "EEG" either, so the question missed its paper among 6k
(or was refused as about nothing indexed). A small bundled table
(``data/en_synonyms.tsv``: lay phrases and British spellings, each with the
field's words) adds those words to the search query; the question the model
reads is left as the user wrote it.
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

from assistant.files import read_pairs

TABLE = Path(__file__).resolve().parent / "data" / "en_synonyms.tsv"
#: A space or a hyphen between a phrase's words, as ``re.escape`` writes them.
_JOINED = re.compile(r"\\ |\\-|-")


@cache
def _entries() -> tuple[tuple[re.Pattern[str], str], ...]:
    """Each phrase as a whole-word pattern (its plural too; a space or a
    hyphen between its words, or neither: "brain wave", "brain-wave",
    "brainwave"), longest phrase first."""
    pairs = sorted(read_pairs(TABLE), key=lambda pair: -len(pair[0]))  # no words: an idiom ("the big picture")
    return tuple((re.compile(rf"(?<![\w-]){_JOINED.sub('[ -]?', re.escape(phrase))}(?:e?s)?(?![\w-])",
                             re.IGNORECASE), words) for phrase, words in pairs)


def field_words(query: str) -> list[str]:
    """The field's words for the everyday words of ``query`` that it does
    not already use, longest phrase first (a phrase inside a longer matched one,
    "brainwave" in "brainwave recordings", adds nothing more)."""
    present = {w.casefold() for w in re.findall(r"[\w-]+", query)}
    added: list[str] = []
    for _, words in matches(query):
        added += [w for w in words if w.casefold() not in present]
        present |= {w.casefold() for w in words}
    return added


def matches(query: str) -> list[tuple[str, list[str]]]:
    """Each everyday phrase of ``query`` the table knows, as written, with
    the entry's field words (none for an idiom), longest phrase first."""
    rest = query
    found: list[tuple[str, list[str]]] = []
    for pattern, words in _entries():
        for match in pattern.finditer(rest):
            found.append((match.group(0), words.split()))
        rest = pattern.sub(" ", rest)
    return found


def scoped(query: str) -> tuple[str, str | None]:
    """The query to search and the user's own words beside it: ``expanded``
    and ``query``, or ``query`` and None when no field word was added."""
    searched = expanded(query)
    return searched, query if searched != query else None


def expanded(query: str) -> str:
    """``query`` followed by the field's words for its everyday words (itself when it has none)."""
    added = field_words(query)
    return f"{query} {' '.join(added)}" if added else query
