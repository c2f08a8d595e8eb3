"""The topic map of a collection: a few broad areas, finer topics inside
them, their keywords and labels, and a 2-D map, kept beside the index.

Built from the vectors already in Chroma (nothing is re-embedded) with
k-means and Ward agglomeration, deterministic for a fixed seed and a few
seconds at 6k papers. Sizes follow the collection: about 1.25·√N topics (≈100 at 6k,
8 at 38) grouped into about a fifth as many areas. The map records which
index state it was built from, so every command can say when papers were
added or changed since and how to rebuild.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import math
import os
import tempfile
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from tqdm import tqdm

from assistant.embedding_model import DIMENSION, MODEL_ID
from assistant.errors import IndexMissing, InputError, NotFound, StorageError
from assistant.index import PaperIndex, venue_matches
from assistant.papers import Paper
from assistant.records import paper_hash, paper_of
from assistant.settings import TopicSettings
from assistant.topic_labels import LabelCache, TermCounts, keyword_labels, label_prompt, llm_labels

#: Format of the stored map; another number means "rebuild".
SCHEMA = 1
SEED = 0
#: Chunk records read from Chroma per call.
PAGE = 5000


@dataclass
class Topic:
    """A fine topic: its papers closest to its centre first."""

    topic_id: str
    label: str
    keywords: list[str]
    size: int
    papers: list[str]
    representative: list[str]
    keyword_label: str = ""


@dataclass
class Area:
    """A broad area and the topics inside it, largest first."""

    area_id: str
    label: str
    keywords: list[str]
    size: int
    topics: list[Topic]
    keyword_label: str = ""


@dataclass
class TopicMap:
    """What `topics build` stores: the index state it came from, the areas,
    and each paper's place on the 2-D map."""

    built_from: dict[str, Any]
    areas: list[Area]
    points: dict[str, list[float]] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        """The ``topics --json`` contract."""
        drop = {"keyword_label"}
        return {"built_from": self.built_from, "areas": [
            {**{k: v for k, v in asdict(a).items() if k not in drop | {"topics"}},
             "topics": [{k: v for k, v in asdict(t).items() if k not in drop} for t in a.topics]}
            for a in self.areas]}

    def find(self, topic_id: str) -> tuple[Area, Topic]:
        """The topic called ``topic_id`` ('3.2') and its area; NotFound lists the valid ids."""
        for area in self.areas:
            for topic in area.topics:
                if topic.topic_id == topic_id.strip():
                    return area, topic
        ids = [t.topic_id for a in self.areas for t in a.topics]
        raise NotFound(f"No topic '{topic_id}' in the map: topic ids run {ids[0]} … {ids[-1]} "
                       "(see `paper-assistant topics`).")

    def topic_of(self) -> dict[str, tuple[Area, Topic]]:
        """Paper id → its area and topic."""
        return {pid: (a, t) for a in self.areas for t in a.topics for pid in t.papers}


# -- storage --------------------------------------------------------------------

def topics_path(storage: Path, venue: str | None) -> Path:
    """One map per scope: the whole collection, or one venue (spelling forgiven)."""
    scope = "".join(venue.split()).casefold() if venue else "all"
    safe = "".join(c if c.isalnum() or c in "-_" else "_" for c in scope)
    return storage / "topics" / f"{safe}.json"


