//===- sinkhorn_check.h - run sinkhorn_normalize, check, time -------------===//
#pragma once

#include "checks/gpu_session.h"
#include "checks/per_token_cast_check.h"
#include "tk/tk.h"

#include <cstdint>
#include <string>

namespace tk::checks {

struct SinkhornCase {
  int64_t matrices, n = 4, repeat = 10;
  bool backward = false;
  uint64_t seed = 1;
};

std::string describe(const SinkhornCase &c);

/// randn matrices (and randn grad_out), eps 1e-6 (mhc_engram.md 3.4's
/// draws) through tk_sinkhorn_normalize_fwd or _bwd on the GPU of `gpu` or
/// the CPU path, against the fp64 reference within the spec's fp32
/// tolerance (1e-5 + 1.3e-6 |ref|); a second call bit-identical to the
/// first (countMismatches). bytes: 8 M n^2 (forward), 12 M n^2 (backward).
CheckResult checkSinkhorn(GpuSession *gpu, tk_context ctx, const SinkhornCase &c, bool time);

} // namespace tk::checks
