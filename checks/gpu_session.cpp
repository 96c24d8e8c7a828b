//===- gpu_session.cpp ----------------------------------------------------===//
#include "checks/gpu_session.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>

namespace tk::checks {

GpuSession::GpuSession() { status_ = runtime::acquireDevice(driver_, info_); }

GpuSession::~GpuSession() {
  if (!driver_)
    return;
  driver_->cuCtxSynchronize();
  for (auto p : buffers_)
    driver_->cuMemFree(p);
  if (busyBuffer_)
    driver_->cuMemFree(reinterpret_cast<runtime::CUdeviceptr>(busyBuffer_));
}

void GpuSession::releaseSince(size_t mark) {
  if (buffers_.size() <= mark)
    return;
  driver_->cuCtxSynchronize(); // kernels may still use them
  for (size_t i = mark; i < buffers_.size(); ++i)
    driver_->cuMemFree(buffers_[i]);
  buffers_.resize(mark);
}

void GpuSession::check(const char *call, int r) {
  if (r != 0)
    throw std::runtime_error(driver_->describe(call, r));
}

void *GpuSession::alloc(size_t bytes) {
  runtime::CUdeviceptr p = 0;
  check("cuMemAlloc", driver_->cuMemAlloc(&p, std::max<size_t>(bytes, 256)));
  buffers_.push_back(p);
  return reinterpret_cast<void *>(p);
}

void GpuSession::upload(void *dst, const void *src, size_t bytes) {
  check("cuMemcpyHtoD", driver_->cuMemcpyHtoD(reinterpret_cast<runtime::CUdeviceptr>(dst), src, bytes));
}

void GpuSession::download(void *dst, const void *src, size_t bytes) {
  check("cuCtxSynchronize", driver_->cuCtxSynchronize());
  check("cuMemcpyDtoH", driver_->cuMemcpyDtoH(dst, reinterpret_cast<runtime::CUdeviceptr>(src), bytes));
}

void GpuSession::fill(void *dst, unsigned char byte, size_t bytes) {
  check("cuMemsetD8", driver_->cuMemsetD8(reinterpret_cast<runtime::CUdeviceptr>(dst), byte, bytes));
}

void GpuSession::synchronize() { check("cuCtxSynchronize", driver_->cuCtxSynchronize()); }

double GpuSession::medianMs(const std::function<void()> &fn, int warmup, int iters) {
  for (int i = 0; i < warmup; ++i)
    fn();
  synchronize();
  runtime::CUevent start, stop;
  check("cuEventCreate", driver_->cuEventCreate(&start, 0));
  check("cuEventCreate", driver_->cuEventCreate(&stop, 0));
  if (!busyBuffer_) { // the session's own, outside any Scope
    runtime::CUdeviceptr p = 0;
    check("cuMemAlloc", driver_->cuMemAlloc(&p, kBusyBytes));
    busyBuffer_ = reinterpret_cast<void *>(p);
  }
  std::vector<double> times;
  for (int i = 0; i < iters; ++i) {
    check("cuMemsetD32Async", driver_->cuMemsetD32Async(reinterpret_cast<runtime::CUdeviceptr>(busyBuffer_),
                                                        unsigned(i), kBusyBytes / 4, nullptr));
    driver_->cuEventRecord(start, nullptr);
    fn();
    driver_->cuEventRecord(stop, nullptr);
    check("cuEventSynchronize", driver_->cuEventSynchronize(stop));
    float ms = 0;
    driver_->cuEventElapsedTime(&ms, start, stop);
    times.push_back(ms);
  }
  driver_->cuEventDestroy(start);
  driver_->cuEventDestroy(stop);
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

double GpuSession::copyGBps(size_t bytes) {
  void *a = alloc(bytes), *b = alloc(bytes);
  fill(a, 0x3C, bytes);
  double ms = medianMs([&] {
    check("cuMemcpyDtoDAsync", driver_->cuMemcpyDtoDAsync(reinterpret_cast<runtime::CUdeviceptr>(b),
                                                          reinterpret_cast<runtime::CUdeviceptr>(a), bytes, nullptr));
  });
  return 2.0 * bytes / (ms * 1e-3) / 1e9;
}

void *Placement::put(const void *host, size_t bytes) {
  if (!gpu)
    return const_cast<void *>(host);
  void *d = gpu->alloc(bytes);
  gpu->upload(d, host, bytes);
  return d;
}

void *Placement::poisoned(void *host, size_t bytes, unsigned char poison) {
  if (!gpu) {
    if (bytes) // an empty buffer's data() may be null, which memset may not take
      std::memset(host, poison, bytes);
    return host;
  }
  void *d = gpu->alloc(bytes);
  gpu->fill(d, poison, bytes);
  return d;
}

void Placement::get(void *host, const void *placed, size_t bytes) {
  if (gpu)
    gpu->download(host, placed, bytes);
}

tk_tensor Placement::tensor(void *data, tk_dtype dtype, std::vector<int64_t> shape,
                            std::vector<int64_t> strides) const {
  tk_tensor t = deviceTensor(data, dtype, std::move(shape), std::move(strides));
  t.device = gpu ? TK_DEVICE_CUDA : TK_DEVICE_CPU;
  return t;
}

tk_tensor deviceTensor(void *data, tk_dtype dtype, std::vector<int64_t> shape, std::vector<int64_t> strides) {
  tk_tensor t{};
  t.data = data;
  t.dtype = dtype;
  t.ndim = (int32_t)shape.size();
  t.device = TK_DEVICE_CUDA;
  if (strides.empty()) {
    strides.assign(shape.size(), 1);
    for (int i = (int)shape.size() - 2; i >= 0; --i)
      strides[i] = strides[i + 1] * shape[i + 1];
  }
  for (size_t i = 0; i < shape.size(); ++i) {
    t.shape[i] = shape[i];
    t.strides[i] = strides[i];
  }
  return t;
}

} // namespace tk::checks
