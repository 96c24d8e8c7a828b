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
        with self.assertRaisesRegex(NotImplementedError, 'mhc_pre_split_mixes'):
            mhc.mhc_pre_split_mixes  # noqa: B018
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


if __name__ == '__main__':
    unittest.main()
