"""Peers of tk's benchmark rows, on the same GPU in the same run: TileKernels
itself (TileLang, when its package imports) and PyTorch eager / torch.compile
implementations with the same semantics and shapes.

Reads the cases from tk's JSON (`tk bench --json`), writes one JSON row per
(case, implementation) with op, shape, variant, impl ("TileKernels", "torch
eager", "torch.compile"), us, gbps (tk's bytes for the row over the peer's
time) and first_call_s (TileLang JIT / torch.compile's first call), plus lists
of the skipped and failed (row, impl) pairs with their reasons. Timing:
triton.testing.do_bench (CUDA events, L2 flushed before every run), median.

    python3 bench/peers/peers.py --tk tk.json --json peers.json [--only OP[,OP]] [--time-limit S]
    python3 bench/peers/peers.py --tk tk.json --dry-run      # what would run; no torch needed

The rows run in a child process; when it dies or its CUDA context is broken
(a sticky error such as a device-side assert), the row it was on is recorded
as failed and a new child continues with the next row (--no-isolate: one
process). Which call each row makes: tile_kernels_rows.py and torch_rows.py.
"""
import argparse
import importlib.util
import json
import os
import signal
import subprocess
import sys
import time
import traceback

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tile_kernels_rows  # noqa: E402  (no torch at import time)
import torch_rows  # noqa: E402

TK, EAGER, COMPILE = "TileKernels", "torch eager", "torch.compile"
IMPL_KEYS = {"tilekernels": TK, "eager": EAGER, "compile": COMPILE}


def load_rows(path, only, span="", quiet=False):
    """tk's rows, those of the --only ops, then the --rows START:END slice of them."""
    rows = json.load(open(path))["rows"]
    if only:
        ops = [o for o in only.split(",") if o]
        known = {r["op"] for r in rows}
        for o in ops:
            if o not in known and not quiet:
                print(f"--only: no row of op '{o}' in {path}", flush=True)
        rows = [r for r in rows if r["op"] in ops]
    if span:
        a, _, b = span.partition(":")
        rows = rows[int(a) if a else 0:int(b) if b else len(rows)]
    return rows


def label(row):
    return f'{row["op"]} {row["shape"]} {row["variant"]}'


def fmt_exc(e):
    """Type, message (first lines) and the innermost traceback frame."""
    msg = " ".join(str(e).split())
    if len(msg) > 600:
        msg = msg[:600] + " ..."
    tb = traceback.extract_tb(e.__traceback__)
    where = f" | at {os.path.basename(tb[-1].filename)}:{tb[-1].lineno} in {tb[-1].name}: {tb[-1].line}" if tb else ""
    return f"{type(e).__name__}: {msg}{where}"


# --------------------------------------------------------------------------
# Dry run: which implementation would run on each row (no torch, no GPU).
# --------------------------------------------------------------------------

def dry_run(rows, impls):
    have = {m: importlib.util.find_spec(m) is not None for m in ("torch", "triton", "tile_kernels")}
    print("importable here: " + ", ".join(f"{m} {'yes' if v else 'no'}" for m, v in have.items()))
    counts = {i: [0, 0] for i in impls}
    for n, row in enumerate(rows):
        print(f"[{n + 1}/{len(rows)}] {label(row)}")
        for impl in impls:
            desc, why = (tile_kernels_rows.plan(row) if impl == TK else torch_rows.plan(row))
            counts[impl][0 if desc else 1] += 1
            print(f"    {impl:13s} {'run   ' + desc if desc else 'skip  ' + why}")
    print("summary: " + "; ".join(f"{i}: {c[0]} run, {c[1]} skipped" for i, c in counts.items()))


# --------------------------------------------------------------------------
# The worker: times rows [start, ...) and appends events to the progress file.
# --------------------------------------------------------------------------

