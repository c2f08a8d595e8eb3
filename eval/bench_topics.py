"""How good and how fast is the topic map? Figures for the README.

- Agreement of the broad areas with ICLR 2026's own primary areas (21 of
  them): NMI and ARI, with plain k-means at k=21 on the same vectors, in the
  same run, as the baseline.
- Label quality: the share of a topic's papers whose author keywords share a
  stemmed content word with the topic's label or its top five keywords;
  the same with papers dealt to topics at random (same sizes) shows chance.
- Build time and peak memory of `paper-assistant topics build` (a child
  process, so its peak RSS is its own) at 38 papers (the seeds) and ~6k
  (ICLR 2026 + NeurIPS 2025 from ../shared/corpora).

Usage: python eval/bench_topics.py [--big-storage DIR]
DIR: an index already holding both corpora (ingesting 6k papers takes about
20 minutes on 2 cores); without it they are ingested into a temp folder.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from sklearn.cluster import KMeans
from sklearn.metrics import adjusted_rand_score, normalized_mutual_info_score

from assistant import topics
from assistant.index import PaperIndex
from assistant.papers import load_papers, seed_files
from assistant.settings import Settings, set_offline_env
from assistant.topic_labels import stems

ROOT = Path(__file__).resolve().parents[1]
CORPORA = ROOT.parent / "shared" / "corpora"
ICLR = "ICLR 2026"


def timed_build(storage: Path) -> dict[str, float]:
    """Wall time and peak RSS of `topics build` in its own process."""
    start = time.perf_counter()
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    child = subprocess.Popen([sys.executable, "-m", "assistant.cli", "topics", "build", "--storage", str(storage)],
                             stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env, text=True)
    _, status, usage = os.wait4(child.pid, 0)
    out = child.stdout.read() if child.stdout else ""
    if status != 0:
        raise SystemExit(f"topics build failed in {storage}: {out}")
    return {"seconds": round(time.perf_counter() - start, 1), "peak_rss_mb": round(usage.ru_maxrss / 1024),
            "line": out.strip().rsplit(": ", 1)[0]}


def label_share(topic_map: topics.TopicMap, keywords: dict[str, str], rng: np.random.Generator | None = None) -> float:
    """Share of papers (with author keywords) whose keywords share a stemmed
    word with their topic's label or top keywords; ``rng``: topics dealt at random."""
    members = [(pid, t) for a in topic_map.areas for t in a.topics for pid in t.papers if keywords.get(pid)]
    if rng is not None:
        shuffled = rng.permutation(len(members))
        members = [(members[i][0], t) for i, (_, t) in zip(shuffled, members, strict=True)]
    hits = sum(bool(stems(keywords[pid]) & stems(" ".join([t.label, *t.keywords[:5]]))) for pid, t in members)
    return hits / max(len(members), 1)


def agreement(index: PaperIndex) -> dict[str, object]:
    papers = topics.scope_papers(index, ICLR)
    vectors = topics.paper_vectors(index, papers)
    truth = [p.primary_area for p in papers]
    topic_map, _ = topics.build(index, ICLR, progress=False)
    area_of = {pid: a.area_id for a in topic_map.areas for t in a.topics for pid in t.papers}
    ours = [area_of[p.paper_id] for p in papers]
    baseline = KMeans(n_clusters=21, random_state=0).fit_predict(vectors)
    keywords = {p.paper_id: p.keywords for p in papers}
    return {
        "papers": len(papers), "primary_areas": len(set(truth)),
        "areas": topic_map.built_from["areas"], "topics": topic_map.built_from["topics"],
        "nmi": round(normalized_mutual_info_score(truth, ours), 3), "ari": round(adjusted_rand_score(truth, ours), 3),
        "kmeans21_nmi": round(normalized_mutual_info_score(truth, baseline), 3),
        "kmeans21_ari": round(adjusted_rand_score(truth, baseline), 3),
        "label_share": round(label_share(topic_map, keywords), 3),
        "label_share_random": round(label_share(topic_map, keywords, np.random.default_rng(0)), 3),
        "example_topics": [f"{t.topic_id} {t.label} ({t.size})" for a in topic_map.areas[:3] for t in a.topics[:3]],
    }


def main() -> int:
    set_offline_env()
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--big-storage", type=Path, help="an index holding ICLR 2026 + NeurIPS 2025 (else ingested)")
    parser.add_argument("--out", type=Path, default=ROOT / "eval" / "results")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-topics-") as tmp:
        small = Settings.load(storage=Path(tmp) / "seeds")
        PaperIndex(small).ingest(load_papers(seed_files()), progress=False)
        big_storage = args.big_storage
        if big_storage is None:
            big_storage = Path(tmp) / "big"
            print("ingesting ~6k papers (about 20 minutes on 2 cores)…", file=sys.stderr)
            PaperIndex(Settings.load(storage=big_storage)).ingest(load_papers(sorted(CORPORA.glob("*.jsonl"))))
        # The timed builds write into the stores; keep a given one's map as it was.
        report = {"date": dt.date.today().isoformat(), "cores": os.cpu_count(),
                  "build_38": timed_build(small.storage), "build_big": timed_build(big_storage),
                  "iclr2026": agreement(PaperIndex(Settings.load(storage=big_storage)))}
    args.out.mkdir(parents=True, exist_ok=True)
    stem = args.out / f"{report['date']}-topics"
    stem.with_suffix(".json").write_text(json.dumps(report, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    iclr = report["iclr2026"]
    lines = [
        f"# Topic map benchmark, {report['date']} ({report['cores']} cores)", "",
        "| build | time | peak memory | result |", "|---|---|---|---|",
        *[f"| {name} | {r['seconds']} s | {r['peak_rss_mb']} MB | {r['line']} |"
          for name, r in (("38 papers", report["build_38"]), ("~6k papers", report["build_big"]))], "",
        (f"ICLR 2026: {iclr['papers']} papers, {iclr['primary_areas']} primary areas; the map has {iclr['areas']} "
         f"areas, {iclr['topics']} topics."), "",
        "| areas vs primary_area | NMI | ARI |", "|---|---|---|",
        f"| topic map areas | {iclr['nmi']} | {iclr['ari']} |",
        f"| k-means, k=21 (baseline) | {iclr['kmeans21_nmi']} | {iclr['kmeans21_ari']} |", "",
        (f"Label quality: {iclr['label_share']:.1%} of papers share a stemmed word of their author keywords with "
         f"their topic's label or top keywords (topics dealt at random: {iclr['label_share_random']:.1%})."), "",
        "Examples: " + "; ".join(iclr["example_topics"]),
    ]
    stem.with_suffix(".md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
