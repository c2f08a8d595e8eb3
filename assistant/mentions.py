"""Names a question writes ("ImageNet", "GPT-4", "Mamba", "Allen Brain
Observatory") and whether papers use them.

Shared by the steps that judge a question against abstracts: the refusal
rules (a name no abstract uses cannot be answered), the citation check (an
answer saying such a name back echoes the question's guess) and the topic
candidates of a summary or a list ("which papers use Mamba?": MiniLM knows
no such name, so the paper that uses it was far off in meaning).
"""

from __future__ import annotations

import re
from collections.abc import Collection

from assistant.filters import KNOWN_VENUES
from assistant.lexical import STOPWORDS
from assistant.papers import Paper

#: A name as a question writes it: a capital inside or first ("ImageNet", "GPT-4", "Allen"), possessive dropped.
_NAME = re.compile(r"(?<![A-Za-z0-9-])([A-Za-z][A-Za-z0-9]*(?:-[A-Za-z0-9]+)*)(?:'s)?(?![A-Za-z0-9-])")
_VENUES = frozenset(v.casefold() for v in KNOWN_VENUES)


def as_word(name: str) -> str:
    """``name`` as a word of its own, plural, possessive or hyphenated ("LLMs",
    "REVE's", "Mamba-based"); not inside another word ("AGM" in "fragmented",
    "BERT" in "RoBERTa")."""
    return rf"(?<![A-Za-z0-9]){re.escape(name)}(?:e?s|'s)?(?![A-Za-z0-9])"


def says(text: str, name: str) -> bool:
    """Whether ``text`` writes ``name`` as a word of its own, in any case."""
    return re.search(as_word(name), text, re.IGNORECASE) is not None


def without(text: str, names: Collection[str]) -> str:
    """``text`` with every one of ``names`` (as words, see ``says``) taken out."""
    for name in names:
        text = re.sub(as_word(name), " ", text, flags=re.IGNORECASE)
    return text


def spellings(acronym: str, text: str) -> list[str]:
    """Where ``text`` writes an acronym out: its runs of words whose initials
    spell it, in any case ("LLM": "large language model")."""
    letters = acronym.casefold()
    words = re.findall(r"[A-Za-z0-9]+", text)
    return [" ".join(words[i:i + len(letters)]) for i in range(len(words) - len(letters) + 1)
            if "".join(w[0] for w in words[i:i + len(letters)]).casefold() == letters]


def _singular(name: str) -> str:
    """An acronym's plural without its "s" ("LLMs" -> "LLM"); any other name as it is."""
    return name[:-1] if name.endswith("s") and name[:-1].isupper() else name


def _spelled_out(acronym: str, text: str) -> bool:
    """An acronym the abstract writes out ("LLM": "large language model")."""
    return bool(spellings(acronym, text))


def unmentioned(question: str, about: list[Paper], papers: Collection[str] = ()) -> list[str]:
    """Capitalised names in ``question`` that none of ``about`` uses in its
    name, title or abstract (nor spells out, for an acronym): a question
    about ImageNet results cannot be answered by abstracts that never say
    "ImageNet". Venue names, the question's first word and the names of
    indexed ``papers`` (answered elsewhere, e.g. paper by paper) are not counted."""
    text = " ".join(f"{p.name} {p.title} {p.abstract}" for p in about).casefold()
    found = []
    for match in _NAME.finditer(question):
        word = match.group(1)
        first = not question[: match.start()].strip(" \"'“(")
        if not any(c.isupper() for c in word[1:] if c.isalpha()) and (first or not word[0].isupper()):
            continue  # an ordinary word, or a capital only because it starts the question
        if word.casefold() in _VENUES or word.casefold() in STOPWORDS or len(word) < 3 or word in papers:
            continue
        if says(text, word):
            continue
        parts = word.split("-")
        if len(parts) > 1 and any(p.islower() for p in parts):  # "ImageNet-trained", "L2-robust": the name parts
            names = [p for p in parts if not p.islower() and len(p) >= 3]
            if all(says(text, p) for p in names):
                continue
            word = "-".join(names)
        singular = _singular(word)
        if says(text, singular):
            continue
        if singular.isupper() and _spelled_out(singular, text):
            continue
        found.append(word)
    return found


def question_names(question: str, papers: Collection[str] = ()) -> list[str]:
    """Every name the question writes (as ``unmentioned`` counts them)."""
    return unmentioned(question, [], papers)


def abbreviates(name: str, about: list[Paper]) -> bool:
    """Whether ``name`` is an acronym that one of ``about``'s abstracts
    defines ("Electroencephalography (EEG)") or writes out ("large language
    models"): shorthand for the field's words, which the search reads and
    which many papers of a field use, not a name coined for one method
    ("Mamba")."""
    singular = _singular(name)
    if not singular.isupper():
        return False
    defined = re.compile(rf"\(\s*{re.escape(singular)}s?\s*[),;]", re.IGNORECASE)
    return any(defined.search(p.abstract) or _spelled_out(singular, p.abstract) for p in about)


#: A capitalised word right after another: the two are words of a term written in capitals.
_TITLE_CASED = re.compile(r"[ -][A-Z][a-z]")


def as_written(topic: str, about: list[Paper]) -> str:
    """``topic`` with each word that ``about``'s abstracts write only
    capitalised put as they write it, after a word that starts it, so that
    ``question_names`` and ``unmentioned`` see the names a user typed in
    lower case or first: "mamba", or "Mamba" first in "Mamba or state-space
    backbones", was taken for an ordinary word starting a sentence. Not a
    word of a capitalised term ("Spiking Neural Networks (SNNs)"): taken
    for a name, "spiking" made HetSyn's line quote that sentence."""
    text = " ".join(p.abstract for p in about)

    def written(match: re.Match[str]) -> str:
        word = match.group(0)
        found = list(re.finditer(as_word(word), text, re.IGNORECASE))
        if word.casefold() in STOPWORDS or any(_TITLE_CASED.match(text, m.end()) for m in found):
            return word  # a word of a capitalised term, not a name of its own
        forms = {m.group(0) for m in found}
        if forms and all(any(c.isupper() for c in f) for f in forms):
            return min(forms, key=len)  # as the abstracts write it: "Mamba", not "Mambas"
        return word

    return "on " + re.sub(r"[A-Za-z][A-Za-z0-9]*", written, topic)


def naming_sentence(sentences: list[str], names: list[str], gist: int) -> int:
    """The sentence a paper's listed line quotes: its ``gist`` ("we propose…"),
    unless that says none of the ``names`` the question asks about and a
    later sentence (else an earlier one) does. "Which papers use Mamba?"
    is answered by "…integrates a two-stream Mamba architecture…", not by
    the sentence before it that announces a theoretical analysis."""
    naming = [i for i, s in enumerate(sentences) if any(says(s, n) for n in names)]
    if not naming or gist in naming:
        return gist
    return next((i for i in naming if i > gist), naming[0])
