"""Why the chunking and fusion weights are what they are: measure the options.

For each chunking (word pieces per chunk x chunks per paper) it embeds the
seeds + ../shared/corpora papers once (cached under --cache), then scores the
gold questions with dense-only and with dense+BM25 fused at several weights,
brute force in numpy (same maths as Chroma's cosine search, without
rebuilding an index per option). Prints embedding throughput per option and
hit@1 / hit@5 for single-paper questions.

Usage: python eval/bench_chunking.py [--cache DIR] [--configs 128x1,256x1,128x3]
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

from assistant.chunking import chunk_texts
from assistant.corpus import lexical_doc
from assistant.embedding import MiniLMEmbedding
from assistant.evaluation import load_gold
from assistant.fusion import Fusion
from assistant.lexical import LexicalIndex
from assistant.naming import assign_names
from assistant.papers import load_papers, seed_files
from assistant.records import heading
from assistant.settings import Settings

ROOT = Path(__file__).resolve().parent.parent
#: Questions with one right paper, in English (Chinese ones need the LLM to rewrite them first).
SINGLE = {"fact", "method", "compare", "unanswerable"}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--cache", type=Path, default=Path("/tmp/pa-chunking"))
    parser.add_argument("--configs", default="128x1,256x1,128x3")
    parser.add_argument("--weights", default="1:1,1:2,1:3", help="dense:lexical fusion weights to try")
    args = parser.parse_args()
    args.cache.mkdir(parents=True, exist_ok=True)
    papers = assign_names(load_papers(seed_files() + sorted((ROOT.parent / "shared" / "corpora").glob("*.jsonl"))).papers)
    gold = [q for q in load_gold(ROOT / "eval" / "gold" / "dev.jsonl") if q.keys]
    keys = [p.key for p in papers]
    embedder = MiniLMEmbedding()
    queries = embedder.embed([q.question for q in gold])
    lexical = LexicalIndex([lexical_doc(p) for p in papers], Settings().retrieval.name_weight)
    bm25 = [lexical.scores(q.question) for q in gold]
    named = [set(lexical.named(q.question)) for q in gold]
    everyone = np.arange(len(papers))
    knobs = Settings().retrieval  # the settings' fusion method, tried with each of the weights
    print(f"{len(papers)} papers, {len(gold)} gold questions with papers")
    for config in args.configs.split(","):
        tokens, count = (int(x) for x in config.split("x"))
        cache = args.cache / f"{config}.npz"
        if cache.exists():
            data = np.load(cache)
            vectors, owner, seconds = data["vectors"], data["owner"], float(data["seconds"])
        else:
            start = time.perf_counter()
            texts, owner_list = [], []
            for i, paper in enumerate(papers):
                chunks = chunk_texts(heading(paper), paper.abstract, embedder.count_tokens, tokens, count)
                texts.extend(chunks)
                owner_list.extend([i] * len(chunks))
            embedder._tokenizer.enable_truncation(max_length=min(tokens, 256))
            vectors = embedder.embed(texts)
            seconds = time.perf_counter() - start
            owner = np.asarray(owner_list)
            np.savez(cache, vectors=vectors, owner=owner, seconds=seconds)
        print(f"\n[{config}] {len(vectors)} chunks, embed {len(papers) / seconds:.0f} papers/s")
        sims = queries @ vectors.T
        dense = np.full((len(gold), len(papers)), -1.0, dtype=np.float32)
        np.maximum.at(dense.T, owner, sims.T)
        for label, weights in [("dense", (1.0, 0.0))] + [
            (f"hybrid {w}", tuple(float(x) for x in w.split(":"))) for w in args.weights.split(",")
        ]:
            rows = {"single": [], "all": []}
            fusion = Fusion(knobs.rrf_k, weights[0], weights[1], candidates=100, method=knobs.fusion)
            for qi, q in enumerate(gold):
                dense_side = {int(i): float(dense[qi][i]) for i in np.argsort(-dense[qi])[:100]} if weights[0] else None
                order = fusion.fuse(dense_side, bm25[qi] if weights[1] else None, everyone,
                                    named[qi] if weights[1] else ())
                ranked = [keys[i] for i, _ in order[:5]]
                hit1 = ranked[0] in q.keys
                hit5 = any(k in q.keys for k in ranked)
                rows["all"].append((hit1, hit5))
                if q.type in SINGLE:
                    rows["single"].append((hit1, hit5))
            summary = "  ".join(
                f"{name}: hit@1 {np.mean([r[0] for r in vals]):.3f} hit@5 {np.mean([r[1] for r in vals]):.3f} (n={len(vals)})"
                for name, vals in rows.items()
            )
            print(f"  {label:14s} {summary}")


if __name__ == "__main__":
    main()
