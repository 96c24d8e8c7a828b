"""PyTorch peers (eager and torch.compile) of tk's benchmark rows.

    plan(row)   -> (description, None) or (None, reason)      no torch needed
    build(row)  -> (TorchCase, description) or (None, reason)

A TorchCase holds `fn` (a function of tensors, with the row's constants baked
in) and `args` (its inputs, built once on the device): eager is fn(*args), and
peers.py compiles fn with torch.compile. The formulations follow quant.md with
plain torch ops: the scale rule of 3.1 (SF = max(amax, CLAMP)/FMAX, or its
power-of-two ceiling with round_sf; INV = FMAX/a' or 1/SF), the element
formats of 2.x (e4m3, e2m1 packed two per byte, E5M6 packed 8 codes per 3
words, UE8M0 exponent bytes) and the scale-factor layouts of 3.2 (row-major,
TMA-aligned column-major, packed UE8M0 words column-major).
"""
import re

from engram_rows import torch_handlers as engram_handlers
from gate_rows import torch_handlers as gate_handlers
from mhc_rows import torch_handlers as mhc_handlers
from mhc_fused_rows import torch_handlers as mhc_fused_handlers
from moe_layout_rows import torch_handlers
from rowspec import (Peer, Unsupported, block, cast_back_variant, ceil_div, e4m3_input_block, gather,
                     lossless_blocks, transpose_case, swiglu_backward_case, mask_indices_case, unique_groups_case)


class TorchCase:
    def __init__(self, desc, fn, args):
        self.desc, self.fn, self.args = desc, fn, args

    def eager(self):
        return self.fn(*self.args)
from torch_formats import (sf_rule, ue8m0_pack, e5m6_pack)
from torch_ops import (per_token_cast, per_token_requant, per_token_sf_only, per_token_cast_with_sf, per_block_cast,
    per_block_cast_lossless, per_channel_cast, per_channel_cast_fused, swiglu_forward_and_per_token_cast,
    swiglu_per_channel, swiglu_backward, cast_back, transpose)


# --- rows -> (description, make(inputs) -> (fn, args)) ---------------------

def _dtype(r):
    return {"bf16": "bfloat16", "f32": "float32"}[r.in_dtype()]


