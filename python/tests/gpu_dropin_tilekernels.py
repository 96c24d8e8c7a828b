#!/usr/bin/env python3
"""tk_kernels as a drop-in for tile_kernels: both on the same CUDA inputs, compared.

Not run in CI: it needs an NVIDIA GPU, PyTorch, TileKernels (tile_kernels) and
tk_kernels with libtk.so (TK_LIBRARY). Inputs follow TileKernels' own tests
(shapes, and its tile_kernels.testing generators for routings and special
values). Outputs are compared bit for bit (dtype, shape, strides and bytes)
except where the spec gives a tolerance. One line per operator and case;
exit status 1 on any FAIL. `--full` runs TileKernels' whole grids (slow:
every configuration is compiled by both), `--only NAME` the operators whose
name contains NAME. This file has the quantizing operators;
dropin_moe_engram.py the transposes, MoE and Engram.

    TK_LIBRARY=build/kernels/libtk.so python python/tests/gpu_dropin_tilekernels.py [--full] [--only NAME]
"""

import argparse
import itertools
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import tile_kernels as tile  # noqa: E402
from tile_kernels.testing.generator import generate_e5m6_inputs, generate_rand_float  # noqa: E402

import dropin_moe_engram  # noqa: E402
from dropin_common import (COUNTS, FLAGS, STATE, both, case, clear_sf, flag_kw, hiddens, moe_desc, moe_grid,  # noqa: E402
                           routing, same, same_cast, same_sf, tk, tokens)


# ---- quant ----

def check_per_token_cast():
    for m, k, dt, f, fmt in itertools.product(tokens(), hiddens(), (torch.float32, torch.bfloat16), FLAGS,
                                              ('e4m3', 'e2m1')):
        x = torch.randn(m, k, dtype=dt, device='cuda')
        for g in (32, 64, 128, k) if STATE['full'] else (32, 128, k):
            def run(x=x, g=g, f=f, fmt=fmt, k=k):
                same_cast(*both('quant.per_token_cast', x, fmt, g, **flag_kw(f)), k, g)
                if g != k:
                    same_sf(*both('quant.per_token_cast_with_sf_only', x, fmt, g, **flag_kw(f)), k, g, 'sf_only')
                if g != k and not f[0]:
                    sf = tile.quant.per_token_cast(x, fmt, g, **flag_kw(f))[1]
                    same(*both('quant.per_token_cast_with_precomputed_sf', x, fmt, g, sf, **flag_kw(f)),
                         'precomputed')
                if fmt == 'e4m3' and not f[2]:  # a row stride of 2K
                    wide = torch.randn(m, 2 * k, dtype=x.dtype, device='cuda')[:, :k]
                    same_cast(*both('quant.per_token_cast', wide, fmt, g, **flag_kw(f)), k, g)
            case('per_token_cast', f'M={m} K={k} {dt} g={g} {fmt} flags={f}', run)
        for in_fmt, xb, g in itertools.product(('e4m3', 'e2m1'), ((128, 128), (32, 32)), (32, 128)):
            def run(x=x, in_fmt=in_fmt, xb=xb, g=g, f=f, fmt=fmt, k=k):
                xq = tile.quant.per_block_cast(x.bfloat16(), in_fmt, xb, **flag_kw(f))
                same_cast(*both('quant.per_token_cast', xq, fmt, g, x_block_size=xb, **flag_kw(f)), k, g)
            if dt == torch.bfloat16:
                case('per_token_cast', f'M={m} K={k} quantized {in_fmt} {xb} g={g} {fmt} flags={f}', run)


def check_e5m6():
    for m, k, dt, f in itertools.product(tokens(), hiddens(), (torch.float32, torch.bfloat16), FLAGS):
        if k % 8:
            continue
        for i, (x, special) in enumerate(generate_e5m6_inputs(m, k, dt)):
            def run(x=x, f=f, k=k):
                ref, ours = both('quant.per_token_cast', x, 'e5m6', k, **flag_kw(f))
                same_cast(ref, ours, k, k)
                for fmt in ('fp32', 'bf16'):
                    same(*both('quant.cast_back', ref, fmt, (1, k), x_special_fmt='e5m6'), f'cast_back {fmt}')
            case('per_token_cast(e5m6)+cast_back', f'M={m} K={k} {dt} input{i} flags={f}', run)


def check_per_block_cast():
    for m, k, dt, fmt, f, b in itertools.product(tokens(), hiddens(), (torch.float32, torch.bfloat16),
                                                 ('e4m3', 'e2m1'), FLAGS, ((128, 128), (32, 32))):
        x = torch.randn(m, k, dtype=dt, device='cuda')

        def run(x=x, fmt=fmt, f=f, b=b, k=k):
            ref, ours = both('quant.per_block_cast', x, fmt, b, **flag_kw(f))
            same_cast(ref, ours, k, b[1])
            same_sf(*both('quant.per_block_cast_with_sf_only', x, fmt, b, **flag_kw(f)), k, b[1], 'sf_only')
            if not f[0]:
                same(*both('quant.per_block_cast_with_precomputed_sf', x, fmt, b, ref[1], **flag_kw(f)),
                     'precomputed')
        case('per_block_cast', f'M={m} K={k} {dt} {fmt} block={b} flags={f}', run)


