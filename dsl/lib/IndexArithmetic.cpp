//===- IndexArithmetic.cpp - block-uniform index expressions --------------===//
//
// Index values are block-uniform and unsigned (block coordinates, offsets,
// sizes): products, sums, differences, quotients and remainders as arith
// ops on `index`, folded by the canonicalizer where constant.
//===----------------------------------------------------------------------===//
#include "tk/dsl/KernelBuilder.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

#include <stdexcept>
#include <string>

namespace tk::dsl {

using namespace mlir;

Index operator*(const Index &a, int64_t c) { return a * a.builder()->index(c); }
Index operator+(const Index &a, int64_t c) { return a + a.builder()->index(c); }
Index operator-(const Index &a, int64_t c) { return a - a.builder()->index(c); }
Index operator*(const Index &a, const Index &b) {
  KernelBuilder *k = a.builder();
  return Index(k, arith::MulIOp::create(k->opBuilder(), k->loc(), a.value(), b.value()));
}
/// A divisor of an unsigned index: positive (zero would be undefined, a negative one a huge unsigned value).
static Value divisor(KernelBuilder *k, int64_t c, const char *op) {
  if (c < 1)
    throw std::invalid_argument(k->errorPrefix() + "index " + op + " " + std::to_string(c) +
                                ": the divisor must be positive");
  return k->index(c).value();
}
Index operator/(const Index &a, int64_t c) {
  KernelBuilder *k = a.builder();
  return Index(k, arith::DivUIOp::create(k->opBuilder(), k->loc(), a.value(), divisor(k, c, "/")));
}
Index operator%(const Index &a, int64_t c) {
  KernelBuilder *k = a.builder();
  return Index(k, arith::RemUIOp::create(k->opBuilder(), k->loc(), a.value(), divisor(k, c, "%")));
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
