//===- CpuPatterns.h - tile ops to sequential loops, as conversion patterns ===//
//
// tile-lower-to-cpu gives every fragment a buffer of its shape (allocated at
// the function's entry, freed at its end) and converts each tile op with a
// pattern of its own into loops over its elements, applied by MLIR's dialect
// conversion driver in program order. One block runs at a time, so copies
// complete at once and barriers are nothing; layouts are ignored.
//===----------------------------------------------------------------------===//
#pragma once

#include "tk/compiler/Conversion/FloatEncoding.h"
#include "tk/compiler/Conversion/ScalarMath.h"
#include "tk/compiler/Dialect/Tile/Tile.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Transforms/DialectConversion.h"

#include <optional>

namespace tk::compiler {

/// What the CPU lowering knows of one kernel (a func.func).
struct CpuKernelState {
  mlir::func::FuncOp func;
  mlir::Location loc;
  /// Fragment buffers and shared buffers, freed before the function returns.
  llvm::SmallVector<mlir::Value> buffers;
  bool failed = false;
};

/// Loops and guarded accesses over fragment buffers, at the builder's
/// insertion point.
struct CpuEmitter {
  mlir::OpBuilder &b;
  CpuKernelState &state;
  mlir::Location loc;

  CpuEmitter(mlir::OpBuilder &b, CpuKernelState &state) : b(b), state(state), loc(state.loc) {}
  mlir::Value index(int64_t v);
  /// A heap buffer of `type`, allocated once at the function's entry.
  mlir::Value buffer(mlir::MemRefType type);
  /// The buffer of a fragment of `type`.
  mlir::Value fragmentBuffer(tile::FragmentType type);
  /// `body` for every element of `shape` (innermost dimension last).
  void loopNest(llvm::ArrayRef<int64_t> shape,
                llvm::function_ref<void(mlir::OpBuilder &, mlir::Location, mlir::ValueRange)> body);
  /// origin + iv < extent along every dimension of `mem`.
  mlir::Value inBounds(mlir::OpBuilder &ib, mlir::Value mem, llvm::ArrayRef<mlir::Value> coords);
  /// Coordinates origin + ivs; with `split` n, the last one c becomes (c / n, c % n).
  llvm::SmallVector<mlir::Value> offset(mlir::OpBuilder &ib, mlir::ValueRange origin, mlir::ValueRange ivs,
                                        std::optional<int64_t> split = {});
  /// `src` at coords, or zero outside it.
  mlir::Value maskedRead(mlir::OpBuilder &ib, mlir::Value src, llvm::ArrayRef<mlir::Value> coords);
  /// Stores (or, with `atomicAdd`, adds) `value` at `coords` when they are inside `dst`.
  void maskedWrite(mlir::OpBuilder &ib, mlir::Value value, mlir::Value dst, llvm::ArrayRef<mlir::Value> coords,
                   bool atomicAdd = false);
};

/// The kernels being lowered, by their func.func.
class CpuKernelStates {
public:
  CpuKernelState &add(mlir::func::FuncOp func, mlir::Location loc);
  CpuKernelState &of(mlir::Operation *op) const;
  bool anyFailed() const;
  llvm::SmallVector<CpuKernelState *> all() const;

private:
  llvm::DenseMap<mlir::Operation *, std::unique_ptr<CpuKernelState>> states_;
};

/// Fragments as buffers of their shape (storage element types); memrefs
/// with float8 elements as i8, shared buffers without their address space.
class CpuTypeConverter : public mlir::TypeConverter {
public:
  CpuTypeConverter();
};
mlir::Type cpuMemRefType(mlir::Type t);

/// scf.if and arith.select with bf16 results carry i16 bits instead
/// (Bf16AsBits.cpp): no bf16 phi or select reaches LLVM.
void carryBf16AsBits(mlir::ModuleOp module);
/// After the lowering to LLVM: bf16 loads and stores as i16 ones.
void loadAndStoreBf16AsBits(mlir::ModuleOp module);

/// The pattern of tile op `Op` on the CPU; a failure is an error it has reported.
template <typename Op> class TileToCpuPattern : public mlir::OpConversionPattern<Op> {
public:
  using Adaptor = typename Op::Adaptor;
  TileToCpuPattern(const mlir::TypeConverter &converter, mlir::MLIRContext *ctx, CpuKernelStates &states)
      : mlir::OpConversionPattern<Op>(converter, ctx), states(states) {}

  mlir::LogicalResult matchAndRewrite(Op op, Adaptor adaptor, mlir::ConversionPatternRewriter &rewriter) const final {
    CpuKernelState &state = states.of(op);
    CpuEmitter emit(rewriter, state);
    if (mlir::succeeded(lower(op, adaptor, emit, rewriter)))
      return mlir::success();
    state.failed = true;
    return mlir::failure();
  }
  virtual mlir::LogicalResult lower(Op op, Adaptor adaptor, CpuEmitter &emit,
                                    mlir::ConversionPatternRewriter &rewriter) const = 0;

protected:
  CpuKernelStates &states;
};

template <typename... Patterns>
void addTileToCpuPatterns(mlir::RewritePatternSet &set, const mlir::TypeConverter &converter,
                          CpuKernelStates &states) {
  (set.add<Patterns>(converter, set.getContext(), states), ...);
}

void populateCpuMemoryPatterns(mlir::RewritePatternSet &, const mlir::TypeConverter &, CpuKernelStates &);
void populateCpuComputePatterns(mlir::RewritePatternSet &, const mlir::TypeConverter &, CpuKernelStates &);
void populateCpuEncodingPatterns(mlir::RewritePatternSet &, const mlir::TypeConverter &, CpuKernelStates &);
void populateCpuCoordinatePatterns(mlir::RewritePatternSet &, const mlir::TypeConverter &, CpuKernelStates &);
void populateCpuCarriedPatterns(mlir::RewritePatternSet &, const mlir::TypeConverter &, CpuKernelStates &);

} // namespace tk::compiler
