"""The UI's rendering helpers, without a browser: escaping, citation links,
highlights, notes and the compare table (milliseconds; the browser tests
check the same things on the page)."""

from __future__ import annotations

from typing import Any

from assistant.answer import AnswerResult
from assistant.papers import Paper
from assistant.result import Table
from ui import render

XSS = '<script>alert(1)</script> <img src=x onerror="alert(2)"> <a href="javascript:alert(3)">x</a>'


def source(n: int, abstract: str = "First sentence here. Second sentence   follows here.",
           title: str = "SPINT") -> dict:
    return {"n": n, "paper_id": f"id{n}", "title": title, "venue": "NeurIPS 2025", "score": 0.5, "abstract": abstract,
            "evidence": ""}


def result(answer: str, **changes: Any) -> AnswerResult:
    fields: dict[str, Any] = {
        "mode": "ask", "question": "q", "query": "q", "answer": answer, "citations": [{"n": 1}],
        "sources": [source(1), source(2)], "abstained": False, "model": "m", "timings": {}, "support": [],
    }
    return AnswerResult(**(fields | changes))


def test_text_is_inert_in_html_and_in_chat_markdown() -> None:
    assert "<" not in render.esc(XSS) and '"' not in render.esc(XSS)
    chat = render.chat_text(XSS + " [click](javascript:alert(4)) ![i](http://x/y.png) \\[x](javascript:alert(5))")
    assert "<" not in chat and "](" not in chat.replace("\\](", "")
    assert "\\\\\\[x\\](" in chat  # a backslash of the text cannot unescape a bracket
    assert render.chat_text("1. First.\n 2) Second.") == "1\\. First.\n 2\\) Second."


def test_citations_link_to_their_card_of_this_answer_only_when_they_exist() -> None:
    text = render.linked_answer("A fact [1]. Another [2][9]. <b>x</b>", sources=2, turn=3)
    assert "[\\[1\\]](#src-3-1)" in text and "[\\[2\\]](#src-3-2)" in text
    assert "\\[9\\]" in text and "#src-3-9" not in text
    assert "&lt;b&gt;" in text


def test_highlight_marks_used_sentences_whatever_the_spacing_and_escapes_all() -> None:
    abstract = "We study <b>things</b>. Second sentence   follows here. Third."
    out = render.highlight(abstract, ["Second sentence follows here.", "Second sentence"])
    assert out.count("<mark>") == 1 and "<mark>Second sentence   follows here.</mark>" in out
    assert "&lt;b&gt;things&lt;/b&gt;" in out
    assert render.highlight(abstract, ["not in it"]) == render.esc(abstract)


def test_cards_escape_abstract_and_name_and_show_cited_state() -> None:
    card = render.source_card(source(2, abstract=XSS, title=XSS), turn=1, marks=[], cited=False)
    assert "<script" not in card and "<img" not in card and "javascript:alert(3)\">" not in card
    assert 'id="src-1-2"' in card and "not cited" in card and "uncited" in card


def test_sources_section_marks_the_sentences_each_citation_rests_on() -> None:
    support = [{"sentence": "s", "citations": [1], "supported": True, "evidence": "First sentence here."},
               {"sentence": "u", "citations": [], "supported": False, "evidence": "Second sentence follows here."}]
    section = render.sources_section(1, "q?", [source(1), source(2)], result("s [1].", support=support))
    first, second = section.split('id="src-1-2"')
    assert "<mark>First sentence here.</mark>" in first and "<mark>" not in second
    assert 'class="turn final"' in section and ">cited<" in first and "not cited" in second
    assert "Searching" in render.sources_section(1, "q?", None) and "pending" in render.sources_section(1, "q?", [])
    # a list made from the index ("which papers are from ICLR 2026?") quotes no abstract: not "no matching papers"
    listed = render.sources_section(1, "q?", [], result("19 of the 38 papers are from ICLR 2026:", sources=[]))
    assert "Answered from the index" in listed and "No matching papers" not in listed
    refused = render.sources_section(1, "q?", [], result("The abstracts do not contain this information.",
                                                           sources=[], abstained=True))
    assert "No matching papers" in refused


