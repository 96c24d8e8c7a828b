//===- capi_calls.cpp -----------------------------------------------------===//
#include "capi_calls.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

namespace tk::fuzz {

namespace {

tk_context sharedContext() {
  static tk_context ctx = [] {
    tk_context c = nullptr;
    if (tk_context_create(&c) != TK_SUCCESS) {
      std::fprintf(stderr, "capi_fuzzer: tk_context_create: %s\n", tk_last_error());
      std::abort();
    }
    return c;
  }();
  return ctx;
}

/// A context whose calls check their index tensors (TK_CHECK_INDICES).
tk_context checkedContext() {
  static tk_context ctx = [] {
    tk_context c = nullptr;
    if (tk_context_create(&c) != TK_SUCCESS || tk_set_input_checks(c, TK_CHECK_INDICES) != TK_SUCCESS) {
      std::fprintf(stderr, "capi_fuzzer: a checked context: %s\n", tk_last_error());
      std::abort();
    }
    return c;
  }();
  return ctx;
}

} // namespace

Call::Call(const uint8_t *data, size_t size) : in(data, size) {
  sizes = Sizes::draw(in);
  ctx = in.choose(64) == 63 ? nullptr : sharedContext();
}

tk_format Call::fmt() {
  static const tk_format formats[] = {TK_FORMAT_E4M3, TK_FORMAT_E4M3, TK_FORMAT_E2M1, TK_FORMAT_E5M6, (tk_format)9};
  return in.pick(formats);
}

int32_t Call::group(int32_t preferred) {
  static const int32_t groups[] = {0, 128, 32, 16, 64, 1, 0, -1, 7, 2147483647};
  switch (in.choose(12)) {
  case 0: return preferred;
  case 1: return (int32_t)sizes.k;
  case 2: return (int32_t)in.u32();
  default: return in.pick(groups);
  }
}

uint32_t Call::flags() { return in.choose(16) == 15 ? in.u32() : in.byte() & 7; }

const int32_t *Call::blockSize(int32_t m, int32_t k) {
  if (in.choose(16) == 15 || pairCount == 2)
    return nullptr;
  int32_t *p = pairs[pairCount++];
  p[0] = m, p[1] = k;
  if (in.choose(4) == 3) {
    static const int32_t sizes[] = {1, 128, 32, 64, 16, 0, -1, 2147483647};
    p[0] = in.pick(sizes), p[1] = in.pick(sizes);
  }
  return p;
}

const float *Call::scalar() {
  if (in.choose(2) == 0 || floatCount == 2)
    return nullptr;
  floats[floatCount] = in.f32();
  return &floats[floatCount++];
}

tk_tensor *Call::castOut(tk_format f) {
  if (f == TK_FORMAT_E2M1)
    return out(TK_I8, {m(), k() / 2});
  if (f == TK_FORMAT_E5M6)
    return out(TK_U8, {m(), k() / 2 * 3});
  return out(TK_F8_E4M3, {m(), k()});
}

static int64_t ceilDiv(int64_t a, int64_t b) { return b > 0 ? (a + b - 1) / b : 0; }

std::function<tk_status()> decode(Call &c, int &entry) {
  const int64_t m = c.m(), k = c.k();
  switch (entry = (int)c.in.choose(kNumEntryPoints)) {
  case 0:
  case 1: {
    const bool sfOnly = entry == 1;
    auto f = c.fmt();
    auto g = c.group(128);
    auto fl = c.flags();
    auto x = c.t(TK_BF16, {m, k});
    auto xsf = c.opt(TK_F32, {ceilDiv(m, 128), ceilDiv(k, 128)});
    auto xb = xsf ? c.blockSize(128, 128) : nullptr;
    auto out = sfOnly ? nullptr : c.castOut(f);
    auto sf = c.out(TK_F32, {m, ceilDiv(k, g)});
    if (sfOnly)
      return [=, ctx = c.ctx] { return tk_per_token_cast_with_sf_only(ctx, x, xsf, xb, f, g, fl, sf, nullptr); };
    return [=, ctx = c.ctx] { return tk_per_token_cast(ctx, x, xsf, xb, f, g, fl, out, sf, nullptr); };
  }
  case 2: {
    auto f = c.fmt();
    auto g = c.group(128);
    auto fl = c.flags();
    auto x = c.t(TK_BF16, {m, k});
    auto sf = c.t(TK_F32, {m, ceilDiv(k, g)});
    auto out = c.castOut(f);
    return [=, ctx = c.ctx] { return tk_per_token_cast_with_precomputed_sf(ctx, x, f, g, sf, fl, out, nullptr); };
  }
  case 3:
  case 4:
  case 5: {
    auto f = c.fmt();
    auto b = c.blockSize(128, 128);
    auto fl = c.flags();
    auto x = c.t(TK_F32, {m, k});
    const int64_t bm = b && b[0] > 0 ? b[0] : 128, bk = b && b[1] > 0 ? b[1] : 128;
    auto sf = c.t(TK_F32, {ceilDiv(m, bm), ceilDiv(k, bk)});
    auto out = entry == 4 ? nullptr : c.castOut(f);
    if (entry != 5)
      c.written(sf);
    if (entry == 3)
      return [=, ctx = c.ctx] { return tk_per_block_cast(ctx, x, f, b, fl, out, const_cast<tk_tensor *>(sf), nullptr); };
    if (entry == 4)
      return [=, ctx = c.ctx] { return tk_per_block_cast_with_sf_only(ctx, x, f, b, fl, const_cast<tk_tensor *>(sf), nullptr); };
    return [=, ctx = c.ctx] { return tk_per_block_cast_with_precomputed_sf(ctx, x, f, b, sf, fl, out, nullptr); };
  }
  case 6: {
    auto f = c.fmt();
    auto xb = c.blockSize(1, 32);
    auto ob = c.blockSize(1, 128);
    auto fl = c.flags();
    auto x = c.t(TK_I8, {m, k / 2});
    auto xsf = c.tensors.draw(c.in, c.sizes, {TK_F32, {m, ceilDiv(k, 32)}, Hint::Fill::PowersOfTwo});
    auto out = c.out(TK_F8_E4M3, {m, k});
    auto sf = c.out(TK_F32, {m, ceilDiv(k, 128)});
    return [=, ctx = c.ctx] { return tk_per_block_cast_lossless(ctx, x, xsf, xb, f, ob, fl, out, sf, nullptr); };
  }
  case 7:
  case 8:
  case 9: {
    auto f = c.fmt();
    auto b = c.group(128);
    auto fl = c.flags();
    auto x = c.t(TK_BF16, {m, k});
    const int64_t bb = b > 0 ? b : 128;
    if (entry == 7) {
      auto out = c.out(TK_F8_E4M3, {m, k});
      auto sf = c.out(TK_F32, {ceilDiv(m, bb), k});
      return [=, ctx = c.ctx] { return tk_per_channel_cast(ctx, x, f, b, fl, out, sf, nullptr); };
    }
    if (entry == 9) {
      auto out = c.out(TK_F8_E4M3, {k, m});
      auto sf = c.out(TK_F32, {ceilDiv(m, bb), k});
      return [=, ctx = c.ctx] { return tk_per_channel_cast_and_transpose(ctx, x, f, b, fl, out, sf, nullptr); };
    }
    auto g = c.group(0);
    auto xsf = c.opt(TK_F32, {m, ceilDiv(k, 128)});
    auto pos = c.opt(TK_I32, {m});
    auto out = c.out(TK_F8_E4M3, {m, k});
    auto sf = c.out(TK_F32, {ceilDiv(m, bb), k});
    return [=, ctx = c.ctx] { return tk_per_channel_cast_fused(ctx, x, xsf, f, b, fl, g, pos, out, sf, nullptr); };
  }
  case 10: {
    auto f = c.fmt();
    auto g = c.group(128);
    auto fl = c.flags();
    auto clamp = c.scalar();
    auto sfMin = c.scalar();
    auto x = c.t(TK_BF16, {m, 2 * k});
    auto pos = c.opt(TK_I32, {m});
    auto w = pos ? c.t(TK_F32, {m, 2}) : nullptr;
    auto experts = c.opt(TK_I32, {m});
    auto count = clamp ? c.outOpt(TK_I64, {3}) : nullptr;
    auto out = c.out(TK_F8_E4M3, {m, k});
    auto sf = c.out(TK_F32, {m, ceilDiv(k, g)});
    return [=, ctx = c.ctx] {
      return tk_swiglu_forward_and_per_token_cast(ctx, x, f, g, pos, w, experts, fl, clamp, count, sfMin, out, sf,
                                                  nullptr);
    };
  }
  case 11: {
    auto g = c.group(128);
    auto fl = c.flags();
    auto clamp = c.scalar();
    const int64_t tokens = std::max<int64_t>(1, m / 2), topk = 2;
    auto x = c.t(TK_F8_E4M3, {m, 2 * k});
    auto xsf = c.t(TK_F32, {m, ceilDiv(2 * k, g)});
    auto grad = c.t(TK_BF16, {m, k});
    auto w = c.t(TK_F32, {tokens, topk});
    auto pos = c.t(TK_I32, {m});
    auto inv = c.t(TK_I32, {tokens, topk});
    auto out = c.out(TK_BF16, {m, k});
    auto fp8 = c.out(TK_F8_E4M3, {m, 2 * k});
    auto sf = c.out(TK_F32, {m, ceilDiv(2 * k, g)});
    auto xg = c.out(TK_BF16, {m, 2 * k});
    auto wg = c.out(TK_F32, {tokens, topk});
    return [=, ctx = c.ctx] {
      return tk_swiglu_backward_and_per_token_cast(ctx, x, xsf, grad, w, pos, inv, g, fl, clamp, out, fp8, sf, xg,
                                                   wg, nullptr);
    };
  }
  case 12: {
    auto f = c.fmt();
    auto b = c.group(128);
    auto fl = c.flags();
    int32_t without = c.in.choose(8) == 7 ? (int32_t)c.in.u32() : (int32_t)c.in.choose(2);
    auto clamp = c.scalar();
    const int64_t bb = b > 0 ? b : 128;
    auto x = c.t(TK_BF16, {m, 2 * k});
    auto out = without ? c.out(TK_F8_E4M3, {m, k}) : c.out(TK_F8_E4M3, {k, m});
    auto sf = c.out(TK_F32, {ceilDiv(m, bb), k});
    return [=, ctx = c.ctx] {
      return tk_swiglu_forward_and_per_channel_cast_and_transpose(ctx, x, f, b, fl, without, clamp, out, sf, nullptr);
    };
  }
  case 13: {
    auto b = c.blockSize(1, 128);
    const int64_t bm = b && b[0] > 0 ? b[0] : 1, bk = b && b[1] > 0 ? b[1] : 128;
    auto x = c.t(TK_F8_E4M3, {m, k});
    auto xsf = c.t(TK_F32, {ceilDiv(m, bm), ceilDiv(k, bk)});
    auto out = c.out(TK_BF16, {m, k});
    return [=, ctx = c.ctx] { return tk_cast_back(ctx, x, xsf, b, out, nullptr); };
  }
  case 14: {
    auto x = c.t(TK_BF16, {m, k});
    auto out = c.out(TK_BF16, {k, m});
    return [=, ctx = c.ctx] { return tk_transpose(ctx, x, out, nullptr); };
  }
  case 15: {
    auto x = c.t(TK_F32, {2, m, k});
    auto out = c.out(TK_F32, {2, k, m});
    return [=, ctx = c.ctx] { return tk_batched_transpose(ctx, x, out, nullptr); };
  }
  case 16: {
    // scores (m, E = k), topk_idx (m, K): K most often 8, sometimes past E or 0.
    // Nothing else pins E: scores' last dimension is free.
    static const int32_t topks[] = {8, 8, 1, 0, 6, 2000, -1};
    const int32_t topk = c.in.pick(topks);
    c.freeLastDimension = 0;
    auto scores = c.t(TK_F32, {m, k});
    auto idx = c.out(TK_I64, {m, topk});
    return [=, ctx = c.ctx] { return tk_topk_gate(ctx, scores, topk, idx, nullptr); };
  }
  case 17: {
    // scores (m, G, epg) with G epg = k, group_idx (m, Kg): G most often 8.
    static const int64_t groupCounts[] = {8, 8, 4, 16, 3, 0};
    static const int32_t sums[] = {2, 2, 1, 0, 3};
    static const int32_t kgs[] = {4, 4, 2, 0, 9};
    const int64_t g = c.in.pick(groupCounts), epg = g > 0 ? std::max<int64_t>(1, k / g) : 1;
    const int32_t q = c.in.pick(sums), kg = c.in.pick(kgs);
    c.freeLastDimension = 0; // the experts per group: nothing else pins them
    auto scores = c.t(TK_F32, {m, g, epg});
    auto idx = c.out(TK_I64, {m, kg});
    return [=, ctx = c.ctx] { return tk_topk_sum_and_topk_group_idx(ctx, scores, q, kg, idx, nullptr); };
  }
  case 18: {
    // topk_weights (m, K), denominator (m), normalized (m, K): K = k % 16 + 1.
    const int64_t topk = k % 16 + 1;
    auto w = c.t(TK_F32, {m, topk});
    auto den = c.out(TK_F32, {m});
    auto out = c.out(TK_F32, {m, topk});
    return [=, ctx = c.ctx] { return tk_normalize_weight(ctx, w, den, out, nullptr); };
  }
  case 19: {
    // indices (m, K = k % 16 + 1) i64, n experts over ep ranks: mostly valid ranks.
    static const int64_t ns[] = {256, 256, 72, 0, -3, 1};
    static const int32_t eps[] = {8, 8, 1, 0, -1, 300};
    static const int32_t tps[] = {4, 2, 1, 0, 9};
    const int64_t topk = k % 16 + 1, n = c.in.pick(ns);
    static const int32_t ranks[] = {1, 0, 3, -1, 4};
    const int32_t ep = c.in.pick(eps), tp = c.in.pick(tps), rank = c.in.pick(ranks);
    auto ids = c.t(TK_I64, {m, topk});
    auto out = c.out(TK_I64, {m, topk});
    return [=, ctx = c.ctx] { return tk_mask_indices_by_tp(ctx, ids, n, ep, rank, tp, out, nullptr); };
  }
  case 20:
  case 21: {
    // ids (m, K = k % 16 + 1) i64 (random: any value, counted only in range); num_groups or E mostly 72.
    const bool aux = entry == 20;
    static const int32_t groups[] = {72, 72, 4096, 0, 4097, 1};
    static const int32_t auxTopks[] = {6, 6, 1, 0, -1};
    const int64_t topk = k % 16 + 1;
    const int32_t g = c.in.pick(groups), ka = aux ? c.in.pick(auxTopks) : 0;
    c.freeLastDimension = 0; // K: nothing else pins it
    auto ids = c.t(TK_I64, {m, topk});
    auto out = c.out(aux ? TK_F32 : TK_I32, {g > 0 ? g : 1});
    return [=, ctx = c.ctx] {
      return aux ? tk_aux_fi(ctx, ids, g, ka, out, nullptr) : tk_group_count(ctx, ids, g, out, nullptr);
    };
  }
  case 22: {
    // group_indices (m, K) i64 in place, K = 8 for the default k (256), else k % 16 + 1; num_groups mostly 8.
    static const int32_t groups[] = {8, 8, 128, 0, 129};
    const int64_t topk = k % 16 == 0 ? 8 : k % 16 + 1;
    const int32_t g = c.in.pick(groups);
    c.freeLastDimension = 0; // K: nothing else pins it
    auto ids = c.out(TK_I64, {m, topk});
    return [=, ctx = c.ctx] { return tk_inplace_unique_group_indices(ctx, ids, g, nullptr); };
  }
  case 23: {
    // x (m, k) bf16 into M = 2m positions, K = k % 8 + 1 slots; the positions are random: guarded writes.
    const int64_t topk = k % 8 + 1, positions = 2 * m;
    auto x = c.t(TK_BF16, {m, k});
    c.freeLastDimension = c.tensors.drawn(); // K: nothing else pins it
    auto pos = c.t(TK_I32, {m, topk});
    auto experts = c.t(TK_I32, {positions});
    auto out = c.out(TK_BF16, {positions, k});
    return [=, ctx = c.ctx] { return tk_expand_to_fused(ctx, x, pos, experts, out, nullptr); };
  }
  case 24: {
    // e4m3 x (m, k) with f32 row-major scale factors (C = 128 mostly), or packed ones wanting column-major.
    static const int32_t channels[] = {128, 128, 32, 64, 0};
    const int32_t ch = c.in.pick(channels);
    const bool packed = c.in.choose(4) == 3;
    const int64_t topk = k % 8 + 1, positions = 2 * m, blocks = ceilDiv(k, ch > 0 ? ch : 128),
                  hs = packed ? ceilDiv(blocks, 4) : blocks;
    const tk_dtype sfType = packed ? TK_I32 : TK_F32;
    auto x = c.t(TK_F8_E4M3, {m, k});
    auto sf = c.t(sfType, {m, hs});
    c.freeLastDimension = c.tensors.drawn(); // K: nothing else pins it
    auto pos = c.t(TK_I32, {m, topk});
    auto experts = c.t(TK_I32, {positions});
    auto out = c.out(TK_F8_E4M3, {positions, k});
    auto sfOut = c.out(sfType, {positions, hs});
    return [=, ctx = c.ctx] {
      return tk_expand_to_fused_with_sf(ctx, x, sf, ch, pos, experts, packed ? 1 : 0, out, sfOut, nullptr);
    };
  }
  case 25: {
    // x (M = 2m, k) bf16 or f32 rows gathered by random positions, optional weights, x_sf and sf.
    const int64_t topk = k % 8 + 1, positions = 2 * m;
    const bool f32 = c.in.choose(2) == 1, e4m3 = c.in.choose(2) == 1;
    auto x = c.t(f32 ? TK_F32 : TK_BF16, {positions, k});
    auto xSf = c.opt(TK_F32, {positions});
    auto w = c.opt(TK_F32, {m, topk});
    if (!w) // K: only the weights would pin it
      c.freeLastDimension = c.tensors.drawn();
    auto pos = c.t(TK_I32, {m, topk});
    auto sf = e4m3 ? c.opt(TK_F32, {1}) : nullptr;
    auto out = c.out(e4m3 ? TK_F8_E4M3 : (f32 ? TK_F32 : TK_BF16), {m, k});
    return [=, ctx = c.ctx] { return tk_reduce_fused(ctx, x, xSf, w, pos, sf, out, nullptr); };
  }
  case 27: {
    // logits (m, E) f32 of random bits (non-finite ones too) with E mostly 72, K mostly 6; any of the options.
    static const int64_t experts[] = {72, 72, 144, 16, 0};
    static const int32_t topks[] = {6, 6, 8, 0, 73};
    static const int32_t groups[] = {0, 0, 8, 4};
    static const int32_t scorings[] = {0, 1, 2, 3, 7};
    const int64_t e = c.in.pick(experts);
    const int32_t topk = c.in.pick(topks), g = c.in.pick(groups), kg = g ? g / 2 : 0;
    const tk_scoring scoring = (tk_scoring)c.in.pick(scorings);
    const bool shared = c.in.choose(4) == 0, padded = c.in.choose(2) == 1, fixed = c.in.choose(4) == 0;
    auto logits = c.t(TK_F32, {m, e});
    auto bias = c.t(TK_F32, {e});
    auto mask = padded ? c.t(TK_U8, {m}) : nullptr;
    auto fix = fixed ? c.t(TK_U8, {m}) : nullptr;
    if (shared) // the map's columns (X + 1): nothing else pins them
      c.freeLastDimension = c.tensors.drawn();
    auto map = shared ? c.t(TK_I32, {e + 1, 2}) : nullptr;
    auto count = shared ? c.t(TK_I32, {e + 1}) : nullptr;
    const int64_t k = topk > 0 ? topk : 1, p = k + (shared ? 1 : 0);
    auto unmapped = c.out(TK_I64, {m, k});
    auto ids = c.out(TK_I64, {m, p});
    auto weights = c.out(TK_F32, {m, p});
    return [=, ctx = c.ctx] {
      return tk_top2_sum_gate(ctx, logits, bias, topk, kg, g, shared ? 1 : 0, 1, 1.5f, 0, 4, 1, 2, scoring, mask, fix,
                              map, count, unmapped, ids, weights, nullptr);
    };
  }
  case 28: {
    // ids (m, N) i32 of random bits; N, Lh, E mostly the spec's (3, 2, 8); moduli of random bits (zero and negative
    // ones too), sometimes device-checked.
    static const int64_t ngrams[] = {3, 3, 2, 5, 1, 9};
    static const int64_t layers[] = {2, 2, 1, 3, 0, 17};
    static const int64_t tables[] = {8, 8, 1, 5, 0};
    const int64_t n = c.in.pick(ngrams), lh = c.in.pick(layers), e = c.in.pick(tables),
                  cols = n > 1 ? (n - 1) * e : e;
    const bool checked = c.in.choose(2) == 1;
    auto ids = c.t(TK_I32, {m, n});
    auto mult = c.t(TK_I64, {lh, n});
    auto vocab = c.t(TK_I32, {lh, n > 1 ? n - 1 : 1, e});
    auto offsets = c.t(TK_I32, {lh, cols});
    auto out = c.out(TK_I32, {lh, m, cols});
    return [=, ctx = checked && c.ctx ? checkedContext() : c.ctx] {
      return tk_engram_hash(ctx, ids, mult, vocab, offsets, out, nullptr);
    };
  }
  case 29: {
    // bf16 weights (m, k) of random bits into f32.
    auto wh = c.t(TK_BF16, {m, k});
    auto we = c.t(TK_BF16, {m, k});
    auto wf = c.out(TK_F32, {m, k});
    return [=, ctx = c.ctx] { return tk_engram_fused_weight(ctx, wh, we, wf, nullptr); };
  }
  case 30: {
    // The gate's forward: x, k (m, n, k) and v (m, k) bf16 of random bits, wf (n, k) f32; the statistics all,
    // none or some; eps and clamp mostly the spec's, sometimes random bits.
    static const int64_t streams[] = {4, 4, 1, 3, 0};
    const int64_t n = c.in.pick(streams);
    const int saved = c.in.choose(4); // 0, 1: all four; 2: none; 3: only dot
    const float eps = c.in.choose(4) == 3 ? c.in.f32() : 1e-20f, clampValue = c.in.choose(4) == 3 ? c.in.f32() : 1e-6f;
    auto x = c.t(TK_BF16, {m, n, k});
    auto key = c.t(TK_BF16, {m, n, k});
    auto v = c.t(TK_BF16, {m, k});
    auto wf = c.t(TK_F32, {n, k});
    auto out = c.out(TK_BF16, {m, n, k});
    tk_tensor *stats[4] = {};
    for (int i = 0; i < 4; ++i)
      stats[i] = saved < 2 || (saved == 3 && i == 0) ? c.out(TK_F32, {m, n}) : nullptr;
    return [=, ctx = c.ctx] {
      return tk_engram_gate_fwd(ctx, x, key, v, wf, eps, clampValue, out, stats[0], stats[1], stats[2], stats[3],
                                nullptr);
    };
  }
  case 31: {
    // Weight gradients: partial (m, n, k) f32 of random bits, bf16 weights, f32 gradients updated in place, now and
    // then one buffer for both.
    static const int64_t streams[] = {4, 4, 2, 0};
    const int64_t n = c.in.pick(streams);
    auto partial = c.t(TK_F32, {m, n, k});
    auto wh = c.t(TK_BF16, {n, k});
    auto we = c.t(TK_BF16, {n, k});
    auto gh = c.out(TK_F32, {n, k});
    auto ge = c.in.choose(8) == 7 ? gh : c.out(TK_F32, {n, k});
    return [=, ctx = c.ctx] { return tk_engram_grad_w_reduce(ctx, partial, wh, we, gh, ge, nullptr); };
  }
  case 32: {
    // The gate's backward: dout, x, k (m, n, k) and v (m, k) bf16 of random bits, wf (n, k) and the statistics (m,
    // n) f32 of random bits, partial rows P of 132, 1, 0 or m; clamp mostly the spec's, sometimes random bits.
    static const int64_t streams[] = {4, 4, 1, 3, 0, 17};
    const int64_t n = c.in.pick(streams);
    const int64_t blocks[] = {132, 1, 0, m};
    const int64_t p = blocks[c.in.choose(4)];
    const float clampValue = c.in.choose(4) == 3 ? c.in.f32() : 1e-6f;
    auto dout = c.t(TK_BF16, {m, n, k});
    auto x = c.t(TK_BF16, {m, n, k});
    auto key = c.t(TK_BF16, {m, n, k});
    auto v = c.t(TK_BF16, {m, k});
    auto wf = c.t(TK_F32, {n, k});
    const tk_tensor *stats[4];
    for (const tk_tensor *&st : stats)
      st = c.t(TK_F32, {m, n});
    auto gx = c.out(TK_BF16, {m, n, k});
    auto gk = c.out(TK_BF16, {m, n, k});
    auto gv = c.out(TK_BF16, {m, k});
    auto partial = c.out(TK_F32, {p, n, k});
    return [=, ctx = c.ctx] {
      return tk_engram_gate_bwd(ctx, dout, x, key, v, wf, stats[0], stats[1], stats[2], stats[3], clampValue, gx, gk,
                                gv, partial, nullptr);
    };
  }
  case 33:
  case 34: {
    // mHC expand (33) and its backward (34): (m, k) rows and (m, n, k) streams, bf16 of random bits; n past the
    // supported 8 and 0 now and then.
    static const int64_t streams[] = {4, 4, 2, 1, 9, 0};
    const int64_t n = c.in.pick(streams);
    if (entry == 33) {
      auto hidden = c.t(TK_BF16, {m, k});
      auto out = c.out(TK_BF16, {m, n, k});
      return [=, ctx = c.ctx] { return tk_expand_to_mhc_fwd(ctx, hidden, out, nullptr); };
    }
    auto dout = c.t(TK_BF16, {m, n, k});
    auto dh = c.out(TK_BF16, {m, k});
    return [=, ctx = c.ctx] { return tk_expand_to_mhc_bwd(ctx, dout, dh, nullptr); };
  }
  case 35:
  case 36: {
    // apply_mix (35) and its backward (36): x (m, n, k) bf16, mix (m, n) f32 of random bits; accumulate 0, 1 or
    // another value.
    static const int64_t streams[] = {4, 4, 3, 1, 9};
    static const int accumulates[] = {1, 0, 1, 2};
    const int64_t n = c.in.pick(streams);
    const int accumulate = c.in.pick(accumulates);
    if (entry == 35) {
      auto x = c.t(TK_BF16, {m, n, k});
      auto mix = c.t(TK_F32, {m, n});
      auto out = c.out(TK_BF16, {m, k});
      return [=, ctx = c.ctx] { return tk_mhc_pre_apply_mix_fwd(ctx, x, mix, out, nullptr); };
    }
    auto dout = c.t(TK_BF16, {m, k});
    auto x = c.t(TK_BF16, {m, n, k});
    auto mix = c.t(TK_F32, {m, n});
    auto dx = c.out(TK_BF16, {m, n, k});
    auto dmix = c.out(TK_F32, {m, n});
    return [=, ctx = c.ctx] { return tk_mhc_pre_apply_mix_bwd(ctx, dout, x, mix, accumulate, dx, dmix, nullptr); };
  }
  case 37:
  case 38: {
    // post (37) and its backward (38): x (m, k), residual (m, n, k) bf16, post (m, n), comb (m, n, n) f32, all
    // of random bits.
    static const int64_t streams[] = {4, 4, 2, 8, 9};
    const int64_t n = c.in.pick(streams);
    if (entry == 37) {
      auto x = c.t(TK_BF16, {m, k});
      auto res = c.t(TK_BF16, {m, n, k});
      auto post = c.t(TK_F32, {m, n});
      auto comb = c.t(TK_F32, {m, n, n});
      auto out = c.out(TK_BF16, {m, n, k});
      return [=, ctx = c.ctx] { return tk_mhc_post_fwd(ctx, x, res, post, comb, out, nullptr); };
    }
    auto dout = c.t(TK_BF16, {m, n, k});
    auto x = c.t(TK_BF16, {m, k});
    auto res = c.t(TK_BF16, {m, n, k});
    auto post = c.t(TK_F32, {m, n});
    auto comb = c.t(TK_F32, {m, n, n});
    auto dx = c.out(TK_BF16, {m, k});
    auto dres = c.out(TK_BF16, {m, n, k});
    auto dpost = c.out(TK_F32, {m, n});
    auto dcomb = c.out(TK_F32, {m, n, n});
    return [=, ctx = c.ctx] { return tk_mhc_post_bwd(ctx, dout, x, res, post, comb, dx, dres, dpost, dcomb, nullptr); };
  }
  case 39:
  case 40: {
    // Sinkhorn (39) and its backward (40): (m, n, n) f32 of random bits, n past the supported 16 now and then;
    // repeat mostly the spec's, sometimes 0, negative or past 64; eps mostly 1e-6, sometimes random bits.
    static const int64_t sizes[] = {4, 4, 8, 1, 17};
    static const int32_t repeats[] = {10, 10, 1, 3, 0, -2, 65};
    const int64_t n = c.in.pick(sizes);
    const int32_t repeat = c.in.pick(repeats);
    const float eps = c.in.choose(4) == 3 ? c.in.f32() : 1e-6f;
    if (entry == 39) {
      auto x = c.t(TK_F32, {m, n, n});
      auto out = c.out(TK_F32, {m, n, n});
      return [=, ctx = c.ctx] { return tk_sinkhorn_normalize_fwd(ctx, x, repeat, eps, out, nullptr); };
    }
    auto g = c.t(TK_F32, {m, n, n});
    auto x = c.t(TK_F32, {m, n, n});
    auto gx = c.out(TK_F32, {m, n, n});
    return [=, ctx = c.ctx] { return tk_sinkhorn_normalize_bwd(ctx, g, x, repeat, eps, gx, nullptr); };
  }
  case 41:
  case 42:
  case 43:
  case 44: {
    // split_mixes (41 fwd, 42 bwd) and head_compute_mix (43, 44): (m, n3) f32 logits of random bits, n mostly 4,
    // sometimes past the supported 8; the logits' columns sometimes one too many (the tensors' strides are drawn);
    // post_mult sometimes 0 (the backward's error) or random bits.
    static const int64_t sizes[] = {4, 4, 1, 3, 9};
    const int64_t n = c.in.pick(sizes);
    const bool split = entry < 43, backward = entry == 42 || entry == 44;
    const int64_t cols = (split ? 2 * n + n * n : n) + (c.in.choose(8) == 7 ? 1 : 0);
    const float p = c.in.choose(4) == 3 ? c.in.f32() : (c.in.choose(8) == 7 ? 0.0f : 2.0f);
    const float eps = c.in.choose(4) == 3 ? c.in.f32() : 1e-2f;
    auto u = c.t(TK_F32, {m, cols});
    auto scale = c.t(TK_F32, {split ? 3 : 1});
    auto base = c.t(TK_F32, {cols});
    if (!backward) {
      if (!split) {
        auto out = c.out(TK_F32, {m, n});
        return [=, ctx = c.ctx] { return tk_mhc_head_compute_mix_fwd(ctx, u, scale, base, eps, out, nullptr); };
      }
      auto pre = c.out(TK_F32, {m, n});
      auto post = c.out(TK_F32, {m, n});
      auto comb = c.out(TK_F32, {m, n, n});
      return [=, ctx = c.ctx] {
        return tk_mhc_pre_split_mixes_fwd(ctx, u, scale, base, p, eps, pre, post, comb, nullptr);
      };
    }
    auto gu = c.out(TK_F32, {m, cols});
    auto gs = c.out(TK_F32, {split ? 3 : 1});
    auto gb = c.out(TK_F32, {cols});
    if (!split) {
      auto g = c.t(TK_F32, {m, n});
      return [=, ctx = c.ctx] { return tk_mhc_head_compute_mix_bwd(ctx, g, u, scale, base, gu, gs, gb, nullptr); };
    }
    auto gpre = c.t(TK_F32, {m, n});
    auto gpost = c.t(TK_F32, {m, n});
    auto gcomb = c.t(TK_F32, {m, n, n});
    auto post = c.t(TK_F32, {m, n});
    return [=, ctx = c.ctx] {
      return tk_mhc_pre_split_mixes_bwd(ctx, gpre, gpost, gcomb, u, post, scale, base, p, gu, gs, gb, nullptr);
    };
  }
  case 45:
  case 46: {
    // mhc_pre_norm_fn (45) and its backward (46): residual (m, n, k) bf16 of random bits against fn (n3, n k),
    // n3 mostly 24, sometimes past the supported 32; the norm weight present or not; eps sometimes random bits.
    static const int64_t streams[] = {4, 4, 2, 1};
    static const int64_t mixes[] = {24, 24, 8, 33};
    const int64_t n = c.in.pick(streams), n3 = c.in.pick(mixes);
    const bool weighted = c.in.choose(2) == 1;
    const float eps = c.in.choose(4) == 3 ? c.in.f32() : 1e-6f;
    auto res = c.t(TK_BF16, {m, n, k});
    auto fn = c.t(TK_F32, {n3, n * k});
    auto w = weighted ? c.t(TK_F32, {n * k}) : nullptr;
    if (entry == 45) {
      auto mix = c.out(TK_F32, {m, n3});
      auto mul = c.in.choose(4) == 3 ? nullptr : c.out(TK_F32, {m, n3});
      auto ss = c.in.choose(4) == 3 ? nullptr : c.out(TK_F32, {m});
      return [=, ctx = c.ctx] { return tk_mhc_pre_norm_fn_fwd(ctx, res, fn, w, eps, mix, mul, ss, nullptr); };
    }
    const int accumulate = (int)c.in.choose(3) - (c.in.choose(8) == 7 ? 2 : 0);
    auto gmix = c.t(TK_F32, {m, n3});
    auto mul = c.t(TK_F32, {m, n3});
    auto ss = c.t(TK_F32, {m});
    auto gres = c.out(TK_BF16, {m, n, k});
    auto gfn = c.out(TK_F32, {n3, n * k});
    auto gw = weighted ? c.out(TK_F32, {n * k}) : nullptr;
    return [=, ctx = c.ctx] {
      return tk_mhc_pre_norm_fn_bwd(ctx, gmix, res, fn, w, mul, ss, eps, accumulate, gres, gfn, gw, nullptr);
    };
  }
  case 47: {
    // mhc_pre_big_fuse: residual (m, n, k) against fn (n3, n k), n3 mostly
    // 2n + n^2, sometimes not; repeat mostly 10, sometimes 0 or past 32; eps sometimes random bits.
    static const int64_t streams[] = {4, 4, 2, 1, 5};
    static const int32_t repeats[] = {10, 10, 1, 0, 33};
    const int64_t n = c.in.pick(streams), n3 = c.in.choose(8) == 7 ? 2 * n + n * n + 1 : 2 * n + n * n;
    const int32_t repeat = c.in.pick(repeats);
    const float eps = c.in.choose(4) == 3 ? c.in.f32() : 1e-6f;
    auto res = c.t(TK_BF16, {m, n, k});
    auto fn = c.t(TK_F32, {n3, n * k});
    auto scale = c.t(TK_F32, {3});
    auto base = c.t(TK_F32, {n3});
    auto post = c.out(TK_F32, {m, n});
    auto comb = c.out(TK_F32, {m, n, n});
    auto in = c.out(TK_BF16, {m, k});
    return [=, ctx = c.ctx] {
      return tk_mhc_pre_big_fuse(ctx, res, fn, scale, base, eps, eps, eps, 1.0f, repeat, post, comb, in, nullptr);
    };
  }
  case 48: {
    // mhc_multilayer_recompute: L of 1 to 3 or 11 (past one launch's 10), Lp = L or L - 1 (sometimes neither);
    // the lists are arrays of the drawn tensors, gathered when the call runs (so that a tensor made invalid
    // afterwards is what the call sees).
    // The kernel is compiled per (n, H, layers): H is k only now and then, and 11 layers (two launches) rare, so
    // that the short run's compiles stay few.
    static const int32_t layerCounts[] = {1, 2, 3, 1, 2, 3, 1, 11};
    const int32_t layers = c.in.pick(layerCounts);
    const int32_t posts = c.in.choose(8) == 7 ? layers + 1 : layers - (int32_t)c.in.choose(2);
    const int64_t n = c.in.choose(4) == 3 ? 2 : 4;
    const int64_t h = c.in.choose(8) == 7 ? k : 256;
    auto initial = c.t(TK_BF16, {m, n, h});
    std::vector<const tk_tensor *> pre, y, post, comb, in, res;
    for (int32_t l = 0; l < layers; ++l)
      pre.push_back(c.t(TK_F32, {m, n}));
    for (int32_t l = 0; l < posts; ++l) {
      y.push_back(c.t(TK_BF16, {m, h}));
      post.push_back(c.t(TK_F32, {m, n}));
      comb.push_back(c.t(TK_F32, {m, n, n}));
    }
    for (int32_t l = 0; l < layers; ++l)
      in.push_back(c.out(TK_BF16, {m, h}));
    for (int32_t l = 0; l < posts; ++l)
      res.push_back(c.out(TK_BF16, {m, n, h}));
    return [=, ctx = c.ctx] {
      auto gather = [](const std::vector<const tk_tensor *> &list) {
        std::vector<tk_tensor> a;
        for (const tk_tensor *t : list) // a tensor drawn as null: a zeroed descriptor, which the call refuses
          a.push_back(t ? *t : tk_tensor{});
        a.resize(a.size() + 1); // never empty: data() is a valid array
        return a;
      };
      std::vector<tk_tensor> a = gather(pre), b = gather(y), d = gather(post), e = gather(comb), f = gather(in),
                             g = gather(res);
      tk_status s = tk_mhc_multilayer_recompute(ctx, initial, layers, a.data(), posts, b.data(), d.data(), e.data(),
                                                f.data(), g.data(), nullptr);
      return s;
    };
  }
  default: { // 26
    // ids (m, K = k % 16 + 1) i64 (random: any value, placed only in [0, E)) into M positions: the bound, fewer,
    // none; the total read back or not.
    static const int32_t experts[] = {32, 32, 256, 1024, 0, 1025};
    static const int32_t alignments[] = {16, 128, 1, 0, -4};
    const int64_t topk = k % 16 + 1;
    const int32_t e = c.in.pick(experts), a = c.in.pick(alignments);
    const int64_t bound = std::max<int64_t>(0, tk_fused_mapping_max_positions(m, topk, e, a)),
                  positions = c.in.choose(3) == 0 ? m / 2 : bound;
    const bool readTotal = c.in.choose(2) == 1;
    c.freeLastDimension = 0; // K: nothing else pins it
    auto ids = c.t(TK_I64, {m, topk});
    auto toExpert = c.out(TK_I32, {positions});
    auto toToken = c.out(TK_I32, {positions});
    auto toSlot = c.out(TK_I32, {positions});
    auto toPos = c.out(TK_I32, {m, topk});
    const int64_t el = e > 0 ? e : 1;
    auto start = c.out(TK_I32, {el});
    auto end = c.out(TK_I32, {el});
    auto lengths = c.out(TK_I32, {el});
    return [=, ctx = c.ctx] {
      int64_t total = 0;
      return tk_get_fused_mapping(ctx, ids, e, a, toExpert, toToken, toSlot, toPos, start, end, lengths,
                                  readTotal ? &total : nullptr, nullptr);
    };
  }
  }
}

const char *entryName(int entry) {
  static const char *const names[kNumEntryPoints] = {"tk_per_token_cast",
                                                     "tk_per_token_cast_with_sf_only",
                                                     "tk_per_token_cast_with_precomputed_sf",
                                                     "tk_per_block_cast",
                                                     "tk_per_block_cast_with_sf_only",
                                                     "tk_per_block_cast_with_precomputed_sf",
                                                     "tk_per_block_cast_lossless",
                                                     "tk_per_channel_cast",
                                                     "tk_per_channel_cast_fused",
                                                     "tk_per_channel_cast_and_transpose",
                                                     "tk_swiglu_forward_and_per_token_cast",
                                                     "tk_swiglu_backward_and_per_token_cast",
                                                     "tk_swiglu_forward_and_per_channel_cast_and_transpose",
                                                     "tk_cast_back",
                                                     "tk_transpose",
                                                     "tk_batched_transpose",
                                                     "tk_topk_gate",
                                                     "tk_topk_sum_and_topk_group_idx",
                                                     "tk_normalize_weight",
                                                     "tk_mask_indices_by_tp",
                                                     "tk_aux_fi",
                                                     "tk_group_count",
                                                     "tk_inplace_unique_group_indices",
                                                     "tk_expand_to_fused",
                                                     "tk_expand_to_fused_with_sf",
                                                     "tk_reduce_fused",
                                                     "tk_get_fused_mapping",
                                                     "tk_top2_sum_gate",
                                                     "tk_engram_hash",
                                                     "tk_engram_fused_weight",
                                                     "tk_engram_gate_fwd",
                                                     "tk_engram_grad_w_reduce",
                                                     "tk_engram_gate_bwd",
                                                     "tk_expand_to_mhc_fwd",
                                                     "tk_expand_to_mhc_bwd",
                                                     "tk_mhc_pre_apply_mix_fwd",
                                                     "tk_mhc_pre_apply_mix_bwd",
                                                     "tk_mhc_post_fwd",
                                                     "tk_mhc_post_bwd",
                                                     "tk_sinkhorn_normalize_fwd",
                                                     "tk_sinkhorn_normalize_bwd",
                                                     "tk_mhc_pre_split_mixes_fwd",
                                                     "tk_mhc_pre_split_mixes_bwd",
                                                     "tk_mhc_head_compute_mix_fwd",
                                                     "tk_mhc_head_compute_mix_bwd",
                                                     "tk_mhc_pre_norm_fn_fwd",
                                                     "tk_mhc_pre_norm_fn_bwd",
                                                     "tk_mhc_pre_big_fuse",
                                                     "tk_mhc_multilayer_recompute"};
  return entry >= 0 && entry < kNumEntryPoints ? names[entry] : "?";
}

} // namespace tk::fuzz
