//===- Loops.cpp - loops that carry tiles, and constant tiles -------------===//
#include "tk/dsl/KernelBuilder.h"

#include "tk/compiler/Dialect/Tile/Tile.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

#include <stdexcept>
#include <string>

namespace tk::dsl {

/// "f32 [1, 256]" for messages.
static std::string describe(const Tile &t) { return std::string(name(t.dtype())) + " " + shapeString(t.shape()); }

std::vector<Tile> KernelBuilder::loop(
    const Index &lb, const Index &ub, const std::vector<Tile> &init,
    const std::function<std::vector<Tile>(const Index &, const std::vector<Tile> &)> &body, SourceLine where) {
  AtLine at(*this, where);
  std::vector<mlir::Value> inits;
  for (const Tile &t : init)
    inits.push_back(t.value());
  mlir::Value step = mlir::arith::ConstantIndexOp::create(b_, loc_, 1);
  auto loop = mlir::scf::ForOp::create(b_, loc_, lb.value(), ub.value(), step, inits);
  {
    mlir::OpBuilder::InsertionGuard guard(b_);
    b_.setInsertionPointToStart(loop.getBody());
    std::vector<Tile> carried;
    for (mlir::Value arg : loop.getRegionIterArgs())
      carried.emplace_back(this, arg);
    std::vector<Tile> next = body(Index(this, loop.getInductionVar()), carried);
    if (next.size() != init.size())
      throw std::invalid_argument(errorPrefix() + "loop body returns " + std::to_string(next.size()) +
                                  " tiles for " + std::to_string(init.size()) + " carried");
    std::vector<mlir::Value> yielded;
    for (size_t i = 0; i < next.size(); ++i) {
      if (next[i].value().getType() != inits[i].getType())
        throw std::invalid_argument(errorPrefix() + "loop carries tile " + std::to_string(i) + " as " +
                                    describe(init[i]) + " but the body returns " + describe(next[i]));
      yielded.push_back(next[i].value());
    }
    // The body of scf.for ends in the yield its builder made (none with
    // iter_args): replace or add it.
    if (!loop.getBody()->empty() && loop.getBody()->back().hasTrait<mlir::OpTrait::IsTerminator>())
      loop.getBody()->back().erase();
    b_.setInsertionPointToEnd(loop.getBody());
    mlir::scf::YieldOp::create(b_, loc_, yielded);
  }
  std::vector<Tile> out;
  for (mlir::Value r : loop.getResults())
    out.emplace_back(this, r);
  return out;
}

Tile KernelBuilder::full(const std::vector<int64_t> &shape, double value, DType dtype) {
  if (dtype != DType::F32 && dtype != DType::I32 && dtype != DType::I64)
    throw std::invalid_argument(kernelName() + ": full() makes f32, i32 or i64 tiles, got " + name(dtype));
  if (shape.empty())
    throw std::invalid_argument(kernelName() + ": full() needs a shape");
  // Any tile of the shape to map over: iota's coordinates, which the body
  // ignores (and the lowering drops).
  return map({iota(shape, 0)}, dtype, [&](const std::vector<Scalar> &x) {
    return dtype == DType::F32 ? x[0].constantF32(value)
                               : dtype == DType::I32 ? x[0].constantI32(int64_t(value)) : x[0].constantI64(int64_t(value));
  });
}

} // namespace tk::dsl
