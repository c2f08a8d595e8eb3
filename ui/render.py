"""Pure rendering helpers for the chat UI: source cards, chat markdown, tables.

Everything shown comes from abstracts or from a model, and both can hold
markup (an abstract may contain ``<script>``; a model may echo it). So every
piece of text is escaped here, before it reaches HTML or chat markdown, and
the only markup in the output is markup these functions write themselves.
Kept free of Gradio so it can be tested in milliseconds.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from assistant.chunking import sentences
from assistant.filters import describe
from assistant.papers import Paper
from assistant.result import Table, cell_text

if TYPE_CHECKING:  # the answer module pulls in LlamaIndex: not needed to render
    from assistant.answer import AnswerResult

#: A citation marker as it looks after ``chat_text`` escaped its brackets.
_ESCAPED_MARKER = re.compile(r"\\\[(\d+)\\\]")
#: A line that markdown would turn into an ordered list item.
_LIST_NUMBER = re.compile(r"^(\s*\d+)([.)])", re.MULTILINE)
FIRST_LINE_CHARS = 160


def esc(text: object) -> str:
    """Text made inert inside HTML (element content and quoted attributes)."""
    return html.escape(str(text), quote=True)


def chat_text(text: str) -> str:
    """Text made inert inside chat markdown: HTML escaped, and backslashes and
    square brackets escaped so that it can form no link or image of its own."""
    escaped = html.escape(text, quote=False).replace("\\", "\\\\")
    escaped = _LIST_NUMBER.sub(r"\1\\\2", escaped)  # "1. …" is the model's text, not a list to renumber
    return escaped.replace("[", r"\[").replace("]", r"\]")


def card_id(turn: int, n: int) -> str:
    """The id of source card ``n`` of answer ``turn``: ids are per answer so
    that an earlier answer's [1] keeps pointing at its own paper."""
    return f"src-{turn}-{n}"


def linked_answer(answer: str, sources: int, turn: int) -> str:
    """The checked answer as chat markdown, each valid [n] a link to its card."""

    def link(match: re.Match[str]) -> str:
        n = int(match.group(1))
        return f"[\\[{n}\\]](#{card_id(turn, n)})" if 1 <= n <= sources else match.group(0)

    return _ESCAPED_MARKER.sub(link, chat_text(answer))


def reading(count: int) -> str:
    """The chat placeholder between the sources and the first token."""
    return f"_Reading {count} paper{'' if count == 1 else 's'}…_"


def waiting(ahead: int) -> str:
    """The chat placeholder while the model answers others first."""
    return f"_Waiting for the model ({ahead} ahead)…_"


def stopped() -> str:
    """What is left of an answer stopped by a newer question in the same session."""
    return "_Stopped: a newer question was asked._"


def streaming_text(text: str) -> str:
    """The model's reply so far (citations unchecked), with a cursor."""
    return chat_text(text) + " ▍"


def _table_cell(text: str) -> str:
    return chat_text(text).replace("|", r"\|").replace("\n", " ")


def aspect_table(papers: Sequence[dict[str, Any]], rows: Sequence[dict[str, Any]]) -> str:
    """The compare table (aspect, then one column per paper) as chat
    markdown: each cell's short value, else its quote cut short, else "not
    stated" (the full quotes are in the table below the chat)."""
    head = "| aspect | " + " | ".join(_table_cell(p["title"]) for p in papers) + " |"
    body = [f"| {_table_cell(r['aspect'])} | " + " | ".join(_table_cell(cell_text(c)) for c in r["cells"]) + " |"
            for r in rows]
    return "\n".join([head, "|---" * (len(papers) + 1) + "|", *body])


def table_note(table: Table) -> str:
    """The chat placeholder until the comparison's narrative streams (or
    while the values fill in when the model wrote none)."""
    if table.values:
        return "_Short values added below._"
    if table.asked:
        return f"_The model is adding short values to the table below{_count(table.asked, table.asking)}…_"
    return "_The table below quotes each abstract; the model is writing the comparison…_"


def _count(asked: int, asking: int) -> str:
    """' (3 of 15)': how far the model is with the values, once it has given one."""
    return f" ({asked} of {asking})" if asked else ""


