//===- FragmentLayouts.h - how a fragment's layout is held per thread ------===//
//
// The per-thread form of a fragment type's layout attribute, as the pieces of
// tile-lower-to-gpu need it: a blocked layout's arithmetic, or a reduced
// layout as the grouped reduction of its blocked root. Errors are
// diagnostics on the op being lowered.
//===----------------------------------------------------------------------===//
#pragma once

#include "tk/compiler/Dialect/Tile/Tile.h"
#include "tk/compiler/Layout/BlockedLayout.h"

#include <optional>

namespace tk::compiler {

mlir::FailureOr<BlockedLayout> blockedOf(mlir::Operation *op, tile::FragmentType type);

/// How a reduced fragment is held per thread: as the result of reduction `g`
/// of its blocked root layout. A reduction of a reduction (nested layout) is
/// held as `g` over the root too, along its own dimension, with `inner` (the
/// first reduction) telling which of its values are replicas of one group.
struct Grouping {
  GroupedReduction g;
  std::optional<GroupedReduction> inner;
};

mlir::FailureOr<Grouping> groupingOf(mlir::Operation *op, tile::FragmentType reducedType);

inline const GroupedReduction *innerOf(const Grouping &g) { return g.inner ? &*g.inner : nullptr; }

/// The grouping of a reduced fragment, or a blocked one seen as a reduction
/// with groups of one element along the last dimension (the same slots in the
/// same order), so that the accesses written for reduced fragments (split_last
/// and atomic_add) also take blocked ones, one element at a time.
mlir::FailureOr<Grouping> groupingOrSingletons(mlir::Operation *op, tile::FragmentType type);

/// The length of a fragment's per-thread vector: the slots of its blocked
/// layout, or the reduced slots of its reduced one; none without a layout
/// (or with one that does not fit the shape).
std::optional<int64_t> slotsPerThread(tile::FragmentType type);

} // namespace tk::compiler
