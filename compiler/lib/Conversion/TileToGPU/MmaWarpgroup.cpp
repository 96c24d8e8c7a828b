//===- MmaWarpgroup.cpp - tile.dot {warpgroup} as wgmma (sm_90a) ----------===//
//
// The register form of tile.dot (MmaRegisters.cpp) where each warp loads its
// b fragments from the staged rhs, but issued by warpgroups: four warps run
// wgmma m64nNk8 TF32 together, each on the lhs fragments it already holds
// (wgmma's A registers are mma.m16n8k8's, one warp per 16 of the 64 rows;
// which tensor rows those are does not matter, a row of A only meets its own
// row of D), and the tensor core reads B from shared memory through a matrix
// descriptor instead of every warp reading it into registers.
//
// B is staged K-major without swizzle, one block per instruction step of 8 K
// (an [N, 8] slice, N x 32 bytes): 8-row x 16-byte core matrices, the step's
// two K halves kLeadBytes apart and its N groups of 8 rows kStrideBytes
// apart (the descriptor's leading and stride byte offsets; checked on an
// H100 by bench/probes/wgmma_tf32_layout.cu). The lhs permutes K (MmaLayouts.h:
// thread t's slots v of repetition q are columns q 4V + t V + v, fed as the
// instruction's k = t + 4 (v % 2) of step v / 2); rhs column c is stored
// where the same step and k read it. The elements are rounded to TF32 as
// they are stored: the tensor core ignores the low 13 bits of what it reads,
// it does not round them.
//
// Ordering: the stores, fence.proxy.async (the tensor core reads through
// the async proxy), a barrier; wgmma.fence with the A registers and the
// accumulators passed through it, so that their last writes come before it;
// the wgmmas chained on their accumulators; commit and wait with the
// accumulators passed through, so that nothing reads them earlier; a barrier
// before the buffer is written again.
//===----------------------------------------------------------------------===//
#include "Mma.h"
#include "tk/compiler/Layout/MmaLayouts.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;

