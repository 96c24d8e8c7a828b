//===- LowerTileToCPU.cpp - tile.kernel -> sequential loops ---------------===//
//
// The CPU semantics of every tile op (see the pass description): the same
// tile IR the GPU path compiles, run block by block on one thread.
//===----------------------------------------------------------------------===//
#include "tk/compiler/Conversion/FloatEncoding.h"
#include "tk/compiler/Conversion/ScalarMath.h"
#include "../../Transforms/NestedControlFlow.h"
#include "tk/compiler/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"

namespace tk::tile {
#define GEN_PASS_DEF_TILELOWERTOCPU
#include "tk/compiler/Transforms/Passes.h.inc"
} // namespace tk::tile

#include <optional>

using namespace mlir;
using namespace tk;
using namespace tk::tile;

namespace {

Type cpuMemRefType(MemRefType mem) {
  // Shared buffers lose their GPU address space; float8 is stored as i8.
  Attribute space = isa_and_nonnull<gpu::AddressSpaceAttr>(mem.getMemorySpace()) ? Attribute() : mem.getMemorySpace();
  return MemRefType::get(mem.getShape(), compiler::storageType(mem.getElementType()), mem.getLayout(), space);
}

Type convertArg(Type t) {
  if (auto mem = dyn_cast<MemRefType>(t))
    return cpuMemRefType(mem);
  return t;
}

/// The FP4 code (i32, 0..15) of element `ivs` of values packed two per byte
/// in `bytes`: nibble ivs.back() % 2 (low first) of byte ivs.back() / 2.
Value packedCode(OpBuilder &b, Location l, Value bytes, ValueRange ivs) {
  auto c32 = [&](int64_t v) { return arith::ConstantIntOp::create(b, l, b.getI32Type(), v); };
  SmallVector<Value> at(ivs.begin(), ivs.end());
  Value two = arith::ConstantIndexOp::create(b, l, 2);
  at.back() = arith::DivUIOp::create(b, l, ivs.back(), two);
  Value byte = arith::ExtUIOp::create(b, l, b.getI32Type(), memref::LoadOp::create(b, l, bytes, at));
  Value odd = arith::IndexCastOp::create(b, l, b.getI32Type(), arith::RemUIOp::create(b, l, ivs.back(), two));
  return arith::AndIOp::create(b, l, arith::ShRUIOp::create(b, l, byte, arith::MulIOp::create(b, l, odd, c32(4))),
                               c32(0xF));
}

struct CpuLowering {
  OpBuilder &b;
  Location loc;
  IRMapping map;
  SmallVector<Value> buffers; ///< freed at the end of the function

  Value index(int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); }

  /// A heap buffer for one fragment, allocated once at function entry.
  Value fragmentBuffer(FragmentType type, Block &entry) {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(&entry);
    auto mem = MemRefType::get(type.getShape(), compiler::storageType(type.getElementType()));
    Value buf = memref::AllocOp::create(b, loc, mem);
    buffers.push_back(buf);
    return buf;
  }

  void loopNest(ArrayRef<int64_t> shape, function_ref<void(OpBuilder &, Location, ValueRange)> body) {
    SmallVector<Value> lbs, ubs, steps;
    for (int64_t d : shape) {
      lbs.push_back(index(0));
      ubs.push_back(index(d));
      steps.push_back(index(1));
    }
    scf::buildLoopNest(b, loc, lbs, ubs, steps, body);
  }

  /// origin + iv < extent along every dimension.
  Value inBounds(OpBuilder &ib, Value mem, ArrayRef<Value> coords) {
    auto type = cast<MemRefType>(mem.getType());
    Value ok;
    for (int64_t d = 0; d < type.getRank(); ++d) {
      Value extent = type.isDynamicDim(d) ? Value(memref::DimOp::create(ib, loc, mem, d))
                                          : Value(arith::ConstantIndexOp::create(ib, loc, type.getDimSize(d)));
      Value c = arith::CmpIOp::create(ib, loc, arith::CmpIPredicate::ult, coords[d], extent);
      ok = ok ? Value(arith::AndIOp::create(ib, loc, ok, c)) : c;
    }
    return ok;
  }

