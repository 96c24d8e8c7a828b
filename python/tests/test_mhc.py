"""mHC stream operators against NumPy references in float64 (within one bf16 rounding)."""

import unittest

import numpy as np

from common import BF16, F32, calc_diff, rng, tk_kernels

mhc = tk_kernels.mhc


def bf16(a):
    """The float64 reference as the kernel stores it: one rounding to bf16."""
    return np.asarray(a, F32).astype(BF16).astype(F32)


def close_bf16(got, want):
    """Each element within one bf16 ulp of the float64 value (the kernel rounds fp32 sums once)."""
    got, want = np.asarray(got, np.float64), np.asarray(want, np.float64)
    return np.all(np.abs(got - want) <= np.abs(want) * 2.0 ** -7 + 1e-30)


class StreamOps(unittest.TestCase):
    def setUp(self):
        g = rng(7)
        self.b, self.s, self.n, self.h = 2, 3, 4, 96
        self.res = g.standard_normal((self.b, self.s, self.n, self.h)).astype(BF16)
        self.y = g.standard_normal((self.b, self.s, self.h)).astype(BF16)
        mix = np.exp(g.standard_normal((self.b, self.s, self.n, 1)))
        self.mix = (mix / mix.sum(-2, keepdims=True)).astype(F32)
        self.post = g.standard_normal((self.b, self.s, self.n, 1)).astype(F32)
        self.comb = g.standard_normal((self.b, self.s, self.n, self.n)).astype(F32)

    def test_expand_and_its_backward(self):
        out = mhc.expand_to_mhc(self.y, self.n)
        self.assertEqual(out.shape, (self.b, self.s, self.n, self.h))
        self.assertTrue(np.array_equal(out.view(np.uint16), np.broadcast_to(self.y[:, :, None, :], out.shape).view(
            np.uint16)))
        grad = mhc.expand_to_mhc_bwd(self.res)
        self.assertEqual(grad.shape, self.y.shape)
        self.assertTrue(close_bf16(grad.astype(F32), self.res.astype(np.float64).sum(-2)))

    def test_apply_mix_and_its_backward(self):
        out = mhc.mhc_pre_apply_mix(self.res, self.mix)
        x64 = self.res.astype(np.float64)
        self.assertTrue(close_bf16(out.astype(F32), (x64 * self.mix).sum(-2)))
        g = self.y
        buf = self.res.copy()  # the buffer mhc_post_bwd started, added into in place
        x_grad, mix_grad = mhc.mhc_pre_apply_mix_bwd(g, self.res, self.mix, buf)
        self.assertIs(x_grad, buf)
        want = self.res.astype(np.float64) + self.mix * g.astype(np.float64)[:, :, None, :]
        self.assertTrue(close_bf16(x_grad.astype(F32), want))
        self.assertLess(calc_diff(mix_grad, (g.astype(np.float64)[:, :, None, :] * x64).sum(-1)[..., None]), 1e-12)
        fresh, _ = mhc.mhc_pre_apply_mix_bwd(g, self.res, self.mix)
        self.assertTrue(close_bf16(fresh.astype(F32), self.mix * g.astype(np.float64)[:, :, None, :]))

    def test_post_and_its_backward(self):
        out = mhc.mhc_post(self.y, self.res, self.post, self.comb)
        x64, y64 = self.res.astype(np.float64), self.y.astype(np.float64)
        want = self.post * y64[:, :, None, :] + np.einsum('bsio,bsih->bsoh', self.comb, x64)
        self.assertTrue(close_bf16(out.astype(F32), want))
        d_o = self.res[:, :, ::-1, :].copy()
        d64 = d_o.astype(np.float64)
        d_x, d_res, d_post, d_comb = mhc.mhc_post_bwd(self.y, self.res, self.post, self.comb, d_o)
        self.assertTrue(close_bf16(d_x.astype(F32), np.einsum('bso,bsoh->bsh', self.post[..., 0], d64)))
        self.assertTrue(close_bf16(d_res.astype(F32), np.einsum('bsio,bsoh->bsih', self.comb, d64)))
        self.assertLess(calc_diff(d_post, np.einsum('bsh,bsoh->bso', y64, d64)[..., None]), 1e-12)
        self.assertLess(calc_diff(d_comb, np.einsum('bsih,bsoh->bsio', x64, d64)), 1e-12)

    def test_errors_name_the_argument(self):
        with self.assertRaisesRegex(tk_kernels.TkInvalidArgumentError, 'x must be contiguous'):
            mhc.mhc_pre_apply_mix(self.res[:, :, :, ::2], self.mix)
        with self.assertRaisesRegex(tk_kernels.TkInvalidArgumentError, r'comb_res_mix has shape \(2, 3, 4, 3\)'):
            mhc.mhc_post(self.y, self.res, self.post, self.comb[..., :3].copy())
        with self.assertRaisesRegex(tk_kernels.TkInvalidArgumentError, 'x has leading dimensions'):
            mhc.mhc_post(self.y[:1], self.res, self.post, self.comb)
        with self.assertRaisesRegex(tk_kernels.TkInvalidArgumentError, 'tk_mhc_post_fwd: comb_mix'):
            mhc.mhc_post(self.y, self.res, self.post, self.comb.astype(BF16))
        with self.assertRaisesRegex(tk_kernels.TkInvalidArgumentError, 'repeat must be at least 1'):
            mhc.sinkhorn_normalize(self.comb, repeat=0)


