"""Comparing 2 to 8 papers: the quoted table first, values held to their
quotes, the narrative, exports and bad input; against the seed index and a
real scripted OpenAI-protocol server, through the library and the CLI."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import numpy as np
import pytest

from assistant import compare, prompts
from assistant.answer import Assistant, Final, Routed, Sources, Table, Token
from assistant.aspects import aspect_sentences, gist_sentence
from assistant.errors import InputError, NotFound
from assistant.finalize import loop_start
from assistant.index import PaperIndex
from assistant.papers import Paper
from assistant.result import AnswerResult
from assistant.settings import CompareSettings, Settings

from .conftest import compare_replies, copy_storage
from .openai_server import ScriptedOpenAI
from .test_admission import wait_until
from .test_cli import run_cli
from .test_cli_answer import env_for

EEG = ("CSBrain", "REVE", "CodeBrain", "EvoBrain", "SPINT")
NARRATIVE = "REVE is pretrained on over 60,000 hours of EEG data from 92 datasets [2]."


def run(events) -> tuple[list, AnswerResult]:
    collected = list(events)
    assert isinstance(collected[-1], Final)
    return collected, collected[-1].result


def cell(result: AnswerResult, aspect: str, name: str) -> dict:
    column = [p["title"] for p in result.extra["papers"]].index(name)
    return next(r for r in result.extra["table"] if r["aspect"] == aspect)["cells"][column]


def test_five_papers_table_at_once_then_the_narrative_then_checked_values(assistant: Assistant,
                                                                          server: ScriptedOpenAI) -> None:
    seen_requests: list[int] = []
    server.set_default(compare_replies({
        "REVE": {"data": "over 60,000 hours of EEG data from 92 datasets", "number of downstream tasks": "10 tasks"},
        "CSBrain": {"data": "16 datasets", "number of downstream tasks": "eleven tasks"},
        "CodeBrain": {"data": "500 hours of EEG [3]"},  # not in its quote: dropped
    }, NARRATIVE))

    def events():
        for event in assistant.compare(*EEG, aspects=["data", "number of downstream tasks"]):
            if isinstance(event, Table):
                seen_requests.append(len(server.requests))
            yield event

    collected, result = run(events())
    tables = [e for e in collected if isinstance(e, Table)]
    assert tables[0].values is False and tables[-1].values and seen_requests[0] == 0  # the table came before any call
    tokens = [i for i, e in enumerate(collected) if isinstance(e, Sources | Token)]
    # the narrative streams before the model's values, which it does not read: its first word need not wait for them
    assert collected.index(tables[0]) < tokens[0] and tokens[-1] < collected.index(tables[1])
    assert [p["title"] for p in result.extra["papers"]] == list(EEG)
    assert result.extra["aspects"] == ["data", "number of downstream tasks"]
    reve = cell(result, "data", "REVE")
    assert reve == {"paper_id": reve["paper_id"], "value": "over 60,000 hours of EEG data from 92 datasets",
                    "quote": reve["quote"], "stated": True}
    assert "60,000 hours" in reve["quote"] and reve["quote"] in result.sources[0]["abstract"] + " ".join(
        s["abstract"] for s in result.sources)
    assert cell(result, "data", "CSBrain")["value"] == "16 datasets"
    # a count is copied from its quote, not asked of the model (which is scripted to say something else)
    assert cell(result, "number of downstream tasks", "CSBrain")["value"] == "11 representative EEG tasks"
    assert cell(result, "number of downstream tasks", "REVE")["value"] == "10 downstream EEG tasks"
    # EvoBrain's sentence naming its task has numbers (23%, 30%), none counting tasks: not stated
    assert not cell(result, "number of downstream tasks", "EvoBrain")["stated"]
    # the model's value is not in the quote: dropped, and the clause holding the aspect's cue word replaces it
    assert cell(result, "data", "CodeBrain")["value"] == "Pretrained on the largest public EEG corpus"
    assert result.extra["dropped_values"] == [{"paper_id": cell(result, "data", "CodeBrain")["paper_id"],
                                               "aspect": "data", "value": "500 hours of EEG"}]
    assert cell(result, "data", "EvoBrain") == {"paper_id": cell(result, "data", "EvoBrain")["paper_id"],
                                                "value": None, "quote": "", "stated": False}
    assert all(set(row) == {"aspect", "cells"} for row in result.extra["table"])  # a/b only for two papers
    narrative = next(r for r in server.requests if r.get("stream"))["messages"][-1]["content"]
    assert server.requests[0].get("stream")  # the first request
    assert "Compare these 5 papers ([1] CSBrain, [2] REVE, [3] CodeBrain, [4] EvoBrain, [5] SPINT)" in narrative
    assert "60,000 hours of EEG data from 92 datasets" in narrative  # the model reads the table's sentences
    narrative, lines = result.answer.split("\n\n")
    assert narrative == "REVE is pretrained on over 60,000 hours of EEG data from 92 datasets [1]."
    assert [line.split(":")[0] for line in lines.splitlines()] == [f"- {name}" for name in EEG]  # one per paper
    values_asked = [r for r in server.requests if "\nAspect: " in r["messages"][-1]["content"]]
    stated = [(row["aspect"], c["quote"]) for row in tables[0].table for c in row["cells"] if c["stated"]]
    counted = sum(compare.count_value(aspect, quote) is not None for aspect, quote in stated)
    assert counted >= 2 and not any("[1] REVE: REVE achieves" in r["messages"][-1]["content"] for r in values_asked)
    # one request per stated cell whose value was not copied
    assert len(values_asked) == len(stated) - counted and all(not r.get("stream") for r in values_asked)
    assert {r["max_tokens"] for r in values_asked} == {assistant.settings.compare.value_tokens}
    # between them, the table after each value the model gave but the last, counted, its values filling in
    progress = tables[1:-1]
    assert [(t.values, t.asked, t.asking) for t in progress] == [
        (False, n, len(values_asked)) for n in range(1, len(values_asked))]
    assert [seen_requests[i] for i in range(1, len(tables) - 1)] == list(range(2, len(values_asked) + 1))
    filled = [sum(c["value"] is not None for row in t.table for c in row["cells"]) for t in tables]
    assert filled[0] == counted and filled == sorted(filled)  # the copied counts are in the first table


def test_two_papers_keep_the_a_and_b_fields_and_default_aspects(assistant: Assistant, server: ScriptedOpenAI) -> None:
    server.set_default(compare_replies({"CSBrain": {"approach": "CSBrain"}}, NARRATIVE))
    result = run(assistant.compare("CSBrain", "the 4D positional encoding EEG model"))[1]
    assert result.extra["aspects"] == list(compare.DEFAULT_ASPECTS)
    table = {row["aspect"]: row for row in result.extra["table"]}
    assert "we propose CSBrain" in table["approach"]["a"] and table["approach"]["cells"][0]["value"] == "CSBrain"
    assert "60,000 hours" in table["data"]["b"] and table["limitations or scope"]["a"] == prompts.NOT_STATED
    markdown = result.to_markdown()
    assert "| aspect | CSBrain | REVE |" in markdown and "**CSBrain** — “" in markdown


def test_a_comparison_asked_in_chat_puts_what_it_asks_about_first(assistant: Assistant,
                                                                   server: ScriptedOpenAI) -> None:
    """"How do CSBrain and CodeBrain differ in tokenizing EEG?" had a table
    of the default aspects only, none of them the tokenizer; and "EEG", said
    by most of CSBrain's sentences, found its "we propose" sentence over the
    one naming its tokenization."""
    server.set_default(compare_replies({}, NARRATIVE))
    events, result = run(assistant.respond("how do CSBrain and CodeBrain differ in tokenizing EEG?"))
    assert isinstance(events[0], Routed) and events[0].reason.endswith("on tokenizing EEG")
    assert result.extra["aspects"] == ["tokenizing EEG", *compare.DEFAULT_ASPECTS]
    assert "Cross-scale Spatiotemporal Tokenization" in cell(result, "tokenizing EEG", "CSBrain")["quote"]
    assert "TFDual-Tokenizer" in cell(result, "tokenizing EEG", "CodeBrain")["quote"]
    # a user's word for a default aspect takes that aspect's row, not a second one
    result = run(assistant.respond("compare CSBrain and REVE on datasets"))[1]
    assert result.extra["aspects"] == ["datasets", *(a for a in compare.DEFAULT_ASPECTS if a != "data")]
    assert "60,000 hours" in cell(result, "datasets", "REVE")["quote"]


def test_nine_papers_asked_in_chat_say_which_one_is_left_out(assistant: Assistant, server: ScriptedOpenAI) -> None:
    server.set_default(compare_replies({}, NARRATIVE))
    events, result = run(assistant.respond(
        "compare REVE, CSBrain, CodeBrain, EvoBrain, POCO, SPINT, HEIST, RIGNO and BigMaQ on data"))
    assert isinstance(events[0], Routed) and "a table holds at most 8, so BigMaQ is left out" in events[0].reason
    assert [p["title"] for p in result.extra["papers"]][-1] == "RIGNO" and len(result.extra["papers"]) == 8


def test_an_aspect_no_abstract_mentions_is_a_row_of_not_stated(assistant: Assistant, server: ScriptedOpenAI) -> None:
    server.set_default(compare_replies({"REVE": {"code release": "none"}}, NARRATIVE))
    result = run(assistant.compare("CSBrain", "REVE", aspects=["code release", "quantum error correction codes"]))[1]
    code, quantum = result.extra["table"]
    assert not code["cells"][0]["stated"]
    assert code["cells"][1]["value"] == "We release code"  # the model said none: the clause naming the aspect
    assert "We release code" in code["cells"][1]["quote"] and code["b"].startswith("We release code")
    assert [c["stated"] for c in quantum["cells"]] == [False, False]
    assert quantum["a"] == quantum["b"] == prompts.NOT_STATED


def test_a_code_link_is_copied_from_its_quote_without_asking_the_model(assistant: Assistant,
                                                                       server: ScriptedOpenAI) -> None:
    server.set_default(compare_replies({"SPINT": {"code": "a wrong value"}}, NARRATIVE))
    result = run(assistant.compare("POCO", "SPINT", aspects=["code"]))[1]
    poco = cell(result, "code", "POCO")
    assert poco["value"] == "https://github.com/yuvenduan/POCO" and poco["value"] in poco["quote"]
    asked = [r["messages"][-1]["content"] for r in server.requests if "Aspect: code" in r["messages"][-1]["content"]]
    assert not any("[1] POCO:" in prompt for prompt in asked)


def test_without_model_values_the_cells_keep_their_quotes_and_the_narrative_comes(
        answer_settings: Settings, seed_index: PaperIndex, server: ScriptedOpenAI) -> None:
    """``model_values`` off: no request per cell; a link is still copied."""
    server.set_default(compare_replies({"SPINT": {"data": "a value"}}, NARRATIVE))
    quick = Assistant(answer_settings.with_(model_values=False), index=seed_index)
    result = run(quick.compare("POCO", "SPINT", aspects=["code", "data"]))[1]
    assert cell(result, "code", "POCO")["value"] == "https://github.com/yuvenduan/POCO"
    assert cell(result, "data", "SPINT")["value"] is None and cell(result, "data", "SPINT")["quote"]
    assert len(server.requests) == 1 and "Aspect:" not in server.requests[0]["messages"][-1]["content"]
    assert result.model_text  # the narrative


@pytest.mark.parametrize(("aspect", "quote", "value"), [
    ("application domain", "In large-scale recommendation systems, content is added to ID features.",
     "large-scale recommendation systems"),
    ("research area", "Recent advances in scientific machine learning (SciML) have enabled neural operators.",
     "scientific machine learning (SciML)"),
    ("domain", "Dynamic GNNs have shown great potential in automating seizure detection.",
     "automating seizure detection"),
    ("domain", "Learning the solution operators of PDEs is challenging.", None),  # no such phrase: the model's turn
    ("task", "In large-scale recommendation systems, content is added to ID features.", None),  # not a field aspect
])
def test_the_field_is_copied_from_the_opening_sentence(aspect: str, quote: str, value: str | None) -> None:
    assert compare.field_value(aspect, quote) == value


def test_a_value_the_model_cut_mid_phrase_is_run_on_to_its_clause_end(assistant: Assistant,
                                                                     server: ScriptedOpenAI) -> None:
    server.set_default(compare_replies({"BigMaQ": {"labels": "action labels"}}, NARRATIVE))
    result = run(assistant.compare("BigMaQ", "CSBrain", aspects=["labels"]))[1]
    big = cell(result, "labels", "BigMaQ")
    assert big["value"] == "action labels derived from a curated ethogram" and big["value"] in big["quote"]


def test_a_reworded_value_is_shown_in_its_quotes_words(assistant: Assistant, server: ScriptedOpenAI) -> None:
    server.set_default(compare_replies({"MixSignGraph": {"data": "5 datasets"}}, NARRATIVE))
    result = run(assistant.compare("MixSignGraph", "CSBrain", aspects=["data"]))[1]
    mix = cell(result, "data", "MixSignGraph")
    assert mix["value"] == "five sign language datasets" and mix["value"] in mix["quote"]


def test_the_clause_taken_for_a_value_the_model_did_not_give_is_run_on_too(assistant: Assistant,
                                                                          server: ScriptedOpenAI) -> None:
    name = "Associative memory network"
    server.set_default(compare_replies({name: {"theoretical result": "none"}}, NARRATIVE))
    result = run(assistant.compare(name, "CSBrain", aspects=["theoretical result"]))[1]
    memory = cell(result, "theoretical result", name)
    assert memory["value"] == "we achieve much higher capacity: exponential in the number of hidden units"


def test_an_interpretability_technique_is_found_by_what_papers_do_to_look_inside(assistant: Assistant,
                                                                                 server: ScriptedOpenAI) -> None:
    """"interpretability technique" was "not stated" for the study probing
    LLMs: its sentence says "probe", never the aspect's words."""
    name = "Study to probe LLMs' internal knowledge"
    server.set_default(compare_replies({}, NARRATIVE))
    result = run(assistant.compare(name, "CSBrain", aspects=["interpretability technique"]))[1]
    probing = cell(result, "interpretability technique", name)
    assert probing["stated"] and "to probe LLMs' internal knowledge" in probing["quote"]


