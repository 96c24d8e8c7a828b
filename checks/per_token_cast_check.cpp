//===- per_token_cast_check.cpp -------------------------------------------===//
#include "checks/per_token_cast_check.h"
#include "checks/parallel_slices.h"
#include "kernels/quant/per_token_cast.h"

#include <chrono>
#include <cmath>
#include <cstring>
#include <mutex>
#include <random>
#include <tuple>
#include <vector>

namespace tk::checks {

using namespace tk::kernels::quant;

uint8_t ue8m0Byte(const void *words, int64_t wordStride, int64_t i, int64_t j) {
  return static_cast<const uint8_t *>(words)[4 * ((j / 4) * wordStride + i) + j % 4];
}

std::vector<uint32_t> packUe8m0(const float *sf, int64_t s0, int64_t s1, int64_t rows, int64_t groups,
                                int64_t wordStride) {
  std::vector<uint32_t> words(std::max<int64_t>(1, ceilDiv(groups, 4) * wordStride), 0u);
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < groups; ++j)
      reinterpret_cast<uint8_t *>(words.data())[4 * ((j / 4) * wordStride + i) + j % 4] =
          (uint8_t)(bits(sf[i * s0 + j * s1]) >> 23);
  return words;
}

uint64_t digestBytes(const void *data, size_t bytes, uint64_t hash) {
  const auto *p = static_cast<const unsigned char *>(data);
  for (size_t i = 0; i < bytes; ++i)
    hash = (hash ^ p[i]) * 1099511628211ull;
  return hash;
}

std::string describe(const PerTokenCastCase &c) {
  return std::to_string(c.m) + "x" + std::to_string(c.k) + " g=" + std::to_string(c.group) +
         (c.in == TK_BF16 ? " bf16" : " f32") + ((c.flags & TK_SF_COL_MAJOR) ? " col" : "") +
         ((c.flags & TK_ROUND_SF) ? " round" : "") + ((c.flags & TK_PACKED_UE8M0) ? " ue8m0" : "") + (c.xRowStride ? " stride=" + std::to_string(c.xRowStride) : "") +
         (c.fmt == TK_FORMAT_E2M1 ? " e2m1" : c.fmt == TK_FORMAT_E5M6 ? " e5m6" : "") +
         (c.exponentSpread ? " spread=" + std::to_string(c.exponentSpread) : "");
}

std::string CheckResult::describe() const {
  if (status != TK_SUCCESS)
    return std::string(tk_status_string(status)) + ": " + error;
  return std::to_string(outMismatches) + " out / " + std::to_string(sfMismatches) + " sf mismatches" +
         (countMismatches ? " / " + std::to_string(countMismatches) + " counters" : "");
}

bool CheckResult::exact() const {
  return status == TK_SUCCESS && !outMismatches && !sfMismatches && !countMismatches;
}

std::string CheckResult::verdict() const {
  if (unchecked && status == TK_SUCCESS)
    return "";
  return exact() ? "bit-exact" : describe();
}

bool CheckResult::called(tk_status s) {
  status = s;
  if (s != TK_SUCCESS)
    error = tk_last_error();
  return s == TK_SUCCESS;
}

std::vector<uint8_t> makeInput(const PerTokenCastCase &c) {
  const int64_t stride = c.xRowStride ? c.xRowStride : c.k, elt = c.in == TK_BF16 ? 2 : 4;
  std::vector<uint8_t> x(c.m * stride * elt, 0);
  // Rows in parallel, each from its own seeded stream: deterministic per case.
  parallelRows(c.m, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) {
      std::mt19937 rng((uint32_t)(c.seed * 1000003u + i));
      std::normal_distribution<float> normal(0.0f, 1.0f);
      for (int64_t j = 0; j < c.k; ++j) {
        float v = normal(rng);
        if (c.exponentSpread > 0)
          v = std::ldexp(v, -(int)(rng() % (uint32_t)c.exponentSpread));
        if (c.in == TK_BF16) {
          uint16_t h = f32ToBf16(v);
          std::memcpy(&x[(i * stride + j) * 2], &h, 2);
        } else {
          std::memcpy(&x[(i * stride + j) * 4], &v, 4);
        }
      }
    }
  });
  return x;
}

