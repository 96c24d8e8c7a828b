//===- BlockedLayout.h - index arithmetic of blocked fragment layouts -----===//
//
// Pure arithmetic (no IR) describing which thread holds which element of a
// fragment with a blocked layout, and how a grouped reduction regroups it.
// The lowering emits IR that follows these formulas; unit tests check them.
//
// Thread t of the block has lane = t % 32 and warp = t / 32. Per dimension d,
// lane_d = (lane / laneStride(d)) % lanes[d] (last dimension fastest), and the
// same for warps. A thread owns slots; slot s stands for a repetition index
// rep_d and an offset v_d < vec[d] per dimension, with v innermost and the last
// dimension fastest, so the vec[last] elements of one chunk are consecutive
// slots. Its coordinate is
//   coord_d = rep_d * cover(d) + warp_d * vec[d] * lanes[d] + lane_d * vec[d] + v_d.
//===----------------------------------------------------------------------===//
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace tk::compiler {

struct BlockedLayout {
  std::vector<int64_t> shape, vec, lanes, warps;

  int64_t rank() const { return (int64_t)shape.size(); }
  int64_t cover(int64_t d) const { return vec[d] * lanes[d] * warps[d]; }
  int64_t reps(int64_t d) const { return (shape[d] + cover(d) - 1) / cover(d); }
  int64_t laneStride(int64_t d) const;
  int64_t warpStride(int64_t d) const;
  int64_t numWarps() const;
  /// Number of elements each thread holds (including padding past the shape).
  int64_t slotsPerThread() const;
  /// True when some thread slots fall outside the shape (they are masked).
  bool hasPadding(int64_t d) const { return reps(d) * cover(d) != shape[d]; }
  /// Padding along some dimension: thread positions past the shape.
  bool padded() const {
    for (int64_t d = 0; d < rank(); ++d)
      if (hasPadding(d))
        return true;
    return false;
  }

  struct SlotPos {
    std::vector<int64_t> rep, v;
  };
  SlotPos slotPos(int64_t slot) const;
  int64_t slotIndex(const SlotPos &pos) const;
  /// The part of coord_d that does not depend on the thread.
  int64_t staticCoord(const SlotPos &pos, int64_t d) const { return pos.rep[d] * cover(d) + pos.v[d]; }
  int64_t laneCoord(int64_t lane, int64_t d) const { return (lane / laneStride(d)) % lanes[d]; }
  int64_t warpCoord(int64_t warp, int64_t d) const { return (warp / warpStride(d)) % warps[d]; }
  /// The thread-dependent part of coord_d.
  int64_t threadCoord(int64_t lane, int64_t warp, int64_t d) const {
    return warpCoord(warp, d) * vec[d] * lanes[d] + laneCoord(lane, d) * vec[d];
  }
  std::vector<int64_t> coords(int64_t slot, int64_t thread) const;
  std::string str() const;
  bool operator==(const BlockedLayout &o) const {
    return shape == o.shape && vec == o.vec && lanes == o.lanes && warps == o.warps;
  }
  bool operator!=(const BlockedLayout &o) const { return !(*this == o); }
};

/// How a reduction along `dim` in groups of `group` maps onto a blocked layout.
struct GroupedReduction {
  enum class Kind {
    InThread,    ///< group <= vec[dim]: each group lies in one thread's chunk
    AcrossLanes, ///< the group spans consecutive thread positions (lanes, maybe warps)
    WholeSpan,   ///< the group spans whole repetitions (or the whole dimension)
  };
  Kind kind;
  BlockedLayout parent;
  int64_t dim = 0, group = 0;
  /// Thread positions q = warp_d * lanes[dim] + lane_d sharing one group.
  int64_t threadPositions = 1;
  /// Lane-id xor masks to butterfly over, smallest first.
  std::vector<int64_t> laneMasks;
  /// Warps (along dim) sharing one group; > 1 needs a shared-memory exchange.
  int64_t warpsPerGroup = 1;
  /// Per-thread shape of the reduced fragment: reps and vec per dimension.
  std::vector<int64_t> redReps, redVec;

  /// Decides how to reduce; returns an explanation in `error` when the group
  /// does not fit the layout.
  static bool analyze(const BlockedLayout &parent, int64_t dim, int64_t group, GroupedReduction &out,
                      std::string &error);
  int64_t reducedSlots() const;
  /// Reduced slot holding the group of parent slot `slot`.
  int64_t reducedSlotOf(int64_t parentSlot) const;
  /// A parent slot whose group is reduced slot `r` (its first member in this thread).
  int64_t representativeSlot(int64_t reducedSlot) const;
  /// The group is the whole of a padded dimension `d`: every thread position along it, the padding ones too,
  /// holds that one group's value (the reduction leaves it on all of them), at reduced coordinate 0.
  bool spansPaddedDim(int64_t d) const {
    return d == dim && kind == Kind::WholeSpan && group == parent.shape[d] && parent.hasPadding(d);
  }
};

/// The default blocked layout for a fragment shape on a block of `numWarps`
/// warps, each thread owning `vecElems` consecutive elements along the last
/// dimension where the shape allows (and `rowVecElems` consecutive rows, for
/// tiles that are transposed: each thread then holds small square blocks).
/// chooseBlockedLayout, except that where its vectors are so wide that the
/// block's threads outnumber the tile's positions (some threads idle, the
/// layout padded), vectors half as wide are taken if they tile the shape
/// exactly. For targets with 32-byte accesses (sm_100a), whose vectors would
/// idle half the threads of tiles sized for 16-byte ones.
/// Lanes go to the last dimension first; so do warps, unless `warpsAlongRows`
/// puts them on the first dimension first (a warp per row where the rows
/// allow, so that reductions along a row never leave the warp).
BlockedLayout chooseUnpaddedBlockedLayout(const std::vector<int64_t> &shape, int64_t numWarps, int64_t vecElems,
                                          int64_t rowVecElems = 1, bool warpsAlongRows = false);
BlockedLayout chooseBlockedLayout(const std::vector<int64_t> &shape, int64_t numWarps, int64_t vecElems,
                                  int64_t rowVecElems = 1, bool warpsAlongRows = false);

} // namespace tk::compiler