@pytest.mark.parametrize(("value", "quote", "span"), [
    ("5 datasets", "on the current five sign language datasets, without cues", "five sign language datasets"),
    ("(TCTC) pre-training", "a Text-based CTC Pre-training (TCTC) method", "Pre-training (TCTC)"),
    ("TCTC pretraining method", "a Text-based CTC Pre-training (TCTC) method", "TCTC pretraining method"),  # no run holds it
    ("60,000 hours", "over 60,000 hours of EEG data", "60,000 hours"),  # verbatim already
    # the model's "100, 000"; "papers", a word search leaves out, is still the value's last word
    ("100, 000 research papers", "Leveraging a corpus of 100,000 research papers, we", "100,000 research papers"),
])
def test_a_reworded_value_becomes_the_shortest_run_of_quote_words_holding_it(value: str, quote: str,
                                                                             span: str) -> None:
    assert compare.quoted_span(value, quote, CompareSettings()) == span


@pytest.mark.parametrize(("value", "quote", "completed"), [
    ("code", "We will release our code upon acceptance.", "code upon acceptance"),
    ("we achieve much higher capacity", ("Thus, we achieve much higher capacity: exponential in the number of "
                                         "hidden units, provided the number of visible units is large."),
     "we achieve much higher capacity: exponential in the number of hidden units"),
    ("convergence", "the gap leads to convergence inconsistency during joint training: the ID branch converges.",
     "convergence inconsistency during joint training"),
    ("cancer treatment efficacy", "Cancer treatment efficacy exhibits high heterogeneity.",
     "cancer treatment efficacy"),  # a verb starts another clause
    ("60,000 hours", "over 60,000 hours of EEG data from 92 datasets", "60,000 hours"),  # a count is whole
    ("Text-based CTC Pre-training", "a Text-based CTC Pre-training (TCTC) method, which", "Text-based CTC Pre-training"),
    ("conv", "convergence inconsistency", "conv"),  # not a whole word of the quote
    ("sparse input", ("it acts as a temporal memory buffer under extremely sparse input conditions that the "
                      "agent meets during long stretches without any visual cue at all"), "sparse input"),  # too many words to add
    ("absent value", "a quote without it", "absent value"),
])
def test_a_value_is_completed_only_to_its_clause_end(value: str, quote: str, completed: str) -> None:
    assert compare.complete_value(value, quote) == completed