namespace {

/// Strides and sizes a case implies (quant.md 3.2 for the scale factors).
struct Geometry {
  int64_t stride, kb, elt, sfRows, sf0, sf1, outK;
  bool packed;      ///< UE8M0 words: kq x sfRows int32, column-major
  int64_t sfWords;  ///< floats (or words) the scale-factor buffer holds
  dsl::DType in;
  Format fmt;
  tk_dtype outType;
  explicit Geometry(const PerTokenCastCase &c)
      : stride(c.xRowStride ? c.xRowStride : c.k), kb(ceilDiv(c.k, c.group)), elt(c.in == TK_BF16 ? 2 : 4),
        sfRows(c.flags & TK_SF_COL_MAJOR ? alignUp(c.m, 4) : c.m), sf0(c.flags & TK_SF_COL_MAJOR ? 1 : kb),
        sf1(c.flags & TK_SF_COL_MAJOR ? sfRows : 1),
        outK(c.fmt == TK_FORMAT_E2M1 ? c.k / 2 : c.fmt == TK_FORMAT_E5M6 ? c.k / 2 * 3 : c.k),
        packed(c.flags & TK_PACKED_UE8M0), sfWords(packed ? ceilDiv(kb, 4) * sfRows : kb * sfRows),
        in(c.in == TK_BF16 ? dsl::DType::BF16 : dsl::DType::F32),
        fmt(c.fmt == TK_FORMAT_E2M1 ? Format::E2M1 : c.fmt == TK_FORMAT_E5M6 ? Format::E5M6 : Format::E4M3),
        outType(c.fmt == TK_FORMAT_E2M1 ? TK_I8 : c.fmt == TK_FORMAT_E5M6 ? TK_U8 : TK_F8_E4M3) {}
  /// The out_sf tensor over `data` (sfWords elements) in the case's layout.
  tk_tensor sfTensor(const Placement &p, void *data, int64_t m) const {
    return packed ? p.tensor(data, TK_I32, {m, ceilDiv(kb, 4)}, {1, sfRows})
                  : p.tensor(data, TK_F32, {m, kb}, {sf0, sf1});
  }
};

/// Differing bytes of out and differing scale factors (those inside the (M, Kb) view).
void compare(const PerTokenCastCase &c, const Geometry &g, const std::vector<uint8_t> &out,
             const std::vector<uint8_t> &refOut, const std::vector<float> &sf, const std::vector<float> &refSf,
             CheckResult &r) {
  for (size_t i = 0; i < out.size(); ++i)
    r.outMismatches += out[i] != refOut[i];
  for (int64_t i = 0; i < c.m && !sf.empty(); ++i)
    for (int64_t k = 0; k < g.kb; ++k) {
      size_t at = i * g.sf0 + k * g.sf1;
      if (g.packed) // against the reference's exponent byte
        r.sfMismatches += ue8m0Byte(sf.data(), g.sfRows, i, k) != (uint8_t)(bits(refSf[at]) >> 23);
      else
        r.sfMismatches += std::memcmp(&sf[at], &refSf[at], 4) != 0;
    }
}

} // namespace

std::shared_ptr<const std::vector<uint8_t>> sharedInput(const PerTokenCastCase &c) {
  using Key = std::tuple<int64_t, int64_t, int, int64_t, uint64_t, int>;
  static std::mutex mutex;
  static Key lastKey;
  static std::shared_ptr<const std::vector<uint8_t>> last;
  const Key key{c.m, c.k, (int)c.in, c.xRowStride, c.seed, c.exponentSpread};
  std::lock_guard<std::mutex> lock(mutex);
  if (!last || key != lastKey) {
    last.reset(); // the old input's memory before the new one's
    last = std::make_shared<const std::vector<uint8_t>>(makeInput(c));
    lastKey = key;
  }
  return last;
}

