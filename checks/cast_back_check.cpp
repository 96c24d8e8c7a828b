//===- cast_back_check.cpp ------------------------------------------------===//
#include "checks/cast_back_check.h"
#include "checks/parallel_slices.h"
#include "kernels/quant/cast_back.h"

#include <cmath>
#include <cstring>
#include <random>

namespace tk::checks {

using kernels::quant::alignUp;
using kernels::quant::ceilDiv;

std::string describe(const CastBackCase &c) {
  return std::to_string(c.m) + "x" + std::to_string(c.k) + " block=" + std::to_string(c.blockM) + "x" +
         std::to_string(c.blockK) + (c.out == TK_BF16 ? " -> bf16" : " -> f32") + (c.sfColMajor ? " col" : "") +
         (c.powerOfTwoSf ? " pow2" : "") + (c.packedSf ? " ue8m0" : "") +
         (c.in == TK_FORMAT_E2M1 ? " from e2m1" : c.in == TK_FORMAT_E5M6 ? " from e5m6" : "");
}

CheckResult checkCastBack(GpuSession *gpu, tk_context ctx, const CastBackCase &c, bool time) {
  CheckResult r;
  const int64_t mb = ceilDiv(c.m, c.blockM), kb = ceilDiv(c.k, c.blockK), outElt = c.out == TK_BF16 ? 2 : 4;
  const int64_t sfRows = c.sfColMajor ? alignUp(mb, 4) : mb, sf0 = c.sfColMajor ? 1 : kb,
                sf1 = c.sfColMajor ? sfRows : 1;
  const bool fp4 = c.in == TK_FORMAT_E2M1, e5m6 = c.in == TK_FORMAT_E5M6;
  const int64_t xk = fp4 ? c.k / 2 : e5m6 ? c.k / 2 * 3 : c.k; // stored bytes per row
  std::vector<uint8_t> x(c.m * xk);
  std::vector<float> sf(std::max<int64_t>(1, sfRows * kb), 0.0f);
  // Rows in parallel, each from its own seeded stream: deterministic per case.
  const uint64_t seed = c.m * 7919 + c.k * 31 + c.blockM * 3 + c.blockK;
  parallelRows(c.m, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) {
      std::mt19937_64 rng(seed * 1000003u + i);
      if (e5m6) { // 12-bit codes without exponent 31 (Inf/NaN), packed 8 per 12 bytes
        std::vector<uint16_t> codes(c.k);
        for (uint16_t &code : codes) {
          code = (uint16_t)(rng() & 0xFFF);
          if (((code >> 6) & 0x1F) == 31)
            code &= ~0x40;
        }
        kernels::quant::packE5M6(codes.data(), c.k, &x[i * xk]);
        continue;
      }
      for (int64_t j = 0; j < xk; j += 8) {
        uint64_t v = rng();
        for (int64_t t = 0; t < 8; ++t) {
          uint8_t q = (uint8_t)(v >> (8 * t));
          x[i * xk + j + t] = fp4 || (q & 0x7F) != 0x7F ? q : q & 0xFE; // no e4m3 NaN codes
        }
      }
    }
  });
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> unit(0.5f, 1.0f);
  std::uniform_int_distribution<int> exponent(-30, 10);
  for (int64_t i = 0; i < mb; ++i)
    for (int64_t j = 0; j < kb; ++j)
      sf[i * sf0 + j * sf1] = std::ldexp(c.powerOfTwoSf || c.packedSf ? 1.0f : unit(rng), exponent(rng));
  // Packed: the same scale factors as exponent bytes, byte j % 4 of word (j / 4, i).
  const int64_t words = ceilDiv(kb, 4), wordStride = alignUp(mb, 4) + 4;
  std::vector<uint32_t> packed;
  if (c.packedSf)
    packed = packUe8m0(sf.data(), sf0, sf1, mb, kb, wordStride);
  std::vector<uint8_t> ref(c.m * c.k * outElt), got(c.m * c.k * outElt);
  const dsl::DType outType = c.out == TK_BF16 ? dsl::DType::BF16 : dsl::DType::F32;
  parallelRows(mb, [&](int64_t begin, int64_t end) { // whole scale-factor rows per worker
    int64_t r0 = begin * c.blockM, r1 = std::min(c.m, end * c.blockM);
    if (r1 > r0)
      kernels::quant::castBackReference(x.data() + r0 * xk, r1 - r0, c.k, c.blockM, c.blockK, sf.data() + begin * sf0,
                                        sf0, sf1, outType, ref.data() + r0 * c.k * outElt,
                                        fp4    ? kernels::quant::Format::E2M1
                                        : e5m6 ? kernels::quant::Format::E5M6
                                               : kernels::quant::Format::E4M3);
  });
  Placement p{gpu};
  void *dx = p.put(x.data(), x.size());
  void *dsf = c.packedSf ? p.put(packed.data(), packed.size() * 4) : p.put(sf.data(), sf.size() * 4);
  void *dout = p.poisoned(got.data(), got.size(), 0xEE); // every element must be written
  tk_tensor tx = p.tensor(dx, fp4 ? TK_I8 : e5m6 ? TK_U8 : TK_F8_E4M3, {c.m, xk});
  tk_tensor tsf = c.packedSf ? p.tensor(dsf, TK_I32, {mb, words}, {1, wordStride})
                             : p.tensor(dsf, TK_F32, {mb, kb}, {sf0, sf1});
  tk_tensor tout = p.tensor(dout, c.out, {c.m, c.k});
  const int32_t block[2] = {(int32_t)c.blockM, (int32_t)c.blockK};
  auto call = [&] { return tk_cast_back(ctx, &tx, &tsf, block, &tout, nullptr); };
  if (!r.called(call()))
    return r;
  p.get(got.data(), dout, got.size());
  for (size_t i = 0; i < got.size(); i += outElt)
    r.outMismatches += std::memcmp(&got[i], &ref[i], outElt) != 0;
  // quant.md 4.10: x (quantized) + its scale factors + out.
  r.bytes = (double)c.m * (xk + c.k * outElt) + (double)mb * kb * 4;
  if (gpu && time)
    r.ms = gpu->medianMs([&] { call(); }, 5, 50);
  return r;
}

} // namespace tk::checks
