//===- engram_check.h - run engram_hash and fused_weight, check, time -----===//
#pragma once

#include "checks/gpu_session.h"
#include "checks/per_token_cast_check.h"
#include "tk/tk.h"

#include <cstdint>
#include <string>

namespace tk::checks {

struct EngramHashCase {
  int64_t tokens, ngram = 3, layers = 2, tables = 8;
  /// Also ids and multipliers near the i64/i32 edges (negative, wrapping
  /// products) and a non-positive modulus (its column -1), besides the
  /// spec's randint draws.
  bool edges = false;
  uint64_t seed = 1;
};

struct FusedWeightCase {
  int64_t streams = 4, hidden; ///< n, H
  bool edges = false;          ///< subnormals, infinities, NaN and signed zeros mixed in
  uint64_t seed = 1;
};

std::string describe(const EngramHashCase &c);
std::string describe(const FusedWeightCase &c);

/// mhc_engram.md 4.1's draws (ids and multipliers in [0, 1e5), moduli in
/// [1e5, 1e6), offsets from tk_engram_make_offsets) through tk_engram_hash on
/// the GPU of `gpu` or the CPU path, bit for bit against
/// engramHashReference; bytes = every input and the output.
CheckResult checkEngramHash(GpuSession *gpu, tk_context ctx, const EngramHashCase &c, bool time);
/// randn bf16 weights through tk_engram_fused_weight, bit for bit against
/// the fp32 product; bytes = 4 n H (two bf16 reads, one f32 write).
CheckResult checkFusedWeight(GpuSession *gpu, tk_context ctx, const FusedWeightCase &c, bool time);

} // namespace tk::checks