  /// Coordinates origin + ivs; with `split` n, the last one c becomes
  /// (c / n, c % n) (tile.load / tile.store split_last).
  SmallVector<Value> offset(OpBuilder &ib, ValueRange origin, ValueRange ivs, std::optional<int64_t> split = {}) {
    SmallVector<Value> out;
    for (auto [o, i] : llvm::zip(origin, ivs))
      out.push_back(arith::AddIOp::create(ib, loc, o, i));
    if (split) {
      Value c = out.back(), n = arith::ConstantIndexOp::create(ib, loc, *split);
      out.back() = arith::DivUIOp::create(ib, loc, c, n);
      out.push_back(arith::RemUIOp::create(ib, loc, c, n));
    }
    return out;
  }

  /// Reads `src` at coords, or zero outside it.
  Value maskedRead(OpBuilder &ib, Value src, ArrayRef<Value> coords) {
    Type elt = cast<MemRefType>(src.getType()).getElementType();
    auto ifOp = scf::IfOp::create(
        ib, loc, inBounds(ib, src, coords),
        [&](OpBuilder &tb, Location l) { scf::YieldOp::create(tb, l, ValueRange{memref::LoadOp::create(tb, l, src, coords)}); },
        [&](OpBuilder &eb, Location l) {
          scf::YieldOp::create(eb, l, ValueRange{arith::ConstantOp::create(eb, l, eb.getZeroAttr(elt))});
        });
    return ifOp.getResult(0);
  }

  /// Stores `value` at `coords` when they are inside `dst` (adds it, with `atomicAdd`).
  void maskedWrite(OpBuilder &ib, Value value, Value dst, ArrayRef<Value> coords, bool atomicAdd = false) {
    scf::IfOp::create(ib, loc, inBounds(ib, dst, coords), [&](OpBuilder &tb, Location l) {
      if (atomicAdd)
        memref::AtomicRMWOp::create(
            tb, l, isa<FloatType>(value.getType()) ? arith::AtomicRMWKind::addf : arith::AtomicRMWKind::addi, value,
            dst, coords);
      else
        memref::StoreOp::create(tb, l, value, dst, coords);
      scf::YieldOp::create(tb, l);
    });
  }

  /// partial + the sum of every element of fragment buffer `buf` (a block
  /// total's share of one tile), each widened to the partial's type.
  Value sumInto(Value partial, Value buf, ArrayRef<int64_t> shape) {
    SmallVector<Value> lbs, ubs, steps;
    for (int64_t d : shape) {
      lbs.push_back(index(0));
      ubs.push_back(index(d));
      steps.push_back(index(1));
    }
    Type type = partial.getType();
    scf::LoopNest nest = scf::buildLoopNest(
        b, loc, lbs, ubs, steps, ValueRange{partial},
        [&](OpBuilder &ib, Location l, ValueRange ivs, ValueRange acc) -> scf::ValueVector {
          Value v = memref::LoadOp::create(ib, l, buf, ivs);
          if (v.getType() != type)
            v = isa<FloatType>(type) ? Value(arith::ExtFOp::create(ib, l, type, v))
                                     : Value(arith::ExtSIOp::create(ib, l, type, v));
          return {compiler::reduceCombine(ib, l, ReduceKind::sum, acc[0], v)};
        });
    return nest.results[0];
  }

  LogicalResult lowerOp(Operation &op, Block &entry);
  LogicalResult lowerBlock(Block &block, Block &entry) {
    for (Operation &op : block.without_terminator())
      if (failed(lowerOp(op, entry)))
        return failure();
    return success();
  }
};