def compare_table(papers: Sequence[dict[str, Any]], rows: Sequence[dict[str, Any]], values: bool,
                  dropped: int = 0, asked: int = 0, asking: int = 0, error: str | None = None) -> str:
    """The comparison as an HTML table: each cell's short value with the
    quote it rests on (on hover, and expanded on click; open where there is
    no value), or "not stated"; ``error``: why the model stopped giving values."""
    head = "".join(f'<th scope="col">{esc(p["title"])}</th>' for p in papers)
    body = []
    for row in rows:
        cells = []
        for cell in row["cells"]:
            if not cell["stated"]:
                cells.append('<td class="unstated">not stated</td>')
                continue
            value = f'<strong class="value">{esc(cell["value"])}</strong>' if cell["value"] else ""
            opened = "" if cell["value"] else " open"
            cells.append(f'<td class="stated" title="{esc(cell["quote"])}">{value}<details{opened}>'
                         f'<summary>quote</summary><q>{esc(cell["quote"])}</q></details></td>')
        body.append(f'<tr><th scope="row">{esc(row["aspect"])}</th>{"".join(cells)}</tr>')
    if not values:
        caption = (f"Quoted from each abstract; the model is adding short values{_count(asked, asking)}…" if asked
                   else "Quoted from each abstract; short values follow once the comparison is written…")
    else:
        caption = "Each value is copied from the quote beside it and checked against it" + (
            f"; {dropped} value{'' if dropped == 1 else 's'} not found in {'its' if dropped == 1 else 'their'} "
            "quote dropped." if dropped else ".") + (
            f" The model stopped giving values ({error}): the cells without one keep their quotes." if error else "")
    state = "final" if values else "pending"
    return (f'<div class="compare {state}"><p class="caption">{esc(caption)}</p><table><thead><tr>'
            f'<th scope="col">aspect</th>{head}</tr></thead><tbody>{"".join(body)}</tbody></table></div>')


#: How each route is named to the user.
ROUTE_NAMES = {"ask": "a single question", "summarize": "a topic summary", "compare": "a comparison",
               "list": "a list of papers"}


def draft(text: str) -> str:
    """Quoted evidence shown while the model writes."""
    return f"_Quoted from the abstracts while the model writes:_\n\n{chat_text(text)} ▍"


def _notes(result: AnswerResult) -> list[str]:
    """What the reader must know besides the answer: the path the message
    took, a failed LLM or a quoted answer, unsupported sentences, papers left
    out of a summary."""
    notes = []
    route = result.extra.get("route")
    if route:
        notes.append(f"_Answered as {ROUTE_NAMES.get(route['kind'], route['kind'])}: the message "
                     f"{chat_text(route['reason'])}. Not what you meant? Pick another mode above and send it again._")
    if result.extra.get("filter_unmatched"):
        notes.append(f"_{chat_text(result.extra['filter_unmatched'])}_")
    applied = result.extra.get("filter")
    if applied:
        notes.append(f"_Filter from your question: {chat_text(describe(applied))}. A venue picked above wins; "
                     "PAPER_ASSISTANT_QUESTION_FILTERS=0 turns this off._")
    if result.extractive:
        notes.append(f"> ⚠️ **The LLM failed:** {chat_text(result.error or 'no answer')} "
                     "The answer quotes the most relevant sentences of the abstracts.")
    elif result.quoted:
        notes.append(f"> {chat_text(result.quoted_note())}")
    unsupported = [s["sentence"] for s in result.support if s["supported"] is False]
    if unsupported:
        notes.append("> Not supported by any abstract: " + " · ".join(chat_text(s) for s in unsupported))
    found, shown = result.extra.get("found"), result.extra.get("shown")
    if found is not None and found > shown:
        notes.append(f"_{found} papers are about this topic; the {shown} most relevant are summarized._")
    if result.extra.get("unanswerable"):
        notes.append(f"_Refused without asking the model: {chat_text(result.extra['unanswerable'])}._")
    if result.abstained:
        notes.append("_The closest papers are listed under Sources._")
    return notes


def answer_message(result: AnswerResult, turn: int) -> str:
    """The final chat message for an AnswerResult: the compare table when
    there is one, the answer with linked citations, then the notes."""
    parts = []
    if result.extra.get("table"):
        parts.append(aspect_table(result.extra["papers"], result.extra["table"]))
    parts.append(linked_answer(result.answer, len(result.sources), turn))
    return "\n\n".join(parts + _notes(result))


def error_message(message: str) -> str:
    """A one-line error from the library, as a chat message."""
    return f"⚠️ {chat_text(message)}"


def _span(text: str, sentence: str) -> tuple[int, int] | None:
    """Where ``sentence`` lies in ``text`` (whitespace may differ), if it does."""
    start = text.find(sentence)
    if start >= 0:
        return start, start + len(sentence)
    words = sentence.split()
    match = re.search(r"\s+".join(map(re.escape, words)), text) if words else None
    return match.span() if match else None


