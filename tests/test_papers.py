"""Loading paper sources: formats, venues, merging, and every bad input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from assistant.errors import InputError
from assistant.papers import load_papers, seed_files, venue_from_header

from .conftest import corpus_records, write_jsonl

ABSTRACT = (
    "We propose FooNet, a model for testing loaders that reads abstracts from files and checks that every "
    "field is carried through to the index with its venue, year and title intact."
)


def other(n: int) -> str:
    return ABSTRACT.replace("FooNet", f"Foo{n}Net")


def test_seed_venues_and_counts() -> None:
    papers = load_papers(seed_files()).papers
    venues = [p.venue for p in papers]
    assert venues.count("NeurIPS 2025") == 19 and venues.count("ICLR 2026") == 19
    assert {p.year for p in papers} == {2025, 2026}
    assert venue_from_header("NeurIPS 2025 论文列表") == "NeurIPS 2025"
    assert venue_from_header("ICLR 2026 Papers") == "ICLR 2026"


def test_structured_formats_carry_fields(tmp_path: Path) -> None:
    record = {"id": "abc123", "title": "Foo $\\textbf{Net}$", "abstract": ABSTRACT, "authors": ["A. One", "B. Two"],
              "keywords": ["x", "y"], "venue": "ICML 2024", "primary_area": "testing", "source_url": "https://o.org/1",
              "status": "Poster"}
    write_jsonl(tmp_path / "a.jsonl", [record])
    (tmp_path / "b.json").write_text(json.dumps([{**record, "id": "b1", "abstract": other(1)}]), encoding="utf-8")
    (tmp_path / "c.csv").write_text(f'title,abstract,venue,year\nCSV paper,"{other(2)}",KDD,2023\n', encoding="utf-8")
    papers = {p.paper_id: p for p in load_papers([tmp_path]).papers}
    first = papers["abc123"]
    assert first.title == "Foo Net" and first.authors == "A. One; B. Two" and first.keywords == "x; y"
    assert (first.venue, first.year, first.url, first.status) == ("ICML 2024", 2024, "https://o.org/1", "Poster")
    assert papers["b1"].abstract == other(1)
    csv_paper = next(p for p in papers.values() if p.title == "CSV paper")
    assert (csv_paper.venue, csv_paper.year) == ("KDD", 2023)
    assert csv_paper.paper_id == csv_paper.key  # no source id: the content key


def test_seed_and_corpus_record_are_one_paper_with_the_richer_metadata(tmp_path: Path) -> None:
    seeds = load_papers(seed_files()).papers
    keys = {p.key for p in seeds}
    from assistant.cleaning import content_key

    matches = [r for r in corpus_records() if content_key(r["abstract"]) in keys]
    assert len(matches) == 19  # every ICLR seed is in the ICLR corpus under its real id
    result = load_papers([*seed_files(), write_jsonl(tmp_path / "corpus.jsonl", matches)])
    assert len(result.papers) == 38 and result.merged == len(matches)
    merged = {p.key: p for p in result.papers}
    for record in matches:
        paper = merged[content_key(record["abstract"])]
        assert paper.paper_id == record["id"] and paper.title and paper.venue == "ICLR 2026"


def test_duplicates_inside_one_file_are_merged(tmp_path: Path) -> None:
    path = tmp_path / "list.txt"
    path.write_text(f"ICML 2024 papers\n\n{ABSTRACT}\n\n{ABSTRACT}\n\n{other(3)}\n", encoding="utf-8")
    result = load_papers([path])
    assert len(result.papers) == 2 and result.merged == 1


def write(tmp_path: Path, name: str, data: bytes | str) -> Path:
    path = tmp_path / name
    path.write_bytes(data.encode("utf-8") if isinstance(data, str) else data)
    return path


@pytest.mark.parametrize(
    ("name", "data", "message"),
    [
        ("empty.txt", "", "is empty"),
        ("blank.jsonl", "\n\n  \n", "is empty"),
        ("bin.txt", b"\x89PNG\r\n\x1a\n\x00\x00\x00binary", "binary file"),
        ("latin1.txt", "ICLR 2026\n\nCaf\u00e9 abstract ".encode("latin-1") * 40, "not UTF-8"),
        ("header.txt", "ICLR 2026 Papers\n\n", "header line but no abstracts"),
        ("bad.json", "[{\"abstract\": ", "not valid JSON"),
        ("obj.json", '{"abstract": "x"}', "JSON array"),
        ("nocol.csv", "title,summary\nA,B\n", "no 'abstract' column"),
        ("notes.md", "# hello", "not a supported paper file"),
    ],
)
def test_bad_files_give_one_line_errors(tmp_path: Path, name: str, data: bytes | str, message: str) -> None:
    with pytest.raises(InputError) as err:
        load_papers([write(tmp_path, name, data)])
    assert message in str(err.value) and "\n" not in str(err.value)


def test_missing_path_and_folder_without_papers(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="No such file or folder"):
        load_papers([tmp_path / "nope.jsonl"])
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "README.md").write_text("hi", encoding="utf-8")
    with pytest.raises(InputError, match="holds no paper files"):
        load_papers([tmp_path / "sub"])


def test_bad_records_are_skipped_with_file_and_line(tmp_path: Path) -> None:
    lines = [
        json.dumps({"id": "ok1", "abstract": ABSTRACT}),
        "{not json",
        json.dumps({"id": "noabs", "title": "No abstract"}),
        json.dumps({"id": "short", "abstract": "Too short."}),
        json.dumps({"id": "huge", "abstract": "word " * 300_000}),
        json.dumps(["not", "an", "object"]),
        json.dumps({"id": "ok2", "abstract": other(4)}),
        json.dumps({"id": "ok1", "abstract": other(5)}),
    ]
    path = write(tmp_path, "mixed.jsonl", "\n".join(lines) + "\n")
    result = load_papers([path])
    assert sorted(p.paper_id for p in result.papers) == ["ok1", "ok2"]
    reasons = {s.where: s.reason for s in result.skipped}
    assert "not valid JSON" in reasons["mixed.jsonl:2"]
    assert "no 'abstract'" in reasons["mixed.jsonl:3"]
    assert "not an abstract" in reasons["mixed.jsonl:4"]
    assert "too long" in reasons["mixed.jsonl:5"] or "longer than" in reasons["mixed.jsonl:5"]
    assert "not an object" in reasons["mixed.jsonl:6"]
    assert "already used" in reasons["mixed.jsonl:8"]


def test_one_megabyte_line_in_a_list_is_skipped(tmp_path: Path) -> None:
    path = write(tmp_path, "big.txt", f"ICLR 2026\n\n{ABSTRACT}\n\n{'x' * 1_048_576}\n")
    result = load_papers([path])
    assert len(result.papers) == 1
    assert result.skipped[0].where == "big.txt:5" and "longer than any abstract" in result.skipped[0].reason


def test_only_bad_records_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="No usable abstracts"):
        load_papers([write(tmp_path, "bad.jsonl", '{"title": "x"}\n')])
