//===- Distribute.h - per-thread code for distributed fragments -----------===//
//
// Shared by the tile-lower-to-gpu pieces: a fragment becomes one vector per
// thread (its slots, see BlockedLayout.h); these helpers emit the per-thread
// code of each tile op.
//===----------------------------------------------------------------------===//
#pragma once

#include "tk/compiler/Dialect/Tile/Tile.h"
#include "tk/compiler/Layout/BlockedLayout.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/DenseMap.h"

namespace tk::compiler {

/// Element type a fragment element is held in per thread and in memory
/// (f8E4M3FN as i8; everything else as itself).
mlir::Type storageType(mlir::Type elementType);

/// The per-thread code generator of one kernel.
struct ThreadEmitter {
  mlir::OpBuilder &b;
  mlir::Location loc;
  mlir::gpu::GPUFuncOp func;
  bool fp8Hardware;
  mlir::Value lane, warp;
  /// Byte alignment promised for each memref value (kernel arguments, buffers).
  llvm::DenseMap<mlir::Value, int64_t> alignment;
  /// Multiples promised for the dynamic sizes of kernel arguments
  /// (tile.dim_multiples), one per dimension.
  llvm::DenseMap<mlir::Value, llvm::SmallVector<int64_t>> dimMultiples;
  /// Block indices whose grid extent is ceil(E / c) for a constant c: the
  /// block index times c is then below E (tiles of c start inside E).
  llvm::DenseMap<mlir::Value, std::pair<mlir::Value, int64_t>> blockIndexTiles;

  /// Emit a remark for every access narrower than the layout's chunk, saying why.
  bool remarks = false;
  /// Transposes' shared buffers with an XOR swizzle where the rows allow (else padded rows).
  bool swizzle = true;
  /// The smallest element size (bytes) whose transposes are swizzled.
  int64_t swizzleBytes = 1;
  /// Loops over tile ops read the thread index again (rereadThreadIndex):
  /// the kernel asks for it in its schedule (reread_thread_index).
  bool rereadInLoops = false;

  /// `tid`: the thread index (index type), from which lane and warp derive.
  ThreadEmitter(mlir::OpBuilder &b, mlir::Location loc, mlir::gpu::GPUFuncOp func, bool fp8Hardware, mlir::Value tid)
      : b(b), loc(loc), func(func), fp8Hardware(fp8Hardware) {
    setThreadIndex(tid);
  }

  mlir::Value index(int64_t v);
  /// Whether `origin` (a tile's start along dimension `d` of `mem`) is
  /// provably below that dimension's extent: a block index times c whose
  /// grid extent is ceil(extent / c) (blockIndexTiles).
  bool originInside(mlir::Value mem, int64_t d, mlir::Value origin);
  /// A block-wide shared-memory buffer (a workgroup attribution of the
  /// kernel), 16-byte aligned.
  mlir::Value sharedBuffer(mlir::MemRefType type);
  /// What lane, warp and the thread coordinates derive from.
  struct ThreadIndex {
    mlir::Value lane, warp;
    llvm::DenseMap<std::pair<mlir::Attribute, int64_t>, mlir::Value> coords;
  };
  /// Reads the thread index again at the insertion point, through an
  /// instruction LLVM does not move, and derives lane, warp and the thread
  /// coordinates from it; returns what they derived from before, for
  /// restoreThreadIndex. At the top of a loop body this keeps per-thread
  /// address arithmetic inside the loop: LLVM's loop-invariant code motion
  /// would hoist it and hold every address in registers across the body.
  ThreadIndex rereadThreadIndex();
  /// lane = tid % 32, warp = tid / 32.
  void setThreadIndex(mlir::Value tid);
  void restoreThreadIndex(ThreadIndex saved);
  mlir::Value laneCoord(const BlockedLayout &l, int64_t d);
  mlir::Value warpCoord(const BlockedLayout &l, int64_t d);
  mlir::Value threadCoord(const BlockedLayout &l, int64_t d);
  /// Coordinate `d` in the tile of the thread's slot at `pos`. With `conds`,
  /// appends "inside the tile" when the layout pads dimension `d`.
  mlir::Value tileCoord(const BlockedLayout &l, const BlockedLayout::SlotPos &pos, int64_t d,
                        llvm::SmallVectorImpl<mlir::Value> *conds = nullptr);
  /// Thread 0 of the block (lane 0 of warp 0).
  mlir::Value isFirstThread();
  mlir::Value allTrue(llvm::ArrayRef<mlir::Value> conds);
  /// Emits `body` unconditionally when `conds` is empty, else under their conjunction.
  void whenAll(llvm::ArrayRef<mlir::Value> conds, llvm::function_ref<void(mlir::OpBuilder &, mlir::Location)> body);
  /// The same, with `body` emitting through this emitter's builder.
  void when(llvm::ArrayRef<mlir::Value> conds, llvm::function_ref<void()> body);
  /// Concatenates 1-D vectors of one element type.
  mlir::Value concat(llvm::ArrayRef<mlir::Value> parts);

