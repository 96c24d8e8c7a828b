"""The peers of tk's Engram rows (mhc_engram.md 4.1, 4.2), for TileKernels and torch.

engram_hash rows: shape 'TxN', words 'Lh=' and 'E=' (layers, tables per
order), drawn as 4.1's tests draw them. engram_fused_weight rows: shape 'nxH',
bf16 randn weights. engram_gate_fwd rows (4.3): shape 'TxnxH', word 'save' or
'nosave' (save_for_backward), randn inputs, eps 1e-20, clamp 1e-6.
engram_gate_bwd rows (4.4): shape 'TxnxH', word 'P=' (the partial rows; the
reference always uses the SM count), randn dout and inputs, the statistics of
the forward (computed before timing). engram_grad_w_reduce rows (4.5): shape
'PxnxH', randn partials, weights and gradients (updated in place, as the
operator does).
"""
from rowspec import Unsupported


def _hash(r):
    r.only(["Lh=", "E="])
    t, n = r.dims(2)
    lh, e = r.value("Lh"), r.value("E")
    if not lh or not e:
        raise Unsupported(f"engram_hash rows need Lh= and E=, got '{r.variant}'")
    return t, n, lh, e


def _hash_inputs(c, t, n, lh, e):
    torch = c.torch
    ids = torch.randint(0, 100000, (t, n), dtype=torch.int32, device=c.dev)
    mult = torch.randint(0, 100000, (lh, n), dtype=torch.int64, device=c.dev)
    vocab = torch.randint(100000, 1000000, (lh, n - 1, e), dtype=torch.int32, device=c.dev)
    flat = vocab.view(lh, -1).long()
    offsets = (flat.cumsum(dim=1) - flat).int().contiguous()
    return ids, mult, vocab, offsets


def _weights(r):
    r.only([])
    return r.dims(2)


EPS, CLAMP = 1e-20, 1e-6


def _gate(r):
    r.only(["save", "nosave"])
    t, n, h = r.dims(3)
    return t, n, h, r.has("save")


def _gate_inputs(c, t, n, h):
    wf = c.randn(n, h).float() * c.randn(n, h).float()
    return c.randn(t, n, h), c.randn(t, n, h), c.randn(t, h), wf


def _gate_outputs(t, n, h, save):
    outs = [("out", (0,), (t, n, h), "bfloat16")]
    if save:
        outs += [(name, (i + 1,), (t, n), "float32") for i, name in enumerate(["dot", "gate", "rstd_x", "rstd_k"])]
    return outs


def _backward(r):
    r.only(["P="])
    t, n, h = r.dims(3)
    return t, n, h


def _gate_stats(torch, xf, kf, wf, h):
    """4.3's statistics in torch: dot, gate, rstd_x, rstd_k (f32), from f32 x and k."""
    rx = torch.rsqrt(xf.square().mean(-1) + EPS)
    rk = torch.rsqrt(kf.square().mean(-1) + EPS)
    dot = (xf * wf * kf).sum(-1)
    s = dot * rx * rk * h ** -0.5
    return dot, torch.sigmoid(s.abs().clamp_min(CLAMP).sqrt() * s.sign()), rx, rk


def _backward_inputs(c, t, n, h):
    """dout, x, k, v, wf and the forward's dot, gate, rstd_x, rstd_k (f32)."""
    x, k, v, wf = _gate_inputs(c, t, n, h)
    return (c.randn(t, n, h), x, k, v, wf) + _gate_stats(c.torch, x.float(), k.float(), wf, h)


def _reduce_inputs(c, r):
    r.only([])
    p, n, h = r.dims(3)
    torch = c.torch
    f32 = (lambda *s: torch.randn(*s, device=c.dev, dtype=torch.float32))
    return (p, n, h), (f32(p, n, h), c.randn(n, h), c.randn(n, h), f32(n, h), f32(n, h))


