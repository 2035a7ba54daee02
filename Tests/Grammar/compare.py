#!/usr/bin/env python3
"""Compare housectl's recognitions with the hassil reference.

Both files hold one JSON object per line: {"text", "intent", "slots", ...}.
OURS is matched to EXPECTED by text (so its order does not matter; a text
missing from OURS counts as a disagreement).  A line agrees when the intent is
the same and the slots dicts are equal after lower-casing the values.  Prints
agreement per intent (grouped by the expected intent, "(none)" for null), the
overall line `agreement: A/B (P%)`, and up to --show disagreements.  Exits 1
when the overall agreement is below --min-agreement.  Needs only the stdlib.

Usage: compare.py EXPECTED_JSONL OURS_JSONL [--min-agreement 0.99] [--show N]
"""

import argparse
import json
import sys
from collections import Counter


def load(path):
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def norm(row):
    slots = {k: str(v).lower() for k, v in (row.get("slots") or {}).items()}
    return row.get("intent"), slots


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("expected"), ap.add_argument("ours")
    ap.add_argument("--min-agreement", type=float, default=0.99)
    ap.add_argument("--show", type=int, default=20)
    args = ap.parse_args()

    expected = load(args.expected)
    ours = {row["text"]: row for row in load(args.ours)}
    total, agree, bad = Counter(), Counter(), []
    for row in expected:
        key = row.get("intent") or "(none)"
        total[key] += 1
        mine = ours.get(row["text"])
        if mine is not None and norm(mine) == norm(row):
            agree[key] += 1
        else:
            bad.append((row, mine))

    for key in sorted(total):
        print(f"{key:32} {agree[key]:5}/{total[key]:<5} "
              f"{100 * agree[key] / total[key]:6.2f}%")
    n, a = sum(total.values()), sum(agree.values())
    ratio = a / n if n else 1.0
    print(f"agreement: {a}/{n} ({100 * ratio:.2f}%)")
    for row, mine in bad[: args.show]:
        print(f"- {row['text']!r}")
        print(f"    expected: {row.get('intent')} {json.dumps(row.get('slots'), ensure_ascii=False)}")
        print("    ours:     " + ("(missing)" if mine is None else
              f"{mine.get('intent')} {json.dumps(mine.get('slots'), ensure_ascii=False)}"))
    return 0 if ratio >= args.min_agreement else 1


if __name__ == "__main__":
    sys.exit(main())