class Worker:
    def __init__(self, args, rows, progress):
        import torch
        from triton.testing import do_bench
        self.torch, self.do_bench = torch, do_bench
        self.args, self.rows, self.progress = args, rows, progress
        self.impls = [IMPL_KEYS[i] for i in args.impls.split(",")]
        try:  # tune torch.compile: no silent fallback to eager, no cache-size limit across rows
            import torch._dynamo
            torch._dynamo.config.cache_size_limit = 1024
            torch._dynamo.config.suppress_errors = False
        except Exception as e:
            print(f"torch._dynamo config not set: {fmt_exc(e)}", flush=True)
        self.tk_why = None
        if TK in self.impls:
            try:
                import tile_kernels.moe  # noqa: F401  the reference library, if installed
                import tile_kernels.quant  # noqa: F401
                import tile_kernels.transpose  # noqa: F401
            except Exception as e:  # report exactly why it is missing
                self.tk_why = fmt_exc(e)
        self.emit(ev="meta", torch=torch.__version__, tile_kernels=self.tk_why or "available",
                  device=torch.cuda.get_device_name())
        print(f"torch {torch.__version__} on {torch.cuda.get_device_name()}; TileKernels: "
              f"{'available' if not self.tk_why else 'not available (' + self.tk_why + ')'}", flush=True)

    def emit(self, **ev):
        self.progress.write(json.dumps(ev) + "\n")
        self.progress.flush()

    def free(self):
        import gc
        gc.collect()
        self.torch.cuda.empty_cache()

    def cuda_ok(self):
        try:
            self.torch.cuda.synchronize()
            return True
        except Exception as e:
            self.sticky = fmt_exc(e)
            return False

    def measure(self, fn, check=None):
        """(median ms, first-call s, warnings): one untimed first call (JIT / compile), then do_bench."""
        torch = self.torch
        t0 = time.perf_counter()
        res = fn()
        torch.cuda.synchronize()
        first = time.perf_counter() - t0
        warnings = check(res) if check else []
        del res
        ms = self.do_bench(fn, warmup=self.args.warmup, rep=self.args.rep, return_mode="median")
        return ms, first, warnings

    def record(self, i, row, impl, ms, first, warnings=()):
        us = ms * 1e3
        gbps = row["bytes"] / (ms * 1e-3) / 1e9 if row.get("bytes") else None
        self.emit(ev="row", i=i, op=row["op"], shape=row["shape"], variant=row["variant"], impl=impl, us=us,
                  gbps=gbps, first_call_s=first if impl != EAGER else None)
        tail = f"(first call {first:.2f} s)" if impl != EAGER else ""
        print(f"    {impl:13s} {us:10.1f} us {gbps or 0:7.0f} GB/s  {tail}", flush=True)
        for w in warnings:
            print(f"    {impl:13s} WARNING output differs from tk's row: {w}", flush=True)

    def skip(self, i, row, impl, reason):
        self.emit(ev="skip", i=i, op=row["op"], shape=row["shape"], variant=row["variant"], impl=impl, reason=reason)
        print(f"    {impl:13s} skipped: {reason}", flush=True)

    def fail(self, i, row, impl, e, stage):
        err = f"{stage}: {fmt_exc(e)}"
        self.emit(ev="error", i=i, op=row["op"], shape=row["shape"], variant=row["variant"], impl=impl, error=err)
        print(f"    {impl:13s} FAILED {err}", flush=True)

    def run_tile_kernels(self, i, row):
        if self.tk_why:
            return self.skip(i, row, TK, f"TileKernels not importable: {self.tk_why}")
        stage = "building inputs"
        try:
            case, desc = tile_kernels_rows.build(row)
            if case is None:
                return self.skip(i, row, TK, desc)
            print(f"    {TK:13s} {desc}", flush=True)
            stage = "running"
            ms, first, warnings = self.measure(case.fn, case.check)
            self.record(i, row, TK, ms, first, warnings)
        except Exception as e:
            self.fail(i, row, TK, e, stage)
        finally:
            case = None
            self.free()

    def run_torch(self, i, row, impls):
        torch = self.torch
        stage = "building inputs"
        case = compiled = None
        try:
            case, desc = torch_rows.build(row)
            if case is None:
                for impl in impls:
                    self.skip(i, row, impl, desc)
                return
            print(f"    {'torch':13s} {desc}", flush=True)
        except Exception as e:
            for impl in impls:
                self.fail(i, row, impl, e, stage)
            self.free()
            return
        for impl in impls:
            stage = "running"
            try:
                if impl == EAGER:
                    fn = case.eager
                else:
                    stage = "compiling"
                    torch._dynamo.reset()  # a fresh cache per row: no recompiles, no cache limit
                    compiled = torch.compile(case.fn, dynamic=False)
                    fn = lambda: compiled(*case.args)
                ms, first, _ = self.measure(fn)
                self.record(i, row, impl, ms, first)
            except Exception as e:
                self.fail(i, row, impl, e, stage)
                if not self.cuda_ok():
                    break
            finally:
                fn = None
                self.free()
        case = compiled = None
        self.free()

    def run(self, start, deadline):
        """Rows [start, ...). Returns 0 when done (or out of time), 3 when CUDA is unusable."""
        n = len(self.rows)
        self.sticky = None
        i = start
        for i in range(start, n):
            row = self.rows[i]
            if deadline and time.time() > deadline:
                print(f"time limit reached: skipping the remaining {n - i} rows ({label(row)} onwards)", flush=True)
                for j in range(i, n):
                    for impl in self.impls:
                        self.emit(ev="skip", i=j, op=self.rows[j]["op"], shape=self.rows[j]["shape"],
                                  variant=self.rows[j]["variant"], impl=impl, reason="time limit reached")
                return 0
            self.emit(ev="start", i=i)
            print(f"[{i + 1}/{n}] {label(row)}   (tk {row.get('us') or 0:.1f} us)", flush=True)
            self.torch.manual_seed(i)
            if TK in self.impls:
                self.run_tile_kernels(i, row)
                if not self.cuda_ok():
                    break
            torch_impls = [x for x in self.impls if x != TK]
            if torch_impls:
                self.run_torch(i, row, torch_impls)
                if not self.cuda_ok():
                    break
            self.emit(ev="done", i=i)
        if self.sticky:
            self.emit(ev="fatal", i=i, error=self.sticky)
            print(f"CUDA context unusable after {label(self.rows[i])}: {self.sticky}", flush=True)
            return 3
        return 0


