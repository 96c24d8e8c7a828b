//===- unique_group_indices.h - inplace_unique_group_indices (moe.md 2.8) -===//
//
// Per row, every later occurrence of a non-negative id becomes -1, in place;
// the first occurrence and negative entries stay. Compared pairwise (K is at
// most 64), so no id range is assumed: tk's result is the reference's for
// ids in [-1, num_groups) and the same rule for any other value (moe.md Q10).
//===----------------------------------------------------------------------===//
#pragma once

#include "kernels/common/operator_schedule.h"
#include "kernels/common/program.h"

#include <string>

namespace tk::kernels::moe {

struct UniqueGroupIndicesConfig {
  int64_t topk = 0; ///< K, compile-time; rows are dynamic
  /// Schedule: rows per CTA, one per thread (0: 128).
  int64_t rows = 0;
  int64_t rowsPerBlock() const { return rows ? rows : 128; }
  std::string key() const;
};

const OperatorSchedule<UniqueGroupIndicesConfig> &uniqueGroupIndicesSchedule();

/// Tensors: ids (rows, K) i64, read and written in place (each thread reads
/// its row before it writes it).
dsl::BuiltKernel buildUniqueGroupIndices(mlir::MLIRContext &ctx, const UniqueGroupIndicesConfig &config);

/// Reference, in place on (rows, k) row-major ids.
void uniqueGroupIndicesReference(int64_t *ids, int64_t rows, int64_t k);

} // namespace tk::kernels::moe
