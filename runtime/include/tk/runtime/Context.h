//===- Context.h - what a tk_context holds --------------------------------===//
#pragma once

#include "tk/runtime/CpuBackend.h"
#include "tk/runtime/Device.h"
#include "tk/runtime/JitCache.h"
#include "tk/runtime/Launcher.h"
#include "tk/runtime/ScheduleSettings.h"
#include "tk/runtime/ScratchArena.h"

#include <atomic>
#include <cstdint>
#include <cstring>
#include <functional>
#include <mutex>
#include <optional>
#include <set>

struct tk_context_s {
  ~tk_context_s();
  tk::runtime::JitCache cache;
  tk::runtime::CpuCache cpuCache;
  /// Forces a target instead of the device's own (TK_TARGET, or tests).
  std::optional<tk::compiler::Target> targetOverride;

  /// Binds the device on first use and picks its target; later, makes the
  /// bound CUDA context current on a calling thread that has none.
  tk::runtime::Status ensureDevice();
  /// TK_SCHEDULE as read when the context was made, and what each
  /// operator's calls ran with.
  tk::runtime::ScheduleSettings schedules = tk::runtime::ScheduleSettings::fromEnvironment();
  tk::runtime::ScheduleLog scheduleLog;
  /// The target a call on `tensors` compiles for: the CPU path's for host
  /// tensors (or TK_BACKEND=cpu), else the device's (bound on first use).
  /// An error for tensors in both places.
  tk::runtime::Status targetFor(const std::vector<const tk_tensor *> &tensors, tk::compiler::Target &out);
  /// Compiles (cached) and runs the kernel `factory` builds: on the CPU
  /// when the tensors are in host memory (or TK_BACKEND=cpu), else on the
  /// CUDA device, asynchronously on `stream`.
  /// `scalars`: one value per scalar argument of the kernel (i32, i64; f32
  /// as its bits), in their order.
  tk::runtime::Status run(const tk::runtime::KernelFactory &factory, const std::vector<const tk_tensor *> &tensors,
                          tk_stream stream, const std::vector<int64_t> &scalars = {});

  /// Compiles and loads, side by side on threads of their own, those kernels
  /// of `factories` (a call's, with their schedules resolved) that are not in
  /// memory yet, for the target of `tensors`: an operator of several kernels
  /// then waits on its first call for the slowest of them rather than their
  /// sum, and its run() calls find them. Nothing on the CPU path, nor for a
  /// single kernel to compile (run() does that). Launches nothing; a kernel
  /// that fails to compile or load here is left for its run() to report.
  void prepare(const std::vector<tk::runtime::KernelFactory> &factories, const std::vector<const tk_tensor *> &tensors);

  /// GPU targets each kernel of a CPU-path call is compiled for as well (to
  /// PTX, not run): `tk check --compile-targets` finds layout conflicts and
  /// other lowering failures of every variant its cases reach on a machine
  /// with no GPU. The schedules are the CPU path's, not a device's table.
  std::vector<tk::compiler::Target> alsoCompileFor;
  /// Called with each kernel compiled for alsoCompileFor's targets; an error
  /// fails the call (`tk check --ptxas` assembles the PTX and refuses spills).
  std::function<tk::runtime::Status(const tk::runtime::CompiledKernel &, const tk::compiler::Target &)>
      onOtherTargetCompiled;

  /// tk_set_input_checks: the TK_CHECK_* flags the operators' calls honour.
  uint32_t inputChecks = 0;

  /// tk_set_num_sms: the SM count persistent grids are sized for (0: the device's).
  std::atomic<int> numSms{0};
  /// An error when `n` SMs exceed the bound device's (checked when bound).
  tk::runtime::Status checkNumSms(int n) const;

  /// The blocks the operators' scratch buffers come from (ScratchArena.h),
  /// on the bound device.
  tk::runtime::ScratchArena scratchArena;
  /// Copies `bytes` at device address `src` to `dst` in `stream`'s order and
  /// waits for it, through a page-locked buffer the context keeps (grown on
  /// demand; concurrent read-backs take turns): a copy into pageable memory
  /// goes through the driver's own staging.
  tk::runtime::Status readBack(tk::runtime::CUdeviceptr src, size_t bytes, tk_stream stream,
                               const std::function<void(const void *)> &inspect);

  const tk::runtime::Driver *driver = nullptr;
  tk::runtime::DeviceInfo device;
  std::optional<tk::compiler::Target> target;

private:
  /// Compiles `factory` for alsoCompileFor's targets, once per kernel and target.
  tk::runtime::Status compileForOtherTargets(const tk::runtime::KernelFactory &factory);
  std::set<std::string> compiledForOtherTargets_;
  std::mutex deviceMutex_;
  std::mutex readBackMutex_;
  void *readBackHost_ = nullptr;
  size_t readBackBytes_ = 0;
};

namespace tk::runtime {
/// An f32 scalar argument as tk_context_s::run takes it: its bits.
inline int64_t f32Scalar(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}
} // namespace tk::runtime