def child_main(args, rows, hard_exit=True):
    with open(args.progress, "a") as progress:
        try:
            worker = Worker(args, rows, progress)
        except Exception as e:
            progress.write(json.dumps(dict(ev="fatal", i=None, error=f"worker start: {fmt_exc(e)}")) + "\n")
            print(f"peer worker could not start: {fmt_exc(e)}", flush=True)
            return 4
        rc = worker.run(args.start, args.deadline)
    if rc == 3 and hard_exit:  # a broken CUDA context: exit without torch's teardown touching it
        sys.stdout.flush()
        os._exit(3)
    return rc


# --------------------------------------------------------------------------
# The supervisor: runs workers, restarts after a dead row, writes the JSON.
# --------------------------------------------------------------------------

def read_events(path):
    events = []
    if os.path.exists(path):
        for line in open(path):
            try:
                events.append(json.loads(line))
            except ValueError:
                pass  # a line cut by a killed worker
    return events


def load_prior(args):
    """With --append: the output JSON of earlier runs, to merge this run's rows into."""
    if args.append and os.path.exists(args.json):
        try:
            return json.load(open(args.json))
        except ValueError as e:
            print(f"--append: {args.json} unreadable ({e}); starting afresh", flush=True)
    return None


def write_json(args, rows):
    events = read_events(args.progress)
    meta = next((e for e in reversed(events) if e["ev"] == "meta"), {})
    keep = ("op", "shape", "variant", "impl")
    out = dict(torch=meta.get("torch", "-"), tile_kernels=meta.get("tile_kernels", "worker did not start"),
               device=meta.get("device"),
               rows=[{k: e[k] for k in keep + ("us", "gbps", "first_call_s")} for e in events if e["ev"] == "row"],
               skipped=[{k: e[k] for k in keep + ("reason",)} for e in events if e["ev"] == "skip"],
               errors=[{k: e[k] for k in keep + ("error",)} for e in events if e["ev"] == "error"])
    prior = getattr(args, "prior", None)
    if prior:  # earlier runs' entries for the rows this run did not touch
        ran = {(r["op"], r["shape"], r["variant"]) for r in rows}
        for key in ("rows", "skipped", "errors"):
            out[key] = [e for e in prior.get(key, []) if (e["op"], e["shape"], e["variant"]) not in ran] + out[key]
        if not meta:
            out.update({k: prior[k] for k in ("torch", "tile_kernels", "device") if k in prior})
    tmp = args.json + ".tmp"
    json.dump(out, open(tmp, "w"), indent=1)
    os.replace(tmp, args.json)
    return out


def watch(child, args):
    """Waits for the worker; kills it when one row has run longer than --row-timeout
    (a hung JIT compile or kernel), recording why. Returns its exit code."""
    current, since = None, time.time()
    while True:
        try:
            return child.wait(timeout=2)
        except subprocess.TimeoutExpired:
            pass
        if not args.row_timeout:
            continue
        starts = [e["i"] for e in read_events(args.progress) if e["ev"] == "start"]
        if starts and starts[-1] != current:
            current, since = starts[-1], time.time()
        if current is not None and time.time() - since > args.row_timeout:
            print(f"peers: row {current + 1} has run {args.row_timeout:.0f} s (--row-timeout): killing the worker",
                  flush=True)
            with open(args.progress, "a") as p:
                p.write(json.dumps(dict(ev="fatal", i=current, error=f"row timed out after {args.row_timeout:.0f} s "
                                        "(--row-timeout)")) + "\n")
            child.kill()
            return child.wait()


