"""Transposes (TileKernels' tile_kernels.transpose)."""

from .._tensor import Call


def _run(function, x, rank):
    c = Call(function, x)
    if len(x.shape) != rank:
        raise c.invalid(f'x must be {rank}-D, got shape {tuple(x.shape)}')
    shape = tuple(x.shape)
    out = c.empty_as(x, shape[:-2] + (shape[-1], shape[-2]))
    c.run(c.t(x, 'x'), c.t(out, 'out'))
    return out


def transpose(x):
    """out (C, R) = x (R, C) transposed, contiguous; R and C multiples of 64, unit column stride."""
    return _run('transpose.transpose', x, 2)


def batched_transpose(x):
    """out (B, C, R): each matrix of x (B, R, C) transposed."""
    return _run('transpose.batched_transpose', x, 3)


__all__ = ['transpose', 'batched_transpose']
