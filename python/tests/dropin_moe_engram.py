"""Drop-in checks of the transposes, MoE and Engram operators (run by gpu_dropin_tilekernels.py)."""

import itertools
import random

import torch

from dropin_common import (STATE, both, case, close, hiddens, moe_desc, moe_grid, routing, same, tile, tk,
                           tokens)

def check_transpose():
    for r, c, dt in itertools.product(tokens(64), hiddens(), (torch.float8_e4m3fn, torch.bfloat16)):
        x = torch.randn(r, 2 * c, device='cuda').to(dt)[:, :c]  # a row stride of 2C
        case('transpose', f'R={r} C={c} {dt}', lambda x=x: same(*both('transpose.transpose', x)))
    for b, r, c, dt in itertools.product((8, 32) if STATE['full'] else (8,), tokens(64), hiddens(),
                                         (torch.float8_e4m3fn, torch.bfloat16, torch.float32)):
        x = torch.randn(b, r, c, device='cuda').to(dt)
        case('batched_transpose', f'B={b} R={r} C={c} {dt}', lambda x=x: same(*both('transpose.batched_transpose', x)))


# ---- MoE ----

def check_gates():
    ek = [(72, 6), (32, 6), (64, 6), (96, 6), (16, 6), (36, 6), (108, 6), (128, 6), (144, 6), (256, 8)]
    for n, (e, k) in itertools.product(tokens(), ek if STATE['full'] else ek[::3]):
        s = torch.randn(n, e, device='cuda')
        case('topk_gate', f'N={n} E={e} K={k}', lambda s=s, k=k: same(*both('moe.topk_gate', s, k)))
    for n, e, g, q, kg in itertools.product(tokens(), (72, 256), (4, 8, 12, 16), (1, 2), (2, 4)):
        if e % g == 0:
            s = torch.randn(n, g, e // g, device='cuda')
            case('topk_sum_and_topk_group_idx', f'N={n} E={e} G={g} q={q} Kg={kg}',
                 lambda s=s, q=q, kg=kg: same(*both('moe.topk_sum_and_topk_group_idx', s, q, kg)))


def _selection_keys(logits, bias, scoring):
    if scoring == 'softmax':
        return logits + bias
    u = torch.sigmoid(logits) if scoring == 'sigmoid' else torch.sqrt(torch.nn.functional.softplus(logits))
    return u + bias


def _gate_inputs(n, e, k, g, kg, scoring):
    """logits, bias regenerated (a few times) until no near-ties sit where the choice is made, as the tests do."""
    for _ in range(20):
        logits, bias = torch.randn(n, e, device='cuda'), torch.randn(e, device='cuda')
        keys = _selection_keys(logits, bias, scoring)
        if g and kg < g:
            top2 = keys.view(n, g, -1).topk(2, dim=-1).values.sum(-1).sort(-1, descending=True).values
            if (top2[:, kg - 1] - top2[:, kg]).min() <= 1e-6:
                continue
        top = keys.topk(k + 1, dim=-1).values
        if (top[:, :-1] - top[:, 1:]).min() > 2e-6:
            break
    return logits, bias


def check_top2_sum_gate():
    configs = [(0, 0, 72, 1, 6), (0, 0, 32, 2, 6), (0, 0, 64, 2, 6), (0, 0, 96, 2, 6), (0, 0, 16, 2, 6),
               (0, 0, 36, 2, 6), (0, 0, 108, 2, 6), (0, 0, 128, 2, 6), (0, 0, 144, 2, 6), (8, 8, 256, 2, 8),
               (8, 4, 256, 2, 8)]
    grid = itertools.product(tokens(), configs if STATE['full'] else configs[::4] + configs[-1:], (0, 10), (0, 1),
                             (False, True), ('sigmoid', 'sqrtsoftplus', 'softmax'), (False, True))
    for n, (g, kg, e, s_in, k), pad, tp, shared, scoring, fixed in grid:
        if shared and not (k % s_in == 0 and e % (k // s_in) == 0):
            continue
        if not STATE['full'] and (pad == 0 or fixed and shared):
            continue

        def run(n=n, g=g, kg=kg, e=e, s_in=s_in, k=k, pad=pad, tp=tp, shared=shared, scoring=scoring, fixed=fixed):
            logits, bias = _gate_inputs(n + pad, e, k, g, kg, scoring)
            mask = torch.arange(n + pad, device='cuda') < n
            if fixed:
                gen = torch.Generator(device='cuda').manual_seed(42)
                unmapped = torch.randint(0, e, (n + pad, k), generator=gen, device='cuda')
                fix = torch.ones(n + pad, dtype=torch.bool, device='cuda')
            else:
                unmapped, fix = torch.zeros(n + pad, k, dtype=torch.int64, device='cuda'), None
            phys = cnt = None
            if shared:
                phys = torch.arange(e + s_in, dtype=torch.int32, device='cuda')[:, None].repeat(1, 33)
                cnt = torch.ones(e + s_in, dtype=torch.int32, device='cuda')
            res, unm = [], []
            for lib in (tile, tk):
                u = unmapped.clone()
                res.append(lib.moe.top2_sum_gate(logits, bias, k, kg, g, shared, s_in, 1.5, 0, 4, tp, 2, scoring,
                                                 mask=mask if pad else None, fix_routing_mask=fix,
                                                 to_physical_map=phys, logical_count=cnt, unmapped_topk_idx=u))
                unm.append(u)
            (ri, rw), (oi, ow) = res
            same(ri.sort(-1).values, oi.sort(-1).values, 'topk_idx (rows sorted)')
            same(unm[0].sort(-1).values, unm[1].sort(-1).values, 'unmapped_topk_idx (rows sorted)')
            order_r, order_o = ri.sort(dim=-1, stable=True).indices, oi.sort(dim=-1, stable=True).indices
            torch.testing.assert_close(ow.gather(1, order_o), rw.gather(1, order_r), rtol=1e-5, atol=1e-8)
        case('top2_sum_gate', f'N={n}+{pad} G={g} Kg={kg} E={e} S={s_in} K={k} tp={tp} shared={shared} {scoring} '
             f'fixed={fixed}', run)


def check_index_ops():
    for p in moe_grid():
        idx, _ = routing(p, 16)
        n, k, e, ep = idx.shape[0], p['num_topk'], p['num_experts'], p['num_ep_ranks']
        w = torch.rand(n, k, device='cuda')
        case('normalize_weight', moe_desc(p), lambda w=w: same(*both('moe.normalize_weight', w)))
        for tp in (2, 4, 8):
            rank = random.randrange(tp)
            case('mask_indices_by_tp', f'{moe_desc(p)} tp={rank}/{tp}',
                 lambda idx=idx, e=e, ep=ep, rank=rank, tp=tp: same(*both('moe.mask_indices_by_tp', idx, e * ep, ep,
                                                                          rank, tp)))
        for ka in (1, k):
            case('aux_fi', f'{moe_desc(p)} Ka={ka}',
                 lambda idx=idx, e=e, ka=ka: close(*both('moe.aux_fi', idx, e, ka), 2e-7))
        case('group_count', moe_desc(p), lambda idx=idx, e=e: same(*both('moe.group_count', idx, e)))
        for ng in (8, 16, 72):
            if (e * ep) % ng:
                continue

            def run(idx=idx, e=e, ep=ep, ng=ng):
                groups = torch.div(idx, e * ep // ng, rounding_mode='floor')
                a, b = groups.clone(), groups.clone()
                tile.moe.inplace_unique_group_indices(a, ng)
                tk.moe.inplace_unique_group_indices(b, ng)
                same(a, b)
            case('inplace_unique_group_indices', f'{moe_desc(p)} groups={ng}', run)


def check_get_fused_mapping():
    for p, a in itertools.product(moe_grid(), (64, 128)):
        def run(p=p, a=a):
            idx, _ = routing(p, a)
            ref, ours = both('moe.get_fused_mapping', idx, p['num_experts'], 0, a)
            same(ref[4:7], ours[4:7], '(expert_start, expert_end, num_tokens_per_expert)')
            assert ref[7] == ours[7], 'num_tokens_per_expert_list'
            p2e, p2t, p2tk, t2p = ours[:4]
            f = idx.numel()
            # The order inside a segment is tk's canonical one, the reference's depends on the SM count:
            # compare each segment's slots as a set, and tk's tables against each other.
            same((ref[0].long() * f + ref[2]).sort().values, (p2e.long() * f + p2tk).sort().values, 'segments')
            valid = p2e >= 0
            assert torch.equal(valid, p2t >= 0) and torch.equal(valid, p2tk >= 0), 'padding rows disagree'
            assert torch.equal(t2p.flatten()[p2tk[valid].long()], torch.nonzero(valid).flatten().int()), 'inverse'
            assert torch.equal(p2t[valid], p2tk[valid] // p['num_topk']), 'pos_to_token'
            assert torch.equal(idx.flatten()[p2tk[valid].long()].int(), p2e[valid]), 'pos_to_expert'
            assert torch.equal(t2p < 0, idx < 0), 'empty slots'
        case('get_fused_mapping', f'{moe_desc(p)} alignment={a}', run)


def check_expand_reduce():
    flags = [(False, True, False), (True, True, True)]
    for p, h in itertools.product(moe_grid(), hiddens()):
        idx, (p2e, p2t, _, t2p, *_) = routing(p, 16)
        x = torch.randn(idx.shape[0], h, dtype=torch.bfloat16, device='cuda')
        case('expand_to_fused', f'{moe_desc(p)} H={h}',
             lambda x=x, t2p=t2p, p2e=p2e: same(*both('moe.expand_to_fused', x, t2p, p2e)))
        for c, f in itertools.product((32, 128), flags):
            def run(x=x, c=c, f=f, t2p=t2p, p2e=p2e):
                q, sf = tile.quant.per_token_cast(x, 'e4m3', c, use_tma_aligned_col_major_sf=f[0], round_sf=f[1],
                                                  use_packed_ue8m0=f[2])
                same(*both('moe.expand_to_fused_with_sf', (q, sf.contiguous()), c, t2p, p2e,
                           use_tma_aligned_col_major_sf=f[0]))
            case('expand_to_fused_with_sf', f'{moe_desc(p)} H={h} C={c} flags={f}', run)
    for p, h, weights, dt, fp8, xsf in itertools.product(moe_grid(), hiddens(256), (True, False),
                                                         (torch.float32, torch.bfloat16), ('', 'e4m3'),
                                                         (True, False)):
        def run(p=p, h=h, weights=weights, dt=dt, fp8=fp8, xsf=xsf):
            idx, (_, _, _, t2p, *_) = routing(p, 1)
            n, k = idx.shape
            x = torch.randn(n * k, h, dtype=dt, device='cuda')
            w = torch.rand(n, k, device='cuda') if weights else None
            sf = torch.randn(1, device='cuda') if fp8 else None
            xin = (x, torch.randn(n * k, device='cuda')) if xsf else x
            same(*both('moe.reduce_fused', xin, w, t2p, fp8, sf=sf))
        case('reduce_fused', f'{moe_desc(p)} H={h} weights={weights} {dt} fp8={fp8 or "-"} x_sf={xsf}', run)


# ---- Engram ----

def check_engram():
    from tile_kernels.torch.engram import make_offsets
    for t in tokens():
        def run(t=t):
            ids = torch.randint(0, 100000, (t, 3), dtype=torch.int32, device='cuda')
            mult = torch.randint(0, 100000, (2, 3), dtype=torch.int64, device='cuda')
            vocab = torch.randint(100000, 1000000, (2, 2, 8), dtype=torch.int32, device='cuda')
            offsets = make_offsets(vocab)
            same(offsets, tk.engram.make_offsets(vocab), 'make_offsets')
            same(*both('engram.engram_hash', ids, mult, vocab, offsets))
        case('engram_hash', f'T={t} N=3 Lh=2 E=8', run)
    for t, h in itertools.product(tokens(), hiddens(128)):
        def run(t=t, h=h):
            wh, we = (torch.randn(4, h, dtype=torch.bfloat16, device='cuda') for _ in range(2))
            same(*both('engram.fused_weight', wh, we), 'fused_weight')
            x, k = (torch.randn(t, 4, h, dtype=torch.bfloat16, device='cuda') for _ in range(2))
            v = torch.randn(t, h, dtype=torch.bfloat16, device='cuda')
            wf = tile.engram.fused_weight(wh, we)
            ref, ours = both('engram.engram_gate_fwd', x, k, v, wf, 1e-20, 1e-6)
            for name, a, b in zip(('out', 'dot', 'gate_score', 'rstd_x', 'rstd_k'), ref, ours):
                close(a.float(), b.float(), 2e-10, name)
            plain = tk.engram.engram_gate_fwd(x, k, v, wf, 1e-20, 1e-6, save_for_backward=False)
            same(plain[0], ours[0], 'out without save_for_backward')
            go = torch.randn_like(x)
            ref, ours = both('engram.engram_gate_bwd', go, x, k, v, wf, *ref[1:], 1e-6)
            for name, a, b in zip(('grad_x', 'grad_k', 'grad_v'), ref, ours):
                close(a.float(), b.float(), 1e-8, name)
            close(ref[3].sum(0), ours[3].sum(0), 1e-8, 'grad_w_partial summed')
            grads = [torch.randn(4, h, device='cuda') for _ in range(2)]
            mine = [g.clone() for g in grads]
            tile.engram.grad_w_reduce(ref[3], wh, we, *grads)
            tk.engram.grad_w_reduce(ref[3], wh, we, *mine)
            close(grads[0], mine[0], 1e-10, 'grad_weight_hidden')
            close(grads[1], mine[1], 1e-10, 'grad_weight_embed')
        case('fused_weight engram_gate_fwd engram_gate_bwd grad_w_reduce', f'T={t} n=4 H={h}', run)


CHECKS = [('transpose batched_transpose', check_transpose), ('topk_gate topk_sum_and_topk_group_idx', check_gates),
          ('top2_sum_gate', check_top2_sum_gate),
          ('normalize_weight mask_indices_by_tp aux_fi group_count inplace_unique_group_indices', check_index_ops),
          ('get_fused_mapping', check_get_fused_mapping),
          ('expand_to_fused expand_to_fused_with_sf reduce_fused', check_expand_reduce),
          ('engram_hash fused_weight engram_gate_fwd engram_gate_bwd grad_w_reduce', check_engram)]
