"""The BM25 side of hybrid retrieval, and exact matching of method names.

Dense MiniLM vectors blur rare coined names (CSBrain vs CodeBrain) and see
only the opening of each abstract; BM25 over the whole text catches exact
terms. The index is derived from Chroma's records (the source of truth), so
every app instance pointed at the same Chroma answers the same.
"""

from __future__ import annotations

import json
import logging
import os
import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from pathlib import Path

import bm25s
import numpy as np
import Stemmer

from assistant.naming import is_coined

_WORD = re.compile(r"[0-9a-z\u00c0-\u024f]+(?:[-'][0-9a-z\u00c0-\u024f]+)*")
logging.getLogger("bm25s").setLevel(logging.WARNING)  # it sets itself to DEBUG on import
_LOWER_WORD = re.compile(r"(?<![\w-])[a-z][a-z0-9]*(?:-[a-z0-9]+)*(?![\w-])")
#: A link in an abstract ("github.com/camlab-ethz/rigno"): its words are no ordinary words.
_LINK = re.compile(r"(?:https?://|www\.)\S+|\b[\w-]+(?:\.[\w-]+)*\.(?:com|org|io|net|edu|ai)/\S*", re.IGNORECASE)
_STEMMER = Stemmer.Stemmer("english")
#: Fewest words of a paper's name that a message may write in any case and still name it
#: ("scaling data and artificial neural networks vs POCO"); a shorter multi-word name ("Face
#: forgery detection") names it only capitalised as written: in lower case it is a topic.
PHRASE_WORDS = 4
#: Fewest letters of a coined name that a message may misspell by one and still name it.
TYPO_LETTERS = 5
STOPWORDS = frozenset(bm25s.stopwords.STOPWORDS_EN) | {"paper", "papers", "propose", "proposes", "what", "which"}
#: Times the name/title field is repeated in the lexical document (a field boost).


def tokenize(text: str) -> list[str]:
    """Lower-cased, stemmed word tokens; 'RaCO-DP' yields 'raco-dp', 'raco' and 'dp'."""
    tokens: list[str] = []
    for word in _WORD.findall(text.casefold()):
        parts = re.split(r"[-']", word)
        for token in ([word] + parts) if len(parts) > 1 else parts:
            if token and token not in STOPWORDS:
                tokens.append(token)
    return _STEMMER.stemWords(tokens)


def name_keys(text: str) -> set[str]:
    """Candidate name tokens of a string, as written ('What is CSBrain?' -> CSBrain, ...)."""
    return {w.rstrip("*") for w in re.findall(r"[A-Za-z][A-Za-z0-9]*(?:-[A-Za-z0-9]+)*\*?", text)}


def _lookup_keys(name: str, words: set[str]) -> set[str]:
    """Keys a method name is found by: as written, and case-folded unless the
    folded form is a word the abstracts use in lower case (HEIST -> 'heist',
    IDeal -> 'ideal' would match ordinary questions; CSBrain -> 'csbrain' is safe)."""
    folded = name.casefold()
    return {name} if folded in words or folded in STOPWORDS else {name, folded}


@dataclass
class LexicalDoc:
    """What BM25 indexes for one paper."""

    paper_id: str
    name: str
    alias: str
    title: str
    keywords: str
    abstract: str
    cite_key: str = ""

    def text(self, name_weight: int) -> str:
        """The paper's names ``name_weight`` times, then its keywords and abstract."""
        names = " ".join(dict.fromkeys(filter(None, (self.name, self.alias, self.title))))
        return " ".join([names] * name_weight + [self.keywords, self.abstract])

    def identity_keys(self, words: set[str]) -> set[str]:
        """Keys a question can name this paper by: its alias, its BibTeX
        citation key, and a coined name heading its title ('EvoBrain: Dynamic ...')."""
        keys = _lookup_keys(self.alias, words) if self.alias else set()
        if self.cite_key:
            keys |= {self.cite_key, self.cite_key.casefold()}
        head = re.split(r":| - ", self.title, maxsplit=1)[0].strip() if ":" in self.title or " - " in self.title else ""
        if is_coined(head):
            keys |= _lookup_keys(head, words)
        return keys