def sinkhorn_ref(x, repeat, eps):
    """mhc_engram.md 3.4 in float64 over the last two dims."""
    e = np.exp(x - x.max(-1, keepdims=True))
    p = e / e.sum(-1, keepdims=True) + eps
    p = p / (p.sum(-2, keepdims=True) + eps)
    for _ in range(repeat - 1):
        p = p / (p.sum(-1, keepdims=True) + eps)
        p = p / (p.sum(-2, keepdims=True) + eps)
    return p


class Sinkhorn(unittest.TestCase):
    def test_forward_and_backward(self):
        g = rng(11)
        x = g.standard_normal((2, 5, 4, 4)).astype(F32)
        out = mhc.sinkhorn_normalize(x, repeat=10, eps=1e-6)
        x64 = x.astype(np.float64)
        self.assertTrue(np.allclose(out, sinkhorn_ref(x64, 10, 1e-6), rtol=1.3e-6, atol=1e-5))
        # The backward against central differences of the float64 forward, along a random direction.
        go, d = g.standard_normal(x.shape), g.standard_normal(x.shape)
        grad = mhc.sinkhorn_normalize_bwd(go.astype(F32), x, repeat=10, eps=1e-6)
        h = 1e-6
        fd = ((sinkhorn_ref(x64 + h * d, 10, 1e-6) - sinkhorn_ref(x64 - h * d, 10, 1e-6)) * go).sum() / (2 * h)
        self.assertAlmostEqual(float((grad * d).sum()), fd, delta=1e-4 * max(1.0, abs(fd)))


def sigmoid(z):
    return 1.0 / (1.0 + np.exp(-z))


class MixGates(unittest.TestCase):
    """split_mixes and head_compute_mix against float64 NumPy, their backwards against central differences."""

    def setUp(self):
        g = rng(13)
        self.n, self.p, self.eps = 4, 2.0, 1e-2
        m = 2 * self.n + self.n * self.n
        self.u = g.standard_normal((2, 3, m)).astype(F32)
        self.scale, self.base = g.standard_normal(3).astype(F32), g.standard_normal(m).astype(F32)
        self.g = g

    def split_ref(self, u, s, b):
        n = self.n
        z = u * np.concatenate([np.full(n, s[0]), np.full(n, s[1]), np.full(n * n, s[2])]) + b
        lead = u.shape[:-1]
        return ((sigmoid(z[..., :n]) + self.eps).reshape(lead + (n, 1)),
                (self.p * sigmoid(z[..., n:2 * n])).reshape(lead + (n, 1)), z[..., 2 * n:].reshape(lead + (n, n)))

    def test_split_mixes_and_its_backward(self):
        pre, post, comb = mhc.mhc_pre_split_mixes(self.u, self.scale, self.base, self.n, self.p, self.eps)
        want = self.split_ref(self.u.astype(np.float64), self.scale.astype(np.float64), self.base.astype(np.float64))
        for got, w in zip((pre, post, comb), want):
            self.assertEqual(got.shape, w.shape)
            self.assertTrue(np.allclose(got, w, rtol=1e-5, atol=2e-5))
        grads = [self.g.standard_normal(w.shape) for w in want]
        du, ds, db = mhc.mhc_pre_split_mixes_bwd(*(x.astype(F32) for x in grads), self.u, post, self.scale,
                                                 self.base, self.p)
        self.assertEqual((du.shape, ds.shape, db.shape), (self.u.shape, (3,), self.base.shape))
        args = [a.astype(np.float64) for a in (self.u, self.scale, self.base)]
        h = 1e-6
        for i, got in enumerate((du, ds, db)):  # each argument along a random direction
            d = self.g.standard_normal(args[i].shape)
            plus, minus = list(args), list(args)
            plus[i], minus[i] = args[i] + h * d, args[i] - h * d
            fd = sum(((a - b_) * gr).sum() for a, b_, gr in zip(self.split_ref(*plus), self.split_ref(*minus),
                                                                  grads)) / (2 * h)
            self.assertAlmostEqual(float((got * d).sum()), fd, delta=1e-4 * max(1.0, abs(fd)))

    def test_head_compute_mix_takes_a_column_slice(self):
        u = self.u[..., :self.n]  # mhc_head's input: strided rows
        s, b = self.scale[:1].copy(), self.base[:self.n].copy()
        out = mhc.mhc_head_compute_mix(u, s, b, self.eps)
        ref = lambda u_, s_, b_: sigmoid(u_ * s_[0] + b_) + self.eps  # noqa: E731
        self.assertTrue(np.allclose(out, ref(u.astype(np.float64), s, b), rtol=1e-4, atol=1e-5))
        go = self.g.standard_normal(out.shape)
        du, ds, db = mhc.mhc_head_compute_mix_bwd(go.astype(F32), u, s, b)
        sg = sigmoid(u.astype(np.float64) * s[0] + b)
        dz = go * sg * (1 - sg)
        self.assertTrue(np.allclose(du, dz * s[0], rtol=1e-4, atol=1e-5))
        self.assertTrue(np.allclose(ds, (dz * u).sum(), rtol=1e-4, atol=1e-5))
        self.assertTrue(np.allclose(db, dz.reshape(-1, self.n).sum(0), rtol=1e-4, atol=1e-5))

    def test_split_mixes_errors(self):
        with self.assertRaisesRegex(tk_kernels.TkInvalidArgumentError, r'expected \[\.\.\., 24\]'):
            mhc.mhc_pre_split_mixes(self.u[..., :20], self.scale, self.base, self.n, self.p, self.eps)
        pre, post, comb = mhc.mhc_pre_split_mixes(self.u, self.scale, self.base, self.n, self.p, self.eps)
        with self.assertRaisesRegex(tk_kernels.TkInvalidArgumentError, 'non-zero'):
            mhc.mhc_pre_split_mixes_bwd(pre, post, comb, self.u, post, self.scale, self.base, 0.0)


