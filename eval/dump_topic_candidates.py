"""What a topic summary's candidate set holds besides the gold papers.

Topic recall@12 at 6k counts only the seed papers a gold question lists;
among 6,135 papers many others are on the same topic, and a summary that
lists them instead is not wrong. This script writes, for each topic or
list question of a split with several gold papers, the papers
``summarize`` would cover (``evaluation.topic_candidates``, as topic recall takes them),
each with its title, venue, abstract opening and whether it is gold, so
that a reader can judge which of the others are on the topic.

Usage: python eval/dump_topic_candidates.py [--split dev] [--storage storage/eval-corpus] [--out FILE]
The storage is an index that holds the seeds and the corpus (the one
``paper-assistant eval --corpus`` builds); nothing is ingested here.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from assistant.evaluation import load_gold, topic_candidates
from assistant.index import PaperIndex
from assistant.retrieve import PaperRetriever
from assistant.settings import Settings, load_settings, set_offline_env

ROOT = Path(__file__).resolve().parents[1]
#: Characters of each candidate's abstract written out: enough to judge its topic.
OPENING = 400


def candidates(retriever: PaperRetriever, gold_path: Path, settings: Settings) -> list[dict[str, Any]]:
    """Each topic or list question with several gold papers, and its candidate set written out."""
    rows = []
    for q, found in topic_candidates(retriever, load_gold(gold_path), settings):
        keys = set(q.keys)
        rows.append({"id": q.id, "question": q.question, "gold_n": len(keys),
                     "gold_found": sum(h.paper.key in keys for h in found),
                     "candidates": [{"title": h.paper.title or h.paper.name, "venue": h.paper.venue,
                                     "gold": h.paper.key in keys, "abstract": h.paper.abstract[:OPENING]}
                                    for h in found]})
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--split", choices=["dev", "test"], default="dev")
    parser.add_argument("--storage", type=Path, default=ROOT / "storage" / "eval-corpus")
    parser.add_argument("--out", type=Path, default=Path("topic-candidates.json"))
    args = parser.parse_args()
    set_offline_env()
    settings = load_settings({"storage": args.storage}, {})
    index = PaperIndex(settings)
    rows = candidates(PaperRetriever(index), ROOT / "eval" / "gold" / f"{args.split}.jsonl", settings)
    args.out.write_text(json.dumps(rows, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    found, wanted = sum(r["gold_found"] for r in rows), sum(r["gold_n"] for r in rows)
    print(f"{len(rows)} questions over {len(index.corpus.papers):,} papers; gold papers in the candidate sets: "
          f"{found} of {wanted}; written to {args.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
