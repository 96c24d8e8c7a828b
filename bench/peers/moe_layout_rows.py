"""The peers of tk's MoE rows over routed ids (moe.md 2.6, 2.7, 2.9-2.12):
group_count, aux_fi, get_fused_mapping, expand_to_fused[_with_sf] and
reduce_fused, for
TileKernels and for torch. Each row's shape is 'NxK' (routed tokens, slots)
and its words 'e=L/T' (local of total experts, as moe.md 4.1 draws the ids),
then the operator's: 'A=' alignment and 'bound' (get_fused_mapping's tables
sized by the upper bound, no read-back), 'H=' hidden size, dtypes, 'Ka=' (aux_fi), 'sf=' and
'C=' (the scale factors of expand_to_fused_with_sf), 'w' (reduce_fused's
weights). The ids are drawn as tk's checks draw them (peer_inputs.routed_ids).
"""
from rowspec import Unsupported, ceil_div, align

FP8 = "float8_e4m3fn"


def routing(r, extra=()):
    """(n, k, local, total) of a row, rejecting words outside `extra`."""
    r.only(["e="] + list(extra))
    n, k = r.dims(2)
    e = r.value("e", str)
    if e is None or "/" not in e:
        raise Unsupported(f"no e=local/total in '{r.variant}'")
    local, total = (int(v) for v in e.split("/"))
    return n, k, local, total


def _counts(r, aux):
    n, k, local, total = routing(r, ["Ka="] if aux else [])
    ka = r.value("Ka") if aux else None
    if aux and not ka:
        raise Unsupported("aux_fi rows need Ka=")
    return n, k, local, total, ka


def _mapping(r):
    n, k, local, total = routing(r, ["A=", "bound"])
    a = r.value("A")
    if not a or not r.has("bound"):
        raise Unsupported("the get_fused_mapping peers are written for rows sized by the bound (A=, bound)")
    return n, k, local, total, a, (n * k + (a - 1) * local) // a * a


def _expand(r):
    n, k, local, total = routing(r, ["H=", "bf16"])
    if not r.has("bf16"):
        raise Unsupported("the expand_to_fused peers are written for bf16 rows")
    return n, k, local, total, r.value("H")


def _expand_sf(r):
    n, k, local, total = routing(r, ["H=", "e4m3", "sf=", "C="])
    sf, ch = r.value("sf", str), r.value("C")
    if sf != "ue8m0,colmajor" or ch not in (32, 128):
        raise Unsupported("the expand_to_fused_with_sf peers are written for packed UE8M0 column-major rows")
    return n, k, local, total, r.value("H"), ch


def _reduce(r):
    n, k, local, total = routing(r, ["H=", "bf16", "w"])
    if not (r.has("bf16") and r.has("w")):
        raise Unsupported("the reduce_fused peers are written for the benchmark's bf16 rows with weights")
    return n, k, local, total, r.value("H")


# --- TileKernels: description, make(ctx) -> (fn, expect) --------------------

