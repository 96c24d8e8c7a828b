//===- ThreadEmitter.h - per-thread code for distributed fragments --------===//
//
// tile-lower-to-gpu turns every fragment into one vector per thread (its
// slots, see BlockedLayout.h). KernelState is what the lowering knows of one
// kernel while its ops are converted; a ThreadEmitter, made for each op a
// pattern lowers, emits that op's per-thread code through the pattern's
// rewriter.
//===----------------------------------------------------------------------===//
#pragma once

#include <optional>

#include "tk/compiler/Dialect/Tile/Tile.h"
#include "tk/compiler/Conversion/FloatEncoding.h"
#include "tk/compiler/Conversion/ScalarMath.h"
#include "tk/compiler/Layout/BlockedLayout.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/DenseMap.h"

namespace tk::compiler {

/// What lane, warp and the thread coordinates of layouts derive from: the
/// thread index read at the kernel's entry, or again at the top of a loop
/// body (the schedule's reread_thread_index).
struct ThreadIndexScope {
  mlir::Value lane, warp;
  /// Per layout (printed) and dimension, the thread's first coordinate,
  /// computed once, right after `warp`.
  llvm::DenseMap<std::pair<mlir::Attribute, int64_t>, mlir::Value> coords;
};

/// What tile-lower-to-gpu knows of one kernel (a gpu.func) while its ops
/// are converted.
struct KernelState {
  mlir::gpu::GPUFuncOp func;
  mlir::Location loc;
  int64_t threads = 32, numWarps = 1;
  bool fp8Hardware = true;
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
  /// tile.dot ops marked warpgroup may run as wgmma (sm_90a).
  bool warpgroupMma = false;
  ThreadIndexScope entry;
  /// Loop bodies that read the thread index again (the schedule's reread_thread_index).
  llvm::DenseMap<mlir::Block *, ThreadIndexScope> loopScopes;
  /// The bytes every tile.relayout of the kernel uses (each is done with
  /// them before the next starts): the largest; its buffer, made on first use.
  int64_t relayoutBytes = 0;
  mlir::Value relayoutScratch;
  /// Set when a pattern reported an error (the pass then fails).
  bool failed = false;

  KernelState(mlir::gpu::GPUFuncOp func, mlir::Location loc) : func(func), loc(loc) {}
  /// The scope of code inserted into `block`: its innermost enclosing loop
  /// body with a scope of its own, else the kernel's entry.
  ThreadIndexScope &scopeAt(mlir::Block *block);
};

/// The per-thread code generator of one op.
struct ThreadEmitter {
  mlir::OpBuilder &b;
  KernelState &state;
  mlir::Location loc;
  mlir::gpu::GPUFuncOp func;
  bool fp8Hardware;
  ThreadIndexScope &scope;
  mlir::Value &lane, &warp;
  llvm::DenseMap<mlir::Value, int64_t> &alignment;
  llvm::DenseMap<mlir::Value, llvm::SmallVector<int64_t>> &dimMultiples;
  llvm::DenseMap<mlir::Value, std::pair<mlir::Value, int64_t>> &blockIndexTiles;
  bool remarks, swizzle;
  int64_t swizzleBytes;

  /// Emits at `b`'s insertion point, in the thread index scope there.
  ThreadEmitter(mlir::OpBuilder &b, KernelState &state)
      : b(b), state(state), loc(state.loc), func(state.func), fp8Hardware(state.fp8Hardware),
        scope(state.scopeAt(b.getInsertionBlock())), lane(scope.lane), warp(scope.warp), alignment(state.alignment),
        dimMultiples(state.dimMultiples), blockIndexTiles(state.blockIndexTiles), remarks(state.remarks),
        swizzle(state.swizzle), swizzleBytes(state.swizzleBytes), threadCoordCache(scope.coords) {}

  /// lane = tid % 32, warp = tid / 32, emitted at `b`'s insertion point.
  static ThreadIndexScope threadIndexScope(mlir::OpBuilder &b, mlir::Location loc, mlir::Value tid);
  /// The same from the thread index read again, through an instruction
  /// LLVM does not move: at the top of a loop body this keeps per-thread
  /// address arithmetic inside the loop (LLVM's loop-invariant code motion
  /// would hoist it and hold every address in registers across the body).
  static ThreadIndexScope rereadThreadIndex(mlir::OpBuilder &b, mlir::Location loc);

