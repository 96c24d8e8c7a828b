"""TileKernels (the reference library, TileLang) on tk's benchmark rows.

    plan(row)   -> (description, None) or (None, reason)       no torch needed
    build(row)  -> (Case, description) or (None, reason)       CUDA inputs built once

A Case holds `fn`, a zero-argument callable running the TileKernels function
on the row's inputs, and `check(result)`, which returns warnings when the
result's shapes/dtypes (and column-major SF strides) are not what tk's row
implies. Every call passes its flags by keyword, so a renamed argument fails
loudly instead of silently timing another operation. Input construction follows tk's checkers (bench/*.cpp)
where TileKernels accepts the same layout; where tk's row names a layout
TileKernels cannot take, the row is reported unsupported with the reason.
"""
import re

from peer_inputs import Inputs
from engram_rows import tile_kernels_handlers as engram_handlers
from gate_rows import tile_kernels_handlers as gate_handlers
from mhc_rows import tile_kernels_handlers as mhc_handlers
from mhc_fused_rows import tile_kernels_handlers as mhc_fused_handlers
from moe_layout_rows import tile_kernels_handlers
from rowspec import (Peer, Unsupported, block, cast_back_variant, ceil_div, e4m3_input_block, gather,
                     lossless_blocks, transpose_case, swiglu_backward_case, mask_indices_case, unique_groups_case)

FP8 = "float8_e4m3fn"


class Case:
    def __init__(self, desc, fn, expect):
        self.desc, self.fn, self.expect = desc, fn, expect

    def check(self, result):
        """Warnings for outputs whose shape/dtype differ from the row's."""
        out = []
        for label, path, shape, dtype, *col in self.expect:
            t = result
            try:
                for i in path:
                    t = t[i]
            except Exception as e:  # the result has another structure
                out.append(f"{label}: cannot index result by {path}: {type(e).__name__}: {e}")
                continue
            got_shape = tuple(getattr(t, "shape", ()))
            got_dtype = str(getattr(t, "dtype", type(t).__name__)).replace("torch.", "")
            if got_shape != tuple(shape) or got_dtype != dtype:
                out.append(f"{label}: got {got_shape} {got_dtype}, tk's row implies {tuple(shape)} {dtype}")
            elif col and col[0] and shape[0] > 1 and t.stride(0) != 1:
                out.append(f"{label}: strides {t.stride()}, tk's row implies column-major")
        return out


class _Ctx(Inputs):
    """Input helpers (peer_inputs.Inputs) and TileKernels' modules, on one device."""

    def __init__(self, device):
        super().__init__(device)
        import tile_kernels.moe as moe
        import tile_kernels.quant as q
        import tile_kernels.transpose as t
        self.q, self.t, self.moe = q, t, moe


def _quantized(c, m, k, fmt, blocks, packed):
    """Random bf16 (m, k) quantized by TileKernels itself to `fmt` with
    power-of-two scales over `blocks` (rows, cols): per_token_cast for blocks
    of one row, per_block_cast otherwise; packed UE8M0 column-major scales when
    `packed`. The input of the re-quantization and lossless rows."""
    src = c.randn(m, k, dtype="bfloat16")
    flags = dict(use_tma_aligned_col_major_sf=packed, round_sf=True, use_packed_ue8m0=packed)
    if blocks[0] == 1:
        return c.q.per_token_cast(src, fmt, blocks[1], x_block_size=None, **flags)
    return c.q.per_block_cast(src, fmt, blocks, **flags)


# ---------------------------------------------------------------------------
# One handler per tk op: static checks and the call's description (no torch),
# then make(ctx) -> (fn, expect). expect: (label, index path into the result,
# shape, dtype name).
# ---------------------------------------------------------------------------


def _sf_expect(label, path, rows, groups, packed, col=False):
    shape, dtype = ((rows, ceil_div(groups, 4)), "int32") if packed else ((rows, groups), "float32")
    return label, path, shape, dtype, col


