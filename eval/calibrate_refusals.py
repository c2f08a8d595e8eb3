"""Calibrate the refusal thresholds on the dev split, from an eval run's cache.

`paper-assistant eval --split dev` records, per question, the model's P(yes)
that the sources state the answer (``verdict``), whether the model answered
at all, what its checked answer and the quoted alternative state. That is all
the refusal policy needs, so every pair of thresholds can be scored here
without asking the model again:

- the model answered: its answer stands unless P(yes) < ``refuse_answer``;
- the model refused: the quoted sentences replace the refusal when
  P(yes) >= ``overrule_refusal``.

Questions that the evidence rules of `assistant.answerability` refuse never
reach the model (no verdict) and are left out: the pair is chosen for the
questions the rules let through.

Prints fact coverage, false refusals and refusal recall for each pair; the
chosen pair goes into the settings. Run on dev only: the test split is for
reporting.

    python eval/calibrate_refusals.py eval/results/.cache-dev-<model>-<prompts>-<date>.jsonl
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

#: Thresholds tried, in steps of 0.05 (P(yes) of the 1.5B model spans about 0.3-0.85).
GRID = [round(i * 0.05, 2) for i in range(21)] + [1.01]


def load(path: Path) -> list[dict[str, Any]]:
    """The answered ask-path rows of a cache (summaries and lists are never refused)."""
    rows: dict[str, dict[str, Any]] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        rows.setdefault(row["id"], {}).update(row)
    return [r for r in rows.values() if "answer" in r and r.get("verdict") is not None and not r["extractive"]]


def outcome(row: dict[str, Any], overrule: float, refuse: float) -> tuple[bool, int]:
    """(refused, facts stated) under the two thresholds."""
    if row["model_answered"]:
        if row["verdict"] < refuse:
            return True, 0
        facts = row["facts_found"] if not row["quoted"] else row["facts_in_draft"]
        return False, facts
    if row["verdict"] >= overrule:
        return False, row["facts_in_draft"]
    return True, 0


def score(rows: list[dict[str, Any]], overrule: float, refuse: float) -> dict[str, float]:
    answerable = [r for r in rows if r["answerable"]]
    unanswerable = [r for r in rows if not r["answerable"]]
    results = {r["id"]: outcome(r, overrule, refuse) for r in rows}
    facts = sum(r["facts"] for r in answerable)
    return {
        "fact_coverage": sum(results[r["id"]][1] for r in answerable) / max(1, facts),
        "false_refusals": sum(results[r["id"]][0] for r in answerable) / max(1, len(answerable)),
        "refusal_recall": sum(results[r["id"]][0] for r in unanswerable) / max(1, len(unanswerable)),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("cache", type=Path, help="an eval cache of the dev split")
    args = parser.parse_args()
    rows = load(args.cache)
    answerable = sum(r["answerable"] for r in rows)
    print(f"{len(rows)} ask-path questions ({answerable} answerable, {len(rows) - answerable} unanswerable)")
    print("overrule  refuse  facts  false-refusals  refusal-recall")
    for refuse in GRID[:16]:
        for overrule in GRID:
            s = score(rows, overrule, refuse)
            print(f"{overrule:7.2f}  {refuse:6.2f}  {s['fact_coverage']:.3f}  {s['false_refusals']:14.3f}  "
                  f"{s['refusal_recall']:14.3f}")


if __name__ == "__main__":
    main()
