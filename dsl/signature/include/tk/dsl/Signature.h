//===- Signature.h - what a built kernel expects at launch ----------------===//
//
// Plain data (no MLIR): the runtime binds tensors to these parameters,
// checks them, evaluates the grid and marshals the kernel's arguments.
//===----------------------------------------------------------------------===//
#pragma once

#include "tk/dsl/DType.h"
#include "tk/dsl/Dim.h"

#include <limits>
#include <map>
#include <string>
#include <vector>

namespace tk::dsl {

constexpr int64_t kDynamicStride = std::numeric_limits<int64_t>::min();

struct TensorParam {
  std::string name;
  DType dtype;
  std::vector<Dim> shape;
  /// Element strides; kDynamicStride where any stride is accepted at launch.
  std::vector<int64_t> strides;
  /// Byte alignment the kernel assumes for the base pointer and for every
  /// dynamic stride (in bytes); the launcher checks it.
  int64_t alignBytes = 1;
  bool isOutput = false;
};

/// A value the kernel takes at launch beside its tensors (a rank, a count):
/// not part of the kernel's cache key.
struct ScalarParam {
  std::string name;
  DType dtype; ///< I32, I64 or F32
};

struct KernelSignature {
  std::string name;
  std::vector<TensorParam> tensors;
  /// After the tensors, in this order; the launcher passes one value each.
  std::vector<ScalarParam> scalars;
  std::vector<Dim> grid; ///< blocks per grid dimension (1 to 3)
  int64_t threads = 128;
  /// > 0: a persistent grid (KernelBuilder::persistentGrid): at most this
  /// many blocks per SM, in one dimension, each looping over the tiles `grid`
  /// counts.
  int64_t persistentBlocksPerSm = 0;
  /// Launch sizes the kernel assumes to be multiples (KernelBuilder::dynamic
  /// with `multipleOf`): symbol -> multiple; the launcher checks them.
  std::map<std::string, int64_t> symbolMultiples;
};

} // namespace tk::dsl
