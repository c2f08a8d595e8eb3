"""How good and how fast is the many-paper comparison? Figures for the README.

The gold set (``eval/gold/compare_cells.jsonl``) holds (paper, aspect) cells
over the bundled seeds, written by reading the abstracts: the expected short
value, or null where the abstract does not state the aspect, the phrases a
correct value must contain (``must``; "a|b" accepts either), the comparison
group it belongs to and its split (dev: tune on it; test: report only).
Each group is compared once, with its papers and aspects, so one run gives
both systems:

- **extractive-only**: the first table, before any model call; its "value"
  is the quoted sentence itself (a lenient baseline: a whole sentence that
  contains the answer counts as correct);
- **model**: the final table, where each stated cell carries the short
  value the LLM copied from the quote, kept only when the quote holds it.

Metrics: cell accuracy (value correct; a gold "not stated" cell is correct
when the table says not stated), quote correctness (the quote of a stated
gold cell contains the expected value), "not stated" precision and recall,
values shown / dropped by the check / copied verbatim from their quote; and
for the 5-paper group the time to the table event (on screen), to the
narrative's first word, to the table with its values and to the whole answer.

Usage: python eval/bench_compare.py [--split dev|test|all] [--storage DIR] [--out DIR] [--tag NAME] [--extractive-only]
(``--extractive-only``: the first table's figures alone, in seconds, no model and no report file.)
The LLM is the configured endpoint, else the embedded local model (set
PAPER_ASSISTANT_LOCAL_PORT to keep off another server's port). Without
--storage the seeds are ingested into a temp folder.
"""

from __future__ import annotations

import datetime as dt
import json
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

from assistant import compare
from assistant.answer import Assistant, Final, Table, Token
from assistant.errors import LLMUnavailable
from assistant.evaluation import bench_parser, comparable, gold_rows, holds, ratio, seeds_assistant

ROOT = Path(__file__).resolve().parents[1]
GOLD = ROOT / "eval" / "gold" / "compare_cells.jsonl"


def score(cells: list[tuple[dict[str, Any], dict[str, Any]]], model: bool) -> dict[str, Any]:
    """The metrics over (gold, table cell) pairs; ``model``: judge the short
    value (else the quote stands for the value: the extractive baseline)."""
    correct = quoted_right = stated_gold = said_none = right_none = gold_none = 0
    for gold, cell in cells:
        shown = cell["value"] if model else (cell["quote"] if cell["stated"] else None)
        if gold["value"] is None:
            gold_none += 1
            correct += not cell["stated"]
        else:
            stated_gold += 1
            correct += cell["stated"] and holds(shown, gold["must"])
            quoted_right += cell["stated"] and holds(cell["quote"], gold["must"])
        said_none += not cell["stated"]
        right_none += not cell["stated"] and gold["value"] is None
    return {"cells": len(cells), "cell_accuracy": ratio(correct, len(cells)),
            "quote_correct": ratio(quoted_right, stated_gold),
            "not_stated_precision": ratio(right_none, said_none), "not_stated_recall": ratio(right_none, gold_none)}


