"""Per-channel casts (quant.md 4.13-4.15)."""

from .. import _lib
from .._tensor import Call, ceil_div
from ._common import positive, flags, fmt_code, split


def _two_d(call, data, arg='x'):
    if len(data.shape) != 2:
        raise call.invalid(f'{arg} must be 2-D, got shape {tuple(data.shape)}')
    return data.shape


def _sf_rows(m, b):
    return ceil_div(m, positive(b)) if positive(b) else 0


def _per_channel(function, x, fmt, num_per_tokens, round_sf, transposed):
    """The plain and the transposed per-channel cast: the same call, out (M, K) or (K, M)."""
    code = fmt_code(function, fmt)
    c = Call(function, x)
    m, k = _two_d(c, x)
    out = c.empty((k, m) if transposed else (m, k), _lib.F8_E4M3)
    sf = c.empty((_sf_rows(m, num_per_tokens), k), _lib.F32)
    c.run(c.t(x, 'x'), code, num_per_tokens, flags(round_sf=round_sf), c.t(out, 'out'), c.t(sf, 'out_sf'))
    return out, sf


def per_channel_cast(x, fmt, num_per_tokens, round_sf=False):
    """e4m3 with one scale per column and num_per_tokens rows; returns (out (M, K), out_sf (M/b, K))."""
    return _per_channel('quant.per_channel_cast', x, fmt, num_per_tokens, round_sf, transposed=False)


def per_channel_cast_fused(x, fmt, num_per_tokens, round_sf=False, num_per_channels=None, pos_to_token=None):
    """per_channel_cast of x, or of an e4m3 QuantTensor (data, per-row multipliers), gathered by pos_to_token.

    Returns (out (N_out, K), out_sf (ceil(N_out/128), K)); N_out = len(pos_to_token), else x's rows.
    """
    function = 'quant.per_channel_cast_fused'
    code = fmt_code(function, fmt)
    data, x_sf = split(function, x, None)
    c = Call(function, data)
    n, k = _two_d(c, data)
    if pos_to_token is not None:
        c.check_same(pos_to_token, 'pos_to_token')
        n = pos_to_token.shape[0] if len(pos_to_token.shape) >= 1 else 0
    out = c.empty((n, k), _lib.F8_E4M3)
    sf = c.empty((_sf_rows(n, num_per_tokens), k), _lib.F32)
    c.run(c.t(data, 'x'), c.t(x_sf, 'x_sf'), code, num_per_tokens, flags(round_sf=round_sf),
          0 if num_per_channels is None else num_per_channels, c.t(pos_to_token, 'pos_to_token'),
          c.t(out, 'out'), c.t(sf, 'out_sf'))
    return out, sf


def per_channel_cast_and_transpose(x, fmt, num_per_tokens, round_sf=False):
    """per_channel_cast written transposed: returns (out (K, M) e4m3, out_sf (M/b, K) fp32, not transposed)."""
    return _per_channel('quant.per_channel_cast_and_transpose', x, fmt, num_per_tokens, round_sf, transposed=True)
