//===- expf_oracle.cpp ----------------------------------------------------===//
#include "checks/expf_oracle.h"
#include "kernels/quant/formats.h"

#include <cmath>
#include <cstring>
#include <stdexcept>

#ifdef TK_HAVE_EXPF_ORACLE
extern const char kExpfOraclePtx[];
#endif

#include <memory>
#include <mutex>

namespace tk::checks {

static uint32_t bitsOf(float x) {
  uint32_t u;
  std::memcpy(&u, &x, sizeof u);
  return u;
}

float hostExpf(float x) { return std::exp(x); }

ExpTable::ExpTable(const std::vector<float> &args, const std::vector<float> &values)
    : bf16_(65536), haveBf16_(65536, false) {
  for (size_t i = 0; i < args.size(); ++i) {
    uint32_t u = bitsOf(args[i]);
    if ((u & 0xFFFFu) == 0)
      bf16_[u >> 16] = values[i], haveBf16_[u >> 16] = true;
    else
      others_.emplace(u, values[i]);
  }
}

float ExpTable::operator()(float x) const {
  uint32_t u = bitsOf(x);
  if ((u & 0xFFFFu) == 0 && haveBf16_[u >> 16])
    return bf16_[u >> 16];
  auto it = others_.find(u);
  if (it == others_.end())
    throw std::runtime_error("ExpTable: no device expf for argument " + std::to_string(x));
  return it->second;
}

bool haveExpfOracle() {
#ifdef TK_HAVE_EXPF_ORACLE
  return true;
#else
  return false;
#endif
}

ExpTable deviceExpTable(GpuSession &gpu, const std::vector<float> &args) {
  return ExpTable(args, deviceExpValues(gpu, args));
}

std::vector<float> deviceExpValues(GpuSession &gpu, const std::vector<float> &args) {
#ifndef TK_HAVE_EXPF_ORACLE
  (void)gpu;
  (void)args;
  throw std::runtime_error("this build has no device expf oracle (nvcc was not found when it was configured)");
#else
  const runtime::Driver &d = gpu.driver();
  auto check = [&](const char *call, int r) {
    if (r != 0)
      throw std::runtime_error(d.describe(call, r));
  };
  runtime::CUmodule module;
  check("cuModuleLoadDataEx", d.cuModuleLoadDataEx(&module, kExpfOraclePtx, 0, nullptr, nullptr));
  runtime::CUfunction fn;
  check("cuModuleGetFunction", d.cuModuleGetFunction(&fn, module, "tk_expf_oracle"));
  const size_t bytes = args.size() * sizeof(float);
  void *in = gpu.alloc(bytes), *out = gpu.alloc(bytes);
  gpu.upload(in, args.data(), bytes);
  unsigned n = (unsigned)args.size();
  void *params[] = {&in, &out, &n};
  check("cuLaunchKernel", d.cuLaunchKernel(fn, (n + 255) / 256, 1, 1, 256, 1, 1, 0, nullptr, params, nullptr));
  std::vector<float> values(args.size());
  gpu.download(values.data(), out, bytes);
  d.cuModuleUnload(module);
  return values;
#endif
}

std::vector<float> bf16SwigluExpArguments() {
  std::vector<float> args(65536);
  for (uint32_t v = 0; v < 65536; ++v)
    args[v] = -kernels::quant::bf16ToF32((uint16_t)v);
  return args;
}

const ExpTable *swigluExpOracle(GpuSession *gpu) {
  if (!gpu)
    return nullptr;
  static std::mutex mutex;
  static std::unique_ptr<ExpTable> table;
  std::lock_guard<std::mutex> lock(mutex);
  if (!table)
    table = std::make_unique<ExpTable>(deviceExpTable(*gpu, bf16SwigluExpArguments()));
  return table.get();
}

} // namespace tk::checks
