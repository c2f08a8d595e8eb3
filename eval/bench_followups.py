"""Do chat follow-ups keep the papers the conversation was about? Figures for the README.

The gold set (``eval/gold/conversations.jsonl``) holds short chat
conversations, written by a helper who read only the seed abstracts (never
the code), whose last message leans on the earlier ones: "which papers here
are EEG foundation models?" then "how many downstream tasks do they get
evaluated on?"; "what's REVE?" then "how much EEG data did it pretrain on?";
and follow-ups the abstracts cannot answer (learning rate, GPUs, licence).
Each row gives the papers the last message is about (``papers``), the facts
its answer must state and its split (dev: tune on it; test: report only).

Every conversation goes through ``Conversation.send`` turn by turn, as in
``paper-assistant chat``; the last answer is scored: facts stated (of the
answerable ones' facts; a refusal states none), the conversation's papers
cited (recall) and the cited papers that are its papers (precision),
answerable follow-ups refused, unanswerable ones refused (a quoted sentence
is no refusal), and the seconds from sending the last message to its
checked answer.

Usage: python eval/bench_followups.py [--split dev|test|all] [--storage DIR] [--out DIR] [--tag NAME]
The LLM is the configured endpoint, else the embedded local model (set
PAPER_ASSISTANT_LOCAL_PORT to keep off another server's port). Without
--storage the seeds are ingested into a temp folder.
"""

from __future__ import annotations

import datetime as dt
import json
import time
from pathlib import Path
from typing import Any

from assistant.answer import Assistant, Final, Routed
from assistant.evaluation import bench_parser, facts_found, gold_rows, ratio, seed_keys, seeds_assistant

ROOT = Path(__file__).resolve().parents[1]
GOLD = ROOT / "eval" / "gold" / "conversations.jsonl"


def run_conversation(assistant: Assistant, row: dict[str, Any], keys: dict[str, str]) -> dict[str, Any]:
    """One conversation turn by turn; what the metrics need of its last answer."""
    conversation = assistant.conversation()
    by_key = {p.key: p.paper_id for p in assistant.index.corpus.papers}
    gold = {by_key[keys[ref]] for ref in row["papers"]}
    for message in row["turns"][:-1]:
        for _ in conversation.send(message):
            pass
    last = row["turns"][-1]
    start = time.perf_counter()
    route, result = "", None
    for event in conversation.send(last):
        if isinstance(event, Routed):
            route = event.kind
        elif isinstance(event, Final):
            result = event.result
    assert result is not None
    cited = [c["paper_id"] for c in result.citations]
    return {"id": row["id"], "split": row["split"], "kind": row["kind"], "answerable": row["answerable"],
            "route": route, "standalone": result.query, "answer": result.answer, "abstained": result.abstained,
            "facts": len(row["facts"]), "facts_found": 0 if result.abstained else facts_found(result.answer, row["facts"]),
            "gold_papers": len(gold), "gold_cited": len(gold & set(cited)), "cited": len(set(cited)),
            "seconds": round(time.perf_counter() - start, 1), "error": result.error}


def metrics(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """The figures over one split's conversations."""
    answerable = [r for r in rows if r["answerable"]]
    unanswerable = [r for r in rows if not r["answerable"]]
    seconds = sorted(r["seconds"] for r in rows)

    return {"conversations": len(rows),
            "facts": ratio(sum(r["facts_found"] for r in answerable), sum(r["facts"] for r in answerable)),
            "papers_cited": ratio(sum(r["gold_cited"] for r in answerable), sum(r["gold_papers"] for r in answerable)),
            "cited_are_gold": ratio(sum(r["gold_cited"] for r in answerable), sum(r["cited"] for r in answerable)),
            "answerable_refused": f"{sum(r['abstained'] for r in answerable)} of {len(answerable)}",
            "unanswerable_refused": f"{sum(r['abstained'] for r in unanswerable)} of {len(unanswerable)}",
            "seconds_p50": seconds[len(seconds) // 2] if seconds else None}


def main() -> None:
    args = bench_parser(__doc__, "dev").parse_args()
    gold = gold_rows(GOLD, args.split)
    with seeds_assistant(args.storage) as assistant:
        keys = seed_keys()
        rows = []
        for n, row in enumerate(gold, 1):
            rows.append(run_conversation(assistant, row, keys))
            print(f"{n}/{len(gold)} {row['id']}: {rows[-1]['route']} {rows[-1]['facts_found']}/{rows[-1]['facts']} "
                  f"facts, {rows[-1]['gold_cited']}/{rows[-1]['gold_papers']} papers, {rows[-1]['seconds']} s", flush=True)
        model = assistant.llm.endpoint.model
    splits = sorted({r["split"] for r in rows}, key=lambda s: s != "test")
    data = {"date": dt.date.today().isoformat(), "model": model,
            "metrics": {s: metrics([r for r in rows if r["split"] == s]) for s in splits}, "rows": rows}
    lines = [f"# Chat follow-ups, {args.split} split, {data['date']} ({model})", "",
             "| metric | " + " | ".join(splits) + " |", "|---" * (len(splits) + 1) + "|"]
    for key in next(iter(data["metrics"].values())):
        lines.append(f"| {key} | " + " | ".join(str(data["metrics"][s][key]) for s in splits) + " |")
    args.out.mkdir(parents=True, exist_ok=True)
    stem = args.out / f"{data['date']}-followups-{args.split}{'-' + args.tag if args.tag else ''}"
    stem.with_suffix(".json").write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    stem.with_suffix(".md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    print("\n".join(lines))
    print(f"Report: {stem}.md (and .json)")


if __name__ == "__main__":
    main()
