"""BibTeX and RIS in, BibTeX out: a realistic Zotero export, sniffing, bad
files, keys that survive a round trip, and the CLI's --bibtex / markdown links."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from assistant.errors import InputError
from assistant.naming import assign_names
from assistant.papers import load_papers, seed_files
from assistant.references import cite_key, cite_keys, to_bibtex
from assistant.settings import Settings

from .conftest import source_number
from .openai_server import ScriptedOpenAI
from .test_cli import run_cli
from .test_cli_answer import env_for

FIXTURES = Path(__file__).parent / "fixtures"
LIBRARY = FIXTURES / "zotero-library.bib"
RIS = FIXTURES / "zotero-export.ris"


def test_zotero_bibtex_library_is_read_cleaned_and_counted() -> None:
    result = load_papers([LIBRARY])
    papers = {p.paper_id: p for p in result.papers}
    assert sorted(papers) == ["chen2023tabular", "devlin2019bert", "muller2021graphs", "vaswani2017attention"]
    attention = papers["vaswani2017attention"]
    assert attention.title == "Attention Is All You Need"  # case-protecting braces gone
    assert attention.venue == "Advances in Neural Information Processing Systems"  # the @string macro, resolved
    assert attention.authors.split("; ")[0] == "Ashish Vaswani" and "Łukasz Kaiser" in attention.authors
    assert (attention.year, attention.doi, attention.entry_type, attention.cite_key) == (
        2017, "10.48550/arXiv.1706.03762", "inproceedings", "vaswani2017attention")
    assert attention.keywords == "attention; sequence transduction; machine translation"
    bert = papers["devlin2019bert"]
    assert bert.title.startswith("BERT: Pre-training") and bert.doi == "10.18653/v1/N19-1423"
    assert "question answering & language inference" in bert.abstract and bert.year == 2019
    graphs = papers["muller2021graphs"]
    assert graphs.title == "Message Passing on Riemannian Manifolds with Über-Graphs"
    assert graphs.authors == "Jörg Müller; Anaïs François; Bernhard Schölkopf; Søren Østergaard; Zoé Nowak"
    assert "ÜberGNN" in graphs.abstract and "~4%" in graphs.abstract and "Gröbner" in graphs.abstract
    assert graphs.abstract_raw.startswith(r"We present {\"U}berGNN")  # the original is kept beside it
    assert papers["chen2023tabular"].venue == "arXiv"
    assert result.merged == 1  # the same item exported twice under one key
    reasons = {s.where: (s.reason, s.count) for s in result.skipped}
    assert reasons["zotero-library.bib"] == (
        "3 entries with no abstract (goodfellow2016deep, he2016resnet, lecun2015deep)", 3)
    assert "already used by" in reasons["zotero-library.bib:65 (chen2023tabular)"][0]  # same key, other abstract
    assert "not a valid BibTeX entry" in reasons["zotero-library.bib:94"][0]
    assert sum(s.count for s in result.skipped) == 5


def test_ris_export_is_read_with_its_abstracts() -> None:
    result = load_papers([RIS])
    attention, tabular = sorted(result.papers, key=lambda p: p.title)
    assert attention.title == "Attention Is All You Need" and attention.entry_type == "inproceedings"
    assert attention.authors == "Ashish Vaswani; Noam Shazeer; Łukasz Kaiser" and attention.year == 2017
    assert attention.keywords == "attention; machine translation" and attention.url == "https://arxiv.org/abs/1706.03762"
    assert tabular.venue == "Transactions on Machine Learning Research" and tabular.entry_type == "article"
    assert tabular.abstract.endswith("on forty datasets.") and "pretraining halves the" in tabular.abstract  # N2, wrapped
    assert [(s.reason, s.count) for s in result.skipped] == [("1 entry with no abstract ('Deep Learning')", 1)]


def test_formats_are_sniffed_whatever_the_suffix(tmp_path: Path) -> None:
    (tmp_path / "library.txt").write_text(LIBRARY.read_text(encoding="utf-8"), encoding="utf-8")
    (tmp_path / "export").write_text(RIS.read_text(encoding="utf-8"), encoding="utf-8")
    assert len(load_papers([tmp_path / "library.txt"]).papers) == 4
    assert len(load_papers([tmp_path / "export"]).papers) == 2
    assert len(load_papers([FIXTURES]).papers) == 6  # a folder: its .bib and .ris files


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        ("notes.bib", "Just some notes about papers I should read.\n", "holds no BibTeX entries"),
        ("export.ris", "title,abstract\nx,y\n", "holds no RIS references"),
        ("library.bib", "@article{onlykey, title = {No abstract}}\n", "1 entry with no abstract (onlykey)"),
        ("notes.md", "# reading list\n", "not a supported paper file"),
    ],
)
def test_a_file_that_is_not_bibtex_or_ris_is_one_line(tmp_path: Path, name: str, content: str, message: str) -> None:
    (tmp_path / name).write_text(content, encoding="utf-8")
    with pytest.raises(InputError, match=re.escape(message)) as error:
        load_papers([tmp_path / name])
    assert "\n" not in str(error.value)


def test_bibtex_export_round_trips_with_original_and_generated_keys(tmp_path: Path) -> None:
    papers = assign_names(load_papers([LIBRARY]).papers + load_papers(seed_files()).papers)
    exported = tmp_path / "refs.bib"
    exported.write_text(to_bibtex(papers), encoding="utf-8")
    back = {p.cite_key: p for p in load_papers([exported]).papers}
    keys = cite_keys(papers)
    assert len(back) == len(papers) == len(set(keys.values()))
    for paper in papers:
        again = back[keys[paper.paper_id]]
        assert (again.abstract, again.title or again.name, again.authors, again.year) == (
            paper.abstract, paper.title or paper.name, paper.authors, paper.year)
    assert keys["vaswani2017attention"] == "vaswani2017attention"  # the original key, kept
    seed = next(p for p in papers if p.name == "SPINT")
    assert re.fullmatch(r"spint2025[0-9a-f]{4}", cite_key(seed))  # first word + year + hash of the id
    assert cite_key(seed) == cite_key(next(p for p in assign_names(load_papers(seed_files()).papers)
                                           if p.paper_id == seed.paper_id))  # stable across loads
    assert "Title not given by the source" in exported.read_text(encoding="utf-8")


def test_ingest_bibtex_then_compare_by_citation_key_and_export(server: ScriptedOpenAI, tmp_path: Path) -> None:
    storage = tmp_path / "storage"
    result = run_cli("ingest", str(LIBRARY), "--storage", str(storage))
    assert result.returncode == 0, result.stderr
    assert "4 added" in result.stdout and "1 duplicates merged, 5 skipped" in result.stdout
    assert "skipped zotero-library.bib: 3 entries with no abstract" in result.stderr
    env = env_for(server, Settings.load(storage=storage))
    server.set_default(lambda body: f"The Transformer relies on attention alone [{source_number(body, 'Attention Is All You Need')}].")
    markdown, bibtex = tmp_path / "answer.md", tmp_path / "answer.bib"
    result = run_cli("compare", "vaswani2017attention", "devlin2019bert", "--json", "--markdown", str(markdown),
                     "--bibtex", str(bibtex), env=env)
    assert result.returncode == 0, result.stderr
    assert [p["paper_id"] for p in json.loads(result.stdout)["papers"]] == ["vaswani2017attention", "devlin2019bert"]
    text = bibtex.read_text(encoding="utf-8")
    assert text.startswith("@inproceedings{vaswani2017attention,") and "@inproceedings{devlin2019bert," in text
    assert "(id `vaswani2017attention`) [@vaswani2017attention]" in markdown.read_text(encoding="utf-8")
    found = run_cli("search", "What is devlin2019bert about?", "--json", "--k", "1", "--storage", str(storage))
    assert json.loads(found.stdout)["results"][0]["paper_id"] == "devlin2019bert"  # the key names the paper


def test_answer_exports_from_seed_papers_use_generated_keys(server: ScriptedOpenAI, seed_settings: Settings,
                                                             tmp_path: Path) -> None:
    server.set_default(lambda body: f"SPINT decodes behavior from neural spikes [{source_number(body, 'SPINT')}].")
    bibtex, markdown = tmp_path / "a.bib", tmp_path / "a.md"
    result = run_cli("ask", "What is SPINT?", "--bibtex", str(bibtex), "--markdown", str(markdown),
                     env=env_for(server, seed_settings))
    assert result.returncode == 0, result.stderr
    key = re.search(r"@inproceedings\{(spint2025[0-9a-f]{4}),", bibtex.read_text(encoding="utf-8"))
    assert key and "1. SPINT — NeurIPS 2025" in markdown.read_text(encoding="utf-8")
    assert f"[@{key.group(1)}]" in markdown.read_text(encoding="utf-8")
    result = run_cli("ask", "What is SPINT?", "--bibtex", str(tmp_path / "no" / "such" / "dir.bib"),
                     env=env_for(server, seed_settings))
    assert result.returncode == 1 and result.stderr.startswith("error: Cannot write") and "Traceback" not in result.stderr