LogicalResult CpuLowering::lowerOp(Operation &op, Block &entry) {
  auto mapped = [&](Value v) { return map.lookup(v); };
  auto mappedRange = [&](ValueRange vs) {
    SmallVector<Value> out;
    for (Value v : vs)
      out.push_back(mapped(v));
    return out;
  };

  if (auto grid = dyn_cast<GridOp>(op)) { // every tile in order; one "block", so the totals are grid-wide
    SmallVector<Value> lbs, steps, zeros;
    for (size_t i = 0; i < grid.getSizes().size(); ++i) {
      lbs.push_back(index(0));
      steps.push_back(index(1));
    }
    for (Type t : grid.getTotals().getTypes())
      zeros.push_back(arith::ConstantOp::create(b, loc, t, b.getZeroAttr(t)));
    auto yield = cast<YieldOp>(grid.getBody().front().getTerminator());
    LogicalResult result = success();
    scf::LoopNest nest = scf::buildLoopNest(
        b, loc, lbs, mappedRange(grid.getSizes()), steps, zeros,
        [&](OpBuilder &ib, Location, ValueRange ivs, ValueRange partials) -> scf::ValueVector {
          OpBuilder::InsertionGuard guard(b);
          b.setInsertionPoint(ib.getInsertionBlock(), ib.getInsertionPoint());
          for (auto [arg, iv] : llvm::zip(grid.getBlockIndices(), ivs))
            map.map(arg, iv);
          result = lowerBlock(grid.getBody().front(), entry);
          scf::ValueVector out;
          for (auto [value, partial] : llvm::zip(yield.getValues(), partials))
            out.push_back(sumInto(partial, mapped(value), cast<FragmentType>(value.getType()).getShape()));
          ib.setInsertionPoint(b.getInsertionBlock(), b.getInsertionPoint());
          return out;
        });
    for (auto [total, value] : llvm::zip(grid.getTotals(), nest.results))
      map.map(total, value);
    return result;
  }
  if (auto add = dyn_cast<AtomicAddOp>(op)) {
    maskedWrite(b, mapped(add.getValue()), mapped(add.getDest()), mappedRange(add.getIndices()), /*atomicAdd=*/true);
    return success();
  }
  if (auto load = dyn_cast<LoadOp>(op)) {
    FragmentType type = load.getResult().getType();
    Value buf = fragmentBuffer(type, entry), src = mapped(load.getSource());
    SmallVector<Value> origin = mappedRange(load.getIndices());
    loopNest(type.getShape(), [&](OpBuilder &ib, Location l, ValueRange ivs) {
      SmallVector<Value> at = offset(ib, origin, ivs, load.getSplitLast());
      memref::StoreOp::create(ib, l, maskedRead(ib, src, at), buf, ivs);
    });
    map.map(load.getResult(), buf);
    return success();
  }
  if (auto store = dyn_cast<StoreOp>(op)) {
    Value buf = mapped(store.getValue()), dst = mapped(store.getDest());
    SmallVector<Value> origin = mappedRange(store.getIndices());
    const bool atomic = store.getAtomicAdd();
    loopNest(store.getValue().getType().getShape(), [&](OpBuilder &ib, Location l, ValueRange ivs) {
      SmallVector<Value> at = offset(ib, origin, ivs, store.getSplitLast());
      maskedWrite(ib, memref::LoadOp::create(ib, l, buf, ivs), dst, at, atomic);
    });
    return success();
  }
  if (auto alloc = dyn_cast<AllocOp>(op)) {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(&entry);
    Value buf = memref::AllocOp::create(b, loc, cast<MemRefType>(cpuMemRefType(alloc.getBuffer().getType())));
    buffers.push_back(buf);
    map.map(alloc.getBuffer(), buf);
    return success();
  }
  if (auto copy = dyn_cast<CopyOp>(op)) {
    Value src = mapped(copy.getSource()), dst = mapped(copy.getDest());
    SmallVector<Value> origin = mappedRange(copy.getIndices());
    loopNest(copy.getDest().getType().getShape(), [&](OpBuilder &ib, Location l, ValueRange ivs) {
      memref::StoreOp::create(ib, l, maskedRead(ib, src, offset(ib, origin, ivs)), dst, ivs);
    });
    return success();
  }
  if (auto par = dyn_cast<ParallelOp>(op)) {
    FragmentType type = par.getResult().getType();
    Value buf = fragmentBuffer(type, entry);
    SmallVector<Value> inputs = mappedRange(par.getInputs());
    Block &body = par.getBody().front();
    for (BlockArgument arg : body.getArguments())
      if (isa<Float8E4M3FNType>(arg.getType()))
        return par.emitOpError() << "elementwise math on f8E4M3FN elements: convert the fragment to f32 first";
    loopNest(type.getShape(), [&](OpBuilder &ib, Location l, ValueRange ivs) {
      IRMapping inner = map;
      for (auto [arg, in] : llvm::zip(body.getArguments(), inputs))
        inner.map(arg, memref::LoadOp::create(ib, l, in, ivs));
      for (Operation &bodyOp : body.without_terminator())
        ib.clone(bodyOp, inner);
      Value result = inner.lookup(cast<YieldOp>(body.getTerminator()).getValues()[0]);
      memref::StoreOp::create(ib, l, result, buf, ivs);
    });
    map.map(par.getResult(), buf);
    return success();
  }
  if (auto reduce = dyn_cast<ReduceOp>(op)) {
    FragmentType type = reduce.getResult().getType();
    Value buf = fragmentBuffer(type, entry), in = mapped(reduce.getInput());
    int64_t dim = reduce.getDim(), group = reduce.getGroup();
    ReduceKind kind = reduce.getKind();
    Type elt = type.getElementType();
    loopNest(type.getShape(), [&](OpBuilder &ib, Location l, ValueRange ivs) {
      Value init = compiler::reduceIdentity(ib, l, kind, elt);
      Value lb = arith::ConstantIndexOp::create(ib, l, 0), ub = arith::ConstantIndexOp::create(ib, l, group),
            one = arith::ConstantIndexOp::create(ib, l, 1);
      Value base = arith::MulIOp::create(ib, l, ivs[dim], arith::ConstantIndexOp::create(ib, l, group));
      auto loop = scf::ForOp::create(ib, l, lb, ub, one, ValueRange{init},
                                     [&](OpBuilder &fb, Location fl, Value j, ValueRange acc) {
                                       SmallVector<Value> at(ivs.begin(), ivs.end());
                                       at[dim] = arith::AddIOp::create(fb, fl, base, j);
                                       Value v = memref::LoadOp::create(fb, fl, in, at);
                                       if (kind == ReduceKind::absmax)
                                         v = compiler::absoluteValue(fb, fl, v);
                                       scf::YieldOp::create(fb, fl, ValueRange{compiler::reduceCombine(fb, fl, kind, acc[0], v)});
                                     });
      memref::StoreOp::create(ib, l, loop.getResult(0), buf, ivs);
    });
    map.map(reduce.getResult(), buf);
    return success();
  }
  if (auto expand = dyn_cast<ExpandOp>(op)) {
    FragmentType type = expand.getResult().getType();
    Value buf = fragmentBuffer(type, entry), in = mapped(expand.getInput());
    int64_t dim = expand.getDim(), group = expand.getGroup();
    loopNest(type.getShape(), [&](OpBuilder &ib, Location l, ValueRange ivs) {
      SmallVector<Value> at(ivs.begin(), ivs.end());
      at[dim] = arith::DivUIOp::create(ib, l, ivs[dim], arith::ConstantIndexOp::create(ib, l, group));
      memref::StoreOp::create(ib, l, memref::LoadOp::create(ib, l, in, at), buf, ivs);
    });
    map.map(expand.getResult(), buf);
    return success();
  }
  if (auto tr = dyn_cast<TransposeOp>(op)) {
    FragmentType type = tr.getResult().getType();
    Value buf = fragmentBuffer(type, entry), in = mapped(tr.getInput());
    loopNest(type.getShape(), [&](OpBuilder &ib, Location l, ValueRange ivs) {
      SmallVector<Value> at(ivs.begin(), ivs.end());
      std::swap(at[at.size() - 1], at[at.size() - 2]);
      memref::StoreOp::create(ib, l, memref::LoadOp::create(ib, l, in, at), buf, ivs);
    });
    map.map(tr.getResult(), buf);
    return success();
  }
  if (auto unpack = dyn_cast<UnpackE2M1Op>(op)) {
    // out[..., j] = decode(nibble j % 2 of in[..., j / 2])
    FragmentType type = unpack.getResult().getType();
    Value buf = fragmentBuffer(type, entry), in = mapped(unpack.getInput());
    loopNest(type.getShape(), [&](OpBuilder &ib, Location l, ValueRange ivs) {
      memref::StoreOp::create(ib, l, compiler::emitE2M1Decode(ib, l, packedCode(ib, l, in, ivs)), buf, ivs);
    });
    map.map(unpack.getResult(), buf);
    return success();
  }
  if (auto conv = dyn_cast<E2M1ToE4M3Op>(op)) {
    // out[..., j] = e4m3(decode(nibble j % 2 of codes[..., j / 2]) * 2^clamp(shift, -126, 127))
    FragmentType type = conv.getResult().getType();
    Value buf = fragmentBuffer(type, entry), codes = mapped(conv.getCodes()), shifts = mapped(conv.getShift());
    loopNest(type.getShape(), [&](OpBuilder &ib, Location l, ValueRange ivs) {
      Value power = compiler::emitPowerOfTwo(ib, l, memref::LoadOp::create(ib, l, shifts, ivs));
      Value value = arith::MulFOp::create(ib, l, compiler::emitE2M1Decode(ib, l, packedCode(ib, l, codes, ivs)), power);
      memref::StoreOp::create(ib, l, compiler::emitF32ToE4M3(ib, l, value, /*hardware=*/false), buf, ivs);
    });
    map.map(conv.getResult(), buf);
    return success();
  }
  if (auto unpack = dyn_cast<UnpackE5M6Op>(op)) {
    // Every 12 bytes along the last dimension (3 little-endian words) -> 8 values.
    FragmentType type = unpack.getResult().getType();
    Value buf = fragmentBuffer(type, entry), in = mapped(unpack.getInput());
    SmallVector<int64_t> groups(type.getShape());
    groups.back() /= 8;
    loopNest(groups, [&](OpBuilder &ib, Location l, ValueRange ivs) {
      auto ci = [&](int64_t v) { return arith::ConstantIntOp::create(ib, l, ib.getI32Type(), v); };
      auto idx = [&](int64_t v) { return arith::ConstantIndexOp::create(ib, l, v); };
      SmallVector<Value> at(ivs.begin(), ivs.end());
      Value w[3], h[8];
      for (int word = 0; word < 3; ++word) {
        w[word] = ci(0);
        for (int k = 0; k < 4; ++k) {
          at.back() = arith::AddIOp::create(ib, l, arith::MulIOp::create(ib, l, ivs.back(), idx(12)), idx(4 * word + k));
          Value byte = arith::ExtUIOp::create(ib, l, ib.getI32Type(), memref::LoadOp::create(ib, l, in, at));
          w[word] = arith::OrIOp::create(ib, l, w[word], arith::ShLIOp::create(ib, l, byte, ci(8 * k)));
        }
      }
      compiler::emitE5M6CodesOfWords(ib, l, w, h);
      for (int k = 0; k < 8; ++k) {
        at.back() = arith::AddIOp::create(ib, l, arith::MulIOp::create(ib, l, ivs.back(), idx(8)), idx(k));
        memref::StoreOp::create(ib, l, compiler::emitE5M6Decode(ib, l, h[k], /*hardware=*/false), buf, at);
      }
    });
    map.map(unpack.getResult(), buf);
    return success();
  }
  if (auto pack = dyn_cast<PackE5M6Op>(op)) {
    // Every 8 elements along the last dimension -> 3 little-endian words (12 bytes).
    FragmentType type = pack.getResult().getType();
    Value buf = fragmentBuffer(type, entry), in = mapped(pack.getInput());
    SmallVector<int64_t> groups(pack.getInput().getType().getShape());
    groups.back() /= 8;
    loopNest(groups, [&](OpBuilder &ib, Location l, ValueRange ivs) {
      auto ci = [&](int64_t v) { return arith::ConstantIntOp::create(ib, l, ib.getI32Type(), v); };
      auto idx = [&](int64_t v) { return arith::ConstantIndexOp::create(ib, l, v); };
      SmallVector<Value> at(ivs.begin(), ivs.end());
      Value h[8];
      for (int k = 0; k < 8; ++k) {
        at.back() = arith::AddIOp::create(ib, l, arith::MulIOp::create(ib, l, ivs.back(), idx(8)), idx(k));
        h[k] = compiler::emitE5M6Code(ib, l, memref::LoadOp::create(ib, l, in, at));
      }
      auto shl = [&](Value x, int64_t s) -> Value { return arith::ShLIOp::create(ib, l, x, ci(s)); };
      auto shr = [&](Value x, int64_t s) -> Value { return arith::ShRUIOp::create(ib, l, x, ci(s)); };
      auto andi = [&](Value x, int64_t m) -> Value { return arith::AndIOp::create(ib, l, x, ci(m)); };
      auto ori = [&](std::initializer_list<Value> xs) {
        Value acc;
        for (Value x : xs)
          acc = acc ? Value(arith::OrIOp::create(ib, l, acc, x)) : x;
        return acc;
      };
      Value w[3] = {ori({shl(h[0], 20), shl(h[1], 8), shr(h[2], 4)}),
                    ori({shl(andi(h[2], 0xF), 28), shl(h[3], 16), shl(h[4], 4), shr(h[5], 8)}),
                    ori({shl(andi(h[5], 0xFF), 24), shl(h[6], 12), h[7]})};
      for (int word = 0; word < 3; ++word)
        for (int k = 0; k < 4; ++k) {
          at.back() = arith::AddIOp::create(ib, l, arith::MulIOp::create(ib, l, ivs.back(), idx(12)), idx(4 * word + k));
          memref::StoreOp::create(ib, l, arith::TruncIOp::create(ib, l, ib.getI8Type(), shr(w[word], 8 * k)), buf, at);
        }
    });
    map.map(pack.getResult(), buf);
    return success();
  }
  if (auto pack = dyn_cast<PackE2M1Op>(op)) {
    // out[..., j] = code(in[..., 2j]) | code(in[..., 2j + 1]) << 4
    FragmentType type = pack.getResult().getType();
    Value buf = fragmentBuffer(type, entry), in = mapped(pack.getInput());
    loopNest(type.getShape(), [&](OpBuilder &ib, Location l, ValueRange ivs) {
      SmallVector<Value> at(ivs.begin(), ivs.end());
      Value two = arith::ConstantIndexOp::create(ib, l, 2), one = arith::ConstantIndexOp::create(ib, l, 1);
      at.back() = arith::MulIOp::create(ib, l, ivs.back(), two);
      Value lo = compiler::emitE2M1Code(ib, l, memref::LoadOp::create(ib, l, in, at));
      at.back() = arith::AddIOp::create(ib, l, at.back(), one);
      Value hi = compiler::emitE2M1Code(ib, l, memref::LoadOp::create(ib, l, in, at));
      Value four = arith::ConstantIntOp::create(ib, l, ib.getI32Type(), 4);
      Value byte = arith::OrIOp::create(ib, l, lo, arith::ShLIOp::create(ib, l, hi, four));
      memref::StoreOp::create(ib, l, arith::TruncIOp::create(ib, l, ib.getI8Type(), byte), buf, ivs);
    });
    map.map(pack.getResult(), buf);
    return success();
  }
  if (auto gather = dyn_cast<GatherRowsOp>(op)) {
    FragmentType type = gather.getResult().getType();
    Value buf = fragmentBuffer(type, entry), rows = mapped(gather.getRows()), src = mapped(gather.getSource());
    Value col = mapped(gather.getCol());
    Type elt = compiler::storageType(type.getElementType());
    loopNest(type.getShape(), [&](OpBuilder &ib, Location l, ValueRange ivs) {
      Value row = memref::LoadOp::create(ib, l, rows, ivs);
      Value zero = arith::ConstantOp::create(ib, l, ib.getI32IntegerAttr(0));
      Value rowOk = arith::CmpIOp::create(ib, l, arith::CmpIPredicate::sge, row, zero);
      Value safeRow = arith::IndexCastOp::create(ib, l, ib.getIndexType(),
                                                 arith::SelectOp::create(ib, l, rowOk, row, zero));
      SmallVector<Value> at = {safeRow, arith::AddIOp::create(ib, l, col, ivs[1])};
      auto guarded = scf::IfOp::create(
          ib, l, rowOk,
          [&](OpBuilder &tb, Location tl) { scf::YieldOp::create(tb, tl, ValueRange{maskedRead(tb, src, at)}); },
          [&](OpBuilder &eb, Location el) {
            scf::YieldOp::create(eb, el, ValueRange{arith::ConstantOp::create(eb, el, eb.getZeroAttr(elt))});
          });
      memref::StoreOp::create(ib, l, guarded.getResult(0), buf, ivs);
    });
    map.map(gather.getResult(), buf);
    return success();
  }
  if (auto scatter = dyn_cast<ScatterOp>(op)) {
    SmallVector<Value> at(scatter.getValue().getType().getRank(), arith::ConstantIndexOp::create(b, loc, 0));
    Value value = memref::LoadOp::create(b, loc, mapped(scatter.getValue()), at);
    Value index = memref::LoadOp::create(b, loc, mapped(scatter.getIndex()), at);
    compiler::emitScatter(b, loc, mapped(scatter.getDest()), index, value);
    return success();
  }
  if (auto gather = dyn_cast<GatherOp>(op)) {
    FragmentType type = gather.getResult().getType();
    Value buf = fragmentBuffer(type, entry), index = mapped(gather.getIndex()), source = mapped(gather.getSource());
    Type elt = compiler::storageType(type.getElementType());
    loopNest(type.getShape(), [&](OpBuilder &ib, Location l, ValueRange ivs) {
      Value v = compiler::emitGather(ib, l, source, memref::LoadOp::create(ib, l, index, ivs), elt);
      memref::StoreOp::create(ib, l, v, buf, ivs);
    });
    map.map(gather.getResult(), buf);
    return success();
  }
  if (auto conv = dyn_cast<ConvertOp>(op)) {
    FragmentType type = conv.getResult().getType();
    Type from = conv.getInput().getType().getElementType(), to = type.getElementType();
    Value buf = fragmentBuffer(type, entry), in = mapped(conv.getInput());
    loopNest(type.getShape(), [&](OpBuilder &ib, Location l, ValueRange ivs) {
      Value v = memref::LoadOp::create(ib, l, in, ivs);
      if (isa<Float8E4M3FNType>(to))
        v = compiler::emitF32ToE4M3(ib, l, v, /*hardware=*/false);
      else if (isa<Float8E4M3FNType>(from)) // to f32
        v = compiler::emitE4M3ToF32(ib, l, v, /*hardware=*/false);
      else if (from.getIntOrFloatBitWidth() < to.getIntOrFloatBitWidth())
        v = arith::ExtFOp::create(ib, l, to, v);
      else if (from.getIntOrFloatBitWidth() > to.getIntOrFloatBitWidth())
        v = arith::TruncFOp::create(ib, l, to, v);
      memref::StoreOp::create(ib, l, v, buf, ivs);
    });
    map.map(conv.getResult(), buf);
    return success();
  }
  // One block runs at a time: copies complete at once, nothing to wait for.
  if (auto relayout = dyn_cast<RelayoutOp>(op)) { // one thread holds every element: nothing moves
    map.map(relayout.getResult(), map.lookup(relayout.getInput()));
    return success();
  }
  if (isa<CommitCopiesOp, WaitCopiesOp, BarrierOp, InitBarriersOp, WaitBarrierOp>(op))
    return success();
  if (auto pipe = dyn_cast<PipelineOp>(op)) { // not pipelined: the plain loop it means
    auto loop = scf::ForOp::create(b, loc, mapped(pipe.getLowerBound()), mapped(pipe.getUpperBound()), index(1));
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(loop.getBody()->getTerminator());
    map.map(pipe.getInductionVar(), loop.getInductionVar());
    return lowerBlock(pipe.getBody().front(), entry);
  }
  if (std::optional<LogicalResult> nested = compiler::lowerNestedControlFlow(
          op, b, loc, map, [&](Block &block) { return lowerBlock(block, entry); }))
    return *nested;
  if (auto view = dyn_cast<memref::SubViewOp>(op)) { // a version of a multi-buffered shared tile
    Operation *clone = b.clone(op, map);
    clone->getResult(0).setType(cpuMemRefType(view.getType()));
    map.map(view.getResult(), clone->getResult(0));
    return success();
  }
  if (op.getDialect() && isa<TileDialect>(op.getDialect()))
    return op.emitOpError() << "has no CPU lowering";
  b.clone(op, map);
  return success();
}

