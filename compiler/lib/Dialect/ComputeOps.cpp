//===- ComputeOps.cpp - computation on fragments: verifiers and layout rules ===//
#include "OpHelpers.h"
#include "tk/compiler/Dialect/Tile/Tile.h"
#include "tk/compiler/ElementBytes.h"
#include "tk/compiler/Layout/LayoutAttrs.h"
#include "tk/compiler/Layout/MmaLayouts.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/Builders.h"

using namespace mlir;
using namespace tk::tile;

LogicalResult ParallelOp::verify() {
  FragmentType resultType = getResult().getType();
  Block &body = getBody().front();
  if (body.getNumArguments() != getInputs().size())
    return emitOpError() << "body has " << body.getNumArguments() << " arguments for "
                         << getInputs().size() << " inputs";
  for (auto [i, input] : llvm::enumerate(getInputs())) {
    auto type = cast<FragmentType>(input.getType());
    if (type.getShape() != resultType.getShape())
      return emitOpError() << "input " << i << " shape does not match the result shape";
    if (!layoutsCompatible(type.getLayout(), resultType.getLayout()))
      return emitOpError() << "input " << i << " layout " << type.getLayout()
                           << " differs from the result layout " << resultType.getLayout();
    if (body.getArgument(i).getType() != type.getElementType())
      return emitOpError() << "body argument " << i << " has type " << body.getArgument(i).getType()
                           << " but input element type is " << type.getElementType();
  }
  auto yield = cast<YieldOp>(body.getTerminator());
  if (yield.getValues().size() != 1 || yield.getValues()[0].getType() != resultType.getElementType())
    return emitOpError() << "body must yield exactly one " << resultType.getElementType();
  return success();
}

/// Checks the shape relation of a grouped reduce/expand: `wide` has `group`
/// times the extent of `narrow` along `dim`.
static LogicalResult verifyGrouping(Operation *op, FragmentType wide, FragmentType narrow, int64_t dim,
                                    int64_t group) {
  if (wide.getRank() != narrow.getRank())
    return op->emitOpError() << "input and result ranks differ";
  if (dim < 0 || dim >= wide.getRank())
    return op->emitOpError() << "dim " << dim << " out of range for rank " << wide.getRank();
  int64_t size = wide.getShape()[dim];
  if (group <= 0 || size % group != 0)
    return op->emitOpError() << "group " << group << " does not divide dimension " << dim << " of size "
                             << size;
  for (int64_t d = 0; d < wide.getRank(); ++d) {
    int64_t expect = d == dim ? size / group : wide.getShape()[d];
    if (narrow.getShape()[d] != expect)
      return op->emitOpError() << "expected extent " << expect << " along dimension " << d << ", got "
                               << narrow.getShape()[d];
  }
  if (wide.getElementType() != narrow.getElementType())
    return op->emitOpError() << "element types differ";
  return success();
}

LogicalResult ReduceOp::verify() {
  FragmentType in = getInput().getType(), out = getResult().getType();
  if (failed(verifyGrouping(*this, in, out, getDim(), getGroup())))
    return failure();
  if (getKind() == ReduceKind::absmax && !isa<FloatType>(in.getElementType()))
    return emitOpError() << "absmax needs a float element type, got " << in.getElementType();
  if (getKind() == ReduceKind::sum && isa<FloatType>(in.getElementType()) &&
      in.getElementType().getIntOrFloatBitWidth() < 32)
    return emitOpError() << "a sum of " << in.getElementType()
                         << " elements would round at every step: convert the fragment to f32 first";
  if (isa<Float8E4M3FNType>(in.getElementType()))
    return emitOpError() << "reductions of f8E4M3FN elements are not defined: convert to f32 first";
  if (in.getLayout() && out.getLayout()) {
    auto blocked = dyn_cast<BlockedLayoutAttr>(in.getLayout());
    auto reduced = dyn_cast<ReducedLayoutAttr>(in.getLayout());
    if (!blocked && !(reduced && isa<BlockedLayoutAttr>(reduced.getParent())))
      return emitOpError() << "reduce input must have a blocked layout or a reduced one of a blocked layout, got "
                           << in.getLayout();
    auto expected = ReducedLayoutAttr::get(getContext(), in.getLayout(), getDim(), getGroup());
    if (out.getLayout() != expected)
      return emitOpError() << "result layout " << out.getLayout() << " must be " << expected;
  }
  return success();
}

LogicalResult ExpandOp::verify() {
  FragmentType in = getInput().getType(), out = getResult().getType();
  if (failed(verifyGrouping(*this, out, in, getDim(), getGroup())))
    return failure();
  if (in.getLayout() && out.getLayout()) {
    auto reduced = dyn_cast<ReducedLayoutAttr>(in.getLayout());
    if (!reduced || reduced.getParent() != out.getLayout() || reduced.getDim() != (int64_t)getDim() ||
        reduced.getGroup() != (int64_t)getGroup())
      return emitOpError() << "input layout " << in.getLayout()
                           << " must be the reduced form of the result layout " << out.getLayout();
  }
  return success();
}

