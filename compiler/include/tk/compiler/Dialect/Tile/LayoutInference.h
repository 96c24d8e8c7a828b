//===- LayoutInference.h - what layout inference knows of a kernel -------===//
//
// The state tile-assign-layouts shares with the ops' LayoutInferenceOpInterface
// methods: the kernel's default vector, the hints collected backwards, and the
// helpers that build layouts. Ops decide; this class only answers questions.
//===----------------------------------------------------------------------===//
#pragma once

#include "mlir/IR/Attributes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Value.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLFunctionalExtras.h"

namespace tk::tile {

class FragmentType;
class KernelOp;

class LayoutInference {
public:
  /// `vectorBytes`: the target's widest access (the schedule's
  /// max_access_bytes lowers it); `infer`: false for the ablation of
  /// inference (no hints; defaults and relayouts).
  LayoutInference(KernelOp kernel, int64_t vectorBytes, bool infer);
  /// Settles vectorElements(): the schedule's, which must be a multiple of
  /// what the kernel's ops need, or the default rounded up to it.
  mlir::LogicalResult chooseVector(KernelOp kernel);

  mlir::MLIRContext *context() const { return ctx_; }
  bool inferring() const { return infer_; }
  /// Bytes per thread per access (the target's, capped by the schedule).
  int64_t vectorBytes() const { return vectorBytes_; }
  /// Consecutive values per thread along the last dimension in default
  /// layouts: the schedule's vector_elements, else vectorBytes() of the
  /// kernel's widest main element, rounded up to every op's vectorMultiple.
  int64_t vectorElements() const { return vecElems_; }
  /// Consecutive rows a thread holds of a fragment it transposes.
  int64_t transposeRows() const { return transposeRows_; }
  /// The kernel's warps.
  int64_t numWarps() const { return warps_; }

  /// A blocked layout of `shape` over the kernel's warps with `vec` values
  /// per thread along the last dimension and `rowVec` along the one before.
  /// On targets with accesses wider than 16 bytes, where such vectors would
  /// leave threads idle and half vectors tile the shape exactly, the half.
  mlir::Attribute blocked(llvm::ArrayRef<int64_t> shape, int64_t vec, int64_t rowVec = 1) const;
  /// The same, always as chosen for 16-byte targets (no halving).
  mlir::Attribute blockedExactly(llvm::ArrayRef<int64_t> shape, int64_t vec) const;
  /// blocked(shape of `type`, vectorElements()).
  mlir::Attribute defaultLayout(FragmentType type) const;

  /// The layout in `v`'s type (null before assignment).
  static mlir::Attribute layoutOf(mlir::Value v);
  /// The layout users want for `v` (null: none).
  mlir::Attribute hint(mlir::Value v) const;
  /// `v`'s layout, else its hint (null: neither).
  mlir::Attribute layoutOrHint(mlir::Value v) const;
  /// `v`'s layout, else its hint, else the default of its type.
  mlir::Attribute layoutOrHintOrDefault(mlir::Value v) const;
  /// Records that a user wants `v` laid out as `layout`. The first hint
  /// recorded wins (ops are visited last to first), unless `overrides`.
  void want(mlir::Value v, mlir::Attribute layout, bool overrides = false);

  /// The default rule: the layout of an operand of `op` with `result`'s
  /// shape (an author's annotation propagates), else `hint`, else the default.
  mlir::FailureOr<mlir::Attribute> sameShapeOperandLayout(mlir::Operation *op, mlir::Value result,
                                                          mlir::Attribute hint) const;
  /// Whether `v` is made of element coordinates and constants alone
  /// (tile.iota, and tile.parallel over such values): computed again in
  /// another layout, it costs a few instructions where a relayout costs
  /// shared memory and two barriers.
  static bool recomputable(mlir::Value v);
  /// Elementwise ops: their hint goes to every operand of the result's shape.
  void hintSameShapeOperands(mlir::Operation *op) ;
  /// Elementwise ops: every fragment operand must have the result's layout
  /// (a block argument without one yet, a loop's carried value waiting for
  /// its body, is checked when the loop settles it: ScfLayouts.cpp).
  static mlir::LogicalResult verifySameLayouts(mlir::Operation *op);
  /// The layout of `op`'s result `i`, or its default when it has none (the
  /// requirement of an operand is stated relative to it).
  mlir::Attribute resultLayoutOrDefault(mlir::Operation *op, unsigned i = 0) const;

  /// "layout conflict: operand has layout A ...": `rest` finishes the
  /// message, a note points at the operand's definition.
  static mlir::LogicalResult conflict(mlir::Operation *op, mlir::Value operand,
                                      llvm::function_ref<void(mlir::InFlightDiagnostic &)> rest);

private:
  mlir::MLIRContext *ctx_;
  bool infer_;
  int64_t vectorBytes_, vecElems_, transposeRows_, warps_;
  bool warpsAlongRows_ = false;
  llvm::DenseMap<mlir::Value, mlir::Attribute> hints_;
};

} // namespace tk::tile
