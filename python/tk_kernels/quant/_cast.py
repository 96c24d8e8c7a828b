"""Per-token and per-block casts, the lossless FP4 -> FP8 re-blocking, and cast_back (quant.md 4.1-4.12)."""

from .. import _lib
from .._tensor import Call, ceil_div, i32x2
from ._common import positive, flags, fmt_code, logical_width, out_data, out_sf, split


def _blocks(k, g):
    # A non-positive group size is tk's to reject; allocate nothing for it.
    return ceil_div(k, positive(g)) if positive(g) else 0


def _rows_cols(call, data, arg='x'):
    if len(data.shape) != 2:
        raise call.invalid(f'{arg} must be 2-D, got shape {tuple(data.shape)}')
    return data.shape[0], logical_width(call, data)


def _per_token(function, x, fmt, num_per_channels, x_block_size, col, round_sf, packed, sf_only=False):
    code = fmt_code(function, fmt)
    data, x_sf = split(function, x, x_block_size)
    c = Call(function, data, c_name='per_token_cast_with_sf_only' if sf_only else 'per_token_cast')
    m, k = _rows_cols(c, data)
    sf = out_sf(c, m, _blocks(k, num_per_channels), col, packed)
    args = [c.t(data, 'x'), c.t(x_sf, 'x_sf'), i32x2(function, 'x_block_size', x_block_size), code,
            num_per_channels, flags(col, round_sf, packed)]
    if sf_only:
        c.run(*args, c.t(sf, 'out_sf'))
        return sf
    out = out_data(c, fmt, m, k)
    c.run(*args, c.t(out, 'out'), c.t(sf, 'out_sf'))
    return out, sf


def per_token_cast(x, fmt, num_per_channels, x_block_size=None, use_tma_aligned_col_major_sf=False, round_sf=False,
                   use_packed_ue8m0=False):
    """Quantizes each row in groups of num_per_channels; x may be a QuantTensor (data, sf).

    fmt 'e4m3' -> e4m3 (M, K); 'e2m1' -> int8 (M, K/2), two codes per byte; 'e5m6' -> uint8 (M, 3K/2).
    Returns (out, out_sf); out_sf (M, ceil(K/g)) fp32, or in the layout the flags ask for.
    """
    return _per_token('quant.per_token_cast', x, fmt, num_per_channels, x_block_size, use_tma_aligned_col_major_sf,
                      round_sf, use_packed_ue8m0)


def per_token_cast_with_sf_only(x, fmt, num_per_channels, x_block_size=None, use_tma_aligned_col_major_sf=False,
                                round_sf=False, use_packed_ue8m0=False):
    """The scale factors of per_token_cast only."""
    return _per_token('quant.per_token_cast_with_sf_only', x, fmt, num_per_channels, x_block_size,
                      use_tma_aligned_col_major_sf, round_sf, use_packed_ue8m0, sf_only=True)


def per_token_cast_with_precomputed_sf(x, fmt, num_per_channels, sf, x_block_size=None,
                                       use_tma_aligned_col_major_sf=False, round_sf=False, use_packed_ue8m0=False):
    """Quantizes with caller-given row-major fp32 scale factors sf (M, ceil(K/g)); returns out only."""
    function = 'quant.per_token_cast_with_precomputed_sf'
    code = fmt_code(function, fmt)
    if isinstance(x, (tuple, list)) or x_block_size is not None:
        raise _lib.invalid(function, 'precomputed scale factors take a plain (unquantized) x')
    c = Call(function, x)
    m, k = _rows_cols(c, x)
    out = out_data(c, fmt, m, k)
    c.run(c.t(x, 'x'), code, num_per_channels, c.t(sf, 'sf'),
          flags(use_tma_aligned_col_major_sf, round_sf, use_packed_ue8m0), c.t(out, 'out'))
    return out


def _per_block(function, x, fmt, block_size, col, round_sf, packed, sf_only=False, sf=None):
    code = fmt_code(function, fmt, ('e4m3', 'e2m1'))
    bs = i32x2(function, 'block_size', block_size)
    c_name = 'per_block_cast' + ('_with_sf_only' if sf_only else '_with_precomputed_sf' if sf is not None else '')
    c = Call(function, x, c_name=c_name)
    m, k = _rows_cols(c, x)
    fl = flags(col, round_sf, packed)
    if sf is not None:
        out = out_data(c, fmt, m, k)
        c.run(c.t(x, 'x'), code, bs, c.t(sf, 'sf'), fl, c.t(out, 'out'))
        return out
    b, g = (int(v) for v in block_size)
    osf = out_sf(c, _blocks(m, b), _blocks(k, g), col, packed)
    if sf_only:
        c.run(c.t(x, 'x'), code, bs, fl, c.t(osf, 'out_sf'))
        return osf
    out = out_data(c, fmt, m, k)
    c.run(c.t(x, 'x'), code, bs, fl, c.t(out, 'out'), c.t(osf, 'out_sf'))
    return out, osf


