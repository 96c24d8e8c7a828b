"""MoE routing operators against NumPy references."""

import unittest

import numpy as np

from common import BF16, E4M3, F32, bits, rng, tk_kernels

moe = tk_kernels.moe


def stable_topk(scores, k):
    return np.argsort(-np.asarray(scores, np.float64), axis=1, kind='stable')[:, :k].astype(np.int64)


def routing(n, k, e, seed):
    """topk_idx (n, k): distinct ids per row in [0, e) or -1."""
    r = rng(seed)
    idx = np.argsort(r.random((n, e)), axis=1)[:, :k]
    idx[r.random((n, k)) < 0.2] = -1
    return idx.astype(np.int64)


def fused_mapping_ref(topk_idx, e, a):
    n, k = topk_idx.shape
    flat = topk_idx.reshape(-1)
    counts = np.array([(flat == x).sum() for x in range(e)], np.int64)
    sizes = -(-counts // a) * a
    start = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int64)
    m = int(sizes.sum())
    pos_to_expert, pos_to_token, pos_to_token_topk = (np.full(m, -1, np.int32) for _ in range(3))
    token_topk_to_pos = np.full(n * k, -1, np.int32)
    cursor = start.copy()
    for f, x in enumerate(flat):  # the canonical order: ascending flat index within each expert
        if 0 <= x < e:
            p = cursor[x]
            cursor[x] += 1
            pos_to_expert[p], pos_to_token[p], pos_to_token_topk[p], token_topk_to_pos[f] = x, f // k, f, p
    return (pos_to_expert, pos_to_token, pos_to_token_topk, token_topk_to_pos.reshape(n, k),
            start.astype(np.int32), (start + sizes).astype(np.int32), sizes.astype(np.int32))


