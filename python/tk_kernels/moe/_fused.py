"""The expert-major ("fused") layout: mapping, expansion and reduction (moe.md 2.9-2.12)."""

import ctypes

from .. import _lib
from .._tensor import Call, align


def get_fused_mapping(topk_idx, num_experts, num_expanded_tokens, alignment, force_no_sync=False):
    """The expert-major layout of int64 topk_idx (N, K), each expert's segment aligned to `alignment`.

    Returns (pos_to_expert, pos_to_token, pos_to_token_topk, token_topk_to_pos, expert_start, expert_end,
    num_tokens_per_expert, num_tokens_per_expert_list). With num_expanded_tokens == 0 (and not
    force_no_sync) the tables are sized by an upper bound, the call waits for the total and the pos_to_*
    tables are trimmed to it; the list then holds the per-expert sizes, else it is [].
    """
    c = Call('moe.get_fused_mapping', topk_idx, 'topk_idx')
    if len(topk_idx.shape) != 2:
        raise c.invalid(f'topk_idx must be 2-D, got shape {tuple(topk_idx.shape)}')
    n, k = topk_idx.shape
    sync = num_expanded_tokens == 0 and not force_no_sync
    m = _lib.lib().tk_fused_mapping_max_positions(n, k, num_experts, alignment) if sync else num_expanded_tokens
    m = max(m, 0)  # -1 flags bad sizes, which the call itself then reports
    e = max(num_experts, 0)
    pos_to_expert, pos_to_token, pos_to_token_topk = (c.empty((m,), _lib.I32) for _ in range(3))
    token_topk_to_pos = c.empty((n, k), _lib.I32)
    expert_start, expert_end, num_tokens_per_expert = (c.empty((e,), _lib.I32) for _ in range(3))
    total = ctypes.c_int64(-1)
    c.run(c.t(topk_idx, 'topk_idx'), num_experts, alignment, c.t(pos_to_expert, 'pos_to_expert'),
          c.t(pos_to_token, 'pos_to_token'), c.t(pos_to_token_topk, 'pos_to_token_topk'),
          c.t(token_topk_to_pos, 'token_topk_to_pos'), c.t(expert_start, 'expert_start'),
          c.t(expert_end, 'expert_end'), c.t(num_tokens_per_expert, 'num_tokens_per_expert'),
          ctypes.byref(total) if sync else None)
    counts = []
    if sync:
        counts = c.to_list(num_tokens_per_expert)
        pos_to_expert, pos_to_token, pos_to_token_topk = (t[:total.value] for t in
                                                          (pos_to_expert, pos_to_token, pos_to_token_topk))
    return (pos_to_expert, pos_to_token, pos_to_token_topk, token_topk_to_pos, expert_start, expert_end,
            num_tokens_per_expert, counts)


def expand_to_fused(x, token_topk_to_pos, pos_to_expert):
    """expanded_x (M, H): x's row t at each of its positions, zeros on padding rows (pos_to_expert < 0)."""
    c = Call('moe.expand_to_fused', x)
    c.required(token_topk_to_pos=token_topk_to_pos, pos_to_expert=pos_to_expert)
    if len(x.shape) != 2 or len(pos_to_expert.shape) != 1:
        raise c.invalid('x must be 2-D and pos_to_expert 1-D')
    out = c.empty_as(x, (pos_to_expert.shape[0], x.shape[1]))
    c.run(c.t(x, 'x'), c.t(token_topk_to_pos, 'token_topk_to_pos'), c.t(pos_to_expert, 'pos_to_expert'),
          c.t(out, 'expanded_x'))
    return out


def expand_to_fused_with_sf(x, num_per_channels, token_topk_to_pos, pos_to_expert,
                            use_tma_aligned_col_major_sf=False):
    """expand_to_fused of a QuantTensor x = (data (N, H), sf (N, Hs)); returns (expanded_x, expanded_sf (M, Hs)).

    With use_tma_aligned_col_major_sf the scale factors come back column-major, strides (1, align(M, 4)).
    """
    function = 'moe.expand_to_fused_with_sf'
    if not isinstance(x, (tuple, list)) or len(x) != 2:
        raise _lib.invalid(function, 'x must be a QuantTensor pair (data, sf)')
    data, sf = x
    c = Call(function, data)
    c.required(x_sf=sf, token_topk_to_pos=token_topk_to_pos, pos_to_expert=pos_to_expert)
    if len(data.shape) != 2 or len(sf.shape) != 2 or len(pos_to_expert.shape) != 1:
        raise c.invalid('x data and sf must be 2-D and pos_to_expert 1-D')
    m = pos_to_expert.shape[0]
    out = c.empty_as(data, (m, data.shape[1]))
    out_sf = c.check_same(sf, 'x_sf').alloc(
        (sf.shape[1], align(m, 4)) if use_tma_aligned_col_major_sf else (m, sf.shape[1]), sf.dtype, data)
    if use_tma_aligned_col_major_sf:
        out_sf = out_sf[:, :m].T
    c.run(c.t(data, 'x'), c.t(sf, 'x_sf'), num_per_channels, c.t(token_topk_to_pos, 'token_topk_to_pos'),
          c.t(pos_to_expert, 'pos_to_expert'), 1 if use_tma_aligned_col_major_sf else 0, c.t(out, 'expanded_x'),
          c.t(out_sf, 'expanded_sf'))
    return out, out_sf


def reduce_fused(x, topk_weights, token_topk_to_pos, fp8_format='', sf=None, out=None):
    """out[t] = cast(sum over k of x[token_topk_to_pos[t, k]] * topk_weights[t, k] (* x_sf) (* sf)).

    x (M, H) fp32/bf16, or a QuantTensor (x, x_sf (M,)); fp8_format '' keeps x's dtype, 'e4m3' casts to e4m3.
    """
    function = 'moe.reduce_fused'
    if fp8_format not in ('', 'e4m3'):
        raise _lib.invalid(function, f"fp8_format must be '' or 'e4m3', got {fp8_format!r}")
    data, x_sf = (x[0], x[1]) if isinstance(x, (tuple, list)) else (x, None)
    c = Call(function, data)
    c.required(token_topk_to_pos=token_topk_to_pos)
    if len(data.shape) != 2 or len(token_topk_to_pos.shape) != 2:
        raise c.invalid('x and token_topk_to_pos must be 2-D')
    if out is None:
        shape = (token_topk_to_pos.shape[0], data.shape[1])
        out = c.empty(shape, _lib.F8_E4M3) if fp8_format == 'e4m3' else c.empty_as(data, shape)
    else:
        c.check_same(out, 'out')
        if c.code(out) != (_lib.F8_E4M3 if fp8_format == 'e4m3' else c.code(data)):
            raise c.invalid(f"out's dtype does not match fp8_format {fp8_format!r}")
    c.run(c.t(data, 'x'), c.t(x_sf, 'x_sf'), c.t(topk_weights, 'topk_weights'),
          c.t(token_topk_to_pos, 'token_topk_to_pos'), c.t(sf, 'sf'), c.w(out, 'out'))
    return out

