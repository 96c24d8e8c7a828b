//===- ComputePatterns.cpp - elementwise regions, conversions, reductions -===//
#include "Patterns.h"

using namespace mlir;
using namespace tk::tile;

namespace tk::compiler {
namespace {

/// The body on the thread's slots: on whole vectors where every op allows,
/// else once per slot; on a reduced fragment the lanes of a group may split
/// the slots (SplitReplicatedWork.cpp).
struct ParallelPattern : TileToGpuPattern<ParallelOp> {
  using TileToGpuPattern::TileToGpuPattern;
  LogicalResult lower(ParallelOp op, Adaptor a, ThreadEmitter &emit, ConversionPatternRewriter &rw) const override {
    FragmentType type = op.getResult().getType();
    SmallVector<Value> inputs(a.getInputs());
    int64_t slots;
    if (isa_and_nonnull<ReducedLayoutAttr>(type.getLayout())) {
      FailureOr<Grouping> g = groupingOf(op, type);
      if (failed(g))
        return failure();
      if (!g->inner) { // the lanes of each group may split the work
        FailureOr<Value> split = emit.parallelSplitOverGroup(op, inputs, g->g);
        if (failed(split))
          return failure();
        if (*split) {
          rw.replaceOp(op, *split);
          return success();
        }
      }
      slots = g->g.reducedSlots();
    } else {
      FailureOr<BlockedLayout> l = blockedOf(op, type);
      if (failed(l))
        return failure();
      slots = l->slotsPerThread();
    }
    FailureOr<Value> v = emit.parallel(op, inputs, slots);
    if (failed(v))
      return failure();
    rw.replaceOp(op, *v);
    return success();
  }
};

struct ConvertPattern : TileToGpuPattern<ConvertOp> {
  using TileToGpuPattern::TileToGpuPattern;
  LogicalResult lower(ConvertOp op, Adaptor a, ThreadEmitter &emit, ConversionPatternRewriter &rw) const override {
    FailureOr<Value> v = emit.convert(op, a.getInput());
    if (failed(v))
      return failure();
    rw.replaceOp(op, *v);
    return success();
  }
};

/// In-thread combines, xor shuffles, and a shared-memory exchange across
/// warps (LowerReduce.cpp).
struct ReducePattern : TileToGpuPattern<ReduceOp> {
  using TileToGpuPattern::TileToGpuPattern;
  LogicalResult lower(ReduceOp op, Adaptor a, ThreadEmitter &emit, ConversionPatternRewriter &rw) const override {
    FailureOr<Grouping> g = groupingOf(op, op.getResult().getType());
    if (failed(g))
      return failure();
    Value input = a.getInput();
    // A reduction of a reduction: back to the root layout (its values
    // replicated over the first reduction's groups), then reduce that.
    if (g->inner)
      input = emit.expand(input, *g->inner);
    rw.replaceOp(op, emit.reduce(op.getKind(), input, g->g, innerOf(*g)));
    return success();
  }
};

/// A shuffle of the thread's reduced slots: each group's value to its slots.
struct ExpandPattern : TileToGpuPattern<ExpandOp> {
  using TileToGpuPattern::TileToGpuPattern;
  LogicalResult lower(ExpandOp op, Adaptor a, ThreadEmitter &emit, ConversionPatternRewriter &rw) const override {
    FailureOr<Grouping> g = groupingOf(op, op.getInput().getType());
    if (failed(g))
      return failure();
    rw.replaceOp(op, g->inner ? emit.regroup(a.getInput(), g->g, *g->inner) : emit.expand(a.getInput(), g->g));
    return success();
  }
};

/// mma.sync on 16 x 8 tiles of the result, the operands through shared memory or registers (MmaDot.cpp).
struct DotPattern : TileToGpuPattern<DotOp> {
  using TileToGpuPattern::TileToGpuPattern;
  LogicalResult lower(DotOp op, Adaptor a, ThreadEmitter &emit, ConversionPatternRewriter &rw) const override {
    FailureOr<BlockedLayout> la = blockedOf(op, op.getLhs().getType()), lb = blockedOf(op, op.getRhs().getType()),
                             lc = blockedOf(op, op.getResult().getType());
    if (failed(la) || failed(lb) || failed(lc))
      return failure();
    rw.replaceOp(op, emit.dot(op, a.getLhs(), a.getRhs(), a.getAcc(), *la, *lb, *lc));
    return success();
  }
};

} // namespace

void populateComputePatterns(RewritePatternSet &set, const TypeConverter &converter, KernelStates &states) {
  addTileToGpuPatterns<ParallelPattern, ConvertPattern, ReducePattern, ExpandPattern, DotPattern>(set, converter,
                                                                                                  states);
}

} // namespace tk::compiler