def highlight(text: str, quotes: Iterable[str]) -> str:
    """``text`` escaped, with each of ``quotes`` found in it wrapped in <mark>."""
    merged: list[list[int]] = []
    for start, end in sorted(s for s in (_span(text, quote) for quote in quotes if quote) if s):
        if merged and start <= merged[-1][1]:  # overlapping or adjacent: one mark
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    out, at = [], 0
    for start, end in merged:
        out += [esc(text[at:start]), f"<mark>{esc(text[start:end])}</mark>"]
        at = end
    out.append(esc(text[at:]))
    return "".join(out)


def used_sentences(result: AnswerResult) -> dict[int, list[str]]:
    """Source number -> the abstract sentences the answer rests on: those that
    support its sentences and, in a comparison, those quoted in the table."""
    used: dict[int, list[str]] = {}
    for s in result.support:
        if s["supported"] and s["citations"] and s["evidence"]:
            used.setdefault(s["citations"][0], []).append(s["evidence"])
    number = {s["paper_id"]: s["n"] for s in result.sources}
    for row in result.extra.get("table", []):
        for cell in row["cells"]:
            if cell["stated"] and cell["paper_id"] in number:
                used.setdefault(number[cell["paper_id"]], []).append(cell["quote"])
    return used


def source_card(source: dict[str, Any], turn: int, marks: Sequence[str] = (), cited: bool | None = None) -> str:
    """One retrieved paper: number, name, venue, relevance and its abstract
    with the sentences the answer used marked. ``cited`` is None while the
    answer is still being written."""
    tag = "" if cited is None else ('<span class="tag cited">cited</span>' if cited
                                    else '<span class="tag">not cited</span>')
    return (
        f'<article class="card{" uncited" if cited is False else ""}" id="{card_id(turn, source["n"])}">'
        f'<header><span class="num">[{source["n"]}]</span> <strong class="name">{esc(source["title"])}</strong>'
        f' <span class="venue">{esc(source["venue"])}</span>'
        f' <span class="score">relevance {float(source["score"]):.2f}</span> {tag}</header>'
        f'<p class="abstract">{highlight(source["abstract"], marks)}</p>'
        f'<footer>id {esc(source["paper_id"])}</footer></article>'
    )


def sources_section(turn: int, question: str, sources: Sequence[dict[str, Any]] | None,
                    result: AnswerResult | None = None) -> str:
    """The cards of one answer under a heading. ``sources`` None: still
    searching; ``result`` given: final numbering, cited flags and highlights."""
    head = f'<h3>Answer {turn}: {esc(question)}</h3>'
    if sources is None:
        body = '<p class="pending">Searching the collection…</p>'
    elif not sources and result is not None and not result.abstained:  # the collection's size, a venue's papers
        body = '<p class="pending">Answered from the index (venues, years, names): no abstract to quote.</p>'
    elif not sources:
        body = '<p class="pending">No matching papers.</p>'
    elif result is None:
        body = "".join(source_card(s, turn) for s in sources)
    else:
        marks = used_sentences(result)
        cited = len(result.citations)
        body = "".join(source_card(s, turn, marks.get(s["n"], []), s["n"] <= cited) for s in sources)
    state = "pending" if result is None else "final"
    return f'<section class="turn {state}" id="turn-{turn}">{head}{body}</section>'


def sources_panel(sections: Sequence[str]) -> str:
    """Every answer's sources, newest first."""
    if not sections:
        return '<p class="pending">Sources appear here as soon as a question is asked.</p>'
    return "".join(reversed(sections))


def first_line(abstract: str, limit: int = FIRST_LINE_CHARS) -> str:
    """The abstract's first sentence, cut to ``limit`` characters."""
    line = next(iter(sentences(abstract)), "")
    return line if len(line) <= limit else line[: limit - 1].rstrip() + "…"


def paper_card(paper: Paper) -> str:
    """A whole paper for the browse tab: names, venue, authors, abstract, link."""
    title = f'<p class="title">{esc(paper.title)}</p>' if paper.title and paper.title != paper.name else ""
    authors = f'<p class="authors">{esc(paper.authors)}</p>' if paper.authors else ""
    safe_url = paper.url.startswith(("https://", "http://"))
    link = f' · <a href="{esc(paper.url)}" target="_blank" rel="noopener noreferrer">source</a>' if safe_url else ""
    year = f" {paper.year}" if paper.year and str(paper.year) not in paper.venue else ""
    return (
        f'<article class="card"><header><strong class="name">{esc(paper.name)}</strong>'
        f' <span class="venue">{esc(paper.venue)}{year}</span></header>{title}{authors}'
        f'<p class="abstract">{esc(paper.abstract)}</p><footer>id {esc(paper.paper_id)}{link}</footer></article>'
    )


def status_line(kind: str, text: str) -> str:
    """The status line: ``kind`` (starting, ready, failed) styles it."""
    return f'<div class="status {esc(kind)}">{esc(text)}</div>'