  mlir::Value index(int64_t v);
  /// Whether `origin` (a tile's start along dimension `d` of `mem`) is
  /// provably below that dimension's extent: a block index times c whose
  /// grid extent is ceil(extent / c) (blockIndexTiles).
  bool originInside(mlir::Value mem, int64_t d, mlir::Value origin);
  /// A block-wide shared-memory buffer (a workgroup attribution of the
  /// kernel), 16-byte aligned, located at `where` (the op that asked for it;
  /// the emitter's location by default): errors about shared memory name it.
  mlir::Value sharedBuffer(mlir::MemRefType type, std::optional<mlir::Location> where = std::nullopt);
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
  /// With `skipOutside`, such a chunk is not read (a branch) instead of read
  /// at a clamped address.
  mlir::Value load(mlir::Operation *op, mlir::Value source, mlir::ValueRange origin, const BlockedLayout &l,
                   mlir::Type elt, mlir::Value rows = nullptr, bool skipOutside = false);
  /// Writes a blocked per-thread vector at `origin` of `dest` (masked at edges).
  /// With `rows`, each chunk goes to the row its first slot names, and
  /// nowhere when that row is negative or past the end (tile.scatter_rows).
  /// With `mask` (an integer per-thread vector of the same layout), element
  /// by element, only where the mask is nonzero (tile.store's mask).
  void store(mlir::Operation *op, mlir::Value value, mlir::Value dest, mlir::ValueRange origin, const BlockedLayout &l,
             mlir::Value rows = nullptr, mlir::Value mask = nullptr);
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
  /// The same address as an i64 (a shared memref's: its offset in the shared window).
  mlir::Value elementAddress(mlir::Value mem, mlir::ValueRange coords);
  /// warp * 32 + lane.
  mlir::Value threadIndex();
  /// Reads a fragment laid out like a reduction's result: each thread reads the
  /// element of each of its groups (threads of one group read the same one).
  /// With `inner`: a reduction of a reduction, held as `g` over the root
  /// layout; its coordinates along inner->dim count inner groups.
  mlir::Value loadReduced(mlir::Value source, mlir::ValueRange origin, const GroupedReduction &g, mlir::Type elt,
                          const GroupedReduction *inner = nullptr, int64_t splitLast = 0, mlir::Value rows = nullptr);
  /// Whether this thread writes its reduced slots of `g`: the one at in-group
  /// position zero (null where each group lies in one thread: all do).
  mlir::Value groupLeader(const GroupedReduction &g);
  /// Writes a reduced per-thread vector: one thread of each group stores it
  /// (with `inner`: the one holding the first element of the inner group).
  /// With `splitLast` n > 0, dest has one more dimension and the last
  /// coordinate c goes to (c / n, c % n) (see tile.store's split_last).
  /// With `atomicAdd` that thread adds the value atomically (memref.atomic_rmw).
  /// With `mask`, only the elements whose mask is nonzero.
  void storeReduced(mlir::Value value, mlir::Value dest, mlir::ValueRange origin, const GroupedReduction &g,
                    const GroupedReduction *inner = nullptr, int64_t splitLast = 0, bool atomicAdd = false,
                    mlir::Value mask = nullptr);
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
  /// tile.dot on tensor cores (MmaDot.cpp): `lhs`, `rhs` in layouts `la`,
  /// `lb`, the accumulator `acc` (may be null) and the result in `lc`.
  /// Through shared memory, or from registers where there is an accumulator
  /// and `la` and `lc` are mma.sync's fragment layouts (MmaLayouts.h).
  mlir::Value dot(tile::DotOp op, mlir::Value lhs, mlir::Value rhs, mlir::Value acc, const BlockedLayout &la,
                  const BlockedLayout &lb, const BlockedLayout &lc);
  /// The register form (MmaRegisters.cpp): only the rhs is staged; `acc` is not null.
  mlir::Value dotInRegisters(tile::DotOp op, mlir::Value lhs, mlir::Value rhs, mlir::Value acc, const BlockedLayout &la,
                             const BlockedLayout &lb, const BlockedLayout &lc);
  /// The register form issued as wgmma by warpgroups, the rhs read by the tensor core (MmaWarpgroup.cpp).
  mlir::Value dotOnWarpgroups(tile::DotOp op, mlir::Value lhs, mlir::Value rhs, mlir::Value acc,
                              const BlockedLayout &la, const BlockedLayout &lb, const BlockedLayout &lc);
  mlir::Value expand(mlir::Value reduced, const GroupedReduction &g);
  /// tile.relayout of per-thread vector `value` through shared memory
  /// (Relayout.cpp), in the kernel's relayout buffer (KernelState).
  mlir::FailureOr<mlir::Value> relayout(tile::RelayoutOp op, mlir::Value value);
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
  llvm::DenseMap<std::pair<mlir::Attribute, int64_t>, mlir::Value> &threadCoordCache;
  /// The size of `mem` along `d` (a constant when static).
  mlir::Value extentOf(mlir::Value mem, int64_t d);
  /// Coordinates in `mem` of reduced slot `slot` (one group of the thread) and
  /// its in-tile and in-tensor conditions.
  /// With `inner`, the coordinate along inner->dim is the inner group's, and
  /// `innerFirst` (when given) receives "first element of that group".
  /// `everyReplica` (loads): every thread position of a group spanning the whole padded dimension, the padding
  /// ones too, addresses the group's element, as the reduction leaves its value on all of them.
  void reducedSlotAccess(mlir::Value mem, mlir::ValueRange origin, const GroupedReduction &g, int64_t slot,
                         llvm::SmallVectorImpl<mlir::Value> &coords, llvm::SmallVectorImpl<mlir::Value> &conds,
                         const GroupedReduction *inner = nullptr,
                         llvm::SmallVectorImpl<mlir::Value> *innerFirst = nullptr, int64_t splitLast = 0,
                         mlir::Value row = nullptr, bool everyReplica = false);
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

/// The bytes a tile.relayout of fragment type `t` moves through shared memory.
int64_t relayoutBytes(tile::FragmentType t);

/// Where slot `slot` of per-thread vector `v` comes from, looking through
/// expansions (shuffles of one vector, broadcasts of a scalar): that source
/// and the slot there. Slots with the same source hold the same value.
std::pair<mlir::Value, int64_t> slotSource(mlir::Value v, int64_t slot);

/// An xor shuffle over the warp's lanes of a 32- or 64-bit value (64-bit
/// ones as two 32-bit halves: shfl moves 32 bits).
mlir::Value shuffleXor(mlir::OpBuilder &b, mlir::Location loc, mlir::Value v, int32_t mask);

} // namespace tk::compiler
