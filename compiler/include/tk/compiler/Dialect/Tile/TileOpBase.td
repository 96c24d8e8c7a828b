//===- TileOpBase.td - what every tile op file includes --------*- tablegen -*-===//
#ifndef TK_TILE_OP_BASE_TD
#define TK_TILE_OP_BASE_TD

include "tk/compiler/Dialect/Tile/TileBase.td"
include "tk/compiler/Dialect/Tile/TileInterfaces.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/IR/RegionKindInterface.td"
include "mlir/Interfaces/FunctionInterfaces.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"

class Tile_Op<string mnemonic, list<Trait> traits = []> : Op<Tile_Dialect, mnemonic, traits>;

// An op whose result is computed element by element from operands of its
// shape: hints go to those operands, which must share the result's layout;
// the result takes their layout, or its hint, or the default.
defvar Tile_ElementwiseLayouts = DeclareOpInterfaceMethods<Tile_LayoutInferenceOpInterface,
    ["hintOperandLayouts", "requiredOperandLayout", "verifyOperandLayouts"]>;
// An op with layout rules of its own: the methods it implements.
class Tile_LayoutRules<list<string> methods>
    : DeclareOpInterfaceMethods<Tile_LayoutInferenceOpInterface, methods>;

#endif
