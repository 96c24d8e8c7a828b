//===- SplitReplicatedWork.cpp - lanes of a group share its elementwise work ===//
//
// A reduction's result is replicated over the lanes of each group: after a
// per-token absmax over 128 columns held by 16 lanes, all 16 hold the same
// two row maxima, and a tile.parallel on them (the scale rule: two IEEE
// divisions per row) runs every slot on every lane, that is every slot in
// every warp instruction. Here the lanes of a group split the slots instead:
// lane position p computes the slots s with s mod m == p mod m, then every
// lane collects each slot from a lane that computed it with one xor shuffle
// (mask 0 for its own). The same operations on the same values: the results
// are bit-identical. It pays when the body is expensive (divisions,
// transcendental functions) and the thread holds several slots.
//===----------------------------------------------------------------------===//
#include "ThreadEmitter.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;

namespace tk::compiler {

namespace {

/// Divisions and the math dialect's functions (exp, log, sqrt, ...): a dozen
/// instructions or more each. The math ops that are one instruction or a few
/// (absolute value, sign copy, fma, rounding to integers) are not.
bool isExpensive(Operation &op) {
  if (isa<arith::DivFOp, arith::RemFOp, arith::DivSIOp, arith::DivUIOp, arith::RemSIOp, arith::RemUIOp>(op))
    return true;
  return isa<math::MathDialect>(op.getDialect()) &&
         !isa<math::AbsFOp, math::AbsIOp, math::CopySignOp, math::FmaOp, math::FloorOp, math::CeilOp,
              math::RoundOp, math::RoundEvenOp, math::TruncOp>(op);
}

} // namespace

FailureOr<Value> ThreadEmitter::parallelSplitOverGroup(tile::ParallelOp op, ArrayRef<Value> inputs,
                                                       const GroupedReduction &g) {
  // The lanes of one warp that share a group: after a reduction across
  // warps every lane of every warp holds the whole result (LowerReduce.cpp),
  // so each warp splits the slots over its own lanes.
  const int64_t n = g.reducedSlots(), lanesPerGroup = g.threadPositions / g.warpsPerGroup;
  Type elt = op.getResult().getType().getElementType();
  Block &body = op.getBody().front();
  if (n < 2 || lanesPerGroup < 2 || g.kind == GroupedReduction::Kind::InThread ||
      elt.getIntOrFloatBitWidth() != 32 || !llvm::any_of(body.without_terminator(), isExpensive))
    return Value();
  int64_t m = 1; // lanes that split the slots: a power of two dividing n
  while (2 * m <= std::min(n, lanesPerGroup) && n % (2 * m) == 0)
    m *= 2;
  if (m == 1)
    return Value();
  const BlockedLayout &l = g.parent;
  const int64_t stride = l.laneStride(g.dim), share = n / m;
  Type i32 = b.getI32Type();
  Value position = arith::IndexCastOp::create(
      b, loc, i32, arith::RemUIOp::create(b, loc, laneCoord(l, g.dim), index(m))); // p mod m
  auto isPosition = [&](int64_t t) {
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, position,
                                 arith::ConstantIntOp::create(b, loc, i32, t));
  };

  // Each lane's share of every input: slots position + m j.
  SmallVector<Value> shares;
  for (Value in : inputs) {
    SmallVector<Value> mine;
    for (int64_t j = 0; j < share; ++j) {
      Value v = vector::ExtractOp::create(b, loc, in, ArrayRef<int64_t>{m * j});
      for (int64_t t = 1; t < m; ++t)
        v = arith::SelectOp::create(b, loc, isPosition(t),
                                    vector::ExtractOp::create(b, loc, in, ArrayRef<int64_t>{t + m * j}), v);
      mine.push_back(v);
    }
    shares.push_back(
        vector::FromElementsOp::create(b, loc, VectorType::get({share}, cast<VectorType>(in.getType()).getElementType()),
                                       mine));
  }
  FailureOr<Value> computed = parallel(op, shares, share);
  if (failed(computed))
    return failure();

  // Slot s from the lane of position s mod m: lane ^ ((p ^ (s mod m)) * stride).
  SmallVector<Value> slots;
  Value width = arith::ConstantIntOp::create(b, loc, i32, 32);
  for (int64_t s = 0; s < n; ++s) {
    Value mask = arith::MulIOp::create(
        b, loc, arith::XOrIOp::create(b, loc, position, arith::ConstantIntOp::create(b, loc, i32, s % m)),
        arith::ConstantIntOp::create(b, loc, i32, stride));
    Value mine = vector::ExtractOp::create(b, loc, *computed, ArrayRef<int64_t>{s / m});
    slots.push_back(gpu::ShuffleOp::create(b, loc, mine, mask, width, gpu::ShuffleMode::XOR).getShuffleResult());
  }
  return Value(vector::FromElementsOp::create(b, loc, VectorType::get({n}, elt), slots));
}

} // namespace tk::compiler