CheckResult checkPerTokenCast(GpuSession *gpu, tk_context ctx, const PerTokenCastCase &c, const std::vector<uint8_t> &x,
                              bool time) {
  CheckResult r;
  const Geometry g(c);
  std::vector<uint8_t> refOut(c.m * g.outK), out(c.m * g.outK);
  std::vector<float> refSf(g.kb * g.sfRows, 0.0f), sf(std::max<int64_t>(1, g.sfWords), 0.0f);
  parallelRows(c.m, [&](int64_t begin, int64_t end) {
    perTokenCastReference(x.data() + begin * g.stride * g.elt, g.in, end - begin, c.k, g.stride, c.group,
                          c.flags & TK_ROUND_SF, refOut.data() + begin * g.outK, refSf.data() + begin * g.sf0, g.sf0,
                          g.sf1, g.fmt);
  });
  Placement p{gpu};
  void *dx = p.put(x.data(), x.size());
  void *dout = p.poisoned(out.data(), out.size(), 0xFF); // every element must be written
  void *dsf = p.poisoned(sf.data(), sf.size() * 4, 0xFF);
  tk_tensor tx = p.tensor(dx, c.in, {c.m, c.k}, {g.stride, 1});
  tk_tensor tout = p.tensor(dout, g.outType, {c.m, g.outK});
  tk_tensor tsf = g.sfTensor(p, dsf, c.m);
  auto call = [&] {
    return tk_per_token_cast(ctx, &tx, nullptr, nullptr, c.fmt, (int32_t)c.group, c.flags, &tout, &tsf, nullptr);
  };
  if (!r.called(call()))
    return r;
  p.get(out.data(), dout, out.size());
  p.get(sf.data(), dsf, sf.size() * 4);
  compare(c, g, out, refOut, sf, refSf, r);
  r.bytes = (double)c.m * c.k * g.elt + (double)c.m * g.outK + (double)c.m * g.kb * (g.packed ? 1 : 4);
  if (time && gpu) {
    r.ms = gpu->medianMs([&] { call(); });
  } else if (time) {
    auto t0 = std::chrono::steady_clock::now();
    call();
    r.ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  }
  return r;
}

CheckResult checkPerTokenRequant(GpuSession *gpu, tk_context ctx, const PerTokenCastCase &c, const QuantizedInput &in,
                                 bool time) {
  CheckResult r;
  const Geometry g(c);
  const int64_t bIn = in.blockM, gIn = in.blockK;
  const bool sfInColMajor = in.sfColMajor, sfInPacked = in.sfPacked, fp4In = in.fmt == TK_FORMAT_E2M1;
  const int64_t xk = fp4In ? c.k / 2 : c.k, xStride = fp4In ? g.stride / 2 : g.stride; // stored bytes
  const int64_t mbIn = ceilDiv(c.m, bIn), kbIn = ceilDiv(c.k, gIn);
  const int64_t in0 = sfInColMajor ? 1 : kbIn, in1 = sfInColMajor ? alignUp(mbIn, 4) : 1;
  std::vector<uint8_t> x(c.m * xStride);
  parallelRows(c.m, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) {
      std::mt19937 rng((uint32_t)(c.seed * 7919u + i));
      for (int64_t j = 0; j < xk; ++j) {
        uint8_t q = (uint8_t)rng();
        x[i * xStride + j] = fp4In || (q & 0x7F) != 0x7F ? q : q & 0xFE; // no e4m3 NaN codes
      }
    }
  });
  std::vector<float> sfIn(std::max<int64_t>(1, sfInColMajor ? in1 * kbIn : mbIn * kbIn), 0.0f);
  std::mt19937 rng((uint32_t)c.seed);
  std::uniform_real_distribution<float> unit(0.5f, 1.0f);
  for (int64_t i = 0; i < mbIn; ++i)
    for (int64_t j = 0; j < kbIn; ++j)
      sfIn[i * in0 + j * in1] =
          std::ldexp((c.flags & TK_ROUND_SF) || sfInPacked ? 1.0f : unit(rng), (int)(rng() % 20) - 10);
  const int64_t words = ceilDiv(kbIn, 4), wordStride = alignUp(mbIn, 4) + 4;
  std::vector<uint32_t> packedIn;
  if (sfInPacked)
    packedIn = packUe8m0(sfIn.data(), in0, in1, mbIn, kbIn, wordStride);
  std::vector<uint8_t> refOut(c.m * g.outK), out(c.m * g.outK);
  std::vector<float> refSf(g.kb * g.sfRows, 0.0f), sf(std::max<int64_t>(1, g.sfWords), 0.0f);
  parallelRows(mbIn, [&](int64_t b0, int64_t b1) { // whole input scale-factor rows per worker
    const int64_t begin = b0 * bIn, end = std::min(c.m, b1 * bIn);
    perTokenRequantReference(x.data() + begin * xStride, end - begin, c.k, xStride, sfIn.data() + b0 * in0, in0, in1,
                             bIn, gIn, c.group, c.flags & TK_ROUND_SF, refOut.data() + begin * g.outK,
                             refSf.data() + begin * g.sf0, g.sf0, g.sf1, g.fmt,
                             fp4In ? kernels::quant::Format::E2M1 : kernels::quant::Format::E4M3);
  });
  Placement p{gpu};
  void *dx = p.put(x.data(), x.size());
  void *dsfIn = sfInPacked ? p.put(packedIn.data(), packedIn.size() * 4) : p.put(sfIn.data(), sfIn.size() * 4);
  void *dout = p.poisoned(out.data(), out.size(), 0xFF), *dsf = p.poisoned(sf.data(), sf.size() * 4, 0xFF);
  tk_tensor tx = p.tensor(dx, fp4In ? TK_I8 : TK_F8_E4M3, {c.m, xk}, {xStride, 1});
  tk_tensor tsfIn = sfInPacked ? p.tensor(dsfIn, TK_I32, {mbIn, words}, {1, wordStride})
                               : p.tensor(dsfIn, TK_F32, {mbIn, kbIn}, {in0, in1});
  tk_tensor tout = p.tensor(dout, g.outType, {c.m, g.outK});
  tk_tensor tsf = g.sfTensor(p, dsf, c.m);
  const int32_t block[2] = {(int32_t)bIn, (int32_t)gIn};
  auto call = [&] {
    return tk_per_token_cast(ctx, &tx, &tsfIn, block, c.fmt, (int32_t)c.group, c.flags, &tout, &tsf, nullptr);
  };
  if (!r.called(call()))
    return r;
  p.get(out.data(), dout, out.size());
  p.get(sf.data(), dsf, sf.size() * 4);
  compare(c, g, out, refOut, sf, refSf, r);
  // quant.md 4.1: x + its scale factors + out + out_sf (logical numel; packed: one byte each).
  r.bytes = (double)c.m * xk + (double)mbIn * kbIn * (sfInPacked ? 1 : 4) + (double)c.m * g.outK +
            (double)c.m * g.kb * (g.packed ? 1 : 4);
  if (time && gpu)
    r.ms = gpu->medianMs([&] { call(); });
  return r;
}