def run_group(assistant: Assistant, rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Compare one group's papers on its aspects; both tables, timings, and
    the value check's counts."""
    by_id = {p.paper_id: p for p in assistant.index.papers()}
    papers = [by_id[pid] for pid in dict.fromkeys(r["paper_id"] for r in rows)]
    aspects = list(dict.fromkeys(r["aspect"] for r in rows))
    start = time.perf_counter()
    first: Table | None = None
    table_s = text_s = values_s = total_s = 0.0
    final = None
    for event in assistant.compare_papers(papers, " vs ".join(p.name for p in papers), aspects):
        if isinstance(event, Table) and first is None:
            first, table_s = event, time.perf_counter() - start
        elif isinstance(event, Token) and not text_s:
            text_s = time.perf_counter() - start
        elif isinstance(event, Table) and event.values:
            values_s = time.perf_counter() - start
        elif isinstance(event, Final):
            final, total_s = event.result, time.perf_counter() - start
    assert first is not None and final is not None
    column = {p.paper_id: i for i, p in enumerate(papers)}
    row_of = {a: i for i, a in enumerate(aspects)}

    def pairs(table: list[dict[str, Any]]) -> list[tuple[dict[str, Any], dict[str, Any]]]:
        return [(r, table[row_of[r["aspect"]]]["cells"][column[r["paper_id"]]]) for r in rows]

    values = [c for row in final.extra["table"] for c in row["cells"] if c["value"]]
    return {"split": rows[0]["split"], "papers": len(papers), "aspects": len(aspects), "table_s": round(table_s, 2), "text_s": round(text_s, 2),
            "values_s": round(values_s, 2),
            "total_s": round(total_s, 2),
            "extractive": pairs(first.table), "model": pairs(final.extra["table"]),
            "values_shown": len(values), "values_dropped": len(final.extra["dropped_values"]),
            "values_verbatim": sum(comparable(c["value"]) in comparable(c["quote"]) for c in values),
            "values_checked": sum(compare.value_in_quote(c["value"], c["quote"], assistant.settings.compare)
                                  for c in values),
            "error": final.extra["values_error"] or final.error, "model_name": final.model,
            "dropped": final.extra["dropped_values"],
            "cells": [{"paper": r["paper"], "aspect": r["aspect"], "gold": r["value"], "stated": c["stated"],
                       "value": c["value"], "quote": c["quote"]} for r, c in pairs(final.extra["table"])]}


def extractive_only(assistant: Assistant, grouped: dict[str, list[dict[str, Any]]]) -> dict[str, dict[str, Any]]:
    """The extractive baseline's metrics per split, from the table built
    before any model call (a change to the sentence picker, measured in seconds)."""
    by_id = {p.paper_id: p for p in assistant.index.papers()}
    pairs: dict[str, list[tuple[dict[str, Any], dict[str, Any]]]] = defaultdict(list)
    for rows in grouped.values():
        papers = [by_id[pid] for pid in dict.fromkeys(r["paper_id"] for r in rows)]
        aspects = list(dict.fromkeys(r["aspect"] for r in rows))
        table = compare.table(assistant.selector, papers, aspects, assistant.settings.compare).to_json()
        column = {p.paper_id: i for i, p in enumerate(papers)}
        pairs[rows[0]["split"]] += [(r, table[aspects.index(r["aspect"])]["cells"][column[r["paper_id"]]])
                                    for r in rows]
    return {split: score(found, model=False) for split, found in pairs.items()}


def report(groups: dict[str, dict[str, Any]], split: str, model: str) -> tuple[dict[str, Any], str]:
    """Metrics per split (test first: the figure to report; dev beside it) for both systems."""
    splits = sorted({g["split"] for g in groups.values()}, key=lambda s: s != "test")
    metrics = {f"{system} {s}": score([p for g in groups.values() if g["split"] == s for p in g[system]],
                                      system == "model")
               for s in splits for system in ("extractive", "model")}
    five = next((g for g in groups.values() if g["papers"] == 5), None)
    counts = {k: sum(g[k] for g in groups.values()) for k in ("values_shown", "values_dropped", "values_verbatim",
                                                                "values_checked")}
    data = {"date": dt.date.today().isoformat(), "split": split, "model": model, "metrics": metrics, **counts,
            "five_papers": {k: five[k] for k in ("table_s", "text_s", "values_s", "total_s")} if five else None,
            "groups": {name: {k: v for k, v in g.items() if k not in ("extractive", "model")}
                       for name, g in groups.items()}}
    lines = [f"# Compare table, {split} split, {data['date']} ({model})", "",
             "| metric | " + " | ".join(metrics) + " |", "|---" * (len(metrics) + 1) + "|"]
    for key in ("cells", "cell_accuracy", "quote_correct", "not_stated_precision", "not_stated_recall"):
        lines.append(f"| {key} | " + " | ".join(str(m[key]) for m in metrics.values()) + " |")
    lines += ["", (f"Values shown: {counts['values_shown']} (verbatim in their quote: {counts['values_verbatim']}, "
                   f"held by it per the check: {counts['values_checked']}); dropped by the check: "
                   f"{counts['values_dropped']}.")]
    if five:
        lines.append(f"5 papers: table event after {five['table_s']} s, the narrative's first word after "
                     f"{five['text_s']} s, values after {five['values_s']} s, whole answer after {five['total_s']} s.")
    lines += ["", "| group | split | papers | aspects | table s | first word s | values s | answer s | error |",
              "|---|---|---|---|---|---|---|---|---|"]
    lines += [f"| {name} | {g['split']} | {g['papers']} | {g['aspects']} | {g['table_s']} | {g['text_s']} | "
              f"{g['values_s']} | {g['total_s']} | "
              f"{g['error'] or ''} |"
              for name, g in groups.items()]
    return data, "\n".join(lines) + "\n"


def main() -> None:
    parser = bench_parser(__doc__, "all")
    parser.add_argument("--extractive-only", action="store_true", help="the first table's figures alone (no model)")
    args = parser.parse_args()
    gold = gold_rows(GOLD, args.split)
    with seeds_assistant(args.storage) as assistant:
        assistant.retriever.search("warm up", k=1)  # the embedder loaded, as in a running UI
        grouped: dict[str, list[dict[str, Any]]] = defaultdict(list)
        for g in gold:
            grouped[g["group"]].append(g)
        if args.extractive_only:
            for split, metrics in extractive_only(assistant, grouped).items():
                print(f"extractive-only {split}: {json.dumps(metrics)}")
            return
        try:
            model = assistant.llm.endpoint.model
        except LLMUnavailable as exc:  # the extractive figures still come; the model's are its fallback
            model = f"no model: {exc}"
        groups = {name: run_group(assistant, rows) for name, rows in grouped.items()}
    data, text = report(groups, args.split, model)
    args.out.mkdir(parents=True, exist_ok=True)
    stem = args.out / f"{data['date']}-compare-{args.split}{'-' + args.tag if args.tag else ''}"
    stem.with_suffix(".json").write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    stem.with_suffix(".md").write_text(text, encoding="utf-8")
    print(text)
    print(f"Report: {stem}.md (and .json)")


if __name__ == "__main__":
    main()
