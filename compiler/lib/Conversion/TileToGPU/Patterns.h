//===- Patterns.h - tile ops to per-thread code, as conversion patterns ---===//
//
// tile-lower-to-gpu converts every tile op inside an outlined kernel
// (KernelOutline.h) with a pattern of its own, applied by MLIR's dialect
// conversion driver in program order: fragments become per-thread vectors
// (the type converter), and each pattern emits its op's per-thread code
// through a ThreadEmitter. One file per family of ops registers its patterns.
//===----------------------------------------------------------------------===//
#pragma once

#include "FragmentLayouts.h"
#include "ThreadEmitter.h"

#include "mlir/Transforms/DialectConversion.h"

#include <memory>

namespace tk::compiler {

/// The kernels being lowered, by their gpu.func.
class KernelStates {
public:
  KernelState &add(mlir::gpu::GPUFuncOp func, mlir::Location loc);
  /// The state of the kernel `op` is in.
  KernelState &of(mlir::Operation *op) const;
  bool anyFailed() const;

private:
  llvm::DenseMap<mlir::Operation *, std::unique_ptr<KernelState>> states_;
};

/// Fragments as per-thread vectors (their slots, in the storage type),
/// memrefs with float8 elements as i8 memrefs, everything else unchanged.
class FragmentTypeConverter : public mlir::TypeConverter {
public:
  FragmentTypeConverter();
};

/// The pattern of tile op `Op`: `lower` emits the op's per-thread code with
/// `emit` (at the op, in its thread index scope) and replaces or erases it.
/// A failure is an error it has reported; the pass then fails.
template <typename Op> class TileToGpuPattern : public mlir::OpConversionPattern<Op> {
public:
  using Adaptor = typename Op::Adaptor;
  TileToGpuPattern(const mlir::TypeConverter &converter, mlir::MLIRContext *ctx, KernelStates &states)
      : mlir::OpConversionPattern<Op>(converter, ctx), states(states) {}

  mlir::LogicalResult matchAndRewrite(Op op, Adaptor adaptor, mlir::ConversionPatternRewriter &rewriter) const final {
    KernelState &state = states.of(op);
    ThreadEmitter emit(rewriter, state);
    if (mlir::succeeded(lower(op, adaptor, emit, rewriter)))
      return mlir::success();
    state.failed = true;
    return mlir::failure();
  }

  virtual mlir::LogicalResult lower(Op op, Adaptor adaptor, ThreadEmitter &emit,
                                    mlir::ConversionPatternRewriter &rewriter) const = 0;

protected:
  KernelStates &states;
};

/// Adds the patterns of `Patterns...` (each a TileToGpuPattern) to `set`.
template <typename... Patterns>
void addTileToGpuPatterns(mlir::RewritePatternSet &set, const mlir::TypeConverter &converter, KernelStates &states) {
  (set.add<Patterns>(converter, set.getContext(), states), ...);
}

// One per family (each in its file of the same name).
void populateStructurePatterns(mlir::RewritePatternSet &, const mlir::TypeConverter &, KernelStates &);
void populateMemoryPatterns(mlir::RewritePatternSet &, const mlir::TypeConverter &, KernelStates &);
void populateIndexedPatterns(mlir::RewritePatternSet &, const mlir::TypeConverter &, KernelStates &);
void populateComputePatterns(mlir::RewritePatternSet &, const mlir::TypeConverter &, KernelStates &);
void populateLinePatterns(mlir::RewritePatternSet &, const mlir::TypeConverter &, KernelStates &);
void populateExchangePatterns(mlir::RewritePatternSet &, const mlir::TypeConverter &, KernelStates &);
void populateEncodingPatterns(mlir::RewritePatternSet &, const mlir::TypeConverter &, KernelStates &);
void populateCoordinatePatterns(mlir::RewritePatternSet &, const mlir::TypeConverter &, KernelStates &);

/// Memref types as the GPU sees them: float8 elements become i8.
mlir::Type gpuMemRefType(mlir::Type t);

} // namespace tk::compiler