class GateTest(unittest.TestCase):
    def test_topk_gate_ties_go_to_the_lower_index(self):
        scores = rng(1).integers(0, 4, (50, 72)).astype(F32)  # many ties
        np.testing.assert_array_equal(moe.topk_gate(scores, 6), stable_topk(scores, 6))

    def test_topk_sum_and_topk_group_idx(self):
        scores = rng(2).standard_normal((40, 8, 9)).astype(F32)
        top = -np.sort(-scores, axis=2)
        for q in (1, 2):
            group = top[:, :, 0] if q == 1 else top[:, :, 0] + top[:, :, 1]
            got = moe.topk_sum_and_topk_group_idx(scores, q, 4)
            np.testing.assert_array_equal(got, stable_topk(group, 4))

    def test_top2_sum_gate_sigmoid(self):
        r = rng(3)
        n, e, k = 30, 64, 6
        logits = r.standard_normal((n, e)).astype(F32)
        bias = (r.standard_normal(e) * 0.1).astype(F32)
        mask = np.ones(n, bool)
        mask[-3:] = False  # padding rows
        unmapped = np.zeros((n, k), np.int64)
        idx, w = moe.top2_sum_gate(logits, bias, k, 0, 0, False, 0, 1.5, 0, 1, 0, 1, 'sigmoid', mask=mask,
                                   unmapped_topk_idx=unmapped)
        self.assertEqual((idx.shape, w.shape, idx.dtype, w.dtype), ((n, k), (n, k), np.int64, F32))
        u = F32(1) / (F32(1) + np.exp(-logits))
        ref = stable_topk(u + bias, k)
        np.testing.assert_array_equal(idx[:-3], ref[:-3])
        np.testing.assert_array_equal(unmapped[:-3], ref[:-3])
        self.assertTrue((idx[-3:] == -1).all() and (w[-3:] == 0).all() and (unmapped[-3:] == -1).all())
        chosen = np.take_along_axis(u, ref, 1)
        np.testing.assert_allclose(w[:-3], (chosen / (1e-20 + chosen.sum(1, keepdims=True)) * 1.5)[:-3], rtol=1e-5)

    def test_top2_sum_gate_groups_and_tp_masking(self):
        r = rng(4)
        logits = r.standard_normal((20, 64)).astype(F32)
        bias = np.zeros(64, F32)
        idx, _ = moe.top2_sum_gate(logits, bias, 4, 2, 8, False, 0, 1.0, 0, 8, 1, 2, moe.ScoringFunc.SOFTMAX)
        keys = logits.reshape(20, 8, 8)
        top = -np.sort(-keys, axis=2)
        groups = stable_topk(top[:, :, 0] + top[:, :, 1], 2)
        allowed = np.full((20, 64), -np.inf)
        for t in range(20):
            for g in groups[t]:
                allowed[t, g * 8:(g + 1) * 8] = logits[t, g * 8:(g + 1) * 8]
        chosen = stable_topk(allowed, 4)
        owner = chosen // 8  # R = 64 / 8 experts per EP rank, 2 TP ranks, this is rank 1
        local = np.where(owner % 2 == 1, (owner // 2) * 8 + chosen % 8, -1)
        np.testing.assert_array_equal(idx, local)

    def test_bad_scoring_and_topk(self):
        logits, bias = np.zeros((4, 16), F32), np.zeros(16, F32)
        with self.assertRaisesRegex(tk_kernels.TkInvalidArgumentError, 'bogus is not a valid ScoringFunc'):
            moe.top2_sum_gate(logits, bias, 2, 0, 0, False, 0, 1.0, 0, 1, 0, 1, 'bogus')
        with self.assertRaisesRegex(tk_kernels.TkInvalidArgumentError, 'tk_topk_gate'):
            moe.topk_gate(logits, 17)


class IndexOpsTest(unittest.TestCase):
    def test_normalize_weight_is_sequential(self):
        w = rng(5).random((33, 6)).astype(F32)
        d = np.full(33, F32(1e-20), F32)
        for k in range(6):
            d = (d + w[:, k]).astype(F32)
        den, norm = moe.normalize_weight(w)
        np.testing.assert_array_equal(bits(den), bits(d))
        np.testing.assert_array_equal(bits(norm), bits((w / d[:, None]).astype(F32)))

    def test_mask_indices_by_tp(self):
        ids = rng(6).integers(-1, 64, (17, 5))
        for dtype in (np.int64, np.int32):
            got = moe.mask_indices_by_tp(ids.astype(dtype), 64, 8, 1, 2)
            owner = ids // 8
            ref = np.where((ids >= 0) & (owner % 2 == 1), (owner // 2) * 8 + ids % 8, -1)
            self.assertEqual(got.dtype, dtype)
            np.testing.assert_array_equal(got, ref)

    def test_counts_and_fi(self):
        ids = routing(200, 4, 9, seed=7)
        counts = np.array([(ids == e).sum() for e in range(9)])
        np.testing.assert_array_equal(moe.group_count(ids, 9), counts.astype(np.int32))
        fi = moe.aux_fi(ids, 9, 4)
        np.testing.assert_array_equal(fi, (counts * 9).astype(F32) / F32(200 * 4))

    def test_inplace_unique_group_indices(self):
        g = rng(8).integers(-1, 6, (40, 8)).astype(np.int64)
        ref = g.copy()
        for row in ref:
            seen = set()
            for j, v in enumerate(row):
                if v >= 0 and v in seen:
                    row[j] = -1
                seen.add(v)
        self.assertIsNone(moe.inplace_unique_group_indices(g, 6))
        np.testing.assert_array_equal(g, ref)

    def test_input_checks_name_the_bad_element(self):
        ids = routing(10, 2, 8, seed=9)
        ids[3, 1] = 300
        tk_kernels.set_input_checks(indices=True)
        try:
            with self.assertRaisesRegex(tk_kernels.TkInvalidArgumentError, r'topk_idx\[3, 1\] = 300'):
                moe.aux_fi(ids, 8, 2)
        finally:
            tk_kernels.set_input_checks()


class FusedLayoutTest(unittest.TestCase):
    def test_get_fused_mapping_auto_size(self):
        ids = routing(100, 6, 9, seed=10)
        got = moe.get_fused_mapping(ids, 9, 0, 16)
        ref = fused_mapping_ref(ids, 9, 16)
        for a, b in zip(got[:7], ref):
            np.testing.assert_array_equal(a, b)
        self.assertEqual(got[7], ref[6].tolist())

    def test_get_fused_mapping_given_size(self):
        ids = routing(50, 2, 4, seed=11)
        ref = fused_mapping_ref(ids, 4, 8)
        m = len(ref[0]) + 24
        got = moe.get_fused_mapping(ids, 4, m, 8)
        self.assertEqual((len(got[0]), got[7]), (m, []))
        np.testing.assert_array_equal(got[0][:len(ref[0])], ref[0])
        self.assertTrue((got[0][len(ref[0]):] == -1).all())
        with self.assertRaisesRegex(tk_kernels.TkInvalidArgumentError, 'tk_get_fused_mapping'):
            moe.get_fused_mapping(ids, 4, 64, 0)  # alignment must be at least 1

    def test_expand_and_reduce(self):
        ids = routing(30, 4, 5, seed=12)
        p2e, p2t, _, t2p, *_ = moe.get_fused_mapping(ids, 5, 0, 4)
        x = rng(13).standard_normal((30, 256)).astype(BF16)
        expanded = moe.expand_to_fused(x, t2p, p2e)
        ref = np.where((p2t >= 0)[:, None], x[np.maximum(p2t, 0)], BF16(0))
        np.testing.assert_array_equal(bits(expanded), bits(ref))
        y = rng(14).standard_normal(expanded.shape).astype(F32)
        weights = (2.0 ** rng(15).integers(-2, 3, (30, 4))).astype(F32)  # powers of two: fma == add, exactly
        acc = np.zeros((30, 256), F32)
        for k in range(4):
            p = t2p[:, k]
            acc = (acc + np.where((p >= 0)[:, None], y[np.maximum(p, 0)] * weights[:, k:k + 1], F32(0))).astype(F32)
        np.testing.assert_array_equal(bits(moe.reduce_fused(y, weights, t2p)), bits(acc))
        sf = np.array([0.5], F32)
        out8 = moe.reduce_fused(y, weights, t2p, 'e4m3', sf=sf)
        np.testing.assert_array_equal(bits(out8), bits(np.clip(acc * sf[0], -448, 448).astype(E4M3)))
        with self.assertRaisesRegex(tk_kernels.TkInvalidArgumentError, 'tk_reduce_fused'):
            moe.reduce_fused(y, weights, t2p, sf=sf)  # a global scale needs an e4m3 output
        given = np.full((30, 256), np.nan, F32)
        self.assertIs(moe.reduce_fused(y, weights, t2p, out=given), given)
        np.testing.assert_array_equal(bits(given), bits(acc))
        with self.assertRaisesRegex(tk_kernels.TkInvalidArgumentError, "out's dtype does not match"):
            moe.reduce_fused(y, weights, t2p, 'e4m3', sf=sf, out=given)
        # A required tensor given as None is tk's error, not Python's AttributeError.
        with self.assertRaisesRegex(tk_kernels.TkInvalidArgumentError, 'token_topk_to_pos is required, got None'):
            moe.reduce_fused(y, weights, None)
        with self.assertRaisesRegex(tk_kernels.TkInvalidArgumentError, 'pos_to_expert is required, got None'):
            moe.expand_to_fused(x, t2p, None)

    def test_expand_with_sf_layouts(self):
        ids = routing(20, 2, 3, seed=16)
        p2e, p2t, _, t2p, *_ = moe.get_fused_mapping(ids, 3, 0, 8)
        data = rng(17).integers(-100, 100, (20, 256)).astype(np.int8).view(E4M3)
        sf = rng(18).random((20, 2)).astype(F32)
        out, out_sf = moe.expand_to_fused_with_sf((data, sf), 128, t2p, p2e, use_tma_aligned_col_major_sf=True)
        m = len(p2e)
        self.assertEqual((out_sf.shape, tuple(s // 4 for s in out_sf.strides)), ((m, 2), (1, -(-m // 4) * 4)))
        ref_sf = np.where((p2t >= 0)[:, None], sf[np.maximum(p2t, 0)], F32(0))
        np.testing.assert_array_equal(bits(out_sf), bits(ref_sf))
        np.testing.assert_array_equal(bits(out), bits(np.where((p2t >= 0)[:, None], data[np.maximum(p2t, 0)],
                                                               E4M3(0))))


if __name__ == '__main__':
    unittest.main()
