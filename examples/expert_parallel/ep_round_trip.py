"""Expert parallelism over torch.distributed with tk's MoE operators (issue 34; docs/multi_gpu.md).

One process per rank. Two checks, over several seeds:

1. Gating is the same on every rank: each rank runs topk_gate and top2_sum_gate on identical scores (with
   engineered ties, +0 and -0), the ranks all-gather the indices and weights, and every rank's must be
   bit-identical to rank 0's.
2. An expert-parallel round trip: each rank owns E / ranks experts, keeps its own ids (mask_indices_by_tp),
   builds its fused mapping, expands the tokens, applies a stand-in expert (row times 2^-(e mod 4)), reduces
   with the gate's weights, and the ranks' partial outputs are all-gathered and summed in rank order. The sum
   must equal the single-process composition of the same operators: bit for bit when every sum is exact
   (integer-valued tokens, power-of-two weights: any order gives the same bits), and within 1e-6 relative with
   the gate's real weights, where the order differs (one rank sums a token's slots in slot order; the ranks'
   partials add per rank, then across ranks).

    python examples/expert_parallel/ep_round_trip.py --ranks 4 [--device cuda|cpu] [--seeds 8]

--device cuda puts rank r on GPU r % device_count (several ranks may share one GPU); collectives go through
NCCL when every rank has a GPU of its own, else through gloo on host copies. NVLink multicast stays off
(NCCL_NVLS_ENABLE=0). --device cpu runs tk's CPU path (gloo). Exits 0 when every check passed.
"""

import argparse
import os
import socket
import sys

import torch
import torch.distributed as dist
import torch.multiprocessing as mp

HERE = os.path.dirname(os.path.abspath(__file__))
try:
    import tk_kernels as tk
except ImportError:  # not installed: the repository's python/
    sys.path.insert(0, os.path.join(HERE, '..', '..', 'python'))
    import tk_kernels as tk

TOKENS, EXPERTS, TOPK, HIDDEN, ALIGNMENT = 96, 16, 4, 256, 16
GROUPS, TOPK_GROUPS = 4, 2


def scores_with_ties(seed, device):
    """fp32 (TOKENS, EXPERTS) scores from a seed, with exact ties, +0 and -0 in every row."""
    g = torch.Generator().manual_seed(seed)
    s = torch.randint(-4, 5, (TOKENS, EXPERTS), generator=g).float() / 4  # few values: many ties
    s[:, 0] = 0.0
    s[:, 1] = -0.0
    s[::3, 5] = s[::3, 9]  # a tie between non-adjacent experts
    return s.to(device)


def gate(scores, bias):
    idx = tk.moe.topk_gate(scores, TOPK)
    top2_idx, top2_w = tk.moe.top2_sum_gate(scores, bias, TOPK, TOPK_GROUPS, GROUPS, False, 0, 2.5, 0, 1, 0, 1,
                                            'sigmoid')
    return idx, top2_idx, top2_w


def gathered(t, world, via_host):
    """Every rank's `t`, in rank order."""
    src = t.cpu() if via_host else t
    out = [torch.empty_like(src) for _ in range(world)]
    dist.all_gather(out, src.contiguous())
    return out


def bits(t):
    t = t.cpu().contiguous()
    return t.view(torch.int32) if t.dtype == torch.float32 else t


def expert_out(expanded, pos_to_expert, first_expert):
    """The stand-in expert: each row times 2^-(global expert id mod 4) (exact); padding rows stay zero."""
    e = pos_to_expert.long()
    scale = torch.where(e >= 0, torch.pow(2.0, -((e + first_expert) % 4).float()), torch.zeros_like(e).float())
    return (expanded.float() * scale[:, None].to(expanded.device)).to(expanded.dtype)


def moe_layer(x, topk_idx, weights, num_experts, first_expert):
    """Mapping, expansion, the stand-in expert and the reduction for experts [first_expert, + num_experts)."""
    mapping = tk.moe.get_fused_mapping(topk_idx, num_experts, 0, ALIGNMENT)
    pos_to_expert, token_topk_to_pos = mapping[0], mapping[3]
    expanded = tk.moe.expand_to_fused(x, token_topk_to_pos, pos_to_expert)
    return tk.moe.reduce_fused(expert_out(expanded, pos_to_expert, first_expert), weights, token_topk_to_pos)


