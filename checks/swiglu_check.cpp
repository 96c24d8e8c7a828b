//===- swiglu_check.cpp ---------------------------------------------------===//
#include "checks/swiglu_check.h"
#include "checks/parallel_slices.h"
#include "kernels/quant/swiglu_per_token_cast.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>
#include <mutex>
#include <random>

namespace tk::checks {

using kernels::quant::alignUp;
using kernels::quant::bits;
using kernels::quant::ceilDiv;

MoeRouting makeMoeRouting(int64_t tokens, int64_t topk, int64_t totalExperts, int64_t localExperts,
                          int64_t alignment, uint64_t seed) {
  MoeRouting r;
  r.tokens = tokens, r.topk = topk;
  std::mt19937_64 rng(seed);
  std::vector<std::vector<int32_t>> perExpert(localExperts); // t * topk + slot
  std::vector<int32_t> experts(totalExperts);
  for (int64_t t = 0; t < tokens; ++t) {
    std::iota(experts.begin(), experts.end(), 0);
    for (int64_t s = 0; s < topk; ++s) { // topk distinct experts, partial Fisher-Yates
      std::swap(experts[s], experts[s + rng() % (totalExperts - s)]);
      if (experts[s] < localExperts)
        perExpert[experts[s]].push_back((int32_t)(t * topk + s));
    }
  }
  for (int64_t e = 0; e < localExperts; ++e) {
    const auto &slots = perExpert[e];
    for (int32_t slot : slots) {
      r.posToTokenTopk.push_back(slot);
      r.posToExpert.push_back((int32_t)e);
      r.rowToken.push_back(slot / (int32_t)topk);
    }
    for (int64_t i = (int64_t)slots.size(); i < alignUp((int64_t)slots.size(), alignment); ++i) {
      r.posToTokenTopk.push_back(-1);
      r.posToExpert.push_back(-1);
      r.rowToken.push_back(-1);
    }
  }
  r.rows = (int64_t)r.posToExpert.size();
  return r;
}

MoeShape specMoeShape(int i) {
  static const int64_t topks[] = {2, 6, 8, 9}, experts[][2] = {{72, 9}, {256, 32}, {256, 4}};
  return {topks[i % 4], experts[i % 3][0], experts[i % 3][1]};
}

std::vector<SwigluCastCase> swigluCastGrid(const std::vector<int64_t> &hs,
                                           const std::vector<std::optional<float>> &clamps, bool packedWithWeights) {
  std::vector<SwigluCastCase> cases;
  for (int64_t h : hs)
    for (int64_t g : {int64_t(128), h})
      for (uint32_t flags : {uint32_t(TK_ROUND_SF), uint32_t(TK_SF_COL_MAJOR | TK_ROUND_SF | TK_PACKED_UE8M0)})
        for (bool routed : {false, true})
          for (std::optional<float> clamp : clamps) {
            if (((flags & TK_SF_COL_MAJOR) && g != 128) || ((flags & TK_PACKED_UE8M0) && routed && !packedWithWeights))
              continue;
            SwigluCastCase c{h, g};
            c.flags = flags;
            c.weights = c.experts = routed;
            c.clamp = clamp;
            c.count = clamp.has_value();
            cases.push_back(c);
          }
  return cases;
}

std::string describe(const SwigluCastCase &c) {
  std::string routing = c.plainRows ? std::to_string(c.plainRows) + "rows"
                                    : "T" + std::to_string(c.tokens) + "k" + std::to_string(c.topk) + "e" +
                                          std::to_string(c.localExperts) + "/" + std::to_string(c.totalExperts);
  return routing + "xH" + std::to_string(c.h) + " g=" + std::to_string(c.group) + (c.in == TK_BF16 ? " bf16" : " f32") +
         ((c.flags & TK_SF_COL_MAJOR) ? " col" : "") + ((c.flags & TK_ROUND_SF) ? " round" : "") +
         ((c.flags & TK_PACKED_UE8M0) ? " ue8m0" : "") + (c.weights ? " weights" : "") +
         (c.experts ? " experts" : "") + (c.clamp ? " clamp=" + std::to_string(*c.clamp) : "") +
         (c.count ? " count" : "") + (c.sfClampMin ? " sfclamp=" + std::to_string(*c.sfClampMin) : "");
}

CheckResult checkSwigluPerTokenCast(GpuSession *gpu, tk_context ctx, const SwigluCastCase &c, bool time,
                                    const ExpTable *deviceExp) {
  CheckResult r;
  const int64_t h = c.h, elt = c.in == TK_BF16 ? 2 : 4;
  // The routing and the expanded input.
  MoeRouting routing;
  if (c.plainRows) {
    routing.tokens = c.plainRows, routing.topk = 1, routing.rows = c.plainRows;
    routing.posToTokenTopk.resize(c.plainRows);
    std::iota(routing.posToTokenTopk.begin(), routing.posToTokenTopk.end(), 0);
    routing.posToExpert.assign(c.plainRows, 0);
    routing.rowToken = routing.posToTokenTopk;
  } else {
    routing = makeMoeRouting(c.tokens, c.topk, c.totalExperts, c.localExperts, c.alignment, c.seed);
  }
  const int64_t n = routing.rows;
  std::vector<uint8_t> tokensX = makeInput(PerTokenCastCase{routing.tokens, 2 * h, 128, c.in, 0, 0, c.seed});
  std::vector<uint8_t> x(n * 2 * h * elt, 0);
  // Padding rows hold a token's values too (not zeros), so that skipping
  // them (pos_to_expert < 0: not counted) shows in the clamp counts.
  parallelRows(n, [&](int64_t begin, int64_t end) {
    for (int64_t p = begin; p < end; ++p) {
      const int64_t t = routing.rowToken[p] >= 0 ? routing.rowToken[p] : p % routing.tokens;
      std::memcpy(&x[p * 2 * h * elt], &tokensX[t * 2 * h * elt], 2 * h * elt);
    }
  });
  std::vector<float> weights(std::max<int64_t>(1, routing.tokens * routing.topk));
  std::mt19937 rng((uint32_t)c.seed);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  for (float &w : weights)
    w = normal(rng);

  kernels::quant::SwigluPerTokenCastConfig config;
  config.hidden = h, config.group = c.group;
  config.in = c.in == TK_BF16 ? dsl::DType::BF16 : dsl::DType::F32;
  config.roundSf = c.flags & TK_ROUND_SF;
  config.clamp = c.clamp;
  if (c.sfClampMin)
    config.sfClampBits = bits(*c.sfClampMin);
  const int64_t kb = ceilDiv(h, c.group);
  const bool col = c.flags & TK_SF_COL_MAJOR, packed = c.flags & TK_PACKED_UE8M0;
  const int64_t sfRows = col ? alignUp(n, 4) : n, sf0 = col ? 1 : kb, sf1 = col ? sfRows : 1;

  // The reference's exponential: the C library's, a shared bf16 table, or
  // a table of this case's arguments computed on the GPU.
  std::optional<ExpTable> ownTable;
  kernels::quant::ExpFunction expf = hostExpf;
  if (gpu) {
    if (!deviceExp || c.in != TK_BF16) {
      std::vector<float> args;
      for (int64_t p = 0; p < n; ++p)
        for (int64_t j = 0; j < h; ++j) {
          float l;
          if (c.in == TK_BF16)
            l = kernels::quant::bf16ToF32(reinterpret_cast<const uint16_t *>(x.data())[p * 2 * h + j]);
          else
            std::memcpy(&l, &x[(p * 2 * h + j) * 4], 4);
          args.push_back(-(c.clamp ? std::fmin(l, *c.clamp) : l));
        }
      try {
        ownTable.emplace(deviceExpTable(*gpu, args));
      } catch (const std::exception &e) {
        r.status = TK_ERROR_UNSUPPORTED;
        r.error = std::string("no device expf: ") + e.what();
        return r;
      }
      deviceExp = &*ownTable;
    }
    expf = std::cref(*deviceExp);
  }
  std::vector<uint8_t> refOut(n * h, 0), out(n * h);
  std::vector<float> refSf(std::max<int64_t>(1, kb * sfRows), 0.0f);
  const int64_t sfWords = packed ? ceilDiv(kb, 4) * sfRows : kb * sfRows;
  std::vector<float> sf(std::max<int64_t>(1, sfWords), 0.0f);
  kernels::quant::SwigluRows rows{x.data()};
  if (c.weights) {
    rows.posToTokenTopk = routing.posToTokenTopk.data();
    rows.weights = weights.data();
    rows.numWeights = (int64_t)weights.size();
  }
  if (c.experts)
    rows.posToExpert = routing.posToExpert.data();
  const int64_t initialCounts[3] = {5, 7, 11};
  int64_t refCounts[3] = {initialCounts[0], initialCounts[1], initialCounts[2]};
  std::mutex countsMutex;
  parallelRows(n, [&](int64_t begin, int64_t end) {
    int64_t local[3] = {0, 0, 0};
    kernels::quant::swigluPerTokenCastReference(rows, config, expf, begin, end, refOut.data(), refSf.data(), sf0, sf1,
                                                c.count ? local : nullptr);
    std::lock_guard<std::mutex> lock(countsMutex);
    for (int i = 0; i < 3; ++i)
      refCounts[i] += local[i];
  });

  Placement p{gpu};
  void *dx = p.put(x.data(), x.size());
  void *dTopk = c.weights ? p.put(routing.posToTokenTopk.data(), n * 4) : nullptr;
  void *dWeights = c.weights ? p.put(weights.data(), weights.size() * 4) : nullptr;
  void *dExpert = c.experts ? p.put(routing.posToExpert.data(), n * 4) : nullptr;
  int64_t counts[3] = {initialCounts[0], initialCounts[1], initialCounts[2]};
  void *dCounts = c.count ? p.put(counts, sizeof counts) : nullptr;
  void *dout = p.poisoned(out.data(), out.size(), 0xFF), *dsf = p.poisoned(sf.data(), sf.size() * 4, 0xFF);
  tk_tensor tx = p.tensor(dx, c.in, {n, 2 * h});
  tk_tensor tTopk = p.tensor(dTopk, TK_I32, {n}), tExpert = p.tensor(dExpert, TK_I32, {n});
  tk_tensor tWeights = p.tensor(dWeights, TK_F32, {routing.tokens, routing.topk});
  tk_tensor tCounts = p.tensor(dCounts, TK_I64, {3});
  tk_tensor tout = p.tensor(dout, TK_F8_E4M3, {n, h});
  tk_tensor tsf = packed ? p.tensor(dsf, TK_I32, {n, ceilDiv(kb, 4)}, {1, sfRows}) : p.tensor(dsf, TK_F32, {n, kb}, {sf0, sf1});
  const float clampValue = c.clamp.value_or(0.0f), sfClamp = c.sfClampMin.value_or(0.0f);
  auto call = [&] {
    return tk_swiglu_forward_and_per_token_cast(ctx, &tx, TK_FORMAT_E4M3, (int32_t)c.group, c.weights ? &tTopk : nullptr,
                                                c.weights ? &tWeights : nullptr, c.experts ? &tExpert : nullptr,
                                                c.flags, c.clamp ? &clampValue : nullptr, c.count ? &tCounts : nullptr,
                                                c.sfClampMin ? &sfClamp : nullptr, &tout, &tsf, nullptr);
  };
  if (!r.called(call()))
    return r;
  p.get(out.data(), dout, out.size());
  p.get(sf.data(), dsf, sf.size() * 4);
  if (c.count)
    p.get(counts, dCounts, sizeof counts);
  // Rows without an expert (padding) are not compared (quant.md 4.16).
  for (int64_t i = 0; i < n; ++i) {
    if (routing.posToExpert[i] < 0)
      continue;
    for (int64_t j = 0; j < h; ++j)
      r.outMismatches += out[i * h + j] != refOut[i * h + j];
    for (int64_t k = 0; k < kb; ++k) {
      const int64_t at = i * sf0 + k * sf1;
      if (packed)
        r.sfMismatches += ue8m0Byte(sf.data(), sfRows, i, k) != (uint8_t)(bits(refSf[at]) >> 23);
      else
        r.sfMismatches += std::memcmp(&sf[at], &refSf[at], 4) != 0;
    }
  }
  for (int i = 0; i < 3 && c.count; ++i)
    r.countMismatches += counts[i] != refCounts[i];
  // quant.md 4.16: x + out + SF, + 4 B per row for each index given.
  r.bytes = (double)n * 2 * h * elt + (double)n * h + (double)n * kb * (packed ? 1 : 4) +
            (double)n * 4 * ((c.weights ? 2 : 0) + (c.experts ? 1 : 0));
  if (gpu && time)
    r.ms = gpu->medianMs([&] { call(); }, 5, 50);
  return r;
}

} // namespace tk::checks
