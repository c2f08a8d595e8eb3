"""Filters named in the question, Chinese queries in search, and the one fusion function."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from assistant.answer import Assistant
from assistant.cli import main
from assistant.crosslingual import TranslationCache, dictionary_query
from assistant.filters import parse_filters, topicless
from assistant.fusion import Fusion
from assistant.index import PaperIndex
from assistant.papers import load_papers, seed_files
from assistant.retrieve import PaperRetriever
from assistant.settings import Settings

from .conftest import write_jsonl
from .openai_server import ScriptedOpenAI


@pytest.mark.parametrize(("question", "cleaned", "venue", "year"), [
    ("NeurIPS 2025 papers on EEG foundation models", "papers on EEG foundation models", "NeurIPS 2025", None),
    ("anything from ICLR 2026 about associative memory?", "anything about associative memory?", "ICLR 2026", None),
    ("which ICLR papers study LLM opinions?", "which papers study LLM opinions?", "ICLR", None),
    ("NeurIPS'25 work on recommendation", "work on recommendation", "NeurIPS 2025", None),
    ("deepfake detection papers from 2025", "deepfake detection papers", None, 2025),
    ("in 2026, who studied signed weights?", "who studied signed weights?", None, 2026),
    ("which 2026 papers work with rodents?", "which papers work with rodents?", None, 2026),
    ("ICLR 2026 的哪些论文研究脑电？", "哪些论文研究脑电？", "ICLR 2026", None),
    ("2025年关于脉冲神经网络的论文", "关于脉冲神经网络的论文", None, 2025),
    ("Nature Neuroscience papers on mice", "papers on mice", "Nature Neuroscience", None),
    # the old name, a hyphen, a CJK neighbour (2026-12-05 evening: none of these filtered)
    ("EEG papers in NIPS 2025", "EEG papers", "NeurIPS 2025", None),
    ("ICLR-2026 EEG", "EEG", "ICLR 2026", None),
    ("2025年NeurIPS上关于脑电的论文", "关于脑电的论文", "NeurIPS", 2025),
    # two venues are both asked for: no one venue (the first was the filter before 2026-12-05, night)
    ("EEG papers from ICLR 2026 and NeurIPS 2025?", "EEG papers?", None, None),
    ("ICLR 2026 和 NeurIPS 2025 的脑电论文", "脑电论文", None, None),
    ("NeurIPS 2025 papers, and the NeurIPS one on EEG", "papers, and the one on EEG", "NeurIPS 2025", None),  # one venue
    ("what ICLR 2026 papers do you have?", "what papers do you have?", "ICLR 2026", None),  # not "wh" + "at ICLR"
])
def test_parse_filters_reads_venue_and_year_in_english_and_chinese(question: str, cleaned: str, venue: str | None,
                                                                    year: int | None) -> None:
    found = parse_filters(question, ["Nature Neuroscience 2024"])
    assert (found.question, found.venue, found.year) == (cleaned, venue, year)


@pytest.mark.parametrize("question", [
    "REVE was pretrained on 60,000 hours from 2000 subjects",  # a count, not a year
    "the 2000 neurons of the network",
    "chi-square tests of NAACL-style annotations",  # a venue name inside a word is not the venue
    "what year did CodeBrain come out?",
    "EEG papers not from ICLR",  # a venue ruled out is no filter, never its opposite
    "除了ICLR以外的脑电论文",
])
def test_parse_filters_leaves_ordinary_numbers_and_words(question: str) -> None:
    found = parse_filters(question)
    assert found.question == question and found.venue is None and found.year is None


def test_a_venue_named_in_the_question_filters_the_search(seed_retriever: PaperRetriever) -> None:
    scope, hits = seed_retriever.find("NeurIPS 2025 papers on EEG foundation models", k=10)
    assert scope.parsed == {"venue": "NeurIPS 2025"} and scope.query == "papers on EEG foundation models"
    assert hits and {h.paper.venue for h in hits} == {"NeurIPS 2025"}
    assert {"CSBrain", "REVE"} <= {h.paper.name for h in hits[:3]}
    scope, hits = seed_retriever.find("EEG papers from 2026", k=10)
    assert scope.year == 2026 and {h.paper.year for h in hits} == {2026} and hits[0].paper.name == "CodeBrain"


@pytest.mark.parametrize(("rest", "none"), [
    ("which papers are?", True), ("list the papers", True), ("what papers do you have?", True), ("", True),
    ("论文有哪些", True), ("how many papers?", True), ("which papers study EEG?", False), ("脑电论文", False), ("papers on graphs", False),
])
def test_a_question_asking_for_papers_and_no_topic_is_topicless(rest: str, none: bool) -> None:
    assert topicless(rest) is none


def test_a_query_of_only_a_venue_gets_that_venues_papers(seed_settings: Settings,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["search", "NeurIPS 2025", "-k", "3", "--storage", str(seed_settings.index.storage), "--json"]) == 0
    payload = json.loads(capsys.readouterr().out)  # before: "No matching papers."
    assert payload["filter"] == {"venue": "NeurIPS 2025"} and len(payload["results"]) == 3
    assert {r["venue"] for r in payload["results"]} == {"NeurIPS 2025"}


def test_two_venues_named_are_both_searched(seed_retriever: PaperRetriever) -> None:
    scope, hits = seed_retriever.find("EEG papers from ICLR 2026 and NeurIPS 2025", k=5)
    assert scope.venue == ("ICLR 2026", "NeurIPS 2025") and scope.query == "EEG papers"
    assert scope.parsed == {"venues": ["ICLR 2026", "NeurIPS 2025"]}
    assert {h.paper.venue for h in hits} == {"ICLR 2026", "NeurIPS 2025"}
    assert {"CodeBrain", "REVE", "CSBrain"} <= {h.paper.name for h in hits}
    one = seed_retriever.scope("ICLR 2026 and CVPR papers on EEG")  # only one of them is indexed: that one
    assert one.venue == "ICLR 2026" and one.parsed == {"venue": "ICLR 2026"}


#: Two papers of a third venue, on the seeds' topic (EEG), written for this test.
THIRD_VENUE = [
    {"id": "icml-eeg-1", "title": "EEGMix: mixing channels for EEG foundation models", "venue": "ICML 2025",
     "abstract": "We propose EEGMix, an EEG foundation model pretrained on scalp EEG recordings with random channel "
                 "mixing. EEGMix improves EEG decoding on seizure detection and sleep staging."},
    {"id": "icml-eeg-2", "title": "Sleep staging from single-channel EEG", "venue": "ICML 2025",
     "abstract": "We present a single-channel EEG model for sleep staging that matches multi-channel EEG models on "
                 "three public sleep datasets, so that home recordings with one electrode can be scored."},
]


def test_two_venues_of_three_leave_the_third_out(fresh_index: PaperIndex, tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    fresh_index.ingest(load_papers([*seed_files(), write_jsonl(tmp_path / "icml.jsonl", THIRD_VENUE)]),
                       progress=False)
    retriever = PaperRetriever(fresh_index)
    everywhere = {h.paper.venue for h in retriever.find("EEG foundation models", k=10)[1]}
    assert everywhere == {"ICLR 2026", "NeurIPS 2025", "ICML 2025"}  # EEG is in all three
    scope, hits = retriever.find("EEG foundation models from ICLR 2026 and NeurIPS 2025", k=10)
    assert scope.venue == ("ICLR 2026", "NeurIPS 2025")
    assert hits and {h.paper.venue for h in hits} == {"ICLR 2026", "NeurIPS 2025"}  # before: ICML's too
    hits = retriever.find("EEG papers in ICML 2025 or NeurIPS 2025", k=10)[1]
    assert {h.paper.venue for h in hits} == {"ICML 2025", "NeurIPS 2025"}
    assert THIRD_VENUE[0]["title"] in {h.paper.name for h in hits}
    store = ["--storage", str(fresh_index.settings.index.storage)]
    assert main(["search", "EEG papers in ICML 2025 or NeurIPS 2025", *store]) == 0
    assert "Filter from the query: venues ICML 2025 or NeurIPS 2025" in capsys.readouterr().out
    listed = list(Assistant(fresh_index.settings, index=fresh_index).respond("which papers are from ICML 2025 or "
                                                                            "ICLR 2026?"))[-1].result
    assert listed.answer.startswith("21 of the 40 papers are from ICML 2025 or ICLR 2026:")
    assert f"{THIRD_VENUE[0]['title']} (ICML 2025)" in listed.answer and "NeurIPS" not in listed.answer


def test_a_venue_year_or_year_the_index_lacks_is_said_not_silently_dropped(
        seed_settings: Settings, capsys: pytest.CaptureFixture[str]) -> None:
    store = ["--storage", str(seed_settings.index.storage), "--json"]
    for query, lacking in (("ICLR 2027 graph papers", "ICLR 2027"), ("papers from 2024 on EEG", "2024")):
        assert main(["search", query, *store]) == 0
        payload = json.loads(capsys.readouterr().out)
        assert payload["filter"] is None and payload["results"]  # every paper searched, as before
        assert payload["filter_unmatched"].startswith(f"No indexed paper is from {lacking} (indexed: ICLR 2026, "
                                                      "NeurIPS 2025)")
    for query in ("better than CVPR baselines on EEG", "EEG papers from ICLR 2026"):  # no year; a filter taken
        assert main(["search", query, *store]) == 0
        assert "filter_unmatched" not in json.loads(capsys.readouterr().out)


def test_explicit_filters_win_and_unknown_venues_filter_nothing(seed_retriever: PaperRetriever) -> None:
    scope = seed_retriever.scope("ICLR 2026 papers on EEG", venue="NeurIPS 2025")
    assert scope.venue == "NeurIPS 2025" and scope.parsed is None
    unknown = seed_retriever.scope("CVPR papers on EEG")  # no indexed paper is from CVPR: not a filter
    assert unknown.venue is None and unknown.parsed is None and unknown.query == "CVPR papers on EEG"


def test_question_filters_can_be_turned_off(seed_index: PaperIndex) -> None:
    off = PaperRetriever(PaperIndex(seed_index.settings.with_(question_filters=False),
                                    embedder=seed_index.embedder))
    scope, hits = off.find("NeurIPS 2025 papers on EEG foundation models", k=10)
    assert scope.venue is None and scope.parsed is None
    assert "ICLR 2026" in {h.paper.venue for h in hits}


def test_search_json_says_which_filter_came_from_the_query(seed_settings: Settings,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    store = ["--storage", str(seed_settings.index.storage), "--json"]
    assert main(["search", "ICLR 2026 papers on EEG", *store]) == 0
    payload = json.loads(capsys.readouterr().out)
    assert payload["filter"] == {"venue": "ICLR 2026"} and payload["searched"] == "papers on EEG"
    assert {r["venue"] for r in payload["results"]} == {"ICLR 2026"}
    assert main(["search", "ICLR 2026 papers on EEG", "--no-question-filters", *store]) == 0
    payload = json.loads(capsys.readouterr().out)
    assert payload["filter"] is None and "NeurIPS 2025" in {r["venue"] for r in payload["results"]}
    assert main(["search", "EEG papers", "--storage", str(seed_settings.index.storage), "--venue", "NeurIPS 2025",
                 "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["filter"] is None  # explicit: nothing parsed


def test_dictionary_takes_the_longest_term_and_keeps_latin_words() -> None:
    query = dictionary_query("REVE 用脉冲神经网络做脑电解码")
    assert query.startswith("REVE") and "spiking neural network" in query and "EEG" in query
    assert "spiking spike" not in query  # 脉冲神经网络 is one term, not 脉冲 + 神经网络


@pytest.mark.parametrize(("question", "term"), [
    ("这里面有没有研究大模型量化压缩的论文？", "quantization"),  # was "large language model", nothing on quantization
    ("有没有关于机器遗忘的论文？", "machine unlearning"),
    ("哪篇论文用了光遗传学？", "optogenetics"),
])
def test_the_dictionary_knows_the_fields_common_terms(question: str, term: str) -> None:
    """Before 2026-12-06 (sixth session) the dictionary held 300 terms and
    dropped these: a topic no paper covers was searched as its generic words."""
    assert term in dictionary_query(question)


@pytest.mark.parametrize(("question", "expected"), [
    ("有哪些关于脉冲神经网络的论文？", {"HetSyn", "Hebbian spike-timing-dependent plasticity rule"}),
    ("用图神经网络求解偏微分方程", {"RIGNO"}),
])
def test_chinese_search_without_an_llm_finds_the_papers(seed_settings: Settings, capsys: pytest.CaptureFixture[str],
                                                        question: str, expected: set[str]) -> None:
    assert main(["search", question, "--k", "3", "--json", "--storage", str(seed_settings.index.storage)]) == 0
    payload = json.loads(capsys.readouterr().out)
    assert payload["searched"] != question and not any("\u4e00" <= c <= "\u9fff" for c in payload["searched"])
    assert {r["title"] for r in payload["results"][:2]} & expected


def test_llm_translation_is_cached_and_falls_back_to_the_dictionary(answer_settings: Settings, seed_index: PaperIndex,
                                                                    server: ScriptedOpenAI) -> None:
    assistant = Assistant(answer_settings.with_(query_translation="llm"), index=seed_index)
    server.reply("spiking neural networks with heterogeneous synapses")
    assert assistant.translate("异质突触的脉冲网络") == "spiking neural networks with heterogeneous synapses"
    assert assistant.translate("异质突触的脉冲网络") == "spiking neural networks with heterogeneous synapses"
    assert len(server.requests) == 1  # the second came from the cache
    cached = json.loads((answer_settings.index.resolved_storage() / "translations.json").read_text(encoding="utf-8"))
    assert cached["test-model\t异质突触的脉冲网络"] == "spiking neural networks with heterogeneous synapses"
    server.reply("脑电基础模型的论文")  # a small model's "translation" still in Chinese: its terms are looked up
    assert assistant.translate("哪些论文提出了脑电基础模型？") == "EEG electroencephalography foundation model paper"
    server.fail("500")
    server.fail("500")
    assert "spiking" in assistant.translate("脉冲神经网络的论文")  # LLM down: the dictionary


def test_auto_translation_uses_the_dictionary_first_and_the_llm_for_unknown_terms(
        answer_settings: Settings, seed_index: PaperIndex, server: ScriptedOpenAI) -> None:
    assistant = Assistant(answer_settings, index=seed_index)  # query_translation = auto
    assert "spiking" in assistant.translate("脉冲神经网络的论文") and not server.requests  # no model call
    server.reply("cats on the moon")
    assert assistant.translate("月亮上的猫咪") == "cats on the moon"  # no term it knows: the LLM
    assert len(server.requests) == 1


def test_translation_cache_survives_an_unreadable_file(tmp_path: pytest.TempPathFactory) -> None:
    path = tmp_path / "translations.json"  # type: ignore[operator]
    path.write_text("{not json", encoding="utf-8")
    cache = TranslationCache(path)
    assert cache.get("m", "问题", lambda q: "question") == "question"
    assert json.loads(path.read_text(encoding="utf-8")) == {"m\t问题": "question"}


def test_rank_fusion_ranks_named_papers_first_and_scales_scores() -> None:
    fusion = Fusion(rrf_k=5, dense_weight=1, lexical_weight=3, candidates=10, method="ranks")
    dense = {0: 0.9, 1: 0.8}
    lexical = np.asarray([5.0, 0.0, 1.0, 7.0])
    ranked = fusion.fuse(dense, lexical, np.arange(4))  # 0: 1/6 + 3/7, 3: 3/6, 2: 3/8, 1: 1/7
    assert [i for i, _ in ranked] == [0, 3, 2, 1] and ranked[0][1] < 1.0
    assert fusion.fuse(dense, np.asarray([9.0, 0, 0, 0]), np.arange(4))[0] == (0, 1.0)  # first on both sides
    assert fusion.fuse(dense, lexical, np.arange(4), named=[1])[0][0] == 1
    assert [i for i, _ in fusion.fuse(None, lexical, np.asarray([0, 2]))] == [0, 2]  # only allowed papers compete
    assert [i for i, _ in fusion.fuse(dense, None, np.arange(4))] == [0, 1]



def test_score_fusion_lets_a_clear_side_outvote_a_thin_lead() -> None:
    """BM25 barely prefers paper 1 (10 vs 9.5) while the dense side is sure of
    paper 0: rank fusion would follow BM25's rank 1, score fusion follows the margins."""
    fusion = Fusion(dense_weight=1, lexical_weight=1, candidates=10)
    dense = {0: 0.8, 1: 0.4, 2: 0.3}
    lexical = np.asarray([9.5, 10.0, 0.0, 2.0])
    ranked = dict(fusion.fuse(dense, lexical, np.arange(4)))
    assert list(ranked) == [0, 1, 3, 2]
    assert ranked[0] == pytest.approx((1 + 0.95) / 2) and ranked[1] == pytest.approx((0.5 + 1) / 2)
    assert ranked[3] == pytest.approx((0.375 + 0.2) / 2)  # beyond the dense candidates: the farthest one's share
    assert Fusion(method="ranks", lexical_weight=3).fuse(dense, lexical, np.arange(4))[0][0] == 1
    assert fusion.fuse(dense, np.asarray([9.0, 0, 0, 0]), np.arange(4))[0] == (0, 1.0)  # first on both sides
    assert fusion.fuse(dense, lexical, np.arange(4), named=[2])[0][0] == 2
    assert [i for i, _ in fusion.fuse(None, lexical, np.asarray([0, 2, 3]))] == [0, 3]  # only allowed, matching
    assert [i for i, _ in fusion.fuse(dense, None, np.arange(4))] == [0, 1, 2]
    assert fusion.fuse({}, np.zeros(4), np.arange(4)) == []


def test_score_fusion_lets_bm25_decide_when_no_paper_is_near_in_meaning() -> None:
    """All cosines far off (best 0.17): the nearest is no full dense match, so
    the paper whose name BM25 matches comes first ("which conference published
    Stretch-and-Squeeze?"); without the floor, 0.17 would count as a perfect match."""
    dense, lexical = {0: 0.17, 1: -0.02}, np.asarray([0.5, 8.0])
    assert Fusion(dense_floor=0.5).fuse(dense, lexical, np.arange(2))[0][0] == 1
    assert Fusion(dense_floor=0.0).fuse(dense, lexical, np.arange(2))[0][0] == 0
    assert all(0.0 <= score <= 1.0 for _, score in Fusion().fuse({0: 0.3, 1: -0.4}, None, np.arange(2)))