//===- AssignLayouts.cpp - give every fragment a layout -------------------===//
#include "tk/compiler/Dialect/Tile/Tile.h"
#include "tk/compiler/Layout/LayoutAttrs.h"
#include "tk/compiler/Transforms/Passes.h"

namespace tk::tile {
#define GEN_PASS_DEF_TILEASSIGNLAYOUTS
#include "tk/compiler/Transforms/Passes.h.inc"
} // namespace tk::tile

using namespace mlir;
using namespace tk;
using namespace tk::tile;

namespace {

/// Element bytes of the kernel's main data: the largest fragment it loads or
/// stores (by elements; the widest element among equally large ones). Each
/// thread owns `vectorBytes` of that element type per chunk, so every
/// warp-wide access of the main data is one contiguous, fully used span:
/// an e4m3 -> f32 kernel sizes chunks by the f32 stores (a chunk of 16 e4m3
/// codes would make each thread store 64 bytes in pieces that leave half-written
/// sectors behind every warp-wide store). Small side tensors (scale factors)
/// do not count, and narrower accesses of the main data stay contiguous across
/// the warp, only shorter per thread.
int64_t accessElementBytes(KernelOp kernel) {
  int64_t mainElems = 0, mainBytes = 0;
  auto consider = [&](FragmentType t) {
    int64_t elems = t.getNumElements(), bytes = std::max<int64_t>(1, t.getElementType().getIntOrFloatBitWidth() / 8);
    if (elems > mainElems || (elems == mainElems && bytes > mainBytes))
      mainElems = elems, mainBytes = bytes;
  };
  kernel.walk([&](Operation *op) {
    if (auto load = dyn_cast<LoadOp>(op))
      consider(load.getResult().getType());
    if (auto store = dyn_cast<StoreOp>(op))
      consider(store.getValue().getType());
  });
  return mainBytes ? mainBytes : 4;
}

/// `layout` with half the vector along the last dimension (the layout of
/// FP4 codes packed two per byte, for values laid out as `layout`); null
/// when that vector is odd or the layout is not blocked.
BlockedLayoutAttr halfLastVector(Attribute layout) {
  auto b = dyn_cast_or_null<BlockedLayoutAttr>(layout);
  if (!b || b.getVec().back() % 2)
    return {};
  SmallVector<int64_t> vec(b.getVec());
  vec.back() /= 2;
  return BlockedLayoutAttr::get(layout.getContext(), vec, b.getLanes(), b.getWarps());
}

/// E5M6 bytes for values laid out as `values` (runs of 8 per thread): the
/// vector along the last dimension times 3/2 (8 codes in 12 bytes).
BlockedLayoutAttr e5m6BytesLayout(BlockedLayoutAttr values) {
  SmallVector<int64_t> vec(values.getVec());
  vec.back() = vec.back() / 2 * 3;
  return BlockedLayoutAttr::get(values.getContext(), vec, values.getLanes(), values.getWarps());
}

/// "layout conflict: operand has layout A but ...", the rest from `rest`,
/// with a note where the operand is defined.
WalkResult layoutConflict(Operation *op, Value operand, llvm::function_ref<void(InFlightDiagnostic &)> rest) {
  InFlightDiagnostic diag = op->emitOpError()
                            << "layout conflict: operand has layout " << cast<FragmentType>(operand.getType()).getLayout();
  rest(diag);
  if (Operation *def = operand.getDefiningOp())
    diag.attachNote(def->getLoc()) << "operand defined here by " << def->getName();
  return WalkResult::interrupt();
}

struct TileAssignLayouts : public tk::tile::impl::TileAssignLayoutsBase<TileAssignLayouts> {
  using Base::Base;

  void runOnOperation() override {
    getOperation().walk([&](KernelOp kernel) {
      if (failed(assign(kernel)))
        signalPassFailure();
    });
  }

