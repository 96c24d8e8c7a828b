"""unpack_from_e2m1fn_x2: decodes packed FP4 in Python (a debugging helper, no tk call)."""

import sys

from .._tensor import adapter

# e2m1 code -> value (quant.md 2.2); codes 8..15 are the negatives (8 is -0).
_E2M1 = [0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0, -0.0, -0.5, -1.0, -1.5, -2.0, -3.0, -4.0, -6.0]


def unpack_from_e2m1fn_x2(x, out_dtype=None):
    """Decodes int8/uint8 (..., L) of packed e2m1 pairs into (..., 2L) values (element 2i from the low nibble).

    out_dtype defaults to float32 of x's library (torch.float32 or numpy.float32).
    """
    ad = adapter(x, 'quant.unpack_from_e2m1fn_x2', 'x')
    if len(x.shape) == 0:
        raise ValueError('unpack_from_e2m1fn_x2: x must have at least 1 dimension so the last dim can be doubled')
    shape = tuple(x.shape[:-1]) + (x.shape[-1] * 2,)
    if ad.name == 'torch':
        torch = sys.modules['torch']
        if x.dtype not in (torch.int8, torch.uint8):
            raise TypeError(f'unpack_from_e2m1fn_x2: x must be int8 or uint8, got {x.dtype}')
        u = x.view(torch.uint8).long()
        table = torch.tensor(_E2M1, dtype=torch.float32, device=x.device)
        y = torch.stack([table[u & 0xF], table[u >> 4]], dim=-1).reshape(shape)
        return y.to(out_dtype or torch.float32)
    import numpy as np
    if x.dtype not in (np.int8, np.uint8):
        raise TypeError(f'unpack_from_e2m1fn_x2: x must be int8 or uint8, got {x.dtype}')
    u = x.view(np.uint8)
    table = np.array(_E2M1, np.float32)
    y = np.stack([table[u & 0xF], table[u >> 4]], axis=-1).reshape(shape)
    return y.astype(out_dtype or np.float32)