@pytest.mark.parametrize(("aspect", "quote", "value"), [
    ("subjects", "We pretrain on 60,000 hours of EEG data from 92 datasets spanning 25,000 subjects, the most.",
     "25,000 subjects"),
    ("number of downstream tasks", "Experiments across 11 representative EEG tasks and 16 datasets.",
     "11 representative EEG tasks"),
    ("channels", "Experiments across 11 representative EEG tasks and 16 datasets.", None),
    ("subjects", "We test 40 tasks, with subjects from two sites.", None),  # the clause ends before "subjects"
    ("data", "We use 16 datasets.", None),  # a default aspect is broader than a count
])
def test_a_count_is_copied_from_its_quote(aspect: str, quote: str, value: str | None) -> None:
    assert compare.count_value(aspect, quote) == value


def test_a_sentence_said_of_both_papers_needs_both_sources(assistant: Assistant, server: ScriptedOpenAI) -> None:
    """"Both papers pretrain on 60,000 hours of EEG [2]" gives REVE's data to
    CSBrain too: removed, and counted as a misattribution of the model's."""
    server.set_default(compare_replies({}, "Both papers pretrain on over 60,000 hours of EEG data from 92 datasets "
                                           f"[2]. {NARRATIVE}"))
    result = run(assistant.compare("CSBrain", "REVE", aspects=["data"]))[1]
    assert result.answer.startswith("REVE is pretrained on over 60,000 hours") and "Both papers" not in result.answer
    both = next(s for s in result.support if s["sentence"].startswith("Both papers"))
    assert both["status"] == "unsupported" and both["misattributed"]


