"""The peers of tk's mHC rows (mhc_engram.md 3.1, 3.4, 3.5, 3.7), for TileKernels and torch.

Rows: shape 'TxnxH' (tokens, streams, hidden), randn bf16 streams and rows,
randn f32 mixes; mhc_pre_apply_mix_bwd's word 'acc' (tk accumulates into the
residual-gradient buffer, as the reference's kernel always does).
sinkhorn rows: shape 'Mxnxn', word 'repeat=', randn matrices (and grad_out),
eps 1e-6. split_mixes / head_compute_mix rows: shape 'Txn', randn logits,
scale, base and gradients, post_mult 2, pre_eps 1e-2; TileKernels' backward
kernels write per-SM partials that its autograd functions then sum with
torch (.sum(0), two more kernels), which the times include. norm_fn rows:
shape 'TxnxH', fn randn 1e-4, eps 1e-6; TileKernels through its autograd
function (the backward with fuse_grad_acc=False: a zeroed residual gradient,
where tk's 'acc' row accumulates). TileKernels' kernels are called as its
autograd functions call them: the copies and sinkhorn on preallocated outputs; _mhc_pre_apply_mix_bwd
allocates mix_grad (TileLang's out_idx) and mhc_post_bwd its four outputs on
each call, which their times include.
"""
from rowspec import Unsupported


def _dims(r):
    r.only(["acc"])
    return r.dims(3)


def _f32(c, *shape):
    return c.torch.randn(*shape, device=c.dev, dtype=c.torch.float32)


EPS = 1e-6


def _sinkhorn(r):
    r.only(["repeat="])
    m, n, _ = r.dims(3)
    return m, n, int(r.value("repeat") or 10)


def _sinkhorn_torch(torch, x, repeat):
    e = (x - x.amax(-1, keepdim=True)).exp()
    p = e / e.sum(-1, keepdim=True) + EPS
    p = p / (p.sum(-2, keepdim=True) + EPS)
    for _ in range(repeat - 1):
        p = p / (p.sum(-1, keepdim=True) + EPS)
        p = p / (p.sum(-2, keepdim=True) + EPS)
    return p


POST_MULT, PRE_EPS = 2.0, 1e-2


def _gate(r):
    r.only([])
    return r.dims(2)


def _split_torch(torch, u, s, b, n):
    scale = torch.cat([s[0].expand(n), s[1].expand(n), s[2].expand(n * n)])
    z = u * scale + b
    return z[:, :n].sigmoid() + PRE_EPS, z[:, n:2 * n].sigmoid() * POST_MULT, z[:, 2 * n:]


def _head_torch(u, s, b):
    return (u * s + b).sigmoid() + PRE_EPS


def _norm_fn(r):
    r.only(["acc"])
    t, n, h = r.dims(3)
    return t, n, h, 2 * n + n * n


def _norm_fn_torch(torch, x, fn, eps):
    xf = x.float().flatten(-2)
    mul = xf @ fn.t()
    return mul * torch.rsqrt((xf * xf).sum(-1, keepdim=True) / xf.shape[-1] + eps)


def _num_sms(c):
    return c.torch.cuda.get_device_properties(c.dev).multi_processor_count


