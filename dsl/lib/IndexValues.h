//===- IndexValues.h - the MLIR values of DSL indices -----------*- C++ -*-===//
#pragma once

#include "tk/dsl/Values.h"

#include "llvm/ADT/SmallVector.h"

#include <vector>

namespace tk::dsl {

/// The index values of a tile op's origin.
inline llvm::SmallVector<mlir::Value> values(const std::vector<Index> &indices) {
  llvm::SmallVector<mlir::Value> out;
  for (const Index &i : indices)
    out.push_back(i.value());
  return out;
}

} // namespace tk::dsl