  /// Reads the tile at `origin` of `source` (elements outside it read 0).
  /// With `rows` (a per-thread i32 vector of the same layout), each chunk
  /// reads the row its first slot names instead of origin[0] + its row, and
  /// reads zero when that row is negative or past the end (tile.gather_rows).
  mlir::Value load(mlir::Operation *op, mlir::Value source, mlir::ValueRange origin, const BlockedLayout &l,
                   mlir::Type elt, mlir::Value rows = nullptr);
  /// Writes a blocked per-thread vector at `origin` of `dest` (masked at edges).
  void store(mlir::Operation *op, mlir::Value value, mlir::Value dest, mlir::ValueRange origin,
             const BlockedLayout &l);
  /// Starts copying the tile at `origin` of `source` into the whole shared
  /// buffer `dest` with cp.async (tile.copy {async}): each thread's chunks of
  /// layout `l` as 4-, 8- or 16-byte copies (16-byte ones bypass L1), zero-filled
  /// where a chunk lies outside the source. Emits nothing and returns false
  /// when a chunk cannot be such a copy (width, contiguity or alignment; with
  /// remarks, says why); the caller then copies synchronously.
  bool asyncCopy(mlir::Operation *op, mlir::Value source, mlir::ValueRange origin, mlir::Value dest,
                 const BlockedLayout &l, mlir::Type elt);
  /// tile.copy {async} signalling mbarrier `slot` of `barriers` (bulk engine):
  /// thread t issues a cp.async.bulk for rows t, t + threads, ... of the 2-D
  /// tile and zero-fills rows past the source; thread 0 arrives expecting the
  /// copied bytes. False (nothing emitted; with remarks, why) when the rows
  /// are not whole 16-byte multiples, contiguous and aligned.
  bool bulkCopy(mlir::Operation *op, mlir::Value source, mlir::ValueRange origin, mlir::Value dest,
                mlir::Value barriers, mlir::Value slot, int64_t threads);
  /// tile.init_barriers: thread 0 initializes each i64 of `barriers` as an
  /// mbarrier of `count` arrivals, then the block synchronizes.
  void initBarriers(mlir::Value barriers, int64_t count);
  /// Thread 0 arrives on mbarrier `slot` of `barriers`, expecting `bytes`
  /// (i32) of bulk-copy transactions.
  void arriveExpecting(mlir::Value barriers, mlir::Value slot, mlir::Value bytes);
  /// tile.wait_barrier: every thread waits for the phase of `parity`.
  void waitBarrier(mlir::Value barriers, mlir::Value slot, mlir::Value parity);
  /// The address of element `coords` of `mem` as an LLVM pointer in
  /// `addressSpace` (3: shared; 1: global, from a generic address).
  mlir::Value elementPointer(mlir::Value mem, mlir::ValueRange coords, unsigned addressSpace);
  /// warp * 32 + lane.
  mlir::Value threadIndex();
  /// Reads a fragment laid out like a reduction's result: each thread reads the
  /// element of each of its groups (threads of one group read the same one).
  /// With `inner`: a reduction of a reduction, held as `g` over the root
  /// layout; its coordinates along inner->dim count inner groups.
  mlir::Value loadReduced(mlir::Value source, mlir::ValueRange origin, const GroupedReduction &g, mlir::Type elt,
                          const GroupedReduction *inner = nullptr, int64_t splitLast = 0, mlir::Value rows = nullptr);
  /// Writes a reduced per-thread vector: one thread of each group stores it
  /// (with `inner`: the one holding the first element of the inner group).
  /// With `splitLast` n > 0, dest has one more dimension and the last
  /// coordinate c goes to (c / n, c % n) (see tile.store's split_last).
  /// With `atomicAdd` that thread adds the value atomically (memref.atomic_rmw).
  void storeReduced(mlir::Value value, mlir::Value dest, mlir::ValueRange origin, const GroupedReduction &g,
                    const GroupedReduction *inner = nullptr, int64_t splitLast = 0, bool atomicAdd = false);
  /// Expands a reduction of a reduction (held as `outer` over the root) along
  /// outer's dimension: the per-thread vector of the first reduction `inner`.
  mlir::Value regroup(mlir::Value nested, const GroupedReduction &outer, const GroupedReduction &inner);

