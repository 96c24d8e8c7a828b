//===- PipelineCopies.cpp - software pipelining of tile.pipeline loops -----===//
//
// A tile.pipeline with S stages becomes a prologue that starts the copies of
// the first S - 1 iterations and a loop whose iteration i starts the copies
// of iteration i + S - 1 before computing on iteration i's shared tiles, each
// buffer in S versions. See the pass description in Passes.td.
//===----------------------------------------------------------------------===//
#include "tk/compiler/Dialect/Tile/Tile.h"
#include "tk/compiler/Transforms/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/SetVector.h"

namespace tk::tile {
#define GEN_PASS_DEF_TILEPIPELINECOPIES
#include "tk/compiler/Transforms/Passes.h.inc"
} // namespace tk::tile

using namespace mlir;
using namespace tk::tile;

namespace {

struct PipelineRewrite {
  PipelineOp loop;
  int64_t stages;
  SmallVector<CopyOp> copies;
  /// The body ops the copies' operands are computed with (body order).
  llvm::SetVector<Operation *> producerOps;
  /// The original buffer of each copy -> its S-version buffer.
  llvm::DenseMap<Value, Value> versions;

  /// The bulk engine's mbarriers, one per buffer version (null for cp.async).
  bool bulk;
  Value barriers;

  PipelineRewrite(PipelineOp loop, int64_t maxStages, bool bulk)
      : loop(loop), stages(std::max<int64_t>(1, std::min<int64_t>(loop.getStages(), maxStages))), bulk(bulk) {}

  void collect() {
    Block &body = loop.getBody().front();
    llvm::SmallPtrSet<Operation *, 16> needed;
    std::function<void(Value)> need = [&](Value v) {
      Operation *def = v.getDefiningOp();
      if (!def || def->getBlock() != &body || !needed.insert(def).second)
        return;
      for (Value o : def->getOperands())
        need(o);
    };
    for (Operation &op : body)
      if (auto copy = dyn_cast<CopyOp>(op)) {
        copies.push_back(copy);
        for (Value v : copy->getOperands())
          if (v != copy.getDest())
            need(v);
      }
    for (Operation &op : body)
      if (needed.contains(&op))
        producerOps.insert(&op);
  }

  /// Gives every copied buffer S versions: memref<S x shape> next to the old alloc.
  void multiBuffer() {
    for (CopyOp copy : copies) {
      auto alloc = copy.getDest().getDefiningOp<AllocOp>();
      MemRefType old = alloc.getBuffer().getType();
      SmallVector<int64_t> shape{stages};
      shape.append(old.getShape().begin(), old.getShape().end());
      OpBuilder b(alloc);
      auto big = AllocOp::create(b, alloc.getLoc(),
                                 MemRefType::get(shape, old.getElementType(), MemRefLayoutAttrInterface(),
                                                 old.getMemorySpace()));
      versions[alloc.getBuffer()] = big.getBuffer();
    }
    if (bulk) {
      OpBuilder b(loop);
      auto space = gpu::AddressSpaceAttr::get(b.getContext(), gpu::AddressSpace::Workgroup);
      barriers = AllocOp::create(b, loop.getLoc(),
                                 MemRefType::get({stages}, b.getI64Type(), MemRefLayoutAttrInterface(), space))
                     .getBuffer();
      InitBarriersOp::create(b, loop.getLoc(), barriers, b.getI64IntegerAttr((int64_t)copies.size()));
    }
  }

  /// (iter - lb) mod S.
  Value slotOf(OpBuilder &b, Location loc, Value iter) {
    if (stages == 1)
      return arith::ConstantIndexOp::create(b, loc, 0);
    Value rel = arith::SubIOp::create(b, loc, iter, loop.getLowerBound());
    return arith::RemUIOp::create(b, loc, rel, arith::ConstantIndexOp::create(b, loc, stages));
  }

  /// Version `slot` of the S-version buffer of `buffer`, with `buffer`'s shape.
  Value view(OpBuilder &b, Location loc, Value buffer, Value slot) {
    auto oldType = cast<MemRefType>(buffer.getType());
    Value big = versions.lookup(buffer);
    auto bigType = cast<MemRefType>(big.getType());
    int64_t rank = bigType.getRank();
    SmallVector<OpFoldResult> offsets(rank, b.getIndexAttr(0)), sizes, strides(rank, b.getIndexAttr(1));
    offsets[0] = slot;
    sizes.push_back(b.getIndexAttr(1));
    for (int64_t d : oldType.getShape())
      sizes.push_back(b.getIndexAttr(d));
    auto type = memref::SubViewOp::inferRankReducedResultType(oldType.getShape(), bigType, offsets, sizes, strides);
    return memref::SubViewOp::create(b, loc, cast<MemRefType>(type), big, offsets, sizes, strides);
  }

  /// Starts the copies of iteration `iter` (asynchronously, into its versions).
  void issue(OpBuilder &b, Location loc, Value iter) {
    IRMapping m;
    m.map(loop.getInductionVar(), iter);
    for (Operation *op : producerOps)
      b.clone(*op, m);
    Value slot = slotOf(b, loc, iter);
    for (CopyOp copy : copies) {
      SmallVector<Value> indices;
      for (Value v : copy.getIndices())
        indices.push_back(m.lookupOrDefault(v));
      CopyOp::create(b, copy.getLoc(), m.lookupOrDefault(copy.getSource()), indices,
                     view(b, loc, copy.getDest(), slot), /*async=*/true, barriers, bulk ? slot : Value());
    }
  }

