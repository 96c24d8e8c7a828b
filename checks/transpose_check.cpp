//===- transpose_check.cpp ------------------------------------------------===//
#include "checks/transpose_check.h"
#include "kernels/transpose/batched_transpose.h"

#include <cstring>
#include <random>

namespace tk::checks {

static int64_t bytesOf(tk_dtype t) {
  return t == TK_F32 || t == TK_I32 ? 4 : (t == TK_BF16 || t == TK_F16) ? 2 : 1;
}

std::string describe(const TransposeCase &c) {
  std::string dt = c.dtype == TK_F32 ? "f32" : c.dtype == TK_BF16 ? "bf16" : c.dtype == TK_F8_E4M3 ? "e4m3" : "other";
  return (c.batched ? std::to_string(c.batch) + "x" : std::string()) + std::to_string(c.rows) + "x" +
         std::to_string(c.cols) + " " + dt + (c.rowStride ? " stride=" + std::to_string(c.rowStride) : "");
}

CheckResult checkTranspose(GpuSession *gpu, tk_context ctx, const TransposeCase &c, bool time) {
  CheckResult r;
  const int64_t elt = bytesOf(c.dtype), stride = c.rowStride ? c.rowStride : c.cols;
  const size_t inBytes = c.batch * c.rows * stride * elt, outBytes = c.batch * c.rows * c.cols * elt;
  std::vector<uint8_t> x(inBytes), ref(outBytes), got(outBytes);
  std::mt19937_64 rng(c.rows * 131 + c.cols);
  for (size_t i = 0; i + 8 <= x.size(); i += 8) {
    uint64_t v = rng();
    std::memcpy(&x[i], &v, 8);
  }
  if (c.dtype == TK_F8_E4M3) // no NaN codes: the comparison is of bits anyway, keep values realistic
    for (auto &byte : x)
      if ((byte & 0x7F) == 0x7F)
        byte &= 0xFE;
  kernels::transpose::batchedTransposeReference(x.data(), elt, c.batch, c.rows, c.cols, c.rows * stride, stride,
                                                ref.data());
  Placement p{gpu};
  void *dx = p.put(x.data(), inBytes), *dout = p.poisoned(got.data(), outBytes, 0xEE);
  tk_tensor tx = c.batched ? p.tensor(dx, c.dtype, {c.batch, c.rows, c.cols}, {c.rows * stride, stride, 1})
                           : p.tensor(dx, c.dtype, {c.rows, c.cols}, {stride, 1});
  tk_tensor tout = c.batched ? p.tensor(dout, c.dtype, {c.batch, c.cols, c.rows})
                             : p.tensor(dout, c.dtype, {c.cols, c.rows});
  auto call = [&] {
    return c.batched ? tk_batched_transpose(ctx, &tx, &tout, nullptr) : tk_transpose(ctx, &tx, &tout, nullptr);
  };
  if (!r.called(call()))
    return r;
  p.get(got.data(), dout, outBytes);
  for (size_t i = 0; i < outBytes; i += elt)
    r.outMismatches += std::memcmp(&got[i], &ref[i], elt) != 0;
  r.bytes = 2.0 * outBytes;
  if (gpu && time)
    r.ms = gpu->medianMs([&] { call(); }, 5, 50);
  return r;
}

} // namespace tk::checks
