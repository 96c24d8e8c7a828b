"""Helpers shared by the quantizing operators: formats, flags, scale-factor outputs."""

import operator

from .. import _lib
from .._tensor import ceil_div


def positive(v):
    """v as a Python int when it is a positive integer (NumPy's and torch's integers too), else 0."""
    try:
        i = operator.index(v)
    except TypeError:
        return 0
    return i if i > 0 else 0


_FORMATS = {'e4m3': 0, 'e2m1': 1, 'e5m6': 2}  # tk_format


def fmt_code(function, fmt, allowed=('e4m3', 'e2m1', 'e5m6')):
    if fmt not in allowed:
        raise _lib.invalid(function, f'fmt must be one of {", ".join(repr(f) for f in allowed)}, got {fmt!r}')
    return _FORMATS[fmt]


def flags(use_tma_aligned_col_major_sf=False, round_sf=False, use_packed_ue8m0=False):
    return ((_lib.SF_COL_MAJOR if use_tma_aligned_col_major_sf else 0) | (_lib.ROUND_SF if round_sf else 0)
            | (_lib.PACKED_UE8M0 if use_packed_ue8m0 else 0))


def split(function, x, x_block_size, need_sf=False):
    """(data, sf) of a QuantTensor, or (x, None) of a plain tensor."""
    if isinstance(x, (tuple, list)):
        if len(x) != 2:
            raise _lib.invalid(function, 'a QuantTensor x must be a pair (data, sf)')
        return x[0], x[1]
    if need_sf:
        raise _lib.invalid(function, 'x must be a QuantTensor pair (data, sf)')
    return x, None


def logical_width(call, data):
    """Values per row: packed FP4 (int8) holds two per byte."""
    width = data.shape[1] if len(data.shape) >= 2 else 0
    return width * 2 if call.code(data) == _lib.I8 else width


def out_data(call, fmt, rows, k):
    """The quantized output of `fmt` for (rows, k) logical values."""
    if fmt == 'e2m1':
        return call.empty((rows, k // 2), _lib.I8)
    if fmt == 'e5m6':
        return call.empty((rows, k * 3 // 2), _lib.U8)
    return call.empty((rows, k), _lib.F8_E4M3)


def out_sf(call, rows, blocks, use_tma_aligned_col_major_sf, use_packed_ue8m0):
    """Scale factors (rows, blocks) in the layout the flags ask for (quant.md 3.2)."""
    if use_packed_ue8m0:
        return call.empty_sf(rows, ceil_div(blocks, 4), _lib.I32, use_tma_aligned_col_major_sf)
    return call.empty_sf(rows, blocks, _lib.F32, use_tma_aligned_col_major_sf)
