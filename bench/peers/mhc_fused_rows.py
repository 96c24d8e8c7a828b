"""The peers of tk's fused mHC rows (mhc_engram.md 3.8, 3.9), for TileKernels and torch.

mhc_pre_big_fuse rows: shape 'TxnxH', word 'repeat='; residual randn bf16, fn
randn 1e-4, scale and base randn 0.1, every eps 1e-6, post_mult 1 (the spec's
test). TileKernels through its modeling function (its two kernels, fn rounded
to TF32 by torch first, as it does on each call). mhc_multilayer_recompute
rows: shape 'TxnxH', words 'L=', 'Lp='; randn inputs into preallocated
outputs; TileKernels' function builds and copies its pointer tables on each
call, which its times include (tk passes the pointers as launch parameters).
"""
from mhc_rows import EPS, _f32, _norm_fn_torch, _sinkhorn_torch


def _big_fuse(r):
    r.only(["repeat="])
    t, n, h = r.dims(3)
    return t, n, h, 2 * n + n * n, int(r.value("repeat") or 10)


def _multilayer(r):
    r.only(["L=", "Lp="])
    t, n, h = r.dims(3)
    return t, n, h, int(r.value("L")), int(r.value("Lp"))


def _multilayer_inputs(c, t, n, h, layers, posts):
    return (c.randn(t, n, h), [_f32(c, t, n, 1) for _ in range(layers)], [c.randn(t, h) for _ in range(posts)],
            [_f32(c, t, n, 1) for _ in range(posts)], [_f32(c, t, n, n) for _ in range(posts)],
            [c.randn(t, h) for _ in range(layers)], [c.randn(t, n, h) for _ in range(posts)])


def tile_kernels_handlers():
    def big_fuse(r):
        t, n, h, n3, repeat = _big_fuse(r)
        desc = f"mhc_pre_big_fuse(residual[1x{t}x{n}x{h} bf16], fn[{n3}x{n * h}], scale, base, eps 1e-6, 1.0, {repeat})"

        def make(c):
            from tile_kernels.modeling.mhc.ops.pre_big_fuse import mhc_pre_big_fuse
            res, fn = c.randn(1, t, n, h), _f32(c, n3, n * h) * 1e-4
            scale, base = _f32(c, 3) * 0.1, _f32(c, n3) * 0.1
            return (lambda: mhc_pre_big_fuse(res, fn, scale, base, EPS, EPS, EPS, 1.0, repeat)), []
        return desc, make

    def multilayer(r):
        t, n, h, layers, posts = _multilayer(r)
        desc = f"mhc_multilayer_recompute(residual[{t}x{n}x{h} bf16], {layers} layers, {posts} posts)"

        def make(c):
            from tile_kernels.modeling.mhc.ops.multilayer_recompute import mhc_multilayer_recompute
            args = _multilayer_inputs(c, t, n, h, layers, posts)
            return (lambda: mhc_multilayer_recompute(*args)), []
        return desc, make

    return {"mhc_pre_big_fuse": big_fuse, "mhc_multilayer_recompute": multilayer}


def torch_handlers():
    def big_fuse(r):
        t, n, h, n3, repeat = _big_fuse(r)

        def make(c):
            torch = c.torch
            torch.backends.cuda.matmul.allow_tf32 = True

            def fn_(x, fn, scale, base):
                z = _norm_fn_torch(torch, x, fn, EPS)
                s = torch.cat([scale[0].expand(n), scale[1].expand(n), scale[2].expand(n * n)])
                z = z * s + base
                pre = z[:, :n].sigmoid() + EPS
                post = z[:, n:2 * n].sigmoid()
                comb = _sinkhorn_torch(torch, z[:, 2 * n:].reshape(t, n, n), repeat)
                return post, comb, (x.float() * pre[..., None]).sum(1).bfloat16()
            return fn_, (c.randn(t, n, h), _f32(c, n3, n * h) * 1e-4, _f32(c, 3) * 0.1, _f32(c, n3) * 0.1)
        return f"norm_fn, split, sinkhorn, apply in torch, TF32 allowed; x[{t}x{n}x{h} bf16]", make

    def multilayer(r):
        t, n, h, layers, posts = _multilayer(r)

        def make(c):
            torch = c.torch

            def fn_(r0, pre, y, post, comb):
                res, inputs, outs = r0, [], []
                for l in range(layers):
                    inputs.append((res.float() * pre[l]).sum(1).bfloat16())
                    if l < posts:
                        res = (post[l] * y[l].float()[:, None, :] +
                               torch.einsum("tio,tih->toh", comb[l], res.float())).bfloat16()
                        outs.append(res)
                return inputs, outs
            args = _multilayer_inputs(c, t, n, h, layers, posts)
            return fn_, args[:5]
        return f"apply and post per layer in torch; residual[{t}x{n}x{h} bf16], L={layers}, Lp={posts}", make

    return {"mhc_pre_big_fuse": big_fuse, "mhc_multilayer_recompute": multilayer}
