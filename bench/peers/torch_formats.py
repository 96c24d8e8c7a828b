"""The formats, scale rule and scale-factor layouts of quant.md in plain
torch, for the PyTorch peers (torch_ops.py, torch_rows.py): the scale rule
of 3.1, e4m3 / e2m1 (two per byte) / E5M6 (8 codes per 3 words) of 2.x, and
UE8M0 exponent bytes packed four per word, column-major (3.2). torch is
imported lazily: the dry run has none.
"""
def torch_lib():
    import torch
    return torch


# quant.md 3.1: FMAX and the default CLAMP per output format.
FMAX = {"e4m3": 448.0, "e2m1": 6.0, "e5m6": 65024.0}
CLAMP = {"e4m3": 1e-4, "e2m1": 6.0 * 2.0 ** -126, "e5m6": 1e-4}


def sf_rule(a, round_sf, fmt="e4m3"):
    """(SF, INV) of fp32 absmax `a` for `fmt` (quant.md 3.1)."""
    torch = torch_lib()
    a = a.clamp(min=CLAMP[fmt])
    fmax = torch.full_like(a, FMAX[fmt])
    # true divisions: on CUDA `a / 448.0` is a * reciprocal(448), an ulp off at times
    s = a / fmax
    if round_sf:  # power-of-two ceiling of s
        sf = ((s.view(torch.int32) + 0x7FFFFF) & 0x7F800000).view(torch.float32)
        return sf, 1.0 / sf  # exact: sf is a power of two
    return s, fmax / a


