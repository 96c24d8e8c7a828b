//===- ScalarIntegers.cpp - the integer and comparison half of Scalar ------===//
//
// Plain arith ops inside a map region: both backends lower them with
// upstream's arith-to-llvm, so they need no pattern of tk's own.
//===----------------------------------------------------------------------===//
#include "tk/dsl/Values.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"

#include <stdexcept>

using namespace mlir;

namespace tk::dsl {

static void requireInteger(const Scalar &a, const char *what) {
  if (a.isFloat())
    throw std::invalid_argument(std::string(what) + " of a float scalar");
}

static void requireSameType(const Scalar &a, const Scalar &b, const char *what) {
  if (a.value().getType() != b.value().getType())
    throw std::invalid_argument(std::string(what) + " of differently typed scalars");
}

Scalar Scalar::constantI64(int64_t c) const {
  return Scalar(b_, arith::ConstantOp::create(*b_, v_.getLoc(), b_->getI64IntegerAttr(c)));
}

Scalar Scalar::truncToI32() const {
  if (!v_.getType().isInteger(64))
    throw std::invalid_argument("truncToI32 of a non-i64 scalar");
  return Scalar(b_, arith::TruncIOp::create(*b_, v_.getLoc(), b_->getI32Type(), v_));
}

Scalar Scalar::signedToF32() const {
  requireInteger(*this, "signedToF32");
  return Scalar(b_, arith::SIToFPOp::create(*b_, v_.getLoc(), b_->getF32Type(), v_));
}

Scalar Scalar::f32ToI32() const {
  if (!v_.getType().isF32())
    throw std::invalid_argument("f32ToI32 of a non-f32 scalar");
  return Scalar(b_, arith::FPToSIOp::create(*b_, v_.getLoc(), b_->getI32Type(), v_));
}

static Scalar compare(arith::CmpFPredicate fpred, arith::CmpIPredicate ipred, const Scalar &a, const Scalar &b) {
  requireSameType(a, b, "comparison");
  OpBuilder &ob = a.builder();
  if (a.isFloat())
    return Scalar(&ob, arith::CmpFOp::create(ob, a.value().getLoc(), fpred, a.value(), b.value()));
  return Scalar(&ob, arith::CmpIOp::create(ob, a.value().getLoc(), ipred, a.value(), b.value()));
}

Scalar operator<=(const Scalar &a, const Scalar &b) {
  return compare(arith::CmpFPredicate::OLE, arith::CmpIPredicate::sle, a, b);
}
Scalar operator==(const Scalar &a, const Scalar &b) {
  return compare(arith::CmpFPredicate::OEQ, arith::CmpIPredicate::eq, a, b);
}
Scalar operator!=(const Scalar &a, const Scalar &b) {
  return compare(arith::CmpFPredicate::UNE, arith::CmpIPredicate::ne, a, b);
}

Scalar operator^(const Scalar &a, const Scalar &b) {
  requireInteger(a, "xor");
  requireSameType(a, b, "xor");
  return Scalar(&a.builder(), arith::XOrIOp::create(a.builder(), a.value().getLoc(), a.value(), b.value()));
}

Scalar operator!(const Scalar &a) {
  if (!a.value().getType().isInteger(1))
    throw std::invalid_argument("logical not of a non-i1 scalar");
  OpBuilder &ob = a.builder();
  Value one = arith::ConstantOp::create(ob, a.value().getLoc(), ob.getBoolAttr(true));
  return Scalar(&ob, arith::XOrIOp::create(ob, a.value().getLoc(), a.value(), one));
}

Scalar divs(const Scalar &a, const Scalar &b) {
  requireInteger(a, "divs");
  requireSameType(a, b, "divs");
  return Scalar(&a.builder(), arith::DivSIOp::create(a.builder(), a.value().getLoc(), a.value(), b.value()));
}

Scalar mulhiu(const Scalar &a, const Scalar &b) {
  requireInteger(a, "mulhiu");
  requireSameType(a, b, "mulhiu");
  return Scalar(&a.builder(),
                arith::MulUIExtendedOp::create(a.builder(), a.value().getLoc(), a.value(), b.value()).getHigh());
}

Scalar shru(const Scalar &a, const Scalar &bits) {
  requireInteger(a, "shru");
  requireSameType(a, bits, "shru");
  return Scalar(&a.builder(), arith::ShRUIOp::create(a.builder(), a.value().getLoc(), a.value(), bits.value()));
}

Scalar rems(const Scalar &a, const Scalar &b) {
  requireInteger(a, "rems");
  requireSameType(a, b, "rems");
  return Scalar(&a.builder(), arith::RemSIOp::create(a.builder(), a.value().getLoc(), a.value(), b.value()));
}

// r = a rem b takes a's sign; a nonzero r whose sign differs from b's moves by b.
Scalar floormod(const Scalar &a, const Scalar &b) {
  Scalar r = rems(a, b);
  Scalar zero = a.value().getType().isInteger(64) ? a.constantI64(0) : a.constantI32(0);
  Scalar signsDiffer = (r < zero) ^ (b < zero);
  return select((r != zero) & signsDiffer, r + b, r);
}

Scalar popcount(const Scalar &a) {
  requireInteger(a, "popcount");
  return Scalar(&a.builder(), math::CtPopOp::create(a.builder(), a.value().getLoc(), a.value()));
}

} // namespace tk::dsl