def tf32(a):
    """The spec's tf32r on float32 values: (bits + 0x1000) & ~0x1FFF."""
    b = np.asarray(a, F32).view(np.uint32)
    return ((b + np.uint32(0x1000)) & np.uint32(0xFFFFE000)).view(F32)


class NormFn(unittest.TestCase):
    """mhc_pre_norm_fn against float64 NumPy (fn w rounded to TF32 as the kernel's operand); the backward's
    parameter gradients against central differences of that forward."""

    def test_forward_and_backward(self):
        g = rng(17)
        n, h, eps = 4, 32, 1e-6
        n3, width = 2 * n + n * n, n * h
        res = g.standard_normal((2, 3, n, h)).astype(BF16)
        fn = (g.standard_normal((n3, width)) * 1e-2).astype(F32)
        w = (g.standard_normal(width) * 0.1 + 1).astype(F32)
        mix, mul, ss = mhc.mhc_pre_norm_fn_fwd(res, fn, w, eps)
        x = res.astype(F32).astype(np.float64).reshape(2, 3, width)

        def forward(wt):
            m = x @ wt.T
            return m / np.sqrt((x * x).sum(-1, keepdims=True) / width + eps)
        wt = tf32(fn * w).astype(np.float64)
        self.assertTrue(np.allclose(mix, forward(wt), rtol=1e-4, atol=1e-6))
        self.assertTrue(np.allclose(ss, (x * x).sum(-1), rtol=1e-5))
        self.assertTrue(np.allclose(mhc.mhc_pre_norm_fn(res, fn, w, eps), mix, rtol=0, atol=0))
        go = g.standard_normal(mix.shape)
        d_res, d_fn, d_w = mhc.mhc_pre_norm_fn_bwd(go.astype(F32), res, fn, w, mul, ss, eps)
        self.assertEqual((d_res.shape, d_fn.shape, d_w.shape), (res.shape, fn.shape, w.shape))
        # d/dW of sum(go * forward(W)) along a random direction, then the chain rule through W = fn w.
        direction = g.standard_normal(fn.shape)
        step = 1e-6
        fd = ((forward(wt + step * direction * w) - forward(wt - step * direction * w)) * go).sum() / (2 * step)
        self.assertAlmostEqual(float((d_fn * direction).sum()), fd, delta=2e-3 * max(1.0, abs(fd)))
        dw_dir = g.standard_normal(w.shape)
        fd_w = ((forward(wt + step * fn * dw_dir) - forward(wt - step * fn * dw_dir)) * go).sum() / (2 * step)
        self.assertAlmostEqual(float((d_w * dw_dir).sum()), fd_w, delta=2e-3 * max(1.0, abs(fd_w)))
        # The residual's gradient against central differences in x (the product with W~ held fixed).
        dx = g.standard_normal(x.shape)
        fx = lambda xx: ((xx @ wt.T) / np.sqrt((xx * xx).sum(-1, keepdims=True) / width + eps) * go).sum()  # noqa
        fd_x = (fx(x + step * dx) - fx(x - step * dx)) / (2 * step)
        got = float((d_res.astype(F32).reshape(x.shape) * dx).sum())
        self.assertAlmostEqual(got, fd_x, delta=2e-2 * max(1.0, abs(fd_x)))
        # Accumulating into a buffer adds the same gradient to what it held.
        buf = res.copy()
        out, _, _ = mhc.mhc_pre_norm_fn_bwd(go.astype(F32), res, fn, w, mul, ss, eps, residual_grad=buf)
        self.assertIs(out, buf)
        r64, d64 = res.astype(np.float64), d_res.astype(np.float64)
        # bf16(acc + g) against acc + bf16(g): two roundings apart, each within 2^-8 of its operands.
        self.assertTrue(np.all(np.abs(out.astype(np.float64) - (r64 + d64)) <= 2 ** -7 * (np.abs(r64) + np.abs(d64))))


