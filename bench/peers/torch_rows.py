"""PyTorch peers (eager and torch.compile) of tk's benchmark rows.

    plan(row)   -> (description, None) or (None, reason)      no torch needed
    build(row)  -> (TorchCase, description) or (None, reason)

A TorchCase holds `fn` (a function of tensors, with the row's constants baked
in) and `args` (its inputs, built once on the device): eager is fn(*args), and
peers.py compiles fn with torch.compile. The formulations follow quant.md with
plain torch ops; the scale rule is SF = max(amax, 1e-4)/448 (or its power-of-
two ceiling with round_sf), out = e4m3(v * INV), INV = 448/a' (or 1/SF).
Rows in packed UE8M0, FP4 or E5M6, and re-quantization and lossless rows, have
no torch peer here.
"""
import re

from rowspec import Unsupported, block, cast_back_variant, ceil_div, handler_for, transpose_case


class TorchCase:
    def __init__(self, desc, fn, args):
        self.desc, self.fn, self.args = desc, fn, args

    def eager(self):
        return self.fn(*self.args)


# --- the operations (torch imported lazily: the dry run has none) ----------

def _t():
    import torch
    return torch


def sf_rule(a, round_sf):
    """(SF, INV) of fp32 absmax `a` for e4m3 (quant.md 3.1)."""
    torch = _t()
    a = a.clamp(min=1e-4)
    s = a / 448.0
    if round_sf:  # power-of-two ceiling of s
        sf = ((s.view(torch.int32) + 0x7FFFFF) & 0x7F800000).view(torch.float32)
        return sf, 1.0 / sf  # exact: sf is a power of two
    # a true division: `448.0 / a` would be torch's reciprocal(a) * 448, an ulp off at times
    return s, torch.full_like(a, 448.0) / a


