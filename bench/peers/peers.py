"""Peers of tk's benchmark rows, on the same GPU in the same run: PyTorch eager
and torch.compile implementations with the same semantics and shapes, and
TileKernels itself (TileLang) when its package imports.

Reads the cases from tk's JSON (`tk bench --json`), writes one JSON row per
(case, implementation). Timing: triton.testing.do_bench (CUDA events, L2
flushed before every run), median.

    python3 bench/peers/peers.py --tk tk.json --json peers.json
"""
import argparse
import json
import re
import time

import torch
from triton.testing import do_bench

FP8 = torch.float8_e4m3fn


def per_token_cast(x, g, round_sf, col_major):
    """quant.md 4.1 for plain input and e4m3 output: SF = max(amax, 1e-4)/448
    (or its power-of-two ceiling), out = e4m3(x * INV), INV = 448/a' (or 1/SF)."""
    m, k = x.shape
    kb = (k + g - 1) // g
    pad = kb * g - k
    xf = x.float()
    if pad:
        xf = torch.nn.functional.pad(xf, (0, pad))
    xg = xf.view(m, kb, g)
    a = xg.abs().amax(-1, keepdim=True).clamp(min=1e-4)
    s = a / 448.0
    if round_sf:
        bits = s.view(torch.int32)
        sf = ((bits + 0x7FFFFF) & 0x7F800000).view(torch.float32)
        inv = 1.0 / sf
    else:
        sf, inv = s, 448.0 / a
    q = (xg * inv).clamp(-448, 448).to(FP8).view(m, kb * g)[:, :k]
    sf = sf.squeeze(-1)
    if col_major:  # TMA-aligned column-major: strides (1, align(m, 4))
        p = (m + 3) // 4 * 4
        buf = torch.empty(kb, p, device=x.device, dtype=torch.float32)
        buf[:, :m] = sf.t()
        sf = buf[:, :m].t()
    return q, sf


def parse(row):
    m, k = map(int, row["shape"].split("x"))
    v = row["variant"]
    g = int(re.search(r"g=(\d+)", v).group(1))
    dtype = torch.float32 if " f32" in v else torch.bfloat16
    return m, k, g, dtype, " round" in v, " col" in v


def tile_kernels_or_reason():
    try:
        import tile_kernels.quant as tkq  # noqa: the reference library, if installed
        return tkq, None
    except Exception as e:  # report exactly why it is missing
        return None, f"{type(e).__name__}: {e}"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tk", required=True)
    ap.add_argument("--json", required=True)
    args = ap.parse_args()
    tk = json.load(open(args.tk))
    rows = []
    compiled = {}
    tkq, why = tile_kernels_or_reason()
    print("TileKernels:", "available" if tkq else f"not available ({why})", flush=True)
    for row in tk["rows"]:
        if row["op"] != "per_token_cast":
            continue
        m, k, g, dtype, round_sf, col = parse(row)
        x = torch.randn(m, k, device="cuda", dtype=dtype)
        eager = lambda: per_token_cast(x, g, round_sf, col)
        key = (g, round_sf, col)
        if key not in compiled:
            compiled[key] = torch.compile(lambda t, g=g, r=round_sf, c=col: per_token_cast(t, g, r, c))
        fn = compiled[key]
        t0 = time.perf_counter()
        fn(x)
        torch.cuda.synchronize()
        compile_s = time.perf_counter() - t0
        for impl, f in (("torch eager", eager), ("torch.compile", lambda: fn(x))):
            ms = do_bench(f, warmup=25, rep=100, return_mode="median")
            rows.append(dict(op=row["op"], shape=row["shape"], variant=row["variant"], impl=impl,
                             us=ms * 1e3, gbps=row["bytes"] / (ms * 1e-3) / 1e9,
                             first_call_s=compile_s if impl == "torch.compile" else None))
        print(f'{row["shape"]:12s} {row["variant"]:26s} eager {rows[-2]["us"]:9.1f} us  '
              f'compile {rows[-1]["us"]:9.1f} us (first call {compile_s:.1f} s)', flush=True)
        if tkq is not None:
            ref = lambda: tkq.per_token_cast(x, "e4m3", g, None, col, round_sf, False)
            t0 = time.perf_counter()
            ref()
            torch.cuda.synchronize()
            first = time.perf_counter() - t0
            ms = do_bench(ref, warmup=25, rep=100, return_mode="median")
            rows.append(dict(op=row["op"], shape=row["shape"], variant=row["variant"], impl="TileKernels",
                             us=ms * 1e3, gbps=row["bytes"] / (ms * 1e-3) / 1e9, first_call_s=first))
            print(f'{"":12s} {"":26s} TileKernels {ms * 1e3:9.1f} us (first call {first:.2f} s)', flush=True)
        del x
    json.dump(dict(torch=torch.__version__, tile_kernels=why or "available", rows=rows), open(args.json, "w"),
              indent=1)


if __name__ == "__main__":
    main()
