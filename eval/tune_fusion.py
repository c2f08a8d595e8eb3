"""Choose the fusion constants on the dev split, at the scale users search.

Each gold question is scoped (filters it names, Chinese put into English by
the term dictionary) and scored once by both sides over the eval's 6k index
(dense cosine of the nearest chunks from Chroma, BM25 of every paper, the
method names it states); then every dense:BM25 weight on the grid is fused
by ``assistant.fusion.Fusion``, the function search uses, as score fusion
and as rank fusion with every RRF k, and hit@1 / hit@5 / MRR are printed.
Dense-only and BM25-only rows are the baselines. Tune with ``--split dev``;
``--split test`` only reports.

Usage: python eval/tune_fusion.py [--split dev] [--storage storage/eval-corpus]
           [--rrf-k 1,2,5,10,20,60] [--weights 1:0,0:1,1:1,1:2,1:3,2:3,3:2,2:1]
"""

from __future__ import annotations

import argparse
import statistics
from pathlib import Path

import numpy as np

from assistant.evaluation import load_gold
from assistant.fusion import Fusion
from assistant.index import PaperIndex
from assistant.intent import topic_of
from assistant.retrieve import PaperRetriever
from assistant.settings import FusionMethod, Settings

ROOT = Path(__file__).resolve().parent.parent
#: Nearest chunks asked of Chroma per question: deeper than any grid point reads.
DEPTH = 300


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--split", choices=["dev", "test"], default="dev")
    parser.add_argument("--storage", type=Path, default=ROOT / "storage" / "eval-corpus")
    parser.add_argument("--rrf-k", default="1,2,5,10,20,60")
    parser.add_argument("--weights", default="1:0,0:1,1:1,1:2,1:3,2:3,3:2,2:1")
    parser.add_argument("--candidates", type=int, default=100)
    args = parser.parse_args()
    index = PaperIndex(Settings.load(storage=args.storage))
    retriever = PaperRetriever(index)
    corpus = index.corpus
    lexical, papers, position = corpus.lexical, corpus.papers, corpus.position
    gold = [q for q in load_gold(ROOT / "eval" / "gold" / f"{args.split}.jsonl") if q.keys]
    sides = []
    topical = [len(q.keys) > 1 and q.intent in ("summarize", "list") for q in gold]
    for q, is_topic in zip(gold, topical, strict=True):
        scope = retriever.scope(topic_of(q.question) if is_topic else q.question)
        allowed = np.asarray(retriever.allowed(scope.venue, scope.year))
        where = retriever._where({papers[i].venue for i in allowed}, scope.year, len(allowed) < len(papers))
        vector = index.embedder.get_query_embedding(scope.query)
        dense = {position[pid]: sim for pid, sim in index.dense(vector, DEPTH, where).items() if pid in position}
        sides.append((dense, lexical.scores(scope.query), allowed, set(lexical.named(scope.query))))
    print(f"{len(papers):,} papers, {len(gold)} {args.split} questions with gold papers")
    print("fusion  rrf_k  dense:bm25  hit@1  hit@5  MRR")
    grid: list[tuple[FusionMethod, float]] = [("scores", 0.0)]
    grid += [("ranks", float(k)) for k in args.rrf_k.split(",")]
    for method, k in grid:
        for weights in args.weights.split(","):
            dense_w, lexical_w = (float(x) for x in weights.split(":"))
            fusion = Fusion(k or 5.0, dense_w, lexical_w, args.candidates, method)
            rows = []
            for q, (dense, bm25, allowed, named) in zip(gold, sides, strict=True):
                ranked = fusion.fuse(dense if dense_w else None, bm25 if lexical_w else None, allowed,
                                     named if lexical_w else ())
                keys = [papers[i].key for i, _ in ranked[:20]]
                rank = next((r for r, key in enumerate(keys, start=1) if key in q.keys), None)
                rows.append((rank == 1, rank is not None and rank <= 5, 1 / rank if rank else 0.0))
            hit1, hit5, mrr = (statistics.fmean(float(r[i]) for r in rows) for i in range(3))
            print(f"{method:6}  {k or '-':>5}  {weights:>10}  {hit1:.3f}  {hit5:.3f}  {mrr:.3f}")
    settings = Settings()
    fusion, most = Fusion.from_settings(settings.retrieval), settings.topics.topic_max_papers
    print(f"\nTopic and list questions ({sum(topical)}): recall of the gold papers among the {most} a summary "
          "covers, by candidate rule (the settings' fusion)")
    for min_score in (settings.topics.topic_min_score, 0.5, 0.0):
        recalls = []
        for q, (dense, bm25, allowed, named), is_topic in zip(gold, sides, topical, strict=True):
            if not is_topic:
                continue
            ranked = fusion.fuse(dense, bm25, allowed, named)[: 3 * most]
            kept = [i for i, score in ranked if i in named or (score >= min_score and dense.get(i, 0.0)
                                                                >= settings.topics.topic_min_similarity)][:most]
            recalls.append(len({papers[i].key for i in kept} & set(q.keys)) / len(q.keys))
        label = f"fused score ≥ {min_score}, cosine ≥ {settings.topics.topic_min_similarity}"
        print(f"  fused top {3 * most:3d}, {label}: recall@{most} {statistics.fmean(recalls):.3f}")

if __name__ == "__main__":
    main()
