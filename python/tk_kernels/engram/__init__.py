"""Engram operators (TileKernels' tile_kernels.engram), plus make_offsets on tk's host helper."""

import ctypes
import sys

from .. import _lib, _tensor
from .._tensor import Call

_CPU_PARTIALS = 16  # the CPU path has no SM count; results depend on P only, never on the device


def _rank(call, t, rank, arg):
    if len(t.shape) != rank:
        raise call.invalid(f'{arg} must be {rank}-D, got shape {tuple(t.shape)}')
    return tuple(t.shape)


def engram_hash(ngram_token_ids, multipliers, vocab_sizes, offsets):
    """Embedding-table rows of n-gram ids (T, N) int32: int32 (Lh, T, (N - 1) E). Bit-exact."""
    c = Call('engram.engram_hash', ngram_token_ids, 'ngram_token_ids')
    t, n = _rank(c, ngram_token_ids, 2, 'ngram_token_ids')
    layers, _, tables = _rank(c, vocab_sizes, 3, 'vocab_sizes')
    out = c.empty((layers, t, max(n - 1, 0) * tables), _lib.I32)
    c.run(c.t(ngram_token_ids, 'ngram_token_ids'), c.t(multipliers, 'multipliers'), c.t(vocab_sizes, 'vocab_sizes'),
          c.t(offsets, 'offsets'), c.t(out, 'out'))
    return out


def make_offsets(vocab_sizes):
    """Per layer, the exclusive sum of vocab_sizes (Lh, N - 1, E) in row-major order: int32 (Lh, (N - 1) E).

    TileKernels has this as tile_kernels.torch.engram.make_offsets; here it runs tk's host helper.
    """
    function = 'engram.make_offsets'
    ad = _tensor.adapter(vocab_sizes, function, 'vocab_sizes')
    if len(vocab_sizes.shape) != 3:
        raise _lib.invalid(function, f'vocab_sizes must be 3-D, got shape {tuple(vocab_sizes.shape)}')
    layers, orders, tables = (int(s) for s in vocab_sizes.shape)
    if ad.name == 'torch':
        torch = sys.modules['torch']
        host = vocab_sizes.detach().to('cpu', torch.int32).contiguous()
        out = torch.empty((layers, orders * tables), dtype=torch.int32)
        src, dst = host.data_ptr(), out.data_ptr()
    else:
        import numpy as np
        host = np.ascontiguousarray(vocab_sizes, dtype=np.int32)
        out = np.empty((layers, orders * tables), np.int32)
        src, dst = host.ctypes.data, out.ctypes.data
    pi32 = ctypes.POINTER(ctypes.c_int32)
    _lib.check(_lib.lib().tk_engram_make_offsets(ctypes.cast(src, pi32), layers, orders, tables,
                                                  ctypes.cast(dst, pi32)), function)
    return out.to(vocab_sizes.device) if ad.name == 'torch' else out


def fused_weight(weight_hidden, weight_embed):
    """weight_fused (n, H) fp32 = f32(weight_hidden) * f32(weight_embed), exact."""
    c = Call('engram.fused_weight', weight_hidden, 'weight_hidden', c_name='engram_fused_weight')
    out = c.empty(_rank(c, weight_hidden, 2, 'weight_hidden'), _lib.F32)
    c.run(c.t(weight_hidden, 'weight_hidden'), c.t(weight_embed, 'weight_embed'), c.t(out, 'weight_fused'))
    return out


def engram_gate_fwd(hidden_states, k, v, weight_fused, eps, clamp_value, save_for_backward=True):
    """Returns (out (T, n, H) bf16, dot, gate_score, rstd_x, rstd_k), the four (T, n) fp32 or None."""
    c = Call('engram.engram_gate_fwd', hidden_states, 'hidden_states')
    t, n, _ = _rank(c, hidden_states, 3, 'hidden_states')
    out = c.empty_as(hidden_states, tuple(hidden_states.shape), 'hidden_states')
    stats = [c.empty((t, n), _lib.F32) for _ in range(4)] if save_for_backward else [None] * 4
    names = ('dot', 'gate_score', 'rstd_x', 'rstd_k')
    c.run(c.t(hidden_states, 'hidden_states'), c.t(k, 'k'), c.t(v, 'v'), c.t(weight_fused, 'weight_fused'),
          float(eps), float(clamp_value), c.t(out, 'out'), *(c.t(s, a) for s, a in zip(stats, names)))
    return (out, *stats)


def engram_gate_bwd(grad_out, hidden_states, k, v, weight_fused, dot, gate_score, rstd_x, rstd_k, clamp_value, *,
                    num_persistent_blocks=None):
    """Returns (grad_hidden_states, grad_k, grad_v, grad_w_partial (P, n, H) fp32), all contiguous.

    P (num_persistent_blocks, a tk extension) defaults to get_num_sms() on CUDA and 16 on the CPU path.
    """
    c = Call('engram.engram_gate_bwd', grad_out, 'grad_out')
    _, n, h = _rank(c, hidden_states, 3, 'hidden_states')
    p = num_persistent_blocks
    if p is None:
        from ..config import get_num_sms
        p = get_num_sms() if c.device[0] == 'cuda' else (_tensor.setting('num_sms') or _CPU_PARTIALS)
    grad_x = c.empty_as(hidden_states, tuple(hidden_states.shape), 'hidden_states')
    grad_k = c.empty_as(k, tuple(k.shape), 'k')  # contiguous even where k is strided (mhc_engram.md 5.7)
    grad_v = c.empty_as(v, tuple(v.shape), 'v')
    grad_w_partial = c.empty((p, n, h), _lib.F32)
    c.run(c.t(grad_out, 'grad_out'), c.t(hidden_states, 'hidden_states'), c.t(k, 'k'), c.t(v, 'v'),
          c.t(weight_fused, 'weight_fused'), c.t(dot, 'dot'), c.t(gate_score, 'gate_score'), c.t(rstd_x, 'rstd_x'),
          c.t(rstd_k, 'rstd_k'), float(clamp_value), c.t(grad_x, 'grad_x'), c.t(grad_k, 'grad_k'),
          c.t(grad_v, 'grad_v'), c.t(grad_w_partial, 'grad_w_partial'))
    return grad_x, grad_k, grad_v, grad_w_partial


def grad_w_reduce(grad_w_partial, weight_hidden, weight_embed, grad_weight_hidden, grad_weight_embed):
    """grad_weight_hidden += gW * weight_embed, grad_weight_embed += gW * weight_hidden (gW = sum of partials)."""
    c = Call('engram.grad_w_reduce', grad_w_partial, 'grad_w_partial', c_name='engram_grad_w_reduce')
    c.run(c.t(grad_w_partial, 'grad_w_partial'), c.t(weight_hidden, 'weight_hidden'),
          c.t(weight_embed, 'weight_embed'), c.w(grad_weight_hidden, 'grad_weight_hidden'),
          c.w(grad_weight_embed, 'grad_weight_embed'))


__all__ = ['engram_hash', 'make_offsets', 'fused_weight', 'engram_gate_fwd', 'engram_gate_bwd', 'grad_w_reduce']
