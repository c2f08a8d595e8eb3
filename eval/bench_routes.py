"""How often does a chat message take the path its writer meant? Route accuracy for the README.

``eval/gold/routes.jsonl`` holds 120 chat messages written by a helper
who read only the seed papers' names and abstracts, never the router:
summaries, comparisons, single questions and list/metadata questions in
many chat words, some in Chinese, each with the path a researcher would
expect and its split (dev: the router was fixed on its misses; test:
reported). Routing needs no model: the figures come in seconds, from the
seed index.

Usage: python eval/bench_routes.py [--storage DIR] [-v]
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path

from assistant.evaluation import seeds_assistant
from assistant.intent import KINDS

GOLD = Path(__file__).resolve().parent / "gold" / "routes.jsonl"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--storage", type=Path, help="an index holding the seeds (default: ingest into a temp folder)")
    parser.add_argument("-v", "--verbose", action="store_true", help="print every message routed wrong")
    args = parser.parse_args()
    rows = [json.loads(line) for line in GOLD.read_text(encoding="utf-8").splitlines() if line.strip()]
    with seeds_assistant(args.storage) as assistant:  # its router: a described paper may make a comparison
        right: Counter[tuple[str, str]] = Counter()
        total: Counter[tuple[str, str]] = Counter()
        for row in rows:
            got = assistant.route(row["message"])[0].kind
            total[row["split"], row["route"]] += 1
            right[row["split"], row["route"]] += got == row["route"]
            if args.verbose and got != row["route"]:
                print(f"{row['split']:4} {row['id']} expected {row['route']}, got {got}: {row['message']}")
    print("| split | " + " | ".join(KINDS) + " | all |")
    print("|---" * (len(KINDS) + 2) + "|")
    for split in ("test", "dev"):
        cells = [f"{right[split, k]}/{total[split, k]}" for k in KINDS]
        n, ok = sum(total[split, k] for k in KINDS), sum(right[split, k] for k in KINDS)
        print(f"| {split} | " + " | ".join(cells) + f" | **{ok / n:.3f}** ({ok}/{n}) |")


if __name__ == "__main__":
    main()
