//===- LowerTileToCPU.cpp - tile kernels to sequential loops --------------===//
//
// The CPU semantics of every tile op (see the pass description): the same
// tile IR the GPU path compiles, run block by block on one thread. A kernel
// becomes a func.func whose grid is a loop nest over the blocks (block
// totals carried by it), then every tile op is converted by its pattern
// (CpuPatterns.h) with MLIR's dialect conversion driver.
//===----------------------------------------------------------------------===//
#include "CpuPatterns.h"
#include "tk/compiler/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/Transforms/Patterns.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

namespace tk::tile {
#define GEN_PASS_DEF_TILELOWERTOCPU
#include "tk/compiler/Transforms/Passes.h.inc"
} // namespace tk::tile

using namespace mlir;
using namespace tk;
using namespace tk::tile;

namespace tk::compiler {

CpuKernelState &CpuKernelStates::add(func::FuncOp func, Location loc) {
  auto &slot = states_[func];
  slot = std::make_unique<CpuKernelState>(CpuKernelState{func, loc, {}, false});
  return *slot;
}

CpuKernelState &CpuKernelStates::of(Operation *op) const {
  return *states_.find(op->getParentOfType<func::FuncOp>())->second;
}

bool CpuKernelStates::anyFailed() const {
  return llvm::any_of(states_, [](auto &entry) { return entry.second->failed; });
}

SmallVector<CpuKernelState *> CpuKernelStates::all() const {
  SmallVector<CpuKernelState *> out;
  for (auto &entry : states_)
    out.push_back(entry.second.get());
  return out;
}

Type cpuMemRefType(Type t) {
  auto mem = dyn_cast<MemRefType>(t);
  if (!mem)
    return t;
  // Shared buffers lose their GPU address space; float8 is stored as i8.
  Attribute space = isa_and_nonnull<gpu::AddressSpaceAttr>(mem.getMemorySpace()) ? Attribute() : mem.getMemorySpace();
  return MemRefType::get(mem.getShape(), storageType(mem.getElementType()), mem.getLayout(), space);
}

CpuTypeConverter::CpuTypeConverter() {
  addConversion([](Type t) { return t; });
  addConversion([](MemRefType t) { return cpuMemRefType(t); });
  addConversion([](FragmentType t) -> Type {
    return MemRefType::get(t.getShape(), storageType(t.getElementType()));
  });
}

} // namespace tk::compiler

namespace {

/// Every tile in order; one "block", so the totals are grid-wide: each
/// yielded fragment's sum (tile.thread_total) is added to a partial the
/// loop nest carries.
void lowerGrid(GridOp grid, Location loc) {
  OpBuilder b(grid);
  SmallVector<Value> lbs, steps, zeros;
  for (size_t i = 0; i < grid.getSizes().size(); ++i) {
    lbs.push_back(arith::ConstantIndexOp::create(b, loc, 0));
    steps.push_back(arith::ConstantIndexOp::create(b, loc, 1));
  }
  for (Type t : grid.getTotals().getTypes())
    zeros.push_back(arith::ConstantOp::create(b, loc, t, b.getZeroAttr(t)));
  Block &body = grid.getBody().front();
  auto yield = cast<YieldOp>(body.getTerminator());
  scf::LoopNest nest = scf::buildLoopNest(
      b, loc, lbs, grid.getSizes(), steps, zeros,
      [&](OpBuilder &ib, Location, ValueRange ivs, ValueRange partials) -> scf::ValueVector {
        for (auto [arg, iv] : llvm::zip(body.getArguments(), ivs))
          arg.replaceAllUsesWith(iv);
        Block *into = ib.getInsertionBlock();
        into->getOperations().splice(ib.getInsertionPoint(), body.getOperations(), body.begin(),
                                     yield->getIterator());
        scf::ValueVector out;
        for (auto [value, partial] : llvm::zip(yield.getValues(), partials)) {
          Value sum = ThreadTotalOp::create(ib, loc, partial.getType(), value);
          out.push_back(compiler::reduceCombine(ib, loc, ReduceKind::sum, partial, sum));
        }
        return out;
      });
  for (auto [total, value] : llvm::zip(grid.getTotals(), nest.results))
    total.replaceAllUsesWith(value);
  grid.erase();
}

/// `kernel` as a func.func of the same name and arguments (float8 tensors
/// as i8), its grid as a loop nest.
func::FuncOp outline(KernelOp kernel) {
  OpBuilder b(kernel);
  Location loc = kernel.getLoc();
  SmallVector<Type> argTypes;
  for (Type t : kernel.getArgumentTypes())
    argTypes.push_back(compiler::cpuMemRefType(t));
  auto func = func::FuncOp::create(b, loc, kernel.getSymName(), b.getFunctionType(argTypes, {}));
  Block *entry = func.addEntryBlock();
  Block &body = kernel.getBody().front();
  for (auto [arg, cpuArg] : llvm::zip(body.getArguments(), entry->getArguments()))
    arg.replaceAllUsesWith(cpuArg);
  body.getTerminator()->erase();
  entry->getOperations().splice(entry->end(), body.getOperations());
  b.setInsertionPointToEnd(entry);
  func::ReturnOp::create(b, loc);
  kernel.erase();
  func.walk([&](GridOp grid) { lowerGrid(grid, loc); });
  return func;
}

struct TileLowerToCPU : public tk::tile::impl::TileLowerToCPUBase<TileLowerToCPU> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    compiler::CpuKernelStates states;
    for (KernelOp kernel : llvm::make_early_inc_range(module.getOps<KernelOp>())) {
      Location loc = kernel.getLoc(); // outline() erases the kernel
      states.add(outline(kernel), loc);
    }
    MLIRContext *ctx = &getContext();
    compiler::CpuTypeConverter converter;
    ConversionTarget target(*ctx);
    target.addIllegalDialect<TileDialect>();
    // Scalar math the loops keep for the passes after (tile-logistic-quotients).
    target.addLegalOp<SiluOp, SigmoidOp>();
    target.markUnknownOpDynamicallyLegal([&](Operation *op) { return converter.isLegal(op); });
    RewritePatternSet patterns(ctx);
    compiler::populateCpuMemoryPatterns(patterns, converter, states);
    compiler::populateCpuComputePatterns(patterns, converter, states);
    compiler::populateCpuEncodingPatterns(patterns, converter, states);
    compiler::populateCpuCoordinatePatterns(patterns, converter, states);
    // Loops that carry fragments carry their buffers (upstream's structural
    // conversion), each yielded value copied into a buffer of its own.
    scf::populateSCFStructuralTypeConversionsAndLegality(converter, patterns, target);
    compiler::populateCpuCarriedPatterns(patterns, converter, states);
    ConversionConfig config;
    config.foldingMode = DialectConversionFoldingMode::Never;
    ScopedDiagnosticHandler quiet(ctx, [&](Diagnostic &diag) {
      return success(states.anyFailed() && StringRef(diag.str()).starts_with("failed to legalize"));
    });
    if (failed(applyPartialConversion(module, target, std::move(patterns), config)))
      return signalPassFailure();
    for (compiler::CpuKernelState *state : states.all()) {
      OpBuilder b(state->func.getBody().back().getTerminator());
      for (Value buf : state->buffers)
        memref::DeallocOp::create(b, state->loc, buf);
    }
    compiler::carryBf16AsBits(module);
  }
};

} // namespace
