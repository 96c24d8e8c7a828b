//===- EncodingPatterns.cpp - packed number formats on per-thread vectors -===//
//
// Each thread packs and unpacks values it holds (layout inference makes the
// packed layout the values' one with the vector scaled by bytes per value),
// so these are the encoders of FloatEncoding.h on its vectors.
//===----------------------------------------------------------------------===//
#include "Patterns.h"

using namespace mlir;
using namespace tk::tile;

namespace tk::compiler {
namespace {

/// An op whose per-thread code is `encode` of its (blocked) input's vector.
template <typename Op>
struct Encoding : TileToGpuPattern<Op> {
  using Adaptor = typename Op::Adaptor;
  using Encode = Value (*)(ThreadEmitter &, Value);
  Encoding(const TypeConverter &converter, MLIRContext *ctx, KernelStates &states, Encode encode)
      : TileToGpuPattern<Op>(converter, ctx, states), encode(encode) {}
  LogicalResult lower(Op op, Adaptor a, ThreadEmitter &emit, ConversionPatternRewriter &rw) const override {
    if (failed(blockedOf(op, op.getInput().getType())))
      return failure();
    rw.replaceOp(op, encode(emit, a.getInput()));
    return success();
  }
  Encode encode;
};

/// A table lookup of e4m3 codes per distinct shift (E2M1ToE4M3.cpp).
struct E2M1ToE4M3Pattern : TileToGpuPattern<E2M1ToE4M3Op> {
  using TileToGpuPattern::TileToGpuPattern;
  LogicalResult lower(E2M1ToE4M3Op op, Adaptor a, ThreadEmitter &emit, ConversionPatternRewriter &rw) const override {
    if (failed(blockedOf(op, op.getResult().getType())) || failed(blockedOf(op, op.getCodes().getType())))
      return failure();
    rw.replaceOp(op, emit.e2m1ToE4M3(a.getCodes(), a.getShift()));
    return success();
  }
};

} // namespace

void populateEncodingPatterns(RewritePatternSet &set, const TypeConverter &converter, KernelStates &states) {
  MLIRContext *ctx = set.getContext();
  set.add<Encoding<PackE2M1Op>>(converter, ctx, states,
                                [](ThreadEmitter &e, Value v) { return emitPackE2M1(e.b, e.loc, v); });
  set.add<Encoding<UnpackE2M1Op>>(converter, ctx, states,
                                  [](ThreadEmitter &e, Value v) { return emitUnpackE2M1(e.b, e.loc, v); });
  set.add<Encoding<PackE5M6Op>>(converter, ctx, states,
                                [](ThreadEmitter &e, Value v) { return emitPackE5M6(e.b, e.loc, v, e.fp8Hardware); });
  set.add<Encoding<UnpackE5M6Op>>(converter, ctx, states,
                                  [](ThreadEmitter &e, Value v) { return emitUnpackE5M6(e.b, e.loc, v); });
  addTileToGpuPatterns<E2M1ToE4M3Pattern>(set, converter, states);
}

} // namespace tk::compiler
