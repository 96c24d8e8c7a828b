//===- per_token_cast_check.cpp -------------------------------------------===//
#include "bench/per_token_cast_check.h"
#include "kernels/quant/per_token_cast.h"

#include <chrono>
#include <cstring>
#include <functional>
#include <random>
#include <thread>
#include <vector>

namespace tk::bench {

using namespace tk::kernels::quant;

/// Splits rows [0, n) over the machine's cores.
static void parallelRows(int64_t n, const std::function<void(int64_t, int64_t)> &fn) {
  int64_t workers = std::max<int64_t>(1, std::min<int64_t>(std::thread::hardware_concurrency(), n / 64 + 1));
  std::vector<std::thread> threads;
  for (int64_t w = 0; w < workers; ++w) {
    int64_t begin = n * w / workers, end = n * (w + 1) / workers;
    threads.emplace_back(fn, begin, end);
  }
  for (auto &t : threads)
    t.join();
}

std::string describe(const PerTokenCastCase &c) {
  return std::to_string(c.m) + "x" + std::to_string(c.k) + " g=" + std::to_string(c.group) +
         (c.in == TK_BF16 ? " bf16" : " f32") + ((c.flags & TK_SF_COL_MAJOR) ? " col" : "") +
         ((c.flags & TK_ROUND_SF) ? " round" : "") + (c.xRowStride ? " stride=" + std::to_string(c.xRowStride) : "");
}

std::string CheckResult::describe() const {
  if (status != TK_SUCCESS)
    return std::string(tk_status_string(status)) + ": " + error;
  return std::to_string(outMismatches) + " out / " + std::to_string(sfMismatches) + " sf mismatches";
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

CheckResult checkPerTokenCast(GpuSession &s, tk_context ctx, const PerTokenCastCase &c, const std::vector<uint8_t> &x,
                              bool time) {
  CheckResult r;
  const int64_t stride = c.xRowStride ? c.xRowStride : c.k, kb = ceilDiv(c.k, c.group);
  const bool col = c.flags & TK_SF_COL_MAJOR;
  const int64_t elt = c.in == TK_BF16 ? 2 : 4, sfRows = col ? alignUp(c.m, 4) : c.m;
  std::vector<uint8_t> refOut(c.m * c.k), gotOut(c.m * c.k);
  std::vector<float> refSf(kb * sfRows, 0.0f), gotSf(kb * sfRows, 0.0f);
  int64_t sf0 = col ? 1 : kb, sf1 = col ? sfRows : 1;
  parallelRows(c.m, [&](int64_t begin, int64_t end) {
    perTokenCastReference(x.data() + begin * stride * elt, c.in == TK_BF16 ? dsl::DType::BF16 : dsl::DType::F32,
                          end - begin, c.k, stride, c.group, c.flags & TK_ROUND_SF, refOut.data() + begin * c.k,
                          refSf.data() + begin * sf0, sf0, sf1);
  });

  void *dx = s.alloc(x.size()), *dout = s.alloc(refOut.size()), *dsf = s.alloc(refSf.size() * 4);
  s.upload(dx, x.data(), x.size());
  s.fill(dout, 0xFF, refOut.size()); // poison: every element must be written
  s.fill(dsf, 0xFF, refSf.size() * 4);
  tk_tensor tx = deviceTensor(dx, c.in, {c.m, c.k}, {stride, 1});
  tk_tensor tout = deviceTensor(dout, TK_F8_E4M3, {c.m, c.k});
  tk_tensor tsf = deviceTensor(dsf, TK_F32, {c.m, kb}, {sf0, sf1});
  auto call = [&] {
    return tk_per_token_cast(ctx, &tx, nullptr, nullptr, TK_FORMAT_E4M3, (int32_t)c.group, c.flags, &tout, &tsf,
                             nullptr);
  };
  r.status = call();
  if (r.status != TK_SUCCESS) {
    r.error = tk_last_error();
    return r;
  }
  s.download(gotOut.data(), dout, gotOut.size());
  s.download(gotSf.data(), dsf, gotSf.size() * 4);
  for (size_t i = 0; i < refOut.size(); ++i)
    r.outMismatches += refOut[i] != gotOut[i];
  for (int64_t i = 0; i < c.m; ++i)
    for (int64_t g = 0; g < kb; ++g) {
      size_t at = i * sf0 + g * sf1;
      r.sfMismatches += std::memcmp(&refSf[at], &gotSf[at], 4) != 0;
    }
  r.bytes = (double)c.m * c.k * (elt + 1) + (double)c.m * kb * 4;
  if (time)
    r.ms = s.medianMs([&] { call(); });
  return r;
}

} // namespace tk::bench

namespace tk::bench {

static tk_tensor hostTensor(void *data, tk_dtype dtype, std::vector<int64_t> shape, std::vector<int64_t> strides) {
  tk_tensor t = deviceTensor(data, dtype, std::move(shape), std::move(strides));
  t.device = TK_DEVICE_CPU;
  return t;
}

CheckResult checkPerTokenCastOnCpu(tk_context ctx, const PerTokenCastCase &c, const std::vector<uint8_t> &x) {
  CheckResult r;
  const int64_t stride = c.xRowStride ? c.xRowStride : c.k, kb = ceilDiv(c.k, c.group);
  const bool col = c.flags & TK_SF_COL_MAJOR;
  const int64_t elt = c.in == TK_BF16 ? 2 : 4, sfRows = col ? alignUp(c.m, 4) : c.m;
  const int64_t sf0 = col ? 1 : kb, sf1 = col ? sfRows : 1;
  std::vector<uint8_t> refOut(c.m * c.k), out(c.m * c.k, 0xEE);
  std::vector<float> refSf(kb * sfRows, 0.0f), sf(kb * sfRows, 0.0f);
  perTokenCastReference(x.data(), c.in == TK_BF16 ? dsl::DType::BF16 : dsl::DType::F32, c.m, c.k, stride, c.group,
                        c.flags & TK_ROUND_SF, refOut.data(), refSf.data(), sf0, sf1);
  tk_tensor tx = hostTensor(const_cast<uint8_t *>(x.data()), c.in, {c.m, c.k}, {stride, 1});
  tk_tensor tout = hostTensor(out.data(), TK_F8_E4M3, {c.m, c.k}, {c.k, 1});
  tk_tensor tsf = hostTensor(sf.data(), TK_F32, {c.m, kb}, {sf0, sf1});
  auto call = [&] {
    return tk_per_token_cast(ctx, &tx, nullptr, nullptr, TK_FORMAT_E4M3, (int32_t)c.group, c.flags, &tout, &tsf,
                             nullptr);
  };
  r.status = call();
  if (r.status != TK_SUCCESS) {
    r.error = tk_last_error();
    return r;
  }
  for (size_t i = 0; i < out.size(); ++i)
    r.outMismatches += out[i] != refOut[i];
  for (int64_t i = 0; i < c.m; ++i)
    for (int64_t g = 0; g < kb; ++g)
      r.sfMismatches += std::memcmp(&sf[i * sf0 + g * sf1], &refSf[i * sf0 + g * sf1], 4) != 0;
  auto t0 = std::chrono::steady_clock::now();
  call();
  r.ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  r.bytes = (double)c.m * c.k * (elt + 1) + (double)c.m * kb * 4;
  return r;
}

} // namespace tk::bench

namespace tk::bench {

CheckResult checkPerTokenVariants(GpuSession *gpu, tk_context ctx, const PerTokenCastCase &c,
                                  const std::vector<uint8_t> &x) {
  CheckResult r;
  const int64_t stride = c.xRowStride ? c.xRowStride : c.k, kb = ceilDiv(c.k, c.group);
  const bool col = c.flags & TK_SF_COL_MAJOR, round = c.flags & TK_ROUND_SF;
  const int64_t sfRows = col ? alignUp(c.m, 4) : c.m, sf0 = col ? 1 : kb, sf1 = col ? sfRows : 1;
  const dsl::DType in = c.in == TK_BF16 ? dsl::DType::BF16 : dsl::DType::F32;
  // References: scale factors in the case's layout and row-major, and the cast with the latter.
  std::vector<uint8_t> scratch(c.m * c.k), refOut(c.m * c.k);
  std::vector<float> refSf(kb * sfRows, 0.0f), rowSf(kb * c.m);
  perTokenCastReference(x.data(), in, c.m, c.k, stride, c.group, round, scratch.data(), refSf.data(), sf0, sf1);
  perTokenCastReference(x.data(), in, c.m, c.k, stride, c.group, round, scratch.data(), rowSf.data(), kb, 1);
  perTokenCastWithSfReference(x.data(), in, c.m, c.k, stride, c.group, rowSf.data(), kb, refOut.data());

  std::vector<uint8_t> out(c.m * c.k, 0xEE);
  std::vector<float> sf(kb * sfRows, 0.0f);
  tk_device_type dev = gpu ? TK_DEVICE_CUDA : TK_DEVICE_CPU;
  auto place = [&](const void *host, size_t bytes) -> void * {
    if (!gpu)
      return const_cast<void *>(host);
    void *d = gpu->alloc(bytes);
    gpu->upload(d, host, bytes);
    return d;
  };
  void *dx = place(x.data(), x.size()), *dsf = place(sf.data(), sf.size() * 4),
       *drow = place(rowSf.data(), rowSf.size() * 4), *dout = place(out.data(), out.size());
  auto tensor = [&](void *p, tk_dtype t, std::vector<int64_t> shape, std::vector<int64_t> strides) {
    tk_tensor v = deviceTensor(p, t, std::move(shape), std::move(strides));
    v.device = dev;
    return v;
  };
  tk_tensor tx = tensor(dx, c.in, {c.m, c.k}, {stride, 1});
  tk_tensor tsf = tensor(dsf, TK_F32, {c.m, kb}, {sf0, sf1});
  tk_tensor trow = tensor(drow, TK_F32, {c.m, kb}, {kb, 1});
  tk_tensor tout = tensor(dout, TK_F8_E4M3, {c.m, c.k}, {c.k, 1});
  r.status = tk_per_token_cast_with_sf_only(ctx, &tx, nullptr, nullptr, TK_FORMAT_E4M3, (int32_t)c.group, c.flags,
                                            &tsf, nullptr);
  if (r.status == TK_SUCCESS)
    r.status = tk_per_token_cast_with_precomputed_sf(ctx, &tx, TK_FORMAT_E4M3, (int32_t)c.group, &trow,
                                                     c.flags & TK_ROUND_SF, &tout, nullptr);
  if (r.status != TK_SUCCESS) {
    r.error = tk_last_error();
    return r;
  }
  if (gpu) {
    gpu->download(sf.data(), dsf, sf.size() * 4);
    gpu->download(out.data(), dout, out.size());
  }
  for (size_t i = 0; i < out.size(); ++i)
    r.outMismatches += out[i] != refOut[i];
  for (int64_t i = 0; i < c.m; ++i)
    for (int64_t g = 0; g < kb; ++g)
      r.sfMismatches += std::memcmp(&sf[i * sf0 + g * sf1], &refSf[i * sf0 + g * sf1], 4) != 0;
  return r;
}

} // namespace tk::bench