def write_atomic(path: Path, text: str) -> None:
    """Write ``text`` to a temp file beside ``path``, then rename it over: a
    reader sees the old file or the new one, never half of one."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                handle.write(text)
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
    except OSError as exc:
        raise StorageError(f"Cannot write {path}: {(exc.strerror or str(exc)).lower()}; the previous file, if any, "
                           "is unchanged.") from None


def save(topic_map: TopicMap, path: Path) -> None:
    payload = {"schema": SCHEMA, **topic_map.to_json(),
               "areas": [asdict(a) for a in topic_map.areas], "points": topic_map.points}
    write_atomic(path, json.dumps(payload, ensure_ascii=False))


def load(path: Path, venue: str | None = None) -> TopicMap:
    """The stored map; one line saying how to build it when it is missing or unreadable."""
    build = "paper-assistant topics build" + (f" --venue '{venue}'" if venue else "")
    if not path.exists():
        raise IndexMissing(f"No topic map{f' for {venue}' if venue else ''} in {path.parent.parent}: "
                           f"run `{build}` first.")
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
        if raw.get("schema") != SCHEMA:
            raise ValueError(f"format {raw.get('schema')}, expected {SCHEMA}")
        areas = [Area(**{**a, "topics": [Topic(**t) for t in a["topics"]]}) for a in raw["areas"]]
        return TopicMap(raw["built_from"], areas, raw.get("points", {}))
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise InputError(f"The topic map {path} cannot be read ({exc}): run `{build}` to rebuild it.") from None


# -- index state ---------------------------------------------------------------------

def scope_papers(index: PaperIndex, venue: str | None) -> list[Paper]:
    """The papers a map covers, in a stable order (by id), or one line when none."""
    papers = sorted((p for p in index.stored_papers() if venue_matches(p.venue, venue)), key=lambda p: p.paper_id)
    if not papers:
        venues = sorted({p.venue or "(no venue)" for p in index.stored_papers()})
        raise InputError(f"No indexed papers from venue '{venue}'; venues: {', '.join(venues)}.")
    return papers


def index_state(papers: list[Paper], venue: str | None, chunk_tokens: int) -> dict[str, Any]:
    """What a map was built from: enough to tell later whether the papers changed."""
    listing = "\n".join(f"{p.paper_id}:{paper_hash(p, chunk_tokens)}" for p in papers)
    digest = hashlib.sha256(listing.encode()).hexdigest()
    return {"venue": venue, "papers": len(papers), "papers_hash": digest[:16], "embedding_model": MODEL_ID}


def stale_note(topic_map: TopicMap, index: PaperIndex) -> str | None:
    """A line saying the index changed since the map was built, and how to rebuild; None when current."""
    venue = topic_map.built_from.get("venue")
    try:
        now = index_state(scope_papers(index, venue), venue, index.settings.index.chunk_tokens)
    except InputError:
        now = {"papers": 0, "papers_hash": ""}
    if now["papers_hash"] == topic_map.built_from.get("papers_hash"):
        return None
    build = "paper-assistant topics build" + (f" --venue '{venue}'" if venue else "")
    return (f"the index changed since this topic map was built ({topic_map.built_from.get('papers')} papers then, "
            f"{now['papers']} now): run `{build}` to rebuild it.")


# -- building -----------------------------------------------------------------------

def paper_vectors(index: PaperIndex, papers: list[Paper]) -> np.ndarray:
    """Each paper's unit vector as stored in Chroma (the mean of its chunks')."""
    row = {p.paper_id: i for i, p in enumerate(papers)}
    sums = np.zeros((len(papers), DIMENSION), dtype=np.float64)
    counts = np.zeros(len(papers))
    col = index.collection()
    offset = 0
    with index.store.guard("read"):
        while True:
            page = col.get(include=["embeddings"], limit=PAGE, offset=offset)
            for chunk_id, vector in zip(page["ids"], page["embeddings"], strict=True):
                i = row.get(paper_of(chunk_id))
                if i is not None:
                    sums[i] += vector
                    counts[i] += 1
            if len(page["ids"]) < PAGE:
                break
            offset += PAGE
    if (counts == 0).any():
        raise StorageError(f"{int((counts == 0).sum())} papers have no vector in {index.location}: run "
                           "`paper-assistant ingest` again to complete the index.")
    sums /= counts[:, None]
    return sums / np.maximum(np.linalg.norm(sums, axis=1, keepdims=True), 1e-12)


def sizes_for(n: int, settings: TopicSettings) -> tuple[int, int]:
    """(areas, topics) for ``n`` papers: ``topics_per_sqrt_paper``·√n topics
    (1.25: 8 at 38 papers), ``topics_per_area`` of them an area."""
    topics = max(1, min(n, round(settings.topics_per_sqrt_paper * math.sqrt(n))))
    areas = max(1 if topics < 4 else 2, min(topics, round(topics / settings.topics_per_area)))
    return areas, topics


def cluster(vectors: np.ndarray, n_areas: int, n_topics: int) -> tuple[np.ndarray, np.ndarray]:
    """Area and topic of each paper: k-means into topics, then Ward
    agglomeration of the topic centres into areas, so every topic lies in
    exactly one area. Measured on ICLR 2026 (eval/bench_topics.py) this
    agrees with the primary areas at least as well as k-means straight into
    areas, in a seventh of the time."""
    from sklearn.cluster import AgglomerativeClustering, KMeans

    n_topics = min(n_topics, len(np.unique(vectors.round(6), axis=0)))
    if n_topics <= 1:
        return np.zeros(len(vectors), dtype=int), np.zeros(len(vectors), dtype=int)
    found = KMeans(n_clusters=n_topics, n_init=1, random_state=SEED).fit_predict(vectors)
    _, topics = np.unique(found, return_inverse=True)  # numbered 0..n-1 even if a cluster ended empty
    centres = np.stack([vectors[topics == t].mean(axis=0) for t in range(topics.max() + 1)])
    if n_areas <= 1:
        return np.zeros(len(vectors), dtype=int), topics
    areas = AgglomerativeClustering(n_clusters=min(n_areas, len(centres)), linkage="ward").fit_predict(centres)
    return areas[topics], topics


def project(vectors: np.ndarray) -> np.ndarray:
    """2-D positions for the map: the two principal components."""
    from sklearn.decomposition import PCA

    if len(vectors) < 3:
        return np.zeros((len(vectors), 2))
    return PCA(n_components=2, svd_solver="full").fit_transform(vectors)


def _closest_first(vectors: np.ndarray, members: np.ndarray) -> np.ndarray:
    """``members`` ordered by cosine to their centre (most typical first)."""
    centre = vectors[members].mean(axis=0)
    return members[np.argsort(-(vectors[members] @ centre), kind="stable")]


def build(index: PaperIndex, venue: str | None = None, representative: int = 12, progress: bool | None = None,
          llm: Callable[[], Any] | None = None) -> tuple[TopicMap, str | None]:
    """Cluster the indexed papers (all, or one venue's) into areas and topics,
    label them (with ``llm``, a client factory, when given) and place them on
    a 2-D map. Returns the map and, when the LLM failed, why."""
    start = time.perf_counter()
    papers = scope_papers(index, venue)
    bar = tqdm(total=5, desc="Topics", unit="step", disable=progress is False, leave=False)
    with bar:
        bar.set_postfix_str("reading vectors")
        vectors = paper_vectors(index, papers)
        bar.update(1)
        bar.set_postfix_str("clustering")
        n_areas, n_topics = sizes_for(len(papers), index.settings.topics)
        area_of, topic_of = cluster(vectors, n_areas, n_topics)
        bar.update(1)
        bar.set_postfix_str("labelling")
        counts = TermCounts.of(papers)
        area_names = keyword_labels(counts, area_of, int(area_of.max()) + 1)
        topic_names = keyword_labels(counts, topic_of, int(topic_of.max()) + 1,
                                     avoid=[area_names.keywords[a][:2] for a in _area_of_topic(area_of, topic_of)])
        bar.update(1)
        bar.set_postfix_str("placing on the map")
        xy = project(vectors)
        bar.update(1)
        areas = _assemble(papers, vectors, area_of, topic_of, topic_names, area_names, representative)
        error = _relabel_with_llm(areas, papers, index, llm, progress) if llm is not None else None
        bar.update(1)
    built_from = index_state(papers, venue, index.settings.index.chunk_tokens) | {
        "built_at": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "seconds": round(time.perf_counter() - start, 2), "areas": len(areas),
        "topics": sum(len(a.topics) for a in areas), "llm_labels": llm is not None and error is None,
    }
    points = {p.paper_id: [round(float(x), 4), round(float(y), 4)] for p, (x, y) in zip(papers, xy, strict=True)}
    return TopicMap(built_from, areas, points), error


def _area_of_topic(area_of: np.ndarray, topic_of: np.ndarray) -> list[int]:
    """Topic number → its area number."""
    owner = np.zeros(int(topic_of.max()) + 1, dtype=int)
    owner[topic_of] = area_of
    return owner.tolist()


def _assemble(papers: list[Paper], vectors: np.ndarray, area_of: np.ndarray, topic_of: np.ndarray,
              topic_names: Any, area_names: Any, representative: int) -> list[Area]:
    """Areas and topics numbered by size (largest first; ties by first paper
    id, for determinism): area '3', its topics '3.1', '3.2', …"""
    ids = [p.paper_id for p in papers]

    def order(labels: np.ndarray, values: set[int]) -> list[int]:
        return sorted(values, key=lambda c: (-int((labels == c).sum()), ids[int(np.flatnonzero(labels == c)[0])]))

    areas = []
    for a_num, a in enumerate(order(area_of, set(area_of.tolist())), start=1):
        topics = []
        for t_num, t in enumerate(order(topic_of, set(topic_of[area_of == a].tolist())), start=1):
            members = [ids[i] for i in _closest_first(vectors, np.flatnonzero(topic_of == t))]
            label = topic_names.labels[t]
            topics.append(Topic(f"{a_num}.{t_num}", label, topic_names.keywords[t], len(members), members,
                                members[:representative], label))
        size = int((area_of == a).sum())
        areas.append(Area(str(a_num), area_names.labels[a], area_names.keywords[a], size, topics,
                          area_names.labels[a]))
    return areas


def _relabel_with_llm(areas: list[Area], papers: list[Paper], index: PaperIndex, llm: Callable[[], Any],
                      progress: bool | None) -> str | None:
    """Ask the LLM for a label per topic and area (cached beside the map);
    keep the keyword label where its answer is not a good one."""
    by_id = {p.paper_id: p for p in papers}
    groups: list[Area | Topic] = [t for a in areas for t in a.topics] + list(areas)

    def examples(group: Area | Topic) -> list[Paper]:
        ids = group.representative if isinstance(group, Topic) else [t.representative[0] for t in group.topics]
        return [by_id[i] for i in ids]

    prompts = [label_prompt(g.keywords, examples(g)) for g in groups]
    cache = LabelCache(index.storage / "topics" / "llm-labels.json")
    labels, error = llm_labels(llm, prompts, [g.keywords + [g.keyword_label] for g in groups], cache, progress)
    for group, label in zip(groups, labels, strict=True):
        if label:
            group.label = label
    return error


def topic_papers(topic: Topic, index: PaperIndex) -> list[Paper]:
    """The topic's papers still in the index, most typical first."""
    by_id = {p.paper_id: p for p in index.stored_papers()}
    return [by_id[pid] for pid in topic.papers if pid in by_id]
