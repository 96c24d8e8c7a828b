//===- TileInterfaces.td - how tile ops take part in generic passes -*- tablegen -*-===//
#ifndef TK_TILE_INTERFACES_TD
#define TK_TILE_INTERFACES_TD

include "mlir/IR/OpBase.td"

def Tile_LayoutInferenceOpInterface : OpInterface<"LayoutInferenceOpInterface"> {
  let cppNamespace = "::tk::tile";
  let description = [{
    How an op's fragment results are laid out and what it asks of its
    fragment operands' layouts. tile-assign-layouts knows ops only through
    this interface: it walks the kernel backwards collecting hints (the
    layouts users want for their operands), then forwards giving every
    fragment without a layout one (its hint, or what the op infers from its
    operands), then checks each op's operands. Every method has a default:
    no hints, the result takes the layout of an operand of its shape, or its
    hint, or the default blocked layout, no requirement, no check. The
    state and helpers the methods share are in LayoutInference.h.
  }];
  let methods = [
    InterfaceMethod<[{Backward: records (LayoutInference::want) the layouts this op would like its fragment
                      operands to have, given its results' layouts or hints. An error stops the pass.}],
      "::mlir::LogicalResult", "hintOperandLayouts", (ins "::tk::tile::LayoutInference &":$inference), [{}],
      [{ return ::mlir::success(); }]>,
    InterfaceMethod<[{Forward: the layout of fragment result `result`, which has none yet, from the
                      operands' layouts (already assigned) and `hint`, the layout its users want (may be
                      null). Emits an error and fails when there is none.}],
      "::mlir::FailureOr<::mlir::Attribute>", "inferResultLayout",
      (ins "::tk::tile::LayoutInference &":$inference, "::mlir::OpResult":$result, "::mlir::Attribute":$hint),
      [{}], [{ return inference.sameShapeOperandLayout($_op, result, hint); }]>,
    InterfaceMethod<[{The layout `operand` must have, given the results' layouts (or, without one, their
                      default); null when any will do. Without inference (its ablation) an operand laid out
                      otherwise moves through shared memory (tile.relayout).}],
      "::mlir::Attribute", "requiredOperandLayout",
      (ins "::tk::tile::LayoutInference &":$inference, "::mlir::OpOperand &":$operand), [{}],
      [{ return ::mlir::Attribute(); }]>,
    InterfaceMethod<[{Checks the operands' layouts once the results have theirs; a conflict is an error
                      naming both layouts.}],
      "::mlir::LogicalResult", "verifyOperandLayouts", (ins "::tk::tile::LayoutInference &":$inference), [{}],
      [{ return ::mlir::success(); }]>,
    InterfaceMethod<[{Forward, after the op's regions (ops with regions only): settles what waited for them,
                      e.g. a loop's carried values that take their body's layout. An error stops the pass.}],
      "::mlir::LogicalResult", "settleAfterRegions", (ins "::tk::tile::LayoutInference &":$inference), [{}],
      [{ return ::mlir::success(); }]>,
    InterfaceMethod<[{The number of consecutive values per thread along the last dimension that this op's
                      fragments need a multiple of (1: any); the default layouts' vector is rounded up to the
                      least common multiple over the kernel's ops.}],
      "int64_t", "vectorMultiple", (ins), [{}], [{ return 1; }]>,
  ];
}

#endif