  /// Reduces the groups of `g`. With `inner` (a reduction of a reduction:
  /// `input` is the first one's result expanded back to the root layout), the
  /// slots of one inner group are reduced once and the result copied.
  mlir::Value reduce(tile::ReduceKind kind, mlir::Value input, const GroupedReduction &g,
                     const GroupedReduction *inner = nullptr);
  /// Block totals (tile.grid results, BlockTotals.cpp): the sum of the
  /// thread's slots of blocked vector `input` inside the tile, in `type`
  /// (integers summed in their own type, then sign-extended; floats
  /// extended per element).
  mlir::Value threadTotal(mlir::Value input, const BlockedLayout &l, mlir::Type type);
  /// The sum of every thread's 32- or 64-bit `partial` over the block's
  /// `numWarps` warps, the same on every thread (one barrier).
  mlir::Value blockTotal(mlir::Value partial, int64_t numWarps);
  /// Swaps the last two dimensions through a shared-memory buffer, swizzled
  /// or with padded rows (SharedTranspose.cpp).
  mlir::Value transpose(mlir::Operation *op, mlir::Value input, const BlockedLayout &in, const BlockedLayout &out,
                        mlir::Type elt);
  mlir::Value expand(mlir::Value reduced, const GroupedReduction &g);
  /// tile.relayout of per-thread vector `value` through shared memory
  /// (Relayout.cpp). `scratch`: the kernel's relayout buffer, made on first
  /// use and sized for the kernel's largest relayout.
  mlir::FailureOr<mlir::Value> relayout(tile::RelayoutOp op, mlir::Value value, mlir::Value &scratch);
  /// tile.e2m1_to_e4m3 on per-thread vectors: `codes` (i8, two per byte) and
  /// `shifts` (i32, one per value) to e4m3 codes (i8), by table lookup
  /// (E2M1ToE4M3.cpp).
  mlir::Value e2m1ToE4M3(mlir::Value codes, mlir::Value shifts);
  /// A tile.parallel on per-thread vectors of `slots` elements. Slots whose
  /// inputs come from the same source elements (expansions) are computed once.
  mlir::FailureOr<mlir::Value> parallel(tile::ParallelOp op, llvm::ArrayRef<mlir::Value> inputs, int64_t slots);
  mlir::FailureOr<mlir::Value> convert(tile::ConvertOp op, mlir::Value input);
  /// A tile.parallel on a reduced fragment replicated over its groups' lanes,
  /// with those lanes splitting the slots and exchanging the results by
  /// shuffles (SplitReplicatedWork.cpp). A null value (nothing emitted) when
  /// that does not pay: a cheap body, one slot, groups across warps.
  mlir::FailureOr<mlir::Value> parallelSplitOverGroup(tile::ParallelOp op, llvm::ArrayRef<mlir::Value> inputs,
                                                      const GroupedReduction &g);

private:
  /// The body of `op` on every one of `slots` slots.
  mlir::FailureOr<mlir::Value> parallelSlots(tile::ParallelOp op, llvm::ArrayRef<mlir::Value> inputs, int64_t slots);
  struct AccessPlan {
    bool vectorized;   ///< whole chunks of vec[last] elements per access
    int64_t chunk;     ///< elements per access
    int64_t alignment; ///< bytes the access may assume
  };
  /// How wide the accesses of `op` can be, and (with remarks, unless
  /// `quiet`) why not wider.
  /// The multiple promised for dimension `dim` of `mem` (1 if none).
  int64_t dimMultiple(mlir::Value mem, int64_t dim) const;
  AccessPlan planAccess(mlir::Operation *op, mlir::Value mem, mlir::ValueRange origin, const BlockedLayout &l,
                        mlir::Type elt, bool quiet = false);
  llvm::DenseMap<std::pair<mlir::Attribute, int64_t>, mlir::Value> threadCoordCache;
  /// The size of `mem` along `d` (a constant when static).
  mlir::Value extentOf(mlir::Value mem, int64_t d);
  /// Coordinates in `mem` of reduced slot `slot` (one group of the thread) and
  /// its in-tile and in-tensor conditions.
  /// With `inner`, the coordinate along inner->dim is the inner group's, and
  /// `innerFirst` (when given) receives "first element of that group".
  void reducedSlotAccess(mlir::Value mem, mlir::ValueRange origin, const GroupedReduction &g, int64_t slot,
                         llvm::SmallVectorImpl<mlir::Value> &coords, llvm::SmallVectorImpl<mlir::Value> &conds,
                         const GroupedReduction *inner = nullptr,
                         llvm::SmallVectorImpl<mlir::Value> *innerFirst = nullptr, int64_t splitLast = 0,
                         mlir::Value row = nullptr);
  /// The coordinates of the chunk at `pos` of layout `l`: in the tile
  /// (`inTile`) and in the memref, from `origin` (`coords`).
  void chunkCoords(const BlockedLayout &l, const BlockedLayout::SlotPos &pos, mlir::ValueRange origin,
                   llvm::SmallVectorImpl<mlir::Value> &coords, llvm::SmallVectorImpl<mlir::Value> &inTile);
  /// True when `v` is statically known to be a multiple of `m`.
  bool isMultipleOf(mlir::Value v, int64_t m);
  /// Per dimension, the in-bounds condition that every chunk of a tile at
  /// `origin` shares: `origin < extent` where the tile lies inside one
  /// stretch of c elements, c dividing both the origin and the extent (see
  /// tileInOneStretch); null where each chunk needs its own. Made once per
  /// access, before its chunks.
  llvm::SmallVector<mlir::Value> sharedBounds(mlir::Value mem, mlir::ValueRange origin, const BlockedLayout &l);
  /// In-bounds condition of the chunk of slot `pos` at `coords`; empty when
  /// always true. A dimension with a condition in `shared` (sharedBounds)
  /// takes it instead of its own.
  llvm::SmallVector<mlir::Value> bounds(mlir::Value mem, llvm::ArrayRef<mlir::Value> coords,
                                        const BlockedLayout &l, const BlockedLayout::SlotPos &pos,
                                        llvm::ArrayRef<mlir::Value> inTileCoords, llvm::ArrayRef<mlir::Value> shared = {});
  /// True when some c >= `tileSize` (the tile's size along `d`) divides both
  /// `origin` and the extent of `mem` along `d` (its static size or promised
  /// multiple): then origin + t < extent for every 0 <= t < c exactly when
  /// origin < extent.
  bool tileInOneStretch(mlir::Value mem, int64_t d, mlir::Value origin, int64_t tileSize);
  int64_t accessAlignment(mlir::Value mem, int64_t chunkBytes);
};

/// Where slot `slot` of per-thread vector `v` comes from, looking through
/// expansions (shuffles of one vector, broadcasts of a scalar): that source
/// and the slot there. Slots with the same source hold the same value.
std::pair<mlir::Value, int64_t> slotSource(mlir::Value v, int64_t slot);

/// The neutral element of a reduction kind for element type `t`.
mlir::Value reduceIdentity(mlir::OpBuilder &b, mlir::Location loc, tile::ReduceKind kind, mlir::Type t);
/// One combining step of a reduction (max/absmax/min ignore NaN like fmax).
mlir::Value reduceCombine(mlir::OpBuilder &b, mlir::Location loc, tile::ReduceKind kind, mlir::Value a,
                          mlir::Value c);
/// |v| by clearing the sign bit (exact; math.absf would become a libdevice call on the GPU).
mlir::Value absoluteValue(mlir::OpBuilder &b, mlir::Location loc, mlir::Value v);

/// source[index] for a scalar or vector of i32 indices into a 1-D memref, zero
/// where an index is negative or past the end (one guarded scalar load each).
mlir::Value emitGather(mlir::OpBuilder &b, mlir::Location loc, mlir::Value source, mlir::Value index,
                       mlir::Type elementType);

/// dest[index] = value for a scalar i32 index into a 1-D memref, skipped when
/// the index is negative or past the end.
void emitScatter(mlir::OpBuilder &b, mlir::Location loc, mlir::Value dest, mlir::Value index, mlir::Value value);

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
/// e^x for f32 x (scalar or vector) as CUDA's accurate device expf (DeviceMath.cpp).
mlir::Value emitDeviceExp(mlir::OpBuilder &b, mlir::Location loc, mlir::Value x);
/// f32 -> f8E4M3FN codes (as i8), round to nearest even, saturating, NaN -> 0x7F.
/// `hardware` uses the sm_89+ cvt instruction on pairs; otherwise integer arithmetic.
mlir::Value emitF32ToE4M3(mlir::OpBuilder &b, mlir::Location loc, mlir::Value f32Vector, bool hardware);
/// E2M1 codes (i32 0..15) of f32 values, scalar or vector (see tile.pack_e2m1).
mlir::Value emitE2M1Code(mlir::OpBuilder &b, mlir::Location loc, mlir::Value f32Value);
/// A per-thread vector of 2n f32 -> n bytes, element 2i in the low nibble.
mlir::Value emitPackE2M1(mlir::OpBuilder &b, mlir::Location loc, mlir::Value f32Vector);
/// f32 values of E2M1 codes (i32 0..15), scalar or vector.
mlir::Value emitE2M1Decode(mlir::OpBuilder &b, mlir::Location loc, mlir::Value codes);
/// A per-thread vector of n bytes (two E2M1 codes each) -> 2n f32 values.
mlir::Value emitUnpackE2M1(mlir::OpBuilder &b, mlir::Location loc, mlir::Value bytes);
/// 2^shift as an f32 (scalar i32 shift), the shift clamped to f32's normal
/// exponents [-126, 127] (tile.e2m1_to_e4m3: beyond them every FP4 value
/// times the power encodes as 0 or +-448 either way).
mlir::Value emitPowerOfTwo(mlir::OpBuilder &b, mlir::Location loc, mlir::Value shift);
/// E5M6 codes (i32, 12 bits) of f32 values, scalar or vector (tile.pack_e5m6).
mlir::Value emitE5M6Code(mlir::OpBuilder &b, mlir::Location loc, mlir::Value f32Value);
/// A per-thread vector of 8n f32 -> 12n bytes (8 codes in 3 little-endian words).
/// `hardware` takes step 1 (the fp16 bits rounded toward zero) from the
/// sm_80+ cvt.rz.f16x2.f32 on pairs; otherwise integer arithmetic. The two
/// agree on every finite value (quant.md 2.4; NaN inputs are unsupported).
mlir::Value emitPackE5M6(mlir::OpBuilder &b, mlir::Location loc, mlir::Value f32Vector, bool hardware = false);
/// The 8 E5M6 codes (i32, 12 bits) of 3 little-endian i32 words (tile.unpack_e5m6).
void emitE5M6CodesOfWords(mlir::OpBuilder &b, mlir::Location loc, const mlir::Value words[3], mlir::Value codes[8]);
/// f32 values of E5M6 codes (i32, scalar or vector): the codes are the top 12
/// bits of fp16 values, decoded exactly. `hardware` widens through f16 (one
/// cvt per element on the GPU); otherwise integer arithmetic (no f16 library
/// calls on the CPU).
mlir::Value emitE5M6Decode(mlir::OpBuilder &b, mlir::Location loc, mlir::Value codes, bool hardware);
/// A per-thread vector of 12n bytes -> 8n f32 values (inverse of emitPackE5M6).
mlir::Value emitUnpackE5M6(mlir::OpBuilder &b, mlir::Location loc, mlir::Value bytes);
/// The 32-bit words of an f32 vector of even length converted pairwise to
/// `halfType` (f16 or bf16; sm_80+ cvt.{rn,rz}.{f16x2,bf16x2}.f32), element
/// 2p in the low half of word p, 2p + 1 in the high half: HalfPairs.cpp.
mlir::Value emitHalfPairWords(mlir::OpBuilder &b, mlir::Location loc, mlir::Value f32Vector, mlir::Type halfType,
                              bool towardZero);
/// f32 -> bf16 (round to nearest even) of a per-thread vector of even length,
/// on pairs.
mlir::Value emitF32PairsToBf16(mlir::OpBuilder &b, mlir::Location loc, mlir::Value f32Vector);
/// f8E4M3FN codes (i8, scalar or vector) -> f32, exact; NaN codes give NaN.
/// `hardware` (vectors only) uses the sm_89+ cvt on pairs; otherwise integer arithmetic.
mlir::Value emitE4M3ToF32(mlir::OpBuilder &b, mlir::Location loc, mlir::Value codes, bool hardware);

} // namespace tk::compiler