def check_lossless():
    for m, k, fin, fout, ob in itertools.product(tokens(), hiddens(), FLAGS, FLAGS, ((1, 128), (32, 32), (128, 128))):
        def run(m=m, k=k, fin=fin, fout=fout, ob=ob):
            x = generate_rand_float((m, k))
            x = torch.sign(x) * torch.max(x.abs(), x.abs().max() / 2**9)
            xq = tile.torch.cast(x, 'e2m1', (1, 32), **flag_kw(fin))
            same_cast(*both('quant.per_block_cast_lossless', xq, 'e4m3', (1, 32), ob, **flag_kw(fout)), k, ob[1])
        case('per_block_cast_lossless', f'M={m} K={k} in={fin} out={fout} block={ob}', run)


def check_cast_back():
    for m, k, fmt, f, g, out in itertools.product(tokens(), hiddens(), ('e2m1', 'e4m3'), FLAGS, (128, None),
                                                  ('fp32', 'bf16')):
        g = g or k
        x = torch.randn(m, k, dtype=torch.float32 if out == 'fp32' else torch.bfloat16, device='cuda')
        case('cast_back', f'M={m} K={k} {fmt} g={g} flags={f} -> {out}',
             lambda x=x, fmt=fmt, g=g, f=f, out=out: same(*both(
                 'quant.cast_back', tile.quant.per_token_cast(x, fmt, g, **flag_kw(f)), out, (1, g))))
    for m, k, rs, out, b in itertools.product(tokens(), hiddens(), (False, True), ('bf16', 'fp32'),
                                              ((128, 1), (128, 128))):
        case('cast_back', f'M={m} K={k} block={b} round_sf={rs} -> {out}',
             lambda m=m, k=k, rs=rs, out=out, b=b: same(*both(
                 'quant.cast_back', tile.torch.cast(torch.randn(m, k, device='cuda'), 'e4m3', b, round_sf=rs), out, b)))


def check_per_channel():
    for m, k, rs in itertools.product(tokens(128), hiddens(), (False, True)):
        x = torch.randn(m, k, dtype=torch.bfloat16, device='cuda')
        case('per_channel_cast', f'M={m} K={k} round_sf={rs}',
             lambda x=x, rs=rs: same(*both('quant.per_channel_cast', x, 'e4m3', 128, round_sf=rs)))
        for b in (32, 128):
            case('per_channel_cast_and_transpose', f'M={m} K={k} b={b} round_sf={rs}',
                 lambda x=x, rs=rs, b=b: same(*both('quant.per_channel_cast_and_transpose', x, 'e4m3', b,
                                                    round_sf=rs)))


def check_per_channel_fused():
    cases = [(None, 4096)] + [(p, None) for p in moe_grid()]
    for (p, n), k, quant, rs in itertools.product(cases, hiddens(128), (False, True), (False, True)):
        def run(p=p, n=n, k=k, quant=quant, rs=rs):
            pos = None
            if p is not None:
                idx, mapping = routing(p, 128)
                n, pos = idx.shape[0], mapping[1]
            x = torch.randn(n, k, dtype=torch.bfloat16, device='cuda')
            if quant:
                x = tile.quant.per_token_cast(x, 'e4m3', 128)
            same(*both('quant.per_channel_cast_fused', x, 'e4m3', 128, round_sf=rs,
                       num_per_channels=128 if quant else None, pos_to_token=pos))
        case('per_channel_cast_fused', f'{moe_desc(p) if p else "N=4096"} K={k} quant={quant} round_sf={rs}', run)