CheckResult checkPerTokenVariants(GpuSession *gpu, tk_context ctx, const PerTokenCastCase &c,
                                  const std::vector<uint8_t> &x) {
  CheckResult r;
  const Geometry g(c);
  const bool round = c.flags & TK_ROUND_SF;
  // References: scale factors in the case's layout and row-major, and the cast with the latter.
  std::vector<uint8_t> scratch(c.m * c.k), refOut(c.m * g.outK);
  std::vector<float> refSf(g.kb * g.sfRows, 0.0f), rowSf(g.kb * c.m);
  parallelRows(c.m, [&](int64_t begin, int64_t end) {
    const uint8_t *xs = x.data() + begin * g.stride * g.elt;
    perTokenCastReference(xs, g.in, end - begin, c.k, g.stride, c.group, round, scratch.data() + begin * g.outK,
                          refSf.data() + begin * g.sf0, g.sf0, g.sf1, g.fmt);
    perTokenCastReference(xs, g.in, end - begin, c.k, g.stride, c.group, round, scratch.data() + begin * g.outK,
                          rowSf.data() + begin * g.kb, g.kb, 1, g.fmt);
    perTokenCastWithSfReference(xs, g.in, end - begin, c.k, g.stride, c.group, rowSf.data() + begin * g.kb, g.kb,
                                refOut.data() + begin * g.outK, g.fmt);
  });

  std::vector<uint8_t> out(c.m * g.outK);
  std::vector<float> sf(std::max<int64_t>(1, g.sfWords), 0.0f);
  Placement p{gpu};
  void *dx = p.put(x.data(), x.size()), *drow = p.put(rowSf.data(), rowSf.size() * 4);
  void *dsf = p.poisoned(sf.data(), sf.size() * 4, 0xFF), *dout = p.poisoned(out.data(), out.size(), 0xEE);
  tk_tensor tx = p.tensor(dx, c.in, {c.m, c.k}, {g.stride, 1});
  tk_tensor tsf = g.sfTensor(p, dsf, c.m);
  tk_tensor trow = p.tensor(drow, TK_F32, {c.m, g.kb}, {g.kb, 1});
  tk_tensor tout = p.tensor(dout, g.outType, {c.m, g.outK});
  r.status = tk_per_token_cast_with_sf_only(ctx, &tx, nullptr, nullptr, c.fmt, (int32_t)c.group, c.flags, &tsf,
                                            nullptr);
  if (r.status == TK_SUCCESS)
    r.status = tk_per_token_cast_with_precomputed_sf(ctx, &tx, c.fmt, (int32_t)c.group, &trow, c.flags & TK_ROUND_SF,
                                                     &tout, nullptr); // row-major scale factors in
  if (r.status != TK_SUCCESS) {
    r.error = tk_last_error();
    return r;
  }
  p.get(sf.data(), dsf, sf.size() * 4);
  p.get(out.data(), dout, out.size());
  compare(c, g, out, refOut, sf, refSf, r);
  return r;
}

} // namespace tk::checks