def per_block_cast(x, fmt, block_size, use_tma_aligned_col_major_sf=False, round_sf=False, use_packed_ue8m0=False):
    """Quantizes with one scale per block_size = (b, g) block; returns (out, out_sf (ceil(M/b), ceil(K/g)))."""
    return _per_block('quant.per_block_cast', x, fmt, block_size, use_tma_aligned_col_major_sf, round_sf,
                      use_packed_ue8m0)


def per_block_cast_with_sf_only(x, fmt, block_size, use_tma_aligned_col_major_sf=False, round_sf=False,
                                use_packed_ue8m0=False):
    """The scale factors of per_block_cast only."""
    return _per_block('quant.per_block_cast_with_sf_only', x, fmt, block_size, use_tma_aligned_col_major_sf,
                      round_sf, use_packed_ue8m0, sf_only=True)


def per_block_cast_with_precomputed_sf(x, fmt, block_size, sf, use_tma_aligned_col_major_sf=False, round_sf=False,
                                       use_packed_ue8m0=False):
    """Quantizes with caller-given row-major fp32 block scale factors sf; returns out only."""
    return _per_block('quant.per_block_cast_with_precomputed_sf', x, fmt, block_size, use_tma_aligned_col_major_sf,
                      round_sf, use_packed_ue8m0, sf=sf)


def per_block_cast_lossless(x, fmt, x_block_size, out_block_size, use_tma_aligned_col_major_sf=False, round_sf=False,
                            use_packed_ue8m0=False):
    """Re-blocks a packed-FP4 QuantTensor with power-of-two scales into e4m3, exactly; returns (out, out_sf)."""
    function = 'quant.per_block_cast_lossless'
    code = fmt_code(function, fmt)
    data, x_sf = split(function, x, x_block_size, need_sf=True)
    obs = i32x2(function, 'out_block_size', out_block_size)
    c = Call(function, data)
    m, k = _rows_cols(c, data)
    b, g = (int(v) for v in out_block_size)
    out = c.empty((m, k), _lib.F8_E4M3)
    osf = out_sf(c, _blocks(m, b), _blocks(k, g), use_tma_aligned_col_major_sf, use_packed_ue8m0)
    c.run(c.t(data, 'x'), c.t(x_sf, 'x_sf'), i32x2(function, 'x_block_size', x_block_size), code, obs,
          flags(use_tma_aligned_col_major_sf, round_sf, use_packed_ue8m0), c.t(out, 'out'), c.t(osf, 'out_sf'))
    return out, osf


def cast_back(x, fmt, x_block_size, x_special_fmt=None):
    """Dequantizes a QuantTensor (data, sf) to fmt 'bf16' or 'fp32' (M, K).

    data is e4m3 (M, K), int8 (M, K/2) packed e2m1, or with x_special_fmt='e5m6' uint8 (M, 3K/2).
    """
    function = 'quant.cast_back'
    if fmt not in ('bf16', 'fp32'):
        raise _lib.invalid(function, f"fmt must be 'bf16' or 'fp32', got {fmt!r}")
    if x_special_fmt not in (None, 'e5m6'):
        raise _lib.invalid(function, f"x_special_fmt must be None or 'e5m6', got {x_special_fmt!r}")
    data, x_sf = split(function, x, x_block_size, need_sf=True)
    c = Call(function, data)
    if len(data.shape) != 2:
        raise c.invalid(f'x must be 2-D, got shape {tuple(data.shape)}')
    is_e5m6 = c.code(data) == _lib.U8
    if (x_special_fmt == 'e5m6') != is_e5m6:
        raise c.invalid("packed e5m6 data is uint8 and needs x_special_fmt='e5m6' (and only it)")
    k = data.shape[1] * 2 // 3 if is_e5m6 else logical_width(c, data)
    out = c.empty((data.shape[0], k), _lib.BF16 if fmt == 'bf16' else _lib.F32)
    c.run(c.t(data, 'x'), c.t(x_sf, 'x_sf'), i32x2(function, 'x_block_size', x_block_size), c.t(out, 'out'))
    return out


def per_token_cast_back(x, fmt, num_per_channels, x_special_fmt=None):
    """cast_back with blocks of (1, num_per_channels)."""
    return cast_back(x, fmt, (1, num_per_channels), x_special_fmt)
