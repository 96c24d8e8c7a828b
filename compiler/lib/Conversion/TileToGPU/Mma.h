//===- Mma.h - pieces both tile.dot lowerings use -------------------------===//
//
// MmaDot.cpp stages both operands in shared memory; MmaRegisters.cpp feeds
// the lhs and accumulator from registers. Both stage a rhs the same way and
// issue the same instruction (fragment layouts: MmaDot.cpp's header).
//===----------------------------------------------------------------------===//
#pragma once

#include "ThreadEmitter.h"
#include "tk/compiler/ElementBytes.h"

#include <array>

namespace tk::compiler::mma {

/// Words of padding after a row of `rowWords` words so that a row stride is
/// `want` words mod `period` (the callers say which reads that spreads over
/// the banks).
int64_t padWords(int64_t rowWords, int64_t want, int64_t period);

/// A shared [rows, cols + pad words] copy of `value` (a thread's slots of
/// layout `l`), stored in whole chunks as a tile.store into memory would be.
mlir::Value stageRows(ThreadEmitter &emit, mlir::Operation *op, mlir::Value value, const BlockedLayout &l,
                      mlir::Type elt, int64_t pad);

/// One TF32 operand element as i32 bits: a bf16 widened (exact), an f32
/// rounded (tf32r). The widening, not a shift of the bf16 bits: LLVM shares
/// it with the kernel's other f32 uses (norm_fn's sum of squares), and the
/// shift cost two instructions an element (7-12% slower on the H200).
mlir::Value tf32Operand(mlir::OpBuilder &b, mlir::Location loc, mlir::Type elt, mlir::Value v);

/// Two bf16 values packed in an i32, `lo` in the low half (a bf16 operand register).
mlir::Value packBf16(mlir::OpBuilder &b, mlir::Location loc, mlir::Value lo, mlir::Value hi);

/// The register forms' fragments (MmaLayouts.h): the slot of `l` at row repetition `rowRep`, column repetition
/// `colRep`, element `v` of its vector.
int64_t fragmentSlot(const BlockedLayout &l, int64_t rowRep, int64_t colRep, int64_t v);

/// The four a registers of row pair `p`, step `s` of column repetition `q` of a lhs `lhs` in `la` (elements `elt`):
/// a0 (g, k), a1 (g + 8, k), a2 (g, k'), a3 (g + 8, k'), k the step's first elements of the run, k' the rest.
std::array<mlir::Value, 4> lhsRegisters(mlir::OpBuilder &b, mlir::Location loc, mlir::Value lhs,
                                        const BlockedLayout &la, mlir::Type elt, bool bf16, int64_t p, int64_t q,
                                        int64_t s);

/// The accumulator `acc` in `lc` as 16 x 8 tiles (p, j) in order, four values each, c(2h + e) being row slot
/// 2p + h, column 8j + 2t + e (mma.sync's c registers and wgmma's d registers, tile by tile).
llvm::SmallVector<mlir::Value> accumulatorTiles(mlir::OpBuilder &b, mlir::Location loc, mlir::Value acc,
                                                const BlockedLayout &lc);
/// The inverse: the per-thread vector of `lc` holding those values.
mlir::Value fromAccumulatorTiles(mlir::OpBuilder &b, mlir::Location loc, llvm::ArrayRef<mlir::Value> tiles,
                                 const BlockedLayout &lc);

/// mma.sync m16n8k8 (TF32) or m16n8k16 (bf16), row x col, f32 accumulators:
/// `a` four i32 registers, `bRegs` two, `c` four f32; returns d.
std::array<mlir::Value, 4> mmaSync(mlir::OpBuilder &b, mlir::Location loc, bool bf16, llvm::ArrayRef<mlir::Value> a,
                                   llvm::ArrayRef<mlir::Value> bRegs, llvm::ArrayRef<mlir::Value> c);

} // namespace tk::compiler::mma

namespace tk::compiler {
/// Why a tile.dot {warpgroup} in the register form cannot run as wgmma over `warps` warps (MmaWarpgroup.cpp), or
/// "" where it can.
std::string whyNotWarpgroupMma(tile::DotOp op, int64_t warps);
} // namespace tk::compiler