def col_major(sf):
    """(m, kb) scale factors in TMA-aligned column-major strides (1, align(m, 4))."""
    torch = _t()
    m, kb = sf.shape
    buf = torch.empty(kb, (m + 3) // 4 * 4, device=sf.device, dtype=torch.float32)
    buf[:, :m] = sf.t()
    return buf[:, :m].t()


def _groups(x, g):
    """x (m, k) as fp32 (m, kb, g), zero-padded to whole groups."""
    torch = _t()
    m, k = x.shape
    kb = (k + g - 1) // g
    xf = x.float()
    if kb * g != k:
        xf = torch.nn.functional.pad(xf, (0, kb * g - k))
    return xf.view(m, kb, g)


def _e4m3(v):
    return v.clamp(-448.0, 448.0).to(_t().float8_e4m3fn)


def per_token_cast(x, g, round_sf, col):
    """quant.md 4.1, plain input, e4m3 output."""
    m, k = x.shape
    xg = _groups(x, g)
    sf, inv = sf_rule(xg.abs().amax(-1, keepdim=True), round_sf)
    q = _e4m3(xg * inv).view(m, -1)[:, :k]
    sf = sf.squeeze(-1)
    return q, col_major(sf) if col else sf


def per_token_sf_only(x, g, round_sf, col):
    """quant.md 4.3: the scale factors only."""
    sf, _ = sf_rule(_groups(x, g).abs().amax(-1), round_sf)
    return col_major(sf) if col else sf


def per_token_cast_with_sf(x, sf, g):
    """quant.md 4.4: out = e4m3(x * (1 / sf)), sf row-major (m, kb)."""
    m, k = x.shape
    return _e4m3(_groups(x, g) * (1.0 / sf).unsqueeze(-1)).view(m, -1)[:, :k]


def per_block_cast(x, bm, bk, round_sf, col):
    """quant.md 4.6 (M % bm == 0, K % bk == 0)."""
    m, k = x.shape
    xb = x.float().view(m // bm, bm, k // bk, bk)
    sf, inv = sf_rule(xb.abs().amax(dim=(1, 3), keepdim=True), round_sf)
    q = _e4m3(xb * inv).view(m, k)
    sf = sf.view(m // bm, k // bk)
    return q, col_major(sf) if col else sf


def _transpose_bytes(q):
    """A copy of q transposed, moved as bytes (fp8 copies are not in every torch)."""
    torch = _t()
    return q.view(torch.uint8).t().contiguous().view(q.dtype)


def per_channel_cast(v, b, round_sf, transposed):
    """quant.md 4.13 / 4.15: SF per b rows of each column; out (m, k) or transposed (k, m)."""
    m, k = v.shape
    vb = v.float().view(m // b, b, k)
    sf, inv = sf_rule(vb.abs().amax(dim=1, keepdim=True), round_sf)
    q = _e4m3(vb * inv).view(m, k)
    return (_transpose_bytes(q) if transposed else q), sf.view(m // b, k)


def swiglu(x, clamp, counts=None, valid=None):
    """silu(left) * right in fp32 with the optional clamp (and its counts over `valid` rows)."""
    torch = _t()
    h = x.shape[1] // 2
    left, right = x[:, :h].float(), x[:, h:].float()
    if clamp is not None:
        if counts is not None:
            c = [left > clamp, right > clamp, right < -clamp]
            if valid is not None:
                c = [t & valid for t in c]
            counts.add_(torch.stack([t.sum() for t in c]))
        left = left.clamp(max=clamp)
        right = right.clamp(min=-clamp, max=clamp)
    return left / (1.0 + torch.exp(-left)) * right


def swiglu_forward_and_per_token_cast(x, pos, weights, expert, g, round_sf, col, clamp, counts):
    """quant.md 4.16: SwiGLU, times the row's top-k weight weights.flat[pos[p]] (0 for pos < 0),
    rows with expert < 0 zeroed, then the per-token e4m3 cast."""
    torch = _t()
    valid = None if expert is None else (expert >= 0).unsqueeze(1)
    y = swiglu(x, clamp, counts, valid)
    if pos is not None:
        w = weights.reshape(-1)[pos.clamp(min=0).long()]
        y = y * torch.where(pos >= 0, w, torch.zeros_like(w)).unsqueeze(1)
    if valid is not None:
        y = torch.where(valid, y, torch.zeros_like(y))
    return per_token_cast(y, g, round_sf, col)


def swiglu_per_channel(x, b, round_sf, transposed, clamp):
    """quant.md 4.17: SwiGLU then the per-channel cast, transposed or not."""
    return per_channel_cast(swiglu(x, clamp), b, round_sf, transposed)


def cast_back(x, sf, bm, bk, out_dtype):
    """quant.md 4.10 for e4m3 codes and fp32 SF (any strides): out = dec(x) * SF."""
    m, k = x.shape
    xb = x.float().view(m // bm, bm, k // bk, bk)
    return (xb * sf[:, None, :, None]).view(m, k).to(out_dtype)


def transpose(x):
    """quant.md 4.19: the last two dims swapped, contiguous."""
    return x.transpose(-2, -1).contiguous()


# --- rows -> (description, make(inputs) -> (fn, args)) ---------------------

def _dtype(r):
    return {"bf16": "bfloat16", "f32": "float32"}[r.in_dtype()]


def _ptc(r):
    r.only(["g=", "bf16", "f32", "col", "round", "ue8m0", "e2m1", "e5m6", "stride=", re.compile(r"e4m3\(\d+x\d+\)")])
    for w in ("ue8m0", "e2m1", "e5m6"):
        if r.has(w):
            raise Unsupported(f"no torch peer for '{w}' output")
    if any(w.startswith("e4m3(") for w in r.words):
        raise Unsupported("no torch peer for re-quantization input")
    m, k = r.dims(2)
    g, dt, col, rnd, stride = r.value("g"), _dtype(r), r.has("col"), r.has("round"), r.value("stride")
    desc = f"per_token_cast(x[{m}x{k} {dt}], g={g}, round_sf={rnd}, col={col})"

    def make(c):
        x = c.randn_strided(m, k, stride, dt)
        return (lambda x: per_token_cast(x, g, rnd, col)), (x,)

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


def _cast_back(r):
    v = cast_back_variant(r)
    if v["fmt"] != "e4m3" or v["packed"]:
        raise Unsupported("no torch peer for FP4/E5M6 input or packed UE8M0 scale factors")
    m, k = r.dims(2)
    bm, bk = v["block"]
    if m % bm or k % bk:
        raise Unsupported("the torch peer needs whole blocks")
    out = {"bf16": "bfloat16", "f32": "float32"}[v["out"]]
    desc = f"cast_back(e4m3[{m}x{k}], fp32 sf {'col' if v['col'] else 'row-major'}, block=({bm}, {bk}), -> {out})"

    def make(c):
        x = c.e4m3_codes(m, k)
        sf = c.sf_fp32(m // bm, k // bk, v["pow2"], v["col"])
        od = getattr(c.torch, out)
        return (lambda x, sf: cast_back(x, sf, bm, bk, od)), (x, sf)

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


_MISSING = "no torch peer written for op '{op}'"

HANDLERS = {
    "per_token_cast": _ptc,
    "per_token_cast_with_sf_only": _sf_only,
    "per_token_cast_with_precomputed_sf": _precomputed,
    "per_block_cast": _per_block,
    "per_channel_cast": _per_channel,
    "per_channel_cast_and_transpose": _per_channel,
    "swiglu_forward_and_per_channel_cast_and_transpose": _swiglu_channel,
    "swiglu_forward_and_per_token_cast": _swiglu_token,
    "cast_back": _cast_back,
    "batched_transpose": _transpose,
    "transpose": _transpose,
}


def plan(row):
    handled, why = handler_for(HANDLERS, row, _MISSING)
    return (handled[0], None) if handled else (None, why)


_INPUTS = {}


def build(row, device="cuda"):
    handled, why = handler_for(HANDLERS, row, _MISSING)
    if handled is None:
        return None, why
    desc, make = handled
    if device not in _INPUTS:
        from peer_inputs import Inputs
        _INPUTS[device] = Inputs(device)
    fn, args = make(_INPUTS[device])
    return TorchCase(desc, fn, args), desc