def tile_kernels_handlers():
    def hash_(r):
        t, n, lh, e = _hash(r)
        desc = f"engram.engram_hash(ids[{t}x{n} i32], mult[{lh}x{n} i64], vocab[{lh}x{n - 1}x{e}], offsets)"

        def make(c):
            import tile_kernels.engram as engram
            args = _hash_inputs(c, t, n, lh, e)
            return (lambda: engram.engram_hash(*args)), [("out", (), (lh, t, (n - 1) * e), "int32")]
        return desc, make

    def weight(r):
        n, h = _weights(r)
        desc = f"engram.fused_weight(wh[{n}x{h} bf16], we)"

        def make(c):
            import tile_kernels.engram as engram
            wh, we = c.randn(n, h), c.randn(n, h)
            return (lambda: engram.fused_weight(wh, we)), [("wf", (), (n, h), "float32")]
        return desc, make
    def gate(r):
        t, n, h, save = _gate(r)
        desc = f"engram.engram_gate_fwd(x[{t}x{n}x{h} bf16], k, v, wf, save_for_backward={save})"

        def make(c):
            import tile_kernels.engram as engram
            x, k, v, wf = _gate_inputs(c, t, n, h)
            return ((lambda: engram.engram_gate_fwd(x, k, v, wf, EPS, CLAMP, save_for_backward=save)),
                    _gate_outputs(t, n, h, save))
        return desc, make
    def backward(r):
        t, n, h = _backward(r)
        desc = f"engram.engram_gate_bwd(dout[{t}x{n}x{h} bf16], x, k, v, wf, dot, gate, rstd_x, rstd_k)"

        def make(c):
            import tile_kernels.engram as engram
            args = _backward_inputs(c, t, n, h)
            return (lambda: engram.engram_gate_bwd(*args, CLAMP)), []
        return desc, make
    def reduce_(r):
        p, n, h = r.dims(3)
        desc = f"engram.grad_w_reduce(partial[{p}x{n}x{h} f32], wh, we, grad_wh, grad_we) (in place)"

        def make(c):
            import tile_kernels.engram as engram
            _, args = _reduce_inputs(c, r)
            return (lambda: engram.grad_w_reduce(*args)), []  # in place: no result to inspect
        return desc, make
    return {"engram_hash": hash_, "engram_fused_weight": weight, "engram_gate_fwd": gate,
            "engram_gate_bwd": backward, "engram_grad_w_reduce": reduce_}


def torch_handlers():
    def hash_(r):
        t, n, lh, e = _hash(r)
        desc = f"i64 products, XOR chain, torch.remainder, + offsets; ids[{t}x{n} i32], {lh} layers x {e} tables"

        def make(c):
            torch = c.torch

            def fn(ids, mult, vocab, offsets):
                p = ids.long()[None] * mult[:, None, :]  # (Lh, T, N), wrapping
                h, hs = p[..., 0], []
                for i in range(1, n):
                    h = h ^ p[..., i]
                    hs.append(h)
                rows = torch.remainder(torch.stack(hs, dim=-1)[..., None], vocab[:, None].long())
                return (rows + offsets.view(lh, 1, n - 1, e)).view(lh, t, (n - 1) * e).int()
            return fn, _hash_inputs(c, t, n, lh, e)
        return desc, make

    def weight(r):
        n, h = _weights(r)
        desc = f"wh.float() * we.float(), [{n}x{h} bf16]"

        def make(c):
            return (lambda a, b: a.float() * b.float()), (c.randn(n, h), c.randn(n, h))
        return desc, make
    def gate(r):
        t, n, h, save = _gate(r)
        desc = f"rsqrt of mean squares, sum (x wf) k, signed sqrt, sigmoid, x + g v; x[{t}x{n}x{h} bf16]"

        def make(c):
            torch = c.torch

            def fn(x, k, v, wf):
                xf, kf = x.float(), k.float()
                dot, g, rx, rk = _gate_stats(torch, xf, kf, wf, h)
                out = (xf + g[..., None] * v.float()[:, None, :]).bfloat16()
                return (out, dot, g, rx, rk) if save else out
            return fn, _gate_inputs(c, t, n, h)
        return desc, make
    def backward(r):
        t, n, h = _backward(r)
        desc = f"dg, rho (clamp mask), grad_x, grad_k, grad_v, sum of rho x k; dout[{t}x{n}x{h} bf16]"

        def make(c):
            torch = c.torch

            def fn(dout, x, k, v, wf, dot, g, rx, rk):
                df, xf, kf = dout.float(), x.float(), k.float()
                dg = (df * v.float()[:, None, :]).sum(-1)
                clamped = dot.abs() * h ** -0.5 * rx * rk < CLAMP
                rho = torch.where(clamped, torch.zeros_like(dg),
                                  dg * g * (1 - g) * 0.5 * torch.sqrt(rx * rk * h ** -0.5 / dot.abs()))[..., None]
                gx = (df + rho * (kf * wf - xf * (dot * rx * rx / h)[..., None])).bfloat16()
                gk = (rho * (xf * wf - kf * (dot * rk * rk / h)[..., None])).bfloat16()
                gv = (df * g[..., None]).sum(1).bfloat16()
                return gx, gk, gv, (rho * xf * kf).sum(0)
            return fn, _backward_inputs(c, t, n, h)
        return desc, make
    def reduce_(r):
        p, n, h = r.dims(3)
        desc = f"partial.sum(0) times the other weight, added in place; partial[{p}x{n}x{h} f32]"

        def make(c):
            def fn(partial, wh, we, gh, ge):
                g = partial.sum(0)
                gh.add_(g * we.float())
                ge.add_(g * wh.float())
            return fn, _reduce_inputs(c, r)[1]
        return desc, make
    return {"engram_hash": hash_, "engram_fused_weight": weight, "engram_gate_fwd": gate,
            "engram_gate_bwd": backward, "engram_grad_w_reduce": reduce_}