// A line op (scan, count_equal): integers, one result of the input's shape
// along a dimension of it.
static LogicalResult verifyLineOp(Operation *op, FragmentType in, FragmentType out, int64_t dim, Type resultElt) {
  if (!isa<IntegerType>(in.getElementType()) || in.getElementType().isInteger(1))
    return op->emitOpError() << "needs i8, i16, i32 or i64 elements, got " << in.getElementType();
  if (dim < 0 || dim >= in.getRank())
    return op->emitOpError() << "dim " << dim << " is outside the fragment's " << in.getRank() << " dimensions";
  if (out.getShape() != in.getShape() || out.getElementType() != resultElt)
    return op->emitOpError() << "result must be " << resultElt << " of the input's shape";
  return success();
}

LogicalResult ScanOp::verify() {
  return verifyLineOp(*this, getInput().getType(), getResult().getType(), getDim(),
                      getInput().getType().getElementType());
}

LogicalResult CountEqualOp::verify() {
  return verifyLineOp(*this, getKeys().getType(), getResult().getType(), getDim(),
                      IntegerType::get(getContext(), 32));
}

static bool isSupportedFloat(Type t) {
  return t.isF32() || t.isBF16() || t.isF16() || isa<Float8E4M3FNType>(t);
}

LogicalResult ConvertOp::verify() {
  FragmentType in = getInput().getType(), out = getResult().getType();
  if (in.getShape() != out.getShape())
    return emitOpError() << "convert keeps the shape";
  if (!layoutsCompatible(in.getLayout(), out.getLayout()))
    return emitOpError() << "convert keeps the layout";
  Type from = in.getElementType(), to = out.getElementType();
  if (!isSupportedFloat(from) || !isSupportedFloat(to))
    return emitOpError() << "unsupported conversion from " << from << " to " << to
                         << " (supported: f32, bf16, f16, f8E4M3FN)";
  if (isa<Float8E4M3FNType>(to) && !from.isF32())
    return emitOpError() << "conversion to f8E4M3FN is defined from f32 only, got " << from;
  if (isa<Float8E4M3FNType>(from) && !isa<Float8E4M3FNType>(to) && !to.isF32())
    return emitOpError() << "conversion from f8E4M3FN is defined to f32 only, got " << to;
  return success();
}

LogicalResult TransposeOp::verify() {
  FragmentType in = getInput().getType(), out = getResult().getType();
  if (in.getRank() < 2)
    return emitOpError() << "transposes the last two dimensions: needs rank >= 2, got " << in.getRank();
  SmallVector<int64_t> expected(in.getShape());
  std::swap(expected[in.getRank() - 1], expected[in.getRank() - 2]);
  if (out.getShape() != ArrayRef<int64_t>(expected) || out.getElementType() != in.getElementType())
    return emitOpError() << "result must be the input with its last two dimensions swapped, got " << out;
  return success();
}

LogicalResult DotOp::verify() {
  FragmentType a = getLhs().getType(), b = getRhs().getType(), c = getResult().getType();
  if (a.getRank() != 2 || b.getRank() != 2)
    return emitOpError() << "multiplies an [M, K] and a [K, N] (or, rhs_transposed, [N, K]) fragment, got " << a
                         << " and " << b;
  for (FragmentType t : {a, b})
    if (!t.getElementType().isF32() && !isa<BFloat16Type>(t.getElementType()))
      return emitOpError() << "takes f32 or bf16 elements, got " << t;
  const bool transposed = getRhsTransposed();
  const int64_t m = a.getShape()[0], k = a.getShape()[1], n = numColumns();
  if (b.getShape()[transposed ? 1 : 0] != k)
    return emitOpError() << (transposed ? "needs the lhs's columns to be the transposed rhs's columns, got "
                                        : "needs the lhs's columns to be the rhs's rows, got ")
                         << a << " and " << b;
  if (c.getRank() != 2 || c.getShape()[0] != m || c.getShape()[1] != n || !c.getElementType().isF32())
    return emitOpError() << "result must be " << m << "x" << n << "xf32, got " << c;
  if (m % 16 || n % 8 || k % kStep())
    return emitOpError() << "runs on 16 x 8 x " << kStep() << " tensor-core tiles (" << (isBf16() ? "bf16" : "TF32")
                         << "): needs M a multiple of 16, N of 8 and K of " << kStep() << ", got M = " << m
                         << ", N = " << n << ", K = " << k;
  if (Value acc = getAcc()) {
    auto t = cast<FragmentType>(acc.getType());
    if (t.getShape() != c.getShape() || !t.getElementType().isF32())
      return emitOpError() << "accumulates into a " << m << "x" << n << "xf32 fragment, got " << t;
    // The product accumulates in place: one layout for both once assigned.
    if (t.getLayout() && c.getLayout() && t.getLayout() != c.getLayout())
      return emitOpError() << "needs the result laid out as the accumulator, got " << c.getLayout() << " and "
                           << t.getLayout();
  }
  return success();
}

