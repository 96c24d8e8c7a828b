//===- ScalarMath.h - scalar and vector helpers both lowerings share -----===//
//
// Used by tile-lower-to-gpu (on per-thread vectors), tile-lower-to-cpu (on
// scalars) and the passes after them: how elements are held, reduction
// combiners, guarded element accesses, and constants shaped like a value.
//===----------------------------------------------------------------------===//
#pragma once

#include "tk/compiler/Dialect/Tile/Tile.h"

#include "mlir/IR/Builders.h"

namespace tk::compiler {

/// Element type a fragment element is held in per thread and in memory
/// (f8E4M3FN as i8; everything else as itself).
mlir::Type storageType(mlir::Type elementType);

/// The neutral element of a reduction kind for element type `t`.
mlir::Value reduceIdentity(mlir::OpBuilder &b, mlir::Location loc, tile::ReduceKind kind, mlir::Type t);
/// One combining step of a reduction (max/absmax/min ignore NaN like fmax).
mlir::Value reduceCombine(mlir::OpBuilder &b, mlir::Location loc, tile::ReduceKind kind, mlir::Value a, mlir::Value c);
/// The spec's tf32r of an f32 scalar, as i32 bits: (bits + 0x1000) & ~0x1FFF
/// (to nearest, ties away from zero; tile.dot's TF32 operands).
mlir::Value tf32Bits(mlir::OpBuilder &b, mlir::Location loc, mlir::Value f32);
/// |v| by clearing the sign bit (exact; math.absf would become a libdevice call on the GPU).
mlir::Value absoluteValue(mlir::OpBuilder &b, mlir::Location loc, mlir::Value v);

/// source[index] for a scalar or vector of i32 indices into a 1-D memref, zero
/// where an index is negative or past the end (one guarded scalar load each).
mlir::Value emitGather(mlir::OpBuilder &b, mlir::Location loc, mlir::Value source, mlir::Value index,
                       mlir::Type elementType);

/// dest[index] = value (with `add`, += by an integer atomic) for a scalar i32
/// index into a 1-D memref, skipped when the index is negative or past the end.
void emitScatter(mlir::OpBuilder &b, mlir::Location loc, mlir::Value dest, mlir::Value index, mlir::Value value,
                 bool add = false);

/// Constants and types shaped like a value: the encoders run on scalars (CPU
/// lowering) and on whole per-thread vectors (GPU lowering) alike.
struct Shaped {
  mlir::OpBuilder &b;
  mlir::Location loc;
  mlir::VectorType vt;
  Shaped(mlir::OpBuilder &b, mlir::Location loc, mlir::Value like)
      : b(b), loc(loc), vt(llvm::dyn_cast<mlir::VectorType>(like.getType())) {}
  mlir::Type of(mlir::Type elt) const { return vt ? mlir::Type(mlir::VectorType::get(vt.getShape(), elt)) : elt; }
  /// `scalar` as a constant of this shape (FloatEncoding.cpp).
  mlir::Value splat(mlir::TypedAttr scalar) const;
  mlir::Value i32(int64_t v) const { return splat(b.getI32IntegerAttr(v)); }
  mlir::Value f32(float v) const { return splat(b.getF32FloatAttr(v)); }
};

/// `scalar` applied to the lanes of same-shaped per-thread vectors (or once
/// to scalars), the results gathered into a vector of that shape.
mlir::Value perLane(mlir::OpBuilder &b, mlir::Location loc, mlir::ValueRange operands,
                    llvm::function_ref<mlir::Value(mlir::OpBuilder &, mlir::Location, mlir::ValueRange)> scalar);
} // namespace tk::compiler
