"""Chinese (CJK) questions searched against English abstracts.

BM25 and MiniLM see English text, so a Chinese question finds nothing by
itself. Two ways into English: the LLM, when one answers (its translation
is cached on disk, so a question is translated once per model), and,
without any LLM, a bundled field dictionary (``data/zh_en_terms.tsv``,
longest match first) that turns the question's terms into English words.
Latin-script words in the question (EEG, REVE, ICLR) are kept either way.
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Callable
from functools import cache
from pathlib import Path

from assistant.files import read_pairs, write_atomic

#: One character of Chinese, Japanese or Korean script (the answer's language, word counts and cues use it too).
CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af]")
_LATIN = re.compile(r"[A-Za-z][A-Za-z0-9]*(?:[-'][A-Za-z0-9]+)*|\d+(?:\.\d+)?")
DICTIONARY = Path(__file__).resolve().parent / "data" / "zh_en_terms.tsv"


def has_cjk(text: str) -> bool:
    """Whether ``text`` holds Chinese, Japanese or Korean script."""
    return bool(CJK.search(text))


@cache
def _terms() -> tuple[dict[str, str], int]:
    """The dictionary and its longest key."""
    terms = dict(read_pairs(DICTIONARY))
    return terms, max(map(len, terms))


def dictionary_query(question: str) -> str:
    """An English search query from the question's known terms and its Latin-script words."""
    latin = _LATIN.findall(question)
    return " ".join(dict.fromkeys(latin + known_terms(question)))


#: Words with which a Chinese question asks something (什么, 哪, 多少, 吗 …).
_ASKING = re.compile(r"什么|哪|多少|几|怎么|怎样|如何|吗|是否|为什么|为何|谁|多大|多久|有没有")


def asked_terms(question: str) -> str:
    """The English terms of the clauses of a Chinese question that ask
    something ("负权重主要编码的是什么信息" -> "weights encoding"), without
    those that describe the paper ("研究网络权重正负号和视觉表征关系的那篇论文里"):
    the sentence that answers is near the former, the abstract's gist near
    the latter. The last clause when none asks; "" when no term is known."""
    clauses = [c for c in re.split(r"[，,。？?；;！!]", question) if c.strip()]
    asking = [c for c in clauses if _ASKING.search(c)] or clauses[-1:]
    return " ".join(dictionary_query(c) for c in asking).strip()


def known_terms(question: str) -> list[str]:
    """The English of the question's terms the dictionary knows, longest
    match first (so 脉冲神经网络 is one term, not 脉冲 + 神经网络)."""
    terms, longest = _terms()
    words: list[str] = []
    i = 0
    while i < len(question):
        for size in range(min(longest, len(question) - i), 0, -1):
            english = terms.get(question[i:i + size])
            if english:
                words.append(english)
                i += size
                break
        else:
            i += 1
    return words


class TranslationCache:
    """LLM translations of questions, per model, in a JSON file under the
    storage folder: the same Chinese question never costs a second LLM call."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = threading.Lock()
        try:
            self._entries: dict[str, str] = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):  # none yet, or unreadable: start afresh, it is only a cache
            self._entries = {}

    def get(self, model: str, question: str, translate: Callable[[str], str]) -> str:
        """The cached translation, else ``translate(question)``, stored."""
        key = f"{model}\t{question}"
        with self._lock:
            if key in self._entries:
                return self._entries[key]
        english = translate(question)
        with self._lock:
            self._entries[key] = english
            try:
                write_atomic(self.path, json.dumps(self._entries, ensure_ascii=False, indent=0))
            except OSError:  # a read-only storage folder still searches, uncached
                pass
        return english


def llm_query(question: str, english: str) -> str:
    """The search query from the LLM's reply: its first line, plus the
    question's Latin-script words (names the model may have dropped)."""
    first = english.strip().splitlines()[0].strip('"“”') if english.strip() else ""
    if has_cjk(first):  # a small model sometimes answers in Chinese ("EEG基础模型的论文"): its terms, then
        first = dictionary_query(first)
    return " ".join(dict.fromkeys([first, *_LATIN.findall(question)])).strip() or dictionary_query(question)