LogicalResult RelayoutOp::verify() {
  FragmentType in = getInput().getType(), out = getResult().getType();
  if (in.getShape() != out.getShape() || in.getElementType() != out.getElementType())
    return emitOpError() << "changes only the layout: the result must have the input's shape and element type, got "
                         << in << " -> " << out;
  // Before tile-assign-layouts neither side has a layout (the DSL's relayout()
  // leaves the result's to inference); after it both must.
  if (in.getLayout() && !out.getLayout())
    return emitOpError() << "needs the result's layout";
  return success();
}

//===----------------------------------------------------------------------===//
// Layout rules
//===----------------------------------------------------------------------===//

// A relayout's result: its users' wish, else the default; never its own
// input's (moving a fragment to the layout it has would do nothing).
FailureOr<Attribute> RelayoutOp::inferResultLayout(LayoutInference &inference, OpResult result, Attribute hint) {
  return hint ? hint : inference.defaultLayout(cast<FragmentType>(result.getType()));
}

// Elementwise: one layout for the result and its operands.
LogicalResult ParallelOp::hintOperandLayouts(LayoutInference &inference) {
  inference.hintSameShapeOperands(*this);
  return success();
}
Attribute ParallelOp::requiredOperandLayout(LayoutInference &inference, OpOperand &) {
  return inference.resultLayoutOrDefault(*this);
}
LogicalResult ParallelOp::verifyOperandLayouts(LayoutInference &) { return LayoutInference::verifySameLayouts(*this); }

LogicalResult ScanOp::hintOperandLayouts(LayoutInference &inference) {
  inference.hintSameShapeOperands(*this);
  return success();
}
Attribute ScanOp::requiredOperandLayout(LayoutInference &inference, OpOperand &) {
  return inference.resultLayoutOrDefault(*this);
}
LogicalResult ScanOp::verifyOperandLayouts(LayoutInference &) { return LayoutInference::verifySameLayouts(*this); }

LogicalResult CountEqualOp::hintOperandLayouts(LayoutInference &inference) {
  inference.hintSameShapeOperands(*this);
  return success();
}
Attribute CountEqualOp::requiredOperandLayout(LayoutInference &inference, OpOperand &) {
  return inference.resultLayoutOrDefault(*this);
}
LogicalResult CountEqualOp::verifyOperandLayouts(LayoutInference &) {
  return LayoutInference::verifySameLayouts(*this);
}

LogicalResult ConvertOp::hintOperandLayouts(LayoutInference &inference) {
  inference.hintSameShapeOperands(*this);
  return success();
}
Attribute ConvertOp::requiredOperandLayout(LayoutInference &inference, OpOperand &) {
  return inference.resultLayoutOrDefault(*this);
}
LogicalResult ConvertOp::verifyOperandLayouts(LayoutInference &) { return LayoutInference::verifySameLayouts(*this); }

// A reduction's result is the reduced form of its input's layout (hints do
// not apply: the input decides). The input is blocked, or the result of a
// reduction along another dimension (a two-step block reduction).
FailureOr<Attribute> ReduceOp::inferResultLayout(LayoutInference &, OpResult, Attribute) {
  Attribute parent = LayoutInference::layoutOf(getInput());
  auto reducedParent = dyn_cast_or_null<ReducedLayoutAttr>(parent);
  if (!isa_and_nonnull<BlockedLayoutAttr>(parent) && !(reducedParent && isa<BlockedLayoutAttr>(reducedParent.getParent())))
    return emitOpError() << "reduces a fragment whose layout " << parent
                         << " is neither blocked nor a reduction of a blocked one";
  // The attribute's verifier forbids nesting along one dimension: that is a
  // single reduction with the product of the groups.
  if (reducedParent && reducedParent.getDim() == (int64_t)getDim())
    return emitOpError() << "reduces dimension " << getDim() << " of a fragment already reduced along it (group "
                         << reducedParent.getGroup() << "): reduce once with group "
                         << reducedParent.getGroup() * getGroup() << " instead";
  return Attribute(ReducedLayoutAttr::get(getContext(), parent, getDim(), getGroup()));
}

