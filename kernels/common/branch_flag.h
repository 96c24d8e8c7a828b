//===- branch_flag.h - conditions for KernelBuilder::when ------------------===//
//
// KernelBuilder::when takes a one-element i32 tile: nonzero where the block
// takes the branch. Kernels make it from a one-element tile (a token's slot
// position) or from the block's coordinates, with a predicate on its element.
//===----------------------------------------------------------------------===//
#pragma once

#include "tk/dsl/KernelBuilder.h"

#include <functional>

namespace tk::kernels {

/// 1 where `holds` of `t`'s element (an i1 scalar), else 0, as i32.
inline dsl::Tile branchFlag(const dsl::Tile &t, const std::function<dsl::Scalar(const dsl::Scalar &)> &holds) {
  return dsl::map({t}, dsl::DType::I32, [&](const std::vector<dsl::Scalar> &v) {
    return select(holds(v[0]), v[0].constantI32(1), v[0].constantI32(0));
  });
}

} // namespace tk::kernels
