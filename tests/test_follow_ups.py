"""A follow-up's pointers to the last answer's papers, written out with their names."""

from __future__ import annotations

import pytest

from assistant.follow_ups import named

EEG = ["REVE", "CSBrain", "CodeBrain"]


@pytest.mark.parametrize(("message", "expected"), [
    ("which datasets do these papers pretrain on?", "which datasets do REVE, CSBrain and CodeBrain pretrain on?"),
    ("and how many downstream tasks does each evaluate?",
     "and how many downstream tasks does each of REVE, CSBrain and CodeBrain evaluate?"),
    ("what do they have in common?", "what do REVE, CSBrain and CodeBrain have in common?"),
    ("which of them releases code?", "which of REVE, CSBrain and CodeBrain releases code?"),
    ("which one uses more subjects?", "which of REVE, CSBrain and CodeBrain uses more subjects?"),
    ("are the three models open source?", "are REVE, CSBrain and CodeBrain open source?"),
    ("do all of these papers use transformers?", "do all of REVE, CSBrain and CodeBrain use transformers?"),
    ("how do they differ from each other?", "how do REVE, CSBrain and CodeBrain differ from each other?"),
    ("这些论文分别用了哪些数据集预训练？", "REVE、CSBrain 和 CodeBrain 分别用了哪些数据集预训练？"),
    ("它们在多少个下游任务上做了评估？", "REVE、CSBrain 和 CodeBrain 在多少个下游任务上做了评估？"),
])
def test_a_group_pointer_is_the_last_answers_papers(message: str, expected: str) -> None:
    assert named(message, EEG) == expected


@pytest.mark.parametrize(("message", "expected"), [
    ("how big is its dataset?", "how big is SPINT's dataset?"),
    ("how does it compare with POCO?", "how does SPINT compare with POCO?"),
    ("is this paper from ICLR?", "is SPINT from ICLR?"),
    ("what data do they use?", "what data do SPINT use?"),  # the paper's authors
    ("它用了多少被试？", "SPINT 用了多少被试？"),
])
def test_a_pointer_to_one_paper_is_the_last_answers_paper(message: str, expected: str) -> None:
    assert named(message, ["SPINT"]) == expected


@pytest.mark.parametrize(("message", "expected"), [
    ("tell me more about the second one", "tell me more about CSBrain"),
    ("how does the first paper differ from the last one?", "how does REVE differ from CodeBrain?"),
    ("what about [3]?", "what about CodeBrain?"),  # the answer's citation number
    ("第二篇论文用了什么数据？", "CSBrain 用了什么数据？"),
    ("what data does [5] use?", None),  # no fifth paper: left to the model's rewrite
    ("is the second stage trained separately?", None),  # a place, but of no paper
])
def test_a_paper_pointed_at_by_its_place_is_named(message: str, expected: str | None) -> None:
    assert named(message, EEG) == expected


@pytest.mark.parametrize(("message", "names"), [
    ("which papers use transformers, and what do they predict?", EEG),  # "they": the message's own papers
    ("summarize the papers on memory", EEG),  # a new topic, not "the papers" of the last answer
    ("有没有关于记忆的论文？它们用了什么数据？", EEG),
    ("what is its dataset?", EEG),  # which of the three: the model's rewrite guesses
    ("what about HEIST?", ["SPINT"]),  # no pointer: the model's rewrite carries the question over
    ("is it possible to decode speech from EEG?", ["SPINT"]),  # an "it" that stands for no paper
    ("it seems EEG models need lots of data - which ones use the most?", ["SPINT"]),
    ("which datasets do these papers use?", []),  # the last answer cited nothing
])
def test_no_pointer_to_the_last_answers_papers_leaves_the_message(message: str, names: list[str]) -> None:
    assert named(message, names) is None
