//===- MmaDot.cpp - tile.dot on tensor cores (mma.sync) ------------------===//
//
// The operands, in whatever layouts they come, are stored to shared memory
// in whole chunks, as they are: A [M, K], B [K, N] or, rhs_transposed,
// [N, K]; rows padded so that a warp's fragment reads fall in different
// banks. The block synchronizes; each warp takes 16 x 8 tiles of the result
// in turn and, along K, loads the thread's fragments of the PTX ISA's
// mma.m16n8k8 (TF32) or m16n8k16 (bf16) layouts (K-contiguous rows as
// vectors, a [K, N] B element by element) and accumulates with mma.sync; its
// accumulators go to a shared [M, N] f32 buffer, read back in the result's
// layout (an accumulator operand, in that layout, is added there: staging it
// too cost the mHC forward 7% on the H200). Where the lhs and accumulator
// come in mma.sync's own layouts the product runs from registers instead,
// starting from the accumulator (MmaRegisters.cpp).
//
// Fragment layouts (PTX ISA, "Matrix fragments for mma.m16n8k8/k16"), with
// g = lane / 4 and t = lane % 4:
//   TF32 A (16 x 8, row): a0 (g, t), a1 (g + 8, t), a2 (g, t + 4), a3 (g + 8, t + 4)
//   TF32 B (8 x 8, col):  b0 (t, g), b1 (t + 4, g)
//   bf16 A (16 x 16): a0 (g, 2t..2t+1), a1 (g + 8, 2t..), a2 (g, 2t+8..), a3 (g + 8, 2t+8..)
//   bf16 B (16 x 8):  b0 (2t..2t+1, g), b1 (2t+8..2t+9, g), pairs packed low element first
//   C/D (16 x 8 f32): c0 (g, 2t), c1 (g, 2t + 1), c2 (g + 8, 2t), c3 (g + 8, 2t + 1)
// A product sums over all k of a step, so any permutation of a step's k
// applied to both operands gives the same sum: thread t reads the
// instruction's k = t and t + 4 (TF32) at columns 2t, 2t + 1, and its k =
// 2t.., 2t + 8.. (bf16) at columns 4t..4t + 3, one vector load per register
// pair instead of one load per element.
//===----------------------------------------------------------------------===//
#include "Mma.h"
#include "tk/compiler/Conversion/ScalarMath.h"
#include "tk/compiler/Layout/MmaLayouts.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;

