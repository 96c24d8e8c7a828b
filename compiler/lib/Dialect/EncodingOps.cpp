//===- EncodingOps.cpp - packed number formats: verifiers and layout rules ===//
#include "tk/compiler/Dialect/Tile/Tile.h"
#include "OpHelpers.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/Builders.h"

using namespace mlir;
using namespace tk::tile;

LogicalResult PackE2M1Op::verify() {
  FragmentType in = getInput().getType(), out = getResult().getType();
  if (!in.getElementType().isF32() || !out.getElementType().isInteger(8))
    return emitOpError() << "packs f32 elements into i8 bytes, got " << in.getElementType() << " -> "
                         << out.getElementType();
  int64_t r = in.getRank();
  if (in.getShape()[r - 1] % 2)
    return emitOpError() << "needs an even last dimension, got " << in.getShape()[r - 1];
  SmallVector<int64_t> expected(in.getShape());
  expected[r - 1] /= 2;
  if (out.getShape() != ArrayRef<int64_t>(expected))
    return emitOpError() << "result must have the input's shape with half the last dimension, got " << out;
  if (auto inLayout = dyn_cast_or_null<BlockedLayoutAttr>(in.getLayout()))
    if (inLayout.getVec()[r - 1] % 2)
      return emitOpError() << "each thread must hold pairs along the last dimension; the layout " << inLayout
                           << " gives it " << inLayout.getVec()[r - 1] << " element(s) per chunk";
  return success();
}

LogicalResult UnpackE2M1Op::verify() {
  FragmentType in = getInput().getType(), out = getResult().getType();
  if (!in.getElementType().isInteger(8) || !out.getElementType().isF32())
    return emitOpError() << "unpacks i8 bytes into f32 elements, got " << in.getElementType() << " -> "
                         << out.getElementType();
  SmallVector<int64_t> expected(in.getShape());
  expected.back() *= 2;
  if (out.getShape() != ArrayRef<int64_t>(expected))
    return emitOpError() << "result must have the input's shape with twice the last dimension, got " << out;
  return success();
}

LogicalResult E2M1ToE4M3Op::verify() {
  FragmentType codes = getCodes().getType(), shift = getShift().getType(), out = getResult().getType();
  if (!codes.getElementType().isInteger(8) || !shift.getElementType().isInteger(32) ||
      !isa<Float8E4M3FNType>(out.getElementType()))
    return emitOpError() << "takes i8 codes (two per byte) and i32 shifts to f8E4M3FN, got " << codes.getElementType()
                         << ", " << shift.getElementType() << " -> " << out.getElementType();
  SmallVector<int64_t> expected(codes.getShape());
  expected.back() *= 2;
  if (out.getShape() != ArrayRef<int64_t>(expected) || shift.getShape() != out.getShape())
    return emitOpError() << "the shift and the result must have the codes' shape with twice the last dimension, got "
                         << shift << " and " << out;
  return success();
}

LogicalResult UnpackE5M6Op::verify() {
  FragmentType in = getInput().getType(), out = getResult().getType();
  if (!in.getElementType().isInteger(8) || !out.getElementType().isF32())
    return emitOpError() << "unpacks i8 bytes into f32 elements, got " << in.getElementType() << " -> "
                         << out.getElementType();
  int64_t r = in.getRank();
  if (in.getShape()[r - 1] % 12)
    return emitOpError() << "needs a last dimension that is a multiple of 12 bytes, got " << in.getShape()[r - 1];
  SmallVector<int64_t> expected(in.getShape());
  expected[r - 1] = expected[r - 1] / 3 * 2;
  if (out.getShape() != ArrayRef<int64_t>(expected))
    return emitOpError() << "result must have the input's shape with 2/3 the last dimension, got " << out;
  if (auto inLayout = dyn_cast_or_null<BlockedLayoutAttr>(in.getLayout()))
    if (inLayout.getVec()[r - 1] % 12)
      return emitOpError() << "each thread must hold runs of 12 bytes along the last dimension; the layout "
                           << inLayout << " does not";
  return success();
}

