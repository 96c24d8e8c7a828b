//===- ExchangePatterns.cpp - fragments moved between threads through shared memory ===//
#include "Patterns.h"

using namespace mlir;
using namespace tk::tile;

namespace tk::compiler {
namespace {

/// Through a swizzled or padded shared buffer (SharedTranspose.cpp).
struct TransposePattern : TileToGpuPattern<TransposeOp> {
  using TileToGpuPattern::TileToGpuPattern;
  LogicalResult lower(TransposeOp op, Adaptor a, ThreadEmitter &emit, ConversionPatternRewriter &rw) const override {
    FailureOr<BlockedLayout> in = blockedOf(op, op.getInput().getType());
    FailureOr<BlockedLayout> out = blockedOf(op, op.getResult().getType());
    if (failed(in) || failed(out))
      return failure();
    rw.replaceOp(op, emit.transpose(op, a.getInput(), *in, *out, storageType(op.getResult().getType().getElementType())));
    return success();
  }
};

/// Written in one layout, read in the other (Relayout.cpp).
struct RelayoutPattern : TileToGpuPattern<RelayoutOp> {
  using TileToGpuPattern::TileToGpuPattern;
  LogicalResult lower(RelayoutOp op, Adaptor a, ThreadEmitter &emit, ConversionPatternRewriter &rw) const override {
    FailureOr<Value> v = emit.relayout(op, a.getInput());
    if (failed(v))
      return failure();
    rw.replaceOp(op, *v);
    return success();
  }
};

} // namespace

void populateExchangePatterns(RewritePatternSet &set, const TypeConverter &converter, KernelStates &states) {
  addTileToGpuPatterns<TransposePattern, RelayoutPattern>(set, converter, states);
}

} // namespace tk::compiler
