//===- moe_routing.h - one MoE layer's routing through the C API (moe.md 5) ===//
//
// gate -> weights -> mapping -> expand -> stand-in expert -> reduce, each step
// an entry point of tk.h on the tensors' device, and the same composition of
// the C++ references beside it: examples/moe_routing.cpp runs it, and so do
// MoeRouting.* (CPU path) and MoeRoutingGpu.* (a GPU).
//===----------------------------------------------------------------------===//
#pragma once

#include "checks/gpu_session.h"
#include "tk/tk.h"

#include <cstdint>
#include <string>

namespace tk::checks {

struct MoeRoutingCase {
  int64_t tokens = 4001, experts = 64, topk = 6, hidden = 1024, alignment = 128;
  uint64_t seed = 3;
};

struct MoeRoutingResult {
  std::string error;      ///< a failed call: which, and tk_last_error()
  int64_t positions = 0;  ///< sum of the aligned segments (M)
  int64_t mismatches = 0; ///< elements of any step's output that differ from the references'
  std::string firstMismatch;
  bool ok() const { return error.empty() && mismatches == 0; }
};

/// Runs the composition on the device of `where` (the GPU of its session,
/// or the CPU path) and compares every intermediate and the output bit for
/// bit with the references': topk_gate's ids, normalize_weight's weights, the
/// seven outputs of get_fused_mapping, expand_to_fused's rows and
/// reduce_fused's output. The stand-in expert (expert e multiplies its rows
/// by 1 + e / 8, where a grouped GEMM would run) and the gathering of the
/// chosen scores run on the host.
MoeRoutingResult runMoeRouting(tk_context ctx, GpuSession *gpu, const MoeRoutingCase &c);

} // namespace tk::checks
