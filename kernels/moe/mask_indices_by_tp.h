//===- mask_indices_by_tp.h - keep this TP rank's experts (moe.md 2.5) ----===//
//
// For each expert id v (R = n div num_ep_ranks experts per EP rank, Tp TP
// ranks): -1 when v < 0 or (v div R) mod Tp != tp_rank, else the local id
// ((v div R) div Tp) R + v mod R. R, Tp and tp_rank are the kernel's scalar
// arguments, not part of its cache key: one kernel per index dtype serves
// every rank. Ids at or beyond num_ep_ranks R are remapped by the same
// formula (the reference does not check them, moe.md Q17).
//===----------------------------------------------------------------------===//
#pragma once

#include "kernels/common/operator_schedule.h"
#include "kernels/common/program.h"

#include <string>
#include <vector>

namespace tk::kernels::moe {

struct MaskIndicesConfig {
  dsl::DType dtype = dsl::DType::I64; ///< the ids' type, I32 or I64
  /// Schedule: ids per CTA (0: 2048) and threads (0: 256); magic (1, and
  /// the heuristic's: the quotients by R and Tp as a high multiply and a
  /// shift by numbers the call computes, kernels/common/division_magic.h,
  /// and four more scalar arguments; 0: hardware divisions).
  int64_t tile = 0, threads = 0, magic = -1;
  int64_t tileElements() const { return tile ? tile : 2048; }
  int64_t numThreads() const { return threads ? threads : 256; }
  bool usesMagic() const { return magic != 0; }
  std::string key() const;
};

const OperatorSchedule<MaskIndicesConfig> &maskIndicesSchedule();

/// Tensors: ids (n) and masked (n), flat; scalars: R, Tp, tp_rank (of the ids' type), with magic also R's and Tp's
/// divisionMagic multipliers and shifts (maskIndicesScalars).
dsl::BuiltKernel buildMaskIndices(mlir::MLIRContext &ctx, const MaskIndicesConfig &config);

/// The kernel's scalar arguments for `config`.
std::vector<int64_t> maskIndicesScalars(const MaskIndicesConfig &config, int64_t perRank, int64_t tpRanks,
                                        int64_t tpRank);

/// Reference of one id.
int64_t maskIndexReference(int64_t v, int64_t perRank, int64_t tpRanks, int64_t tpRank);

} // namespace tk::kernels::moe
