//===- CpuComputePatterns.cpp - elementwise regions, reductions, moves ----===//
#include "CpuPatterns.h"
#include "tk/compiler/Conversion/ScalarMath.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"

using namespace mlir;
using namespace tk::tile;

namespace tk::compiler {
namespace {

/// The body, cloned into a loop over the elements.
struct ParallelPattern : TileToCpuPattern<ParallelOp> {
  using TileToCpuPattern::TileToCpuPattern;
  LogicalResult lower(ParallelOp op, Adaptor a, CpuEmitter &emit, ConversionPatternRewriter &rw) const override {
    FragmentType type = op.getResult().getType();
    Block &body = op.getBody().front();
    for (BlockArgument arg : body.getArguments())
      if (isa<Float8E4M3FNType>(arg.getType()))
        return op.emitOpError() << "elementwise math on f8E4M3FN elements: convert the fragment to f32 first";
    Value buf = emit.fragmentBuffer(type);
    SmallVector<Value> inputs(a.getInputs());
    emit.loopNest(type.getShape(), [&](OpBuilder &ib, Location l, ValueRange ivs) {
      IRMapping inner;
      for (auto [arg, in] : llvm::zip(body.getArguments(), inputs))
        inner.map(arg, memref::LoadOp::create(ib, l, in, ivs));
      for (Operation &bodyOp : body.without_terminator())
        ib.clone(bodyOp, inner);
      Value result = inner.lookup(cast<YieldOp>(body.getTerminator()).getValues()[0]);
      memref::StoreOp::create(ib, l, result, buf, ivs);
    });
    rw.replaceOp(op, buf);
    return success();
  }
};

/// e4m3 by the integer rounding sm_80 also uses (FloatEncoding.h).
struct ConvertPattern : TileToCpuPattern<ConvertOp> {
  using TileToCpuPattern::TileToCpuPattern;
  LogicalResult lower(ConvertOp op, Adaptor a, CpuEmitter &emit, ConversionPatternRewriter &rw) const override {
    FragmentType type = op.getResult().getType();
    Type from = op.getInput().getType().getElementType(), to = type.getElementType();
    Value buf = emit.fragmentBuffer(type), in = a.getInput();
    emit.loopNest(type.getShape(), [&](OpBuilder &ib, Location l, ValueRange ivs) {
      Value v = memref::LoadOp::create(ib, l, in, ivs);
      if (isa<Float8E4M3FNType>(to))
        v = emitF32ToE4M3(ib, l, v, /*hardware=*/false);
      else if (isa<Float8E4M3FNType>(from)) // to f32
        v = emitE4M3ToF32(ib, l, v, /*hardware=*/false);
      else if (from.getIntOrFloatBitWidth() < to.getIntOrFloatBitWidth())
        v = arith::ExtFOp::create(ib, l, to, v);
      else if (from.getIntOrFloatBitWidth() > to.getIntOrFloatBitWidth())
        v = arith::TruncFOp::create(ib, l, to, v);
      memref::StoreOp::create(ib, l, v, buf, ivs);
    });
    rw.replaceOp(op, buf);
    return success();
  }
};

/// Each group's elements combined in index order.
struct ReducePattern : TileToCpuPattern<ReduceOp> {
  using TileToCpuPattern::TileToCpuPattern;
  LogicalResult lower(ReduceOp op, Adaptor a, CpuEmitter &emit, ConversionPatternRewriter &rw) const override {
    FragmentType type = op.getResult().getType();
    Value buf = emit.fragmentBuffer(type), in = a.getInput();
    int64_t dim = op.getDim(), group = op.getGroup();
    ReduceKind kind = op.getKind();
    Type elt = type.getElementType();
    emit.loopNest(type.getShape(), [&](OpBuilder &ib, Location l, ValueRange ivs) {
      Value init = reduceIdentity(ib, l, kind, elt);
      Value lb = arith::ConstantIndexOp::create(ib, l, 0), ub = arith::ConstantIndexOp::create(ib, l, group),
            one = arith::ConstantIndexOp::create(ib, l, 1);
      Value base = arith::MulIOp::create(ib, l, ivs[dim], arith::ConstantIndexOp::create(ib, l, group));
      auto loop = scf::ForOp::create(ib, l, lb, ub, one, ValueRange{init},
                                     [&](OpBuilder &fb, Location fl, Value j, ValueRange acc) {
                                       SmallVector<Value> at(ivs.begin(), ivs.end());
                                       at[dim] = arith::AddIOp::create(fb, fl, base, j);
                                       Value v = memref::LoadOp::create(fb, fl, in, at);
                                       if (kind == ReduceKind::absmax)
                                         v = absoluteValue(fb, fl, v);
                                       scf::YieldOp::create(fb, fl,
                                                            ValueRange{reduceCombine(fb, fl, kind, acc[0], v)});
                                     });
      memref::StoreOp::create(ib, l, loop.getResult(0), buf, ivs);
    });
    rw.replaceOp(op, buf);
    return success();
  }
};

/// Each element of a line (tile.scan, tile.count_equal) from a loop over
/// the line's elements j in [0, n): `step` folds element j into the result.
template <typename Op>
LogicalResult lowerLine(Op op, Value in, Type resultElt, int64_t dim, CpuEmitter &emit, ConversionPatternRewriter &rw,
                        function_ref<Value(OpBuilder &, Location, Value acc, Value other, Value mine, Value j,
                                           Value at)>
                            step) {
  FragmentType type = op.getResult().getType();
  Value buf = emit.fragmentBuffer(type);
  emit.loopNest(type.getShape(), [&](OpBuilder &ib, Location l, ValueRange ivs) {
    Value init = arith::ConstantOp::create(ib, l, ib.getZeroAttr(resultElt));
    Value mine = memref::LoadOp::create(ib, l, in, ivs);
    Value lb = arith::ConstantIndexOp::create(ib, l, 0), one = arith::ConstantIndexOp::create(ib, l, 1),
          ub = arith::ConstantIndexOp::create(ib, l, type.getShape()[dim]);
    auto loop = scf::ForOp::create(ib, l, lb, ub, one, ValueRange{init},
                                   [&](OpBuilder &fb, Location fl, Value j, ValueRange acc) {
                                     SmallVector<Value> other(ivs.begin(), ivs.end());
                                     other[dim] = j;
                                     Value v = memref::LoadOp::create(fb, fl, in, other);
                                     scf::YieldOp::create(fb, fl, ValueRange{step(fb, fl, acc[0], v, mine, j,
                                                                                   ivs[dim])});
                                   });
    memref::StoreOp::create(ib, l, loop.getResult(0), buf, ivs);
  });
  rw.replaceOp(op, buf);
  return success();
}

/// The sum of the line's elements before (and, inclusive, at) the element.
struct ScanPattern : TileToCpuPattern<ScanOp> {
  using TileToCpuPattern::TileToCpuPattern;
  LogicalResult lower(ScanOp op, Adaptor a, CpuEmitter &emit, ConversionPatternRewriter &rw) const override {
    const auto below = op.getExclusive() ? arith::CmpIPredicate::ult : arith::CmpIPredicate::ule;
    Type elt = op.getResult().getType().getElementType();
    return lowerLine(op, a.getInput(), elt, op.getDim(), emit, rw,
                     [&](OpBuilder &b, Location l, Value acc, Value other, Value, Value j, Value at) {
                       Value counted = arith::CmpIOp::create(b, l, below, j, at);
                       Value zero = arith::ConstantOp::create(b, l, b.getZeroAttr(elt));
                       return arith::AddIOp::create(b, l, acc, arith::SelectOp::create(b, l, counted, other, zero));
                     });
  }
};

/// The number of equal keys in the line (before the element, with `before`).
struct CountEqualPattern : TileToCpuPattern<CountEqualOp> {
  using TileToCpuPattern::TileToCpuPattern;
  LogicalResult lower(CountEqualOp op, Adaptor a, CpuEmitter &emit, ConversionPatternRewriter &rw) const override {
    const bool before = op.getBefore();
    return lowerLine(op, a.getKeys(), rw.getI32Type(), op.getDim(), emit, rw,
                     [&](OpBuilder &b, Location l, Value acc, Value other, Value mine, Value j, Value at) {
                       Value counted = arith::CmpIOp::create(b, l, arith::CmpIPredicate::eq, other, mine);
                       if (before)
                         counted = arith::AndIOp::create(
                             b, l, counted, arith::CmpIOp::create(b, l, arith::CmpIPredicate::ult, j, at));
                       return arith::AddIOp::create(b, l, acc, arith::ExtUIOp::create(b, l, b.getI32Type(), counted));
                     });
  }
};

/// A copy with a new index map: `index` gives the input coordinates of
/// each result coordinate.
template <typename Op>
LogicalResult copyReindexed(Op op, Value in, CpuEmitter &emit, ConversionPatternRewriter &rw,
                            function_ref<SmallVector<Value>(OpBuilder &, Location, ValueRange)> index) {
  FragmentType type = op.getResult().getType();
  Value buf = emit.fragmentBuffer(type);
  emit.loopNest(type.getShape(), [&](OpBuilder &ib, Location l, ValueRange ivs) {
    memref::StoreOp::create(ib, l, memref::LoadOp::create(ib, l, in, index(ib, l, ivs)), buf, ivs);
  });
  rw.replaceOp(op, buf);
  return success();
}

struct ExpandPattern : TileToCpuPattern<ExpandOp> {
  using TileToCpuPattern::TileToCpuPattern;
  LogicalResult lower(ExpandOp op, Adaptor a, CpuEmitter &emit, ConversionPatternRewriter &rw) const override {
    int64_t dim = op.getDim(), group = op.getGroup();
    return copyReindexed(op, a.getInput(), emit, rw, [&](OpBuilder &ib, Location l, ValueRange ivs) {
      SmallVector<Value> at(ivs.begin(), ivs.end());
      at[dim] = arith::DivUIOp::create(ib, l, ivs[dim], arith::ConstantIndexOp::create(ib, l, group));
      return at;
    });
  }
};

struct TransposePattern : TileToCpuPattern<TransposeOp> {
  using TileToCpuPattern::TileToCpuPattern;
  LogicalResult lower(TransposeOp op, Adaptor a, CpuEmitter &emit, ConversionPatternRewriter &rw) const override {
    return copyReindexed(op, a.getInput(), emit, rw, [&](OpBuilder &, Location, ValueRange ivs) {
      SmallVector<Value> at(ivs.begin(), ivs.end());
      std::swap(at[at.size() - 1], at[at.size() - 2]);
      return at;
    });
  }
};

/// One thread holds every element: nothing moves.
struct RelayoutPattern : TileToCpuPattern<RelayoutOp> {
  using TileToCpuPattern::TileToCpuPattern;
  LogicalResult lower(RelayoutOp op, Adaptor a, CpuEmitter &, ConversionPatternRewriter &rw) const override {
    rw.replaceOp(op, a.getInput());
    return success();
  }
};

/// Each result element: its K products (exact in f32) added one at a time in order of k, to the accumulator
/// element where there is one.
struct DotPattern : TileToCpuPattern<DotOp> {
  using TileToCpuPattern::TileToCpuPattern;
  LogicalResult lower(DotOp op, Adaptor a, CpuEmitter &emit, ConversionPatternRewriter &rw) const override {
    FragmentType type = op.getResult().getType();
    Value buf = emit.fragmentBuffer(type), lhs = a.getLhs(), rhs = a.getRhs();
    Type ea = op.getLhs().getType().getElementType(), eb = op.getRhs().getType().getElementType();
    const int64_t k = op.getLhs().getType().getShape()[1];
    emit.loopNest(type.getShape(), [&](OpBuilder &ib, Location l, ValueRange ivs) {
      auto c = [&](int64_t v) { return arith::ConstantIndexOp::create(ib, l, v); };
      Value init = a.getAcc() ? memref::LoadOp::create(ib, l, a.getAcc(), ivs).getResult()
                              : arith::ConstantOp::create(ib, l, ib.getF32FloatAttr(0.0f)).getResult();
      auto loop = scf::ForOp::create(
          ib, l, c(0), c(k), c(1), ValueRange{init}, [&](OpBuilder &kb, Location kl, Value kk, ValueRange acc) {
            // bf16 is exact in f32 and in TF32; an f32 operand is rounded to TF32.
            auto operand = [&](Value mem, Type elt, Value row, Value col) -> Value {
              Value v = memref::LoadOp::create(kb, kl, mem, ValueRange{row, col});
              return isa<BFloat16Type>(elt)
                         ? Value(arith::ExtFOp::create(kb, kl, kb.getF32Type(), v))
                         : Value(arith::BitcastOp::create(kb, kl, kb.getF32Type(), tf32Bits(kb, kl, v)));
            };
            Value b = op.getRhsTransposed() ? operand(rhs, eb, ivs[1], kk) : operand(rhs, eb, kk, ivs[1]);
            Value product = arith::MulFOp::create(kb, kl, operand(lhs, ea, ivs[0], kk), b);
            scf::YieldOp::create(kb, kl, ValueRange{arith::AddFOp::create(kb, kl, acc[0], product)});
          });
      memref::StoreOp::create(ib, l, loop.getResult(0), buf, ivs);
    });
    rw.replaceOp(op, buf);
    return success();
  }
};

} // namespace

void populateCpuComputePatterns(RewritePatternSet &set, const TypeConverter &converter, CpuKernelStates &states) {
  addTileToCpuPatterns<ParallelPattern, ConvertPattern, ReducePattern, ScanPattern, CountEqualPattern, ExpandPattern,
                       TransposePattern, RelayoutPattern, DotPattern>(set, converter, states);
}

} // namespace tk::compiler