def tile_kernels_handlers():
    def expand_fwd(r):
        t, n, h = _dims(r)
        desc = f"expand_to_mhc_fwd_tl({h}, {n})(hidden[{t}x{h} bf16], out)"

        def make(c):
            from tile_kernels.mhc.expand_kernel import expand_to_mhc_fwd_tl
            x, out = c.randn(t, h), c.randn(t, n, h)
            kernel = expand_to_mhc_fwd_tl(h, n)
            return (lambda: kernel(x, out)), []
        return desc, make

    def expand_bwd(r):
        t, n, h = _dims(r)
        desc = f"expand_to_mhc_bwd_tl({h}, {n})(grad_out[{t}x{n}x{h} bf16], grad_hidden)"

        def make(c):
            from tile_kernels.mhc.expand_kernel import expand_to_mhc_bwd_tl
            g, dh = c.randn(t, n, h), c.randn(t, h)
            kernel = expand_to_mhc_bwd_tl(h, n)
            return (lambda: kernel(g, dh)), []
        return desc, make

    def apply_fwd(r):
        t, n, h = _dims(r)
        desc = f"_mhc_pre_apply_mix_fwd({n}, {h})(x[{t}x{n}x{h} bf16], mix, out)"

        def make(c):
            from tile_kernels.mhc.pre_apply_mix_kernel import _mhc_pre_apply_mix_fwd
            x, mix, out = c.randn(t, n, h), _f32(c, t, n).softmax(-1), c.randn(t, h)
            kernel = _mhc_pre_apply_mix_fwd(n, h)
            return (lambda: kernel(x, mix, out)), []
        return desc, make

    def apply_bwd(r):
        t, n, h = _dims(r)
        desc = f"_mhc_pre_apply_mix_bwd({n}, {h})(dout[{t}x{h} bf16], x, mix, x_grad) (accumulates)"

        def make(c):
            from tile_kernels.mhc.pre_apply_mix_kernel import _mhc_pre_apply_mix_bwd
            g, x, mix, xg = c.randn(t, h), c.randn(t, n, h), _f32(c, t, n).softmax(-1), c.randn(t, n, h)
            kernel = _mhc_pre_apply_mix_bwd(n, h)
            return (lambda: kernel(g, x, mix, xg)), []
        return desc, make

    def post_fwd(r):
        t, n, h = _dims(r)
        desc = f"mhc_post_fwd(x[1x{t}x{h} bf16], residual[1x{t}x{n}x{h}], post, comb, out)"

        def make(c):
            from tile_kernels.mhc.post_kernel import mhc_post_fwd
            x, res, out = c.randn(1, t, h), c.randn(1, t, n, h), c.randn(1, t, n, h)
            post, comb = _f32(c, 1, t, n, 1), _f32(c, 1, t, n, n)
            return (lambda: mhc_post_fwd(x, res, post, comb, out)), []
        return desc, make

    def post_bwd(r):
        t, n, h = _dims(r)
        if n != 4:
            raise Unsupported("TileKernels' mhc_post backward asserts n == 4")
        desc = f"mhc_post_bwd(x[1x{t}x{h} bf16], residual[1x{t}x{n}x{h}], post, comb, dout)"

        def make(c):
            from tile_kernels.mhc.post_kernel import mhc_post_bwd
            x, res, g = c.randn(1, t, h), c.randn(1, t, n, h), c.randn(1, t, n, h)
            post, comb = _f32(c, 1, t, n, 1), _f32(c, 1, t, n, n)
            return (lambda: mhc_post_bwd(x, res, post, comb, g, fuse_grad_acc=False)), []
        return desc, make

    def sinkhorn_fwd(r):
        m, n, repeat = _sinkhorn(r)
        desc = f"_mhc_sinkhorn_fwd({n}, 1, {repeat}, {EPS})(x[{m}x{n}x{n} f32], out)"

        def make(c):
            from tile_kernels.mhc.sinkhorn_kernel import _mhc_sinkhorn_fwd
            x, out = _f32(c, m, n, n), _f32(c, m, n, n)
            kernel = _mhc_sinkhorn_fwd(n, 1, repeat, EPS)
            return (lambda: kernel(x, out)), []
        return desc, make

    def sinkhorn_bwd(r):
        m, n, repeat = _sinkhorn(r)
        desc = f"_mhc_sinkhorn_bwd({n}, 32, {repeat}, {EPS})(grad[{m}x{n}x{n} f32], x, grad_x)"

        def make(c):
            from tile_kernels.mhc.sinkhorn_kernel import _mhc_sinkhorn_bwd
            g, x, gx = _f32(c, m, n, n), _f32(c, m, n, n), _f32(c, m, n, n)
            kernel = _mhc_sinkhorn_bwd(n, 32, repeat, EPS)
            return (lambda: kernel(g, x, gx)), []
        return desc, make

    def split_fwd(r):
        t, n = _gate(r)
        m = 2 * n + n * n
        desc = (f"_mhc_pre_split_mixes_fwd({n}, {POST_MULT}, {PRE_EPS}, 32)"
                f"(u[{t}x{m} f32], scale, base, pre, post, comb)")

        def make(c):
            from tile_kernels.mhc.pre_split_mixes_kernel import _mhc_pre_split_mixes_fwd
            u, s, b = _f32(c, t, m), _f32(c, 3), _f32(c, m)
            pre, post, comb = _f32(c, t, n), _f32(c, t, n), _f32(c, t, n * n)
            kernel = _mhc_pre_split_mixes_fwd(n, POST_MULT, PRE_EPS, token_block_size=32)
            return (lambda: kernel(u, s, b, pre, post, comb)), []
        return desc, make

    def split_bwd(r):
        t, n = _gate(r)
        m = 2 * n + n * n
        desc = f"_mhc_pre_split_mixes_bwd({n}, {POST_MULT}, 32, num_sms)(...) + partials.sum(0) x2; u[{t}x{m} f32]"

        def make(c):
            from tile_kernels.mhc.pre_split_mixes_kernel import _mhc_pre_split_mixes_bwd
            sms = _num_sms(c)
            gpre, gpost, gcomb = _f32(c, t, n), _f32(c, t, n), _f32(c, t, n * n)
            u, post, s, b, gu = _f32(c, t, m), _f32(c, t, n), _f32(c, 3), _f32(c, m), _f32(c, t, m)
            ps, pb = _f32(c, sms, 3), _f32(c, sms, m)
            kernel = _mhc_pre_split_mixes_bwd(n, POST_MULT, token_block_size=32, num_sms=sms)

            def run():
                kernel(gpre, gpost, gcomb, u, post, s, b, gu, ps, pb)
                return ps.sum(0), pb.sum(0)
            return run, []
        return desc, make

    def head_fwd(r):
        t, n = _gate(r)
        desc = f"_mhc_head_compute_mix_fwd({n}, {PRE_EPS}, 32)(u[{t}x{n} f32], scale, base, out)"

        def make(c):
            from tile_kernels.mhc.head_compute_mix_kernel import _mhc_head_compute_mix_fwd
            u, s, b, out = _f32(c, t, n), _f32(c, 1), _f32(c, n), _f32(c, t, n)
            kernel = _mhc_head_compute_mix_fwd(n, PRE_EPS, token_block_size=32)
            return (lambda: kernel(u, s, b, out)), []
        return desc, make

    def head_bwd(r):
        t, n = _gate(r)
        desc = f"_mhc_head_compute_mix_bwd({n}, 32, num_sms)(...) + partials.sum(0) x2; u[{t}x{n} f32]"

        def make(c):
            from tile_kernels.mhc.head_compute_mix_kernel import _mhc_head_compute_mix_bwd
            sms = _num_sms(c)
            g, u, s, b, gu = _f32(c, t, n), _f32(c, t, n), _f32(c, 1), _f32(c, n), _f32(c, t, n)
            ps, pb = _f32(c, sms, 1), _f32(c, sms, n)
            kernel = _mhc_head_compute_mix_bwd(n, token_block_size=32, num_sms=sms)

            def run():
                kernel(g, u, s, b, gu, ps, pb)
                return ps.sum(0), pb.sum(0)
            return run, []
        return desc, make

    def norm_fn_fwd(r):
        t, n, h, n3 = _norm_fn(r)
        desc = f"mhc_pre_norm_fn(residual[1x{t}x{n}x{h} bf16], fn[{n3}x{n * h}], None, 1e-6) (no grad)"

        def make(c):
            from tile_kernels.modeling.mhc.ops.norm_fn import mhc_pre_norm_fn
            res, fn = c.randn(1, t, n, h), _f32(c, n3, n * h) * 1e-4

            def run():
                with c.torch.no_grad():
                    return mhc_pre_norm_fn(res, fn, None, 1e-6, fuse_grad_acc=False)
            return run, []
        return desc, make

    def norm_fn_bwd(r):
        t, n, h, n3 = _norm_fn(r)
        desc = (f"autograd of mhc_pre_norm_fn(residual[1x{t}x{n}x{h} bf16], fn[{n3}x{n * h}], fuse_grad_acc=False)"
                " (a zeroed residual gradient, where tk's row accumulates)")

        def make(c):
            from tile_kernels.modeling.mhc.ops.norm_fn import mhc_pre_norm_fn
            torch = c.torch
            res = c.randn(1, t, n, h).requires_grad_()
            fn = (_f32(c, n3, n * h) * 1e-4).requires_grad_()
            with torch.enable_grad():
                out = mhc_pre_norm_fn(res, fn, None, 1e-6, fuse_grad_acc=False)
            g = _f32(c, 1, t, n3)

            def run():
                return torch.autograd.grad(out, (res, fn), g, retain_graph=True)
            return run, []
        return desc, make

    return {"expand_to_mhc_fwd": expand_fwd, "expand_to_mhc_bwd": expand_bwd, "mhc_pre_apply_mix_fwd": apply_fwd,
            "mhc_pre_apply_mix_bwd": apply_bwd, "mhc_post_fwd": post_fwd, "mhc_post_bwd": post_bwd,
            "sinkhorn_normalize_fwd": sinkhorn_fwd, "sinkhorn_normalize_bwd": sinkhorn_bwd,
            "mhc_pre_split_mixes_fwd": split_fwd, "mhc_pre_split_mixes_bwd": split_bwd,
            "mhc_head_compute_mix_fwd": head_fwd, "mhc_head_compute_mix_bwd": head_bwd,
            "mhc_pre_norm_fn_fwd": norm_fn_fwd, "mhc_pre_norm_fn_bwd": norm_fn_bwd}