def tile_kernels_handlers():
    def counts(aux):
        def handler(r):
            n, k, local, total, ka = _counts(r, aux)
            name = "aux_fi" if aux else "group_count"
            desc = f"moe.{name}(ids[{n}x{k} int64 of {local}/{total}], {local}" + (f", {ka})" if aux else ")")

            def make(c):
                ids = c.routed_ids(n, k, local, total)
                fn = (lambda: c.moe.aux_fi(ids, local, ka)) if aux else (lambda: c.moe.group_count(ids, local))
                return fn, [("fi" if aux else "counts", (), (local,), "float32" if aux else "int32")]
            return desc, make
        return handler

    def mapping(r):
        n, k, local, total, a, m = _mapping(r)
        desc = f"moe.get_fused_mapping(ids[{n}x{k} int64 of {local}/{total}], {local}, {m}, {a})"

        def make(c):
            ids = c.routed_ids(n, k, local, total)
            fn = lambda: c.moe.get_fused_mapping(ids, local, m, a)
            return fn, [("pos_to_expert", (0,), (m,), "int32"), ("token_topk_to_pos", (3,), (n, k), "int32"),
                        ("num_tokens_per_expert", (6,), (local,), "int32")]
        return desc, make

    def expand(r):
        n, k, local, total, h = _expand(r)
        desc = f"moe.expand_to_fused(x[{n}x{h} bf16], get_fused_mapping(ids[{n}x{k}], {local}, 0, 16))"

        def make(c):
            ids = c.routed_ids(n, k, local, total)
            mapping = c.moe.get_fused_mapping(ids, local, 0, 16)
            pos_to_expert, token_topk_to_pos = mapping[0], mapping[3]
            x = c.randn(n, h, dtype="bfloat16")
            fn = lambda: c.moe.expand_to_fused(x, token_topk_to_pos, pos_to_expert)
            return fn, [("expanded_x", (), (pos_to_expert.shape[0], h), "bfloat16")]
        return desc, make

    def expand_sf(r):
        n, k, local, total, h, ch = _expand_sf(r)
        hs = ceil_div(ceil_div(h, ch), 4)
        desc = (f"moe.expand_to_fused_with_sf((e4m3[{n}x{h}], ue8m0 words[{n}x{hs}]), {ch}, "
                f"get_fused_mapping(ids[{n}x{k}], {local}, 0, 16), use_tma_aligned_col_major_sf=True)")

        def make(c):
            ids = c.routed_ids(n, k, local, total)
            mapping = c.moe.get_fused_mapping(ids, local, 0, 16)
            pos_to_expert, token_topk_to_pos = mapping[0], mapping[3]
            x = (c.e4m3_codes(n, h), c.rand_bytes(n, 4 * hs, dtype="uint8").view(c.torch.int32))
            fn = lambda: c.moe.expand_to_fused_with_sf(x, ch, token_topk_to_pos, pos_to_expert,
                                                       use_tma_aligned_col_major_sf=True)
            m = pos_to_expert.shape[0]
            return fn, [("expanded_x", (0,), (m, h), FP8), ("expanded_sf", (1,), (m, hs), "int32", True)]
        return desc, make

    def reduce(r):
        n, k, local, total, h = _reduce(r)
        desc = f"moe.reduce_fused(x[{n * k}x{h} bf16], topk_weights[{n}x{k} f32], get_fused_mapping(.., 1)[3])"

        def make(c):
            ids = c.routed_ids(n, k, local, total)
            token_topk_to_pos = c.moe.get_fused_mapping(ids, local, 0, 1)[3]
            x = c.randn(n * k, h, dtype="bfloat16")
            w = c.torch.rand(n, k, device=c.dev, dtype=c.torch.float32)
            fn = lambda: c.moe.reduce_fused(x, w, token_topk_to_pos)
            return fn, [("out", (), (n, h), "bfloat16")]
        return desc, make

    return {"group_count": counts(False), "aux_fi": counts(True), "get_fused_mapping": mapping,
            "expand_to_fused": expand, "expand_to_fused_with_sf": expand_sf, "reduce_fused": reduce}


# --- torch: description, make(inputs) -> (fn, args) -------------------------

