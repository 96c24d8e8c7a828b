"""Shared setup and NumPy references for the tk_kernels tests (CPU path, numpy + ml_dtypes only)."""

__all__ = ['BF16', 'E4M3', 'F32', 'REPO', 'PYTHON_DIR', 'BUILT_LIB', 'tk_kernels', 'rng', 'randn', 'bits', 'e4m3',
           'scale_rule', 'per_token_ref', 'calc_diff', 'has_torch']

import importlib.util
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
PYTHON_DIR = os.path.dirname(HERE)
REPO = os.path.dirname(PYTHON_DIR)

# The tests live in the repository: default to its build's library, and to the
# source tree when tk_kernels is not installed.
BUILT_LIB = os.path.join(REPO, 'build', 'kernels', 'libtk.so')
if not os.environ.get('TK_LIBRARY') and os.path.exists(BUILT_LIB):
    os.environ['TK_LIBRARY'] = BUILT_LIB
if importlib.util.find_spec('tk_kernels') is None:
    sys.path.insert(0, PYTHON_DIR)

import ml_dtypes  # noqa: E402
import numpy as np  # noqa: E402

import tk_kernels  # noqa: E402

BF16 = ml_dtypes.bfloat16
E4M3 = ml_dtypes.float8_e4m3fn
F32 = np.float32


def rng(seed=0):
    return np.random.default_rng(seed)


def randn(shape, dtype=F32, seed=0):
    return rng(seed).standard_normal(shape).astype(np.float32).astype(dtype)


def bits(a):
    """The raw bytes of an array, contiguous (bit-for-bit comparisons: -0 != +0)."""
    return np.ascontiguousarray(a).view(np.uint8)


def e4m3(v):
    """fp32 -> e4m3, round to nearest even, saturating at +-448 (quant.md 2.1)."""
    return np.clip(np.asarray(v, F32), -448, 448).astype(E4M3)


def scale_rule(amax, fmax=448.0, clamp=F32(1e-4), round_sf=False):
    """quant.md 3.1: (SF, INV) per group absmax, every step one fp32 operation."""
    a = np.maximum(np.asarray(amax, F32), F32(clamp))
    s = (a / F32(fmax)).astype(F32)
    if not round_sf:
        return s, (F32(fmax) / a).astype(F32)
    u = s.view(np.uint32).astype(np.int64)
    e = ((u - 1) >> 23) + 1 - 127
    sf = ((127 + e) << 23).astype(np.uint32).view(F32)
    inv = ((127 - e) << 23).astype(np.uint32).view(F32)
    return sf, inv


def per_token_ref(x, g, round_sf=False):
    """Per-token e4m3 cast of x (M, K) in groups of g: (q, sf (M, ceil(K/g)))."""
    x = np.asarray(x, F32)
    m, k = x.shape
    kb = -(-k // g)
    pad = np.zeros((m, kb * g), F32)
    pad[:, :k] = np.abs(x)
    sf, inv = scale_rule(pad.reshape(m, kb, g).max(-1), round_sf=round_sf)
    q = e4m3(x * np.repeat(inv, g, axis=1)[:, :k])
    return q, sf


def calc_diff(x, y):
    x, y = np.asarray(x, np.float64), np.asarray(y, np.float64)
    denom = (x * x + y * y).sum()
    return 0.0 if denom == 0 else 1 - 2 * (x * y).sum() / denom


def has_torch():
    return importlib.util.find_spec('torch') is not None
