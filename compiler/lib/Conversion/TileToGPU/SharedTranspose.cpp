//===- SharedTranspose.cpp - tile.transpose through shared memory ----------===//
//
// A transpose swaps the last two dimensions: each thread writes its elements
// to the transposed place of a shared buffer, the block synchronizes, and each
// thread reads its elements of the result layout. The buffer's shape is the
// result's; where its rows go in memory is the shared-memory layout:
//
// * XOR swizzle (rows of a power-of-two number of 16-byte units, at least
//   two): unit k of row R is stored at unit k ^ ((R >> s) mod units),
//   with 2^s the input layout's vector along its last dimension. The threads
//   of a warp write rows that differ by multiples of 2^s, so their vector
//   writes land in different units (banks), and a row read stays one row:
//   conflict-free both ways, with no padding. For e4m3 too: with
//   padded rows their 4-byte writes from 8 lanes 8 rows apart met in one
//   bank (Nsight Compute: 13.1 M of 15.2 M shared-store
//   wavefronts were conflicts, the L1 at 87-94%); swizzled, the H200 took
//   the e4m3 batched transpose 123.6 -> 122.1 µs and the transposed
//   per-channel casts 188.1 -> 185.5 (b = 128), 191.5 -> 190.4 (b = 32).
//   (The swizzle had measured 8% slower on an earlier form of that
//   kernel.) The pass option swizzle-bytes (TK_SWIZZLE_BYTES=2) restores
//   padded rows for them.
// * Padded rows (otherwise): each row is 16 bytes longer, so rows stay
//   16-byte aligned for vector reads and consecutive rows start in different
//   banks.
//===----------------------------------------------------------------------===//
#include "ThreadEmitter.h"
#include "tk/compiler/ElementBytes.h"
#include "tk/compiler/Layout/SharedRowLayout.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;

namespace tk::compiler {

Value ThreadEmitter::transpose(Operation *op, Value input, const BlockedLayout &in, const BlockedLayout &out,
                               Type elt) {
  int64_t r = in.rank(), eltBytes = elementBytes(elt);
  // A thread holding vec[r-2] consecutive rows writes them as one vector
  // into the transposed row (they are consecutive there).
  const int64_t rowVec = (in.hasPadding(r - 2) || in.hasPadding(r - 1)) ? 1 : in.vec[r - 2];
  const SharedRowLayout rows = chooseSharedRowLayout(in, out, eltBytes, rowVec, swizzle, swizzleBytes);
  SmallVector<int64_t> bufShape(out.shape.begin(), out.shape.end());
  bufShape[r - 1] += rows.padElements;
  auto space = gpu::AddressSpaceAttr::get(b.getContext(), gpu::AddressSpace::Workgroup);
  Value buf = sharedBuffer(MemRefType::get(bufShape, elt, MemRefLayoutAttrInterface(), space));
  // The column of logical (row, col) of the buffer (SharedRowLayout::physicalColumn).
  auto place = [&](OpBuilder &pb, Location pl, Value row, Value col) -> Value {
    if (!rows.unit)
      return col;
    auto c = [&](int64_t v) { return arith::ConstantIndexOp::create(pb, pl, v); };
    Value key = arith::AndIOp::create(pb, pl, arith::ShRUIOp::create(pb, pl, row, c(rows.shift)), c(rows.units - 1));
    Value unitIdx = arith::XOrIOp::create(pb, pl, arith::DivUIOp::create(pb, pl, col, c(rows.unit)), key);
    return arith::AddIOp::create(pb, pl, arith::MulIOp::create(pb, pl, unitIdx, c(rows.unit)),
                                 arith::RemUIOp::create(pb, pl, col, c(rows.unit)));
  };
  for (int64_t s = 0; s < in.slotsPerThread(); ++s) {
    BlockedLayout::SlotPos pos = in.slotPos(s);
    if (pos.v[r - 2] % rowVec)
      continue;
    SmallVector<Value> coords, conds;
    for (int64_t d = 0; d < r; ++d)
      coords.push_back(tileCoord(in, pos, d, &conds));
    std::swap(coords[r - 1], coords[r - 2]);
    SmallVector<int64_t> lanes;
    for (int64_t k = 0; k < rowVec; ++k) {
      BlockedLayout::SlotPos p = pos;
      p.v[r - 2] += k;
      lanes.push_back(in.slotIndex(p));
    }
    auto write = [&](OpBuilder &wb, Location wl) {
      SmallVector<Value> at = coords;
      at[r - 1] = place(wb, wl, coords[r - 2], coords[r - 1]);
      if (rowVec == 1) {
        Value v = vector::ExtractOp::create(wb, wl, input, ArrayRef<int64_t>{s});
        memref::StoreOp::create(wb, wl, v, buf, at);
        return;
      }
      Value v = vector::ShuffleOp::create(wb, wl, input, input, lanes);
      vector::StoreOp::create(wb, wl, v, buf, at, false, llvm::MaybeAlign(rowVec * eltBytes));
    };
    whenAll(conds, write);
  }
  gpu::BarrierOp::create(b, loc);
  Value result;
  if (!rows.unit) {
    SmallVector<Value> zeros(r, index(0));
    result = load(op, buf, zeros, out, elt);
  } else { // pieces of the result's chunks that lie in one 16-byte unit
    const int64_t piece = std::min(out.vec[r - 1], rows.unit);
    auto pieceType = VectorType::get({piece}, elt);
    SmallVector<Value> pieces;
    for (int64_t s = 0; s < out.slotsPerThread(); s += piece) {
      BlockedLayout::SlotPos pos = out.slotPos(s);
      SmallVector<Value> at;
      for (int64_t d = 0; d < r; ++d)
        at.push_back(tileCoord(out, pos, d));
      at[r - 1] = place(b, loc, at[r - 2], at[r - 1]);
      pieces.push_back(
          vector::LoadOp::create(b, loc, pieceType, buf, at, false, llvm::MaybeAlign(piece * eltBytes)));
    }
    result = concat(pieces);
  }
  gpu::BarrierOp::create(b, loc);
  return result;
}

} // namespace tk::compiler
