//===- IndexArithmetic.cpp - block-uniform index expressions --------------===//
//
// Index values are block-uniform and unsigned (block coordinates, offsets,
// sizes): products, sums, differences, quotients and remainders as arith
// ops on `index`, folded by the canonicalizer where constant.
//===----------------------------------------------------------------------===//
#include "tk/dsl/KernelBuilder.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

namespace tk::dsl {

using namespace mlir;

Index operator*(const Index &a, int64_t c) { return a * a.builder()->index(c); }
Index operator+(const Index &a, int64_t c) { return a + a.builder()->index(c); }
Index operator-(const Index &a, int64_t c) { return a - a.builder()->index(c); }
Index operator*(const Index &a, const Index &b) {
  KernelBuilder *k = a.builder();
  return Index(k, arith::MulIOp::create(k->opBuilder(), k->loc(), a.value(), b.value()));
}
Index operator/(const Index &a, int64_t c) {
  KernelBuilder *k = a.builder();
  return Index(k, arith::DivUIOp::create(k->opBuilder(), k->loc(), a.value(), k->index(c).value()));
}
Index operator%(const Index &a, int64_t c) {
  KernelBuilder *k = a.builder();
  return Index(k, arith::RemUIOp::create(k->opBuilder(), k->loc(), a.value(), k->index(c).value()));
}
Index operator+(const Index &a, const Index &b) {
  KernelBuilder *k = a.builder();
  return Index(k, arith::AddIOp::create(k->opBuilder(), k->loc(), a.value(), b.value()));
}
Index operator-(const Index &a, const Index &b) {
  KernelBuilder *k = a.builder();
  return Index(k, arith::SubIOp::create(k->opBuilder(), k->loc(), a.value(), b.value()));
}

} // namespace tk::dsl