class Fused(unittest.TestCase):
    """mhc_pre_big_fuse and mhc_multilayer_recompute bit for bit against the chains of the unfused functions."""

    def test_big_fuse_is_the_chain(self):
        g = rng(23)
        n, h, eps, repeat = 4, 64, 1e-6, 5
        n3 = 2 * n + n * n
        res = g.standard_normal((2, 5, n, h)).astype(BF16)
        fn = (g.standard_normal((n3, n * h)) * 1e-2).astype(F32)
        scale, base = (g.standard_normal(3) * 0.1).astype(F32), (g.standard_normal(n3) * 0.1).astype(F32)
        post, comb, layer_input = mhc.mhc_pre_big_fuse(res, fn, scale, base, eps, eps, eps, 2.0, repeat)
        self.assertEqual((post.shape, comb.shape, layer_input.shape), ((2, 5, n, 1), (2, 5, n, n), (2, 5, h)))
        pre, post_c, logits = mhc.mhc_pre_split_mixes(mhc.mhc_pre_norm_fn(res, fn, None, eps), scale, base, n, 2.0,
                                                      eps)
        self.assertTrue(np.array_equal(post, post_c))
        self.assertTrue(np.array_equal(comb, mhc.sinkhorn_normalize(logits, repeat, eps)))
        self.assertTrue(np.array_equal(layer_input.view(np.uint16), mhc.mhc_pre_apply_mix(res, pre).view(np.uint16)))
        with self.assertRaisesRegex(tk_kernels.TkInvalidArgumentError, 'sinkhorn_repeat must be at least 1'):
            mhc.mhc_pre_big_fuse(res, fn, scale, base, eps, eps, eps, 2.0, 0)

    def test_multilayer_is_the_chain(self):
        g = rng(29)
        n, h, layers, posts = 3, 40, 4, 3
        r0 = g.standard_normal((6, n, h)).astype(BF16)
        pre = [g.standard_normal((6, n, 1)).astype(F32) for _ in range(layers)]
        y = [g.standard_normal((6, h)).astype(BF16) for _ in range(posts)]
        post = [g.standard_normal((6, n, 1)).astype(F32) for _ in range(posts)]
        comb = [g.standard_normal((6, n, n)).astype(F32) for _ in range(posts)]
        inputs = [np.zeros((6, h), BF16) for _ in range(layers)]
        residuals = [np.zeros((6, n, h), BF16) for _ in range(posts)]
        self.assertIsNone(mhc.mhc_multilayer_recompute(r0, pre, y, post, comb, inputs, residuals))
        r = r0
        for i in range(layers):
            self.assertTrue(np.array_equal(inputs[i].view(np.uint16), mhc.mhc_pre_apply_mix(r, pre[i]).view(np.uint16)))
            if i < posts:
                r = mhc.mhc_post(y[i], r, post[i], comb[i])
                self.assertTrue(np.array_equal(residuals[i].view(np.uint16), r.view(np.uint16)))
        with self.assertRaisesRegex(tk_kernels.TkInvalidArgumentError, r'comb_mix_list\[1\]'):
            mhc.mhc_multilayer_recompute(r0, pre, y, post, [comb[0], comb[1][..., :2].copy(), comb[2]], inputs,
                                         residuals)
        with self.assertRaisesRegex(tk_kernels.TkInvalidArgumentError, 'residual_list has 2 tensors'):
            mhc.mhc_multilayer_recompute(r0, pre, y, post, comb, inputs, residuals[:2])


if __name__ == '__main__':
    unittest.main()
