//===- MmaRegisters.cpp - tile.dot with its lhs and accumulator in registers ===//
//
// Where layout inference gave the lhs and the accumulator mma.sync's own
// fragment layouts (MmaLayouts.h), each thread already holds the elements it
// feeds the tensor core: the lhs's slots are the instruction's a registers
// (a K permutation applied to the rhs too), the accumulator's are its c
// registers, and the result stays where it is. Only the rhs, which every
// warp multiplies by, is staged in shared memory: each thread reads its run
// of V K-consecutive elements of a column once per repetition, for every
// step of it. A loop carrying the accumulator keeps the product in registers
// from one iteration to the next.
//===----------------------------------------------------------------------===//
#include "Mma.h"
#include "tk/compiler/Layout/MmaLayouts.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;

namespace tk::compiler {

Value ThreadEmitter::dotInRegisters(tile::DotOp op, Value lhs, Value rhs, Value acc, const BlockedLayout &la,
                                    const BlockedLayout &lb, const BlockedLayout &lc) {
  Type ea = op.getLhs().getType().getElementType(), eb = op.getRhs().getType().getElementType();
  const bool bf16 = op.isBf16(), rhsT = op.getRhsTransposed();
  if (op.getWarpgroup() && state.warpgroupMma) {
    const std::string why = whyNotWarpgroupMma(op, state.numWarps);
    if (why.empty())
      return dotOnWarpgroups(op, lhs, rhs, acc, la, lb, lc);
    if (remarks)
      op->emitRemark() << "tile.dot {warpgroup} runs as mma.sync: " << why;
  }
  const int64_t vk = la.vec[1], reps = la.reps(1), steps = vk / mmaStepElements(bf16), pairs = la.reps(0) / 2,
                tilesN = lc.reps(1);
  const int64_t runBytes = vk * elementBytes(eb), rowWords = lb.shape[1] * elementBytes(eb) / 4;
  // [N, K]: a run of up to 4 words read whole by each thread (16-byte pieces beyond): 8 rows g x 4 runs t over
  // distinct banks when rows are 4 x the run's words apart mod 32 (runs of 8 words: 4 mod 8, the pieces
  // interleave). [K, N]: rows t V apart, 8 words apart mod 32 for the 8 columns g (a 2-way conflict past V = 8).
  const int64_t runWords = runBytes / 4;
  // One warp's transposed rhs may come as the b registers themselves (MmaLayouts.h): nothing to stage or wait for.
  std::optional<BlockedLayout> rhsInRegisters = mmaRhsRegisterLayout(la, lc.shape[1], state.numWarps);
  const bool staged = !(rhsT && rhsInRegisters && lb == *rhsInRegisters);
  Value sb;
  if (staged) {
    const int64_t pad =
        rhsT ? (runWords <= 4 ? mma::padWords(rowWords, 4 * runWords, 32) : mma::padWords(rowWords, 4, 8))
             : (vk <= 8 ? mma::padWords(rowWords, 8 / vk, 32 / vk) : mma::padWords(rowWords, 1, 2));
    sb = mma::stageRows(*this, op, rhs, lb, eb, pad);
    gpu::BarrierOp::create(b, loc);
  }

  auto c = [&](int64_t v) { return index(v); };
  auto addc = [&](Value x, int64_t v) { return v ? arith::AddIOp::create(b, loc, x, c(v)).getResult() : x; };
  Value g = arith::DivUIOp::create(b, loc, lane, c(4)), t = arith::RemUIOp::create(b, loc, lane, c(4));
  Value tRun = arith::MulIOp::create(b, loc, t, c(vk));
  // The rhs registers of column tile j for the steps of repetition q: two i32 per step.
  auto rhsRegs = [&](int64_t q, int64_t j) {
    Value col = addc(g, 8 * j), k0 = addc(tRun, 4 * vk * q);
    SmallVector<Value> e;
    if (!staged) {
      for (int64_t v = 0; v < vk; ++v)
        e.push_back(vector::ExtractOp::create(b, loc, rhs, ArrayRef<int64_t>{mma::fragmentSlot(lb, j, q, v)}));
    } else if (rhsT) {
      Value run = vector::LoadOp::create(b, loc, VectorType::get({vk}, eb), sb, ValueRange{col, k0}, false,
                                         llvm::MaybeAlign(std::min<int64_t>(runBytes, 16)));
      for (int64_t v = 0; v < vk; ++v)
        e.push_back(vector::ExtractOp::create(b, loc, run, ArrayRef<int64_t>{v}));
    } else {
      for (int64_t v = 0; v < vk; ++v)
        e.push_back(memref::LoadOp::create(b, loc, sb, ValueRange{addc(k0, v), col}));
    }
    SmallVector<std::array<Value, 2>> regs;
    for (int64_t s = 0; s < steps; ++s)
      regs.push_back(bf16 ? std::array<Value, 2>{mma::packBf16(b, loc, e[4 * s], e[4 * s + 1]),
                                                 mma::packBf16(b, loc, e[4 * s + 2], e[4 * s + 3])}
                          : std::array<Value, 2>{mma::tf32Operand(b, loc, eb, e[2 * s]),
                                                 mma::tf32Operand(b, loc, eb, e[2 * s + 1])});
    return regs;
  };
  // Accumulators of 16 x 8 tile (p, j), four values each (Mma.h's accumulatorTiles).
  SmallVector<Value> accs = mma::accumulatorTiles(b, loc, acc, lc);
  for (int64_t q = 0; q < reps; ++q) {
    SmallVector<SmallVector<std::array<Value, 2>>> bRegs;
    for (int64_t j = 0; j < tilesN; ++j)
      bRegs.push_back(rhsRegs(q, j));
    for (int64_t p = 0; p < pairs; ++p)
      for (int64_t s = 0; s < steps; ++s) {
        std::array<Value, 4> a = mma::lhsRegisters(b, loc, lhs, la, ea, bf16, p, q, s);
        for (int64_t j = 0; j < tilesN; ++j) {
          MutableArrayRef<Value> d = MutableArrayRef<Value>(accs).slice((p * tilesN + j) * 4, 4);
          std::array<Value, 4> next = mma::mmaSync(b, loc, bf16, a, bRegs[j][s], d);
          std::copy(next.begin(), next.end(), d.begin());
        }
      }
  }
  // Every warp is done reading the staged rhs before the buffer is written again.
  if (staged)
    gpu::BarrierOp::create(b, loc);
  return mma::fromAccumulatorTiles(b, loc, accs, lc);
}

} // namespace tk::compiler
