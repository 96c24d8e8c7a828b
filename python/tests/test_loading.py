"""Import, library discovery and errors that need no tensors."""

import os
import subprocess
import sys
import tempfile
import unittest

from common import BUILT_LIB, PYTHON_DIR, tk_kernels


def run_python(code, env_updates, drop=()):
    env = {k: v for k, v in os.environ.items() if k not in drop}
    env.update(env_updates)
    env['PYTHONPATH'] = PYTHON_DIR + os.pathsep + env.get('PYTHONPATH', '')
    return subprocess.run([sys.executable, '-c', code], env=env, capture_output=True, text=True, timeout=120)


class ImportTest(unittest.TestCase):
    def test_import_loads_neither_numpy_torch_nor_the_library(self):
        r = run_python('import sys, tk_kernels, tk_kernels._lib as L\n'
                       'assert "numpy" not in sys.modules and "torch" not in sys.modules\n'
                       'assert L._lib is None\nprint("ok")', {'TK_LIBRARY': '/nonexistent/libtk.so'})
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn('ok', r.stdout)

    def test_api_names(self):
        for name in ('per_token_cast', 'per_block_cast', 'cast_back', 'per_channel_cast_fused',
                     'swiglu_backward_and_per_token_cast', 'unpack_from_e2m1fn_x2'):
            self.assertTrue(callable(getattr(tk_kernels.quant, name)), name)
        for name in ('topk_gate', 'top2_sum_gate', 'get_fused_mapping', 'reduce_fused', 'ScoringFunc'):
            self.assertTrue(hasattr(tk_kernels.moe, name), name)
        for name in ('engram_hash', 'fused_weight', 'engram_gate_fwd', 'engram_gate_bwd', 'grad_w_reduce'):
            self.assertTrue(callable(getattr(tk_kernels.engram, name)), name)
        self.assertTrue(callable(tk_kernels.transpose.batched_transpose))
        self.assertTrue(callable(tk_kernels.set_num_sms))

    def test_mhc_has_every_operator(self):
        for name in ('expand_to_mhc', 'mhc_pre_apply_mix', 'mhc_post', 'mhc_post_bwd', 'mhc_pre_norm_fn',
                     'mhc_pre_split_mixes', 'mhc_head_compute_mix', 'sinkhorn_normalize', 'mhc_pre_big_fuse',
                     'mhc_multilayer_recompute'):
            self.assertTrue(callable(getattr(tk_kernels.mhc, name)), name)

    def test_version(self):
        self.assertRegex(tk_kernels.library_version(), r'^\d+\.\d+\.\d+')


class LibraryDiscoveryTest(unittest.TestCase):
    CALL = ('import numpy as np, tk_kernels\n'
            'try:\n'
            '    tk_kernels.transpose.transpose(np.zeros((64, 64), np.float32))\n'
            'except ImportError as e:\n'
            '    print(type(e).__name__); print(e)\n'
            'else:\n'
            '    print("loaded")\n')

    def test_missing_library_says_where_it_looked(self):
        r = run_python(self.CALL, {'TK_LIBRARY': '/nonexistent/libtk.so'})
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn('LibraryNotFoundError', r.stdout)
        self.assertIn('/nonexistent/libtk.so (TK_LIBRARY): no such file', r.stdout)
        self.assertIn('Set TK_LIBRARY', r.stdout)

    def test_nothing_found_lists_path_and_loader(self):
        with tempfile.TemporaryDirectory() as d:
            os.makedirs(os.path.join(d, 'bin'))
            exe = os.path.join(d, 'bin', 'tk')
            with open(exe, 'w') as f:
                f.write('#!/bin/sh\n')
            os.chmod(exe, 0o755)
            r = run_python(self.CALL, {'PATH': os.path.join(d, 'bin') + os.pathsep + '/usr/bin:/bin',
                                       'LD_LIBRARY_PATH': ''}, drop=('TK_LIBRARY',))
        self.assertIn('LibraryNotFoundError', r.stdout, r.stderr)
        self.assertIn(os.path.join(d, 'lib', 'libtk.so') + f' (next to {exe}): no such file', r.stdout)
        self.assertIn('find_library("tk")', r.stdout)

    @unittest.skipUnless(os.path.exists(BUILT_LIB), 'needs build/kernels/libtk.so')
    def test_found_next_to_tk_on_path(self):
        with tempfile.TemporaryDirectory() as d:
            os.makedirs(os.path.join(d, 'bin'))
            os.makedirs(os.path.join(d, 'lib'))
            exe = os.path.join(d, 'bin', 'tk')
            with open(exe, 'w') as f:
                f.write('#!/bin/sh\n')
            os.chmod(exe, 0o755)
            os.symlink(BUILT_LIB, os.path.join(d, 'lib', 'libtk.so'))
            r = run_python(self.CALL, {'PATH': os.path.join(d, 'bin') + os.pathsep + '/usr/bin:/bin'},
                           drop=('TK_LIBRARY',))
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn('loaded', r.stdout)


if __name__ == '__main__':
    unittest.main()