def round_trip(rank, world, x, topk_idx, weights, via_host):
    """The ranks' partial outputs summed in rank order, and the one-process composition."""
    owned = EXPERTS // world
    local = tk.moe.mask_indices_by_tp(topk_idx, EXPERTS, world, rank, world)
    partial = moe_layer(x, local, weights, owned, rank * owned)
    parts = gathered(partial, world, via_host)
    total = parts[0].clone()
    for p in parts[1:]:
        total += p  # rank order: the same on every rank
    return total, moe_layer(x, topk_idx, weights, EXPERTS, 0)


def run(rank, world, device_kind, seeds, port, failures):
    os.environ['NCCL_NVLS_ENABLE'] = '0'
    if device_kind == 'cuda':
        gpus = torch.cuda.device_count()
        device = torch.device('cuda', rank % gpus)
        torch.cuda.set_device(device)
        backend = 'nccl' if gpus >= world else 'gloo'
    else:
        device, backend = torch.device('cpu'), 'gloo'
    via_host = backend == 'gloo' and device.type == 'cuda'
    dist.init_process_group(backend, init_method=f'tcp://127.0.0.1:{port}', rank=rank, world_size=world)
    bad = []
    for seed in range(seeds):
        scores = scores_with_ties(seed, device)
        bias = torch.zeros(EXPERTS, dtype=torch.float32, device=device)
        for name, t in zip(('topk_gate idx', 'top2_sum_gate idx', 'top2_sum_gate weights'), gate(scores, bias)):
            mine = bits(t)
            for r, other in enumerate(gathered(t, world, via_host)):
                if not torch.equal(bits(other), mine):
                    bad.append(f'seed {seed}: {name} of rank {r} differs from rank {rank}')
        g = torch.Generator().manual_seed(1000 + seed)
        idx = tk.moe.topk_gate(scores, TOPK)
        # Exact: integer tokens and power-of-two weights, so every order of the sums gives the same bits.
        x = torch.randint(-8, 9, (TOKENS, HIDDEN), generator=g).float().to(device)
        w = torch.pow(2.0, -torch.randint(0, 4, (TOKENS, TOPK), generator=g).float()).to(device)
        ep, single = round_trip(rank, world, x, idx, w, via_host)
        if not torch.equal(bits(ep), bits(single)):
            bad.append(f'seed {seed}: exact round trip differs from one process on rank {rank}')
        # Real values and the gate's normalized weights: the order of the sums differs, so a tolerance.
        x = torch.randn(TOKENS, HIDDEN, generator=g).float().to(device)
        _, w = tk.moe.normalize_weight(torch.rand(TOKENS, TOPK, generator=g).float().to(device))
        ep, single = round_trip(rank, world, x, idx, w, via_host)
        err = ((ep.cpu() - single.cpu()).abs().max() / single.cpu().abs().max().clamp_min(1e-30)).item()
        if err > 1e-6:
            bad.append(f'seed {seed}: round trip with real weights off by {err:.3g} (relative) on rank {rank}')
    dist.barrier()
    dist.destroy_process_group()
    failures[rank] = len(bad)
    for b in bad[:10]:
        print(f'rank {rank}: FAILED {b}', flush=True)
    print(f'rank {rank}: {seeds} seeds, {"all checks passed" if not bad else f"{len(bad)} failures"} '
          f'({backend}, {device})', flush=True)


def main():
    p = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    p.add_argument('--ranks', type=int, default=4)
    p.add_argument('--device', choices=('cuda', 'cpu'), default='cuda' if torch.cuda.is_available() else 'cpu')
    p.add_argument('--seeds', type=int, default=8)
    a = p.parse_args()
    if EXPERTS % a.ranks:
        sys.exit(f'--ranks must divide the {EXPERTS} experts')
    with socket.socket() as s:
        s.bind(('127.0.0.1', 0))
        port = s.getsockname()[1]
    failures = mp.Manager().dict()
    mp.spawn(run, args=(a.ranks, a.device, a.seeds, port, failures), nprocs=a.ranks, join=True)
    total = sum(failures.values())
    print(f'{a.ranks} ranks on {a.device}: {"PASSED" if total == 0 else f"FAILED ({total} failures)"}')
    sys.exit(1 if total else 0)


if __name__ == '__main__':
    main()
