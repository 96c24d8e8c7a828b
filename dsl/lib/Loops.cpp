//===- Loops.cpp - loops and pipelines that carry tiles, uniform branches, constant tiles ===//
#include "tk/dsl/KernelBuilder.h"

#include "tk/compiler/Dialect/Tile/Tile.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

#include <stdexcept>
#include <string>

namespace tk::dsl {

/// "f32 [1, 256]" for messages.
static std::string describe(const Tile &t) { return std::string(name(t.dtype())) + " " + shapeString(t.shape()); }

/// The values a loop body returned for its carried tiles, checked against
/// their initial values.
static std::vector<mlir::Value> nextValues(const std::string &prefix, const char *what, const std::vector<Tile> &init,
                                           const std::vector<Tile> &next) {
  if (next.size() != init.size())
    throw std::invalid_argument(prefix + what + " body returns " + std::to_string(next.size()) + " tiles for " +
                                std::to_string(init.size()) + " carried");
  std::vector<mlir::Value> yielded;
  for (size_t i = 0; i < next.size(); ++i) {
    if (next[i].value().getType() != init[i].value().getType())
      throw std::invalid_argument(prefix + what + " carries tile " + std::to_string(i) + " as " + describe(init[i]) +
                                  " but the body returns " + describe(next[i]));
    yielded.push_back(next[i].value());
  }
  return yielded;
}

static std::vector<mlir::Value> values(const std::vector<Tile> &tiles) {
  std::vector<mlir::Value> out;
  for (const Tile &t : tiles)
    out.push_back(t.value());
  return out;
}

/// The results of a loop or branch, as tiles.
static std::vector<Tile> tiles(KernelBuilder *k, mlir::ValueRange results) {
  std::vector<Tile> out;
  for (mlir::Value r : results)
    out.emplace_back(k, r);
  return out;
}

std::vector<Tile> KernelBuilder::loop(
    const Index &lb, const Index &ub, const std::vector<Tile> &init,
    const std::function<std::vector<Tile>(const Index &, const std::vector<Tile> &)> &body, SourceLine where) {
  AtLine at(*this, where);
  mlir::Value step = mlir::arith::ConstantIndexOp::create(b_, loc_, 1);
  auto loop = mlir::scf::ForOp::create(b_, loc_, lb.value(), ub.value(), step, values(init));
  {
    mlir::OpBuilder::InsertionGuard guard(b_);
    b_.setInsertionPointToStart(loop.getBody());
    std::vector<Tile> carried = tiles(this, loop.getRegionIterArgs());
    std::vector<mlir::Value> yielded =
        nextValues(errorPrefix(), "loop", init, body(Index(this, loop.getInductionVar()), carried));
    // The body of scf.for ends in the yield its builder made (none with
    // iter_args): replace or add it.
    if (!loop.getBody()->empty() && loop.getBody()->back().hasTrait<mlir::OpTrait::IsTerminator>())
      loop.getBody()->back().erase();
    b_.setInsertionPointToEnd(loop.getBody());
    mlir::scf::YieldOp::create(b_, loc_, yielded);
  }
  return tiles(this, loop.getResults());
}

std::vector<Tile> KernelBuilder::when(const Tile &cond, const std::vector<Tile> &carried,
                                      const std::function<std::vector<Tile>(const std::vector<Tile> &)> &body,
                                      SourceLine where) {
  AtLine at(*this, where);
  int64_t elements = 1;
  for (int64_t d : cond.shape())
    elements *= d;
  if (elements != 1 || cond.dtype() != DType::I32)
    throw std::invalid_argument(errorPrefix() + "when: the condition must be a one-element i32 tile, got " +
                                describe(cond));
  mlir::Value flag = tile::ToScalarOp::create(b_, loc_, b_.getI32Type(), cond.value());
  mlir::Value zero = mlir::arith::ConstantIntOp::create(b_, loc_, b_.getI32Type(), 0);
  mlir::Value taken = mlir::arith::CmpIOp::create(b_, loc_, mlir::arith::CmpIPredicate::ne, flag, zero);
  std::vector<mlir::Value> kept = values(carried);
  mlir::TypeRange types(kept);
  // Both blocks made empty (the other builders end them with an empty scf.yield when there are no results): the
  // yields below end them.
  auto branch = mlir::scf::IfOp::create(b_, loc_, types, taken, /*addThenBlock=*/true, /*addElseBlock=*/true);
  {
    mlir::OpBuilder::InsertionGuard guard(b_);
    b_.setInsertionPointToStart(branch.thenBlock());
    std::vector<mlir::Value> next = nextValues(errorPrefix(), "when", carried, body(carried));
    mlir::scf::YieldOp::create(b_, loc_, next);
    b_.setInsertionPointToStart(branch.elseBlock());
    mlir::scf::YieldOp::create(b_, loc_, kept);
  }
  return tiles(this, branch.getResults());
}

std::vector<Tile>
KernelBuilder::pipeline(const Index &lb, const Index &ub, int64_t stages, const std::vector<Tile> &init,
                        const std::function<std::vector<Tile>(const Index &, const std::vector<Tile> &)> &body,
                        SourceLine where) {
  AtLine at(*this, where);
  if (stages < 1 || stages > 8)
    throw std::invalid_argument(errorPrefix() + "pipeline: 1 to 8 stages, got " + std::to_string(stages));
  std::vector<mlir::Value> inits = values(init);
  mlir::TypeRange types(inits);
  auto loop = tile::PipelineOp::create(b_, loc_, types, lb.value(), ub.value(), inits, b_.getI64IntegerAttr(stages));
  {
    mlir::OpBuilder::InsertionGuard guard(b_);
    mlir::Block *block = b_.createBlock(&loop.getBody());
    Index i(this, block->addArgument(b_.getIndexType(), loc_));
    std::vector<Tile> carried;
    for (mlir::Value v : inits)
      carried.emplace_back(this, block->addArgument(v.getType(), loc_));
    b_.setInsertionPointToStart(block);
    tile::YieldOp::create(b_, loc_, nextValues(errorPrefix(), "pipeline", init, body(i, carried)));
  }
  return tiles(this, loop.getResults());
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
