//===- CallTensors.h - the tensors of the C API call in progress ----------===//
//
// An entry point's tensors, as its C signature gives them (`const tk_tensor *`
// inputs, `tk_tensor *` outputs), for checks that must wait until the entry
// point has validated its arguments but come before its first kernel: an
// output whose bytes meet another tensor's (an input read while it is
// written, or two outputs written into each other) would give an answer
// that depends on the kernels' order of accesses. The entry point's guard
// (kernels/common/entry_guard.h) declares them for the calling thread;
// tk_context_s::run checks them once, before the call's first kernel.
//===----------------------------------------------------------------------===//
#pragma once

#include "tk/runtime/Status.h"
#include "tk/tk.h"

#include <initializer_list>
#include <vector>

namespace tk::runtime {

struct NamedTensor {
  const char *name;
  const tk_tensor *tensor; ///< null: an absent optional tensor
};

/// INVALID_ARGUMENT naming the first output that may share a byte with
/// another of the tensors, and both byte ranges; OK otherwise. A parameter
/// read and written in place (an in/out `tk_tensor *`) is one tensor and
/// never meets itself. Never misses an overlap: tensors whose byte ranges
/// meet pass only when their strides show that they interleave (columns of
/// one buffer: each one's bytes lie in its own part of every period of the
/// gcd of their outer strides); layouts apart in a way that does not show
/// are refused too, and so is an output whose own elements share memory.
/// Descriptors an entry point refuses anyway (null data,
/// negative sizes or strides) are skipped. `rule` ends the message.
Status outputsOverlapNothing(const char *entry, const std::vector<NamedTensor> &inputs,
                             const std::vector<NamedTensor> &outputs,
                             const char *rule = "an output must not share memory with another tensor of the call");

/// The calling thread's call in progress, while an entry point's body runs
/// (nested calls stack).
class CallTensors {
public:
  CallTensors(const char *entry, std::initializer_list<NamedTensor> inputs, std::initializer_list<NamedTensor> outputs);
  ~CallTensors();
  CallTensors(const CallTensors &) = delete;
  CallTensors &operator=(const CallTensors &) = delete;
  /// Adds tensors to the innermost call in progress (none: nothing), for
  /// entry points whose tensors come in lists of a length given at the call
  /// (each element under its own name); declared before the first kernel,
  /// they are checked before anything runs (after it, before the next). The
  /// names must outlive the call.
  static void declare(const std::vector<NamedTensor> &inputs, const std::vector<NamedTensor> &outputs);
  /// The overlap check of the innermost call in progress, the first time it
  /// is asked (OK afterwards, and when no call is in progress).
  static Status checkBeforeFirstKernel();
  /// The overlap check of a call that launched no kernel, when its body is
  /// done (OK once checkBeforeFirstKernel has passed, and when no call is in
  /// progress): the answer to overlapping tensors does not depend on whether
  /// there was work to do.
  static Status checkIfNothingLaunched();

private:
  const char *entry_;
  std::vector<NamedTensor> inputs_, outputs_;
  bool checked_ = false, launched_ = false;
  CallTensors *outer_;
};

} // namespace tk::runtime
