"""Read paper sources into clean, named, de-duplicated ``Paper`` records.

Three kinds of source: the bundled plain-text lists (a header line naming the
list, then one abstract per non-empty line), structured records (JSONL, a
JSON array, or CSV) with at least an ``abstract``, and reference-manager
exports (BibTeX, RIS: read in ``references.py``). Problems with a
whole file stop the load with one clear message, before anything touches the
index; problems with one record skip that record and say why.
"""

from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from assistant.cleaning import clean_text, content_key
from assistant.errors import InputError

SEEDS_DIR = Path(__file__).parent / "data" / "seeds"
SUPPORTED_SUFFIXES = (".txt", ".jsonl", ".json", ".csv", ".bib", ".bibtex", ".ris")
SUPPORTED_TEXT = ".txt, .jsonl, .json, .csv, .bib or .ris"
#: Longer than any real abstract: such a line is a broken file, not a paper.
MAX_ABSTRACT_CHARS = 20_000
#: Fewer words than this cannot be an abstract (stray notes, headings).
MIN_ABSTRACT_WORDS = 20
#: A plain-text line with at most this many words may be the list's header.
MAX_HEADER_WORDS = 15

_VENUE_RE = re.compile(r"([A-Za-z][A-Za-z&-]*(?:\s+[A-Z][A-Za-z&-]*)*)\s*'?\s*((?:19|20)\d{2})")
_YEAR_RE = re.compile(r"\b((?:19|20)\d{2})\b")


@dataclass(frozen=True)
class Paper:
    """One paper: what the sources say about it, cleaned, plus its identity.

    ``paper_id`` is the source id when one is given, else the content key, so
    it is stable across runs; ``key`` identifies the abstract's content and is
    how the same paper met in two sources is recognised.
    """

    paper_id: str
    key: str
    abstract: str
    abstract_raw: str
    source: str
    title: str = ""
    name: str = ""
    alias: str = ""
    authors: str = ""
    keywords: str = ""
    venue: str = ""
    year: int | None = None
    primary_area: str = ""
    url: str = ""
    status: str = ""
    cite_key: str = ""
    doi: str = ""
    entry_type: str = ""

#: Fields added after indexes were first built: hashed only when set, so that
#: adding them did not make every stored paper look changed.
LATER_FIELDS = ("cite_key", "doi", "entry_type")


@dataclass
class Skip:
    """A record left out of the load, and why (shown in ingest's summary)."""

    where: str
    reason: str
    count: int = 1


@dataclass
class LoadResult:
    """Papers ready to index plus what was skipped or merged on the way."""

    papers: list[Paper]
    skipped: list[Skip] = field(default_factory=list)
    merged: int = 0
    files: list[Path] = field(default_factory=list)


def venue_from_header(header: str) -> str:
    """'NeurIPS 2025 论文列表' -> 'NeurIPS 2025': the conference name and year in the line."""
    match = _VENUE_RE.search(header)
    if match:
        return f"{match.group(1).split()[-1]} {match.group(2)}"
    return clean_text(header)[:80]


def _year_of(value: Any, venue: str) -> int | None:
    """A year from an explicit field, else from the venue string."""
    for text in (str(value) if value not in (None, "") else "", venue):
        match = _YEAR_RE.search(text)
        if match:
            return int(match.group(1))
    return None


def _joined(value: Any) -> str:
    """Lists become '; '-joined strings so Chroma metadata stays flat."""
    if value is None:
        return ""
    if isinstance(value, (list, tuple)):
        return "; ".join(str(v).strip() for v in value if str(v).strip())
    return str(value).strip()