def test_a_narrative_that_starts_again_is_stopped_there(assistant: Assistant, server: ScriptedOpenAI) -> None:
    """The 1.5B model wrote its comparison again and again to the token
    limit: the stream is closed at the first repeat (the server stops
    writing), and the answer is what came before it."""
    shares = "Both models are pretrained on large EEG corpora for many downstream tasks [1][2]."
    again = "\n\nREVE is pretrained on over 60,000 hours of EEG data from 92 datasets, unlike CSBrain [2]."
    server.delay = 0.02
    server.set_default(compare_replies({}, f"{NARRATIVE} {shares}" + again * 30))
    collected, result = run(assistant.compare("CSBrain", "REVE", aspects=["data"]))
    assert result.extra["looped"] and not result.extra["cut"]
    assert "".join(e.text for e in collected if isinstance(e, Token)).count("60,000 hours") == 2  # read no further
    wait_until(lambda: server.disconnects == 1, timeout=5)
    assert result.answer.count("60,000 hours") == 1 and "Both models are pretrained" in result.answer


HEIST_SAYS = "HEIST models tissues as hierarchical graphs of cells and genes in each tissue"
POCO_SAYS = "POCO forecasts neural activity from calcium imaging recordings across many species and sessions"


@pytest.mark.parametrize(("reply", "at"), [
    (f"{POCO_SAYS}. SPINT decodes behaviour. {POCO_SAYS} with a population encoder.", f"{POCO_SAYS} with"),
    # eleven words in a row said again are no loop
    ("A B C D E F G H I J K one. Then A B C D E F G H I J K two.", None),
    # the sources block written back is not said: its sentence said after it is the answer's first
    (f"<sources>\n[1] HEIST (ICLR 2026): {HEIST_SAYS}.\n</sources>\n{HEIST_SAYS} [1].", None),
])
def test_a_loop_starts_at_the_first_sentence_repeating_twelve_words(reply: str, at: str | None) -> None:
    start = loop_start(reply)
    assert (start is None) if at is None else reply[start:].startswith(at)