def test_a_comparison_marks_the_sentences_its_table_quotes() -> None:
    extra = {"papers": [{"paper_id": "id2", "title": "B"}, {"paper_id": "id1", "title": "A"}],
             "table": [{"aspect": "data", "cells": [
                 {"paper_id": "id2", "value": None, "quote": "Second sentence follows here.", "stated": True},
                 {"paper_id": "id1", "value": None, "quote": "", "stated": False}]}]}
    section = render.sources_section(1, "q", [source(1), source(2)], result("x", extra=extra))
    first, second = section.split('id="src-1-2"')
    assert "<mark>" not in first and "<mark>Second sentence   follows here.</mark>" in second


def test_answer_message_carries_the_table_and_the_notes() -> None:
    extra = {"papers": [{"title": "A|1"}, {"title": "B"}, {"title": "C"}], "table": [{"aspect": "data", "cells": [
        {"paper_id": "1", "value": None, "quote": "x | y", "stated": True},
        {"paper_id": "2", "value": "<i>z</i>", "quote": "the <i>z</i> quote", "stated": True},
        {"paper_id": "3", "value": None, "quote": "", "stated": False}]}]}
    message = render.answer_message(result("Fact [1].", extra=extra), turn=1)
    assert message.startswith("| aspect | A\\|1 | B | C |\n|---|---|---|---|\n"
                              "| data | x \\| y | &lt;i&gt;z&lt;/i&gt; | not stated |")
    table = render.compare_table(extra["papers"], extra["table"], values=True, dropped=2)
    assert '<strong class="value">&lt;i&gt;z&lt;/i&gt;</strong>' in table and "<i>" not in table
    assert 'title="the &lt;i&gt;z&lt;/i&gt; quote"' in table and '<td class="unstated">not stated</td>' in table
    assert "2 values not found in their quote dropped" in table and "<details open>" in table
    down = render.answer_message(result("Quoted [1].", extractive=True, error="LLM endpoint http://h/v1 failed."), 1)
    assert "The LLM failed:** LLM endpoint http://h/v1 failed." in down
    unsupported = [{"sentence": "Made up.", "citations": [], "supported": False, "evidence": None}]
    assert "Not supported by any abstract: Made up." in render.answer_message(result("x", support=unsupported), 1)
    assert "5 papers are about this topic" in render.answer_message(result("x", extra={"found": 5, "shown": 2}), 1)
    assert "closest papers" in render.answer_message(result("No.", abstained=True, citations=[]), 1)
    missing = {"filter_unmatched": "No indexed paper is from ICLR 2027 (indexed: ICLR 2026), so every paper was searched."}
    assert "_No indexed paper is from ICLR 2027 (indexed: ICLR 2026)" in render.answer_message(result("x", extra=missing), 1)
    why = {"unanswerable": "no paper is about this (the closest, <b>X</b>, is far off in meaning)"}
    refused = render.answer_message(result("No.", abstained=True, citations=[], extra=why), 1)
    assert "Refused without asking the model: no paper is about this (the closest, &lt;b&gt;X" in refused


def test_first_line_and_paper_card() -> None:
    assert render.first_line("One e.g. thing. Two.") == "One e.g. thing."
    assert render.first_line("word " * 100).endswith("…") and len(render.first_line("word " * 100)) == 160
    paper = Paper(paper_id="p", key="k", abstract=XSS, abstract_raw=XSS, source="s", name="N", venue="V 2025",
                  year=2025, url="javascript:alert(5)")
    card = render.paper_card(paper)
    assert "<script" not in card and "<a " not in card
    linked = render.paper_card(Paper(**{**paper.__dict__, "url": "https://example.org/p"}))
    assert 'href="https://example.org/p" target="_blank" rel="noopener noreferrer"' in linked


def test_status_line_is_escaped() -> None:
    assert render.status_line("ready", "<b>m</b>") == '<div class="status ready">&lt;b&gt;m&lt;/b&gt;</div>'


def test_the_compare_note_counts_the_values_as_the_model_gives_them() -> None:
    def note(values: bool, asked: int = 0, asking: int = 0) -> str:
        return render.table_note(Table([], [], [], values, asked, asking))

    assert note(False) == "_The table below quotes each abstract; the model is writing the comparison…_"
    assert note(False, 3, 15) == "_The model is adding short values to the table below (3 of 15)…_"
    assert "(3 of 15)" not in note(True, 3, 15) and note(True, 3, 15) == "_Short values added below._"
    pending = render.compare_table([], [], values=False, asked=3, asking=15)
    assert "adding short values (3 of 15)" in pending and "follow once the comparison" in render.compare_table(
        [], [], values=False)
    assert "stopped giving values (HTTP 500)" in render.compare_table([], [], values=True, error="HTTP 500")
