//===- lossless_check.cpp -------------------------------------------------===//
#include "checks/lossless_check.h"
#include "checks/parallel_slices.h"
#include "kernels/quant/per_block_cast_lossless.h"

#include <cstring>
#include <mutex>
#include <random>

namespace tk::checks {

using namespace kernels::quant;

std::string describe(const LosslessCase &c) {
  return std::to_string(c.m) + "x" + std::to_string(c.k) + " " + std::to_string(c.bIn) + "x" + std::to_string(c.gIn) +
         (c.inPacked ? " ue8m0" : "") + " -> " + std::to_string(c.bOut) + "x" + std::to_string(c.gOut) +
         (c.outPacked ? " ue8m0" : "") + (c.outOfRange ? " out-of-range" : "") +
         (c.badScale != 0.0f || c.badScale != c.badScale ? " scale=" + std::to_string(c.badScale) : "");
}

CheckResult checkPerBlockLossless(GpuSession *gpu, tk_context ctx, const LosslessCase &c, bool time) {
  CheckResult r;
  const int64_t mbIn = ceilDiv(c.m, c.bIn), kbIn = ceilDiv(c.k, c.gIn);
  const int64_t mbOut = ceilDiv(c.m, c.bOut), kbOut = ceilDiv(c.k, c.gOut);
  std::vector<uint8_t> x(c.m * c.k / 2);
  parallelRows(c.m, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) {
      std::mt19937_64 rng(c.seed * 1000003u + i);
      for (int64_t j = 0; j < c.k / 2; j += 8) {
        uint64_t v = rng();
        std::memcpy(&x[i * (c.k / 2) + j], &v, std::min<int64_t>(8, c.k / 2 - j));
      }
    }
  });
  // Input scales: exponents within 11 of a base per output block (the spec's
  // inputs span at most 2^9 in magnitude), one in 16 blocks all zero.
  const int64_t in0 = c.inPacked ? 1 : kbIn, in1 = c.inPacked ? alignUp(mbIn, 4) : 1;
  std::vector<float> sfIn(std::max<int64_t>(1, c.inPacked ? in1 * kbIn : mbIn * kbIn), 0.0f);
  std::mt19937_64 rng(c.seed);
  for (int64_t p = 0; p < mbIn; ++p)
    for (int64_t q = 0; q < kbIn; ++q) {
      const int64_t o = (p * c.bIn / c.bOut) * 131 + (q * c.gIn / c.gOut) * 7; // output block
      const int base = 20 + (int)((o * 2654435761u) % 200);                     // e_max of the block
      int e = base - (int)(rng() % 12);
      if (rng() % 16 == 0) {
        e = 0;
        for (int64_t i = p * c.bIn; i < std::min(c.m, (p + 1) * c.bIn); ++i)
          for (int64_t j = q * c.gIn; j < std::min(c.k, (q + 1) * c.gIn); j += 2)
            x[i * (c.k / 2) + j / 2] = 0;
      }
      sfIn[p * in0 + q * in1] = fromBits((uint32_t)e << 23);
    }
  if (c.outOfRange) { // block (0, 0) at its output block's maximum, block (0, 1) 12 below
    sfIn[0] = fromBits(200u << 23);
    sfIn[in1] = fromBits(188u << 23);
  }
  if (c.badScale != 0.0f || c.badScale != c.badScale)
    sfIn[in1] = c.badScale;
  const int64_t wordStride = alignUp(mbIn, 4) + 4;
  std::vector<uint32_t> packedIn;
  if (c.inPacked) {
    packedIn = packUe8m0(sfIn.data(), in0, in1, mbIn, kbIn, wordStride);
    // The last word's bytes past K / g_in are padding (per_token_cast leaves
    // them unwritten): exponents there must not count.
    for (int64_t j = kbIn; j < alignUp(kbIn, 4); ++j)
      for (int64_t i = 0; i < mbIn; ++i)
        packedIn[(j / 4) * wordStride + i] |= 200u << (8 * (j % 4));
  }
  const int64_t out0 = c.outPacked ? 1 : kbOut, out1 = c.outPacked ? alignUp(mbOut, 4) : 1;
  std::vector<uint8_t> refOut(c.m * c.k), out(c.m * c.k);
  std::vector<float> refSf(std::max<int64_t>(1, c.outPacked ? out1 * kbOut : mbOut * kbOut), 0.0f);
  const bool representable = perBlockCastLosslessReference(x.data(), c.m, c.k, sfIn.data(), in0, in1, c.bIn, c.gIn,
                                                           c.bOut, c.gOut, refOut.data(), refSf.data(), out0, out1);
  Placement p{gpu};
  void *dx = p.put(x.data(), x.size());
  void *dsfIn = c.inPacked ? p.put(packedIn.data(), packedIn.size() * 4) : p.put(sfIn.data(), sfIn.size() * 4);
  void *dout = p.poisoned(out.data(), out.size(), 0xFF);
  const int64_t outWords = c.outPacked ? ceilDiv(kbOut, 4) * out1 : (int64_t)refSf.size();
  std::vector<uint32_t> sfWords(std::max<int64_t>(1, outWords));
  void *dsf = p.poisoned(sfWords.data(), sfWords.size() * 4, 0xFF);
  tk_tensor tx = p.tensor(dx, TK_I8, {c.m, c.k / 2});
  tk_tensor tsfIn = c.inPacked ? p.tensor(dsfIn, TK_I32, {mbIn, ceilDiv(kbIn, 4)}, {1, wordStride})
                               : p.tensor(dsfIn, TK_F32, {mbIn, kbIn}, {in0, in1});
  tk_tensor tout = p.tensor(dout, TK_F8_E4M3, {c.m, c.k});
  tk_tensor tsf = c.outPacked ? p.tensor(dsf, TK_I32, {mbOut, ceilDiv(kbOut, 4)}, {1, out1})
                              : p.tensor(dsf, TK_F32, {mbOut, kbOut}, {out0, out1});
  const int32_t inBlock[2] = {(int32_t)c.bIn, (int32_t)c.gIn}, outBlock[2] = {(int32_t)c.bOut, (int32_t)c.gOut};
  const uint32_t flags = c.outPacked ? TK_SF_COL_MAJOR | TK_ROUND_SF | TK_PACKED_UE8M0 : TK_ROUND_SF;
  auto call = [&] {
    return tk_per_block_cast_lossless(ctx, &tx, &tsfIn, inBlock, TK_FORMAT_E4M3, outBlock, flags, &tout, &tsf,
                                      nullptr);
  };
  r.status = call();
  if (!representable) { // the reference found the out-of-range block: the call must say so
    if (r.status == TK_SUCCESS) {
      r.status = TK_ERROR_INTERNAL;
      r.error = "accepted an input block that cannot be re-blocked exactly";
    } else if (r.status == TK_ERROR_INVALID_DATA) {
      r.status = TK_SUCCESS; // the expected refusal
    } else {
      r.error = tk_last_error();
    }
    return r;
  }
  if (r.status != TK_SUCCESS) {
    r.error = tk_last_error();
    return r;
  }
  p.get(out.data(), dout, out.size());
  p.get(sfWords.data(), dsf, sfWords.size() * 4);
  // Output scale factors, as floats: fp32 directly, or from the exponent bytes.
  auto sfOutAt = [&](int64_t pb, int64_t qb) -> float {
    if (c.outPacked)
      return fromBits((uint32_t)ue8m0Byte(sfWords.data(), out1, pb, qb) << 23);
    float f;
    std::memcpy(&f, &sfWords[pb * out0 + qb * out1], 4);
    return f;
  };
  for (int64_t pb = 0; pb < mbOut; ++pb)
    for (int64_t qb = 0; qb < kbOut; ++qb)
      r.sfMismatches += bits(sfOutAt(pb, qb)) != bits(refSf[pb * out0 + qb * out1]);
  parallelRows(c.m, [&](int64_t begin, int64_t end) { // the lossless property, element by element
    int64_t bad = 0;
    for (int64_t i = begin; i < end; ++i)
      for (int64_t j = 0; j < c.k; ++j) {
        bad += out[i * c.k + j] != refOut[i * c.k + j];
        float before = decodeE2M1((uint8_t)(x[i * (c.k / 2) + j / 2] >> (4 * (j % 2)))) *
                       sfIn[(i / c.bIn) * in0 + (j / c.gIn) * in1];
        float after = decodeE4M3(out[i * c.k + j]) * sfOutAt(i / c.bOut, j / c.gOut);
        bad += before != after;
      }
    static std::mutex mu;
    std::lock_guard<std::mutex> lock(mu);
    r.outMismatches += bad;
  });
  // quant.md 4.9: xq + xsf + out + out sf.
  r.bytes = (double)c.m * c.k * 1.5 + (double)mbIn * kbIn * (c.inPacked ? 1 : 4) +
            (double)mbOut * kbOut * (c.outPacked ? 1 : 4);
  if (gpu && time)
    r.ms = gpu->medianMs([&] { call(); }, 5, 50);
  return r;
}

} // namespace tk::checks
