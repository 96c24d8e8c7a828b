//===- BlockedLayout.cpp - index arithmetic of blocked layouts ------------===//
#include "tk/compiler/Layout/BlockedLayout.h"

#include <algorithm>
#include <cassert>
#include <sstream>

namespace tk::compiler {

int64_t BlockedLayout::laneStride(int64_t d) const {
  int64_t s = 1;
  for (int64_t e = d + 1; e < rank(); ++e)
    s *= lanes[e];
  return s;
}

int64_t BlockedLayout::warpStride(int64_t d) const {
  int64_t s = 1;
  for (int64_t e = d + 1; e < rank(); ++e)
    s *= warps[e];
  return s;
}

int64_t BlockedLayout::numWarps() const {
  int64_t n = 1;
  for (int64_t w : warps)
    n *= w;
  return n;
}

int64_t BlockedLayout::slotsPerThread() const {
  int64_t n = 1;
  for (int64_t d = 0; d < rank(); ++d)
    n *= reps(d) * vec[d];
  return n;
}

BlockedLayout::SlotPos BlockedLayout::slotPos(int64_t slot) const {
  SlotPos pos;
  pos.rep.assign(rank(), 0);
  pos.v.assign(rank(), 0);
  for (int64_t d = rank() - 1; d >= 0; --d) {
    pos.v[d] = slot % vec[d];
    slot /= vec[d];
  }
  for (int64_t d = rank() - 1; d >= 0; --d) {
    pos.rep[d] = slot % reps(d);
    slot /= reps(d);
  }
  return pos;
}

int64_t BlockedLayout::slotIndex(const SlotPos &pos) const {
  int64_t slot = 0;
  for (int64_t d = 0; d < rank(); ++d)
    slot = slot * reps(d) + pos.rep[d];
  for (int64_t d = 0; d < rank(); ++d)
    slot = slot * vec[d] + pos.v[d];
  return slot;
}

std::vector<int64_t> BlockedLayout::coords(int64_t slot, int64_t thread) const {
  SlotPos pos = slotPos(slot);
  std::vector<int64_t> c(rank());
  for (int64_t d = 0; d < rank(); ++d)
    c[d] = staticCoord(pos, d) + threadCoord(thread % 32, thread / 32, d);
  return c;
}

std::string BlockedLayout::str() const {
  std::ostringstream os;
  auto list = [&](const std::vector<int64_t> &v) {
    os << "[";
    for (size_t i = 0; i < v.size(); ++i)
      os << (i ? ", " : "") << v[i];
    os << "]";
  };
  os << "blocked shape=";
  list(shape);
  os << " vec=";
  list(vec);
  os << " lanes=";
  list(lanes);
  os << " warps=";
  list(warps);
  return os.str();
}

bool GroupedReduction::analyze(const BlockedLayout &parent, int64_t dim, int64_t group, GroupedReduction &out,
                               std::string &error) {
  out = GroupedReduction();
  out.parent = parent;
  out.dim = dim;
  out.group = group;
  out.redReps.clear();
  out.redVec.clear();
  for (int64_t d = 0; d < parent.rank(); ++d) {
    out.redReps.push_back(parent.reps(d));
    out.redVec.push_back(parent.vec[d]);
  }
  int64_t size = parent.shape[dim], vec = parent.vec[dim], cover = parent.cover(dim);
  int64_t lanes = parent.lanes[dim], warps = parent.warps[dim];
  if (group <= 0 || size % group) {
    error = "group " + std::to_string(group) + " does not divide the extent " + std::to_string(size);
    return false;
  }
  if (group <= vec) {
    if (vec % group) {
      error = "group " + std::to_string(group) + " does not divide the per-thread vector of " +
              std::to_string(vec) + " elements";
      return false;
    }
    out.kind = Kind::InThread;
    out.redVec[dim] = vec / group;
    return true;
  }
  if (group % vec) {
    error = "group " + std::to_string(group) + " is not a multiple of the per-thread vector of " +
            std::to_string(vec) + " elements";
    return false;
  }
  out.redVec[dim] = 1;
  if (group < cover && group != size) {
    if (cover % group) {
      error = "group " + std::to_string(group) + " does not divide the layout's coverage of " +
              std::to_string(cover) + " elements along dimension " + std::to_string(dim);
      return false;
    }
    out.kind = Kind::AcrossLanes;
    out.threadPositions = group / vec;
  } else {
    if (group % cover && group != size) {
      error = "group " + std::to_string(group) + " is neither a multiple of the layout's coverage of " +
              std::to_string(cover) + " elements nor the whole dimension";
      return false;
    }
    out.kind = Kind::WholeSpan;
    out.threadPositions = lanes * warps;
    out.redReps[dim] = group == size ? 1 : parent.reps(dim) / (group / cover);
  }
  int64_t lanePositions = std::min(out.threadPositions, lanes);
  for (int64_t m = 1; m < lanePositions; m <<= 1)
    out.laneMasks.push_back(m * parent.laneStride(dim));
  out.warpsPerGroup = out.threadPositions > lanes ? out.threadPositions / lanes : 1;
  return true;
}

int64_t GroupedReduction::reducedSlots() const {
  int64_t n = 1;
  for (size_t d = 0; d < redReps.size(); ++d)
    n *= redReps[d] * redVec[d];
  return n;
}

int64_t GroupedReduction::reducedSlotOf(int64_t parentSlot) const {
  BlockedLayout::SlotPos pos = parent.slotPos(parentSlot);
  int64_t r = (int64_t)redReps.size();
  // Map the parent position into the reduced per-thread grid.
  std::vector<int64_t> rep = pos.rep, v = pos.v;
  switch (kind) {
  case Kind::InThread:
    v[dim] /= group;
    break;
  case Kind::AcrossLanes:
    v[dim] = 0;
    break;
  case Kind::WholeSpan:
    v[dim] = 0;
    rep[dim] = redReps[dim] == 1 ? 0 : rep[dim] / (group / parent.cover(dim));
    break;
  }
  int64_t slot = 0;
  for (int64_t d = 0; d < r; ++d)
    slot = slot * redReps[d] + rep[d];
  for (int64_t d = 0; d < r; ++d)
    slot = slot * redVec[d] + v[d];
  return slot;
}

int64_t GroupedReduction::representativeSlot(int64_t reducedSlot) const {
  for (int64_t s = 0; s < parent.slotsPerThread(); ++s)
    if (reducedSlotOf(s) == reducedSlot)
      return s;
  assert(false && "every reduced slot has a member");
  return 0;
}

static int64_t pow2Ceil(int64_t x) {
  int64_t p = 1;
  while (p < x)
    p <<= 1;
  return p;
}

static int64_t largestPow2Dividing(int64_t x) { return x & -x; }

BlockedLayout chooseBlockedLayout(const std::vector<int64_t> &shape, int64_t numWarps, int64_t vecElems,
                                  int64_t rowVecElems, bool warpsAlongRows) {
  BlockedLayout l;
  int64_t r = (int64_t)shape.size();
  l.shape = shape;
  l.vec.assign(r, 1);
  l.lanes.assign(r, 1);
  l.warps.assign(r, 1);
  l.vec[r - 1] = std::min(vecElems, largestPow2Dividing(shape[r - 1]));
  if (r >= 2)
    l.vec[r - 2] = std::min(rowVecElems, largestPow2Dividing(shape[r - 2]));
  // Lanes from the last dimension: a warp's accesses stay contiguous.
  std::vector<int64_t> positions(r);
  int64_t lanesLeft = 32, warpsLeft = numWarps;
  for (int64_t d = r - 1; d >= 0; --d) {
    positions[d] = (shape[d] + l.vec[d] - 1) / l.vec[d];
    l.lanes[d] = d == 0 ? lanesLeft : std::min(lanesLeft, pow2Ceil(positions[d]));
    lanesLeft /= l.lanes[d];
  }
  // Warps from the last dimension too (a long row spread over the block), or
  // from the first (each warp its own rows: reductions along a row stay in
  // one warp, shuffles without shared memory or barriers).
  for (int64_t i = 0; i < r; ++i) {
    int64_t d = warpsAlongRows ? i : r - 1 - i;
    int64_t perWarp = (positions[d] + l.lanes[d] - 1) / l.lanes[d];
    l.warps[d] = std::min(warpsLeft, pow2Ceil(perWarp));
    warpsLeft /= l.warps[d];
  }
  // Warps the shape cannot use go to the last dimension, where they at least
  // shorten each thread's share of a long row; with warps along rows where
  // each row lies in one warp, to the first (they pad it), so that a short
  // tile's reductions along its rows stay shuffles, without shared memory.
  const bool rowsInOneWarp = std::all_of(l.warps.begin() + 1, l.warps.end(), [](int64_t w) { return w == 1; });
  l.warps[warpsAlongRows && rowsInOneWarp ? 0 : r - 1] *= warpsLeft;
  return l;
}

BlockedLayout chooseUnpaddedBlockedLayout(const std::vector<int64_t> &shape, int64_t numWarps, int64_t vecElems,
                                          int64_t rowVecElems, bool warpsAlongRows) {
  BlockedLayout l = chooseBlockedLayout(shape, numWarps, vecElems, rowVecElems, warpsAlongRows);
  if (l.padded() && l.vec.back() > 1)
    if (BlockedLayout half = chooseBlockedLayout(shape, numWarps, l.vec.back() / 2, rowVecElems, warpsAlongRows);
        !half.padded())
      return half;
  return l;
}

} // namespace tk::compiler
