"""The quant.md operators as plain torch functions of tensors (the PyTorch
peers' eager form; peers.py compiles them with torch.compile), built on the
formats of torch_formats.py.
"""
from torch_formats import (torch_lib, sf_rule, col_major, ue8m0_pack, sf_exponent, ue8m0_bytes, ue8m0_decode, sf_out,
    groups_of, scale_blocks, e4m3_codes, e2m1_decode, decode, group_cast)


def per_token_cast(x, g, round_sf, col, fmt="e4m3", packed=False):
    """quant.md 4.1 (e4m3, e2m1) and 4.5 (e5m6, g == K): plain input."""
    q, sf = group_cast(groups_of(x, g), x.shape[1], round_sf, fmt)
    return q, sf_out(sf, col, packed)


def per_token_requant(xq, sf_words, bm, bk, g, round_sf, col, packed, fmt="e4m3"):
    """quant.md 4.2: e4m3 codes with packed UE8M0 input SF of (bm, bk) blocks, v = fl(dec(xq) * Sin),
    then the per-token cast of v (the oracle order fl(fl(dec * Sin) * INV))."""
    m, k = xq.shape
    v = scale_blocks(xq.float(), ue8m0_decode(sf_words, k // bk), bm, bk)
    q, sf = group_cast(groups_of(v, g), k, round_sf, fmt)
    return q, sf_out(sf, col, packed)


def per_token_sf_only(x, g, round_sf, col):
    """quant.md 4.3: the scale factors only."""
    sf, _ = sf_rule(groups_of(x, g).abs().amax(-1), round_sf)
    return col_major(sf) if col else sf


def per_token_cast_with_sf(x, sf, g):
    """quant.md 4.4: out = e4m3(x * (1 / sf)), sf row-major (m, kb)."""
    m, k = x.shape
    return e4m3_codes(groups_of(x, g) * (1.0 / sf).unsqueeze(-1)).view(m, -1)[:, :k]


def per_block_cast(x, bm, bk, round_sf, col):
    """quant.md 4.6 (M % bm == 0, K % bk == 0)."""
    m, k = x.shape
    xb = x.float().view(m // bm, bm, k // bk, bk)
    sf, inv = sf_rule(xb.abs().amax(dim=(1, 3), keepdim=True), round_sf)
    q = e4m3_codes(xb * inv).view(m, k)
    sf = sf.view(m // bm, k // bk)
    return q, col_major(sf) if col else sf


def lossless_exponents(sf, kb, packed):
    """Input scale factors of quant.md 4.9 -> their biased exponents (m, kb) int32: fp32 bits >> 23, or UE8M0 bytes."""
    return ue8m0_bytes(sf, kb) if packed else sf_exponent(sf)


def per_block_cast_lossless(xq, sf, b_in, b_out, packed_in, packed_out):
    """quant.md 4.9, whole output blocks: e_out = e_max - 6 (0 if e_max < 6) per output block, out =
    e4m3(dec(xq) * 2^(e_in - e_out)), SF byte e_out. As tk: an input block with a zero scale (byte 0)
    gives zeros and is exempt from the range rule. Returns (out, out_sf, violated): violated is a
    bool scalar, True where an input block lies more than 11 exponents below its block's maximum."""
    torch = torch_lib()
    m, k = xq.shape[0], 2 * xq.shape[1]
    (bi, gi), (bo, go) = b_in, b_out
    e = lossless_exponents(sf, k // gi, packed_in).reshape(m // bo, bo // bi, k // go, go // gi)
    e_max = e.amax(dim=(1, 3), keepdim=True)
    e_out = torch.where(e_max >= 6, e_max - 6, torch.zeros_like(e_max))
    present = e > 0
    violated = (present & (e + 5 < e_out)).any()
    mult = (((e - e_out + 127).clamp(min=0)) << 23).view(torch.float32)
    mult = torch.where(present, mult, torch.zeros_like(mult)).view(m // bi, k // gi)
    out = e4m3_codes(scale_blocks(e2m1_decode(xq), mult, bi, gi))
    e_out = e_out.view(m // bo, k // go)
    return out, (ue8m0_pack(e_out) if packed_out else (e_out << 23).view(torch.float32)), violated


def _transpose_bytes(q):
    """A copy of q transposed, moved as bytes (fp8 copies are not in every torch)."""
    torch = torch_lib()
    return q.view(torch.uint8).t().contiguous().view(q.dtype)


def per_channel_cast(v, b, round_sf, transposed):
    """quant.md 4.13 / 4.15: SF per b rows of each column; out (m, k) or transposed (k, m)."""
    m, k = v.shape
    vb = v.float().view(m // b, b, k)
    sf, inv = sf_rule(vb.abs().amax(dim=1, keepdim=True), round_sf)
    q = e4m3_codes(vb * inv).view(m, k)
    return (_transpose_bytes(q) if transposed else q), sf.view(m // b, k)


def _gather_rows(t, idx):
    """t[idx] (fp8 gathered as bytes)."""
    torch = torch_lib()
    if t.dtype == torch.float8_e4m3fn:
        return t.view(torch.uint8)[idx].view(t.dtype)
    return t[idx]


def per_channel_cast_fused(x, xs, pos, b, round_sf):
    """quant.md 4.14: output row p is row pos[p] of x (a zero row for pos < 0; row p without pos),
    dequantized as fl(dec(xq) * xs[r, j div 128]) when xs (the (N, K/128) multipliers) is given,
    then the per-channel b x 1 e4m3 cast."""
    torch = torch_lib()
    if pos is not None:
        idx = pos.clamp(min=0).long()
        x, xs = _gather_rows(x, idx), (None if xs is None else xs[idx])
    v = x.float() if xs is None else scale_blocks(x.float(), xs, 1, 128)
    if pos is not None:
        v = torch.where((pos >= 0).unsqueeze(1), v, torch.zeros_like(v))
    return per_channel_cast(v, b, round_sf, False)


def swiglu(x, clamp, counts=None, valid=None):
    """silu(left) * right in fp32 with the optional clamp (and its counts over `valid` rows)."""
    torch = torch_lib()
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
    torch = torch_lib()
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


def fma_f32(a, b, c):
    """fl(a * b + c) of fp32 values with a single rounding (quant.md 4.18 step 5): the product is exact
    in fp64, the fp64 sum is made round-to-odd with its TwoSum error, and rounding that to fp32 is the
    correctly rounded result (53 >= 24 + 2 bits). No fused multiply-add op needed."""
    torch = torch_lib()
    p = a.double() * b.double()
    s = p + c
    bb = s - p
    err = (p - (s - bb)) + (c - bb)
    bits = s.view(torch.int64)
    step = torch.where((err > 0) == (s > 0), 1, -1)  # one ulp toward the exact sum
    bits = torch.where((err != 0) & ((bits & 1) == 0), bits + step, bits)
    return bits.view(torch.float64).float()


def swiglu_backward(xq, xs, grad, weight, pos, g, round_sf, clamp):
    """quant.md 4.18 steps 1-8: returns (out, (x_grad_fp8, x_grad_sf), x_grad, weight_grad)."""
    torch = torch_lib()
    h = xq.shape[1] // 2
    v = scale_blocks(xq.float(), xs, 1, g)
    xv, yv = v[:, :h], v[:, h:]
    if clamp is not None:
        cx, cy = xv > clamp, (yv > clamp) | (yv < -clamp)
        xv, yv = xv.clamp(max=clamp), yv.clamp(min=-clamp, max=clamp)
    idx = pos.long()
    w = weight.reshape(-1)[idx.clamp(min=0)]
    w = torch.where(idx >= 0, w, torch.zeros_like(w)).unsqueeze(1)
    go = grad.float()
    t = 1.0 + torch.exp(-xv)
    s = torch.reciprocal(t)
    act = xv / t * yv
    gws = go * w * s
    dx = gws * yv * fma_f32(xv, 1.0 - s, 1.0)
    dy = gws * xv
    if clamp is not None:
        dx, dy = torch.where(cx, torch.zeros_like(dx), dx), torch.where(cy, torch.zeros_like(dy), dy)
    d = torch.cat([dx, dy], dim=1)
    q, sf = per_token_cast(d, g, round_sf, False)
    n_slots = weight.numel()  # weight_grad: each row's dot at its slot; slots of no row stay 0
    wg = torch.zeros(n_slots + 1, device=weight.device, dtype=torch.float32)
    wg = wg.scatter(0, torch.where(idx >= 0, idx, n_slots), (go * act).sum(dim=1))
    return (act * w).to(grad.dtype), (q, sf), d.to(grad.dtype), wg[:n_slots].view(weight.shape)


def cast_back(x, sf, bm, bk, out_dtype, fmt="e4m3", packed=False):
    """quant.md 4.10 / 4.12: out = dec(x) * S (fp32 S with any strides, or packed UE8M0 words), whole blocks."""
    d = decode(x, fmt)
    s = ue8m0_decode(sf, d.shape[1] // bk) if packed else sf
    return scale_blocks(d, s, bm, bk).to(out_dtype)


def transpose(x):
    """quant.md 4.19: the last two dims swapped, contiguous."""
    return x.transpose(-2, -1).contiguous()
