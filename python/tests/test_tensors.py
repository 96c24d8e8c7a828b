"""Descriptors built from NumPy arrays, and how tk's failures reach Python."""

import ctypes
import unittest

import numpy as np

from common import BF16, E4M3, randn, tk_kernels
from tk_kernels import _lib, _tensor


class DescriptorTest(unittest.TestCase):
    def describe(self, a):
        call = _tensor.Call('test', a)
        return ctypes.cast(call.t(a, 'a'), ctypes.POINTER(_lib.TkTensor)).contents, call

    def test_dtypes(self):
        cases = [(np.float32, _lib.F32), (np.float16, _lib.F16), (BF16, _lib.BF16), (E4M3, _lib.F8_E4M3),
                 (np.int8, _lib.I8), (np.uint8, _lib.U8), (np.int16, _lib.I16), (np.int32, _lib.I32),
                 (np.int64, _lib.I64), (np.bool_, _lib.U8)]
        for dtype, code in cases:
            d, _ = self.describe(np.zeros((2, 3), dtype))
            self.assertEqual(d.dtype, code, dtype)
            self.assertEqual(d.device, _lib.DEVICE_CPU)

    def test_strides_are_in_elements(self):
        base = np.zeros((4, 128), np.float32)
        view = base[:, :64]
        d, _ = self.describe(view)
        self.assertEqual((d.ndim, list(d.shape[:2]), list(d.strides[:2])), (2, [4, 64], [128, 1]))
        d, _ = self.describe(base.T)
        self.assertEqual(list(d.strides[:2]), [1, 128])
        self.assertEqual(d.data, base.ctypes.data)

    def test_column_major_scale_factors(self):
        _, call = self.describe(np.zeros((1, 1), np.float32))
        sf = call.empty_sf(5, 3, _lib.F32, col_major=True)
        self.assertEqual(sf.shape, (5, 3))
        self.assertEqual(tuple(s // 4 for s in sf.strides), (1, 8))

    def test_allocations_are_aligned(self):
        _, call = self.describe(np.zeros((1, 1), np.float32))
        for n in (1, 3, 17):
            self.assertEqual(call.empty((n, 5), _lib.BF16).ctypes.data % 64, 0)

    def test_unsupported_dtype(self):
        with self.assertRaises(tk_kernels.TkInvalidArgumentError) as cm:
            tk_kernels.transpose.transpose(np.zeros((64, 64), np.float64))
        self.assertIn('x has dtype float64', str(cm.exception))

    def test_not_a_tensor(self):
        with self.assertRaisesRegex(TypeError, 'must be a torch.Tensor or a numpy.ndarray, not list'):
            tk_kernels.moe.topk_gate([[1.0, 2.0]], 1)

    def test_strides_that_are_not_whole_elements(self):
        raw = np.zeros(64 * 64 * 4 + 2, np.uint8)[2:].view(np.float32)  # whole-element strides, odd pointer
        with self.assertRaisesRegex(tk_kernels.TkInvalidArgumentError, 'x data pointer is not aligned'):
            tk_kernels.transpose.transpose(raw.reshape(64, 64))
        odd = np.lib.stride_tricks.as_strided(np.zeros(64 * 200, np.float32), (64, 64), (402, 4))
        with self.assertRaisesRegex(tk_kernels.TkInvalidArgumentError, 'not whole elements'):
            tk_kernels.transpose.transpose(odd)


class ErrorTest(unittest.TestCase):
    def test_tk_message_status_and_classes(self):
        with self.assertRaises(tk_kernels.TkError) as cm:
            tk_kernels.transpose.transpose(np.zeros((60, 64), np.float32))
        e = cm.exception
        self.assertIsInstance(e, ValueError)
        self.assertIsInstance(e, tk_kernels.TkInvalidArgumentError)
        self.assertEqual(e.status, 1)
        self.assertTrue(e.message.startswith('tk_transpose: rows and columns must be multiples of 64'), e.message)
        self.assertEqual(e.function, 'transpose.transpose')
        self.assertIn('TK_ERROR_INVALID_ARGUMENT', str(e))

    def test_wrong_dtype_reports_tk_message(self):
        with self.assertRaises(tk_kernels.TkInvalidArgumentError) as cm:
            tk_kernels.moe.topk_gate(np.zeros((4, 8), np.int32), 2)
        self.assertIn('tk_topk_gate', cm.exception.message)
        self.assertIn('scores', cm.exception.message)

    def test_python_side_argument_errors_look_the_same(self):
        with self.assertRaises(tk_kernels.TkInvalidArgumentError) as cm:
            tk_kernels.quant.per_token_cast(randn((4, 64), BF16), 'e3m4', 32)
        self.assertEqual(cm.exception.status, 1)
        self.assertIn("fmt must be one of 'e4m3', 'e2m1', 'e5m6'", str(cm.exception))

    def test_cuda_descriptor_without_a_gpu(self):
        # No torch in CI: a hand-made device descriptor shows how a CUDA call fails on a machine without a GPU.
        # Where a driver loads, the host pointers would reach a kernel: skip before anything is launched.
        try:
            ctypes.CDLL('libcuda.so.1')
        except OSError:
            pass
        else:
            self.skipTest('a CUDA driver is installed here')
        a = np.zeros((64, 64), np.float32)
        call = _tensor.Call('transpose.transpose', a)
        d = ctypes.cast(call.t(a, 'x'), ctypes.POINTER(_lib.TkTensor)).contents
        o = ctypes.cast(call.t(np.zeros((64, 64), np.float32), 'out'), ctypes.POINTER(_lib.TkTensor)).contents
        d.device = o.device = _lib.DEVICE_CUDA
        try:
            call.run(ctypes.byref(d), ctypes.byref(o))
        except tk_kernels.TkDeviceError as e:
            self.assertIn(e.status, (_lib.NO_DRIVER, _lib.NO_DEVICE))
            self.assertTrue(e.message, 'tk gives a message')
        else:
            self.fail('a CUDA call without a driver succeeded')

    def test_integers_past_the_c_type_are_refused(self):
        # ctypes would pass 2**32 + 1 as 1: the call must refuse it, not mask for TP rank 1.
        ids = np.array([[0, 5, 9, -1]], np.int64)
        with self.assertRaises(tk_kernels.TkInvalidArgumentError) as cm:
            tk_kernels.moe.mask_indices_by_tp(ids, 16, 1, 2**32 + 1, 2)
        self.assertIn('outside the C c_int range', str(cm.exception))
        self.assertEqual(tk_kernels.moe.mask_indices_by_tp(ids, 16, 1, 1, 2).shape, ids.shape)  # rank 1 itself is fine
        with self.assertRaises(tk_kernels.TkInvalidArgumentError) as cm:
            tk_kernels.quant.per_block_cast(randn((128, 128), BF16), 'e4m3', (2**31, 128))
        self.assertIn('does not fit int32', str(cm.exception))

    def test_a_read_only_array_the_call_writes_is_refused(self):
        ids = np.array([[0, 1, 1, 2]], np.int64)
        ids.flags.writeable = False
        with self.assertRaises(tk_kernels.TkInvalidArgumentError) as cm:
            tk_kernels.moe.inplace_unique_group_indices(ids, 4)
        self.assertIn('group_indices is written by the call but is read-only', str(cm.exception))
        self.assertEqual(ids.tolist(), [[0, 1, 1, 2]])
        writable = ids.copy()
        tk_kernels.moe.inplace_unique_group_indices(writable, 4)
        self.assertEqual(writable.tolist(), [[0, 1, -1, 2]])

    def test_a_non_tensor_argument_is_named(self):
        x = randn((64, 64))
        with self.assertRaisesRegex(TypeError, 'sf must be a torch.Tensor or a numpy.ndarray'):
            tk_kernels.quant.per_token_cast_with_precomputed_sf(x, 'e4m3', 64, sf='scales')


class SettingsTest(unittest.TestCase):
    def test_num_sms_and_checks_reach_the_contexts(self):
        tk_kernels.transpose.transpose(np.zeros((64, 64), np.float32))  # makes the CPU context
        try:
            tk_kernels.set_num_sms(7)
            self.assertEqual(tk_kernels.get_num_sms(), 7)
            n = ctypes.c_int32()
            for ctx in _tensor.contexts().values():
                _lib.check(_lib.lib().tk_get_num_sms(ctx, ctypes.byref(n)), 'get')
                self.assertEqual(n.value, 7)
            tk_kernels.set_input_checks(indices=True)
            self.assertEqual(tk_kernels.get_input_checks(), (True, False))
        finally:
            tk_kernels.set_num_sms(0)
            tk_kernels.set_input_checks()
        with self.assertRaises(tk_kernels.TkInvalidArgumentError):
            tk_kernels.set_num_sms(-1)


if __name__ == '__main__':
    unittest.main()
