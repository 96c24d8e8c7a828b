"""SwiGLU fused with FP8 casts (quant.md 4.16-4.18)."""

from .. import _lib
from .._tensor import Call, ceil_div, f32p
from ._common import positive, flags, fmt_code, out_sf, split


def _two_d(call, x):
    if len(x.shape) != 2:
        raise call.invalid(f'x must be 2-D, got shape {tuple(x.shape)}')
    return x.shape[0], x.shape[1] // 2


def swiglu_forward_and_per_token_cast(x, fmt, num_per_channels, pos_to_token_topk=None, topk_weights=None,
                                      pos_to_expert=None, use_tma_aligned_col_major_sf=False, round_sf=False,
                                      use_packed_ue8m0=False, swiglu_clamp_value=None, clamped_count=None,
                                      sf_clamp_min=None):
    """SwiGLU of x (N, 2H) = [gate | linear], optionally clamped and routing-weighted, cast per token to e4m3.

    Returns (out (N, H), out_sf (N, H/g) in the flags' layout); clamped_count (int64 (3,)) accumulates in place.
    """
    function = 'quant.swiglu_forward_and_per_token_cast'
    code = fmt_code(function, fmt)
    c = Call(function, x)
    n, h = _two_d(c, x)
    g = num_per_channels
    out = c.empty((n, h), _lib.F8_E4M3)
    sf = out_sf(c, n, ceil_div(h, positive(g)) if positive(g) else 0, use_tma_aligned_col_major_sf,
                use_packed_ue8m0)
    c.run(c.t(x, 'x'), code, g, c.t(pos_to_token_topk, 'pos_to_token_topk'), c.t(topk_weights, 'topk_weights'),
          c.t(pos_to_expert, 'pos_to_expert'), flags(use_tma_aligned_col_major_sf, round_sf, use_packed_ue8m0),
          f32p(swiglu_clamp_value), c.w(clamped_count, 'clamped_count'), f32p(sf_clamp_min), c.t(out, 'out'),
          c.t(sf, 'out_sf'))
    return out, sf


def swiglu_forward_and_per_channel_cast_and_transpose(x, fmt, num_per_tokens, round_sf=False, without_transpose=False,
                                                      swiglu_clamp_value=None):
    """SwiGLU of bf16 x (M, 2H) cast per channel: returns (out (H, M), or (M, H) without_transpose, out_sf (M/b, H))."""
    function = 'quant.swiglu_forward_and_per_channel_cast_and_transpose'
    code = fmt_code(function, fmt)
    c = Call(function, x)
    m, h = _two_d(c, x)
    out = c.empty((m, h) if without_transpose else (h, m), _lib.F8_E4M3)
    b = num_per_tokens
    sf = c.empty((ceil_div(m, positive(b)) if positive(b) else 0, h), _lib.F32)
    c.run(c.t(x, 'x'), code, b, flags(round_sf=round_sf), 1 if without_transpose else 0, f32p(swiglu_clamp_value),
          c.t(out, 'out'), c.t(sf, 'out_sf'))
    return out, sf


def swiglu_backward_and_per_token_cast(x, grad_out, weight, pos_to_token_topk, token_topk_to_pos, num_per_channels,
                                       round_sf=False, swiglu_clamp_value=None):
    """SwiGLU backward from the e4m3 QuantTensor x = (data (N, 2H), sf (N, 2H/g)).

    Returns (out (N, H), (x_grad_fp8 (N, 2H), x_grad_sf (N, 2H/g)), x_grad (N, 2H), weight_grad (T, k)).
    """
    function = 'quant.swiglu_backward_and_per_token_cast'
    data, x_sf = split(function, x, None, need_sf=True)
    c = Call(function, data)
    c.required(token_topk_to_pos=token_topk_to_pos)
    if len(data.shape) not in (2, 3) or len(token_topk_to_pos.shape) != 2:
        raise c.invalid('x must be 2-D or 3-D and token_topk_to_pos 2-D')
    two_h = data.shape[-1]
    n = 1
    for s in data.shape[:-1]:
        n *= s
    g = num_per_channels
    out = c.empty_as(grad_out, (n, two_h // 2), 'grad_out')
    x_grad_fp8 = c.empty((n, two_h), _lib.F8_E4M3)
    x_grad_sf = c.empty((n, two_h // positive(g) if positive(g) else 0), _lib.F32)
    x_grad = c.empty_as(grad_out, (n, two_h), 'grad_out')
    weight_grad = c.empty(tuple(token_topk_to_pos.shape), _lib.F32)
    c.run(c.t(data, 'x'), c.t(x_sf, 'x_sf'), c.t(grad_out, 'grad_out'), c.t(weight, 'weight'),
          c.t(pos_to_token_topk, 'pos_to_token_topk'), c.t(token_topk_to_pos, 'token_topk_to_pos'), g,
          flags(round_sf=round_sf), f32p(swiglu_clamp_value), c.t(out, 'out'), c.t(x_grad_fp8, 'x_grad_fp8'),
          c.t(x_grad_sf, 'x_grad_sf'), c.t(x_grad, 'x_grad'), c.t(weight_grad, 'weight_grad'))
    return out, (x_grad_fp8, x_grad_sf), x_grad, weight_grad
