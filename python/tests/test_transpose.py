"""transpose and batched_transpose: exact copies."""

import unittest

import numpy as np

from common import BF16, E4M3, bits, randn, tk_kernels

t = tk_kernels.transpose


class TransposeTest(unittest.TestCase):
    def test_dtypes_and_row_stride(self):
        for dtype in (E4M3, BF16, np.float32, np.int8):
            wide = randn((128, 384), seed=1).astype(dtype)
            x = wide[:, :192]  # row stride 384 elements
            out = t.transpose(x)
            self.assertEqual((out.dtype, out.shape), (np.dtype(dtype), (192, 128)))
            self.assertTrue(out.flags['C_CONTIGUOUS'])
            np.testing.assert_array_equal(bits(out), bits(x.T), str(dtype))

    def test_batched(self):
        x = randn((3, 64, 128), BF16, seed=2)
        out = t.batched_transpose(x)
        self.assertEqual(out.shape, (3, 128, 64))
        np.testing.assert_array_equal(bits(out), bits(x.transpose(0, 2, 1)))

    def test_empty(self):
        self.assertEqual(t.transpose(np.zeros((0, 64), np.float32)).shape, (64, 0))

    def test_errors(self):
        with self.assertRaisesRegex(tk_kernels.TkInvalidArgumentError, 'tk_transpose'):
            t.transpose(np.zeros((64, 96), np.float32))
        with self.assertRaisesRegex(tk_kernels.TkInvalidArgumentError, 'tk_transpose'):
            t.transpose(np.zeros((64, 64), np.int64))  # 8-byte elements are not supported
        with self.assertRaisesRegex(tk_kernels.TkInvalidArgumentError, 'x must be 3-D'):
            t.batched_transpose(np.zeros((64, 64), np.float32))


if __name__ == '__main__':
    unittest.main()
