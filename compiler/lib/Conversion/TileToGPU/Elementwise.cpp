//===- Elementwise.cpp - tile.parallel, tile.convert and expansions per thread ===//
#include "ThreadEmitter.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"

#include <map>

using namespace mlir;
using namespace tk;

namespace tk::compiler {

Value ThreadEmitter::regroup(Value nested, const GroupedReduction &outer, const GroupedReduction &inner) {
  SmallVector<int64_t> mask;
  for (int64_t r = 0; r < inner.reducedSlots(); ++r)
    mask.push_back(outer.reducedSlotOf(inner.representativeSlot(r)));
  return vector::ShuffleOp::create(b, loc, nested, nested, mask);
}

Value ThreadEmitter::expand(Value reduced, const GroupedReduction &g) {
  SmallVector<int64_t> mask;
  for (int64_t s = 0; s < g.parent.slotsPerThread(); ++s)
    mask.push_back(g.reducedSlotOf(s));
  return vector::ShuffleOp::create(b, loc, reduced, reduced, mask);
}

/// An op that can run on whole per-thread vectors as it runs on scalars.
static bool isVectorizable(Operation &op) {
  if (isa<arith::ConstantOp>(op))
    return true;
  if (op.getNumRegions() != 0 || !op.hasTrait<OpTrait::Elementwise>())
    return false;
  // tile's scalar math (tile.silu, tile.sigmoid) is elementwise on vectors too.
  return isa<arith::ArithDialect, math::MathDialect, tile::TileDialect>(op.getDialect());
}

/// Where slot `slot` of per-thread vector `v` comes from: through the
/// shuffles of expansions (both operands the same vector) and broadcasts of
/// a scalar, the vector (or scalar) first holding it and its index there.
std::pair<Value, int64_t> slotSource(Value v, int64_t slot) {
  while (true) {
    if (auto shuffle = v.getDefiningOp<vector::ShuffleOp>()) {
      if (shuffle.getV1() != shuffle.getV2())
        break;
      int64_t m = shuffle.getMask()[slot], n = cast<VectorType>(shuffle.getV1().getType()).getNumElements();
      v = shuffle.getV1(), slot = m % n;
      continue;
    }
    if (auto broadcast = v.getDefiningOp<vector::BroadcastOp>())
      if (!isa<VectorType>(broadcast.getSource().getType()))
        return {broadcast.getSource(), 0};
    break;
  }
  return {v, slot};
}

FailureOr<Value> ThreadEmitter::parallel(tile::ParallelOp op, ArrayRef<Value> inputs, int64_t slots) {
  // Slots whose inputs all come from the same elements (the inputs are
  // expansions: a scale per block, an exponent per output block) compute the
  // same value: run the body once per distinct combination, then expand the
  // result back to the slots.
  SmallVector<std::pair<Value, SmallVector<int64_t>>> sources; // per input: its source and each slot's index there
  for (Value in : inputs) {
    auto &[source, index] = sources.emplace_back();
    for (int64_t s = 0; s < slots; ++s) {
      auto [from, at] = slotSource(in, s);
      source = from, index.push_back(at);
    }
  }
  std::map<SmallVector<int64_t>, int64_t> classOfKey;
  SmallVector<int64_t> classOf, representatives;
  for (int64_t s = 0; s < slots; ++s) {
    SmallVector<int64_t> key;
    for (auto &source : sources)
      key.push_back(source.second[s]);
    auto [it, added] = classOfKey.try_emplace(key, (int64_t)representatives.size());
    if (added)
      representatives.push_back(s);
    classOf.push_back(it->second);
  }
  if (!inputs.empty() && (int64_t)representatives.size() < slots) {
    int64_t n = representatives.size();
    SmallVector<Value> compact;
    for (auto &[source, index] : sources) {
      if (!isa<VectorType>(source.getType())) {
        compact.push_back(vector::BroadcastOp::create(b, loc, VectorType::get({n}, source.getType()), source));
        continue;
      }
      SmallVector<int64_t> mask;
      for (int64_t r : representatives)
        mask.push_back(index[r]);
      compact.push_back(vector::ShuffleOp::create(b, loc, source, source, mask));
    }
    FailureOr<Value> distinct = parallelSlots(op, compact, n);
    if (failed(distinct))
      return failure();
    return Value(vector::ShuffleOp::create(b, loc, *distinct, *distinct, classOf));
  }
  return parallelSlots(op, inputs, slots);
}

FailureOr<Value> ThreadEmitter::parallelSlots(tile::ParallelOp op, ArrayRef<Value> inputs, int64_t slots) {
  Block &body = op.getBody().front();
  auto yield = cast<tile::YieldOp>(body.getTerminator());
  for (BlockArgument arg : body.getArguments())
    if (isa<Float8E4M3FNType>(arg.getType()))
      return op.emitOpError() << "elementwise math on f8E4M3FN elements: convert the fragment to f32 first";
  bool vectorizable = llvm::all_of(body.without_terminator(), isVectorizable);
  if (vectorizable) {
    IRMapping map;
    for (auto [arg, in] : llvm::zip(body.getArguments(), inputs))
      map.map(arg, in);
    for (Operation &inner : body.without_terminator()) {
      if (auto cst = dyn_cast<arith::ConstantOp>(inner)) {
        auto type = VectorType::get({slots}, cst.getType());
        auto value = DenseElementsAttr::get(type, cast<TypedAttr>(cst.getValue()));
        map.map(cst.getResult(), arith::ConstantOp::create(b, loc, type, value));
        continue;
      }
      for (Value operand : inner.getOperands())
        if (!map.contains(operand)) // a scalar from outside the region: broadcast it
          map.map(operand, vector::BroadcastOp::create(b, loc, VectorType::get({slots}, operand.getType()),
                                                       operand));
      Operation *clone = b.clone(inner, map);
      for (Value res : clone->getResults())
        res.setType(VectorType::get({slots}, res.getType()));
    }
    return map.lookup(yield.getValues()[0]);
  }
  // General case: run the body once per slot.
  SmallVector<Value> elements;
  for (int64_t s = 0; s < slots; ++s) {
    IRMapping map;
    for (auto [arg, in] : llvm::zip(body.getArguments(), inputs))
      map.map(arg, vector::ExtractOp::create(b, loc, in, ArrayRef<int64_t>{s}));
    for (Operation &inner : body.without_terminator())
      b.clone(inner, map);
    elements.push_back(map.lookup(yield.getValues()[0]));
  }
  auto type = VectorType::get({slots}, op.getResult().getType().getElementType());
  return Value(vector::FromElementsOp::create(b, loc, type, elements));
}

FailureOr<Value> ThreadEmitter::convert(tile::ConvertOp op, Value input) {
  Type from = op.getInput().getType().getElementType(), to = op.getResult().getType().getElementType();
  int64_t slots = cast<VectorType>(input.getType()).getNumElements();
  if (from == to)
    return input;
  if (isa<Float8E4M3FNType>(to))
    return emitF32ToE4M3(b, loc, input, fp8Hardware);
  if (isa<Float8E4M3FNType>(from)) // to f32 (the verifier's rule)
    return emitE4M3ToF32(b, loc, input, fp8Hardware);
  if (slots % 2 == 0 && from.isF32() && to.isBF16())
    return emitF32PairsToBf16(b, loc, input);
  auto type = VectorType::get({slots}, to);
  if (from.getIntOrFloatBitWidth() < to.getIntOrFloatBitWidth())
    return Value(arith::ExtFOp::create(b, loc, type, input));
  if (from.getIntOrFloatBitWidth() > to.getIntOrFloatBitWidth())
    return Value(arith::TruncFOp::create(b, loc, type, input));
  return op.emitOpError() << "no lowering for conversion from " << from << " to " << to;
}

} // namespace tk::compiler