namespace tk::compiler {

namespace {

constexpr int64_t kLeadBytes = 128, kStrideBytes = 256;

/// `ptx` as a side-effecting inline asm (the wgmma forms upstream's NVVM ops do not have: A in registers, and the
/// fence and wait with the registers they order) whose outputs are `tied` passed through, after `inputs`.
SmallVector<Value> asmThrough(OpBuilder &b, Location loc, const std::string &ptx, ValueRange tied,
                              ValueRange inputs = {}) {
  std::string constraints;
  SmallVector<Type> types;
  auto letter = [](Type t) { return t.isF32() ? "f" : t.isInteger(64) ? "l" : "r"; };
  for (Value v : tied) {
    constraints += std::string(constraints.empty() ? "" : ",") + "=" + letter(v.getType());
    types.push_back(v.getType());
  }
  for (Value v : inputs)
    constraints += std::string(constraints.empty() ? "" : ",") + letter(v.getType());
  for (size_t i = 0; i < tied.size(); ++i)
    constraints += "," + std::to_string(i);
  if (constraints.empty())
    constraints = "~{memory}";
  else
    constraints += ",~{memory}";
  SmallVector<Value> operands(inputs.begin(), inputs.end());
  operands.append(tied.begin(), tied.end());
  SmallVector<Type> results;
  if (types.size() == 1)
    results.push_back(types[0]);
  else if (!types.empty())
    results.push_back(LLVM::LLVMStructType::getLiteral(b.getContext(), types));
  auto op = LLVM::InlineAsmOp::create(b, loc, results, operands, b.getStringAttr(ptx), b.getStringAttr(constraints),
                                      /*has_side_effects=*/b.getUnitAttr(), /*is_align_stack=*/UnitAttr(),
                                      LLVM::TailCallKindAttr::get(b.getContext(), LLVM::TailCallKind::None),
                                      LLVM::AsmDialectAttr(), ArrayAttr());
  SmallVector<Value> out;
  if (types.size() == 1)
    out.push_back(op.getResult(0));
  else
    for (size_t i = 0; i < types.size(); ++i)
      out.push_back(LLVM::ExtractValueOp::create(b, loc, op.getResult(0), ArrayRef<int64_t>{(int64_t)i}));
  return out;
}

} // namespace

std::string whyNotWarpgroupMma(tile::DotOp op, int64_t warps) {
  if (op.isBf16())
    return "it is a bf16 product (only TF32 is emitted as wgmma)";
  if (!op.getRhsTransposed())
    return "its rhs is not given transposed ([N, K], K-major as wgmma reads it)";
  if (warps % 4)
    return std::to_string(warps) + " warps are not whole warpgroups of 4";
  const int64_t n = op.numColumns();
  if (n % 8 || n > 256)
    return "N = " + std::to_string(n) + " is not a multiple of 8 up to 256";
  return "";
}

Value ThreadEmitter::dotOnWarpgroups(tile::DotOp op, Value lhs, Value rhs, Value acc, const BlockedLayout &la,
                                     const BlockedLayout &lb, const BlockedLayout &lc) {
  Type ea = op.getLhs().getType().getElementType(), eb = op.getRhs().getType().getElementType();
  Type i32 = b.getI32Type();
  const int64_t vk = la.vec[1], reps = la.reps(1), steps = vk / mmaStepElements(false), pairs = la.reps(0) / 2,
                n = lc.shape[1], tilesN = n / 8, kSteps = reps * steps, stepWords = 8 * n;
  auto c = [&](int64_t v) { return index(v); };
  auto mul = [&](Value x, int64_t v) { return arith::MulIOp::create(b, loc, x, c(v)).getResult(); };
  auto div = [&](Value x, int64_t v) { return arith::DivUIOp::create(b, loc, x, c(v)).getResult(); };
  auto rem = [&](Value x, int64_t v) { return arith::RemUIOp::create(b, loc, x, c(v)).getResult(); };
  auto add = [&](Value x, Value y) { return arith::AddIOp::create(b, loc, x, y).getResult(); };

  // Stage the rhs where each step's descriptor finds its elements.
  auto space = gpu::AddressSpaceAttr::get(b.getContext(), gpu::AddressSpace::Workgroup);
  Value sb = sharedBuffer(MemRefType::get({kSteps * stepWords}, i32, MemRefLayoutAttrInterface(), space), op->getLoc());
  for (int64_t slot = 0; slot < lb.slotsPerThread(); ++slot) {
    BlockedLayout::SlotPos pos = lb.slotPos(slot);
    SmallVector<Value> inside; // a layout padding the tile holds slots past it: not stored
    Value row = tileCoord(lb, pos, 0, &inside), col = tileCoord(lb, pos, 1, &inside);
    // col = q 4V + t V + 2 s + h: step q steps + s, k = t + 4 h.
    Value q = div(col, 4 * vk), t = rem(div(col, vk), 4), s = div(rem(col, vk), 2), h = rem(col, 2);
    Value step = add(mul(q, steps), s);
    Value at = add(add(mul(step, stepWords), mul(h, kLeadBytes / 4)),
                   add(add(mul(div(row, 8), kStrideBytes / 4), mul(rem(row, 8), 4)), t));
    Value e = vector::ExtractOp::create(b, loc, rhs, ArrayRef<int64_t>{slot});
    Value bits = mma::tf32Operand(b, loc, eb, e);
    when(inside, [&] { memref::StoreOp::create(b, loc, bits, sb, ValueRange{at}); });
  }
  NVVM::FenceProxyOp::create(b, loc, NVVM::ProxyKind::async_shared,
                             NVVM::SharedSpaceAttr::get(b.getContext(), NVVM::SharedSpace::shared_cta));
  gpu::BarrierOp::create(b, loc);

  // The lhs's a registers [pairs][kSteps][4] and the accumulators [pairs][tilesN][4] (wgmma's d 4j + i of column
  // tile j is mma.sync's c i).
  SmallVector<Value> regs;
  for (int64_t p = 0; p < pairs; ++p)
    for (int64_t q = 0; q < reps; ++q)
      for (int64_t s = 0; s < steps; ++s)
        llvm::append_range(regs, mma::lhsRegisters(b, loc, lhs, la, ea, /*bf16=*/false, p, q, s));
  SmallVector<Value> accs = mma::accumulatorTiles(b, loc, acc, lc);

  // The descriptor of step 0 (no swizzle): start address / 16 in bits 0-13, the leading and stride byte offsets
  // / 16 in bits 16-29 and 32-45. A step's start is stepWords x 4 bytes further.
  // (The buffer's own address with its offset: past 48 KB it is a view into dynamic shared memory.)
  Value address = elementAddress(sb, {index(0)});
  auto i64c = [&](int64_t v) { return arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(v)).getResult(); };
  Value desc0 = arith::OrIOp::create(
      b, loc, arith::ShRUIOp::create(b, loc, arith::AndIOp::create(b, loc, address, i64c(0x3FFFF)), i64c(4)),
      i64c((kLeadBytes >> 4) << 16 | (kStrideBytes >> 4) << 32));
  const int64_t perPair = tilesN * 4;
  std::string ptx = "wgmma.mma_async.sync.aligned.m64n" + std::to_string(n) + "k8.f32.tf32.tf32 {";
  for (int64_t i = 0; i < perPair; ++i)
    ptx += (i ? ", $" : "$") + std::to_string(i);
  ptx += "}, {";
  for (int64_t i = 0; i < 4; ++i)
    ptx += (i ? ", $" : "$") + std::to_string(perPair + i);
  ptx += "}, $" + std::to_string(perPair + 4) + ", 1, 1, 1;";
  // One row pair at a time: its a registers and accumulators through a fence, then its steps. (All pairs' a
  // registers through one fence would hold them all at once: 256 rows on 8 warps spilled.)
  for (int64_t p = 0; p < pairs; ++p) {
    SmallVector<Value> fenced(regs.begin() + p * kSteps * 4, regs.begin() + (p + 1) * kSteps * 4);
    fenced.append(accs.begin() + p * perPair, accs.begin() + (p + 1) * perPair);
    fenced = asmThrough(b, loc, "wgmma.fence.sync.aligned;", fenced);
    SmallVector<Value> d(fenced.begin() + kSteps * 4, fenced.end());
    for (int64_t k = 0; k < kSteps; ++k) {
      SmallVector<Value> inputs(fenced.begin() + k * 4, fenced.begin() + (k + 1) * 4);
      inputs.push_back(k ? arith::AddIOp::create(b, loc, desc0, i64c(k * stepWords * 4 / 16)).getResult() : desc0);
      d = asmThrough(b, loc, ptx, d, inputs);
    }
    std::copy(d.begin(), d.end(), accs.begin() + p * perPair);
  }
  NVVM::WgmmaGroupSyncAlignedOp::create(b, loc);
  accs = asmThrough(b, loc, "wgmma.wait_group.sync.aligned 0;", accs);

  // Every warpgroup is done with the staged rhs before the buffer is written again.
  gpu::BarrierOp::create(b, loc);
  return mma::fromAccumulatorTiles(b, loc, accs, lc);
}

} // namespace tk::compiler
