"""Reference-manager formats: BibTeX and RIS in (as paper records), BibTeX out.

Researchers keep their reading in Zotero, Mendeley or JabRef; these exports
are how a collection gets in, and how the references of an answer get back
into a paper. Parsing is left to maintained parsers (bibtexparser 2 for
BibTeX, with its ``@string`` macros, comments and nested braces; rispy for
RIS); their entries become the same records a JSONL file holds, and
``papers.py`` cleans and checks them like any other. An entry without an
abstract cannot be answered from, so it is skipped and counted, not indexed.
"""

from __future__ import annotations

import hashlib
import logging
import re
import unicodedata
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from assistant.cleaning import clean_text
from assistant.errors import InputError

if TYPE_CHECKING:
    from assistant.answer import AnswerResult
    from assistant.papers import Paper, Skip

# The splitter logs each broken block itself; we report it as a skipped entry instead.
logging.getLogger("bibtexparser").setLevel(logging.CRITICAL)

Format = Literal["bibtex", "ris"]
BIBTEX_SUFFIXES = (".bib", ".bibtex")
#: Suffixes whose format is known; only other files are recognised by content.
_OTHER_FORMATS = (".jsonl", ".json", ".csv")
_BIBTEX_HEAD = re.compile(r"@\s*[A-Za-z]+\s*[{(]")
_RIS_HEAD = re.compile(r"TY {2}- ")
#: Entry keys of skipped entries named in the skip line (the rest are counted).
NAMED_SKIPS = 5
#: RIS reference types that are BibTeX @article / @inproceedings; others are @misc.
_RIS_TYPES = {"JOUR": "article", "JFULL": "article", "MGZN": "article", "CONF": "inproceedings",
              "CPAPER": "inproceedings", "CHAP": "incollection", "BOOK": "book", "THES": "phdthesis",
              "RPRT": "techreport"}
_DOI_PREFIX = re.compile(r"^(?:https?://(?:dx\.)?doi\.org/|doi:\s*)", re.IGNORECASE)
_KEY_WORD = re.compile(r"[a-z0-9]+")
_TITLE_STOPWORDS = {"a", "an", "the", "on", "of", "in", "for", "to", "and", "towards", "toward", "when", "how", "what",
                    "why", "is", "are", "do", "does", "can"}
_BIBTEX_SPECIALS = str.maketrans({"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "#": r"\#", "_": r"\_",
                                  "$": r"\$", "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}",
                                  "^": r"\textasciicircum{}"})


# -- reading --------------------------------------------------------------------
def format_of(path: Path, text: str) -> Format | None:
    """BibTeX or RIS by the file's suffix, else by its first line (a Zotero
    export saved as .txt, or with no suffix at all); None for other formats."""
    suffix = path.suffix.lower()
    if suffix in BIBTEX_SUFFIXES:
        return "bibtex"
    if suffix == ".ris":
        return "ris"
    if suffix in _OTHER_FORMATS:
        return None
    for line in text.splitlines():
        if not line.strip() or line.lstrip().startswith("%"):
            continue  # JabRef and others open with % comments
        if _BIBTEX_HEAD.match(line.lstrip()):
            return "bibtex"
        if _RIS_HEAD.match(line):
            return "ris"
        return None
    return None


