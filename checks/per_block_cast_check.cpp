//===- per_block_cast_check.cpp -------------------------------------------===//
#include "checks/per_block_cast_check.h"
#include "checks/parallel_slices.h"
#include "kernels/quant/per_block_cast.h"

#include <cstring>

namespace tk::checks {

using kernels::quant::alignUp;
using kernels::quant::ceilDiv;

std::string describe(const PerBlockCastCase &c) {
  return std::to_string(c.m) + "x" + std::to_string(c.k) + " block=" + std::to_string(c.blockM) + "x" +
         std::to_string(c.blockK) + (c.in == TK_BF16 ? " bf16" : " f32") +
         ((c.flags & TK_SF_COL_MAJOR) ? " col" : "") + ((c.flags & TK_ROUND_SF) ? " round" : "") +
         (c.fmt == TK_FORMAT_E2M1 ? " e2m1" : "");
}

CheckResult checkPerBlockCast(GpuSession *gpu, tk_context ctx, const PerBlockCastCase &c, bool time) {
  CheckResult r;
  const bool col = c.flags & TK_SF_COL_MAJOR, round = c.flags & TK_ROUND_SF;
  const int64_t mb = ceilDiv(c.m, c.blockM), kb = ceilDiv(c.k, c.blockK), elt = c.in == TK_BF16 ? 2 : 4;
  const int64_t sfRows = col ? alignUp(mb, 4) : mb, sf0 = col ? 1 : kb, sf1 = col ? sfRows : 1;
  const bool packed = c.flags & TK_PACKED_UE8M0; // UE8M0 words, kq x sfRows int32
  const int64_t sfWords = packed ? ceilDiv(kb, 4) * sfRows : sfRows * kb;
  const dsl::DType in = c.in == TK_BF16 ? dsl::DType::BF16 : dsl::DType::F32;
  const bool fp4 = c.fmt == TK_FORMAT_E2M1;
  const kernels::quant::Format fmt = fp4 ? kernels::quant::Format::E2M1 : kernels::quant::Format::E4M3;
  const int64_t outK = fp4 ? c.k / 2 : c.k;
  const tk_dtype outType = fp4 ? TK_I8 : TK_F8_E4M3;
  std::vector<uint8_t> x = makeInput(PerTokenCastCase{c.m, c.k, c.blockK, c.in, 0, 0, c.seed});
  // References: the cast with scale factors in the case's layout and in
  // row-major form, and the cast with the latter given.
  std::vector<uint8_t> refOut(c.m * outK), refOutWithSf(c.m * outK);
  std::vector<float> refSf(std::max<int64_t>(1, sfRows * kb), 0.0f), rowSf(std::max<int64_t>(1, mb * kb), 0.0f);
  parallelRows(mb, [&](int64_t begin, int64_t end) { // whole block rows per worker
    int64_t r0 = begin * c.blockM, r1 = std::min(c.m, end * c.blockM);
    if (r1 <= r0)
      return;
    const uint8_t *xs = x.data() + r0 * c.k * elt;
    kernels::quant::perBlockCastReference(xs, in, r1 - r0, c.k, c.blockM, c.blockK, round, refOut.data() + r0 * outK,
                                          refSf.data() + begin * sf0, sf0, sf1, fmt);
    std::vector<uint8_t> scratch((r1 - r0) * c.k);
    kernels::quant::perBlockCastReference(xs, in, r1 - r0, c.k, c.blockM, c.blockK, round, scratch.data(),
                                          rowSf.data() + begin * kb, kb, 1, fmt);
    kernels::quant::perBlockCastWithSfReference(xs, in, r1 - r0, c.k, c.blockM, c.blockK, rowSf.data() + begin * kb,
                                                kb, refOutWithSf.data() + r0 * outK, fmt);
  });

  std::vector<uint8_t> out(c.m * outK), outWithSf(c.m * outK);
  std::vector<float> sf(std::max<int64_t>(1, sfWords), 0.0f), sfOnly(sf.size(), 0.0f);
  Placement p{gpu};
  void *dx = p.put(x.data(), x.size()), *drow = p.put(rowSf.data(), rowSf.size() * 4);
  void *dout = p.poisoned(out.data(), out.size(), 0xFF), *dsf = p.poisoned(sf.data(), sf.size() * 4, 0xFF);
  void *dsfOnly = p.poisoned(sfOnly.data(), sfOnly.size() * 4, 0xFF);
  void *doutWithSf = p.poisoned(outWithSf.data(), outWithSf.size(), 0xEE);
  tk_tensor tx = p.tensor(dx, c.in, {c.m, c.k});
  tk_tensor tout = p.tensor(dout, outType, {c.m, outK}), toutWithSf = p.tensor(doutWithSf, outType, {c.m, outK});
  auto sfTensor = [&](void *data) {
    return packed ? p.tensor(data, TK_I32, {mb, ceilDiv(kb, 4)}, {1, sfRows}) : p.tensor(data, TK_F32, {mb, kb}, {sf0, sf1});
  };
  tk_tensor tsf = sfTensor(dsf), tsfOnly = sfTensor(dsfOnly);
  tk_tensor trow = p.tensor(drow, TK_F32, {mb, kb}, {kb, 1});
  const int32_t block[2] = {(int32_t)c.blockM, (int32_t)c.blockK};
  auto cast = [&] { return tk_per_block_cast(ctx, &tx, c.fmt, block, c.flags, &tout, &tsf, nullptr); };
  r.status = cast();
  if (r.status == TK_SUCCESS)
    r.status = tk_per_block_cast_with_sf_only(ctx, &tx, c.fmt, block, c.flags, &tsfOnly, nullptr);
  if (r.status == TK_SUCCESS)
    r.status = tk_per_block_cast_with_precomputed_sf(ctx, &tx, c.fmt, block, &trow, c.flags & TK_ROUND_SF,
                                                     &toutWithSf, nullptr);
  if (r.status != TK_SUCCESS) {
    r.error = tk_last_error();
    return r;
  }
  p.get(out.data(), dout, out.size());
  p.get(outWithSf.data(), doutWithSf, outWithSf.size());
  p.get(sf.data(), dsf, sf.size() * 4);
  p.get(sfOnly.data(), dsfOnly, sfOnly.size() * 4);
  for (size_t i = 0; i < out.size(); ++i)
    r.outMismatches += (out[i] != refOut[i]) + (outWithSf[i] != refOutWithSf[i]);
  for (int64_t i = 0; i < mb; ++i)
    for (int64_t j = 0; j < kb; ++j) {
      size_t at = i * sf0 + j * sf1;
      if (packed) { // against the reference's exponent byte
        uint8_t want = (uint8_t)(kernels::quant::bits(refSf[at]) >> 23);
        r.sfMismatches += (ue8m0Byte(sf.data(), sfRows, i, j) != want) + (ue8m0Byte(sfOnly.data(), sfRows, i, j) != want);
      } else {
        r.sfMismatches += (std::memcmp(&sf[at], &refSf[at], 4) != 0) + (std::memcmp(&sfOnly[at], &refSf[at], 4) != 0);
      }
    }
  r.bytes = (double)c.m * c.k * elt + (double)c.m * outK + (double)mb * kb * 4; // quant.md 4.6: x + out + sf
  if (gpu && time)
    r.ms = gpu->medianMs([&] { cast(); }, 5, 50);
  return r;
}

} // namespace tk::checks
