//===- MmaDot.cpp - tile.dot on tensor cores (mma.sync) ------------------===//
//
// The operands, in whatever layouts they come, are written to shared memory
// ([M, K] and [K, N], rows padded by 16 bytes so that a warp's fragment
// reads of one column fall in different banks); the block synchronizes; each
// warp takes 16 x 8 tiles of the result in turn and, along K, loads the
// thread's fragments of the PTX ISA's mma.m16n8k8 (TF32) or m16n8k16 (bf16)
// layouts from the buffers and accumulates with mma.sync; its accumulators
// go to a shared [M, N] f32 buffer, read back in the result's layout.
//
// Fragment layouts (PTX ISA, "Matrix fragments for mma.m16n8k8/k16"), with
// g = lane / 4 and t = lane % 4:
//   TF32 A (16 x 8, row): a0 (g, t), a1 (g + 8, t), a2 (g, t + 4), a3 (g + 8, t + 4)
//   TF32 B (8 x 8, col):  b0 (t, g), b1 (t + 4, g)
//   bf16 A (16 x 16): a0 (g, 2t..2t+1), a1 (g + 8, 2t..), a2 (g, 2t+8..), a3 (g + 8, 2t+8..)
//   bf16 B (16 x 8):  b0 (2t..2t+1, g), b1 (2t+8..2t+9, g), pairs packed low element first
//   C/D (16 x 8 f32): c0 (g, 2t), c1 (g, 2t + 1), c2 (g + 8, 2t), c3 (g + 8, 2t + 1)
//===----------------------------------------------------------------------===//
#include "ThreadEmitter.h"
#include "tk/compiler/Conversion/ScalarMath.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;