def _read_text(path: Path) -> str:
    """The file as text, or a one-line InputError naming what is wrong with it."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise InputError(f"Cannot read {path}: {exc.strerror or exc}.") from exc
    if not data.strip():
        raise InputError(f"{path} is empty: give a file with paper abstracts.")
    if b"\x00" in data[:65536]:
        raise InputError(f"{path} is a binary file, not a paper list: give a {SUPPORTED_TEXT} file.")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InputError(
            f"{path} is not UTF-8 text (bad byte at offset {exc.start}): re-save it as UTF-8."
        ) from exc


def _check_abstract(text: str, where: str) -> Skip | None:
    """Why an abstract cannot be indexed, or None when it can."""
    if len(text) > MAX_ABSTRACT_CHARS:
        return Skip(where, f"{len(text):,} characters, longer than any abstract (limit {MAX_ABSTRACT_CHARS:,})")
    if len(clean_text(text).split()) < MIN_ABSTRACT_WORDS:
        return Skip(where, f"fewer than {MIN_ABSTRACT_WORDS} words: not an abstract")
    return None


def _make_paper(abstract: str, source: str, **fields: Any) -> Paper:
    """A Paper with its cleaned text and identity filled in."""
    key = content_key(abstract)
    source_id = _joined(fields.pop("id", None))
    return Paper(paper_id=source_id or key, key=key, abstract=clean_text(abstract),
                 abstract_raw=abstract, source=source, **fields)


def _load_plain(path: Path, text: str, skipped: list[Skip]) -> Iterator[Paper]:
    """The bundled list format: header line, then one abstract per line."""
    lines = [(n, line.strip()) for n, line in enumerate(text.splitlines(), start=1) if line.strip()]
    venue = ""
    if lines and len(lines[0][1].split()) <= MAX_HEADER_WORDS:
        venue = venue_from_header(lines[0][1])
        lines = lines[1:]
    if not lines:
        raise InputError(f"{path} has a header line but no abstracts: add one abstract per line below it.")
    year = _year_of(None, venue)
    for number, line in lines:
        where = f"{path.name}:{number}"
        problem = _check_abstract(line, where)
        if problem:
            skipped.append(problem)
            continue
        yield _make_paper(line, where, venue=venue, year=year)


def _records_jsonl(path: Path, text: str, skipped: list[Skip]) -> Iterator[tuple[str, Any]]:
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        where = f"{path.name}:{number}"
        if len(line) > MAX_ABSTRACT_CHARS * 5:
            skipped.append(Skip(where, f"line of {len(line):,} characters is too long to be one record"))
            continue
        try:
            yield where, json.loads(line)
        except (json.JSONDecodeError, RecursionError) as exc:
            msg = getattr(exc, "msg", "nesting too deep")
            skipped.append(Skip(where, f"not valid JSON ({msg}): fix or remove this line"))


def _records_json(path: Path, text: str) -> Iterator[tuple[str, Any]]:
    try:
        data = json.loads(text)
    except (json.JSONDecodeError, RecursionError) as exc:
        where = f"line {exc.lineno}" if isinstance(exc, json.JSONDecodeError) else "nesting too deep"
        raise InputError(f"{path} is not valid JSON ({where}): fix it or use JSONL.") from exc
    if isinstance(data, dict) and isinstance(data.get("papers"), list):
        data = data["papers"]
    if not isinstance(data, list):
        raise InputError(f"{path} must hold a JSON array of paper records (objects with an 'abstract').")
    for number, record in enumerate(data, start=1):
        yield f"{path.name}[{number}]", record


def _records_csv(path: Path, text: str) -> Iterator[tuple[str, Any]]:
    csv.field_size_limit(MAX_ABSTRACT_CHARS * 5)
    reader = csv.DictReader(io.StringIO(text, newline=""))
    try:
        header = [(f or "").strip().lower() for f in reader.fieldnames or []]
        if "abstract" not in header:
            raise InputError(f"{path} has no 'abstract' column: the CSV header must name one.")
        for number, row in enumerate(reader, start=2):
            yield f"{path.name}:{number}", {(k or "").strip().lower(): v for k, v in row.items()}
    except csv.Error as exc:
        raise InputError(f"{path} is not valid CSV ({exc}): fix the file.") from exc


def _papers_from_records(records: Iterable[tuple[str, Any]], skipped: list[Skip]) -> Iterator[Paper]:
    """Structured records -> Papers; a record without an abstract is skipped."""
    for where, record in records:
        if not isinstance(record, dict):
            skipped.append(Skip(where, "not an object with an 'abstract' field"))
            continue
        abstract = record.get("abstract")
        if not isinstance(abstract, str) or not abstract.strip():
            skipped.append(Skip(where, "no 'abstract' field: every record needs one"))
            continue
        problem = _check_abstract(abstract, where)
        if problem:
            skipped.append(problem)
            continue
        venue = clean_text(_joined(record.get("venue")))
        yield _make_paper(
            abstract.strip(),
            where,
            id=record.get("id") or record.get("paper_id"),
            title=clean_text(_joined(record.get("title"))),
            authors=_joined(record.get("authors")),
            keywords=_joined(record.get("keywords")),
            venue=venue,
            year=_year_of(record.get("year"), venue),
            primary_area=_joined(record.get("primary_area")),
            url=_joined(record.get("url") or record.get("source_url")),
            status=_joined(record.get("status")),
            cite_key=_joined(record.get("cite_key")),
            doi=_joined(record.get("doi")),
            entry_type=_joined(record.get("entry_type")),
        )


def _load_file(path: Path, skipped: list[Skip]) -> list[Paper]:
    """One file's papers, read by the format its suffix names (a reference
    export is also recognised by its content, whatever its suffix)."""
    from assistant import references

    text = _read_text(path)
    suffix = path.suffix.lower()
    kind = references.format_of(path, text)
    if kind == "bibtex":
        records = references.bibtex_records(path, text, skipped)
    elif kind == "ris":
        records = references.ris_records(path, text, skipped)
    elif suffix == ".txt":
        return list(_load_plain(path, text, skipped))
    elif suffix == ".jsonl":
        records = _records_jsonl(path, text, skipped)
    elif suffix == ".json":
        records = _records_json(path, text)
    elif suffix == ".csv":
        records = _records_csv(path, text)
    else:
        raise InputError(f"{path} is not a supported paper file: use {SUPPORTED_TEXT}.")
    return list(_papers_from_records(records, skipped))


def expand(paths: Iterable[Path]) -> list[Path]:
    """Files named directly plus the supported files inside named folders."""
    files: list[Path] = []
    for path in paths:
        if not path.exists():
            raise InputError(f"No such file or folder: {path}.")
        if path.is_dir():
            found = sorted(p for p in path.rglob("*") if p.is_file() and p.suffix.lower() in SUPPORTED_SUFFIXES)
            if not found:
                raise InputError(f"{path} holds no paper files: put {SUPPORTED_TEXT} files in it.")
            files.extend(found)
        else:  # a file named directly: an unknown suffix is checked by content when it is read
            files.append(path)
    return list(dict.fromkeys(files))


def merge(a: Paper, b: Paper) -> Paper:
    """One record from two sightings of the same abstract: a real title and a
    real id win, and empty fields are filled from the other."""
    rich, poor = (b, a) if (b.title and not a.title) or (b.paper_id != b.key and a.paper_id == a.key) else (a, b)
    filled = {
        name: getattr(poor, name)
        for name in ("title", "authors", "keywords", "venue", "primary_area", "url", "status", "year", *LATER_FIELDS)
        if not getattr(rich, name) and getattr(poor, name)
    }
    return replace(rich, **filled)


def load_papers(paths: Iterable[Path]) -> LoadResult:
    """Read every source and merge duplicate abstracts (naming happens per collection, at ingest)."""
    files = expand(paths)
    skipped: list[Skip] = []
    by_key: dict[str, Paper] = {}
    merged = 0
    for path in files:
        for paper in _load_file(path, skipped):
            if paper.key in by_key:
                by_key[paper.key] = merge(by_key[paper.key], paper)
                merged += 1
            else:
                by_key[paper.key] = paper
    papers = _dedupe_ids(list(by_key.values()), skipped)
    if not papers:
        reasons = "; ".join(f"{s.where}: {s.reason}" for s in skipped[:3])
        raise InputError(f"No usable abstracts in {', '.join(map(str, files))}" + (f" ({reasons})." if reasons else "."))
    return LoadResult(papers=papers, skipped=skipped, merged=merged, files=files)


def _dedupe_ids(papers: list[Paper], skipped: list[Skip]) -> list[Paper]:
    """Two different abstracts under one source id: keep the first, skip the rest."""
    seen: dict[str, Paper] = {}
    for paper in papers:
        if paper.paper_id in seen:
            skipped.append(Skip(paper.source, f"id {paper.paper_id} already used by {seen[paper.paper_id].source} for another abstract"))
            continue
        seen[paper.paper_id] = paper
    return list(seen.values())


def seed_files() -> list[Path]:
    """The bundled collection, ingested when no path is given."""
    return sorted(SEEDS_DIR.glob("*.txt"))