def torch_handlers():
    def expand_fwd(r):
        t, n, h = _dims(r)

        def make(c):
            return (lambda x: x[:, None, :].expand(t, n, h).contiguous()), (c.randn(t, h),)
        return f"x[:, None].expand(T, n, H).contiguous(); x[{t}x{h} bf16]", make

    def expand_bwd(r):
        t, n, h = _dims(r)

        def make(c):
            return (lambda g: g.float().sum(1).bfloat16()), (c.randn(t, n, h),)
        return f"g.float().sum(1).bfloat16(); g[{t}x{n}x{h} bf16]", make

    def apply_fwd(r):
        t, n, h = _dims(r)

        def make(c):
            return ((lambda x, mix: (x.float() * mix[..., None]).sum(1).bfloat16()),
                    (c.randn(t, n, h), _f32(c, t, n).softmax(-1)))
        return f"(x.float() * mix[..., None]).sum(1).bfloat16(); x[{t}x{n}x{h} bf16]", make

    def apply_bwd(r):
        t, n, h = _dims(r)

        def make(c):
            def fn(g, x, mix, acc):
                gf = g.float()[:, None, :]
                return (acc.float() + mix[..., None] * gf).bfloat16(), (gf * x.float()).sum(-1)
            return fn, (c.randn(t, h), c.randn(t, n, h), _f32(c, t, n).softmax(-1), c.randn(t, n, h))
        return f"bf16(acc + mix g), sum g x; g[{t}x{h} bf16], x[{t}x{n}x{h}]", make

    def post_fwd(r):
        t, n, h = _dims(r)

        def make(c):
            def fn(x, res, post, comb):
                return (post[..., None] * x.float()[:, None, :] +
                        c.torch.einsum("tio,tih->toh", comb, res.float())).bfloat16()
            return fn, (c.randn(t, h), c.randn(t, n, h), _f32(c, t, n), _f32(c, t, n, n))
        return f"post x + einsum(comb, residual), bf16; residual[{t}x{n}x{h} bf16]", make

    def post_bwd(r):
        t, n, h = _dims(r)

        def make(c):
            torch = c.torch

            def fn(g, x, res, post, comb):
                gf, xf, rf = g.float(), x.float(), res.float()
                dx = torch.einsum("to,toh->th", post, gf).bfloat16()
                dres = torch.einsum("tio,toh->tih", comb, gf).bfloat16()
                return dx, dres, torch.einsum("th,toh->to", xf, gf), torch.einsum("tih,toh->tio", rf, gf)
            return fn, (c.randn(t, n, h), c.randn(t, h), c.randn(t, n, h), _f32(c, t, n), _f32(c, t, n, n))
        return f"einsums for dx, dres, dpost, dcomb; dout[{t}x{n}x{h} bf16]", make

    def sinkhorn_fwd(r):
        m, n, repeat = _sinkhorn(r)

        def make(c):
            return (lambda x: _sinkhorn_torch(c.torch, x, repeat)), (_f32(c, m, n, n),)
        return f"softmax, + eps, {repeat} column / {repeat - 1} row normalisations; x[{m}x{n}x{n} f32]", make

    def sinkhorn_bwd(r):
        m, n, repeat = _sinkhorn(r)

        def make(c):
            torch = c.torch

            def fn(g, x):
                with torch.enable_grad():
                    xr = x.detach().requires_grad_()
                    return torch.autograd.grad(_sinkhorn_torch(torch, xr, repeat), xr, g)[0]
            return fn, (_f32(c, m, n, n), _f32(c, m, n, n))
        return f"autograd through the forward loop; x[{m}x{n}x{n} f32]", make

    def split_fwd(r):
        t, n = _gate(r)
        m = 2 * n + n * n

        def make(c):
            return (lambda u, s, b: _split_torch(c.torch, u, s, b, n)), (_f32(c, t, m), _f32(c, 3), _f32(c, m))
        return f"z = u scale[group] + b; sigmoid + eps, p sigmoid, z; u[{t}x{m} f32]", make

    def split_bwd(r):
        t, n = _gate(r)
        m = 2 * n + n * n

        def make(c):
            torch = c.torch

            def fn(gpre, gpost, gcomb, u, s, b):
                with torch.enable_grad():
                    leaves = [v.detach().requires_grad_() for v in (u, s, b)]
                    outs = _split_torch(torch, *leaves, n)
                    return torch.autograd.grad(outs, leaves, (gpre, gpost, gcomb))
            return fn, (_f32(c, t, n), _f32(c, t, n), _f32(c, t, n * n), _f32(c, t, m), _f32(c, 3), _f32(c, m))
        return f"autograd through the forward; u[{t}x{m} f32]", make

    def head_fwd(r):
        t, n = _gate(r)

        def make(c):
            return _head_torch, (_f32(c, t, n), _f32(c, 1), _f32(c, n))
        return f"sigmoid(u scale + base) + eps; u[{t}x{n} f32]", make

    def head_bwd(r):
        t, n = _gate(r)

        def make(c):
            torch = c.torch

            def fn(g, u, s, b):
                with torch.enable_grad():
                    leaves = [v.detach().requires_grad_() for v in (u, s, b)]
                    return torch.autograd.grad(_head_torch(*leaves), leaves, g)
            return fn, (_f32(c, t, n), _f32(c, t, n), _f32(c, 1), _f32(c, n))
        return f"autograd through the forward; u[{t}x{n} f32]", make

    def norm_fn_fwd(r):
        t, n, h, n3 = _norm_fn(r)

        def make(c):
            torch = c.torch
            torch.backends.cuda.matmul.allow_tf32 = True
            return ((lambda x, fn: _norm_fn_torch(torch, x, fn, 1e-6)),
                    (c.randn(t, n, h), _f32(c, n3, n * h) * 1e-4))
        return f"(x @ fn.T) rsqrt(sum x^2 / G + eps), TF32 allowed; x[{t}x{n}x{h} bf16]", make

    def norm_fn_bwd(r):
        t, n, h, n3 = _norm_fn(r)

        def make(c):
            torch = c.torch
            torch.backends.cuda.matmul.allow_tf32 = True

            def fn_(g, x, fn):
                with torch.enable_grad():
                    leaves = [x.detach().requires_grad_(), fn.detach().requires_grad_()]
                    return torch.autograd.grad(_norm_fn_torch(torch, *leaves, 1e-6), leaves, g)
            return fn_, (_f32(c, t, n3), c.randn(t, n, h), _f32(c, n3, n * h) * 1e-4)
        return f"autograd through the forward, TF32 allowed; x[{t}x{n}x{h} bf16]", make

    return {"expand_to_mhc_fwd": expand_fwd, "expand_to_mhc_bwd": expand_bwd, "mhc_pre_apply_mix_fwd": apply_fwd,
            "mhc_pre_apply_mix_bwd": apply_bwd, "mhc_post_fwd": post_fwd, "mhc_post_bwd": post_bwd,
            "sinkhorn_normalize_fwd": sinkhorn_fwd, "sinkhorn_normalize_bwd": sinkhorn_bwd,
            "mhc_pre_split_mixes_fwd": split_fwd, "mhc_pre_split_mixes_bwd": split_bwd,
            "mhc_head_compute_mix_fwd": head_fwd, "mhc_head_compute_mix_bwd": head_bwd,
            "mhc_pre_norm_fn_fwd": norm_fn_fwd, "mhc_pre_norm_fn_bwd": norm_fn_bwd}
