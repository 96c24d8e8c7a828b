"""Comparisons, the case runner, grids and routings shared by the drop-in checks (gpu_dropin_tilekernels.py)."""

import os
import traceback

import torch

import tile_kernels as tile
import tk_kernels as tk
from tile_kernels.testing.generator import generate_moe_params, generate_topk_idx

STATE = {'full': False, 'only': None}
COUNTS = {'PASS': 0, 'FAIL': 0}


# ---- comparisons ----

def same(a, b, what='out'):
    """Bit for bit, as TileKernels' assert_equal: dtype, shape, strides (unless empty), bytes."""
    if isinstance(a, (tuple, list)):
        assert len(a) == len(b), f'{what}: {len(a)} vs {len(b)} items'
        for i, (x, y) in enumerate(zip(a, b)):
            same(x, y, f'{what}[{i}]')
        return
    if a is None or b is None:
        assert a is None and b is None, f'{what}: one is None'
        return
    assert a.dtype == b.dtype, f'{what}: dtype {a.dtype} vs {b.dtype}'
    assert a.shape == b.shape, f'{what}: shape {tuple(a.shape)} vs {tuple(b.shape)}'
    assert a.numel() == 0 or a.stride() == b.stride(), f'{what}: strides {a.stride()} vs {b.stride()}'
    ra, rb = a.contiguous().flatten().view(torch.uint8), b.contiguous().flatten().view(torch.uint8)
    if not torch.equal(ra, rb):
        bad = (ra != rb).nonzero()
        raise AssertionError(f'{what}: {bad.numel()} of {ra.numel()} bytes differ, first at byte {bad[0].item()}')


def close(a, b, limit, what='out'):
    """TileKernels' calc_diff (1 - cosine-like similarity in float64) below limit."""
    assert a.shape == b.shape, f'{what}: shape {tuple(a.shape)} vs {tuple(b.shape)}'
    x, y = a.double(), b.double()
    den = (x * x + y * y).sum()
    diff = 0.0 if den == 0 else (1 - 2 * (x * y).sum() / den).item()
    assert diff < limit, f'{what}: calc_diff {diff:.3g} >= {limit:g}'


def clear_sf(sf, k, g):
    """A row-major copy of scale factors; of packed UE8M0 words, with the bytes past ceil(k/g) (never written) zeroed."""
    c = torch.empty(sf.shape, dtype=sf.dtype, device=sf.device)
    c.copy_(sf)  # fresh strides: .contiguous() keeps a (M, 1) view's (1, P) strides
    if c.dtype == torch.int32 and c.numel():
        c.view(torch.uint8).view(c.shape[0], -1)[:, -(-k // g):] = 0
    return c


def same_sf(a, b, k, g, what='sf'):
    assert a.numel() == 0 or a.stride() == b.stride(), f'{what}: strides {a.stride()} vs {b.stride()}'
    same(clear_sf(a, k, g), clear_sf(b, k, g), what)


def same_cast(a, b, k, g):
    """(out, sf) pairs of a quantizing op; unused packed bytes (never written) ignored."""
    same(a[0], b[0], 'out')
    same_sf(a[1], b[1], k, g)


# ---- the runner ----

def case(op, desc, fn):
    if STATE['only'] and (STATE['only'] not in op.split() if STATE.get('exact') else STATE['only'] not in op):
        return
    try:
        torch.cuda.synchronize()
        fn()
        torch.cuda.synchronize()
        COUNTS['PASS'] += 1
        print(f'PASS {op} {desc}', flush=True)
    except Exception as e:  # report, go on
        COUNTS['FAIL'] += 1
        where = traceback.extract_tb(e.__traceback__)[-1]
        print(f'FAIL {op} {desc}: {type(e).__name__}: {str(e).splitlines()[0] if str(e) else ""} '
              f'({os.path.basename(where.filename)}:{where.lineno})', flush=True)


def both(name, *args, **kw):
    """The same call through tile_kernels and tk_kernels: (reference, ours)."""
    mod, fn = name.split('.')
    return getattr(getattr(tile, mod), fn)(*args, **kw), getattr(getattr(tk, mod), fn)(*args, **kw)


def tokens(align=1):
    return [-(-n // align) * align for n in ((4001, 8001) if STATE['full'] else (4001,))]


def hiddens(align=64):
    base = (576, 2048, 2560, 3072, 4096, 6144, 7168) if STATE['full'] else (576, 2048, 7168)
    return [h for h in base if h % align == 0]


def moe_grid():
    grid = list(generate_moe_params())
    return grid if STATE['full'] else [p for p in grid if p['num_topk'] == 6]


_routings = {}


def routing(p, alignment):
    """topk_idx of TileKernels' generator and tile_kernels' own fused mapping of it (shared by both sides)."""
    key = (p['num_topk'], p['num_experts'], p['num_ep_ranks'], alignment)
    if key not in _routings:
        idx = _routings.get(key[:3]) if key[:3] in _routings else generate_topk_idx(p)
        _routings[key[:3]] = idx
        _routings[key] = (idx, tile.moe.get_fused_mapping(idx, p['num_experts'], 0, alignment))
    return _routings[key]


def moe_desc(p):
    return f"K={p['num_topk']} E={p['num_experts']} ep={p['num_ep_ranks']}"


FLAGS = [(False, True, False), (True, True, True)]  # (col-major, round_sf, packed UE8M0) as the tests use


def flag_kw(f):
    return dict(use_tma_aligned_col_major_sf=f[0], round_sf=f[1], use_packed_ue8m0=f[2])
