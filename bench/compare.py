#!/usr/bin/env python3
"""Old binary against new on the same GPU: the rows of `tk bench --json` runs
of each, timed alternately in one device call (old, new, old, new, ...).
Each row's time is its fastest over its runs, so that a run disturbed by
another process does not decide; the ratio is new / old (below 1: faster).

  python3 bench/compare.py --old a1.json a2.json --new b1.json b2.json [--md OUT]
"""
import argparse
import json
import math
import sys


def fastest(paths):
    rows, meta = {}, None
    for p in paths:
        with open(p) as f:
            data = json.load(f)
        meta = meta or data
        for r in data["rows"]:
            if not r.get("us"):
                continue
            key = (r["op"], r["shape"], r["variant"])
            rows[key] = min(rows.get(key, math.inf), r["us"])
    return rows, meta


def geomean(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--old", nargs="+", required=True)
    ap.add_argument("--new", nargs="+", required=True)
    ap.add_argument("--md", help="write the table here as well")
    a = ap.parse_args()
    old, meta_old = fastest(a.old)
    new, meta_new = fastest(a.new)
    common = [k for k in old if k in new]
    if not common:
        sys.exit("compare.py: the two sides have no row in common")
    lines = [f"old {meta_old.get('commit', '?')} ({len(a.old)} runs) against new {meta_new.get('commit', '?')}"
             f" ({len(a.new)} runs) on {meta_new.get('device', '?')}, fastest of each side's runs", "",
             "| op | shape | variant | old µs | new µs | new / old |", "|---|---|---|---|---|---|"]
    by_op = {}
    for k in common:
        ratio = new[k] / old[k]
        by_op.setdefault(k[0], []).append(ratio)
        lines.append(f"| {k[0]} | {k[1]} | {k[2]} | {old[k]:.2f} | {new[k]:.2f} | {ratio:.3f} |")
    lines += ["", "| op | rows | geometric mean of new / old |", "|---|---|---|"]
    for op, rs in by_op.items():
        lines.append(f"| {op} | {len(rs)} | {geomean(rs):.3f} |")
    every = [r for rs in by_op.values() for r in rs]
    lines.append(f"| all | {len(every)} | {geomean(every):.3f} |")
    missing = len(set(old) ^ set(new))
    if missing:
        lines.append(f"\n{missing} rows timed on one side only are left out.")
    text = "\n".join(lines) + "\n"
    sys.stdout.write(text)
    if a.md:
        with open(a.md, "w") as f:
            f.write(text)


if __name__ == "__main__":
    main()