struct TileLowerToCPU : public tk::tile::impl::TileLowerToCPUBase<TileLowerToCPU> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    for (KernelOp kernel : llvm::make_early_inc_range(module.getOps<KernelOp>()))
      if (failed(lower(kernel)))
        return signalPassFailure();
  }

  LogicalResult lower(KernelOp kernel) {
    OpBuilder b(kernel);
    Location loc = kernel.getLoc();
    SmallVector<Type> argTypes;
    for (Type t : kernel.getArgumentTypes())
      argTypes.push_back(convertArg(t));
    auto func = func::FuncOp::create(b, loc, kernel.getSymName(), b.getFunctionType(argTypes, {}));
    Block *entry = func.addEntryBlock();
    b.setInsertionPointToEnd(entry);
    CpuLowering lowering{b, loc, {}, {}};
    for (auto [arg, cpuArg] : llvm::zip(kernel.getBody().getArguments(), entry->getArguments()))
      lowering.map.map(arg, cpuArg);
    if (failed(lowering.lowerBlock(kernel.getBody().front(), *entry)))
      return failure();
    for (Value buf : lowering.buffers)
      memref::DeallocOp::create(b, loc, buf);
    func::ReturnOp::create(b, loc);
    kernel.erase();
    return success();
  }
};

} // namespace
