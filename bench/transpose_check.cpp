//===- transpose_check.cpp ------------------------------------------------===//
#include "bench/transpose_check.h"
#include "kernels/transpose/batched_transpose.h"

#include <cstring>
#include <random>

namespace tk::bench {

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
  std::vector<uint8_t> x(inBytes), ref(outBytes), got(outBytes, 0xEE);
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
  void *dx = x.data(), *dout = got.data();
  if (gpu) {
    dx = gpu->alloc(inBytes);
    dout = gpu->alloc(outBytes);
    gpu->upload(dx, x.data(), inBytes);
    gpu->fill(dout, 0xEE, outBytes);
  }
  auto tensor = [&](void *p, std::vector<int64_t> shape, std::vector<int64_t> strides) {
    tk_tensor t = deviceTensor(p, c.dtype, std::move(shape), std::move(strides));
    t.device = gpu ? TK_DEVICE_CUDA : TK_DEVICE_CPU;
    return t;
  };
  tk_tensor tx = c.batched ? tensor(dx, {c.batch, c.rows, c.cols}, {c.rows * stride, stride, 1})
                           : tensor(dx, {c.rows, c.cols}, {stride, 1});
  tk_tensor tout = c.batched ? tensor(dout, {c.batch, c.cols, c.rows}, {}) : tensor(dout, {c.cols, c.rows}, {});
  auto call = [&] {
    return c.batched ? tk_batched_transpose(ctx, &tx, &tout, nullptr) : tk_transpose(ctx, &tx, &tout, nullptr);
  };
  r.status = call();
  if (r.status != TK_SUCCESS) {
    r.error = tk_last_error();
    return r;
  }
  if (gpu)
    gpu->download(got.data(), dout, outBytes);
  for (size_t i = 0; i < outBytes; i += elt)
    r.outMismatches += std::memcmp(&got[i], &ref[i], elt) != 0;
  r.bytes = 2.0 * outBytes;
  if (gpu && time)
    r.ms = gpu->medianMs([&] { call(); }, 5, 50);
  return r;
}

} // namespace tk::bench
