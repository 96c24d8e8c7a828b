"""Engram operators against NumPy references."""

import unittest

import numpy as np

from common import BF16, F32, bits, calc_diff, rng, tk_kernels

eg = tk_kernels.engram


def hash_ref(ids, mult, vocab, offsets):
    """mhc_engram.md 4.1: int64 products (wrapping), XOR chain, floor-mod, int32 offset add (wrapping)."""
    layers, orders, tables = vocab.shape
    out = np.empty((layers, ids.shape[0], orders * tables), np.int32)
    with np.errstate(over='ignore'):
        for layer in range(layers):
            p = ids.astype(np.int64) * mult[layer][None, :]
            h = p[:, 0]
            for i in range(1, orders + 1):
                h = h ^ p[:, i]
                for j in range(tables):
                    col = (i - 1) * tables + j
                    r = np.mod(h, np.int64(vocab[layer, i - 1, j])) + offsets[layer, col]
                    out[layer, :, col] = r.astype(np.int32)
    return out


def bf16(a):
    """The float64 reference as the kernel stores it: one rounding to bf16."""
    return np.asarray(a, F32).astype(BF16).astype(F32)


def gate_ref(x, k, v, wf, eps, clamp):
    """engram_gate_fwd in float64: (out, dot, gate, rstd_x, rstd_k)."""
    x, k, v = (np.asarray(a, np.float64) for a in (x, k, v))
    h = x.shape[-1]
    dot = (x * wf * k).sum(-1)
    rx = 1 / np.sqrt((x * x).sum(-1) / h + eps)
    rk = 1 / np.sqrt((k * k).sum(-1) / h + eps)
    s = dot * rx * rk / np.sqrt(h)
    g = 1 / (1 + np.exp(-np.copysign(np.sqrt(np.maximum(np.abs(s), clamp)), s)))
    return x + g[..., None] * v[:, None, :], dot, g, rx, rk


class EngramHashTest(unittest.TestCase):
    def test_against_reference(self):
        r = rng(1)
        ids = r.integers(0, 100000, (300, 3)).astype(np.int32)
        mult = r.integers(-2**62, 2**62, (2, 3), dtype=np.int64)  # products wrap, hashes go negative
        vocab = r.integers(100000, 1000000, (2, 2, 8)).astype(np.int32)
        offsets = eg.make_offsets(vocab)
        flat = vocab.reshape(2, -1).astype(np.int64)
        np.testing.assert_array_equal(offsets, (np.cumsum(flat, 1) - flat).astype(np.int32))
        out = eg.engram_hash(ids, mult, vocab, offsets)
        self.assertEqual((out.dtype, out.shape), (np.int32, (2, 300, 16)))
        np.testing.assert_array_equal(out, hash_ref(ids, mult, vocab, offsets))

    def test_bad_shapes_and_sizes(self):
        ids = np.zeros((4, 3), np.int32)
        vocab = np.ones((2, 2, 8), np.int32)
        with self.assertRaisesRegex(tk_kernels.TkInvalidArgumentError, 'tk_engram_hash'):
            eg.engram_hash(ids, np.ones((2, 4), np.int64), vocab, np.zeros((2, 16), np.int32))
        with self.assertRaisesRegex(tk_kernels.TkInvalidArgumentError, 'make_offsets'):
            eg.make_offsets(np.zeros((1, 1, 2), np.int32))  # sizes must be positive


class EngramGateTest(unittest.TestCase):
    def setUp(self):
        r = rng(2)
        t, n, h = 12, 4, 256
        self.x = r.standard_normal((t, n, h)).astype(BF16)
        self.k = r.standard_normal((t, n, h)).astype(BF16)
        self.v = r.standard_normal((t, h)).astype(BF16)
        self.wh = r.standard_normal((n, h)).astype(BF16)
        self.we = r.standard_normal((n, h)).astype(BF16)

    def test_fused_weight_is_exact(self):
        wf = eg.fused_weight(self.wh, self.we)
        np.testing.assert_array_equal(bits(wf), bits(self.wh.astype(F32) * self.we.astype(F32)))

    def test_forward(self):
        wf = eg.fused_weight(self.wh, self.we)
        out, dot, gate, rx, rk = eg.engram_gate_fwd(self.x, self.k, self.v, wf, 1e-20, 1e-6)
        ref = gate_ref(self.x, self.k, self.v, wf, 1e-20, 1e-6)
        self.assertEqual((out.dtype, out.shape, dot.shape), (BF16, self.x.shape, (12, 4)))
        self.assertLess(calc_diff(out.astype(F32), bf16(ref[0])), 1e-8)
        for got, want in zip((dot, gate, rx, rk), ref[1:]):
            np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)
        plain = eg.engram_gate_fwd(self.x, self.k, self.v, wf, 1e-20, 1e-6, save_for_backward=False)
        self.assertEqual(plain[1:], (None, None, None, None))
        np.testing.assert_array_equal(bits(plain[0]), bits(out))

    def test_backward_and_weight_gradient(self):
        wf = eg.fused_weight(self.wh, self.we)
        _, dot, gate, rx, rk = eg.engram_gate_fwd(self.x, self.k, self.v, wf, 1e-20, 1e-6)
        go = rng(3).standard_normal(self.x.shape).astype(BF16)
        gx, gk, gv, partial = eg.engram_gate_bwd(go, self.x, self.k, self.v, wf, dot, gate, rx, rk, 1e-6,
                                                 num_persistent_blocks=5)
        self.assertEqual((gx.shape, gk.shape, gv.shape, partial.shape), (self.x.shape, self.k.shape, self.v.shape,
                                                                          (5, 4, 256)))
        x, k, v, g64 = (np.asarray(a, np.float64) for a in (self.x, self.k, self.v, go))
        h = x.shape[-1]
        dg = (g64 * v[:, None, :]).sum(-1)
        a = np.float64(rx) * rk / np.sqrt(h)
        d64 = np.float64(dot)
        rho = np.where(np.abs(d64) / np.sqrt(h) * rx * rk < 1e-6, 0,
                       dg * gate * (1 - gate) / 2 * np.sqrt(a / np.abs(d64)))[..., None]
        ref_gx = g64 + rho * (k * wf - x * (d64 * np.float64(rx) ** 2 / h)[..., None])
        ref_gk = rho * (x * wf - k * (d64 * np.float64(rk) ** 2 / h)[..., None])
        self.assertLess(calc_diff(gx.astype(F32), bf16(ref_gx)), 1e-8)
        self.assertLess(calc_diff(gk.astype(F32), bf16(ref_gk)), 1e-8)
        self.assertLess(calc_diff(gv.astype(F32), bf16((g64 * np.float64(gate)[..., None]).sum(1))), 1e-8)
        gw = (rho * x * k).sum(0)
        self.assertLess(calc_diff(partial.sum(0), gw), 1e-10)
        gwh, gwe = np.ones((4, 256), F32), np.zeros((4, 256), F32)
        self.assertIsNone(eg.grad_w_reduce(partial, self.wh, self.we, gwh, gwe))
        self.assertLess(calc_diff(gwh, 1 + gw * self.we.astype(F32)), 1e-10)
        self.assertLess(calc_diff(gwe, gw * self.wh.astype(F32)), 1e-10)

    def test_wrong_dtype(self):
        wf = eg.fused_weight(self.wh, self.we)
        with self.assertRaisesRegex(tk_kernels.TkInvalidArgumentError, 'tk_engram_gate_fwd'):
            eg.engram_gate_fwd(self.x.astype(F32), self.k, self.v, wf, 1e-20, 1e-6)


if __name__ == '__main__':
    unittest.main()
