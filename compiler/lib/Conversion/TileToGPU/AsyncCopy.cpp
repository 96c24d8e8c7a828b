//===- AsyncCopy.cpp - tile.copy {async}: cp.async, or bulk rows + mbarriers ===//
#include "ThreadEmitter.h"
#include "tk/compiler/ElementBytes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;

namespace tk::compiler {

bool ThreadEmitter::asyncCopy(Operation *op, Value source, ValueRange origin, Value dest, const BlockedLayout &l,
                              Type elt) {
  int64_t eltBytes = elementBytes(elt);
  // The source side decides the chunk (vectorized, aligned); the shared
  // buffer is a whole tile, so only its alignment can spoil it.
  AccessPlan src = planAccess(op, source, origin, l, elt, /*quiet=*/true);
  SmallVector<Value> zeros(l.rank(), index(0));
  AccessPlan dst = planAccess(op, dest, zeros, l, elt, /*quiet=*/true);
  // Whole vectors where both sides allow them; otherwise one element per
  // chunk, which cp.async still takes when the element is 4, 8 or 16 bytes
  // (e.g. a column of fp32 scale factors, one per row).
  const bool whole = src.vectorized && dst.vectorized;
  const int64_t chunk = whole ? src.chunk : 1;
  int64_t bytes = chunk * eltBytes;
  std::string why;
  if (bytes != 4 && bytes != 8 && bytes != 16)
    why = "its " + std::to_string(bytes) + "-byte chunks are not a cp.async size (4, 8 or 16)";
  else if ((whole ? src.alignment : accessAlignment(source, bytes)) < bytes ||
           (whole ? dst.alignment : accessAlignment(dest, bytes)) < bytes)
    why = "the source or the buffer is aligned to fewer than " + std::to_string(bytes) + " bytes";
  if (!why.empty()) {
    if (remarks)
      op->emitRemark() << "copy into " << dest.getType() << " is synchronous (no cp.async): " << why;
    return false;
  }
  SmallVector<Value> shared = sharedBounds(source, origin, l);
  for (int64_t s = 0; s < l.slotsPerThread(); s += chunk) {
    BlockedLayout::SlotPos pos = l.slotPos(s);
    SmallVector<Value> coords, inTile;
    chunkCoords(l, pos, origin, coords, inTile);
    SmallVector<Value> conds = bounds(source, coords, l, pos, inTile, shared);
    Value srcElements;
    if (!conds.empty()) {
      // Outside the source: read nothing from its first element, zero-fill
      // the chunk. Padding slots of the layout (past the tile) write nothing.
      Value inside = allTrue(conds);
      for (Value &c : coords)
        c = arith::SelectOp::create(b, loc, inside, c, index(0));
      srcElements = arith::SelectOp::create(b, loc, inside, index(chunk), index(0));
    }
    auto copy = [&](OpBuilder &cb, Location cl) {
      nvgpu::DeviceAsyncCopyOp::create(cb, cl, dest, inTile, source, coords, cb.getIndexAttr(chunk),
                                       srcElements, bytes == 16 ? cb.getUnitAttr() : UnitAttr());
    };
    SmallVector<Value> inBuffer;
    for (int64_t d = 0; d < l.rank(); ++d)
      if (l.hasPadding(d))
        inBuffer.push_back(arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, inTile[d], index(l.shape[d])));
    whenAll(inBuffer, copy);
  }
  return true;
}

//===----------------------------------------------------------------------===//
// The bulk copy engine (sm_90a+): rows as cp.async.bulk signalling mbarriers
//===----------------------------------------------------------------------===//

Value ThreadEmitter::elementPointer(Value mem, ValueRange coords, unsigned addressSpace) {
  Value bits = elementAddress(mem, coords);
  if (addressSpace == 3) // a shared address, as the workgroup memref holds it
    return LLVM::IntToPtrOp::create(b, loc, LLVM::LLVMPointerType::get(b.getContext(), 3), bits);
  Value generic = LLVM::IntToPtrOp::create(b, loc, LLVM::LLVMPointerType::get(b.getContext()), bits);
  return LLVM::AddrSpaceCastOp::create(b, loc, LLVM::LLVMPointerType::get(b.getContext(), addressSpace), generic);
}

Value ThreadEmitter::elementAddress(Value mem, ValueRange coords) {
  auto type = cast<MemRefType>(mem.getType());
  int64_t eltBytes = std::max<int64_t>(1, type.getElementTypeBitWidth() / 8);
  auto meta = memref::ExtractStridedMetadataOp::create(b, loc, mem);
  Value linear = meta.getOffset();
  for (auto [c, stride] : llvm::zip(coords, meta.getStrides()))
    linear = arith::AddIOp::create(b, loc, linear, arith::MulIOp::create(b, loc, c, stride));
  Value address = arith::AddIOp::create(b, loc, memref::ExtractAlignedPointerAsIndexOp::create(b, loc, mem),
                                        arith::MulIOp::create(b, loc, linear, index(eltBytes)));
  return arith::IndexCastOp::create(b, loc, b.getI64Type(), address);
}

Value ThreadEmitter::threadIndex() {
  return arith::AddIOp::create(b, loc, arith::MulIOp::create(b, loc, warp, index(32)), lane);
}

void ThreadEmitter::initBarriers(Value barriers, int64_t count) {
  auto type = cast<MemRefType>(barriers.getType());
  when({isFirstThread()}, [&] {
    Value arrivals = arith::ConstantOp::create(b, loc, b.getI32IntegerAttr((int32_t)count));
    for (int64_t i = 0; i < type.getDimSize(0); ++i)
      NVVM::MBarrierInitOp::create(b, loc, elementPointer(barriers, {index(i)}, 3), arrivals, Value());
    NVVM::FenceMbarrierInitOp::create(b, loc);
  });
  gpu::BarrierOp::create(b, loc);
}