  LogicalResult assign(KernelOp kernel) {
    MLIRContext *ctx = kernel.getContext();
    ScheduleAttr schedule = kernel.getScheduleOrDefault();
    // The author's cap on access width (KernelBuilder::maxAccessBytes).
    int64_t vectorBytes = this->vectorBytes;
    if (schedule.getMaxAccessBytes())
      vectorBytes = std::min<int64_t>(vectorBytes, schedule.getMaxAccessBytes());
    int64_t vecElems = std::max<int64_t>(1, vectorBytes / accessElementBytes(kernel));
    // Rows per thread of a fragment that is transposed
    // (KernelBuilder::transposeRowsPerThread).
    int64_t transposeRows = schedule.getTransposeRows() ? schedule.getTransposeRows() : 4;
    // E5M6 packs 8 values into 12 bytes: runs of 8 values per 16 vector bytes
    // (16-byte bf16 and 12-byte packed accesses), whichever side is larger.
    // A kernel that writes E5M6 takes runs of at least 16 values, 24 bytes:
    // three 8-byte stores per thread where 8 values took three 4-byte ones,
    // each warp-wide store touching a third of each sector it writes (S16
    // run 4, the bf16 e5m6 cast 240.8 -> 212.5 µs, 79.9% -> 90.6% of the
    // copy ceiling, L2-bound before; 32 values: 323.5). The reading side
    // (cast_back) keeps 8: 203.0 -> 230.4 µs with 16.
    bool packs = false, unpacks = false;
    kernel.walk([&](Operation *op) {
      packs |= isa<PackE5M6Op>(op);
      unpacks |= isa<UnpackE5M6Op>(op);
    });
    if (packs || unpacks) {
      const int64_t perVector = 8 * std::max<int64_t>(1, vectorBytes / 16);
      vecElems = e5m6Run > 0 ? e5m6Run : packs ? std::max<int64_t>(16, perVector) : perVector;
    }
    int64_t warps = kernel.getNumWarps();
    // Wider than 16-byte vectors (sm_100a) halve where they would leave
    // threads idle and the half tiles the shape exactly (the kernels' tiles
    // are sized for 16 bytes: S19 found 5 of 48 kernels with half their
    // threads idle on sm_100a). 16-byte targets keep their layouts: their
    // padded ones (the 576-channel rows) have no exact halving.
    auto blocked = [&](const std::vector<int64_t> &shape, int64_t vec, int64_t rowVec = 1) {
      return compiler::toAttr(ctx, vectorBytes > 16 ? compiler::chooseUnpaddedBlockedLayout(shape, warps, vec, rowVec)
                                                    : compiler::chooseBlockedLayout(shape, warps, vec, rowVec));
    };
    auto defaultLayout = [&](FragmentType type) -> Attribute {
      std::vector<int64_t> shape(type.getShape().begin(), type.getShape().end());
      return blocked(shape, vecElems);
    };
    // Runs of 8 elements per thread: 8 E5M6 codes pack into 3 words.
    auto e5m6Runs = [&](FragmentType type) -> Attribute {
      std::vector<int64_t> shape(type.getShape().begin(), type.getShape().end());
      return compiler::toAttr(ctx, compiler::chooseBlockedLayout(shape, warps, std::max<int64_t>(vecElems, 8)));
    };
    auto layoutOf = [](Value v) { return cast<FragmentType>(v.getType()).getLayout(); };
    auto setLayout = [](Value v, Attribute layout) {
      v.setType(cast<FragmentType>(v.getType()).withLayout(layout));
    };

    // Backward hints: a fragment that is expanded (directly or through
    // elementwise ops, e.g. scale factors loaded from memory) must be laid out
    // as the reduced form of the expansion's layout.
    llvm::DenseMap<Value, Attribute> wanted;
    SmallVector<Operation *> ops;
    if (infer)
      kernel.walk([&](Operation *op) { ops.push_back(op); });
    for (Operation *op : llvm::reverse(ops)) {
      if (auto expand = dyn_cast<ExpandOp>(op)) {
        FragmentType wide = expand.getResult().getType();
        // The expansion's own layout: annotated, wanted by its user (an
        // expansion of an expansion), or the default.
        Attribute parent = wide.getLayout();
        if (!parent)
          if (auto it = wanted.find(expand.getResult()); it != wanted.end())
            parent = it->second;
        if (!parent)
          parent = defaultLayout(wide);
        if (auto r = dyn_cast<ReducedLayoutAttr>(parent); r && r.getDim() == (int64_t)expand.getDim())
          return expand->emitOpError() << "expands dimension " << expand.getDim()
                                       << " of a fragment that is itself expanded along it (group " << r.getGroup()
                                       << "): expand once with group " << r.getGroup() * expand.getGroup()
                                       << " instead";
        wanted[expand.getInput()] = ReducedLayoutAttr::get(ctx, parent, expand.getDim(), expand.getGroup());
      } else if (isa<UnpackE2M1Op, E2M1ToE4M3Op>(op)) {
        // The packed bytes: the values' layout with half the vector along the
        // last dimension (each byte unpacks into two adjacent values); the
        // shifts of tile.e2m1_to_e4m3: the values' layout.
        Value result = op->getResult(0);
        Attribute want = cast<FragmentType>(result.getType()).getLayout();
        if (!want)
          if (auto it = wanted.find(result); it != wanted.end())
            want = it->second;
        if (!want)
          want = defaultLayout(cast<FragmentType>(result.getType()));
        if (BlockedLayoutAttr half = halfLastVector(want))
          wanted.try_emplace(op->getOperand(0), half);
        if (auto conv = dyn_cast<E2M1ToE4M3Op>(op))
          wanted.try_emplace(conv.getShift(), want);
      } else if (auto unpack = dyn_cast<UnpackE5M6Op>(op)) {
        // The packed bytes: the values' layout (runs of 8 per thread) with the
        // vector along the last dimension times 3/2.
        FragmentType wide = unpack.getResult().getType();
        Attribute want = wide.getLayout();
        if (!want)
          if (auto it = wanted.find(unpack.getResult()); it != wanted.end())
            want = it->second;
        auto b = dyn_cast_or_null<BlockedLayoutAttr>(want);
        if (!b || b.getVec().back() % 8)
          b = cast<BlockedLayoutAttr>(defaultLayout(wide));
        wanted.try_emplace(unpack.getInput(), e5m6BytesLayout(b));
      } else if (auto pack = dyn_cast<PackE5M6Op>(op)) {
        wanted.try_emplace(pack.getInput(), e5m6Runs(pack.getInput().getType()));
      } else if (auto tr = dyn_cast<TransposeOp>(op)) {
        // Rows in 4s (or the schedule's transpose_rows), so that the
        // transposed writes are 4-element vectors.
        FragmentType in = tr.getInput().getType();
        std::vector<int64_t> shape(in.getShape().begin(), in.getShape().end());
        wanted.try_emplace(tr.getInput(), blocked(shape, vecElems, transposeRows));
      } else if (isa<ParallelOp, ConvertOp, GatherOp, GatherRowsOp>(op)) {
        auto it = wanted.find(op->getResult(0));
        if (it != wanted.end())
          for (Value operand : op->getOperands())
            if (isa<FragmentType>(operand.getType()) &&
                cast<FragmentType>(operand.getType()).getShape() ==
                cast<FragmentType>(op->getResult(0).getType()).getShape())
              wanted.try_emplace(operand, it->second);
      }
    }

    // Without inference (the ablation): every result gets its annotation or
    // the default layout of its shape, and an operand laid out otherwise than
    // its op needs moves through shared memory (tile.relayout) first.
    auto requiredLayout = [&](Operation *op, Value operand) -> Attribute {
      auto resultLayout = [&]() {
        FragmentType t = cast<FragmentType>(op->getResult(0).getType());
        return t.getLayout() ? t.getLayout() : defaultLayout(t);
      };
      if (isa<ParallelOp, ConvertOp, GatherOp, GatherRowsOp>(op))
        return resultLayout();
      if (auto expand = dyn_cast<ExpandOp>(op))
        return ReducedLayoutAttr::get(ctx, resultLayout(), expand.getDim(), expand.getGroup());
      if (isa<UnpackE2M1Op>(op)) // half the values' vector: two values per byte
        return halfLastVector(resultLayout());
      if (auto conv = dyn_cast<E2M1ToE4M3Op>(op))
        return operand == conv.getShift() ? resultLayout() : Attribute(halfLastVector(resultLayout()));
      if (isa<UnpackE5M6Op>(op)) { // runs of 12 bytes: the values' runs of 8
        auto b = dyn_cast<BlockedLayoutAttr>(resultLayout());
        return b && b.getVec().back() % 8 == 0 ? Attribute(e5m6BytesLayout(b)) : Attribute();
      }
      if (isa<PackE5M6Op>(op)) { // runs of 8 values
        auto b = dyn_cast_or_null<BlockedLayoutAttr>(layoutOf(operand));
        return b && b.getVec().back() % 8 == 0 ? Attribute() : e5m6Runs(cast<FragmentType>(operand.getType()));
      }
      return {};
    };
    auto relayoutOperands = [&](Operation *op) {
      for (OpOperand &use : op->getOpOperands()) {
        if (!isa<FragmentType>(use.get().getType()))
          continue;
        Attribute want = requiredLayout(op, use.get());
        if (!want || layoutOf(use.get()) == want)
          continue;
        OpBuilder b(op);
        auto type = cast<FragmentType>(use.get().getType()).withLayout(want);
        use.set(RelayoutOp::create(b, op->getLoc(), type, use.get()));
      }
    };

    WalkResult result = kernel.walk([&](Operation *op) -> WalkResult {
      if (!infer && op->getNumResults() && isa<FragmentType>(op->getResult(0).getType()))
        relayoutOperands(op);
      for (Value res : op->getResults()) {
        auto type = dyn_cast<FragmentType>(res.getType());
        if (!type || type.getLayout())
          continue;
        Attribute layout;
        if (auto it = wanted.find(res); it != wanted.end() && !isa<ReduceOp>(op)) {
          layout = it->second;
        } else if (auto reduce = dyn_cast<ReduceOp>(op)) {
          // A blocked input, or the result of a reduction along another
          // dimension (two-step block reductions).
          Attribute parent = layoutOf(reduce.getInput());
          auto reducedParent = dyn_cast_or_null<ReducedLayoutAttr>(parent);
          if (!isa_and_nonnull<BlockedLayoutAttr>(parent) &&
              !(reducedParent && isa<BlockedLayoutAttr>(reducedParent.getParent())))
            return op->emitOpError() << "reduces a fragment whose layout " << parent
                                     << " is neither blocked nor a reduction of a blocked one",
                   WalkResult::interrupt();
          // The attribute's verifier forbids nesting along one dimension:
          // that is a single reduction with the product of the groups.
          if (reducedParent && reducedParent.getDim() == (int64_t)reduce.getDim())
            return op->emitOpError() << "reduces dimension " << reduce.getDim()
                                     << " of a fragment already reduced along it (group "
                                     << reducedParent.getGroup() << "): reduce once with group "
                                     << reducedParent.getGroup() * reduce.getGroup() << " instead",
                   WalkResult::interrupt();
          layout = ReducedLayoutAttr::get(ctx, parent, reduce.getDim(), reduce.getGroup());
        } else if (auto pack = dyn_cast<PackE2M1Op>(op)) {
          // Half the vector along the last dimension: each thread packs the
          // pairs it holds (the verifier rejects odd vectors).
          auto in = dyn_cast_or_null<BlockedLayoutAttr>(layoutOf(pack.getInput()));
          if (!in)
            return op->emitOpError() << "packs a fragment without a blocked layout", WalkResult::interrupt();
          SmallVector<int64_t> vec(in.getVec());
          vec.back() = std::max<int64_t>(1, vec.back() / 2);
          layout = BlockedLayoutAttr::get(ctx, vec, in.getLanes(), in.getWarps());
        } else if (auto unpack = dyn_cast<UnpackE2M1Op>(op)) {
          // Two values per byte: twice the vector along the last dimension.
          auto in = dyn_cast_or_null<BlockedLayoutAttr>(layoutOf(unpack.getInput()));
          if (!in)
            return op->emitOpError() << "unpacks a fragment without a blocked layout", WalkResult::interrupt();
          SmallVector<int64_t> vec(in.getVec());
          vec.back() *= 2;
          layout = BlockedLayoutAttr::get(ctx, vec, in.getLanes(), in.getWarps());
        } else if (auto unpack = dyn_cast<UnpackE5M6Op>(op)) {
          // 8 values per 12 bytes: the vector along the last dimension times 2/3.
          auto in = dyn_cast_or_null<BlockedLayoutAttr>(layoutOf(unpack.getInput()));
          if (!in)
            return op->emitOpError() << "unpacks a fragment without a blocked layout", WalkResult::interrupt();
          if (in.getVec().back() % 12)
            return op->emitOpError() << "needs runs of 12 bytes per thread along the last dimension; the input's "
                                        "layout "
                                     << in << " has " << in.getVec().back(),
                   WalkResult::interrupt();
          SmallVector<int64_t> vec(in.getVec());
          vec.back() = vec.back() / 3 * 2;
          layout = BlockedLayoutAttr::get(ctx, vec, in.getLanes(), in.getWarps());
        } else if (auto pack = dyn_cast<PackE5M6Op>(op)) {
          // 12 bytes per 8 elements: the vector along the last dimension times 3/2.
          auto in = dyn_cast_or_null<BlockedLayoutAttr>(layoutOf(pack.getInput()));
          if (!in)
            return op->emitOpError() << "packs a fragment without a blocked layout", WalkResult::interrupt();
          SmallVector<int64_t> vec(in.getVec());
          vec.back() = vec.back() / 2 * 3;
          layout = BlockedLayoutAttr::get(ctx, vec, in.getLanes(), in.getWarps());
        } else if (isa<TransposeOp>(op)) {
          // The transposed fragment is written as it comes out of shared
          // memory: chunks of vectorBytes of its own elements (16 e4m3
          // values where the kernel's widest access is bf16).
          int64_t bytes = std::max<int64_t>(1, type.getElementType().getIntOrFloatBitWidth() / 8);
          std::vector<int64_t> shape(type.getShape().begin(), type.getShape().end());
          layout = blocked(shape, std::max<int64_t>(vecElems, vectorBytes / bytes));
        } else if (auto expand = dyn_cast<ExpandOp>(op)) {
          auto reduced = dyn_cast_or_null<ReducedLayoutAttr>(layoutOf(expand.getInput()));
          layout = reduced ? Attribute(reduced.getParent()) : defaultLayout(type);
        } else {
          // Elementwise ops take the layout of an operand of the same shape (an
          // author's annotation propagates), else the default.
          for (Value operand : op->getOperands())
            if (auto ft = dyn_cast<FragmentType>(operand.getType()))
              if (ft.getShape() == type.getShape() && ft.getLayout() && !layout)
                layout = ft.getLayout();
          if (!layout)
            layout = defaultLayout(type);
        }
        setLayout(res, layout);
      }
      // The codes and shifts of tile.e2m1_to_e4m3 are laid out like its values.
      if (auto conv = dyn_cast<E2M1ToE4M3Op>(op)) {
        Attribute values = layoutOf(conv.getResult());
        BlockedLayoutAttr half = halfLastVector(values);
        for (auto [operand, want] : {std::pair<Value, Attribute>{conv.getShift(), values},
                                     std::pair<Value, Attribute>{conv.getCodes(), half}})
          if (!want || layoutOf(operand) != want)
            return layoutConflict(op, operand, [&](InFlightDiagnostic &d) {
              d << " but the values' layout " << values << " needs "
                << (want ? want : Attribute(StringAttr::get(ctx, "an even vector")));
            });
      }
      // Operands of elementwise ops must agree with the result layout.
      if (isa<ParallelOp, ConvertOp, GatherOp, GatherRowsOp>(op)) {
        Attribute resultLayout = layoutOf(op->getResult(0));
        for (Value operand : op->getOperands()) {
          if (!isa<FragmentType>(operand.getType()))
            continue; // a gather's source tensor
          if (layoutOf(operand) != resultLayout)
            return layoutConflict(op, operand,
                                  [&](InFlightDiagnostic &d) { d << " but the result has layout " << resultLayout; });
        }
      }
      return WalkResult::advance();
    });
    return failure(result.wasInterrupted());
  }
};

} // namespace