LogicalResult PackE5M6Op::verify() {
  FragmentType in = getInput().getType(), out = getResult().getType();
  if (!in.getElementType().isF32() || !out.getElementType().isInteger(8))
    return emitOpError() << "packs f32 elements into i8 bytes, got " << in.getElementType() << " -> "
                         << out.getElementType();
  int64_t r = in.getRank();
  if (in.getShape()[r - 1] % 8)
    return emitOpError() << "needs a last dimension that is a multiple of 8, got " << in.getShape()[r - 1];
  SmallVector<int64_t> expected(in.getShape());
  expected[r - 1] = expected[r - 1] / 2 * 3;
  if (out.getShape() != ArrayRef<int64_t>(expected))
    return emitOpError() << "result must have the input's shape with 3/2 the last dimension, got " << out;
  if (auto inLayout = dyn_cast_or_null<BlockedLayoutAttr>(in.getLayout()))
    if (inLayout.getVec()[r - 1] % 8)
      return emitOpError() << "each thread must hold runs of 8 along the last dimension; the layout " << inLayout
                           << " gives it " << inLayout.getVec()[r - 1] << " element(s) per chunk";
  return success();
}


//===----------------------------------------------------------------------===//
// Layout rules: a packed fragment is laid out like the values it packs, with
// the vector along the last dimension scaled by bytes per value, so that each
// thread packs and unpacks values it holds.
//===----------------------------------------------------------------------===//

/// `layout` with its vector along the last dimension times num / den (null
/// when `layout` is not blocked).
static BlockedLayoutAttr scaleLastVector(Attribute layout, int64_t num, int64_t den) {
  auto b = dyn_cast_or_null<BlockedLayoutAttr>(layout);
  if (!b)
    return {};
  SmallVector<int64_t> vec(b.getVec());
  vec.back() = vec.back() / den * num;
  return BlockedLayoutAttr::get(layout.getContext(), vec, b.getLanes(), b.getWarps());
}

/// FP4 codes two per byte, for values laid out as `layout`: half the vector
/// along the last dimension (null when that vector is odd).
static BlockedLayoutAttr halfLastVector(Attribute layout) {
  auto b = dyn_cast_or_null<BlockedLayoutAttr>(layout);
  return b && b.getVec().back() % 2 == 0 ? scaleLastVector(b, 1, 2) : BlockedLayoutAttr();
}

/// The blocked input layout of a packing op, or an error naming the op.
static FailureOr<BlockedLayoutAttr> blockedInput(Operation *op, Value input, StringRef verb) {
  auto in = dyn_cast_or_null<BlockedLayoutAttr>(LayoutInference::layoutOf(input));
  if (!in)
    return op->emitOpError() << verb << " a fragment without a blocked layout";
  return in;
}

// pack_e2m1: each thread packs the pairs it holds (the verifier rejects odd vectors).
FailureOr<Attribute> PackE2M1Op::inferResultLayout(LayoutInference &, OpResult, Attribute hint) {
  if (hint)
    return hint;
  FailureOr<BlockedLayoutAttr> in = blockedInput(*this, getInput(), "packs");
  if (failed(in))
    return failure();
  SmallVector<int64_t> vec(in->getVec());
  vec.back() = std::max<int64_t>(1, vec.back() / 2);
  return Attribute(BlockedLayoutAttr::get(getContext(), vec, in->getLanes(), in->getWarps()));
}

// unpack_e2m1: each byte unpacks into two adjacent values.
LogicalResult UnpackE2M1Op::hintOperandLayouts(LayoutInference &inference) {
  if (BlockedLayoutAttr half = halfLastVector(inference.layoutOrHintOrDefault(getResult())))
    inference.want(getInput(), half);
  return success();
}
FailureOr<Attribute> UnpackE2M1Op::inferResultLayout(LayoutInference &, OpResult, Attribute hint) {
  if (hint)
    return hint;
  FailureOr<BlockedLayoutAttr> in = blockedInput(*this, getInput(), "unpacks");
  if (failed(in))
    return failure();
  return Attribute(scaleLastVector(*in, 2, 1));
}
Attribute UnpackE2M1Op::requiredOperandLayout(LayoutInference &inference, OpOperand &) {
  return halfLastVector(inference.resultLayoutOrDefault(*this));
}