  /// issue(iter) when iter < ub, then (cp.async) one commit: an empty group past the end.
  void issueGuarded(OpBuilder &b, Location loc, Value iter) {
    Value inRange =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, iter, loop.getUpperBound());
    auto guard = scf::IfOp::create(b, loc, inRange, /*withElseRegion=*/false);
    {
      OpBuilder::InsertionGuard g(b);
      b.setInsertionPoint(guard.thenBlock()->getTerminator());
      issue(b, loc, iter);
    }
    if (!bulk)
      CommitCopiesOp::create(b, loc);
  }

  /// The scf.for the loop becomes (carrying the loop's values), with the
  /// builder at the end of its body.
  scf::ForOp createFor(OpBuilder &b, Location loc) {
    auto forOp = scf::ForOp::create(b, loc, loop.getLowerBound(), loop.getUpperBound(),
                                    arith::ConstantIndexOp::create(b, loc, 1), loop.getInits());
    if (!forOp.getBody()->empty() && forOp.getBody()->back().hasTrait<OpTrait::IsTerminator>())
      forOp.getBody()->back().erase(); // the builder's empty yield (made only without carried values)
    b.setInsertionPointToEnd(forOp.getBody());
    return forOp;
  }

  /// Clones the body's ops but the copies (`skipCopies`) and the terminator
  /// into the scf.for's body, ends it with the yield of the carried values,
  /// and hands the loop's results to the scf.for's.
  void cloneBody(OpBuilder &b, scf::ForOp forOp, IRMapping &m, bool skipCopies) {
    m.map(loop.getInductionVar(), forOp.getInductionVar());
    for (auto [arg, iterArg] : llvm::zip(loop.getRegionIterArgs(), forOp.getRegionIterArgs()))
      m.map(arg, iterArg);
    Block &body = loop.getBody().front();
    for (Operation &op : body.without_terminator())
      if (!skipCopies || !isa<CopyOp>(op))
        b.clone(op, m);
    SmallVector<Value> next;
    for (Value v : cast<YieldOp>(body.getTerminator()).getValues())
      next.push_back(m.lookupOrDefault(v));
    if (skipCopies)
      BarrierOp::create(b, loop.getLoc()); // the next iteration's copies overwrite this one's versions
    scf::YieldOp::create(b, loop.getLoc(), next);
    loop.replaceAllUsesWith(forOp.getResults());
  }

  /// A pipeline without copies is the loop it means.
  void plainLoop() {
    OpBuilder b(loop);
    IRMapping m;
    cloneBody(b, createFor(b, loop.getLoc()), m, /*skipCopies=*/false);
    loop.erase();
  }

  void rewrite() {
    collect();
    if (copies.empty())
      return plainLoop();
    multiBuffer();
    OpBuilder b(loop);
    Location loc = loop.getLoc();
    Value lb = loop.getLowerBound(), ub = loop.getUpperBound();
    for (int64_t s = 0; s + 1 < stages; ++s)
      issueGuarded(b, loc, arith::AddIOp::create(b, loc, lb, arith::ConstantIndexOp::create(b, loc, s)));
    {
      OpBuilder::InsertionGuard g(b);
      scf::ForOp forOp = createFor(b, loc);
      Value i = forOp.getInductionVar();
      issueGuarded(b, loc, arith::AddIOp::create(b, loc, i, arith::ConstantIndexOp::create(b, loc, stages - 1)));
      Value slot;
      if (bulk) {
        slot = slotOf(b, loc, i); // phase parity: how many times version `slot` has been filled before, mod 2
        Value rel = arith::SubIOp::create(b, loc, i, loop.getLowerBound());
        Value uses = arith::DivUIOp::create(b, loc, rel, arith::ConstantIndexOp::create(b, loc, stages));
        Value parity = arith::AndIOp::create(b, loc, uses, arith::ConstantIndexOp::create(b, loc, 1));
        WaitBarrierOp::create(b, loc, barriers, slot, parity);
        BarrierOp::create(b, loc);
      } else {
        WaitCopiesOp::create(b, loc, b.getI64IntegerAttr(stages - 1));
        slot = slotOf(b, loc, i);
      }
      IRMapping m;
      for (CopyOp copy : copies)
        m.map(copy.getDest(), view(b, loc, copy.getDest(), slot));
      cloneBody(b, forOp, m, /*skipCopies=*/true);
    }
    if (!bulk)
      WaitCopiesOp::create(b, loc, b.getI64IntegerAttr(0));
    SmallVector<Operation *> oldAllocs;
    for (CopyOp copy : copies)
      oldAllocs.push_back(copy.getDest().getDefiningOp());
    loop.erase();
    for (Operation *alloc : oldAllocs)
      alloc->erase();
  }
};

struct TilePipelineCopies : public tk::tile::impl::TilePipelineCopiesBase<TilePipelineCopies> {
  using Base::Base;
  void runOnOperation() override {
    SmallVector<PipelineOp> loops;
    getOperation().walk([&](PipelineOp loop) { loops.push_back(loop); });
    for (PipelineOp loop : loops)
      PipelineRewrite(loop, maxStages, bulk).rewrite();
  }
};

} // namespace