def supervise(args, rows):
    open(args.progress, "w").close()
    deadline = time.time() + args.time_limit if args.time_limit else 0
    child = None

    def on_signal(signum, _frame):
        print(f"peers: signal {signum}: writing {args.json} from the rows so far", flush=True)
        if child and child.poll() is None:
            child.terminate()
        write_json(args, rows)
        sys.exit(128 + signum)

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    start = 0
    while start < len(rows):
        cmd = [sys.executable, os.path.abspath(__file__), "--tk", args.tk, "--json", args.json, "--worker",
               "--progress", args.progress, "--start", str(start), "--deadline", str(deadline),
               "--impls", args.impls, "--warmup", str(args.warmup), "--rep", str(args.rep)]
        if args.only:
            cmd += ["--only", args.only]
        if args.rows:
            cmd += ["--rows", args.rows]
        child = subprocess.Popen(cmd)
        rc = watch(child, args)
        child = None
        events = read_events(args.progress)
        if rc == 0:
            break
        started = [e["i"] for e in events if e["ev"] == "start" and e["i"] >= start]
        done = {e["i"] for e in events if e["ev"] == "done"}
        if not started:
            print(f"peers: the worker exited with {rc} before starting a row; giving up", flush=True)
            break
        last = max(started)
        if last not in done:
            row = rows[last]
            fatal = next((e["error"] for e in reversed(events) if e["ev"] == "fatal" and e.get("i") == last), None)
            err = fatal or f"worker process died with exit code {rc} on this row"
            with open(args.progress, "a") as p:
                p.write(json.dumps(dict(ev="error", i=last, op=row["op"], shape=row["shape"], variant=row["variant"],
                                        impl="(row)", error=err)) + "\n")
            print(f"peers: {label(row)}: {err}; continuing with the next row in a new worker", flush=True)
        start = last + 1
        write_json(args, rows)
    out = write_json(args, rows)
    print(f"wrote {args.json}: {len(out['rows'])} timings, {len(out['skipped'])} skipped, "
          f"{len(out['errors'])} failed", flush=True)
    for e in out["errors"]:
        print(f"  failed: {e['op']} {e['shape']} {e['variant']} [{e['impl']}]: {e['error'][:300]}", flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tk", required=True, help="tk's benchmark JSON (tk bench --json)")
    ap.add_argument("--json", help="output JSON (required unless --dry-run)")
    ap.add_argument("--only", default="", help="comma-separated ops to run (tk's op names)")
    ap.add_argument("--rows", default="", help="START:END slice (0-based) of the rows left after --only")
    ap.add_argument("--append", action="store_true",
                    help="merge into an existing --json (earlier runs' entries for other rows are kept)")
    ap.add_argument("--time-limit", type=float, default=0, help="seconds; rows not started by then are skipped")
    ap.add_argument("--row-timeout", type=float, default=900,
                    help="seconds one row may take before its worker is killed (0: no limit; not with --no-isolate)")
    ap.add_argument("--impls", default="tilekernels,eager,compile",
                    help="comma-separated subset of tilekernels,eager,compile")
    ap.add_argument("--warmup", type=float, default=25, help="do_bench warm-up budget, ms")
    ap.add_argument("--rep", type=float, default=100, help="do_bench repetition budget, ms")
    ap.add_argument("--dry-run", action="store_true", help="print what would run on each row, run nothing")
    ap.add_argument("--no-isolate", action="store_true", help="run all rows in this process")
    # internal: the worker process
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--progress", help=argparse.SUPPRESS)
    ap.add_argument("--start", type=int, default=0, help=argparse.SUPPRESS)
    ap.add_argument("--deadline", type=float, default=0, help=argparse.SUPPRESS)
    args = ap.parse_args()
    for key in args.impls.split(","):
        if key not in IMPL_KEYS:
            ap.error(f"--impls: unknown '{key}' (choose from {', '.join(IMPL_KEYS)})")
    rows = load_rows(args.tk, args.only, args.rows, quiet=args.worker)
    if args.dry_run:
        return dry_run(rows, [IMPL_KEYS[k] for k in args.impls.split(",")])
    if not args.json:
        ap.error("--json is required unless --dry-run")
    if args.worker:
        return child_main(args, rows)
    args.progress = args.progress or args.json + ".progress.jsonl"
    args.prior = load_prior(args)
    if args.no_isolate:
        open(args.progress, "w").close()
        args.start, args.deadline = 0, (time.time() + args.time_limit if args.time_limit else 0)
        rc = child_main(args, rows, hard_exit=False)
        out = write_json(args, rows)
        print(f"wrote {args.json}: {len(out['rows'])} timings, {len(out['skipped'])} skipped, "
              f"{len(out['errors'])} failed", flush=True)
        return rc
    supervise(args, rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
