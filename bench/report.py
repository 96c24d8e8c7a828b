"""Merges tk's and the peers' JSON into docs/performance.md and a PNG chart
(fraction of the copy ceiling per case, tk beside each peer). --peers may be
given more than once (e.g. the torch peers and TileKernels timed in two
device calls); their rows are joined, the first file's metadata kept.
--heuristic adds tk's rows timed with the heuristic's schedules alone (`tk
bench --no-table`, same run) beside the tuned ones. --save writes all the
inputs as one file, which --results reads back (bench/results/ keeps the one
behind docs/performance.md). Text after the marker line HAND_WRITTEN in an
existing --md file is kept.

    python3 bench/report.py --tk tk.json --peers peers.json --heuristic heuristic.json \
        --md docs/performance.md --save bench/results/h200.json --command "bash bench/run_all.sh"
    python3 bench/report.py --results bench/results/h200.json --md docs/performance.md
"""
import argparse
import json
import math
import os

HAND_WRITTEN = "<!-- Written by hand below this line; bench/report.py keeps it. -->"


def empty_cells(tk_rows, peers, impls):
    """Why peer cells of the table are empty: each failed (row, peer) with its
    error, and the skip reasons with how many rows each left out; pairs that
    another peer file timed are not listed."""
    timed = {(p["op"], p["shape"], p["variant"], p["impl"]) for p in peers["rows"]}
    shown = {(r["op"], r["shape"], r["variant"]) for r in tk_rows}
    def open_cell(e):
        key = (e.get("op"), e.get("shape"), e.get("variant"))
        return key in shown and key + (e.get("impl"),) not in timed
    errors = [e for e in peers.get("errors", []) if open_cell(e)]
    reasons = {}
    for e in peers.get("skipped", []):
        if open_cell(e):
            reasons.setdefault((e.get("impl"), e.get("reason", "")), set()).add(
                (e.get("op"), e.get("shape"), e.get("variant")))
    if not errors and not reasons:
        return []
    out = ["", "## Empty peer cells", ""]
    for e in errors:
        msg = str(e.get("error") or e.get("message") or e.get("reason") or "")[:200]
        out.append(f"- {e.get('impl')} failed on {e.get('op')} {e.get('shape')} {e.get('variant')}: {msg}")
    for (impl, reason), rows in sorted(reasons.items(), key=lambda kv: (str(kv[0][0]), -len(kv[1]))):
        out.append(f"- {impl}, {len(rows)} row(s): {reason[:200]}")
    return out


def compact_json(value, pad=""):
    """JSON with one line per row: a value whose text is short stays on one
    line, longer lists and objects put each element on a line of its own."""
    text = json.dumps(value, ensure_ascii=False)
    if len(text) <= 400 or not isinstance(value, (dict, list)):
        return text
    inner = pad + " "
    if isinstance(value, dict):
        items = [f"{inner}{json.dumps(k)}: {compact_json(v, inner)}" for k, v in value.items()]
        return "{\n" + ",\n".join(items) + "\n" + pad + "}"
    return "[\n" + ",\n".join(inner + compact_json(v, inner) for v in value) + "\n" + pad + "]"


