"""Random inputs for the peers, built on one device (torch imported on first use)."""
from rowspec import align, ceil_div


class Inputs:
    def __init__(self, device):
        import torch
        self.torch, self.dev = torch, device

    def randn(self, *shape, dtype="bfloat16"):
        torch = self.torch
        return torch.randn(*shape, device=self.dev, dtype=getattr(torch, dtype))

    def randn_strided(self, m, k, stride, dtype):
        """(m, k) view of an (m, stride) buffer (tk's 'stride=' rows)."""
        if stride is None or stride == k:
            return self.randn(m, k, dtype=dtype)
        return self.randn(m, stride, dtype=dtype)[:, :k]

    def e4m3_codes(self, *shape):
        """Random e4m3 codes without NaN (as tk's checkers)."""
        torch = self.torch
        b = torch.randint(0, 256, shape, device=self.dev, dtype=torch.uint8)
        b = torch.where((b & 0x7F) == 0x7F, b & 0xFE, b)
        return b.view(torch.float8_e4m3fn)

    def rand_bytes(self, *shape, dtype="int8"):
        torch = self.torch
        return torch.randint(0, 256, shape, device=self.dev, dtype=torch.uint8).view(getattr(torch, dtype))

    def sf_fp32(self, mb, kb, pow2, col):
        """Random positive fp32 scale factors (mb, kb): 2^[-30, 10], times U[0.5, 1)
        unless pow2 (tk's cast_back checker); col: TMA-aligned column-major strides
        (1, align(mb, 4)), else row-major contiguous."""
        torch = self.torch
        v = torch.exp2(torch.randint(-30, 11, (mb, kb), device=self.dev).float())
        if not pow2:
            v = v * (0.5 + 0.5 * torch.rand(mb, kb, device=self.dev))
        if not col:
            return v.contiguous()
        buf = torch.zeros(kb, align(mb, 4), device=self.dev, dtype=torch.float32)
        buf[:, :mb] = v.t()
        return buf[:, :mb].t()

    def sf_packed(self, mb, kb):
        """Packed UE8M0 words (mb, ceil(kb/4)) int32, column-major with word-column
        stride align(mb, 4) (TileKernels' own layout); exponent bytes 127 +- 10."""
        torch = self.torch
        kq, a = ceil_div(kb, 4), align(mb, 4)
        b = torch.randint(117, 138, (kq, 4 * a), device=self.dev, dtype=torch.uint8)
        return b.view(torch.int32)[:, :mb].t()

    def e5m6_codes(self, m, k):
        """Random 12-bit E5M6 codes (m, k) int32 without exponent 31 (Inf/NaN), as tk's cast_back checker."""
        torch = self.torch
        codes = torch.randint(0, 4096, (m, k), device=self.dev, dtype=torch.int32)
        return torch.where(((codes >> 6) & 0x1F) == 31, codes & ~0x40, codes)

    def lossless_input(self, m, k, b_in, b_out):
        """An FP4 tensor for lossless re-blocking (quant.md 4.9) as tk's checkPerBlockLossless builds it:
        random e2m1 bytes (m, k/2) int8, and input-block exponent bytes (m/b_in[0], k/b_in[1]) int32 that
        lie within 11 below a base in [20, 219] per output block; one input block in 16 has exponent 0
        (scale 0) and all-zero codes. Whole blocks only."""
        torch = self.torch
        (bi, gi), (bo, go) = b_in, b_out
        mbi, kbi = m // bi, k // gi
        base = torch.randint(20, 220, (m // bo, k // go), device=self.dev, dtype=torch.int32)
        e = base.repeat_interleave(bo // bi, 0).repeat_interleave(go // gi, 1)
        e = e - torch.randint(0, 12, (mbi, kbi), device=self.dev, dtype=torch.int32)
        zero = torch.randint(0, 16, (mbi, kbi), device=self.dev) == 0
        e = torch.where(zero, torch.zeros_like(e), e)
        x = self.rand_bytes(m, k // 2, dtype="uint8")
        mask = zero.repeat_interleave(bi, 0).repeat_interleave(gi // 2, 1)
        return x.masked_fill(mask, 0).view(torch.int8), e.contiguous()

    def routing(self, tokens, topk, total, local, alignment, seed=1):
        """A MoE routing like tk's makeMoeRouting (bench/swiglu_check.cpp): each
        token picks `topk` distinct experts of `total`, the first `local` are this
        rank's; rows grouped by local expert, each group padded with -1 rows to a
        multiple of `alignment`. Returns int32 tensors on the device:
        pos_to_token_topk (N,), pos_to_expert (N,), row_token (N,) and
        token_topk_to_pos (tokens, topk), -1 where absent."""
        torch = self.torch
        g = torch.Generator().manual_seed(seed)
        idx = torch.rand(tokens, total, generator=g).topk(topk, dim=1).indices
        slots = torch.arange(tokens * topk).view(tokens, topk)
        p2tt, p2e = [], []
        for e in range(local):
            s = slots[idx == e]  # row-major order: by token, then slot
            pad = (-s.numel()) % alignment
            p2tt += [s, torch.full((pad,), -1, dtype=torch.long)]
            p2e += [torch.full((s.numel(),), e, dtype=torch.long), torch.full((pad,), -1, dtype=torch.long)]
        p2tt, p2e = torch.cat(p2tt), torch.cat(p2e)
        row_token = torch.where(p2tt >= 0, p2tt // topk, torch.full_like(p2tt, -1))
        tt2p = torch.full((tokens * topk,), -1, dtype=torch.long)
        valid = p2tt >= 0
        tt2p[p2tt[valid]] = torch.arange(p2tt.numel())[valid]
        to = lambda v: v.to(torch.int32).contiguous().to(self.dev)
        return to(p2tt), to(p2e), to(row_token), to(tt2p.view(tokens, topk))

    def routed_ids(self, n, k, local, total):
        """moe.md 4.1's ids as tk's checks draw them (checks/moe_inputs.cpp):
        n rows of k distinct experts of `total`, ids of other ranks' experts
        (>= local) -1, only rows with a local id; (n, k) int64."""
        torch = self.torch
        keep = 1.0 - (1.0 - local / total) ** k
        rows = []
        need = n
        while need > 0:
            draw = int(need / keep * 1.2) + 64
            ids = torch.rand(draw, total, device=self.dev).topk(k, dim=1).indices
            ids = torch.where(ids < local, ids, torch.full_like(ids, -1))
            ids = ids[(ids >= 0).any(dim=1)][:need]
            rows.append(ids)
            need -= ids.shape[0]
        return torch.cat(rows).contiguous()

    def grouped_ids(self, n, k, e, g):
        """(n, k) int64: k distinct experts of e per row, as their groups of e / g (inplace_unique_group_indices rows)."""
        return self.torch.rand(n, e, device=self.dev).topk(k, dim=1).indices // (e // g)
