//===- norm_fn_check.h - run mhc_pre_norm_fn, check, time -----------------===//
#pragma once

#include "checks/gpu_session.h"
#include "checks/per_token_cast_check.h"
#include "tk/tk.h"

#include <cstdint>
#include <string>

namespace tk::checks {

struct NormFnCase {
  bool backward = false;
  int64_t tokens, streams = 4, hidden; ///< T, n, H (n3 = 2n + n^2)
  bool weighted = false;               ///< a norm weight folded into fn
  bool accumulate = false;             ///< backward: into a residual-gradient buffer holding earlier gradients
  uint64_t seed = 1;
};

std::string describe(const NormFnCase &c);

/// mhc_engram.md 3.2's draws (residual randn (1 + 0.01 m) bf16, fn randn 1e-4
/// (1 + 0.01 m), norm weight randn 0.1 + 1, grad_mix randn, eps 1e-6; the
/// backward's mul and ss the fp64 forward's, rounded to f32) through
/// tk_mhc_pre_norm_fn_fwd or _bwd on the GPU of `gpu` or the CPU path,
/// against the fp64 references (which round fn w and dmul to TF32 as the
/// kernels do), tighter than the spec's tolerances, which are for torch:
/// mix and mul 1e-4 (|ref| + the output's largest |ref|), ss 1e-5 |ref|;
/// grad_residual bf16's (1e-5 + 1.6e-2 |ref|), grad_fn and grad_norm_weight
/// 1e-3 |ref| + 2e-3 of the largest; a second call bit-identical to the
/// first (countMismatches). bytes: 3.2 item 5.
CheckResult checkNormFn(GpuSession *gpu, tk_context ctx, const NormFnCase &c, bool time);

} // namespace tk::checks
