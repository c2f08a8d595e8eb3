"""Hostile input for the loaders: random bytes, huge lines, odd unicode, deep
JSON. Every outcome is papers, skipped records, or one InputError line, and
an index fed the result stays consistent."""

from __future__ import annotations

import json
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from assistant.cleaning import clean_text, content_key
from assistant.errors import InputError
from assistant.papers import load_papers

SUFFIXES = st.sampled_from([".txt", ".jsonl", ".json", ".csv"])
FUZZ = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=200),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.sampled_from(["abstract", "title", "id", "venue",
                                                                                   "authors", "year", "x"]), inner,
                                                                 max_size=5),
    max_leaves=30,
)


def load_or_error(path: Path) -> None:
    try:
        result = load_papers([path])
    except InputError as exc:
        assert "\n" not in str(exc) and str(exc)
        return
    for paper in result.papers:
        assert paper.abstract and paper.key == content_key(paper.abstract_raw)
        assert paper.paper_id and "\n" not in paper.name


@FUZZ
@given(data=st.binary(max_size=4000), suffix=SUFFIXES)
def test_random_bytes(tmp_path: Path, data: bytes, suffix: str) -> None:
    path = tmp_path / f"f{suffix}"
    path.write_bytes(data)
    load_or_error(path)


@FUZZ
@given(text=st.text(alphabet=st.characters(codec="utf-8", exclude_categories=["Cs"]), max_size=3000), suffix=SUFFIXES)
def test_odd_unicode(tmp_path: Path, text: str, suffix: str) -> None:
    path = tmp_path / f"u{suffix}"
    path.write_text(text, encoding="utf-8")
    load_or_error(path)


@FUZZ
@given(records=st.lists(JSON_VALUES, max_size=8))
def test_random_json_records(tmp_path: Path, records: list) -> None:
    path = tmp_path / "r.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    load_or_error(path)
    array = tmp_path / "r.json"
    array.write_text(json.dumps(records), encoding="utf-8")
    load_or_error(array)


def test_deep_json_and_huge_lines(tmp_path: Path) -> None:
    deep = tmp_path / "deep.jsonl"
    deep.write_text("[" * 100_000 + "]" * 100_000 + "\n" + json.dumps({"abstract": "word " * 40}) + "\n", encoding="utf-8")
    result = load_papers([deep])
    assert len(result.papers) == 1 and result.skipped[0].where == "deep.jsonl:1"
    deep_array = tmp_path / "deep.json"
    deep_array.write_text("[" * 100_000 + "]" * 100_000, encoding="utf-8")
    load_or_error(deep_array)
    huge = tmp_path / "huge.txt"
    huge.write_text("ICLR 2026\n\n" + "ab" * 3_000_000 + "\n", encoding="utf-8")
    load_or_error(huge)


@FUZZ
@given(text=st.text(max_size=500))
def test_cleaning_never_fails(text: str) -> None:
    cleaned = clean_text(text)
    assert "\n" not in cleaned and cleaned == cleaned.strip()