def col_major(sf):
    """(m, kb) scale factors in TMA-aligned column-major strides (1, align(m, 4)) (quant.md 3.2)."""
    torch = torch_lib()
    m, kb = sf.shape
    buf = torch.empty(kb, (m + 3) // 4 * 4, device=sf.device, dtype=torch.float32)
    buf[:, :m] = sf.t()
    return buf[:, :m].t()


def ue8m0_pack(e):
    """Exponent bytes e (m, kb) (int) -> packed UE8M0 int32 words (m, ceil(kb/4)), strides (1, align(m, 4)):
    byte j of word (i, q) is group 4q+j of row i; padding bytes zero (quant.md 2.3, 3.2)."""
    torch = torch_lib()
    m, kb = e.shape
    kq, p = (kb + 3) // 4, (m + 3) // 4 * 4
    b = torch.nn.functional.pad(e.to(torch.int32) & 0xFF, (0, 4 * kq - kb, 0, p - m)).view(p, kq, 4)
    # Little-endian bytes, put together arithmetically: torch.compile rejected a byte -> int32 view of the
    # transposed copy ("self.stride(-1) must be 1 to view Byte as Int").
    words = b[..., 0] | (b[..., 1] << 8) | (b[..., 2] << 16) | (b[..., 3] << 24)  # (p, kq)
    out = torch.empty_strided((p, kq), (1, p), dtype=torch.int32, device=e.device)  # column-major words
    out.copy_(words)
    return out[:m]


def sf_exponent(sf):
    """Biased exponent field of positive fp32 scale factors, int32 (quant.md 2.3: the UE8M0 byte)."""
    return (sf.view(torch_lib().int32) >> 23) & 0xFF


def ue8m0_bytes(words, kb):
    """Packed UE8M0 int32 words (m, kq), any strides -> exponent bytes (m, kb) int32 (quant.md 3.3)."""
    torch = torch_lib()
    shifts = torch.arange(0, 32, 8, device=words.device, dtype=torch.int32)
    return ((words.unsqueeze(-1) >> shifts) & 0xFF).reshape(words.shape[0], -1)[:, :kb]


def ue8m0_decode(words, kb):
    """Packed UE8M0 words -> fp32 scale factors (m, kb): byte e -> bits e << 23 (quant.md 2.3)."""
    return (ue8m0_bytes(words, kb) << 23).view(torch_lib().float32)


def sf_out(sf, col, packed):
    """(m, kb) fp32 scale factors in the output layout of quant.md 3.2."""
    if packed:
        return ue8m0_pack(sf_exponent(sf))
    return col_major(sf) if col else sf


def groups_of(x, g):
    """x (m, k) as fp32 (m, kb, g), zero-padded to whole groups."""
    torch = torch_lib()
    m, k = x.shape
    kb = (k + g - 1) // g
    xf = x.float()
    if kb * g != k:
        xf = torch.nn.functional.pad(xf, (0, kb * g - k))
    return xf.view(m, kb, g)


def scale_blocks(d, s, bm, bk):
    """fl(d * S[i div bm, j div bk]) for d (m, k) fp32 and S (m/bm, k/bk), whole blocks (quant.md 3.3, 4.10)."""
    m, k = d.shape
    return (d.view(m // bm, bm, k // bk, bk) * s[:, None, :, None]).view(m, k)


def e4m3_codes(v):
    """fp32 -> e4m3: RNE, saturating to +-448 (quant.md 2.1)."""
    return v.clamp(-448.0, 448.0).to(torch_lib().float8_e4m3fn)


def e2m1_encode(v):
    """fp32 (m, k) -> packed e2m1 int8 (m, k/2) (quant.md 2.2): RNE onto {0, .5, 1, 1.5, 2, 3, 4, 6}
    with ties to the even code, saturating, sign kept; element 2i in the low nibble of byte i."""
    torch = torch_lib()
    a = v.abs()
    mag = ((a > 0.25).to(torch.uint8) + (a >= 0.75).to(torch.uint8) + (a > 1.25).to(torch.uint8) +
           (a >= 1.75).to(torch.uint8) + (a > 2.5).to(torch.uint8) + (a >= 3.5).to(torch.uint8) +
           (a > 5.0).to(torch.uint8))
    code = (mag | (torch.signbit(v).to(torch.uint8) << 3)).reshape(v.shape[0], -1, 2)
    return (code[..., 0] | (code[..., 1] << 4)).view(torch.int8)


def e2m1_decode(q):
    """packed e2m1 int8 (m, k/2) -> fp32 (m, k), exact (quant.md 2.2, 4.20)."""
    torch = torch_lib()
    b = q.view(torch.uint8).to(torch.int32)
    n = torch.stack([b & 0xF, b >> 4], dim=-1).view(q.shape[0], -1)
    e, mbit = (n >> 1) & 3, n & 1
    bits = torch.where(e > 0, ((e + 126) << 23) | (mbit << 22), mbit * (126 << 23))  # 2^(e-1)(1+m/2), or m/2
    mag = bits.view(torch.float32)
    return torch.where(n >= 8, -mag, mag)


def e5m6_encode(v):
    """fp32 -> 12-bit E5M6 codes, int32 (quant.md 2.4 steps 1-4): the fp16 pattern rounded toward zero,
    shifted right 4, plus one when (c & 1) + (the fp32 pattern's low 17 bits) > 0x10000."""
    torch = torch_lib()
    h16 = v.to(torch.float16)  # round to nearest even ...
    h = (h16.view(torch.int16).to(torch.int32) & 0xFFFF) - (h16.float().abs() > v.abs()).to(torch.int32)  # ... to RZ
    c = h >> 4
    r = v.view(torch.int32) & 0x1FFFF
    return (c + (((c & 1) + r) > 0x10000).to(torch.int32)) & 0xFFF


def e5m6_pack(codes):
    """(m, k) 12-bit codes -> uint8 (m, 3k/2): codes h0..h7 -> three little-endian uint32 words (quant.md 2.4)."""
    torch = torch_lib()
    m, k = codes.shape
    h = codes.to(torch.int64).view(m, k // 8, 8).unbind(-1)
    w0 = (h[0] << 20) | (h[1] << 8) | (h[2] >> 4)
    w1 = ((h[2] & 0xF) << 28) | (h[3] << 16) | (h[4] << 4) | (h[5] >> 8)
    w2 = ((h[5] & 0xFF) << 24) | (h[6] << 12) | h[7]
    w = torch.stack([w0, w1, w2], dim=-1)
    w = torch.where(w >= 2 ** 31, w - 2 ** 32, w).to(torch.int32)  # the uint32 words as int32
    return w.view(m, 3 * k // 8).view(torch.uint8)


def e5m6_decode(q):
    """uint8 (m, 3k/2) packed E5M6 -> fp32 (m, k): unpack 3 words -> 8 codes, code << 4 as fp16 (quant.md 2.4)."""
    torch = torch_lib()
    m = q.shape[0]
    w0, w1, w2 = (q.view(torch.int32).view(m, -1, 3).to(torch.int64) & 0xFFFFFFFF).unbind(-1)
    h = [(w0 >> 20) & 0xFFF, (w0 >> 8) & 0xFFF, ((w0 & 0xFF) << 4) | (w1 >> 28), (w1 >> 16) & 0xFFF,
         (w1 >> 4) & 0xFFF, ((w1 & 0xF) << 8) | (w2 >> 24), (w2 >> 12) & 0xFFF, w2 & 0xFFF]
    b16 = torch.stack(h, dim=-1).view(m, -1) << 4
    b16 = torch.where(b16 >= 0x8000, b16 - 0x10000, b16).to(torch.int16)
    return b16.view(torch.float16).float()


def encode(v, fmt):
    """Scaled fp32 values (m, k) -> the output tensor of `fmt` (quant.md 2.1, 2.2, 2.4)."""
    if fmt == "e4m3":
        return e4m3_codes(v)
    if fmt == "e2m1":
        return e2m1_encode(v)
    return e5m6_pack(e5m6_encode(v))


def decode(q, fmt):
    """Stored codes -> fp32 values (quant.md 2.1, 2.2, 2.4)."""
    if fmt == "e4m3":
        return q.float()
    return e2m1_decode(q) if fmt == "e2m1" else e5m6_decode(q)


def group_cast(xg, k, round_sf, fmt):
    """fp32 groups xg (m, kb, g) -> (codes of the first k values of each row, SF (m, kb)) (quant.md 4.1 math)."""
    m = xg.shape[0]
    sf, inv = sf_rule(xg.abs().amax(-1, keepdim=True), round_sf, fmt)
    return encode((xg * inv).view(m, -1)[:, :k], fmt), sf.squeeze(-1)