def test_an_llm_that_fails_mid_table_keeps_the_quoted_table(assistant: Assistant, server: ScriptedOpenAI) -> None:
    def first_value_then_down(body: dict) -> str:
        if "\nAspect: " in body["messages"][-1]["content"]:  # the narrative came first; then one value
            server.fail("500", times=20)  # every later request fails
        return compare_replies({"CSBrain": {"data": "16 datasets"}}, NARRATIVE)(body)

    server.reply(first_value_then_down)
    server.set_default(first_value_then_down)
    result = run(assistant.compare("CSBrain", "REVE", "CodeBrain", aspects=["data"]))[1]
    assert cell(result, "data", "CSBrain")["value"] == "16 datasets"
    assert cell(result, "data", "REVE")["value"] is None and "60,000 hours" in cell(result, "data", "REVE")["quote"]
    assert "HTTP 500" in result.extra["values_error"] and not result.error  # the narrative was written before
    assert result.answer.startswith("REVE is pretrained on over 60,000 hours") and result.citations
    server.fail("500", times=20)  # down from the start: the quoted answer still cites its papers
    result = run(assistant.compare("CSBrain", "REVE", aspects=["data"]))[1]
    assert result.extractive and "HTTP 500" in (result.error or "") and result.citations
    assert "HTTP 500" in result.extra["values_error"] and "60,000 hours" in cell(result, "data", "REVE")["quote"]


@pytest.mark.parametrize(("names", "error", "message"), [
    (["CSBrain"], InputError, "Name at least 2 papers"),
    (["CSBrain", "REVE", "csbrain"], NotFound, "'CSBrain' and 'csbrain' are the same paper"),
    (["SPINT", "POCO", "REVE", "CSBrain", "HEIST", "RIGNO", "AGM", "MiCRo", "SnS"], InputError, "at most 8 papers"),
    (["CSBrain", "EEG"], NotFound, "ambiguous"),
])
def test_bad_paper_lists_are_one_line_errors(assistant: Assistant, server: ScriptedOpenAI, names: list[str],
                                             error: type[Exception], message: str) -> None:
    with pytest.raises(error, match=message):
        list(assistant.compare(*names))
    assert server.requests == []


@pytest.mark.parametrize(("text", "message"), [
    ("", "aspect list is empty"), (" , ;", "aspect list is empty"), ("data, !!!", "'!!!' is not an aspect"),
    ("x" * 80, "is not an aspect"), (", ".join(f"aspect {c}" for c in "abcdefghijk"), "11 aspects is too many"),
])
def test_bad_aspect_lists_are_one_line_errors(text: str, message: str) -> None:
    with pytest.raises(InputError, match=message):
        compare.parse_aspects(text)


def test_aspects_replace_or_extend_the_defaults() -> None:
    assert compare.parse_aspects(None) == list(compare.DEFAULT_ASPECTS)
    assert compare.parse_aspects("dataset;  number of  subjects, dataset") == ["dataset", "number of subjects"]
    assert compare.parse_aspects("+channels") == [*compare.DEFAULT_ASPECTS, "channels"]


@pytest.mark.parametrize(("aspect", "quote", "value"), [
    ("pretraining objective", "Using a masked autoencoding objective, we pretrain REVE on 60,000 hours of EEG data.",
     "Using a masked autoencoding objective"),
    ("task", ("BigMaQ establishes the first dataset that integrates dynamic 3D pose-shape representations into the "
              "learning task of animal action recognition and provides a rich resource."),
     "the learning task of animal action recognition and provides a rich resource"),  # the clause's own end
    # a clause a little longer than a value loses its first words, not its last ("… 42" without "hospitals")
    ("data", "We assemble a large multi-site dataset covering a total of 42 hospitals in nine countries, with labels.",
     "large multi-site dataset covering a total of 42 hospitals in nine countries"),
    # a clause cut short does not end on the words that lead into the rest ("… moving freely in the")
    ("task", "Our models learn the task of recognizing actions of animals moving freely in the home cage at night.",
     "Our models learn the task of recognizing actions of animals moving freely"),
    ("subjects", "We pretrain on 60,000 hours of EEG data from 92 datasets.", None),  # no clause names it
    # "60,000" is one number, not two clauses
    ("data", "We pretrain REVE on over 60,000 hours of EEG data from 92 datasets spanning 25,000 subjects.",
     "over 60,000 hours of EEG data from 92 datasets spanning 25,000 subjects"),
    # a result's clause with its figure, not the first one with a result word ("further improved")
    ("result", ("Finally, we show that FooNet can be further improved when paired with augmentation, surpassing "
                "the baseline by 6.2% on one benchmark."), "surpassing the baseline by 6.2% on one benchmark"),
    # a clause that is only the cue word states nothing: the next one is the problem
    ("problem addressed", "However, the gap between the two representations leads to convergence inconsistency.",
     "the gap between the two representations leads to convergence inconsistency"),
])
def test_a_clause_naming_the_aspect_is_the_value_the_model_did_not_give(aspect: str, quote: str,
                                                                         value: str | None) -> None:
    assert compare.clause_value(aspect, quote, CompareSettings()) == value


