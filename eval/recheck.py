"""Score an answer run's cached replies again: with today's gold facts, and with today's checking code.

A change to the step after the model (the citation check, the refusal
policy) or to how facts are counted (a new way of saying a fact in the gold
file) needs no new model run to be measured on a whole split: the cache of
`paper-assistant eval --split S` holds every reply and its P(yes). This
prints the answer metrics three ways, from the same replies:

- **as run**: the rows as cached (the gold facts and code of that run);
- **rescored**: the same answers, facts counted against today's gold file;
- **rechecked**: the single-question path's replies checked again by today's
  code over evidence selected again (see `assistant.evaluation.rechecked`;
  other paths are kept as cached).

The run must be of today's retrieval and prompts: evidence is selected
again, and the model's reply is only valid for the prompt it was given.

    python eval/recheck.py --split dev eval/results/.cache-dev-<model>-<prompts>-<date>.jsonl
    python eval/recheck.py --gold FILE DIR/.cache-FILE-…jsonl
    python eval/recheck.py --split dev CACHE_OF_THE_RUN CACHE_OF_QUESTIONS_ADDED_SINCE
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from assistant.answer import Assistant
from assistant.evaluation import answer_metrics, load_gold, rechecked, rescored
from assistant.index import PaperIndex
from assistant.settings import Settings

GOLD = Path(__file__).resolve().parent / "gold"
SHOWN: list[tuple[str, str | tuple[str, str]]] = [("required-fact coverage", "fact_coverage"), ("evidence coverage", "evidence_coverage"),
         ("false refusals", "false_refusals"), ("refusal recall", ("refusal", "recall")),
         ("refusal precision", ("refusal", "precision")), ("citation precision", "citation_precision"),
         ("citation recall", "citation_recall"), ("misattributed raw sentences", "misattribution_rate"),
         ("topic lists: gold papers listed", "topic_papers_listed"), ("quoted answers", "quoted_answers"),
         ("language match (answerable Chinese questions; a refusal is a miss)", "language_match")]


def _value(metrics: dict[str, Any], key: str | tuple[str, str]) -> Any:
    return metrics[key[0]][key[1]] if isinstance(key, tuple) else metrics[key]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("cache", type=Path, nargs="+",
                        help="eval caches (eval/results/.cache-SPLIT-…jsonl); a later one's rows win")
    which = parser.add_mutually_exclusive_group(required=True)
    which.add_argument("--split", choices=["dev", "test"], help="the split the cache is of")
    which.add_argument("--gold", type=Path, help="or the gold file the run answered (`eval --gold FILE`)")
    parser.add_argument("--storage", type=Path, default=Path("storage/eval-seeds"),
                        help="the index of the 38 seed papers the run answered from (eval's own)")
    args = parser.parse_args()
    gold_path = args.gold or GOLD / f"{args.split}.jsonl"
    gold = load_gold(gold_path)
    done: dict[str, dict[str, Any]] = {}
    for cache in args.cache:
        for line in cache.read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            done.setdefault(row["id"], {}).update(row)
    missing = [q.id for q in gold if "answer" not in done.get(q.id, {})]
    if missing:
        raise SystemExit(f"error: the cache has no answer for {len(missing)} questions of {gold_path.name} "
                         f"(e.g. {missing[0]}): run `paper-assistant eval` on it to the end first.")
    rows = [done[q.id] for q in gold]
    settings = Settings.load(storage=args.storage)
    assistant = Assistant(settings, index=PaperIndex(settings))
    again, checked = rechecked(assistant, rescored(rows, gold), gold)
    columns = {"as run": answer_metrics(rows, gold), "rescored": answer_metrics(rescored(rows, gold), gold),
               "rechecked": answer_metrics(again, gold)}
    print(f"{gold_path.stem}: {len(rows)} questions, {checked} single-question replies checked again")
    print("| metric | " + " | ".join(columns) + " |")
    print("|---|" + "---|" * len(columns))
    for label, key in SHOWN:
        print(f"| {label} | " + " | ".join(str(_value(m, key)) for m in columns.values()) + " |")


if __name__ == "__main__":
    main()