void ThreadEmitter::arriveExpecting(Value barriers, Value slot, Value bytes) {
  when({isFirstThread()}, [&] {
    NVVM::MBarrierArriveExpectTxOp::create(b, loc, Type(), elementPointer(barriers, {slot}, 3), bytes,
                                           NVVM::MemScopeKind::CTA, false, Value());
  });
}

void ThreadEmitter::waitBarrier(Value barriers, Value slot, Value parity) {
  Value phase = arith::IndexCastOp::create(b, loc, b.getI32Type(), parity);
  Value ticks = arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(0x989680)); // a suspend-time hint, 10 ms
  NVVM::MBarrierTryWaitParityOp::create(b, loc, elementPointer(barriers, {slot}, 3), phase, ticks);
}

bool ThreadEmitter::bulkCopy(Operation *op, Value source, ValueRange origin, Value dest, Value barriers, Value slot,
                             int64_t threads) {
  auto src = cast<MemRefType>(source.getType()), dst = cast<MemRefType>(dest.getType());
  int64_t eltBytes = std::max<int64_t>(1, dst.getElementTypeBitWidth() / 8);
  SmallVector<int64_t> strides;
  int64_t offset;
  std::string why;
  int64_t rows = dst.getRank() == 2 ? dst.getDimSize(0) : 0, cols = dst.getRank() == 2 ? dst.getDimSize(1) : 0,
          rowBytes = cols * eltBytes;
  if (dst.getRank() != 2)
    why = "only 2-D tiles are copied as rows";
  else if (rowBytes % 16)
    why = "a row is " + std::to_string(rowBytes) + " bytes, not a multiple of 16";
  else if (failed(src.getStridesAndOffset(strides, offset)) || strides.back() != 1 || src.isDynamicDim(1) ||
           src.getDimSize(1) % cols || !isMultipleOf(origin[1], cols))
    why = "the tile's rows are not provably whole and contiguous in the source";
  else if (accessAlignment(source, rowBytes) < 16 || accessAlignment(dest, rowBytes) < 16)
    why = "the source or the buffer is aligned to fewer than 16 bytes";
  if (!why.empty()) {
    if (remarks)
      op->emitRemark() << "copy into " << dest.getType() << " does not use the bulk copy engine: " << why;
    return false;
  }
  Value bar = elementPointer(barriers, {slot}, 3);
  Value tid = threadIndex();
  // One thread arrives expecting the bytes of the rows inside the source.
  Value extent = extentOf(source, 0);
  Value left = arith::SelectOp::create(
      b, loc, arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, origin[0], extent),
      arith::SubIOp::create(b, loc, extent, origin[0]), index(0));
  Value inside = arith::MinUIOp::create(b, loc, left, index(rows));
  Value bytes = arith::IndexCastOp::create(b, loc, b.getI32Type(),
                                           arith::MulIOp::create(b, loc, inside, index(rowBytes)));
  arriveExpecting(barriers, slot, bytes);
  // Thread t copies rows t, t + threads, ...; rows past the source are zero-filled.
  Value size = arith::ConstantOp::create(b, loc, b.getI32IntegerAttr((int32_t)rowBytes));
  int64_t chunk = 16 / eltBytes;
  auto zeros = arith::ConstantOp::create(b, loc, VectorType::get({chunk}, dst.getElementType()),
                                         b.getZeroAttr(VectorType::get({chunk}, dst.getElementType())));
  for (int64_t first = 0; first < rows; first += threads) {
    Value r = arith::AddIOp::create(b, loc, tid, index(first));
    SmallVector<Value> conds;
    if (first + threads > rows)
      conds.push_back(arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, r, index(rows)));
    when(conds, [&] {
      Value row = arith::AddIOp::create(b, loc, origin[0], r);
      Value in = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, row, extent);
      scf::IfOp::create(
          b, loc, in,
          [&](OpBuilder &tb, Location tl) {
            OpBuilder::InsertionGuard g(b);
            b.setInsertionPoint(tb.getInsertionBlock(), tb.getInsertionPoint());
            // The CTA's own shared::cta address in the shared::cluster window
            // (the PTX 8.0 form of the instruction takes that space).
            Value dst = LLVM::AddrSpaceCastOp::create(b, loc, LLVM::LLVMPointerType::get(b.getContext(), 7),
                                                      elementPointer(dest, {r, index(0)}, 3));
            NVVM::CpAsyncBulkGlobalToSharedClusterOp::create(b, loc, dst,
                                                             elementPointer(source, {row, origin[1]}, 1), bar,
                                                             size, Value(), Value());
            scf::YieldOp::create(b, loc);
          },
          [&](OpBuilder &eb, Location el) {
            OpBuilder::InsertionGuard g(b);
            b.setInsertionPoint(eb.getInsertionBlock(), eb.getInsertionPoint());
            for (int64_t c = 0; c < cols; c += chunk)
              vector::StoreOp::create(b, loc, zeros, dest, ValueRange{r, index(c)}, false, llvm::MaybeAlign(16));
            // These ordinary stores and a later bulk copy into the same bytes are different proxies.
            NVVM::FenceProxyOp::create(b, loc, NVVM::ProxyKind::async_shared,
                                       NVVM::SharedSpaceAttr::get(b.getContext(), NVVM::SharedSpace::shared_cta));
            scf::YieldOp::create(b, loc);
          });
    });
  }
  return true;
}

} // namespace tk::compiler
