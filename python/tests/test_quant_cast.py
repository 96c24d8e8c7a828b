"""Per-token and per-block casts, cast_back and the lossless re-blocking against NumPy references."""

import unittest

import numpy as np

from common import BF16, E4M3, F32, bits, calc_diff, per_token_ref, randn, scale_rule, tk_kernels

q = tk_kernels.quant


def expand(sf, b, g, m, k):
    """Scale factors (Mb, Kb) spread over their b x g blocks, cropped to (m, k)."""
    return np.repeat(np.repeat(np.asarray(sf, F32), b, axis=0), g, axis=1)[:m, :k]


def block_ref(x, b, g, round_sf=False):
    x = np.asarray(x, F32)
    m, k = x.shape
    mb, kb = -(-m // b), -(-k // g)
    pad = np.zeros((mb * b, kb * g), F32)
    pad[:m, :k] = np.abs(x)
    sf, inv = scale_rule(pad.reshape(mb, b, kb, g).max(axis=(1, 3)), round_sf=round_sf)
    return e4m3(x * expand(inv, b, g, m, k)), sf


def e4m3(v):
    return np.clip(np.asarray(v, F32), -448, 448).astype(E4M3)


class PerTokenCastTest(unittest.TestCase):
    def test_e4m3_bf16_partial_groups(self):
        x = randn((37, 576), BF16, seed=1)
        for g in (128, 576):
            out, sf = q.per_token_cast(x, 'e4m3', g)
            ref_q, ref_sf = per_token_ref(x, g)
            self.assertEqual((out.dtype, out.shape, sf.dtype, sf.shape), (E4M3, (37, 576), F32, ref_sf.shape))
            np.testing.assert_array_equal(bits(out), bits(ref_q))
            np.testing.assert_array_equal(bits(sf), bits(ref_sf))

    def test_numpy_integer_group_size(self):
        # A group size computed with NumPy (np.int64) is as good as a Python int.
        x = randn((8, 256), BF16, seed=4)
        out, sf = q.per_token_cast(x, 'e4m3', np.int64(128))
        ref_q, ref_sf = per_token_ref(x, 128)
        self.assertEqual(sf.shape, ref_sf.shape)
        np.testing.assert_array_equal(bits(out), bits(ref_q))

    def test_fp32_round_sf_and_row_stride(self):
        wide = randn((20, 512), seed=2)
        x = wide[:, :256]  # row stride 512: any row stride is allowed
        out, sf = q.per_token_cast(x, 'e4m3', 32, round_sf=True)
        ref_q, ref_sf = per_token_ref(x, 32, round_sf=True)
        np.testing.assert_array_equal(bits(out), bits(ref_q))
        np.testing.assert_array_equal(bits(sf), bits(ref_sf))
        out2, sf2 = q.per_token_cast(np.ascontiguousarray(x), 'e4m3', 32, round_sf=True)
        np.testing.assert_array_equal(bits(out), bits(out2))

    def test_scale_factor_layouts(self):
        x = randn((10, 512), BF16, seed=3)
        _, row = q.per_token_cast(x, 'e4m3', 32, round_sf=True)
        _, col = q.per_token_cast(x, 'e4m3', 32, use_tma_aligned_col_major_sf=True, round_sf=True)
        self.assertEqual((col.shape, tuple(s // 4 for s in col.strides)), ((10, 16), (1, 12)))
        np.testing.assert_array_equal(bits(col), bits(row))
        out, packed = q.per_token_cast(x, 'e4m3', 32, use_tma_aligned_col_major_sf=True, round_sf=True,
                                       use_packed_ue8m0=True)
        self.assertEqual((packed.dtype, packed.shape, tuple(s // 4 for s in packed.strides)),
                         (np.int32, (10, 4), (1, 12)))
        exponents = np.ascontiguousarray(packed).view(np.uint8).reshape(10, 16)
        np.testing.assert_array_equal(exponents, (row.view(np.uint32) >> 23).astype(np.uint8))

    def test_e2m1_packing_and_unpack(self):
        x = np.zeros((2, 32), F32)
        x[0, :4] = [0.5, 1, -2, 6]
        out, sf = q.per_token_cast(x, 'e2m1', 32)
        self.assertEqual((out.dtype, out.shape), (np.int8, (2, 16)))
        self.assertEqual(list(out.view(np.uint8)[0, :2]), [0x21, 0x7C])
        self.assertEqual(sf[0, 0], 1.0)
        np.testing.assert_array_equal(q.unpack_from_e2m1fn_x2(out)[0, :4], [0.5, 1, -2, 6])

    def test_sf_only_and_precomputed(self):
        x = randn((16, 256), BF16, seed=4)
        out, sf = q.per_token_cast(x, 'e4m3', 64, round_sf=True)
        np.testing.assert_array_equal(bits(q.per_token_cast_with_sf_only(x, 'e4m3', 64, round_sf=True)), bits(sf))
        np.testing.assert_array_equal(bits(q.per_token_cast_with_precomputed_sf(x, 'e4m3', 64, sf)), bits(out))

    def test_requantize_a_quant_tensor(self):
        x = randn((12, 256), BF16, seed=5)
        xq, xsf = q.per_token_cast(x, 'e4m3', 128, round_sf=True)
        out, sf = q.per_token_cast((xq, xsf), 'e4m3', 32, x_block_size=(1, 128))
        v = xq.astype(F32) * expand(xsf, 1, 128, 12, 256)  # exact: power-of-two scales
        ref_q, ref_sf = per_token_ref(v, 32)
        np.testing.assert_array_equal(bits(out), bits(ref_q))
        np.testing.assert_array_equal(bits(sf), bits(ref_sf))

    def test_e5m6_round_trip(self):
        x = randn((16, 512), seed=6)
        out, sf = q.per_token_cast(x, 'e5m6', 512)
        self.assertEqual((out.dtype, out.shape, sf.shape), (np.uint8, (16, 768), (16, 1)))
        back = q.cast_back((out, sf), 'fp32', (1, 512), x_special_fmt='e5m6')
        self.assertLess(calc_diff(back, x), 1e-4)
        exact = np.ones((1, 512), F32)
        exact[0, -1] = 65024  # scale 1: every value is an E5M6 code
        out, sf = q.per_token_cast(exact, 'e5m6', 512)
        np.testing.assert_array_equal(q.cast_back((out, sf), 'fp32', (1, 512), x_special_fmt='e5m6'), exact)

    def test_errors_carry_tks_message(self):
        x = randn((4, 256), BF16)
        with self.assertRaisesRegex(tk_kernels.TkInvalidArgumentError, 'tk_per_token_cast: num_per_channels'):
            q.per_token_cast(x, 'e4m3', 100)
        with self.assertRaisesRegex(tk_kernels.TkInvalidArgumentError, 'tk_per_token_cast'):
            q.per_token_cast(x, 'e4m3', 32, use_packed_ue8m0=True)  # needs col-major and round_sf
        with self.assertRaisesRegex(tk_kernels.TkInvalidArgumentError, 'tk_per_token_cast'):
            q.per_token_cast(randn((4, 256)).astype(np.float16), 'e4m3', 32)


class PerBlockCastTest(unittest.TestCase):
    def test_blocks_against_reference(self):
        x = randn((100, 256), BF16, seed=7)
        for block, round_sf in (((32, 32), False), ((128, 128), True), ((32, 128), False)):
            out, sf = q.per_block_cast(x, 'e4m3', block, round_sf=round_sf)
            ref_q, ref_sf = block_ref(x, *block, round_sf=round_sf)
            np.testing.assert_array_equal(bits(out), bits(ref_q), str(block))
            np.testing.assert_array_equal(bits(sf), bits(ref_sf), str(block))

    def test_col_major_sf_only_and_precomputed(self):
        x = randn((100, 256), seed=8)
        out, sf = q.per_block_cast(x, 'e4m3', (32, 32), round_sf=True)
        col = q.per_block_cast_with_sf_only(x, 'e4m3', (32, 32), use_tma_aligned_col_major_sf=True, round_sf=True)
        self.assertEqual((col.shape, tuple(s // 4 for s in col.strides)), ((4, 8), (1, 4)))
        np.testing.assert_array_equal(bits(col), bits(sf))
        pre = q.per_block_cast_with_precomputed_sf(x, 'e4m3', (32, 32), sf)
        np.testing.assert_array_equal(bits(pre), bits(out))

    def test_hidden_not_a_multiple_of_64(self):
        with self.assertRaisesRegex(tk_kernels.TkInvalidArgumentError, 'tk_per_block_cast'):
            q.per_block_cast(randn((64, 96), BF16), 'e4m3', (32, 32))


class CastBackTest(unittest.TestCase):
    def test_e4m3_to_fp32_and_bf16(self):
        x = randn((33, 256), BF16, seed=9)
        xq, xsf = q.per_token_cast(x, 'e4m3', 128)
        ref = xq.astype(F32) * expand(xsf, 1, 128, 33, 256)
        np.testing.assert_array_equal(bits(q.cast_back((xq, xsf), 'fp32', (1, 128))), bits(ref))
        np.testing.assert_array_equal(bits(q.per_token_cast_back((xq, xsf), 'bf16', 128)), bits(ref.astype(BF16)))

    def test_e2m1_and_column_major_scales(self):
        x = randn((16, 128), seed=10)
        xq, xsf = q.per_token_cast(x, 'e2m1', 32, use_tma_aligned_col_major_sf=True, round_sf=True,
                                   use_packed_ue8m0=True)
        back = q.cast_back((xq, xsf), 'fp32', (1, 32))
        _, row_sf = q.per_token_cast(x, 'e2m1', 32, round_sf=True)
        ref = q.unpack_from_e2m1fn_x2(xq) * expand(row_sf, 1, 32, 16, 128)
        np.testing.assert_array_equal(bits(back), bits(ref))
        self.assertLess(calc_diff(back, x), 2e-2)

    def test_special_format_rules(self):
        xq = np.zeros((4, 96), np.uint8)
        with self.assertRaisesRegex(tk_kernels.TkInvalidArgumentError, "x_special_fmt='e5m6'"):
            q.cast_back((xq, np.ones((4, 1), F32)), 'fp32', (1, 64))
        with self.assertRaisesRegex(tk_kernels.TkInvalidArgumentError, "fmt must be 'bf16' or 'fp32'"):
            q.cast_back((xq, np.ones((4, 1), F32)), 'fp16', (1, 64), x_special_fmt='e5m6')


class LosslessTest(unittest.TestCase):
    def test_fp4_to_fp8_is_exact(self):
        x = randn((64, 256), seed=11)
        xq, xsf = q.per_token_cast(x, 'e2m1', 32, round_sf=True)
        values = q.unpack_from_e2m1fn_x2(xq) * expand(xsf, 1, 32, 64, 256)
        for ob in ((1, 128), (32, 32)):
            out, sf = q.per_block_cast_lossless((xq, xsf), 'e4m3', (1, 32), ob)
            self.assertEqual((out.dtype, sf.shape), (E4M3, (64 // ob[0], 256 // ob[1])))
            got = out.astype(F32) * expand(sf, *ob, 64, 256)
            np.testing.assert_array_equal(bits(got), bits(values), str(ob))

    def test_scale_that_is_not_a_power_of_two(self):
        xq, xsf = q.per_token_cast(randn((32, 128), seed=12), 'e2m1', 32)  # not rounded: arbitrary scales
        with self.assertRaises(tk_kernels.TkError) as cm:
            q.per_block_cast_lossless((xq, xsf), 'e4m3', (1, 32), (32, 32))
        self.assertIn('tk_per_block_cast_lossless', cm.exception.message)


if __name__ == '__main__':
    unittest.main()