def bibtex_records(path: Path, text: str, skipped: list[Skip]) -> Iterator[tuple[str, dict[str, Any]]]:
    """The entries of a BibTeX file as paper records: ``@string`` macros
    resolved, outer braces removed, LaTeX left for ``clean_text``. An entry
    whose key repeats an earlier one is still read: the same abstract merges,
    another abstract under the key is skipped by the id check."""
    import bibtexparser
    from bibtexparser.model import DuplicateBlockKeyBlock, Entry

    from assistant.papers import Skip

    library = bibtexparser.parse_string(text)
    entries: list[Entry] = list(library.entries)
    for block in library.failed_blocks:
        if isinstance(block, DuplicateBlockKeyBlock) and isinstance(block.ignore_error_block, Entry):
            entries.append(block.ignore_error_block)
        else:
            skipped.append(Skip(_bib_where(path, block.start_line),
                                f"not a valid BibTeX entry ({_one_line(block.error)}): fix it in your reference manager"))
    if not entries and not library.failed_blocks:
        raise InputError(f"{path} holds no BibTeX entries (@article{{key, title = ...}}): is it a BibTeX file?")
    no_abstract: list[str] = []
    for entry in sorted(entries, key=lambda e: e.start_line or 0):
        fields = {f.key.lower(): f.value for f in entry.fields if isinstance(f.value, str)}
        if not fields.get("abstract", "").strip():
            no_abstract.append(entry.key)
            continue
        venue = fields.get("booktitle") or fields.get("journal") or fields.get("journaltitle") or (
            "arXiv" if "arxiv" in (fields.get("eprinttype", "") + fields.get("archiveprefix", "")).lower() else "")
        yield f"{_bib_where(path, entry.start_line)} ({entry.key})", {
            "id": entry.key, "cite_key": entry.key, "entry_type": entry.entry_type.lower(),
            "title": fields.get("title", ""), "abstract": fields["abstract"],
            "authors": _names(fields.get("author") or fields.get("editor", "")),
            "keywords": _keywords(re.split(r"[,;]", fields.get("keywords", ""))),
            "venue": venue, "year": fields.get("year") or fields.get("date"),
            "url": fields.get("url", ""), "doi": _doi(fields.get("doi", "")),
        }
    _skip_missing(path, no_abstract, skipped)


def ris_records(path: Path, text: str, skipped: list[Skip]) -> Iterator[tuple[str, dict[str, Any]]]:
    """The references of a RIS file (Zotero, EndNote, Mendeley) as paper records."""
    import rispy

    try:
        references = rispy.loads(text.replace("\r\n", "\n"))
    except Exception as exc:  # rispy raises plain errors on malformed tags
        raise InputError(f"{path} is not valid RIS ({_one_line(exc)}): export it again from your reference manager.") from exc
    if not references:
        raise InputError(f"{path} holds no RIS references (TY  - ... ER  -): is it a RIS file?")
    no_abstract: list[str] = []
    for number, ref in enumerate(references, start=1):
        where = f"{path.name}[{number}]"
        abstract = _first(ref.get("abstract"), ref.get("notes_abstract"))
        title = _first(ref.get("title"), ref.get("primary_title"), ref.get("short_title"))
        if not abstract.strip():
            no_abstract.append(f"'{title[:40]}'" if title else where)
            continue
        urls = ref.get("urls") or []
        yield where, {
            "entry_type": _RIS_TYPES.get(str(ref.get("type_of_reference", "")).upper(), "misc"),
            "title": title, "abstract": abstract,
            "authors": _names(" and ".join([*ref.get("first_authors", []), *ref.get("authors", [])])),
            "keywords": _keywords(ref.get("keywords") or []),
            "venue": _first(ref.get("secondary_title"), ref.get("journal_name"), ref.get("alternate_title3"),
                            ref.get("alternate_title1")),
            "year": _first(ref.get("year"), ref.get("publication_year"), ref.get("date")),
            "url": urls[0] if isinstance(urls, list) and urls else _first(urls), "doi": _doi(_first(ref.get("doi"))),
        }
    _skip_missing(path, no_abstract, skipped)


def _skip_missing(path: Path, names: list[str], skipped: list[Skip]) -> None:
    """One skip line for all entries without an abstract (a reference library
    often has hundreds), naming the first few."""
    from assistant.papers import Skip

    if names:
        shown = ", ".join(names[:NAMED_SKIPS]) + (", ..." if len(names) > NAMED_SKIPS else "")
        noun = "entry" if len(names) == 1 else "entries"
        skipped.append(Skip(path.name, f"{len(names)} {noun} with no abstract ({shown})", count=len(names)))


def _bib_where(path: Path, start_line: int | None) -> str:
    return f"{path.name}:{(start_line or 0) + 1}"


def _one_line(exc: BaseException) -> str:
    """An error as a short line: bibtexparser's own errors keep their text in attributes."""
    text = getattr(exc, "abort_reason", None) or getattr(exc, "message", None) or str(exc)
    return " ".join(str(text).split())[:160] or type(exc).__name__


def _first(*values: Any) -> str:
    """The first non-empty value, as text (RIS tags may repeat as lists)."""
    for value in values:
        if isinstance(value, list):
            value = " ".join(str(v) for v in value)
        if value and str(value).strip():
            return str(value).strip()
    return ""