@pytest.mark.parametrize(("aspect", "sentences", "chosen"), [
    # the sentence that states the aspect in other words: a metric's name, a beaten baseline, a named network
    ("metric", ["We propose FooNet for video.", "FooNet improves mean average precision by 4 points."], 1),
    ("baseline", ["We propose FooNet for video.", "The model outperforms LSTM cores under sparse input."], 1),
    ("architecture", ["We study memory in agents.", "We introduce a hierarchical graph transformer."], 1),
    ("number of parameters", ["We propose FooNet for video.", "FooNet runs at 40 frames per second."], None),
    # a species, a recording, a brain region or a theorem is stated by what it is, not by the aspect's word
    ("species", ["We propose FooNet, a decoder.", "We record from Parkinsonian rats over eight weeks."], 1),
    ("recording type", ["We propose FooNet, a decoder.", "FooNet maps fMRI responses to images."], 1),
    ("brain region", ["We propose FooNet, a decoder.", "Place cells of the hippocampus fire in sequences."], 1),
    ("theoretical guarantee", ["We propose FooNet, a solver.", "We prove that the solver reaches the optimum."], 1),
    # the field is where abstracts open, before "we propose"
    ("application domain", ["In large-scale recommendation systems, content is added to ID features.",
                            "We propose FooNet.", "FooNet improves accuracy by 2 points."], 0),
    # a count is stated by a number: a sentence naming the models without one does not give it
    ("number of models evaluated", ["We propose FooNet.", "We evaluate large language models on the benchmark."],
     None),
    ("number of models evaluated", ["We propose FooNet.", "We evaluate dozens of vision models."], 1),
])
def test_a_user_aspect_is_found_by_its_cue_words(assistant: Assistant, aspect: str, sentences: list[str],
                                                 chosen: int | None) -> None:
    embedder = assistant.selector.embedder
    vectors = embedder.embed(sentences)
    [aspect_vector] = embedder.embed([aspect])
    assert compare._custom_sentence(aspect, sentences, vectors, aspect_vector, CompareSettings()) == chosen


@pytest.mark.parametrize(("paper", "aspect", "stated"), [
    # "reduces predictive errors" says one cue word of a metric, the next sentence two ("root mean square error (nRMSE)")
    ("nRMSE", "metric", "normalized root mean square error (nRMSE)"),
    ("nRMSE", "error metric", "normalized root mean square error (nRMSE)"),
    # "dynamic GNN method" says one cue word of an architecture, EvoBrain's own step two ("Mamba architecture")
    ("EvoBrain", "architecture", "two-stream Mamba architecture"),
])
def test_two_cue_words_say_an_aspect_more_surely_than_one(assistant: Assistant, paper: str, aspect: str,
                                                          stated: str) -> None:
    [chosen] = [p for p in assistant.index.papers() if paper in p.name or paper in p.abstract]
    rows = compare.table(assistant.selector, [chosen, _other(assistant, chosen)], [aspect], CompareSettings()).to_json()
    assert stated in rows[0]["cells"][0]["quote"]


def _other(assistant: Assistant, paper: Paper) -> Paper:
    return next(p for p in assistant.index.papers() if p.paper_id != paper.paper_id)


@pytest.mark.parametrize(("aspect", "default"), [
    ("problem addressed", "problem"), ("training data", "data"), ("main results", "evaluation and results"),
    ("method used", "approach"), ("Datasets", "data"),
    ("number of datasets", None), ("evaluation metric", None), ("model type", "approach"), ("type of model", "approach"),
    ("framework", "approach"), ("species", None),
])
def test_a_phrase_headed_by_a_default_aspect_is_that_aspect(aspect: str, default: str | None) -> None:
    assert compare.default_aspect(aspect) == default


def test_the_problem_a_user_asks_for_is_the_sentence_before_we_propose() -> None:
    """A user's own aspect is never looked for before the "we propose"
    sentence, where abstracts state their problem."""
    sents = ["However, existing decoders fail to generalize across sessions.", "We propose FooNet, a decoder.",
             "FooNet is evaluated on three datasets."]
    grid = compare.extract([Paper("p", "k", " ".join(sents), "", "s", name="FooNet")], ["problem addressed"],
                           lambda p: (sents, np.eye(3)), lambda texts: np.ones((len(texts), 3)), CompareSettings())
    assert grid.rows[0][0].quote == sents[0]


