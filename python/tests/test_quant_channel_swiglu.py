"""Per-channel casts and the SwiGLU casts against NumPy references."""

import unittest

import numpy as np

from common import BF16, E4M3, F32, bits, calc_diff, randn, rng, scale_rule, tk_kernels

q = tk_kernels.quant


def channel_ref(x, b, round_sf=False):
    """e4m3 with one scale per column and b rows: (q (M, K), sf (M/b, K))."""
    x = np.asarray(x, F32)
    m, k = x.shape
    sf, inv = scale_rule(np.abs(x).reshape(m // b, b, k).max(axis=1), round_sf=round_sf)
    return np.clip(x * np.repeat(inv, b, axis=0), -448, 448).astype(E4M3), sf


def swiglu(x, clamp=None):
    x = np.asarray(x, F32)
    h = x.shape[1] // 2
    l, r = x[:, :h], x[:, h:]
    if clamp is not None:
        l, r = np.minimum(l, F32(clamp)), np.clip(r, F32(-clamp), F32(clamp))
    return (l / (F32(1) + np.exp(-l))) * r


class PerChannelTest(unittest.TestCase):
    def test_per_channel_cast(self):
        x = randn((256, 128), BF16, seed=20)
        for round_sf in (False, True):
            out, sf = q.per_channel_cast(x, 'e4m3', 128, round_sf=round_sf)
            ref_q, ref_sf = channel_ref(x, 128, round_sf)
            np.testing.assert_array_equal(bits(out), bits(ref_q))
            np.testing.assert_array_equal(bits(sf), bits(ref_sf))

    def test_and_transpose(self):
        x = randn((128, 192), BF16, seed=21)
        for b in (32, 128):
            out, sf = q.per_channel_cast_and_transpose(x, 'e4m3', b)
            ref_q, ref_sf = channel_ref(x, b)
            self.assertEqual((out.shape, sf.shape), ((192, 128), (128 // b, 192)))
            np.testing.assert_array_equal(bits(out), bits(ref_q.T))
            np.testing.assert_array_equal(bits(sf), bits(ref_sf))

    def test_fused_gather_and_quant_input(self):
        x = randn((64, 256), BF16, seed=22)
        pos = rng(23).integers(-1, 64, 128).astype(np.int32)
        out, sf = q.per_channel_cast_fused(x, 'e4m3', 128, pos_to_token=pos)
        gathered = np.where((pos >= 0)[:, None], np.asarray(x, F32)[np.maximum(pos, 0)], F32(0))
        ref_q, ref_sf = channel_ref(gathered, 128)
        np.testing.assert_array_equal(bits(out), bits(ref_q))
        np.testing.assert_array_equal(bits(sf), bits(ref_sf))
        xq, xs = q.per_token_cast(x, 'e4m3', 128)  # fp32 row multipliers, not powers of two
        out, sf = q.per_channel_cast_fused((xq, xs), 'e4m3', 128, num_per_channels=128, pos_to_token=pos)
        v = xq.astype(F32) * np.repeat(xs, 128, axis=1)
        ref_q, ref_sf = channel_ref(np.where((pos >= 0)[:, None], v[np.maximum(pos, 0)], F32(0)), 128)
        np.testing.assert_array_equal(bits(out), bits(ref_q))
        np.testing.assert_array_equal(bits(sf), bits(ref_sf))

    def test_rows_not_a_multiple_of_128(self):
        with self.assertRaisesRegex(tk_kernels.TkInvalidArgumentError, 'tk_per_channel_cast'):
            q.per_channel_cast(randn((100, 64), BF16), 'e4m3', 128)


class SwigluForwardTest(unittest.TestCase):
    # The CPU path uses the C library's expf and NumPy its own exp: close, not bit for bit (docs/cpu_path.md).
    def test_per_token(self):
        x = randn((16, 512), BF16, seed=24)
        out, sf = q.swiglu_forward_and_per_token_cast(x, 'e4m3', 128)
        self.assertEqual((out.dtype, out.shape, sf.shape), (E4M3, (16, 256), (16, 2)))
        y = swiglu(x)
        back = out.astype(F32) * np.repeat(sf, 128, axis=1)
        self.assertLess(calc_diff(back, y), 1e-3)
        ref_sf, _ = scale_rule(np.abs(y).reshape(16, 2, 128).max(-1))
        np.testing.assert_allclose(sf, ref_sf, rtol=1e-5)

    def test_clamp_counts_and_routing_weights(self):
        x = randn((16, 256), BF16, seed=25)
        weights = rng(26).random((8, 2)).astype(F32)
        pos = np.arange(16, dtype=np.int32)
        counts = np.zeros(3, np.int64)
        out, sf = q.swiglu_forward_and_per_token_cast(x, 'e4m3', 128, pos_to_token_topk=pos, topk_weights=weights,
                                                      swiglu_clamp_value=0.5, clamped_count=counts)
        xf = np.asarray(x, F32)
        l, r = xf[:, :128], xf[:, 128:]
        self.assertEqual(list(counts), [(l > 0.5).sum(), (r > 0.5).sum(), (r < -0.5).sum()])
        y = swiglu(x, clamp=0.5) * weights.reshape(-1)[:, None]
        self.assertLess(calc_diff(out.astype(F32) * sf, y), 1e-3)

    def test_per_channel_transposed_or_not(self):
        x = randn((128, 256), BF16, seed=27)
        out_t, sf_t = q.swiglu_forward_and_per_channel_cast_and_transpose(x, 'e4m3', 32)
        out_n, sf_n = q.swiglu_forward_and_per_channel_cast_and_transpose(x, 'e4m3', 32, without_transpose=True)
        self.assertEqual((out_t.shape, out_n.shape, sf_t.shape), ((128, 128), (128, 128), (4, 128)))
        np.testing.assert_array_equal(bits(out_t), bits(out_n.T))
        np.testing.assert_array_equal(bits(sf_t), bits(sf_n))
        act = swiglu(x).astype(BF16).astype(F32)  # the activation is rounded to bf16 before the cast
        self.assertLess(calc_diff(out_n.astype(F32) * np.repeat(sf_n, 32, axis=0), act), 1e-3)

    def test_hidden_not_a_multiple_of_128(self):
        with self.assertRaisesRegex(tk_kernels.TkInvalidArgumentError, 'tk_swiglu_forward_and_per_token_cast'):
            q.swiglu_forward_and_per_token_cast(randn((4, 192), BF16), 'e4m3', 96)


class SwigluBackwardTest(unittest.TestCase):
    def test_against_formulas(self):
        t, k, h, g = 8, 2, 128, 128
        n = t * k
        xq, xs = q.per_token_cast(randn((n, 2 * h), BF16, seed=28), 'e4m3', g)
        grad_out = randn((n, h), BF16, seed=29)
        weight = rng(30).random((t, k)).astype(F32)
        pos_to_token_topk = np.arange(n, dtype=np.int32)
        token_topk_to_pos = np.arange(n, dtype=np.int32).reshape(t, k)
        out, (gq, gsf), x_grad, weight_grad = q.swiglu_backward_and_per_token_cast(
            (xq, xs), grad_out, weight, pos_to_token_topk, token_topk_to_pos, g)
        self.assertEqual([a.shape for a in (out, gq, gsf, x_grad, weight_grad)],
                         [(n, h), (n, 2 * h), (n, 2), (n, 2 * h), (t, k)])
        self.assertEqual((out.dtype, gq.dtype, x_grad.dtype), (BF16, E4M3, BF16))
        v = xq.astype(F32) * np.repeat(xs, g, axis=1)
        xv, yv = v[:, :h], v[:, h:]
        w = weight.reshape(-1)[:, None]
        go = np.asarray(grad_out, F32)
        s = F32(1) / (F32(1) + np.exp(-xv))
        act = xv * s * yv
        dx = go * w * s * yv * (xv * (F32(1) - s) + F32(1))
        dy = go * w * s * xv
        self.assertLess(calc_diff(out.astype(F32), act * w), 1e-5)
        self.assertLess(calc_diff(x_grad.astype(F32), np.concatenate([dx, dy], 1)), 1e-5)
        np.testing.assert_allclose(weight_grad.reshape(-1), (go * act).sum(1), rtol=1e-4, atol=1e-4)
        self.assertLess(calc_diff(gq.astype(F32) * np.repeat(gsf, g, axis=1), np.concatenate([dx, dy], 1)), 1e-3)


if __name__ == '__main__':
    unittest.main()