def check_swiglu_forward():
    grid = itertools.product(moe_grid(), [h // 2 for h in hiddens(256)], (True, False), (True, False), (128, None),
                             FLAGS, (None, 10.0, 0.5))
    for p, h, use_p2e, weights, g, f, clamp in grid:
        g = g or h
        if (f[2] and weights) or (f[0] and g == h) or (not STATE['full'] and clamp == 10.0):
            continue

        def run(p=p, h=h, use_p2e=use_p2e, weights=weights, g=g, f=f, clamp=clamp):
            idx, (p2e, p2t, p2tk, t2p, *_) = routing(p, 16)
            w = torch.randn(idx.shape[0], p['num_topk'], device='cuda')
            x = tile.moe.expand_to_fused(torch.randn(idx.shape[0], 2 * h, dtype=torch.bfloat16, device='cuda'),
                                         t2p, p2t)
            counting = g != h and clamp is not None
            counts = [torch.zeros(3, dtype=torch.int64, device='cuda') if counting else None for _ in range(2)]
            res = [getattr(lib.quant, 'swiglu_forward_and_per_token_cast')(
                x, 'e4m3', g, pos_to_token_topk=p2tk if weights else None, topk_weights=w if weights else None,
                pos_to_expert=p2e if use_p2e else None, swiglu_clamp_value=clamp, clamped_count=c, **flag_kw(f))
                for lib, c in ((tile, counts[0]), (tk, counts[1]))]
            pad = (p2e == -1).unsqueeze(-1)
            same(*(r[0].float().masked_fill(pad, 0) for r in res), 'out (padding rows zeroed)')
            assert res[0][1].stride() == res[1][1].stride(), f'sf strides {res[0][1].stride()} vs {res[1][1].stride()}'
            same(*(clear_sf(r[1].masked_fill(pad, 0), h, g) for r in res), 'sf (padding rows zeroed)')
            same(*counts, 'clamped_count')
        case('swiglu_forward_and_per_token_cast', f'{moe_desc(p)} H={h} p2e={use_p2e} weights={weights} g={g} '
             f'flags={f} clamp={clamp}', run)


def check_swiglu_per_channel():
    for m, h, b, nt, rs, clamp in itertools.product(tokens(128), hiddens(), (32, 128), (True, False), (True, False),
                                                    (None, 10.0, 0.5)):
        if not STATE['full'] and (rs or clamp == 10.0):
            continue
        x = torch.randn(m, 2 * h, dtype=torch.bfloat16, device='cuda')
        case('swiglu_forward_and_per_channel_cast_and_transpose',
             f'M={m} H={h} b={b} without_transpose={nt} round_sf={rs} clamp={clamp}',
             lambda x=x, b=b, nt=nt, rs=rs, clamp=clamp: same(*both(
                 'quant.swiglu_forward_and_per_channel_cast_and_transpose', x, 'e4m3', b, round_sf=rs,
                 without_transpose=nt, swiglu_clamp_value=clamp)))


def check_swiglu_backward():
    for p, h, g, rs, clamp in itertools.product(moe_grid(), hiddens(256), (32, 128), (False, True), (None, 10.0, 0.5)):
        if not STATE['full'] and clamp == 10.0:
            continue

        def run(p=p, h=h, g=g, rs=rs, clamp=clamp):
            idx, (_, p2t, p2tk, t2p, *_) = routing(p, g)
            w = torch.rand(idx.shape[0], p['num_topk'], device='cuda')
            xe = tile.moe.expand_to_fused(torch.randn(idx.shape[0], 2 * h, dtype=torch.bfloat16, device='cuda'),
                                          t2p, p2t)
            x = tile.quant.per_token_cast(xe, 'e4m3', g)
            go = torch.randn(xe.shape[0], h, dtype=torch.bfloat16, device='cuda')
            ref, ours = both('quant.swiglu_backward_and_per_token_cast', x, go, w, p2tk, t2p, g, round_sf=rs,
                             swiglu_clamp_value=clamp)
            same(ref[:3], ours[:3], '(out, (x_grad_fp8, sf), x_grad)')
            torch.testing.assert_close(ours[3], ref[3], atol=1e-4, rtol=1e-4)
        case('swiglu_backward_and_per_token_cast', f'{moe_desc(p)} H={h} g={g} round_sf={rs} clamp={clamp}', run)


QUANT = [('per_token_cast', check_per_token_cast), ('per_token_cast(e5m6)+cast_back', check_e5m6),
         ('per_block_cast', check_per_block_cast), ('per_block_cast_lossless', check_lossless),
         ('cast_back', check_cast_back), ('per_channel_cast per_channel_cast_and_transpose', check_per_channel),
         ('per_channel_cast_fused', check_per_channel_fused),
         ('swiglu_forward_and_per_token_cast', check_swiglu_forward),
         ('swiglu_forward_and_per_channel_cast_and_transpose', check_swiglu_per_channel),
         ('swiglu_backward_and_per_token_cast', check_swiglu_backward)]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[1])
    parser.add_argument('--full', action='store_true', help="TileKernels' whole test grids")
    parser.add_argument('--only', help='operators whose name contains this')
    parser.add_argument('--exact', action='store_true', help='--only names one operator exactly')
    parser.add_argument('--seed', type=int, default=0)
    args = parser.parse_args()
    STATE['full'], STATE['only'], STATE['exact'] = args.full, args.only, args.exact
    torch.manual_seed(args.seed)
    print(f'tile_kernels {getattr(tile, "__version__", "?")}, libtk {tk.library_version()}, '
          f'{torch.cuda.get_device_name()}', flush=True)
    for names, check in QUANT + dropin_moe_engram.CHECKS:
        if args.only and not any(args.only == n if args.exact else args.only in n for n in names.split()):
            continue
        try:
            check()
        except Exception as e:  # a failure outside any case (input generation): count it, whatever --only says
            COUNTS['FAIL'] += 1
            print(f'FAIL {names.split()[0]} setup: {type(e).__name__}: {e}', flush=True)
    print(f"{COUNTS['PASS']} passed, {COUNTS['FAIL']} failed", flush=True)
    return 1 if COUNTS['FAIL'] or not COUNTS['PASS'] else 0


if __name__ == '__main__':
    sys.exit(main())
