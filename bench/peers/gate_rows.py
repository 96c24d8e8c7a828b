"""The peers of tk's top2_sum_gate rows (moe.md 2.3), for TileKernels and torch.

A row's shape is 'NxE' (all rows, padded ones included) and its words 'K=',
'S=' (shared-as-routed slots, then an identity replica table of 33 columns),
'G=' and 'Kg=' (group limiting), the scoring, 'tp=' and 'padded=' (the last
rows masked off), the benchmark setup of moe.md 2.3: rsf 1.5, 4 EP ranks,
Tp 2, ep_rank 0.
"""
from rowspec import Unsupported

SCORINGS = ("sigmoid", "sqrtsoftplus", "softmax")
X = 32  # the replica table's extra columns when shared experts are routed


def _gate(r):
    r.only(["K=", "S=", "G=", "Kg=", "tp=", "padded="] + list(SCORINGS))
    n, e = r.dims(2)
    scoring = [w for w in r.words if w in SCORINGS]
    if len(scoring) != 1:
        raise Unsupported(f"one scoring word of {SCORINGS} expected in '{r.variant}'")
    k, s = r.value("K"), r.value("S") or 0
    g, kg = r.value("G") or 0, r.value("Kg") or 0
    return n, e, k, s, g, kg, scoring[0], r.value("tp") or 0, r.value("padded") or 0


def _inputs(c, n, e, s, padded):
    torch = c.torch
    logits, bias = c.randn(n, e, dtype="float32"), c.randn(e, dtype="float32")
    mask = torch.ones(n, dtype=torch.bool, device=c.dev)
    if padded:
        mask[n - padded:] = False
    table = count = None
    if s:
        table = torch.arange(e + s, dtype=torch.int32, device=c.dev)[:, None].repeat(1, X + 1).contiguous()
        count = torch.ones(e + s, dtype=torch.int32, device=c.dev)
    return logits, bias, mask, table, count


def tile_kernels_handlers():
    def gate(r):
        n, e, k, s, g, kg, scoring, tp, padded = _gate(r)
        desc = (f"moe.top2_sum_gate(logits[{n}x{e} f32], bias, {k}, {kg}, {g}, {bool(s)}, {s}, 1.5, 0, 4, {tp}, 2, "
                f"'{scoring}', mask" + (", identity map" if s else "") + ")")

        def make(c):
            logits, bias, mask, table, count = _inputs(c, n, e, s, padded)
            unmapped = c.torch.zeros(n, k, dtype=c.torch.int64, device=c.dev)

            def fn():
                return c.moe.top2_sum_gate(logits, bias, k, kg, g, bool(s), s, 1.5, 0, 4, tp, 2, scoring, mask=mask,
                                           to_physical_map=table, logical_count=count, unmapped_topk_idx=unmapped)
            return fn, [("topk_idx", (0,), (n, k + s), "int64"), ("topk_weights", (1,), (n, k + s), "float32")]
        return desc, make
    return {"top2_sum_gate": gate}


def torch_handlers():
    def gate(r):
        n, e, k, s, g, kg, scoring, tp, padded = _gate(r)
        desc = (f"{scoring}, bias, " + (f"group top-2 sums, topk({kg}) of {g} groups, " if 0 < kg < g else "") +
                f"topk({k}), gather, sum + 1e-20, * 1.5" + (f", {s} shared slots, replica gather" if s else "") +
                f", EP/TP renumbering, row mask; logits[{n}x{e} f32]")

        def make(c):
            torch = c.torch
            logits, bias, mask, table, count = _inputs(c, n, e, s, padded)
            rows = torch.arange(n, device=c.dev, dtype=torch.int64)[:, None]
            per_rank = (e + (X if s else 0)) // 4

            def fn(x, bias, mask):
                if scoring == "softmax":
                    u = torch.softmax(x, dim=1)
                    b = x + bias
                else:
                    u = torch.sigmoid(x) if scoring == "sigmoid" else torch.sqrt(torch.nn.functional.softplus(x))
                    b = u + bias
                if 0 < kg < g:
                    top2 = b.view(n, g, e // g).topk(2, dim=2).values.sum(dim=2)
                    kept = torch.zeros(n, g, dtype=torch.bool, device=x.device)
                    kept.scatter_(1, top2.topk(kg, dim=1).indices, True)
                    b = b.masked_fill(~kept.repeat_interleave(e // g, dim=1), float("-inf"))
                sel = b.topk(k, dim=1).indices
                w = u.gather(1, sel)
                w = w / (w.sum(dim=1, keepdim=True) + 1e-20) * 1.5
                ids = sel
                if s:
                    shared = torch.arange(e, e + s, device=x.device, dtype=torch.int64).expand(n, s)
                    ids = torch.cat([ids, shared], dim=1)
                    w = torch.cat([w, torch.ones(n, s, device=x.device, dtype=w.dtype)], dim=1)
                    replica = (rows * 23333) % count[ids].long()
                    ids = table[ids, replica].long()
                r_ = ids // per_rank
                ids = torch.where(r_ % 2 == tp, (r_ // 2) * per_rank + ids % per_rank, torch.full_like(ids, -1))
                keep = mask[:, None]
                return torch.where(keep, ids, torch.full_like(ids, -1)), torch.where(keep, w, torch.zeros_like(w))
            return fn, (logits, bias, mask)
        return desc, make
    return {"top2_sum_gate": gate}
