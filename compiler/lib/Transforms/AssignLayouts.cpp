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

/// Bytes of the narrowest fragment element type in the kernel: the vector
/// width in elements is chosen so that its accesses are `vectorBytes` wide.
int64_t narrowestElementBytes(KernelOp kernel) {
  int64_t bytes = 8;
  kernel.walk([&](Operation *op) {
    for (Type t : op->getResultTypes())
      if (auto frag = dyn_cast<FragmentType>(t))
        bytes = std::min<int64_t>(bytes, std::max<int64_t>(1, frag.getElementType().getIntOrFloatBitWidth() / 8));
  });
  return bytes;
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
    int64_t vecElems = std::max<int64_t>(1, vectorBytes / narrowestElementBytes(kernel));
    int64_t warps = kernel.getNumWarps();
    auto defaultLayout = [&](FragmentType type) -> Attribute {
      std::vector<int64_t> shape(type.getShape().begin(), type.getShape().end());
      return compiler::toAttr(ctx, compiler::chooseBlockedLayout(shape, warps, vecElems));
    };
    auto layoutOf = [](Value v) { return cast<FragmentType>(v.getType()).getLayout(); };
    auto setLayout = [](Value v, Attribute layout) {
      v.setType(cast<FragmentType>(v.getType()).withLayout(layout));
    };

    WalkResult result = kernel.walk([&](Operation *op) -> WalkResult {
      for (Value res : op->getResults()) {
        auto type = dyn_cast<FragmentType>(res.getType());
        if (!type || type.getLayout())
          continue;
        Attribute layout;
        if (auto reduce = dyn_cast<ReduceOp>(op)) {
          auto parent = dyn_cast_or_null<BlockedLayoutAttr>(layoutOf(reduce.getInput()));
          if (!parent)
            return op->emitOpError() << "reduces a fragment without a blocked layout", WalkResult::interrupt();
          layout = ReducedLayoutAttr::get(ctx, parent, reduce.getDim(), reduce.getGroup());
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
      // Operands of elementwise ops must agree with the result layout.
      if (isa<ParallelOp, ConvertOp>(op)) {
        Attribute resultLayout = layoutOf(op->getResult(0));
        for (Value operand : op->getOperands()) {
          Attribute l = layoutOf(operand);
          if (l != resultLayout) {
            InFlightDiagnostic diag = op->emitOpError()
                                      << "layout conflict: operand has layout " << l
                                      << " but the result has layout " << resultLayout;
            if (Operation *def = operand.getDefiningOp())
              diag.attachNote(def->getLoc()) << "operand defined here by " << def->getName();
            return WalkResult::interrupt();
          }
        }
      }
      return WalkResult::advance();
    });
    return failure(result.wasInterrupted());
  }
};

} // namespace
