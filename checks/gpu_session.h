//===- gpu_session.h - device buffers, timing and the copy ceiling --------===//
//
// What the benchmark and the GPU tests need from a device: allocate, copy,
// time with CUDA events (median of many runs after warm-up) and measure the
// device-to-device copy bandwidth in the same process.
//===----------------------------------------------------------------------===//
#pragma once

#include "tk/runtime/Device.h"
#include "tk/tk.h"

#include <functional>
#include <string>
#include <vector>

namespace tk::checks {

class GpuSession {
public:
  /// Binds device 0 (or the current context). ok() says whether that worked.
  GpuSession();
  bool ok() const { return status_.isOk(); }
  const runtime::Status &status() const { return status_; }
  const runtime::DeviceInfo &device() const { return info_; }
  const runtime::Driver &driver() const { return *driver_; }

  /// Device memory, freed when the session ends (or its Scope does).
  void *alloc(size_t bytes);
  /// Frees, when it ends, what the session allocated while it lived: a
  /// benchmark case run many times (tk tune) holds one run's buffers at once.
  class Scope {
  public:
    explicit Scope(GpuSession &gpu) : gpu_(gpu), mark_(gpu.buffers_.size()) {}
    ~Scope() { gpu_.releaseSince(mark_); }
    Scope(const Scope &) = delete;
    Scope &operator=(const Scope &) = delete;

  private:
    GpuSession &gpu_;
    size_t mark_;
  };
  void upload(void *dst, const void *src, size_t bytes);
  void download(void *dst, const void *src, size_t bytes);
  void fill(void *dst, unsigned char byte, size_t bytes);
  void synchronize();

  /// Median milliseconds of `fn` over `iters` runs after `warmup` runs, each
  /// timed with events on the default stream. Each run's start event follows
  /// a 64 MiB memset on that stream, so the GPU is busy while the host makes
  /// the call: the events time the device's work, not the host's path to the
  /// launch (about 7 µs a call, which fell inside the events of short
  /// kernels while the GPU waited idle). triton's do_bench, which times the
  /// peers, does the same with its L2 flush before each run.
  double medianMs(const std::function<void()> &fn, int warmup = 3, int iters = 20);
  /// Device-to-device copy bandwidth in GB/s (bytes read + written) over `bytes`.
  double copyGBps(size_t bytes);

  ~GpuSession();

private:
  void releaseSince(size_t mark);
  static constexpr size_t kBusyBytes = 64u << 20;
  void check(const char *call, int r);
  runtime::Status status_;
  const runtime::Driver *driver_ = nullptr;
  runtime::DeviceInfo info_;
  std::vector<runtime::CUdeviceptr> buffers_;
  void *busyBuffer_ = nullptr; ///< the memset's target in medianMs
};

/// Where an operator's buffers live for a check: copied to the GPU of `gpu`,
/// or used in place on the CPU path when `gpu` is null.
struct Placement {
  GpuSession *gpu = nullptr;

  /// The data of `host`, where the operator will read it.
  void *put(const void *host, size_t bytes);
  /// An output buffer filled with `poison` (so unwritten elements show).
  void *poisoned(void *host, size_t bytes, unsigned char poison);
  /// Copies a placed buffer back into `host` (nothing to do on the CPU).
  void get(void *host, const void *placed, size_t bytes);
  tk_tensor tensor(void *data, tk_dtype dtype, std::vector<int64_t> shape, std::vector<int64_t> strides = {}) const;
};

/// A device tensor descriptor for the C API.
tk_tensor deviceTensor(void *data, tk_dtype dtype, std::vector<int64_t> shape, std::vector<int64_t> strides = {});

} // namespace tk::checks