// An expansion's input (directly, or through elementwise ops, e.g. scale
// factors loaded from memory) is laid out as the reduced form of the
// expansion's layout, so that it arrives distributed like a reduction's
// result; its hint overrides any other.
LogicalResult ExpandOp::hintOperandLayouts(LayoutInference &inference) {
  Attribute parent = inference.layoutOrHintOrDefault(getResult());
  if (auto r = dyn_cast<ReducedLayoutAttr>(parent); r && r.getDim() == (int64_t)getDim())
    return emitOpError() << "expands dimension " << getDim() << " of a fragment that is itself expanded along it (group "
                         << r.getGroup() << "): expand once with group " << r.getGroup() * getGroup() << " instead";
  inference.want(getInput(), ReducedLayoutAttr::get(getContext(), parent, getDim(), getGroup()), /*overrides=*/true);
  return success();
}
FailureOr<Attribute> ExpandOp::inferResultLayout(LayoutInference &inference, OpResult result, Attribute hint) {
  if (hint)
    return hint;
  auto reduced = dyn_cast_or_null<ReducedLayoutAttr>(LayoutInference::layoutOf(getInput()));
  return reduced ? reduced.getParent() : inference.defaultLayout(getResult().getType());
}
Attribute ExpandOp::requiredOperandLayout(LayoutInference &inference, OpOperand &) {
  return ReducedLayoutAttr::get(getContext(), inference.resultLayoutOrDefault(*this), getDim(), getGroup());
}

// A transposed fragment holds its rows in runs (the schedule's
// transpose_rows, 4 by default), so that its transposed writes to shared
// memory are vectors; the result is written as it comes out of shared
// memory, in chunks of the access width of its own elements (16 e4m3
// values where the kernel's widest access is bf16).
LogicalResult TransposeOp::hintOperandLayouts(LayoutInference &inference) {
  inference.want(getInput(), inference.blocked(getInput().getType().getShape(), inference.vectorElements(),
                                               inference.transposeRows()));
  return success();
}
/// With an accumulator, where the shapes fit the kernel's warps, the lhs and
/// the accumulator are asked for in mma.sync's fragment layouts (the lhs's
/// wish overrides others: without it the operand is staged in shared
/// memory); the product then runs from registers (MmaLayouts.h). Where a
/// later user already wants the accumulator otherwise, the product is
/// staged, so the lhs is left to its other users.
LogicalResult DotOp::hintOperandLayouts(LayoutInference &inference) {
  if (!getAcc())
    return success();
  using compiler::elementBytes;
  FragmentType a = getLhs().getType(), b = getRhs().getType();
  std::optional<compiler::MmaRegisterLayouts> l = compiler::chooseMmaRegisterLayouts(
      a.getShape()[0], a.getShape()[1], numColumns(), inference.numWarps(), elementBytes(a.getElementType()),
      elementBytes(b.getElementType()), isBf16(), inference.vectorBytes());
  if (!l)
    return success();
  Attribute accLayout = compiler::toAttr(getContext(), l->acc);
  Attribute prior = LayoutInference::layoutOf(getAcc());
  if (!prior)
    prior = inference.hint(getAcc());
  if (prior && prior != accLayout)
    return success();
  inference.want(getLhs(), compiler::toAttr(getContext(), l->lhs), /*overrides=*/true);
  inference.want(getAcc(), accLayout);
  // One warp: its transposed rhs is loaded as the b registers themselves instead of staged in shared memory. Only
  // an rhs used by the product alone: another user's wish (an elementwise op beside a value in another layout)
  // would conflict, where staging takes the rhs in any layout.
  if (getRhsTransposed() && getRhs().hasOneUse())
    if (std::optional<compiler::BlockedLayout> rhs =
            compiler::mmaRhsRegisterLayout(l->lhs, numColumns(), inference.numWarps()))
      inference.want(getRhs(), compiler::toAttr(getContext(), *rhs));
  return success();
}
/// The accumulator's layout (the product adds into it in place); without
/// one, the operands go through shared memory whatever their layouts and the
/// result is read back in the layout its users want, else the default.
FailureOr<Attribute> DotOp::inferResultLayout(LayoutInference &inference, OpResult, Attribute hint) {
  if (Value acc = getAcc()) {
    if (Attribute layout = LayoutInference::layoutOf(acc))
      return layout;
    return emitOpError() << "needs its accumulator laid out before the product";
  }
  if (hint)
    return hint;
  return inference.defaultLayout(getResult().getType());
}
FailureOr<Attribute> TransposeOp::inferResultLayout(LayoutInference &inference, OpResult, Attribute hint) {
  if (hint)
    return hint;
  FragmentType type = getResult().getType();
  int64_t bytes = compiler::elementBytes(type.getElementType());
  return inference.blocked(type.getShape(), std::max<int64_t>(inference.vectorElements(), inference.vectorBytes() / bytes));
}