namespace tk::compiler {

namespace mma {

int64_t padWords(int64_t rowWords, int64_t want, int64_t period) {
  return ((want - rowWords) % period + period) % period;
}

Value stageRows(ThreadEmitter &emit, Operation *op, Value value, const BlockedLayout &l, Type elt, int64_t pad) {
  auto space = gpu::AddressSpaceAttr::get(emit.b.getContext(), gpu::AddressSpace::Workgroup);
  Value buf = emit.sharedBuffer(
      MemRefType::get({l.shape[0], l.shape[1] + pad * 4 / elementBytes(elt)}, elt, MemRefLayoutAttrInterface(), space));
  emit.store(op, value, buf, {emit.index(0), emit.index(0)}, l);
  return buf;
}

Value tf32Operand(OpBuilder &b, Location loc, Type elt, Value v) {
  if (isa<BFloat16Type>(elt))
    return arith::BitcastOp::create(b, loc, b.getI32Type(), arith::ExtFOp::create(b, loc, b.getF32Type(), v));
  return tf32Bits(b, loc, v);
}

Value packBf16(OpBuilder &b, Location loc, Value lo, Value hi) {
  Value v = vector::FromElementsOp::create(b, loc, VectorType::get({2}, b.getBF16Type()), ValueRange{lo, hi});
  return vector::ExtractOp::create(b, loc, vector::BitCastOp::create(b, loc, VectorType::get({1}, b.getI32Type()), v),
                                   ArrayRef<int64_t>{0});
}

int64_t fragmentSlot(const BlockedLayout &l, int64_t rowRep, int64_t colRep, int64_t v) {
  return l.slotIndex(BlockedLayout::SlotPos{{rowRep, colRep}, {0, v}});
}

std::array<Value, 4> lhsRegisters(OpBuilder &b, Location loc, Value lhs, const BlockedLayout &la, Type elt, bool bf16,
                                  int64_t p, int64_t q, int64_t s) {
  auto at = [&](int64_t rowRep, int64_t v) -> Value {
    return vector::ExtractOp::create(b, loc, lhs, ArrayRef<int64_t>{fragmentSlot(la, rowRep, q, v)});
  };
  std::array<Value, 4> a;
  for (int64_t i = 0; i < 4; ++i) {
    const int64_t row = 2 * p + i % 2, half = i / 2;
    a[i] = bf16 ? packBf16(b, loc, at(row, 4 * s + 2 * half), at(row, 4 * s + 2 * half + 1))
                : tf32Operand(b, loc, elt, at(row, 2 * s + half));
  }
  return a;
}

SmallVector<Value> accumulatorTiles(OpBuilder &b, Location loc, Value acc, const BlockedLayout &lc) {
  SmallVector<Value> tiles;
  for (int64_t p = 0; p < lc.reps(0) / 2; ++p)
    for (int64_t j = 0; j < lc.reps(1); ++j)
      for (int64_t i = 0; i < 4; ++i)
        tiles.push_back(
            vector::ExtractOp::create(b, loc, acc, ArrayRef<int64_t>{fragmentSlot(lc, 2 * p + i / 2, j, i % 2)}));
  return tiles;
}

Value fromAccumulatorTiles(OpBuilder &b, Location loc, ArrayRef<Value> tiles, const BlockedLayout &lc) {
  SmallVector<Value> slots(lc.slotsPerThread());
  size_t next = 0;
  for (int64_t p = 0; p < lc.reps(0) / 2; ++p)
    for (int64_t j = 0; j < lc.reps(1); ++j)
      for (int64_t i = 0; i < 4; ++i)
        slots[fragmentSlot(lc, 2 * p + i / 2, j, i % 2)] = tiles[next++];
  return vector::FromElementsOp::create(b, loc, VectorType::get({(int64_t)slots.size()}, b.getF32Type()), slots);
}

std::array<Value, 4> mmaSync(OpBuilder &b, Location loc, bool bf16, ArrayRef<Value> a, ArrayRef<Value> bRegs,
                             ArrayRef<Value> c) {
  Type f32 = b.getF32Type();
  auto structType = LLVM::LLVMStructType::getLiteral(b.getContext(), {f32, f32, f32, f32});
  const auto ptxType = bf16 ? NVVM::MMATypes::bf16 : NVVM::MMATypes::tf32;
  auto mma = NVVM::MmaOp::create(b, loc, structType, a, bRegs, c, {16, 8, bf16 ? 16 : 8}, std::nullopt, std::nullopt,
                                 std::array<NVVM::MMATypes, 2>{ptxType, ptxType},
                                 std::array<NVVM::MMALayout, 2>{NVVM::MMALayout::row, NVVM::MMALayout::col});
  std::array<Value, 4> d;
  for (int64_t i = 0; i < 4; ++i)
    d[i] = LLVM::ExtractValueOp::create(b, loc, mma.getResult(), ArrayRef<int64_t>{i});
  return d;
}

} // namespace mma

Value ThreadEmitter::dot(tile::DotOp op, Value lhs, Value rhs, Value acc, const BlockedLayout &la,
                         const BlockedLayout &lb, const BlockedLayout &lc) {
  Type ea = op.getLhs().getType().getElementType(), eb = op.getRhs().getType().getElementType();
  Type f32 = b.getF32Type(), i32 = b.getI32Type();
  const bool bf16 = op.isBf16(), rhsT = op.getRhsTransposed();
  const std::string staged =
      acc ? whyNotMmaRegisterLayouts(la, lc, state.numWarps, elementBytes(eb), bf16) : "it has no accumulator";
  if (staged.empty())
    return dotInRegisters(op, lhs, rhs, acc, la, lb, lc);
  if (remarks)
    op->emitRemark() << "tile.dot stages its operands and product in shared memory instead of running from "
                        "mma.sync's registers"
                     << (op.getWarpgroup() && state.warpgroupMma ? " (or wgmma's)" : "") << ": " << staged;
  const int64_t m = la.shape[0], k = la.shape[1], n = rhsT ? lb.shape[0] : lb.shape[1], kStep = op.kStep();
  // Elements per fragment load: a register pair (TF32: two elements; bf16: two packed pairs).
  const int64_t perLoad = mmaStepElements(bf16);
  // K-contiguous rows (A; B given as [N, K]) are read perLoad elements at a time: a row stride of 4 x those words
  // mod 32 puts a warp's reads in distinct banks (for 2-word reads, each half-warp's 16 lanes over the 32 banks).
  auto kRowsPad = [&](const BlockedLayout &l, Type elt) {
    return mma::padWords(l.shape[1] * elementBytes(elt) / 4, 4 * (perLoad * elementBytes(elt) / 4), 32);
  };
  Value sa = mma::stageRows(*this, op, lhs, la, ea, kRowsPad(la, ea));
  // A [K, N] rhs is read an element at a time down its columns: TF32 rows 2t (+ j) of a step apart by 4 words mod
  // 16. (bf16 reads rows 4t + j: 16-byte rows leave two of the four t on one bank, a 2-way conflict.)
  Value sb = mma::stageRows(*this, op, rhs, lb, eb,
                            rhsT ? kRowsPad(lb, eb) : mma::padWords(lb.shape[1] * elementBytes(eb) / 4, 4, 16));
  auto space = gpu::AddressSpaceAttr::get(b.getContext(), gpu::AddressSpace::Workgroup);
  Value sc = sharedBuffer(MemRefType::get({m, n + 4}, f32, MemRefLayoutAttrInterface(), space));
  gpu::BarrierOp::create(b, loc);

  auto c = [&](int64_t v) { return index(v); };
  Value g = arith::DivUIOp::create(b, loc, lane, c(4)), t = arith::RemUIOp::create(b, loc, lane, c(4));
  auto add = [&](Value x, Value y) { return arith::AddIOp::create(b, loc, x, y).getResult(); };
  auto addc = [&](Value x, int64_t v) { return v ? add(x, c(v)) : x; };
  // The thread's `perLoad` K-consecutive elements at (row, col) of a K-contiguous buffer as two i32 registers:
  // the TF32 bits of each element, or two packed bf16 pairs.
  auto rowPair = [&](Value buf, Type elt, Value row, Value col) -> std::array<Value, 2> {
    auto type = VectorType::get({perLoad}, elt);
    Value v = vector::LoadOp::create(b, loc, type, buf, ValueRange{row, col}, false,
                                     llvm::MaybeAlign(perLoad * elementBytes(elt)));
    std::array<Value, 2> out;
    if (bf16) {
      Value w = vector::BitCastOp::create(b, loc, VectorType::get({2}, i32), v);
      for (int64_t i = 0; i < 2; ++i)
        out[i] = vector::ExtractOp::create(b, loc, w, ArrayRef<int64_t>{i});
      return out;
    }
    for (int64_t i = 0; i < 2; ++i)
      out[i] = mma::tf32Operand(b, loc, elt, vector::ExtractOp::create(b, loc, v, ArrayRef<int64_t>{i}));
    return out;
  };
  // The same from a [K, N] buffer: the elements at rows k, k + 1, ... of column `col`.
  auto columnPair = [&](Value buf, Type elt, Value k0, Value col) -> std::array<Value, 2> {
    auto at = [&](int64_t i) {
      return memref::LoadOp::create(b, loc, buf, ValueRange{i ? arith::AddIOp::create(b, loc, k0, index(i)) : k0, col})
          .getResult();
    };
    if (!bf16)
      return {mma::tf32Operand(b, loc, elt, at(0)), mma::tf32Operand(b, loc, elt, at(1))};
    return {mma::packBf16(b, loc, at(0), at(1)), mma::packBf16(b, loc, at(2), at(3))};
  };

  // Each warp takes tiles warp, warp + warps, ...; a tile's accumulators
  // live through the K loop.
  const int64_t tilesN = n / 8, tiles = (m / 16) * tilesN;
  scf::ForOp::create(
      b, loc, warp, c(tiles), c(state.numWarps), ValueRange{}, [&](OpBuilder &tb, Location tl, Value tileIdx, ValueRange) {
        OpBuilder::InsertionGuard guard(b);
        b.setInsertionPoint(tb.getInsertionBlock(), tb.getInsertionPoint());
        Value row0 = arith::MulIOp::create(b, loc, arith::DivUIOp::create(b, loc, tileIdx, c(tilesN)), c(16));
        Value col0 = arith::MulIOp::create(b, loc, arith::RemUIOp::create(b, loc, tileIdx, c(tilesN)), c(8));
        Value rowG = add(row0, g), colG = add(col0, g);
        Value tk = arith::MulIOp::create(b, loc, t, c(perLoad));
        SmallVector<Value> init(4, arith::ConstantOp::create(b, loc, b.getF32FloatAttr(0.0f)));
        auto kLoop = scf::ForOp::create(
            b, loc, c(0), c(k), c(kStep), init, [&](OpBuilder &kb, Location kl, Value kk, ValueRange accs) {
              OpBuilder::InsertionGuard inner(b);
              b.setInsertionPoint(kb.getInsertionBlock(), kb.getInsertionPoint());
              Value col = add(kk, tk);
              std::array<Value, 2> top = rowPair(sa, ea, rowG, col), bottom = rowPair(sa, ea, addc(rowG, 8), col);
              std::array<Value, 2> bk = rhsT ? rowPair(sb, eb, colG, col) : columnPair(sb, eb, col, colG);
              std::array<Value, 4> d = mma::mmaSync(b, loc, bf16, {top[0], bottom[0], top[1], bottom[1]},
                                                    {bk[0], bk[1]}, SmallVector<Value>(accs));
              scf::YieldOp::create(b, loc, ValueRange(d));
            });
        Value col2 = add(col0, arith::MulIOp::create(b, loc, t, c(2)));
        for (int64_t i = 0; i < 4; ++i)
          memref::StoreOp::create(b, loc, kLoop.getResult(i), sc,
                                  ValueRange{addc(rowG, i < 2 ? 0 : 8), addc(col2, i % 2)});
        scf::YieldOp::create(b, loc);
      });
  gpu::BarrierOp::create(b, loc);
  SmallVector<Value> zeros(2, index(0));
  Value result = load(op, sc, zeros, lc, f32);
  gpu::BarrierOp::create(b, loc);
  return acc ? arith::AddFOp::create(b, loc, acc, result).getResult() : result;
}

} // namespace tk::compiler