namespace tk::compiler {

namespace {

/// A shared [rows, cols + 16 bytes] buffer of `elt`, holding `value` (a
/// thread's slots of layout `l`) at its logical coordinates.
Value stage(ThreadEmitter &emit, Value value, const BlockedLayout &l, Type elt) {
  OpBuilder &b = emit.b;
  const int64_t eltBytes = std::max<int64_t>(1, elt.getIntOrFloatBitWidth() / 8);
  auto space = gpu::AddressSpaceAttr::get(b.getContext(), gpu::AddressSpace::Workgroup);
  Value buf = emit.sharedBuffer(
      MemRefType::get({l.shape[0], l.shape[1] + 16 / eltBytes}, elt, MemRefLayoutAttrInterface(), space));
  for (int64_t s = 0; s < l.slotsPerThread(); ++s) {
    BlockedLayout::SlotPos pos = l.slotPos(s);
    SmallVector<Value> coords, conds;
    for (int64_t d = 0; d < 2; ++d)
      coords.push_back(emit.tileCoord(l, pos, d, &conds));
    emit.whenAll(conds, [&](OpBuilder &wb, Location wl) {
      Value v = vector::ExtractOp::create(wb, wl, value, ArrayRef<int64_t>{s});
      memref::StoreOp::create(wb, wl, v, buf, coords);
    });
  }
  return buf;
}

} // namespace

Value ThreadEmitter::dot(tile::DotOp op, Value lhs, Value rhs, const BlockedLayout &la, const BlockedLayout &lb,
                         const BlockedLayout &lc) {
  Type ea = op.getLhs().getType().getElementType(), eb = op.getRhs().getType().getElementType();
  Type f32 = b.getF32Type(), i32 = b.getI32Type();
  const bool bf16 = op.isBf16();
  const int64_t m = la.shape[0], k = la.shape[1], n = lb.shape[1], kStep = op.kStep();
  Value sa = stage(*this, lhs, la, ea), sb = stage(*this, rhs, lb, eb);
  auto space = gpu::AddressSpaceAttr::get(b.getContext(), gpu::AddressSpace::Workgroup);
  Value sc = sharedBuffer(MemRefType::get({m, n + 4}, f32, MemRefLayoutAttrInterface(), space));
  gpu::BarrierOp::create(b, loc);

  auto c = [&](int64_t v) { return index(v); };
  Value g = arith::DivUIOp::create(b, loc, lane, c(4)), t = arith::RemUIOp::create(b, loc, lane, c(4));
  auto add = [&](Value x, Value y) { return arith::AddIOp::create(b, loc, x, y).getResult(); };
  auto addc = [&](Value x, int64_t v) { return v ? add(x, c(v)) : x; };
  // One TF32 operand element as i32 bits (a bf16 is exact: widened, not rounded).
  auto tf32At = [&](Value buf, Type elt, Value row, Value col) -> Value {
    Value v = memref::LoadOp::create(b, loc, buf, ValueRange{row, col});
    if (isa<BFloat16Type>(elt))
      return arith::BitcastOp::create(b, loc, i32, arith::ExtFOp::create(b, loc, f32, v));
    return tf32Bits(b, loc, v);
  };
  // Two bf16 elements packed into an i32, the first in the low half.
  auto pairAt = [&](Value buf, Value row0, Value col0, Value row1, Value col1) -> Value {
    Value lo = memref::LoadOp::create(b, loc, buf, ValueRange{row0, col0});
    Value hi = memref::LoadOp::create(b, loc, buf, ValueRange{row1, col1});
    auto pair = VectorType::get({2}, b.getBF16Type());
    Value v = vector::FromElementsOp::create(b, loc, pair, ValueRange{lo, hi});
    return vector::ExtractOp::create(b, loc, vector::BitCastOp::create(b, loc, VectorType::get({1}, i32), v),
                                     ArrayRef<int64_t>{0});
  };

  // Each warp takes tiles warp, warp + warps, ...; a tile's accumulators
  // live through the K loop.
  const int64_t tilesN = n / 8, tiles = (m / 16) * tilesN;
  auto structType = LLVM::LLVMStructType::getLiteral(b.getContext(), {f32, f32, f32, f32});
  const auto ptxType = bf16 ? NVVM::MMATypes::bf16 : NVVM::MMATypes::tf32;
  scf::ForOp::create(
      b, loc, warp, c(tiles), c(state.numWarps), ValueRange{}, [&](OpBuilder &tb, Location tl, Value tileIdx, ValueRange) {
        OpBuilder::InsertionGuard guard(b);
        b.setInsertionPoint(tb.getInsertionBlock(), tb.getInsertionPoint());
        Value row0 = arith::MulIOp::create(b, loc, arith::DivUIOp::create(b, loc, tileIdx, c(tilesN)), c(16));
        Value col0 = arith::MulIOp::create(b, loc, arith::RemUIOp::create(b, loc, tileIdx, c(tilesN)), c(8));
        Value rowG = add(row0, g), colG = add(col0, g);
        Value zero = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(0.0f));
        SmallVector<Value> init(4, zero);
        auto kLoop = scf::ForOp::create(
            b, loc, c(0), c(k), c(kStep), init, [&](OpBuilder &kb, Location kl, Value kk, ValueRange acc) {
              OpBuilder::InsertionGuard inner(b);
              b.setInsertionPoint(kb.getInsertionBlock(), kb.getInsertionPoint());
              SmallVector<Value> a, bOps;
              if (!bf16) {
                Value kt = add(kk, t);
                a = {tf32At(sa, ea, rowG, kt), tf32At(sa, ea, addc(rowG, 8), kt), tf32At(sa, ea, rowG, addc(kt, 4)),
                     tf32At(sa, ea, addc(rowG, 8), addc(kt, 4))};
                bOps = {tf32At(sb, eb, kt, colG), tf32At(sb, eb, addc(kt, 4), colG)};
              } else {
                Value k2 = add(kk, arith::MulIOp::create(b, loc, t, c(2)));
                for (int64_t rowOff : {0, 8, 0, 8}) {
                  int64_t colOff = a.size() < 2 ? 0 : 8;
                  Value r = addc(rowG, rowOff), col = addc(k2, colOff);
                  a.push_back(pairAt(sa, r, col, r, addc(col, 1)));
                }
                for (int64_t kOff : {0, 8})
                  bOps.push_back(pairAt(sb, addc(k2, kOff), colG, addc(k2, kOff + 1), colG));
              }
              auto mma = NVVM::MmaOp::create(b, loc, structType, a, bOps, acc, {16, 8, kStep}, std::nullopt,
                                             std::nullopt, std::array<NVVM::MMATypes, 2>{ptxType, ptxType},
                                             std::array<NVVM::MMALayout, 2>{NVVM::MMALayout::row,
                                                                            NVVM::MMALayout::col});
              SmallVector<Value> next;
              for (int64_t i = 0; i < 4; ++i)
                next.push_back(LLVM::ExtractValueOp::create(b, loc, mma.getResult(), ArrayRef<int64_t>{i}));
              scf::YieldOp::create(b, loc, next);
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
  return result;
}

} // namespace tk::compiler