def tuning_gain(tk, heuristic):
    """The rows whose schedule came from the tuning table, beside the same
    rows timed with the heuristic's schedule in the same run."""
    base = {(r["op"], r["shape"], r["variant"]): r for r in heuristic["rows"] if r.get("us")}
    out = ["", "## What the tuning table changed", "",
           "Rows whose schedule came from `kernels/tuning/table.tsv` (`tk tune`), beside the same rows with the"
           " heuristic's schedule (`tk bench --no-table`), timed in the same device call"
           f" (copy ceiling {heuristic['copy_gbps']:.0f} GB/s in the heuristic's pass).", "",
           "| op | shape | variant | schedule | heuristic µs | tuned µs | tuned / heuristic |", "|---|---|---|---|---|---|---|"]
    n = 0
    for r in tk["rows"]:
        b = base.get((r["op"], r["shape"], r["variant"]))
        if not b or not r.get("us") or not r.get("schedule", "").startswith("table"):
            continue
        out.append(f"| {r['op']} | {r['shape']} | {r['variant']} | {r['schedule'][len('table '):]} | {b['us']:.1f} |"
                   f" {r['us']:.1f} | {r['us'] / b['us']:.3f} |")
        n += 1
    return out if n else []


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tk")
    ap.add_argument("--peers", action="append", default=[])
    ap.add_argument("--heuristic")
    ap.add_argument("--results")
    ap.add_argument("--save")
    ap.add_argument("--md", required=True)
    ap.add_argument("--png")
    ap.add_argument("--command", default="bash bench/run_all.sh")
    ap.add_argument("--driver", help="the kernel driver's version (nvidia-smi's driver_version), over the one tk"
                    " bench recorded (its JSON's driver_version; runs before 2026-12-06 have none)")
    args = ap.parse_args()
    if args.results:
        saved = json.load(open(args.results))
        tk, parts, heuristic, command = saved["tk"], saved["peers"], saved.get("heuristic"), saved["command"]
    else:
        if not args.tk:
            ap.error("--tk or --results is required")
        tk = json.load(open(args.tk))
        parts = [json.load(open(p)) for p in args.peers]
        heuristic = json.load(open(args.heuristic)) if args.heuristic else None
        command = args.command
    if args.driver:
        tk = dict(tk, driver_version=args.driver)
    if args.save:
        with open(args.save, "w") as f:
            f.write(compact_json({"command": command, "tk": tk, "peers": parts, "heuristic": heuristic}) + "\n")
    args.command = command
    peers = {"rows": []}
    for i, part in enumerate(parts):
        if i == 0:
            peers = dict(part, rows=list(part["rows"]), skipped=list(part.get("skipped", [])),
                         errors=list(part.get("errors", [])))
        else:
            peers["rows"] += part["rows"]
            peers["skipped"] += part.get("skipped", [])
            peers["errors"] += part.get("errors", [])
            if part.get("tile_kernels") == "available":
                peers["tile_kernels"] = "available"
    ceiling = tk["copy_gbps"]
    empty = tk.get("empty_kernel_us") if (tk.get("empty_kernel_us") or 0) > 0 else None
    impls = sorted({p["impl"] for p in peers["rows"]})
    peer = {(p["op"], p["shape"], p["variant"], p["impl"]): p for p in peers["rows"]}

    lines = [
        "# Performance",
        "",
        f"Generated by `{args.command}` on {tk['device']} ({tk['sm_count']} SMs, "
        + (f"driver {tk['driver_version']} " if tk.get("driver_version") else "")
        + f"(CUDA driver API {tk['driver'] // 1000}.{tk['driver'] % 1000 // 10}),"
        f" tk {tk['tk_version']} commit {tk['commit']}, torch {peers.get('torch', '-')}); every number below"
        " is from that one run. Copy ceiling (2 GiB device-to-device, bytes read + written):"
        f" {ceiling:.0f} GB/s. tk times: CUDA events, median of 50 after 5 warm-ups, inputs rotated over"
        " 3x the L2; peers: triton do_bench median with L2 flushed. Bytes: the spec's minimum traffic."
        + (f" An empty kernel's launch, timed as tk's rows: {empty:.2f} µs ('x launch': tk's time over it, the"
           " small operators' floor)." if empty else ""),
        "",
    ]
    head = "| op | shape | variant | tk µs | tk of ceiling |" + (" x launch |" if empty else "")
    sep = "|---|---|---|---|---|" + ("---|" if empty else "")
    for impl in impls:
        head += f" {impl} µs | tk speed-up vs {impl} |"
        sep += "---|---|"
    lines += [head, sep]
    for r in tk["rows"]:
        timed = r.get("us") is not None  # a row whose call failed has no time (null)
        line = f"| {r['op']} | {r['shape']} | {r['variant']} | "
        line += f"{r['us']:.1f} | {100 * r['frac']:.1f}% |" if timed else f"- ({r.get('check', '')}) | - |"
        if empty:
            line += f" {r['us'] / empty:.1f} |" if timed else " - |"
        for impl in impls:
            p = peer.get((r["op"], r["shape"], r["variant"], impl))
            line += f" {p['us']:.1f} |" if p else " - |"
            line += f" {p['us'] / r['us']:.2f}x |" if p and timed else " - |"
        lines.append(line)
    summary = []
    for impl in impls:
        ratios = [peer[(r["op"], r["shape"], r["variant"], impl)]["us"] / r["us"] for r in tk["rows"]
                  if r.get("us") and (r["op"], r["shape"], r["variant"], impl) in peer]
        if ratios:
            g = math.exp(sum(math.log(x) for x in ratios) / len(ratios))
            summary.append(f"{impl} {g:.2f}x over {len(ratios)} rows")
    if summary:
        lines += ["", "tk's speed-up, geometric mean over the rows both timed: " + "; ".join(summary) + "."]
    jit = tk.get("jit", [])
    if tk.get("note"):
        lines += [f"Note on tk's data: {tk['note']}."]
    if not jit and tk.get("jit_summary"):
        j = tk["jit_summary"]
        lines += ["", "## JIT cost", "",
                  f"{j['kernels']} kernel configurations compiled cold in this run: DSL -> PTX {j['compile_ms_mean']:.1f} ms"
                  f" mean, PTX -> loaded module {j['load_ms_mean']:.1f} ms mean. Warm call (cache hit: validate, look up,"
                  f" launch; host side): {j['warm_call_us']:.2f} µs."]
    if jit:
        mean_c = sum(j["compile_ms"] for j in jit) / len(jit)
        mean_l = sum(j["load_ms"] for j in jit) / len(jit)
        lines += ["", "## JIT cost", "",
                  f"{len(jit)} kernel configurations compiled cold in this run: DSL -> PTX {mean_c:.1f} ms mean "
                  f"(max {max(j['compile_ms'] for j in jit):.1f}), PTX -> loaded module {mean_l:.1f} ms mean. "
                  f"Warm call (cache hit: validate, look up, launch; host side): {tk['warm_call_us']:.2f} µs."]
    for impl, what in (("torch.compile", "trace + Inductor + Triton compile"),
                       ("TileKernels", "TileLang JIT compile")):
        firsts = [p["first_call_s"] for p in peers["rows"] if p["impl"] == impl and p.get("first_call_s")]
        if firsts:
            lines.append(f"{impl} first call ({what}), in the peers' run: {1e3 * sum(firsts) / len(firsts):.0f} ms"
                         f" mean over {len(firsts)} cases (max {1e3 * max(firsts):.0f} ms).")
    if peers.get("tile_kernels") and peers["tile_kernels"] != "available":
        lines += ["", f"TileKernels did not run in this run: {peers['tile_kernels']}"]
    lines += empty_cells(tk["rows"], peers, impls)
    if heuristic:
        lines += tuning_gain(tk, heuristic)
    kept = ""
    if os.path.exists(args.md):
        text = open(args.md).read()
        if HAND_WRITTEN in text:
            kept = text[text.index(HAND_WRITTEN):]
    open(args.md, "w").write("\n".join(lines) + "\n" + ("\n" + kept if kept else ""))

    if args.png:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        labels = [f"{r['shape']}\n{r['variant']}" for r in tk["rows"]]
        series = [("tk", [r["frac"] or 0 for r in tk["rows"]])]
        for impl in impls:
            vals = []
            for r in tk["rows"]:
                p = peer.get((r["op"], r["shape"], r["variant"], impl))
                vals.append(p["gbps"] / ceiling if p else 0)
            series.append((impl, vals))
        fig, ax = plt.subplots(figsize=(max(8, len(labels) * 0.9), 5))
        width = 0.8 / len(series)
        for i, (name, vals) in enumerate(series):
            ax.bar([x + i * width for x in range(len(labels))], vals, width, label=name)
        ax.axhline(1.0, color="black", linewidth=0.8)
        ax.set_ylabel("fraction of copy bandwidth")
        ax.set_xticks([x + 0.4 - width / 2 for x in range(len(labels))])
        ax.set_xticklabels(labels, rotation=60, ha="right", fontsize=7)
        ax.set_title(f"per operator on {tk['device']} (copy ceiling {ceiling:.0f} GB/s)")
        ax.legend()
        fig.tight_layout()
        fig.savefig(args.png, dpi=110)


if __name__ == "__main__":
    main()