def _names(value: str) -> str:
    """BibTeX names ('Vaswani, Ashish and G{\\"o}del, Kurt') as '; '-joined
    'First Last' names, like the other sources' authors."""
    from bibtexparser.middlewares.names import parse_single_name_into_parts, split_multiple_persons_names

    names = []
    for name in split_multiple_persons_names(value) if value.strip() else []:
        try:
            name = parse_single_name_into_parts(name, strict=False).merge_first_name_first
        except ValueError:
            pass  # keep the name as written
        if clean_text(name):
            names.append(clean_text(name))
    return "; ".join(names)


def _keywords(values: Iterable[str]) -> str:
    return "; ".join(k for k in (clean_text(v) for v in values) if k)


def _doi(value: str) -> str:
    return _DOI_PREFIX.sub("", value.strip())


# -- writing ----------------------------------------------------------------------
def cite_key(paper: Paper) -> str:
    """The paper's BibTeX key: its own key when it came from BibTeX, else a
    stable one from the first author's surname (or the title's first word),
    the year and a short hash of the paper id ('vaswani2017a3f9')."""
    if paper.cite_key:
        return paper.cite_key
    surname = paper.authors.split(";")[0].split()[-1:] if paper.authors.strip() else []
    words = [w for w in _KEY_WORD.findall(_ascii(" ".join(surname) or paper.title or paper.name))
             if w not in _TITLE_STOPWORDS]
    digest = hashlib.sha1(paper.paper_id.encode("utf-8")).hexdigest()[:4]
    return f"{(words or ['paper'])[0]}{paper.year or ''}{digest}"


def cite_keys(papers: Sequence[Paper]) -> dict[str, str]:
    """Paper id -> BibTeX key, distinct within one export (two sources may
    have used the same key for different papers)."""
    keys: dict[str, str] = {}
    used: set[str] = set()
    for paper in papers:
        key, n = cite_key(paper), 1
        while key.casefold() in used:
            n += 1
            key = f"{cite_key(paper)}-{n}"
        used.add(key.casefold())
        keys[paper.paper_id] = key
    return keys


def to_bibtex(papers: Sequence[Paper]) -> str:
    """The papers as a BibTeX file, written by bibtexparser. Titles keep their
    capitalisation (double braces); a name derived from the abstract, for a
    paper whose source gave no title, is said to be one."""
    import bibtexparser
    from bibtexparser.library import Library
    from bibtexparser.model import Entry, Field

    library = Library()
    keys = cite_keys(papers)
    for paper in papers:
        entry_type = paper.entry_type or ("inproceedings" if paper.venue else "misc")
        venue_field = {"article": "journal", "inproceedings": "booktitle", "incollection": "booktitle",
                       "conference": "booktitle"}.get(entry_type, "howpublished")
        values = {
            "title": "{" + _escape(paper.title or paper.name) + "}",
            "author": " and ".join(_escape(a.strip()) for a in paper.authors.split(";") if a.strip()),
            venue_field: _escape(paper.venue),
            "year": str(paper.year or ""),
            "doi": _escape(paper.doi),
            "url": paper.url,
            "keywords": _escape(paper.keywords.replace("; ", ", ")),
            "abstract": _escape(paper.abstract),
            "note": "" if paper.title else "Title not given by the source: name derived from the abstract",
        }
        library.add(Entry(entry_type, keys[paper.paper_id], [Field(k, v) for k, v in values.items() if v]))
    return bibtexparser.write_string(library)


def _escape(text: str) -> str:
    """Plain text as a BibTeX value: LaTeX's special characters escaped."""
    return text.translate(_BIBTEX_SPECIALS)


def _ascii(text: str) -> str:
    return unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii").casefold()


def answer_references(result: AnswerResult, papers: Mapping[str, Paper]) -> list[Paper]:
    """The papers an answer lists under References, in its order: for a
    comparison the two papers, for a topic every paper shown."""
    return [papers[s["paper_id"]] for s in result.sources if s["paper_id"] in papers]


def answer_exports(result: AnswerResult, papers: Mapping[str, Paper]) -> tuple[str, str]:
    """An answer as markdown whose references cite their BibTeX keys, and
    the BibTeX file with those keys: what the CLI writes and the UI offers."""
    references = answer_references(result, papers)
    return result.to_markdown(cite_keys(references)), to_bibtex(references)
