"""PyTorch tensors: skipped, visibly, where torch (or a CUDA device) is missing."""

import unittest

import numpy as np

from common import BF16, bits, has_torch, randn, tk_kernels

HAS_TORCH = has_torch()
if HAS_TORCH:
    import torch
HAS_CUDA = HAS_TORCH and torch.cuda.is_available()


def raw(t):
    """A torch tensor's bytes as a NumPy array (via a contiguous uint8 view on the CPU)."""
    return t.detach().cpu().contiguous().view(torch.uint8).numpy().reshape(-1)


@unittest.skipUnless(HAS_TORCH, 'torch is not installed')
class TorchCpuTest(unittest.TestCase):
    def test_per_token_cast_matches_the_numpy_path(self):
        x_np = randn((24, 256), BF16, seed=1)
        x = torch.from_numpy(x_np.view(np.uint16).copy()).view(torch.bfloat16)
        out, sf = tk_kernels.quant.per_token_cast(x, 'e4m3', 128, use_tma_aligned_col_major_sf=True, round_sf=True)
        self.assertEqual((out.dtype, out.device.type, sf.stride()), (torch.float8_e4m3fn, 'cpu', (1, 24)))
        ref_out, ref_sf = tk_kernels.quant.per_token_cast(x_np, 'e4m3', 128, use_tma_aligned_col_major_sf=True,
                                                          round_sf=True)
        np.testing.assert_array_equal(raw(out), bits(ref_out).reshape(-1))
        np.testing.assert_array_equal(raw(sf), bits(ref_sf).reshape(-1))

    def test_transpose_and_bool_mask(self):
        x = torch.randn(64, 128)
        self.assertTrue(torch.equal(tk_kernels.transpose.transpose(x), x.T.contiguous()))
        logits, bias = torch.randn(8, 16), torch.zeros(16)
        mask = torch.tensor([True] * 6 + [False] * 2)
        idx, w = tk_kernels.moe.top2_sum_gate(logits, bias, 2, 0, 0, False, 0, 1.0, 0, 1, 0, 1, 'sigmoid',
                                              mask=mask)
        self.assertTrue((idx[6:] == -1).all() and (w[6:] == 0).all())

    def test_mixing_libraries_is_refused(self):
        with self.assertRaisesRegex(tk_kernels.TkInvalidArgumentError, 'bias is a numpy tensor'):
            tk_kernels.moe.top2_sum_gate(torch.zeros(4, 16), np.zeros(16, np.float32), 2, 0, 0, False, 0, 1.0, 0,
                                         1, 0, 1, 'sigmoid')


@unittest.skipUnless(HAS_CUDA, 'needs torch with a CUDA device')
class TorchCudaTest(unittest.TestCase):
    def test_per_token_cast_on_the_device_matches_the_cpu_path(self):
        x = torch.randn(256, 512, dtype=torch.bfloat16)
        cpu = tk_kernels.quant.per_token_cast(x, 'e4m3', 128, round_sf=True)
        gpu = tk_kernels.quant.per_token_cast(x.cuda(), 'e4m3', 128, round_sf=True)
        self.assertEqual(gpu[0].device.type, 'cuda')
        for a, b in zip(cpu, gpu):
            np.testing.assert_array_equal(raw(a), raw(b))

    def test_runs_on_the_current_stream(self):
        s = torch.cuda.Stream()
        x = torch.randn(128, 256, device='cuda')
        with torch.cuda.stream(s):
            out = tk_kernels.transpose.transpose(x)
        s.synchronize()
        self.assertTrue(torch.equal(out, x.T.contiguous()))

    def test_cpu_and_cuda_tensors_cannot_mix(self):
        with self.assertRaisesRegex(tk_kernels.TkInvalidArgumentError, 'bias is on cpu'):
            tk_kernels.moe.top2_sum_gate(torch.zeros(4, 16, device='cuda'), torch.zeros(16), 2, 0, 0, False, 0,
                                         1.0, 0, 1, 0, 1, 'sigmoid')


if __name__ == '__main__':
    unittest.main()