def _phrase_at(text: str, key: str) -> int:
    """Where ``text`` writes ``key`` as whole words (-1: nowhere)."""
    start = text.find(key)
    while start >= 0:
        end = start + len(key)
        if (start == 0 or not text[start - 1].isalnum()) and (end == len(text) or not text[end].isalnum()):
            return start
        start = text.find(key, start + 1)
    return -1


def _one_typo(a: str, b: str) -> bool:
    """``a`` is ``b`` with one letter changed, added, dropped, or two
    neighbours swapped, the first letter kept."""
    if a[:1] != b[:1] or abs(len(a) - len(b)) > 1:
        return False
    if len(a) == len(b):
        diff = [i for i, (x, y) in enumerate(zip(a, b, strict=True)) if x != y]
        return len(diff) == 1 or (len(diff) == 2 and diff[1] == diff[0] + 1 and a[diff[0]] == b[diff[1]]
                                   and a[diff[1]] == b[diff[0]])
    short, long = sorted((a, b), key=len)
    i = next((i for i, (x, y) in enumerate(zip(short, long)) if x != y), len(short))
    return short[i:] == long[i + 1:]


#: Fewest letters two stems must share at their start to be one word's forms ("epilepsi", "epilept").
KIN_PREFIX = 6


def _kin(token: str, vocab: Collection[str]) -> list[str]:
    """Indexed stems that are another form of ``token`` the stemmer left
    apart ("epilepsy" and "epileptic", "hippocampus" and "hippocampal"):
    they share at least ``KIN_PREFIX`` letters, and all but two of the
    shorter's. Asked for "epilepsy", no abstract says it and the seizure
    papers were refused. Not for a hyphenated word, whose parts are
    searched already ("convergent-learning" doubled "convergence")."""
    if len(token) < KIN_PREFIX or "-" in token or "'" in token:
        return []
    head = token[:KIN_PREFIX]
    return [v for v in vocab if v.startswith(head) and len(os.path.commonprefix([token, v])) >= min(len(token), len(v)) - 2]