def test_a_data_driven_method_is_not_the_data() -> None:
    """"data-driven", "data-efficient" say how a method works, not what it
    was trained or tested on: the data cell is the sentence naming a dataset."""
    sents = ["We propose FooNet, a decoder.", "This allows flexible, data-driven inference of learning rules.",
             "We applied FooNet to a large behavioral dataset from mice."]
    assert aspect_sentences(sents)["data"] == 2


def test_the_approach_is_the_papers_own_step_in_any_words() -> None:
    """"Introducing" proposes as "we introduce" does, and an abstract that
    proposes in no such words ("We relate a Hebbian … rule to …") still
    has its approach and its gist: the first sentence whose subject is
    "we", not the field's opening sentence. Where several sentences propose
    something, the approach is the one naming the paper."""
    sents = ["Krotov and Hopfield (2021) proposed a two-layer associative memory.",
             "We overcome this limitation by introducing a novel associative memory network.",
             "Thus, we achieve much higher capacity."]
    assert aspect_sentences(sents)["approach"] == gist_sentence(sents) == 1
    sents = ["Hebbian learning is a key principle of learning in the brain.",
             "We relate a Hebbian plasticity rule to noisy gradient descent.", "The rule converges fast."]
    assert aspect_sentences(sents)["approach"] == gist_sentence(sents) == 1
    sents = ["Plasticity rules remain unknown.", "Here, we formalize these principles as a latent law.",
             "To capture this law, we introduce STEER, a dual-timescale model.", "STEER fits rat recordings."]
    assert aspect_sentences(sents, "STEER")["approach"] == gist_sentence(sents, "STEER") == 2


def test_a_default_aspect_whose_cues_find_nothing_is_looked_for_in_the_users_words(assistant: Assistant) -> None:
    """"theoretical result" names the results aspect, whose cue words the
    Hebbian STDP abstract never uses after its own step; the sentence that
    "rigorously proves" convergence states it all the same. A result stated
    with an adverb ("we empirically demonstrate") is a result too."""
    by_name = {p.name: p for p in assistant.index.papers()}
    papers = [by_name["Hebbian spike-timing-dependent plasticity rule"], by_name["Different classes of agent memory"]]
    rows = compare.table(assistant.selector, papers, ["theoretical result", "results"], CompareSettings()).to_json()
    assert "rigorously prove" in rows[0]["cells"][0]["quote"]
    assert "empirically demonstrate the importance" in rows[1]["cells"][1]["quote"]


def test_a_question_asked_of_each_paper_gets_its_named_method_and_its_two_closest_sentences(
        assistant: Assistant) -> None:
    """Each paper's line is its sentence naming its method (AGM's abstract
    proposes "a two-stage framework" before "Adaptive Gradient Masking
    (AGM)") and the sentence after it, plus the two sentences closest to
    what the question asks of each."""
    by_name = {p.name: p for p in assistant.index.papers()}
    papers = [by_name["MixSignGraph"], by_name["AGM"]]
    lines = compare.lines_evidence(assistant.selector, papers, "how do MixSignGraph and AGM differ in the extra "
                                                              "training trick they add?")
    agm = lines[1]
    assert any(agm.sentences[i].startswith("Then, we propose an Adaptive Gradient Masking (AGM)") for i in agm.chosen)
    assert any("mutual information" in agm.sentences[i] for i in agm.chosen)
    assert any("pseudo gloss labels" in lines[0].sentences[i] for i in lines[0].chosen)
    assert all(len(e.chosen) <= 4 for e in lines)


@pytest.mark.parametrize(("value", "quote", "held"), [
    ("11 tasks", "Extensive experiments across 11 representative EEG tasks and 16 datasets.", True),
    ("eleven tasks", "Experiments across 11 representative EEG tasks.", True),
    ("60000 hours", "we pretrain REVE on over 60,000 hours of EEG data from 92 datasets", True),
    ("100, 000 research papers", "Leveraging a corpus of 100,000 research papers", True),
    ("92 datasets", "we pretrain REVE on over 60,000 hours of EEG data from 92 datasets", True),
    ("93 datasets", "we pretrain REVE on over 60,000 hours of EEG data from 92 datasets", False),
    ("a diffusion model", "we pretrain REVE on over 60,000 hours of EEG data", False),
    ("Large Vision-Language Models", "to evaluate the capabilities of large vision-language models", True),
    ("Set Transformer", "A Set Transformer-based adaptive readout (AR) function", True),
    ("REVE struggles to generalize across variations",  # a name the quote lacks: the paper made the subject
     "Existing EEG foundation models struggle to generalize across these variations", False),
])
def test_a_value_must_be_in_its_quote(value: str, quote: str, held: bool) -> None:
    assert compare.value_in_quote(value, quote, CompareSettings()) is held