// e2m1_to_e4m3: the codes as unpack_e2m1 reads them, the shifts like the values.
LogicalResult E2M1ToE4M3Op::hintOperandLayouts(LayoutInference &inference) {
  Attribute values = inference.layoutOrHintOrDefault(getResult());
  if (BlockedLayoutAttr half = halfLastVector(values))
    inference.want(getCodes(), half);
  inference.want(getShift(), values);
  return success();
}
Attribute E2M1ToE4M3Op::requiredOperandLayout(LayoutInference &inference, OpOperand &operand) {
  Attribute values = inference.resultLayoutOrDefault(*this);
  return operand.get() == getShift() ? values : Attribute(halfLastVector(values));
}
LogicalResult E2M1ToE4M3Op::verifyOperandLayouts(LayoutInference &) {
  Attribute values = LayoutInference::layoutOf(getResult());
  BlockedLayoutAttr half = halfLastVector(values);
  for (const auto &[operand, wanted] :
       {std::pair<Value, Attribute>{getShift(), values}, std::pair<Value, Attribute>{getCodes(), half}})
    if (Attribute want = wanted; !want || LayoutInference::layoutOf(operand) != want)
      return LayoutInference::conflict(*this, operand, [&](InFlightDiagnostic &d) {
        d << " but the values' layout " << values << " needs "
          << (want ? want : Attribute(StringAttr::get(getContext(), "an even vector")));
      });
  return success();
}

// E5M6: 8 codes in 12 bytes, so runs of 8 values per thread (a multiple of 8
// along the last dimension) and 12 bytes per 8 values.
int64_t PackE5M6Op::vectorMultiple() { return 8; }
int64_t UnpackE5M6Op::vectorMultiple() { return 8; }

/// The values' layout in runs of 8: the default blocked layout of `type`
/// with at least 8 values per thread (as chosen for 16-byte targets).
static Attribute e5m6Runs(LayoutInference &inference, FragmentType type) {
  return inference.blockedExactly(type.getShape(), std::max<int64_t>(inference.vectorElements(), 8));
}

LogicalResult PackE5M6Op::hintOperandLayouts(LayoutInference &inference) {
  inference.want(getInput(), e5m6Runs(inference, getInput().getType()));
  return success();
}
FailureOr<Attribute> PackE5M6Op::inferResultLayout(LayoutInference &, OpResult, Attribute hint) {
  if (hint)
    return hint;
  FailureOr<BlockedLayoutAttr> in = blockedInput(*this, getInput(), "packs");
  if (failed(in))
    return failure();
  return Attribute(scaleLastVector(*in, 3, 2));
}
Attribute PackE5M6Op::requiredOperandLayout(LayoutInference &inference, OpOperand &operand) {
  auto b = dyn_cast_or_null<BlockedLayoutAttr>(LayoutInference::layoutOf(operand.get()));
  return b && b.getVec().back() % 8 == 0 ? Attribute() : e5m6Runs(inference, getInput().getType());
}

LogicalResult UnpackE5M6Op::hintOperandLayouts(LayoutInference &inference) {
  // The packed bytes: the values' layout (runs of 8 per thread) with the
  // vector along the last dimension times 3/2.
  auto b = dyn_cast_or_null<BlockedLayoutAttr>(inference.layoutOrHint(getResult()));
  if (!b || b.getVec().back() % 8)
    b = cast<BlockedLayoutAttr>(inference.defaultLayout(getResult().getType()));
  inference.want(getInput(), scaleLastVector(b, 3, 2));
  return success();
}
FailureOr<Attribute> UnpackE5M6Op::inferResultLayout(LayoutInference &, OpResult, Attribute hint) {
  if (hint)
    return hint;
  FailureOr<BlockedLayoutAttr> in = blockedInput(*this, getInput(), "unpacks");
  if (failed(in))
    return failure();
  if (in->getVec().back() % 12)
    return emitOpError() << "needs runs of 12 bytes per thread along the last dimension; the input's layout " << *in
                         << " has " << in->getVec().back();
  return Attribute(scaleLastVector(*in, 2, 3));
}
Attribute UnpackE5M6Op::requiredOperandLayout(LayoutInference &inference, OpOperand &) {
  auto b = dyn_cast<BlockedLayoutAttr>(inference.resultLayoutOrDefault(*this));
  return b && b.getVec().back() % 8 == 0 ? Attribute(scaleLastVector(b, 3, 2)) : Attribute();
}
