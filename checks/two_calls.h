//===- two_calls.h - an entry point called twice against its references --===//
//
// The checks of tolerance-bounded operators (the mHC family's) share one
// protocol: call the entry point twice, each time into fresh output buffers
// (poisoned, so unwritten elements show, or holding the values it
// accumulates into), fetch them, count the outputs whose two results differ
// in any bit (CheckResult::countMismatches) and the first call's elements
// not near their reference (outMismatches).
//===----------------------------------------------------------------------===//
#pragma once

#include "checks/gpu_session.h"
#include "checks/per_token_cast_check.h"

#include <cstdint>
#include <functional>
#include <vector>

namespace tk::checks {

/// Whether element i's value `got` is near its reference `want`.
using Near = std::function<bool(int64_t i, double want, double got)>;

/// One output of the call: its shape and element type (TK_F32 or TK_BF16),
/// its reference per element and what counts as near it.
struct CheckedOutput {
  std::vector<int64_t> shape;
  tk_dtype dtype = TK_F32;
  std::vector<double> want;
  Near near;
  /// The buffer's contents before each call (an accumulated-into gradient),
  /// or null: poisoned.
  const void *initial = nullptr;
  int64_t elements() const;
  int64_t bytes() const; ///< at least one element's: an empty tensor still has an address
};

/// Within atol + rtol |want|.
Near within(double atol, double rtol);

class TwoCalls {
public:
  using Call = std::function<tk_status(const std::vector<tk_tensor> &outputs)>;
  TwoCalls(Placement &p, std::vector<CheckedOutput> outputs);
  /// Calls twice and compares as the header says; false (r says why) when a
  /// call fails.
  bool run(CheckResult &r, const Call &call);
  /// The first call's output tensors (to time it again).
  const std::vector<tk_tensor> &first() const { return tensors_[0]; }

private:
  Placement &p_;
  std::vector<CheckedOutput> outs_;
  // Per call: the host buffers (on the CPU path the operator writes into them) and their tensors.
  std::vector<std::vector<uint8_t>> host_[2];
  std::vector<tk_tensor> tensors_[2];
};

} // namespace tk::checks