def _ptc(r):
    # 'e2m1'/'e5m6' -> output format; 'ue8m0' -> packed UE8M0 SF (needs col, round); 'e4m3(BxG)' -> x =
    # (e4m3 codes, packed UE8M0 col-major SF of BxG blocks), tk's checkPerTokenRequant input (benchmark.cpp).
    r.only(["g=", "bf16", "f32", "col", "round", "ue8m0", "e2m1", "e5m6", "stride=", re.compile(r"e4m3\(\d+x\d+\)")])
    m, k = r.dims(2)
    g, col, rnd, packed, stride = r.value("g"), r.has("col"), r.has("round"), r.has("ue8m0"), r.value("stride")
    fmt = "e2m1" if r.has("e2m1") else "e5m6" if r.has("e5m6") else "e4m3"
    xb = e4m3_input_block(r)
    if packed and not (col and rnd):
        raise Unsupported("packed UE8M0 without col and round is no valid layout (quant.md 3.2)")
    if fmt == "e5m6" and (g != k or k % 8):
        raise Unsupported("the e5m6 cast needs g == K and K % 8 == 0 (quant.md 4.5)")
    if fmt == "e2m1" and k % 2:
        raise Unsupported("the e2m1 cast needs an even K")
    flags = f"round_sf={rnd}, col={col}" + (f", fmt='{fmt}'" if fmt != "e4m3" else "") + \
        (", packed_ue8m0=True" if packed else "")
    if xb:
        if stride or m % xb[0] or k % xb[1]:
            raise Unsupported("the torch re-quantization peer needs whole input blocks and no row stride")
        desc = f"per_token_requant(e4m3[{m}x{k}], packed ue8m0 col sf of {xb[0]}x{xb[1]}, g={g}, {flags})"

        def make_requant(c):
            xq, sfw = c.e4m3_codes(m, k), c.sf_packed(m // xb[0], k // xb[1])
            return (lambda xq, sfw: per_token_requant(xq, sfw, xb[0], xb[1], g, rnd, col, packed, fmt)), (xq, sfw)

        return desc, make_requant
    dt = _dtype(r)
    desc = f"per_token_cast(x[{m}x{k} {dt}], g={g}, {flags})"

    def make(c):
        x = c.randn_strided(m, k, stride, dt)
        return (lambda x: per_token_cast(x, g, rnd, col, fmt, packed)), (x,)

    return desc, make


def _sf_only(r):
    r.only(["g=", "bf16", "f32", "col", "round"])
    m, k = r.dims(2)
    g, dt, col, rnd = r.value("g"), _dtype(r), r.has("col"), r.has("round")
    desc = f"per_token_sf_only(x[{m}x{k} {dt}], g={g}, round_sf={rnd}, col={col})"

    def make(c):
        x = c.randn(m, k, dtype=dt)
        return (lambda x: per_token_sf_only(x, g, rnd, col)), (x,)

    return desc, make


def _precomputed(r):
    r.only(["g=", "bf16", "f32", "round"])
    m, k = r.dims(2)
    g, dt, rnd = r.value("g"), _dtype(r), r.has("round")
    desc = f"per_token_cast_with_sf(x[{m}x{k} {dt}], sf=fp32[{m}x{ceil_div(k, g)}] row-major, g={g})"

    def make(c):
        x = c.randn(m, k, dtype=dt)
        sf = per_token_sf_only(x, g, rnd, False).contiguous()
        return (lambda x, sf: per_token_cast_with_sf(x, sf, g)), (x, sf)

    return desc, make


def _per_block(r):
    r.only(["block=", "bf16", "f32", "col", "round"])
    m, k = r.dims(2)
    (bm, bk), dt, col, rnd = block(r), _dtype(r), r.has("col"), r.has("round")
    if m % bm or k % bk:
        raise Unsupported("the torch peer needs whole blocks")
    desc = f"per_block_cast(x[{m}x{k} {dt}], block=({bm}, {bk}), round_sf={rnd}, col={col})"

    def make(c):
        x = c.randn(m, k, dtype=dt)
        return (lambda x: per_block_cast(x, bm, bk, rnd, col)), (x,)

    return desc, make


def _lossless(r):
    # 'AxB [ue8m0] -> CxD [ue8m0]': input SF packed UE8M0 col-major or fp32 row-major powers of two;
    # output packed UE8M0 (col, round) or fp32 row-major. Inputs as tk's checkPerBlockLossless.
    b_in, in_packed, b_out, out_packed, out_of_range = lossless_blocks(r)
    m, k = r.dims(2)
    if out_of_range:
        raise Unsupported("tk's out-of-range row times a refused call; no torch peer")
    if b_out[0] % b_in[0] or b_out[1] % b_in[1] or b_in[1] % 2 or m % b_out[0] or k % b_out[1]:
        raise Unsupported("the torch lossless peer needs whole output blocks made of whole input blocks")
    desc = (f"per_block_cast_lossless((e2m1[{m}x{k // 2}], {'packed ue8m0 col' if in_packed else 'fp32 row-major'} "
            f"pow2 sf), x_block={b_in}, out_block={b_out}, out sf {'packed ue8m0 col' if out_packed else 'fp32 row-major'})")

    def make(c):
        x, e = c.lossless_input(m, k, b_in, b_out)
        sf = ue8m0_pack(e) if in_packed else (e << 23).view(c.torch.float32).contiguous()
        return (lambda x, sf: per_block_cast_lossless(x, sf, b_in, b_out, in_packed, out_packed)), (x, sf)

    return desc, make


def _per_channel(r):
    r.only(["b=", "bf16", "f32", "round", "transposed"])
    m, k = r.dims(2)
    b, dt, rnd, tr = r.value("b"), _dtype(r), r.has("round"), r.has("transposed")
    if (r.op == "per_channel_cast_and_transpose") != tr:
        raise Unsupported("'transposed' does not match the op")
    if m % b:
        raise Unsupported("the torch peer needs whole blocks")
    desc = f"per_channel_cast(x[{m}x{k} {dt}], b={b}, round_sf={rnd}, transposed={tr})"

    def make(c):
        x = c.randn(m, k, dtype=dt)
        return (lambda x: per_channel_cast(x, b, rnd, tr)), (x,)

    return desc, make


def _per_channel_fused(r):
    # 'e4m3 x_sf' -> x = (e4m3 codes, fp32 (M, K/128) multipliers); 'gather topT eL/E' -> pos_to_token =
    # the rows of a MoE routing of the M tokens (groups aligned to 128), as tk's per_channel_cast_check.cpp.
    r.only(["b=", "bf16", "f32", "e4m3", "x_sf", "round", "gather", re.compile(r"top\d+"), re.compile(r"e\d+/\d+")])
    m, k = r.dims(2)
    b, rnd, gat = r.value("b"), r.has("round"), gather(r)
    quantized = r.has("e4m3")
    if quantized != r.has("x_sf"):
        raise Unsupported("'e4m3' and 'x_sf' come together")
    dt = "e4m3" if quantized else _dtype(r)
    if (quantized and k % 128) or (128 if gat else m) % b:
        raise Unsupported("the torch peer needs whole blocks (K % 128 with x_sf; b dividing the rows)")
    xdesc = f"(e4m3[{m}x{k}], fp32[{m}x{k // 128}] multipliers)" if quantized else f"x[{m}x{k} {dt}]"
    gdesc = f"rows of a top{gat[0]} routing to {gat[1]}/{gat[2]} experts, aligned 128" if gat else "None"
    desc = f"per_channel_cast_fused({xdesc}, pos_to_token={gdesc}, b={b}, round_sf={rnd})"

    def make(c):
        torch = c.torch
        if quantized:
            x = c.e4m3_codes(m, k)
            xs = (torch.exp2(torch.randint(-12, 4, (m, k // 128), device=c.dev).float()) *
                  (0.5 + 0.5 * torch.rand(m, k // 128, device=c.dev))).contiguous()
        else:
            x, xs = c.randn(m, k, dtype=dt), None
        pos = c.routing(m, gat[0], gat[2], gat[1], 128)[2] if gat else None
        return (lambda x, xs, pos: per_channel_cast_fused(x, xs, pos, b, rnd)), (x, xs, pos)

    return desc, make


def _swiglu_channel(r):
    r.only(["b=", "bf16", "round", "transposed", "swiglu", "clamp="])
    m, k = r.dims(2)
    b, rnd, tr, clamp = r.value("b"), r.has("round"), r.has("transposed"), r.value("clamp", float)
    r.in_dtype(("bf16",))
    if m % b:
        raise Unsupported("the torch peer needs whole blocks")
    desc = f"swiglu_per_channel(x[{m}x{2 * k} bf16], b={b}, round_sf={rnd}, transposed={tr}, clamp={clamp})"

    def make(c):
        x = c.randn(m, 2 * k)
        return (lambda x: swiglu_per_channel(x, b, rnd, tr, clamp)), (x,)

    return desc, make


def _swiglu_token(r):
    r.only(["g=", "bf16", "f32", "col", "round", "weights", "experts", "clamp=", "count"])
    rt = r.routing()
    h, g, dt = rt["h"], r.value("g"), _dtype(r)
    col, rnd, weights, experts, count = (r.has(w) for w in ("col", "round", "weights", "experts", "count"))
    clamp = r.value("clamp", float)
    plain = rt["rows"] is not None
    rows = f"{rt['rows']} rows" if plain else f"routing T{rt['tokens']} top{rt['topk']} {rt['local']}/{rt['total']}"
    desc = (f"swiglu_forward_and_per_token_cast(x[({rows}) x {2 * h} {dt}], g={g}, weights={weights}, "
            f"experts={experts}, round_sf={rnd}, col={col}, clamp={clamp}, count={count})")

    def make(c):
        torch = c.torch
        if plain:
            n = rt["rows"]
            x = c.randn(n, 2 * h, dtype=dt)
            pos = torch.arange(n, device=c.dev, dtype=torch.int32) if weights else None
            w = torch.randn(n, 1, device=c.dev) if weights else None
            exp = torch.zeros(n, device=c.dev, dtype=torch.int32) if experts else None
        else:
            t, kk = rt["tokens"], rt["topk"]
            p2tt, p2e, row_token, _ = c.routing(t, kk, rt["total"], rt["local"], 16)
            n = p2tt.numel()
            src = c.randn(t, 2 * h, dtype=dt)
            fill = torch.arange(n, device=c.dev, dtype=torch.int32) % t
            x = src[torch.where(row_token >= 0, row_token, fill).long()].contiguous()
            pos = p2tt if weights else None
            w = torch.randn(t, kk, device=c.dev) if weights else None
            exp = p2e if experts else None
        cnt = torch.zeros(3, device=c.dev, dtype=torch.int64) if count else None
        fn = lambda x, pos, w, exp, cnt: swiglu_forward_and_per_token_cast(x, pos, w, exp, g, rnd, col, clamp, cnt)
        return fn, (x, pos, w, exp, cnt)

    return desc, make


def _swiglu_backward(r):
    # 'TtkKeL/ExH' -> a MoE routing (groups aligned to g); x = the tokens' per-token e4m3 cast (default
    # flags) expanded to the rows, padding rows the cast of a zero row; grad_out bf16 randn; weight
    # U[0, 1) (tokens, K): tk's swiglu_backward_check.cpp.
    rt, h, g, rnd, clamp = swiglu_backward_case(r)
    if h % g:
        raise Unsupported(f"the torch peer needs H % g == 0 (g={g})")
    t, kk = rt["tokens"], rt["topk"]
    desc = (f"swiglu_backward((e4m3[N x {2 * h}], fp32[N x {2 * h // g}]), grad_out=bf16[N x {h}], weight=fp32[{t}x{kk}], "
            f"pos_to_token_topk=int32[N], g={g}, round_sf={rnd}, clamp={clamp})  "
            f"(routing T{t} top{kk} {rt['local']}/{rt['total']}, align {g})")

    def make(c):
        torch = c.torch
        p2tt, _, row_token, _ = c.routing(t, kk, rt["total"], rt["local"], g)
        q, s = per_token_cast(c.randn(t, 2 * h), g, False, False)
        sel, pad = row_token.clamp(min=0).long(), (row_token < 0).unsqueeze(1)
        xq = q.view(torch.uint8)[sel].masked_fill(pad, 0).view(torch.float8_e4m3fn)
        zero_row_sf = sf_rule(torch.zeros((), device=c.dev), False)[0]
        xs = s[sel].masked_fill(pad, zero_row_sf).contiguous()
        grad = c.randn(p2tt.numel(), h)
        w = torch.rand(t, kk, device=c.dev, dtype=torch.float32)
        fn = lambda xq, xs, grad, w, p2tt: swiglu_backward(xq, xs, grad, w, p2tt, g, rnd, clamp)
        return fn, (xq, xs, grad, w, p2tt)

    return desc, make


def _cast_back(r):
    v = cast_back_variant(r)
    m, k = r.dims(2)
    (bm, bk), fmt, packed = v["block"], v["fmt"], v["packed"]
    if packed and not v["col"]:
        raise Unsupported("packed UE8M0 scale factors are column-major (quant.md 3.3)")
    if m % bm or k % bk or (fmt == "e2m1" and k % 2) or (fmt == "e5m6" and k % 8):
        raise Unsupported("the torch peer needs whole blocks (and K even for e2m1, K % 8 == 0 for e5m6)")
    out = {"bf16": "bfloat16", "f32": "float32"}[v["out"]]
    xdesc = {"e4m3": f"e4m3[{m}x{k}]", "e2m1": f"e2m1 int8[{m}x{k // 2}]", "e5m6": f"e5m6 uint8[{m}x{3 * k // 2}]"}[fmt]
    sdesc = "packed ue8m0 col" if packed else "fp32 " + ("col" if v["col"] else "row-major") + (" pow2" if v["pow2"] else "")
    desc = f"cast_back({xdesc}, {sdesc} sf, block=({bm}, {bk}), -> {out})"

    def make(c):
        torch = c.torch
        if fmt == "e4m3":
            x = c.e4m3_codes(m, k)
        elif fmt == "e2m1":
            x = c.rand_bytes(m, k // 2, dtype="int8")
        else:
            x = e5m6_pack(c.e5m6_codes(m, k))
        sf = c.sf_packed(m // bm, k // bk) if packed else c.sf_fp32(m // bm, k // bk, v["pow2"], v["col"])
        od = getattr(torch, out)
        return (lambda x, sf: cast_back(x, sf, bm, bk, od, fmt, packed)), (x, sf)

    return desc, make


def _transpose(r):
    b, rows, cols, dt, stride = transpose_case(r)
    lead = (b,) if b is not None else ()
    desc = f"x.transpose(-2, -1).contiguous(), x[{'x'.join(map(str, lead + (rows, cols)))} {dt}" + \
           (f" row stride {stride}]" if stride else "]") + (" moved as uint8" if dt == "e4m3" else "")

    def make(c):
        full = lead + (rows, stride or cols)
        # e4m3 as its bytes: the same data movement, and copies of uint8 work in every torch
        x = c.rand_bytes(*full, dtype="uint8") if dt == "e4m3" else \
            c.randn(*full, dtype={"bf16": "bfloat16", "f32": "float32"}[dt])
        if stride:
            x = x[..., :cols]
        return transpose, (x,)

    return desc, make


def _topk_gate(r):
    # torch.topk's indices (what a torch user writes; not stable on ties, which randn rows do not have).
    r.only(["k="])
    n, e = r.dims(2)
    k = r.value("k")
    desc = f"torch.topk(scores[{n}x{e} f32], {k}, dim=1).indices"

    def make(c):
        x = c.randn(n, e, dtype="float32")
        torch = c.torch
        return (lambda s: torch.topk(s, k, dim=1).indices), (x,)

    return desc, make


def _normalize_weight(r):
    # d = 1e-20 + sum of the row (torch's summation order), w / d.
    r.only([])
    n, k = r.dims(2)
    desc = f"d = 1e-20 + w.sum(1); (d, w / d[:, None]), w[{n}x{k} f32]"

    def make(c):
        w = c.torch.rand(n, k, device=c.dev, dtype=c.torch.float32)

        def fn(x):
            d = x.sum(dim=1) + 1e-20
            return d, x / d[:, None]
        return fn, (w,)

    return desc, make


def _topk_group_idx(r):
    # The group scores as torch writes them: topk(q) values summed, then topk over groups.
    r.only(["q=", "kg="])
    n, g, epg = r.dims(3)
    q, kg = r.value("q"), r.value("kg")
    desc = f"scores.topk({q}).values.sum(-1).topk({kg}).indices, scores[{n}x{g}x{epg} f32]"

    def make(c):
        x = c.randn(n, g, epg, dtype="float32")
        return (lambda s: s.topk(q, dim=-1).values.sum(dim=-1).topk(kg, dim=-1).indices), (x,)

    return desc, make


def _mask_indices(r):
    # The closed form with torch's integer ops (moe.md 2.5).
    n_tok, k, e, ep, rank, tp = mask_indices_case(r)
    per = e // ep
    desc = f"torch where/div/remainder on ids[{n_tok}x{k} int64], R={per}, tp={rank}/{tp}"

    def make(c):
        torch = c.torch
        ids = torch.randint(0, e, (n_tok, k), device=c.dev, dtype=torch.int64)

        def fn(v):
            q = torch.div(v, per, rounding_mode="floor")
            keep = (v >= 0) & (torch.remainder(q, tp) == rank)
            local = torch.div(q, tp, rounding_mode="floor") * per + torch.remainder(v, per)
            return torch.where(keep, local, torch.full_like(v, -1))
        return fn, (ids,)

    return desc, make


def _unique_groups(r):
    # A stable sort per row marks every later equal value (the spec's torch reference), in place.
    n, k, g, e = unique_groups_case(r)
    desc = f"stable sort + scatter of repeats, ids[{n}x{k} int64], {g} groups"

    def make(c):
        torch = c.torch
        ids = c.grouped_ids(n, k, e, g)

        def fn(v):
            s, order = v.sort(dim=1, stable=True)
            repeat = torch.zeros_like(s, dtype=torch.bool)
            repeat[:, 1:] = (s[:, 1:] == s[:, :-1]) & (s[:, 1:] >= 0)
            return v.scatter(1, order, torch.where(repeat, torch.full_like(s, -1), s))
        return fn, (ids,)

    return desc, make


_MISSING = "no torch peer written for op '{op}'"

HANDLERS = {
    "per_token_cast": _ptc,
    "per_token_cast_with_sf_only": _sf_only,
    "per_token_cast_with_precomputed_sf": _precomputed,
    "per_block_cast": _per_block,
    "per_block_cast_lossless": _lossless,
    "per_channel_cast": _per_channel,
    "per_channel_cast_fused": _per_channel_fused,
    "per_channel_cast_and_transpose": _per_channel,
    "swiglu_forward_and_per_channel_cast_and_transpose": _swiglu_channel,
    "swiglu_forward_and_per_token_cast": _swiglu_token,
    "swiglu_backward_and_per_token_cast": _swiglu_backward,
    "cast_back": _cast_back,
    "batched_transpose": _transpose,
    "transpose": _transpose,
    "topk_gate": _topk_gate,
    "normalize_weight": _normalize_weight,
    "topk_sum_and_topk_group_idx": _topk_group_idx,
    "mask_indices_by_tp": _mask_indices,
    "inplace_unique_group_indices": _unique_groups,
    **torch_handlers(),
    **gate_handlers(),
    **engram_handlers(),
    **mhc_handlers(),
    **mhc_fused_handlers(),
}


def _inputs(device):
    from peer_inputs import Inputs
    return Inputs(device)


_PEER = Peer(HANDLERS, _MISSING, _inputs, lambda desc, made: TorchCase(desc, *made))
plan, build = _PEER.plan, _PEER.build
