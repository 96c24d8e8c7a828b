"""tk's operators from Python: a per-token FP8 cast and an MoE top-k gate.

Runs on tk's CPU path with NumPy (pip install numpy ml_dtypes ./python), and
on the GPU too when PyTorch with CUDA is installed. Finds libtk.so through
TK_LIBRARY, else beside a `tk` on PATH (an installed prefix's bin/, or a
build tree's build/bin), else through the dynamic loader.
"""

import os
import sys

import ml_dtypes
import numpy as np

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
try:
    import tk_kernels
except ImportError:  # not installed: use the source tree
    sys.path.insert(0, os.path.join(REPO, 'python'))
    import tk_kernels

print('libtk', tk_kernels.library_version())

# Per-token FP8: one fp32 scale per 128 values of each row.
x = np.random.default_rng(0).standard_normal((4, 256)).astype(ml_dtypes.bfloat16)
out, sf = tk_kernels.quant.per_token_cast(x, 'e4m3', 128)
back = tk_kernels.quant.per_token_cast_back((out, sf), 'fp32', 128)
print('per_token_cast:', out.dtype, out.shape, 'scales', sf.shape, 'max error',
      float(np.abs(back - x.astype(np.float32)).max()))

# Top-2 experts of 8 per token: ties go to the lower expert.
scores = np.array([[0.1, 0.9, 0.3, 0.9, 0.0, 0.2, 0.5, 0.4],
                   [1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 2.0]], np.float32)
print('topk_gate:', tk_kernels.moe.topk_gate(scores, 2).tolist())

try:
    import torch
except ImportError:
    torch = None
if torch is not None:
    device = 'cuda' if torch.cuda.is_available() else 'cpu'
    xt = torch.randn(4, 256, dtype=torch.bfloat16, device=device)
    out, sf = tk_kernels.quant.per_token_cast(xt, 'e4m3', 128)
    print(f'per_token_cast on {device}:', out.dtype, tuple(out.shape), 'scales', tuple(sf.shape))
