"""What an answer yields: typed events while it is made, and the checked result.

Each mode yields ``Routed`` (which path a chat message took), ``Sources``
(the papers, before the model starts), ``Draft`` (quoted evidence, on
screen at once), ``Waiting`` while other requests are ahead in the model's
queue, ``Token`` deltas as the model writes, then ``Final`` with
the checked answer. A comparison first yields its ``Table`` twice: quoted
cells at once, then with the short values the model found. The CLI prints them and the UI renders them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from assistant.prompts import NOT_STATED


@dataclass(frozen=True)
class Routed:
    """The path a message was sent down, and why (the UI shows it)."""

    kind: str
    reason: str


@dataclass(frozen=True)
class Sources:
    """The papers the answer will draw on, known before the first token."""

    sources: list[dict[str, Any]]


@dataclass(frozen=True)
class Draft:
    """Quoted, cited evidence shown while the model writes: useful content
    within a second, replaced by the checked answer."""

    text: str


@dataclass(frozen=True)
class Waiting:
    """The model is answering others: ``ahead`` requests come before this
    one (repeated five times a second while it waits)."""

    ahead: int


@dataclass(frozen=True)
class Table:
    """A comparison's table (``table`` as in the answer JSON): extractive
    first, shown before any model call; again after each value the model
    was asked for (``asked`` of ``asking``: the values so far, so that half
    a minute of values shows its progress); ``values`` once they are all in
    (or the model failed)."""

    papers: list[dict[str, Any]]
    aspects: list[str]
    table: list[dict[str, Any]]
    values: bool
    asked: int = 0
    asking: int = 0


@dataclass(frozen=True)
class Token:
    """A piece of the model's reply as it streams (citations not yet checked)."""

    text: str


@dataclass
class AnswerResult:
    """The checked answer and everything the ``--json`` contract carries.

    ``model_text`` is the model's reply before any check, so that errors are
    counted before repair. ``quoted`` marks an answer made of sentences
    quoted from the abstracts because the model refused or failed.
    """

    mode: str
    question: str
    query: str
    answer: str
    citations: list[dict[str, Any]]
    sources: list[dict[str, Any]]
    abstained: bool
    model: str
    timings: dict[str, float]
    support: list[dict[str, Any]] = field(default_factory=list)
    extractive: bool = False
    error: str | None = None
    model_text: str = ""
    quoted: bool = False
    extra: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        payload = {
            "question": self.question, "answer": self.answer, "citations": self.citations,
            "sources": self.sources, "abstained": self.abstained, "model": self.model,
            "timings": self.timings, "mode": self.mode, "query": self.query, "support": self.support,
            "extractive": self.extractive, "quoted": self.quoted, "error": self.error,
            "model_text": self.model_text,
            "unsupported": [s["sentence"] for s in self.support if s["supported"] is False],
        }
        return payload | self.extra

    def to_markdown(self, keys: Mapping[str, str] | None = None) -> str:
        """The answer with its table (compare) and reference list, for export.
        ``keys`` (paper id -> BibTeX key, see ``references.answer_exports``)
        cite each reference as ``[@key]``, so pandoc links it to the .bib export."""
        keys = keys or {}
        lines = [f"# {self.question}", "", self.answer, ""]
        if self.quoted:
            lines[2:2] = [f"> {self.quoted_note()}", ""]
        if self.extra.get("table"):
            lines += [markdown_table(self.extra["papers"], self.extra["table"]), ""]
        lines += ["## References", ""]
        lines += [f"{s['n']}. {s['title']} — {s['venue']} (id `{s['paper_id']}`)"
                  + (f" [@{keys[s['paper_id']]}]" if s["paper_id"] in keys else "")
                  + ("" if s["n"] <= len(self.citations) else " — not cited") for s in self.sources]
        return "\n".join(lines) + "\n"

    def quoted_note(self) -> str:
        """Why the answer is quoted rather than written by the model."""
        if self.error:
            return f"The LLM was unavailable ({self.error}); these sentences are quoted from the abstracts."
        return "Quoted from the abstracts: the model did not answer, but these sentences do."


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


#: Words of a quote shown in a one-line table cell.
CELL_WORDS = 40


def short(sentence: str) -> str:
    """A quote cut to a table cell's length."""
    words = sentence.split()
    return " ".join(words[:CELL_WORDS]) + (" …" if len(words) > CELL_WORDS else "")


def cell_text(cell: dict[str, Any]) -> str:
    """What a cell says in one line: its value, else its quote, else "not stated"."""
    if not cell["stated"]:
        return NOT_STATED
    return cell["value"] or short(cell["quote"])


def markdown_table(papers: list[dict[str, Any]], table: list[dict[str, Any]]) -> str:
    """A comparison's table as markdown: per cell the short value and the
    quote it rests on, or "not stated"."""
    lines = ["| aspect | " + " | ".join(_cell(p["title"]) for p in papers) + " |",
             "|---" * (len(papers) + 1) + "|"]
    for row in table:
        cells = [(f"**{c['value']}** — " if c["value"] else "") + f"“{c['quote']}”" if c["stated"] else NOT_STATED
                 for c in row["cells"]]
        lines.append(f"| {_cell(row['aspect'])} | " + " | ".join(_cell(c) for c in cells) + " |")
    return "\n".join(lines)


@dataclass(frozen=True)
class Final:
    """The last event: the checked answer."""

    result: AnswerResult


Event = Routed | Table | Sources | Draft | Waiting | Token | Final