@pytest.mark.parametrize(("reply", "value"), [
    ('"16 datasets" [1].', "16 datasets"), ("none", None), ("None.", None), ("not stated", None),
    ("16 datasets\nThe quote also says more.", "16 datasets"),
    ("The quote does not say anything about which data or subjects the authors used at all", None),
])
def test_a_reply_is_cleaned_into_a_value(reply: str, value: str | None) -> None:
    assert compare.clean_value(reply, CompareSettings()) == value


def test_cli_many_papers_json_csv_and_markdown(server: ScriptedOpenAI, seed_settings: Settings,
                                               tmp_path: Path) -> None:
    server.set_default(compare_replies({"REVE": {"subjects": "25,000 subjects"}}, NARRATIVE))
    table, markdown = tmp_path / "table.csv", tmp_path / "answer.md"
    result = run_cli("compare", "CSBrain", "REVE", "CodeBrain", "--aspects", "data, subjects", "--json",
                     "--csv", str(table), "--markdown", str(markdown), env=env_for(server, seed_settings))
    assert result.returncode == 0, result.stderr
    payload = json.loads(result.stdout)
    assert payload["mode"] == "compare" and payload["aspects"] == ["data", "subjects"]
    assert [p["title"] for p in payload["papers"]] == ["CSBrain", "REVE", "CodeBrain"]
    assert {"answer", "citations", "sources", "table", "papers"} <= set(payload)
    rows = list(csv.reader(io.StringIO(table.read_text(encoding="utf-8"))))
    assert rows[0] == ["paper", "venue", "paper_id", "data", "data (quote)", "subjects", "subjects (quote)"]
    assert [r[0] for r in rows[1:]] == ["CSBrain", "REVE", "CodeBrain"]
    assert rows[2][5] == "25,000 subjects" and "25,000 subjects" in rows[2][6] and rows[1][5] == "not stated"
    assert "| aspect | CSBrain | REVE | CodeBrain |" in markdown.read_text(encoding="utf-8")


def test_cli_compares_the_papers_of_a_search_or_a_topic(server: ScriptedOpenAI, seed_settings: Settings,
                                                        tmp_path: Path) -> None:
    from assistant import topics

    server.set_default(compare_replies({}, NARRATIVE))
    env = env_for(server, seed_settings)
    found = run_cli("compare", "--query", "EEG foundation models", "--k", "3", "--json", env=env)
    assert found.returncode == 0, found.stderr
    assert {"CSBrain", "REVE"} <= {p["title"] for p in json.loads(found.stdout)["papers"]}
    assert len(json.loads(found.stdout)["papers"]) == 3
    copy_storage(seed_settings.index.storage, tmp_path / "storage")
    settings = Settings.load(storage=tmp_path / "storage")
    topic_map, _ = topics.build(PaperIndex(settings), progress=False)
    topics.save(topic_map, topics.topics_path(settings.index.resolved_storage(), None))
    biggest = max((t for a in topic_map.areas for t in a.topics), key=lambda t: t.size)
    shown = run_cli("compare", "--topic", biggest.topic_id, "--json", env={**env, "PAPER_ASSISTANT_STORAGE":
                                                                         str(tmp_path / "storage")})
    assert shown.returncode == 0, shown.stderr
    assert [p["paper_id"] for p in json.loads(shown.stdout)["papers"]] == biggest.papers[:8]
    assert (f"has {biggest.size} papers; comparing its 8 most typical" in shown.stderr) == (biggest.size > 8)


@pytest.mark.parametrize(("args", "message"), [
    (["CSBrain"], "Name at least 2 papers"),
    (["SPINT", "POCO", "REVE", "CSBrain", "HEIST", "RIGNO", "AGM", "MiCRo", "SnS"], "at most 8 papers"),
    (["CSBrain", "REVE", "--aspects", " , "], "aspect list is empty"),
    (["--query", "EEG", "--k", "9"], "--k goes with --query and takes 2 to 8"),
    (["CSBrain", "REVE", "--query", "EEG"], "one of the three"),
    ([], "one of the three"),
    (["--topic", "9.9"], "No topic map"),
])
def test_cli_bad_input_is_one_line(server: ScriptedOpenAI, seed_settings: Settings, args: list[str],
                                   message: str) -> None:
    result = run_cli("compare", *args, env=env_for(server, seed_settings))
    assert result.returncode == 1 and message in result.stderr, result.stderr
    assert len(result.stderr.strip().splitlines()) == 1 and result.stdout == ""
    assert server.requests == []


def test_cli_reads_comparisons_from_stdin(server: ScriptedOpenAI, seed_settings: Settings) -> None:
    server.set_default(compare_replies({}, NARRATIVE))
    result = run_cli("compare", "-", "--aspects", "data", stdin="CSBrain | REVE | CodeBrain\nCSBrain | zzzz qqqq\n",
                     env=env_for(server, seed_settings))
    assert result.returncode == 0, result.stderr
    first, second = (json.loads(line) for line in result.stdout.splitlines())
    assert len(first["papers"]) == 3 and first["table"][0]["aspect"] == "data"
    assert second["error"].startswith("No paper matches 'zzzz qqqq'")