def _torch_full_mapping(torch, ids, local, alignment, m):
    """get_fused_mapping's seven tensors in the canonical order, with torch (tables of m positions)."""
    n, k = ids.shape
    flat = ids.reshape(-1)
    key = torch.where((flat >= 0) & (flat < local), flat, local)
    counts = torch.bincount(key, minlength=local + 1)[:local]
    aligned = (counts + alignment - 1) // alignment * alignment
    end = torch.cumsum(aligned, 0)
    start = end - aligned
    order = torch.argsort(key, stable=True)
    sorted_key = key[order]
    valid = sorted_key < local
    rank = torch.arange(flat.numel(), device=ids.device) - torch.searchsorted(sorted_key, sorted_key)
    pos = torch.full_like(flat, -1)
    pos[order[valid]] = start[sorted_key[valid]] + rank[valid]
    slots = torch.arange(flat.numel(), device=ids.device)
    at = torch.where(pos >= 0, pos, m)
    tables = torch.full((3, m + 1), -1, device=ids.device, dtype=torch.int64)
    tables[0].index_copy_(0, at, torch.where(pos >= 0, key, -1))
    tables[1].index_copy_(0, at, torch.where(pos >= 0, slots // k, -1))
    tables[2].index_copy_(0, at, torch.where(pos >= 0, slots, -1))
    t = tables[:, :m].to(torch.int32)
    return (t[0], t[1], t[2], pos.view(n, k).to(torch.int32), start.to(torch.int32), end.to(torch.int32),
            aligned.to(torch.int32))


def _torch_mapping(c, n, k, local, total, alignment):
    """(token_topk_to_pos int32 (n, k), pos_to_expert int32 (M,)) in the canonical order, built with torch."""
    torch = c.torch
    ids = c.routed_ids(n, k, local, total)
    flat = ids.reshape(-1)
    counts = torch.bincount(flat[flat >= 0], minlength=local)
    aligned = (counts + alignment - 1) // alignment * alignment
    start = torch.cumsum(aligned, 0) - aligned
    order = torch.argsort(torch.where(flat >= 0, flat, local), stable=True)
    sorted_ids = torch.where(flat >= 0, flat, local)[order]
    valid = sorted_ids < local
    rank = torch.arange(flat.numel(), device=c.dev) - torch.searchsorted(sorted_ids, sorted_ids)
    pos = torch.full_like(flat, -1)
    pos[order[valid]] = start[sorted_ids[valid]] + rank[valid]
    m = int(aligned.sum())
    pos_to_expert = torch.full((m,), -1, device=c.dev, dtype=torch.int32)
    pos_to_expert[pos[pos >= 0]] = flat[pos >= 0].to(torch.int32)
    return pos.view(n, k).to(torch.int32), pos_to_expert


def torch_handlers():
    def counts(aux):
        def handler(r):
            n, k, local, total, ka = _counts(r, aux)
            desc = (f"zeros({local} + 1).scatter_add_(ids or {local})[:{local}]" + (f" * {local} / ({n} * {ka})"
                    if aux else "") + f", ids[{n}x{k} int64]")

            def make(c):
                torch = c.torch
                ids = c.routed_ids(n, k, local, total)

                def fn(v):
                    flat = torch.where(v >= 0, v, local).reshape(-1)
                    dt = torch.float32 if aux else torch.int32
                    cnt = torch.zeros(local + 1, device=v.device, dtype=dt).scatter_add_(
                        0, flat, torch.ones_like(flat, dtype=dt))[:local]
                    return cnt * local / (n * ka) if aux else cnt
                return fn, (ids,)
            return desc, make
        return handler

    def mapping(r):
        n, k, local, total, a, m = _mapping(r)
        desc = f"bincount, cumsum, stable argsort, searchsorted, index_copy_ of ids[{n}x{k} int64] into {m} positions"

        def make(c):
            ids = c.routed_ids(n, k, local, total)
            return (lambda v: _torch_full_mapping(c.torch, v, local, a, m)), (ids,)
        return desc, make

    def expand(r):
        n, k, local, total, h = _expand(r)
        desc = f"zeros(M + 1, {h}).index_copy_(0, pos or M, x.repeat_interleave({k}))[:M], x[{n}x{h} bf16]"

        def make(c):
            torch = c.torch
            pos, pos_to_expert = _torch_mapping(c, n, k, local, total, 16)
            m = pos_to_expert.shape[0]
            x = c.randn(n, h, dtype="bfloat16")

            def fn(x, pos):
                flat = pos.reshape(-1).long()
                out = x.new_zeros(m + 1, h)
                out.index_copy_(0, torch.where(flat >= 0, flat, m), x.repeat_interleave(k, dim=0))
                return out[:m]
            return fn, (x, pos)
        return desc, make

    def expand_sf(r):
        n, k, local, total, h, ch = _expand_sf(r)
        hs = ceil_div(ceil_div(h, ch), 4)
        desc = f"expand_to_fused's index_copy_ for e4m3[{n}x{h}] and ue8m0 words[{n}x{hs}], the words column-major"

        def make(c):
            torch = c.torch
            pos, pos_to_expert = _torch_mapping(c, n, k, local, total, 16)
            m = pos_to_expert.shape[0]
            data = c.rand_bytes(n, h, dtype="uint8")  # e4m3 as its bytes: the same data movement
            sf = c.rand_bytes(n, 4 * hs, dtype="uint8").view(torch.int32)

            def fn(data, sf, pos):
                flat = pos.reshape(-1).long()
                at = torch.where(flat >= 0, flat, m)
                out = data.new_zeros(m + 1, h).index_copy_(0, at, data.repeat_interleave(k, dim=0))
                rows = sf.new_zeros(m + 1, hs).index_copy_(0, at, sf.repeat_interleave(k, dim=0))
                col = sf.new_zeros(hs, align(m, 4))
                col[:, :m] = rows[:m].t()
                return out[:m], col[:, :m].t()
            return fn, (data, sf, pos)
        return desc, make

    def reduce(r):
        n, k, local, total, h = _reduce(r)
        desc = f"(x[pos].float() * where(pos >= 0, w, 0)[..., None]).sum(1).bfloat16(), x[{n * k}x{h} bf16]"

        def make(c):
            torch = c.torch
            pos, _ = _torch_mapping(c, n, k, local, total, 1)
            x = c.randn(n * k, h, dtype="bfloat16")
            w = torch.rand(n, k, device=c.dev, dtype=torch.float32)

            def fn(x, w, pos):
                p = pos.long()
                s = torch.where(p >= 0, w, torch.zeros_like(w))
                return (x[p.clamp(min=0)].float() * s[..., None]).sum(dim=1).to(x.dtype)
            return fn, (x, w, pos)
        return desc, make

    return {"group_count": counts(False), "aux_fi": counts(True), "get_fused_mapping": mapping,
            "expand_to_fused": expand, "expand_to_fused_with_sf": expand_sf, "reduce_fused": reduce}