def _per_token_cast(r):
    # tk 'g=G' -> num_per_channels=G; 'col' -> use_tma_aligned_col_major_sf; 'round' -> round_sf;
    # 'ue8m0' -> use_packed_ue8m0; 'e2m1'/'e5m6' -> fmt (else 'e4m3'); 'bf16'/'f32' -> x dtype;
    # 'stride=S' -> x is an (M, K) view of (M, S) rows; 'e4m3(BxG)' -> x = (e4m3 codes, packed UE8M0
    # col-major SF of block (B, G)) with x_block_size=(B, G) (tk's checkPerTokenRequant input, benchmark.cpp).
    r.only(["g=", "bf16", "f32", "col", "round", "ue8m0", "e2m1", "e5m6", "stride=", re.compile(r"e4m3\(\d+x\d+\)")])
    m, k = r.dims(2)
    g = r.value("g")
    col, rnd, packed = r.has("col"), r.has("round"), r.has("ue8m0")
    fmt = "e2m1" if r.has("e2m1") else "e5m6" if r.has("e5m6") else "e4m3"
    xb = e4m3_input_block(r)
    stride = r.value("stride")
    dt = None if xb else r.in_dtype()
    if packed and not (col and rnd):
        raise Unsupported("packed UE8M0 without col+round has no TileKernels layout")
    if fmt == "e5m6":
        if g != k or xb:
            raise Unsupported("TileKernels' e5m6 cast needs g == K and a plain input")
    elif not (g in (16, 32, 64, 128) or (g == k and k % 64 == 0)):
        raise Unsupported(f"TileKernels' per_token_cast needs g in (16, 32, 64, 128) or g == K (K % 64 == 0), got g={g}")
    if xb and g == k:
        raise Unsupported("TileKernels' re-quantization needs g != K")
    if xb and xb[0] != 1 and (xb[0] != xb[1] or xb[0] not in (32, 128)):
        raise Unsupported(f"no TileKernels cast builds an e4m3 input with SF block {xb}")
    xdesc = f"(e4m3[{m}x{k}], packed ue8m0 col sf of {xb[0]}x{xb[1]})" if xb else \
        f"x[{m}x{k} {dt}{f' row stride {stride}' if stride else ''}]"
    desc = (f"per_token_cast({xdesc}, fmt={fmt!r}, num_per_channels={g}, x_block_size={xb}, "
            f"use_tma_aligned_col_major_sf={col}, round_sf={rnd}, use_packed_ue8m0={packed})")
    kb = ceil_div(k, g)
    out_k, out_dt = {"e4m3": (k, FP8), "e2m1": (k // 2, "int8"), "e5m6": (3 * k // 2, "uint8")}[fmt]

    def make(c):
        if xb:
            x = _quantized(c, m, k, "e4m3", xb, packed=True)
        else:
            x = c.randn_strided(m, k, stride, {"bf16": "bfloat16", "f32": "float32"}[dt])
        fn = lambda: c.q.per_token_cast(x, fmt, g, x_block_size=xb, use_tma_aligned_col_major_sf=col, round_sf=rnd,
                                        use_packed_ue8m0=packed)
        sf_groups = 1 if fmt == "e5m6" else kb
        return fn, [("out", (0,), (m, out_k), out_dt), _sf_expect("out_sf", (1,), m, sf_groups, packed, col)]

    return desc, make


def _per_token_cast_with_sf_only(r):
    # tk 'g=G' -> num_per_channels=G; 'col'/'round'/'ue8m0' -> use_tma_aligned_col_major_sf/round_sf/use_packed_ue8m0;
    # 'e2m1' -> fmt (else 'e4m3'); returns out_sf only.
    r.only(["g=", "bf16", "f32", "col", "round", "ue8m0", "e2m1"])
    m, k = r.dims(2)
    g, dt = r.value("g"), r.in_dtype()
    col, rnd, packed = r.has("col"), r.has("round"), r.has("ue8m0")
    fmt = "e2m1" if r.has("e2m1") else "e4m3"
    if g == k or g not in (16, 32, 64, 128):
        raise Unsupported(f"TileKernels' sf_only needs g in (16, 32, 64, 128) and g != K, got g={g}")
    if packed and not (col and rnd):
        raise Unsupported("packed UE8M0 without col+round has no TileKernels layout")
    desc = (f"per_token_cast_with_sf_only(x[{m}x{k} {dt}], fmt={fmt!r}, num_per_channels={g}, x_block_size=None, "
            f"use_tma_aligned_col_major_sf={col}, round_sf={rnd}, use_packed_ue8m0={packed})")

    def make(c):
        x = c.randn(m, k, dtype={"bf16": "bfloat16", "f32": "float32"}[dt])
        fn = lambda: c.q.per_token_cast_with_sf_only(x, fmt, g, x_block_size=None, use_tma_aligned_col_major_sf=col,
                                                     round_sf=rnd, use_packed_ue8m0=packed)
        return fn, [_sf_expect("out_sf", (), m, ceil_div(k, g), packed, col)]

    return desc, make


def _per_token_cast_with_precomputed_sf(r):
    # tk 'g=G' -> num_per_channels=G; sf = row-major fp32 (M, K/G) scale factors of x (tk passes
    # row-major SF, benchmark.cpp); 'round' -> round_sf (ignored by the cast, quant.md 4.4) and makes
    # the given SF powers of two; 'e2m1' -> fmt. Returns out only.
    r.only(["g=", "bf16", "f32", "round", "e2m1"])
    m, k = r.dims(2)
    g, dt, rnd = r.value("g"), r.in_dtype(), r.has("round")
    fmt = "e2m1" if r.has("e2m1") else "e4m3"
    if g == k or g not in (16, 32, 64, 128):
        raise Unsupported(f"TileKernels' precomputed-sf cast needs g in (16, 32, 64, 128) and g != K, got g={g}")
    desc = (f"per_token_cast_with_precomputed_sf(x[{m}x{k} {dt}], fmt={fmt!r}, num_per_channels={g}, "
            f"sf=fp32[{m}x{ceil_div(k, g)}] row-major, x_block_size=None, use_tma_aligned_col_major_sf=False, "
            f"round_sf={rnd}, use_packed_ue8m0=False)")

    def make(c):
        x = c.randn(m, k, dtype={"bf16": "bfloat16", "f32": "float32"}[dt])
        sf = c.q.per_token_cast_with_sf_only(x, fmt, g, x_block_size=None, use_tma_aligned_col_major_sf=False,
                                             round_sf=rnd, use_packed_ue8m0=False).contiguous()
        fn = lambda: c.q.per_token_cast_with_precomputed_sf(x, fmt, g, sf, x_block_size=None,
                                                            use_tma_aligned_col_major_sf=False, round_sf=rnd,
                                                            use_packed_ue8m0=False)
        out_k, out_dt = (k, FP8) if fmt == "e4m3" else (k // 2, "int8")
        return fn, [("out", (), (m, out_k), out_dt)]

    return desc, make


def _per_block_cast(r):
    # tk 'block=BxG' -> block_size=(B, G); 'col'/'round'/'ue8m0' -> use_tma_aligned_col_major_sf/round_sf/
    # use_packed_ue8m0; 'e2m1' -> fmt (else 'e4m3'); 'bf16'/'f32' -> x dtype.
    r.only(["block=", "bf16", "f32", "col", "round", "ue8m0", "e2m1"])
    m, k = r.dims(2)
    bm, bk = block(r)
    dt = r.in_dtype()
    col, rnd, packed = r.has("col"), r.has("round"), r.has("ue8m0")
    fmt = "e2m1" if r.has("e2m1") else "e4m3"
    if bm not in (32, 128) or bk not in (32, 128) or k % 64:
        raise Unsupported(f"TileKernels' per_block_cast needs blocks in (32, 128) and K % 64 == 0, got {bm}x{bk}")
    desc = (f"per_block_cast(x[{m}x{k} {dt}], fmt={fmt!r}, block_size=({bm}, {bk}), "
            f"use_tma_aligned_col_major_sf={col}, round_sf={rnd}, use_packed_ue8m0={packed})")

    def make(c):
        x = c.randn(m, k, dtype={"bf16": "bfloat16", "f32": "float32"}[dt])
        fn = lambda: c.q.per_block_cast(x, fmt, (bm, bk), use_tma_aligned_col_major_sf=col, round_sf=rnd,
                                        use_packed_ue8m0=packed)
        out_k, out_dt = (k, FP8) if fmt == "e4m3" else (k // 2, "int8")
        return fn, [("out", (0,), (m, out_k), out_dt), _sf_expect("out_sf", (1,), ceil_div(m, bm), ceil_div(k, bk), packed, col)]

    return desc, make


def _per_block_cast_lossless(r):
    # tk 'AxB [ue8m0] -> CxD [ue8m0]' -> x_block_size=(A, B), out_block_size=(C, D); input 'ue8m0': x's SF
    # packed UE8M0 column-major (quant.md flags (T,T,T)), else fp32 row-major powers of two (F,T,F); output
    # 'ue8m0' -> use_tma_aligned_col_major_sf=True, round_sf=True, use_packed_ue8m0=True, else (False, True,
    # False). x = TileKernels' own per_token_cast of randn to e2m1 with the input flags (quant.md 4.9 tests).
    b_in, in_packed, b_out, out_packed, out_of_range = lossless_blocks(r)
    m, k = r.dims(2)
    if out_of_range:
        raise Unsupported("tk's out-of-range input makes TileKernels abort on a device-side assert")
    if b_in[0] != 1 and (b_in[0] != b_in[1] or b_in[0] not in (32, 128)):
        raise Unsupported(f"no TileKernels cast builds an e2m1 input with SF block {b_in}")
    if k % 32:
        raise Unsupported("TileKernels' lossless cast needs K % 32 == 0")
    desc = (f"per_block_cast_lossless((e2m1[{m}x{k // 2}] int8, "
            f"{'packed ue8m0 col' if in_packed else 'fp32 row-major pow2'} sf), fmt='e4m3', x_block_size={b_in}, "
            f"out_block_size={b_out}, use_tma_aligned_col_major_sf={out_packed}, round_sf=True, "
            f"use_packed_ue8m0={out_packed})")

    def make(c):
        x = _quantized(c, m, k, "e2m1", b_in, packed=in_packed)
        fn = lambda: c.q.per_block_cast_lossless(x, "e4m3", b_in, b_out, use_tma_aligned_col_major_sf=out_packed,
                                                 round_sf=True, use_packed_ue8m0=out_packed)
        return fn, [("out", (0,), (m, k), FP8),
                    _sf_expect("out_sf", (1,), ceil_div(m, b_out[0]), ceil_div(k, b_out[1]), out_packed, out_packed)]

    return desc, make


def _per_channel_common(r, allow):
    r.only(allow)
    m, k = r.dims(2)
    return m, k, r.value("b"), r.has("round")


def _per_channel_cast(r):
    # tk 'b=B' -> num_per_tokens=B; 'round' -> round_sf; 'bf16'/'f32' -> x dtype; fmt 'e4m3'.
    m, k, b, rnd = _per_channel_common(r, ["b=", "bf16", "f32", "round"])
    dt = r.in_dtype()
    if b != 128 or m % 128 or k % 64:
        raise Unsupported(f"TileKernels' per_channel_cast needs b == 128, M % 128 == 0, K % 64 == 0 (b={b})")
    desc = f"per_channel_cast(x[{m}x{k} {dt}], fmt='e4m3', num_per_tokens={b}, round_sf={rnd})"

    def make(c):
        x = c.randn(m, k, dtype={"bf16": "bfloat16", "f32": "float32"}[dt])
        fn = lambda: c.q.per_channel_cast(x, "e4m3", num_per_tokens=b, round_sf=rnd)
        return fn, [("out", (0,), (m, k), FP8), ("out_sf", (1,), (m // b, k), "float32")]

    return desc, make


def _per_channel_cast_fused(r):
    # tk 'b=B' -> num_per_tokens=B; 'round' -> round_sf; 'e4m3 x_sf' -> x = (e4m3 codes, fp32 (M, K/128)
    # multipliers) with num_per_channels=128; 'gather topT eL/E' -> pos_to_token = the source token of each
    # row of a MoE routing (T of E experts, L local, groups aligned to 128; per_channel_cast_check.cpp), -1 pads.
    m, k, b, rnd = _per_channel_common(r, ["b=", "bf16", "f32", "e4m3", "x_sf", "round", "gather",
                                           re.compile(r"top\d+"), re.compile(r"e\d+/\d+")])
    quantized = r.has("e4m3") and r.has("x_sf")
    dt = "e4m3" if quantized else r.in_dtype()
    gat = gather(r)
    if b != 128 or k % 128:
        raise Unsupported(f"TileKernels' per_channel_cast_fused needs b == 128 and K % 128 == 0 (b={b})")
    if not gat and m % 128:
        raise Unsupported("TileKernels' per_channel_cast_fused needs M % 128 == 0 without a gather")
    xdesc = f"(e4m3[{m}x{k}], fp32[{m}x{k // 128}] multipliers)" if quantized else f"x[{m}x{k} {dt}]"
    gdesc = (f"int32 rows of a top{gat[0]} routing to {gat[1]}/{gat[2]} experts, aligned 128" if gat else "None")
    desc = (f"per_channel_cast_fused({xdesc}, fmt='e4m3', num_per_tokens={b}, round_sf={rnd}, "
            f"num_per_channels={128 if quantized else None}, pos_to_token={gdesc})")

    def make(c):
        if quantized:
            torch = c.torch
            xs = torch.exp2(torch.randint(-12, 4, (m, k // 128), device=c.dev).float()) * \
                (0.5 + 0.5 * torch.rand(m, k // 128, device=c.dev))
            x = (c.e4m3_codes(m, k), xs.contiguous())
        else:
            x = c.randn(m, k, dtype={"bf16": "bfloat16", "f32": "float32"}[dt])
        pos = c.routing(m, gat[0], gat[2], gat[1], 128)[2] if gat else None
        rows = pos.numel() if gat else m
        fn = lambda: c.q.per_channel_cast_fused(x, "e4m3", num_per_tokens=b, round_sf=rnd,
                                                num_per_channels=128 if quantized else None, pos_to_token=pos)
        return fn, [("out", (0,), (rows, k), FP8), ("out_sf", (1,), (ceil_div(rows, b), k), "float32")]

    return desc, make


def _per_channel_cast_and_transpose(r):
    # tk 'b=B' -> num_per_tokens=B; 'round' -> round_sf; 'transposed' is the op itself; bf16 only.
    m, k, b, rnd = _per_channel_common(r, ["b=", "bf16", "round", "transposed"])
    r.in_dtype(("bf16",))
    if not r.has("transposed"):
        raise Unsupported("per_channel_cast_and_transpose row without 'transposed'")
    if b not in (32, 128) or m % 128 or k % 64:
        raise Unsupported(f"TileKernels needs b in (32, 128), M % 128 == 0, K % 64 == 0 (b={b})")
    desc = f"per_channel_cast_and_transpose(x[{m}x{k} bf16], fmt='e4m3', num_per_tokens={b}, round_sf={rnd})"

    def make(c):
        x = c.randn(m, k)
        fn = lambda: c.q.per_channel_cast_and_transpose(x, "e4m3", num_per_tokens=b, round_sf=rnd)
        return fn, [("out", (0,), (k, m), FP8), ("out_sf", (1,), (m // b, k), "float32")]

    return desc, make


def _swiglu_per_channel(r):
    # tk shape MxK: x is bf16 (M, 2K); 'b=B' -> num_per_tokens=B; 'round' -> round_sf; 'transposed' ->
    # without_transpose=False (absent -> True); 'clamp=C' -> swiglu_clamp_value=C.
    m, k, b, rnd = _per_channel_common(r, ["b=", "bf16", "round", "transposed", "swiglu", "clamp="])
    r.in_dtype(("bf16",))
    clamp = r.value("clamp", float)
    tr = r.has("transposed")
    if b not in (32, 128) or m % 128 or (2 * k) % 128:
        raise Unsupported(f"TileKernels needs b in (32, 128), M % 128 == 0, 2K % 128 == 0 (b={b})")
    desc = (f"swiglu_forward_and_per_channel_cast_and_transpose(x[{m}x{2 * k} bf16], fmt='e4m3', num_per_tokens={b}, "
            f"round_sf={rnd}, without_transpose={not tr}, swiglu_clamp_value={clamp})")

    def make(c):
        x = c.randn(m, 2 * k)
        fn = lambda: c.q.swiglu_forward_and_per_channel_cast_and_transpose(
            x, "e4m3", num_per_tokens=b, round_sf=rnd, without_transpose=not tr, swiglu_clamp_value=clamp)
        return fn, [("out", (0,), (k, m) if tr else (m, k), FP8), ("out_sf", (1,), (m // b, k), "float32")]

    return desc, make


def _swiglu_per_token(r):
    # tk 'NrowsxH' -> x (N, 2H), no MoE mapping; 'TtkKeL/ExH' -> a MoE routing of t tokens, top-K of E experts,
    # L local, groups aligned to 16 (SwigluCastCase.alignment); 'g=G' -> num_per_channels=G; 'col'/'round'/
    # 'ue8m0' -> use_tma_aligned_col_major_sf/round_sf/use_packed_ue8m0; 'weights' -> pos_to_token_topk
    # (identity for plain rows) + topk_weights randn fp32 (tokens, K) ((N, 1) for plain rows); 'experts' ->
    # pos_to_expert; 'clamp=C' -> swiglu_clamp_value=C; 'count' -> clamped_count int64 (3,); 'sfclamp=S' ->
    # sf_clamp_min=S.
    r.only(["g=", "bf16", "f32", "col", "round", "ue8m0", "weights", "experts", "clamp=", "count", "sfclamp="])
    rt = r.routing()
    h, g, dt = rt["h"], r.value("g"), r.in_dtype()
    col, rnd, packed = r.has("col"), r.has("round"), r.has("ue8m0")
    weights, experts, count = r.has("weights"), r.has("experts"), r.has("count")
    clamp, sfclamp = r.value("clamp", float), r.value("sfclamp", float)
    if h % 128 or g not in (128, h) or (col and g != 128):
        raise Unsupported(f"TileKernels needs H % 128 == 0, g in (128, H), col only with g == 128 (g={g}, H={h})")
    if count and clamp is None:
        raise Unsupported("'count' without a clamp")
    if packed and not (col and rnd):
        raise Unsupported("packed UE8M0 without col+round has no TileKernels layout")
    plain = rt["rows"] is not None
    rows = f"{rt['rows']} rows" if plain else f"routing T{rt['tokens']} top{rt['topk']} {rt['local']}/{rt['total']}, align 16"
    desc = (f"swiglu_forward_and_per_token_cast(x[({rows}) x {2 * h} {dt}], fmt='e4m3', num_per_channels={g}, "
            f"pos_to_token_topk={'int32' if weights else None}, topk_weights={'fp32' if weights else None}, "
            f"pos_to_expert={'int32' if experts else None}, use_tma_aligned_col_major_sf={col}, round_sf={rnd}, "
            f"use_packed_ue8m0={packed}, swiglu_clamp_value={clamp}, "
            f"clamped_count={'int64[3]' if count else None}, sf_clamp_min={sfclamp})")

    def make(c):
        torch = c.torch
        tdt = {"bf16": "bfloat16", "f32": "float32"}[dt]
        if plain:
            n = rt["rows"]
            x = c.randn(n, 2 * h, dtype=tdt)
            pos = torch.arange(n, device=c.dev, dtype=torch.int32) if weights else None
            w = torch.randn(n, 1, device=c.dev, dtype=torch.float32) if weights else None
            exp = torch.zeros(n, device=c.dev, dtype=torch.int32) if experts else None
        else:
            t, kk = rt["tokens"], rt["topk"]
            p2tt, p2e, row_token, _ = c.routing(t, kk, rt["total"], rt["local"], 16)
            n = p2tt.numel()
            src = c.randn(t, 2 * h, dtype=tdt)
            # padding rows hold a copy of some token, as in tk's checker
            fill = torch.arange(n, device=c.dev, dtype=torch.int32) % t
            x = src[torch.where(row_token >= 0, row_token, fill).long()].contiguous()
            del src
            pos = p2tt if weights else None
            w = torch.randn(t, kk, device=c.dev, dtype=torch.float32) if weights else None
            exp = p2e if experts else None
        cnt = torch.zeros(3, device=c.dev, dtype=torch.int64) if count else None
        fn = lambda: c.q.swiglu_forward_and_per_token_cast(
            x, "e4m3", g, pos_to_token_topk=pos, topk_weights=w, pos_to_expert=exp, use_tma_aligned_col_major_sf=col,
            round_sf=rnd, use_packed_ue8m0=packed, swiglu_clamp_value=clamp, clamped_count=cnt, sf_clamp_min=sfclamp)
        return fn, [("out", (0,), (n, h), FP8), _sf_expect("out_sf", (1,), n, ceil_div(h, g), packed, col)]

    return desc, make


def _swiglu_backward(r):
    # tk 'TtkKeL/ExH' -> a MoE routing (groups aligned to g, swiglu_backward_check.cpp); 'g=G' ->
    # num_per_channels=G; 'round' -> round_sf; 'clamp=C' -> swiglu_clamp_value=C. x = (e4m3 (N, 2H), fp32
    # (N, 2H/G) SF): TileKernels' per_token_cast of bf16 randn tokens (default flags) expanded to the rows;
    # grad_out bf16 randn; weight U[0, 1) (tokens, K); token_topk_to_pos (-1 for slots of other experts).
    rt, h, g, rnd, clamp = swiglu_backward_case(r)
    if g not in (32, 128) or h % g:
        raise Unsupported(f"TileKernels' swiglu backward needs g in (32, 128) and H % g == 0 (g={g})")
    t, kk = rt["tokens"], rt["topk"]
    desc = (f"swiglu_backward_and_per_token_cast((e4m3[N x {2 * h}], fp32[N x {2 * h // g}]), grad_out=bf16[N x {h}], "
            f"weight=fp32[{t}x{kk}], pos_to_token_topk=int32[N], token_topk_to_pos=int32[{t}x{kk}], "
            f"num_per_channels={g}, round_sf={rnd}, swiglu_clamp_value={clamp})  "
            f"(routing T{t} top{kk} {rt['local']}/{rt['total']}, align {g})")

    def make(c):
        torch = c.torch
        p2tt, _, row_token, tt2p = c.routing(t, kk, rt["total"], rt["local"], g)
        n = p2tt.numel()
        src = c.randn(t, 2 * h)
        q, s = c.q.per_token_cast(src, "e4m3", g, x_block_size=None, use_tma_aligned_col_major_sf=False,
                                  round_sf=False, use_packed_ue8m0=False)
        del src
        sel = row_token.clamp(min=0).long()
        pad = (row_token < 0).view(-1, 1)  # padding rows: the cast of a zero row
        xq = q.view(torch.uint8)[sel].masked_fill(pad, 0).contiguous().view(torch.float8_e4m3fn)
        xs = s.contiguous()[sel].masked_fill(pad, 1e-4 / 448).contiguous()
        del q, s
        grad = c.randn(n, h)
        w = torch.rand(t, kk, device=c.dev, dtype=torch.float32)
        fn = lambda: c.q.swiglu_backward_and_per_token_cast((xq, xs), grad, w, p2tt, tt2p, g, round_sf=rnd,
                                                            swiglu_clamp_value=clamp)
        return fn, [("out", (0,), (n, h), "bfloat16"), ("x_grad_fp8", (1, 0), (n, 2 * h), FP8),
                    ("x_grad_fp8_sf", (1, 1), (n, 2 * h // g), "float32"), ("x_grad", (2,), (n, 2 * h), "bfloat16"),
                    ("weight_grad", (3,), (t, kk), "float32")]

    return desc, make


def _cast_back(r):
    # tk 'block=BxG' -> x_block_size=(B, G); '-> bf16'/'-> f32' -> fmt 'bf16'/'fp32'; x's SF: fp32 row-major,
    # 'col' -> TMA-aligned column-major, 'ue8m0' -> packed UE8M0 int32 words column-major (TileKernels infers
    # the layout from the strides and dtype), 'pow2' -> powers of two; 'from e2m1' -> x int8 (M, K/2) of
    # packed FP4 codes; 'from e5m6' -> x uint8 (M, 3K/2), x_special_fmt='e5m6'; else e4m3 codes.
    v = cast_back_variant(r)
    m, k = r.dims(2)
    (bm, bk), fmt = v["block"], v["fmt"]
    if v["packed"] and not v["col"]:
        raise Unsupported("packed UE8M0 SF must be column-major for TileKernels")
    if k % 64:
        raise Unsupported("TileKernels' cast_back needs K % 64 == 0")
    mb, kb = ceil_div(m, bm), ceil_div(k, bk)
    xdesc = {"e4m3": f"e4m3[{m}x{k}]", "e2m1": f"int8[{m}x{k // 2}] e2m1", "e5m6": f"uint8[{m}x{3 * k // 2}] e5m6"}[fmt]
    sdesc = ("packed ue8m0 int32 col" if v["packed"] else "fp32 " + ("col" if v["col"] else "row-major") +
             (" pow2" if v["pow2"] else ""))
    ofmt = {"bf16": "bf16", "f32": "fp32"}[v["out"]]
    special = "e5m6" if fmt == "e5m6" else None
    desc = f"cast_back(({xdesc}, {sdesc} sf[{mb}x{kb}]), fmt={ofmt!r}, x_block_size=({bm}, {bk}), x_special_fmt={special!r})"

    def make(c):
        torch = c.torch
        if fmt == "e4m3":
            x = c.e4m3_codes(m, k)
        elif fmt == "e2m1":
            x = c.rand_bytes(m, k // 2, dtype="int8")
        else:  # random 12-bit codes without exponent 31 (Inf/NaN), packed 8 per 3 words (quant.md 2.4)
            codes = torch.randint(0, 4096, (m, k // 8, 8), device=c.dev, dtype=torch.int64)
            codes = torch.where(((codes >> 6) & 0x1F) == 31, codes & ~0x40, codes)
            h = [codes[..., i] for i in range(8)]
            w0 = (h[0] << 20) | (h[1] << 8) | (h[2] >> 4)
            w1 = ((h[2] & 0xF) << 28) | (h[3] << 16) | (h[4] << 4) | (h[5] >> 8)
            w2 = ((h[5] & 0xFF) << 24) | (h[6] << 12) | h[7]
            words = torch.stack([w0, w1, w2], dim=-1) & 0xFFFFFFFF
            words = torch.where(words >= 2 ** 31, words - 2 ** 32, words).to(torch.int32)
            x = words.view(m, 3 * k // 8).contiguous().view(torch.uint8)
            del codes, h, w0, w1, w2, words
        sf = c.sf_packed(mb, kb) if v["packed"] else c.sf_fp32(mb, kb, v["pow2"], v["col"])
        fn = lambda: c.q.cast_back((x, sf), ofmt, (bm, bk), x_special_fmt=special)
        return fn, [("out", (), (m, k), {"bf16": "bfloat16", "fp32": "float32"}[ofmt])]

    return desc, make


def _transpose(r):
    # tk 'BxRxC dtype' -> batched_transpose(x (B, R, C)); 'RxC dtype stride=S' -> transpose(x), x an (R, C)
    # view of (R, S) rows; dtype bf16/e4m3/f32 (e4m3: random codes without NaN).
    b, rows, cols, dt, stride = transpose_case(r)
    if rows % 64 or cols % 64 or (stride or cols) % 4:
        raise Unsupported("TileKernels' transpose needs rows, cols % 64 == 0 and row stride % 4 == 0")
    tdt = {"bf16": "bfloat16", "e4m3": FP8, "f32": "float32"}[dt]
    lead = (b,) if b is not None else ()
    xs = "x".join(map(str, lead + (rows, cols)))
    name = "batched_transpose" if b is not None else "transpose"
    desc = f"{name}(x[{xs} {dt}{f' row stride {stride}' if stride else ''}])"

    def make(c):
        full = lead + (rows, stride or cols)
        if dt == "e4m3":
            x = c.e4m3_codes(*full)
        else:
            x = c.randn(*full, dtype=tdt)
        if stride:
            x = x[..., :cols]
        f = c.t.batched_transpose if b is not None else c.t.transpose
        fn = lambda: f(x)
        return fn, [("out", (), lead + (cols, rows), tdt)]

    return desc, make


def _topk_gate(r):
    # tk 'NxE k=K' -> moe.topk_gate(scores (N, E) f32 randn, K): topk_idx (N, K) int64.
    r.only(["k="])
    n, e = r.dims(2)
    k = r.value("k")
    desc = f"moe.topk_gate(scores[{n}x{e} f32], num_topk={k})"

    def make(c):
        x = c.randn(n, e, dtype="float32")
        fn = lambda: c.moe.topk_gate(x, k)
        return fn, [("topk_idx", (), (n, k), "int64")]

    return desc, make


def _normalize_weight(r):
    # tk 'NxK' -> moe.normalize_weight(topk_weights (N, K) f32 rand): (denominator (N,), normalized (N, K)).
    r.only([])
    n, k = r.dims(2)
    desc = f"moe.normalize_weight(topk_weights[{n}x{k} f32])"

    def make(c):
        w = c.torch.rand(n, k, device=c.dev, dtype=c.torch.float32)
        fn = lambda: c.moe.normalize_weight(w)
        return fn, [("denominator", (0,), (n,), "float32"), ("normalized_weights", (1,), (n, k), "float32")]

    return desc, make


def _topk_group_idx(r):
    # tk 'NxGxEPG q=Q kg=KG' -> moe.topk_sum_and_topk_group_idx(scores (N, G, EPG) f32 randn, Q, KG).
    r.only(["q=", "kg="])
    n, g, epg = r.dims(3)
    q, kg = r.value("q"), r.value("kg")
    desc = f"moe.topk_sum_and_topk_group_idx(scores[{n}x{g}x{epg} f32], num_topk_sum={q}, num_topk_groups={kg})"

    def make(c):
        x = c.randn(n, g, epg, dtype="float32")
        fn = lambda: c.moe.topk_sum_and_topk_group_idx(x, q, kg)
        return fn, [("group_idx", (), (n, kg), "int64")]

    return desc, make


def _mask_indices(r):
    # tk 'NxK n=E ep=P tp=R/T i64' -> moe.mask_indices_by_tp(ids (N, K) int64 in [0, E), E, P, R, T).
    n_tok, k, e, ep, rank, tp = mask_indices_case(r)
    desc = f"moe.mask_indices_by_tp(ids[{n_tok}x{k} int64], n={e}, num_ep_ranks={ep}, tp_rank={rank}, num_tp_ranks={tp})"

    def make(c):
        ids = c.torch.randint(0, e, (n_tok, k), device=c.dev, dtype=c.torch.int64)
        fn = lambda: c.moe.mask_indices_by_tp(ids, e, ep, rank, tp)
        return fn, [("masked_indices", (), (n_tok, k), "int64")]

    return desc, make


def _unique_groups(r):
    # tk 'NxK groups=G/E' -> moe.inplace_unique_group_indices(ids (N, K) int64 of K distinct experts of E
    # divided into G groups, G); in place, on the same ids every call (the first call changes them).
    n, k, g, e = unique_groups_case(r)
    desc = f"moe.inplace_unique_group_indices(ids[{n}x{k} int64], num_groups={g})"

    def make(c):
        ids = c.grouped_ids(n, k, e, g)
        fn = lambda: c.moe.inplace_unique_group_indices(ids, g)
        return fn, []

    return desc, make


_MISSING = "TileKernels has no counterpart registered for op '{op}'"

HANDLERS = {
    "per_token_cast": _per_token_cast,
    "per_token_cast_with_sf_only": _per_token_cast_with_sf_only,
    "per_token_cast_with_precomputed_sf": _per_token_cast_with_precomputed_sf,
    "per_block_cast": _per_block_cast,
    "per_block_cast_lossless": _per_block_cast_lossless,
    "per_channel_cast": _per_channel_cast,
    "per_channel_cast_fused": _per_channel_cast_fused,
    "per_channel_cast_and_transpose": _per_channel_cast_and_transpose,
    "swiglu_forward_and_per_channel_cast_and_transpose": _swiglu_per_channel,
    "swiglu_forward_and_per_token_cast": _swiglu_per_token,
    "swiglu_backward_and_per_token_cast": _swiglu_backward,
    "cast_back": _cast_back,
    "batched_transpose": _transpose,
    "transpose": _transpose,
    "topk_gate": _topk_gate,
    "normalize_weight": _normalize_weight,
    "topk_sum_and_topk_group_idx": _topk_group_idx,
    "mask_indices_by_tp": _mask_indices,
    "inplace_unique_group_indices": _unique_groups,
    **tile_kernels_handlers(),
    **gate_handlers(),
    **engram_handlers(),
    **mhc_handlers(),
    **mhc_fused_handlers(),
}


_PEER = Peer(HANDLERS, _MISSING, lambda device: _Ctx(device), lambda desc, made: Case(desc, *made))
plan, build = _PEER.plan, _PEER.build