class LexicalIndex:
    """BM25 over paper texts, plus a map from method names to papers."""

    def __init__(self, docs: list[LexicalDoc], name_weight: int) -> None:
        self.paper_ids = [d.paper_id for d in docs]
        self._bm25 = bm25s.BM25(k1=1.2, b=0.75)
        corpus = [tokenize(d.text(name_weight)) or ["_empty_"] for d in docs]
        self._bm25.index(corpus, show_progress=False)
        # words the abstracts use in lower case, links left out: "rigno" in RIGNO's code link
        # is no word, and a user typing "rigno" means the paper
        lower_words = {w for d in docs for w in _LOWER_WORD.findall(_LINK.sub(" ", d.abstract))}
        self.names: dict[str, list[int]] = {}
        #: Names of several words (a seed's "Scaling data and artificial neural networks", a record's title), as
        #: written: they hold no coined name for ``names``, and the app shows them for the user to copy.
        self.phrases: dict[str, list[int]] = {}
        for i, doc in enumerate(docs):
            for key in doc.identity_keys(lower_words):
                self.names.setdefault(key, []).append(i)
            for phrase in {doc.name, doc.title} - {""}:
                if len(phrase.split()) >= 3:
                    self.phrases.setdefault(" ".join(phrase.split()), []).append(i)

    def save(self, folder: Path) -> None:
        """Write the index to ``folder`` (bm25s's own arrays, JSON for the rest: nothing pickled)."""
        self._bm25.save(folder / "bm25", show_progress=False)
        (folder / "lexical.json").write_text(json.dumps({"paper_ids": self.paper_ids, "names": self.names,
                                                         "phrases": self.phrases}), encoding="utf-8")

    @classmethod
    def load(cls, folder: Path) -> LexicalIndex:
        """The index ``save`` wrote; its score arrays are memory-mapped, so
        loading takes the same time at 38 papers as at 30,000."""
        index = cls.__new__(cls)
        saved = json.loads((folder / "lexical.json").read_text(encoding="utf-8"))
        index.paper_ids, index.names, index.phrases = saved["paper_ids"], saved["names"], saved["phrases"]
        index._bm25 = bm25s.BM25.load(folder / "bm25", mmap=True)
        return index

    def scores(self, query: str) -> np.ndarray:
        """BM25 score of every paper for ``query`` (aligned with ``paper_ids``);
        a word no paper uses counts as its indexed kin (see ``_kin``)."""
        vocab = self._bm25.vocab_dict
        tokens = [k for t in tokenize(query) for k in ([t] if t in vocab else _kin(t, vocab))]
        if not tokens:
            return np.zeros(len(self.paper_ids), dtype=np.float32)
        return self._bm25.get_scores(tokens)

    def unknown(self, words: list[str], among: Sequence[int] | None = None) -> list[str]:
        """The ``tokenize``d ``words`` that no indexed paper uses, nor a
        word one typo away ("netwroks" is "networks"; only for stems of
        seven letters or more, as shorter ones are other words a letter
        apart: "robot", "root"). ``among``: positions of the papers in
        scope (a venue or year filter); a word only papers outside it use
        is unknown there ("sign language" in the ICLR 2026 set, whose one
        sign-language paper is from NeurIPS 2025)."""
        vocab = self._bm25.vocab_dict
        unknown = []
        for w in words:
            forms = [w] if w in vocab else _kin(w, vocab) or (
                [v for v in vocab if _one_typo(w, v)] if len(w) >= 7 else [])
            if not forms or (among is not None and not self._used(forms, among)):
                unknown.append(w)
        return unknown

    def _used(self, forms: list[str], among: Sequence[int]) -> bool:
        """Whether a paper at one of the positions ``among`` uses one of the indexed ``forms``."""
        return bool(among) and bool((self._bm25.get_scores(forms)[list(among)] > 0).any())

    def named(self, query: str) -> list[int]:
        """Positions of papers whose method name the query states verbatim,
        in the order the query names them (so "CSBrain and REVE" answers
        CSBrain first, whatever the process's string hashing)."""
        hits: list[int] = []
        for token in sorted(name_keys(query), key=query.find):
            hits.extend(self._keyed(token))
        return list(dict.fromkeys(hits))

    def _keyed(self, token: str) -> list[int]:
        """The papers a name key stands for, as written or case-folded (see ``_lookup_keys``)."""
        return self.names.get(token, []) or self.names.get(token.casefold(), [])

    def misspelled(self, token: str) -> list[int]:
        """The papers whose coined name ``token`` misspells by one letter
        ("CSBrian", "HetSny"; see ``_one_typo``), for names of five letters or
        more: shorter ones are other names a letter apart ("REVE", "RAVE")."""
        if len(token) < TYPO_LETTERS or self._keyed(token):
            return []
        folded = token.casefold()
        return list(dict.fromkeys(i for key, ids in self.names.items()
                                  if len(key) >= TYPO_LETTERS and _one_typo(folded, key.casefold()) for i in ids))

    def mentioned(self, text: str) -> list[int]:
        """``named``, and the papers whose name of several words the text
        writes (see ``PHRASE_WORDS``), in the order the text names them: how
        a chat message names papers ("CityLens vs Benchmark for the Earth
        sciences" was a question about CityLens alone)."""
        flat = " ".join(text.split())
        folded = flat.casefold()
        found = [(flat.find(token), i) for token in name_keys(flat)
                 for i in self._keyed(token) or (self.misspelled(token) if is_coined(token) else [])]
        for phrase, ids in self.phrases.items():
            at = (_phrase_at(folded, phrase.casefold()) if len(phrase.split()) >= PHRASE_WORDS
                  else _phrase_at(flat, phrase))
            found += [(at, i) for i in ids] if at >= 0 else []
        return list(dict.fromkeys(i for _, i in sorted(found, key=lambda f: f[0])))
