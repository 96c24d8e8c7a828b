//===- KernelBuilder.h - write a tile kernel in C++ ------------------------===//
//
//   KernelBuilder k(ctx, "scale_rows", /*threads=*/128);
//   Dim rows = k.dynamic("rows");
//   Tensor x = k.input("x", {rows, 1024}, DType::BF16);
//   Tensor y = k.output("y", {rows, 1024}, DType::F32);
//   k.grid({ceil_div(rows, 4)}, [&](std::vector<Index> b) {
//     Tile t = k.load(x, {b[0] * 4, k.index(0)}, {4, 1024}).to(DType::F32);
//     k.store(y, {b[0] * 4, k.index(0)}, t * 2.0);
//   });
//   BuiltKernel kernel = k.finish();
//===----------------------------------------------------------------------===//
#pragma once

#include "tk/compiler/BuiltKernel.h"
#include "tk/dsl/Signature.h"
#include "tk/dsl/Values.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

#include <map>
#include <string>

namespace tk::dsl {

/// A kernel in tile IR plus what the launcher needs to know about it. The
/// runtime names compiled kernels by a hash of this IR, never by a string.
using BuiltKernel = compiler::BuiltKernel;

class KernelBuilder {
public:
  KernelBuilder(mlir::MLIRContext &ctx, const std::string &name, int64_t threads = 128);

  /// A size known only at launch; bound from the first tensor that uses it.
  Dim dynamic(const std::string &name);
  /// The same, promised to be a multiple of `multipleOf` (the launcher
  /// rejects other sizes): accesses along a dynamic last dimension may then
  /// use chunks of up to that many elements, which cannot straddle its end.
  Dim dynamic(const std::string &name, int64_t multipleOf);
  /// Global tensor arguments. Strides default to row-major contiguous; pass
  /// kDynamicStride for strides chosen at launch. `alignBytes` is the
  /// alignment the kernel may assume for the pointer and dynamic strides.
  Tensor input(const std::string &name, std::vector<Dim> shape, DType dtype, std::vector<int64_t> strides = {},
               int64_t alignBytes = 16);
  /// A scalar argument (I32, I64 or F32), declared after every tensor: a
  /// value per launch (a rank, a count), not part of the kernel's cache key.
  Uniform scalarInput(const std::string &name, DType dtype);
  Tensor output(const std::string &name, std::vector<Dim> shape, DType dtype, std::vector<int64_t> strides = {},
                int64_t alignBytes = 16);

  /// Caps each thread's contiguous global access at `bytes` (4, 8 or 16),
  /// below the target's widest (16 bytes on sm_90a): a thread then holds
  /// fewer values along the last dimension and more lanes span it, e.g. so
  /// that a reduction down the columns needs fewer shuffles. Call before grid().
  void maxAccessBytes(int64_t bytes);
  /// Loops over tile ops (pipelines, persistent grids) read the thread index
  /// again at the top of each iteration, so that their per-thread addresses
  /// are computed inside the loop rather than hoisted out of it by LLVM and
  /// held in registers across the whole body: fewer registers, a few more
  /// instructions per iteration. Call before grid(). (On the H200: the
  /// transposed SwiGLU per-channel kernel 149 -> 118 registers, 456.5 ->
  /// 431.3 µs; the non-transposed b = 32 form 136 -> 123, but 365.5 -> 380.5.)
  void rereadThreadIndexInLoops();
  /// Launch bounds: ptxas keeps the registers per thread low enough for
  /// `blocks` (1 to 32) blocks of this kernel on an SM at once (PTX
  /// .minnctapersm), spilling if it must (`tk compile` reports spills).
  /// Call before grid().
  void minBlocksPerSm(int64_t blocks);
  /// The tensors this kernel only reads are read-only, unaliased memory on
  /// the GPU: they load through the non-coherent path (ld.global.nc), and
  /// LLVM may move their loads above the kernel's stores. Off by default
  /// (ptxas spills registers in some kernels when it schedules those loads;
  /// `tk compile` reports spills). Call before grid().
  void readOnlyLoads();
  /// Each thread holds `elements` consecutive values along the last
  /// dimension in default layouts (a power of two or a multiple of 8, up to
  /// 64), instead of the target's access width in the kernel's widest main
  /// element: e.g. 16 values where runs of 8 E5M6 codes pack into 12 bytes,
  /// so that each thread stores 24 contiguous bytes. Call before grid().
  void vectorElements(int64_t elements);
  /// Each thread holds `rows` consecutive rows (4, 8 or 16) of a fragment
  /// it transposes, instead of 4: its transposed writes to shared memory are
  /// `rows`-element vectors, and a warp spans `rows` / 4 times as many rows,
  /// so that a column reduction over that many rows stays inside one warp
  /// (no shared-memory exchange across warps). Call before grid().
  void transposeRowsPerThread(int64_t rows);
  /// Default layouts give warps to a tile's first dimension first: a tile of
  /// several rows (at least one per warp) puts each row in one warp, so that
  /// its reductions along the row are shuffles, with no shared memory and no
  /// barrier; without it a row spreads over all the block's warps. For
  /// kernels that handle a few short rows (tokens) per block. Reductions
  /// down the columns then cross warps (transposeRowsPerThread's promise
  /// does not hold with it). Call before grid().
  void warpsAlongRows();
  /// On sm_90 and newer this kernel may be launched while the kernel before
  /// it in the stream still runs (programmatic dependent launch), and waits
  /// for that kernel before any other work: its launch and its blocks' start
  /// overlap the last wave before it, its memory accesses never do. The
  /// kernel after it may launch once each of this kernel's blocks has
  /// started (`signalAtStart`) or only once each has ended. For the kernels
  /// of an operator of several short kernels (docs/design.md has what it
  /// gains and where it loses). Call before grid().
  void dependentLaunch(bool signalAtStart = true);

  /// The grid: one to three extents; `body` runs once per block with its indices.
  void grid(std::vector<Dim> sizes, const std::function<void(const std::vector<Index> &)> &body);
  /// A persistent grid: `body` runs once per tile of `sizes` as in grid(), but
  /// the launch has at most `blocksPerSm` blocks per SM, each looping over
  /// tiles (grid-stride). For dynamic work whose tile count varies per call.
  void persistentGrid(int64_t blocksPerSm, std::vector<Dim> sizes,
                      const std::function<void(const std::vector<Index> &)> &body);
  /// A grid whose body also returns tiles to total (tile.grid with results):
  /// total i is the sum of every element of the body's tile i over the tiles
  /// a block ran, in `types[i]` (integers or floats, at least as wide as the
  /// tile's elements). With `blocksPerSm` > 0 the grid is persistent and a
  /// block carries its threads' partial sums in registers from tile to tile,
  /// combining them across threads once, after its last tile. Code after the
  /// grid runs once per block: atomicAdd(tensor, origin, total) adds a total
  /// where it belongs (a counter costs one atomic per block, not per tile).
  std::vector<Total> gridWithTotals(int64_t blocksPerSm, std::vector<Dim> sizes, const std::vector<DType> &types,
                                    const std::function<std::vector<Tile>(const std::vector<Index> &)> &body);

  Index index(int64_t value);
  Index index(const Dim &dim);
  /// Loads the tile of `shape` at `origin` (elements outside the tensor read as zero).
  /// With `splitLast` n > 0 the tensor has one more dimension and element c
  /// of the tile's last dimension is read at (c / n, c % n).
  Tile load(const Tensor &t, const std::vector<Index> &origin, const std::vector<int64_t> &shape,
            int64_t splitLast = 0, SourceLine where = SourceLine::here());
  /// Adds a tile's elements atomically into `t` at `origin` (tile.store
  /// atomic_add): each element once. The tile must come from reductions
  /// (e.g. a [1, 1] total of a block), which the GPU lowering requires.
  void atomicAdd(const Tensor &t, const std::vector<Index> &origin, const Tile &value);
  /// Adds a block total to one element of `t`, once per block (tile.atomic_add),
  /// after gridWithTotals.
  void atomicAdd(const Tensor &t, const std::vector<Index> &origin, const Total &value);
  /// The [m, n] tile whose row i is row rows[i] of the 2-D tensor `t`, from
  /// column `col` (tile.gather_rows): zero for a negative row. `rows` is an
  /// i32 [m, 1] tile.
  /// With `skipOutside`, rows outside are not read at all (a branch per
  /// chunk) instead of read at a clamped address: for rows mostly negative,
  /// such as a token's unused MoE slots.
  Tile gatherRows(const Tensor &t, const Tile &rows, const Index &col, int64_t n, bool skipOutside = false);
  /// t[index[i...]] = value[i...] for every element (tile.scatter), nothing
  /// where the index is negative or past the end: e.g. a block's reduced
  /// total at its destination, or inverse position tables.
  void scatter(const Tensor &t, const Tile &index, const Tile &value);
  /// t[index[i...]] += value[i...] with integer atomics (tile.scatter {add}):
  /// histograms, the same whatever the order of the blocks.
  void scatterAdd(const Tensor &t, const Tile &index, const Tile &value);
  /// buf[index[i...]] = value[i...] into a 1-D shared buffer (nothing where
  /// the index is negative or past the end): e.g. a block's ids kept for a
  /// second pass over them (barrier() before reading them).
  void scatter(const Shared &buf, const Tile &index, const Tile &value);
  /// The same into a 1-D shared buffer, with shared-memory atomics: a block's
  /// private histogram (between barrier()s), added to a tensor afterwards.
  void scatterAdd(const Shared &buf, const Tile &index, const Tile &value);
  /// Row i of `value` ([m, n]) stored at row rows[i] of the 2-D tensor t,
  /// columns [col, col + n) (tile.scatter_rows): nothing for a negative row
  /// or one past the end. `rows` is an i32 [m, 1] tile.
  void scatterRows(const Tensor &t, const Tile &rows, const Index &col, const Tile &value);
  /// Reads the 1-D tensor `t` at the positions of the i32 tile `index`
  /// (tile.gather): zero where an index is negative or past the end.
  Tile gather(const Tensor &t, const Tile &index);
  /// The same from a 1-D shared buffer (e.g. per-key cursors a block moves
  /// with scatterAdd; barrier() between the two).
  Tile gather(const Shared &buf, const Tile &index);
  /// The tile of `shape` whose elements are their coordinates along `dim`
  /// (tile.iota), as i32 or i64.
  Tile iota(const std::vector<int64_t> &shape, int64_t dim, DType dtype = DType::I32);
  /// A shared-memory buffer of `shape` for the block (tile.alloc). A block
  /// may have as much as its target allows (227 KB on sm_90a); past 48 KB
  /// the compiler places the buffers in dynamic shared memory.
  Shared shared(const std::vector<int64_t> &shape, DType dtype, SourceLine where = SourceLine::here());
  /// Copies the tile of `t` at `origin` with the buffer's shape into `buf`
  /// (tile.copy; zero outside the tensor). Outside a pipeline it is complete
  /// for every thread when it returns; in a pipeline() body it is the stage
  /// that runs ahead.
  void copy(const Tensor &t, const std::vector<Index> &origin, const Shared &buf);
  /// Reads the tile of `shape` at `origin` of a shared buffer.
  Tile load(const Shared &buf, const std::vector<Index> &origin, const std::vector<int64_t> &shape);
  /// A loop over i = lb .. ub - 1 whose copy() calls (first in the body, into
  /// buffers made outside it) run `stages - 1` iterations ahead of the rest:
  /// tile.pipeline, software-pipelined by tile-pipeline-copies with `stages`
  /// versions of each buffer and cp.async. The copies' origins may depend on
  /// `i` and on values made outside the loop only.
  void pipeline(const Index &lb, const Index &ub, int64_t stages, const std::function<void(const Index &)> &body);
  /// The same pipeline carrying tiles from one iteration to the next, as
  /// loop() below does: `body` gets i and the carried tiles and returns
  /// their next values; returns them after the last iteration. The copies'
  /// origins may not depend on the carried tiles.
  std::vector<Tile> pipeline(const Index &lb, const Index &ub, int64_t stages, const std::vector<Tile> &init,
                             const std::function<std::vector<Tile>(const Index &, const std::vector<Tile> &)> &body,
                             SourceLine where = SourceLine::here());
  /// A loop over i = lb .. ub - 1 that carries tiles from one iteration to
  /// the next (scf.for with fragment iter_args): `body` gets i and the
  /// carried tiles and returns their next values (same shapes and element
  /// types). Returns the carried tiles after the last iteration (`init` when
  /// it runs none). Each thread keeps its elements in registers throughout:
  /// accumulate per-thread partials in the loop, reduce once after it.
  std::vector<Tile> loop(const Index &lb, const Index &ub, const std::vector<Tile> &init,
                         const std::function<std::vector<Tile>(const Index &, const std::vector<Tile> &)> &body,
                         SourceLine where = SourceLine::here());
  /// The carried tiles, or what `body` returns in their place where the
  /// one-element i32 tile `cond` is nonzero: a branch (scf.if) the whole
  /// block takes or skips together, since every thread reads the same value
  /// (tile.to_scalar). E.g. a token's slot that names no row skips its loads
  /// and arithmetic instead of computing zeros.
  std::vector<Tile> when(const Tile &cond, const std::vector<Tile> &carried,
                         const std::function<std::vector<Tile>(const std::vector<Tile> &)> &body,
                         SourceLine where = SourceLine::here());
  /// A tile of `shape` whose elements are all `value` (an accumulator's
  /// start), as f32, i32 or i64.
  Tile full(const std::vector<int64_t> &shape, double value, DType dtype = DType::F32);
  /// Stores a tile at `origin`; elements outside the tensor are dropped (a
  /// tile wider than a static dimension of the tensor is an error: it could
  /// only ever drop elements).
  /// With `splitLast` n > 0 the tensor has one more dimension and the tile's
  /// last coordinate c is stored at (c / n, c % n) (tile.store split_last).
  void store(const Tensor &t, const std::vector<Index> &origin, const Tile &value, int64_t splitLast = 0,
             SourceLine where = SourceLine::here());
  /// Stores only the elements of `value` whose `mask` element (an integer
  /// tile of the same shape) is nonzero; the others, and elements outside the
  /// tensor, are left as they are (tile.store with a mask). One scalar store
  /// each: for writes that are rare among a tile's elements (an in-place
  /// update of a few ids), where writing every element would cost more.
  void storeWhere(const Tensor &t, const std::vector<Index> &origin, const Tile &value, const Tile &mask,
                  SourceLine where = SourceLine::here());
  /// Lets every store() of this kernel be padded as storePadded() is: for
  /// kernels whose schedules size tiles independently of a small static
  /// dimension (a 128-column block over K = 64).
  void allowPaddedStores() { paddedStores_ = true; }
  /// Stores a tile padded past a static dimension of the tensor (e.g. 15
  /// columns held as 16, a power of two): the elements inside the tensor are
  /// written, the padding is not. The explicit form of what store() refuses.
  void storePadded(const Tensor &t, const std::vector<Index> &origin, const Tile &value,
                   SourceLine where = SourceLine::here());

  /// Stores a tile into a shared buffer at `origin` (e.g. zeroing a histogram).
  void store(const Shared &buf, const std::vector<Index> &origin, const Tile &value);
  /// Waits until every thread of the block has reached it, with their
  /// shared-memory accesses before it done (tile.barrier): between writing a
  /// shared buffer and reading what other threads wrote.
  void barrier();

  /// Verifies the kernel and hands it over.
  BuiltKernel finish();

  mlir::OpBuilder &opBuilder() { return b_; }
  mlir::Location loc() const { return loc_; }
  /// While alive, the ops made carry `where` as their location and where()
  /// names it (an empty SourceLine keeps the enclosing one).
  class AtLine {
  public:
    AtLine(KernelBuilder &k, SourceLine where);
    ~AtLine();
    AtLine(const AtLine &) = delete;
    AtLine &operator=(const AtLine &) = delete;

  private:
    KernelBuilder &k_;
    mlir::Location savedLoc_;
    SourceLine savedLine_;
  };
  /// "file:line: " of the innermost DSL call being made (empty outside one):
  /// the prefix of the DSL's errors.
  std::string where() const;
  /// where() followed by "kernel 'NAME': ": how the DSL's errors begin.
  std::string errorPrefix() const { return where() + "kernel '" + kernelName() + "': "; }
  mlir::MLIRContext &context() { return ctx_; }
  const TensorParam &param(int arg) const { return signature_.tensors[arg]; }
  /// The kernel's name, for diagnostics.
  const std::string &kernelName() const { return signature_.name; }
  mlir::Value argument(int arg);

private:
  /// Throws invalid_argument when a tile of `shape` is wider than a static
  /// dimension of `t` (unless padded stores are allowed).
  void refuseCutStore(const Tensor &t, const std::vector<int64_t> &shape) const;
  /// Throws logic_error naming `setting` once grid() has been built.
  void requireBeforeGrid(const char *setting) const;
  Tensor addTensor(const std::string &name, std::vector<Dim> shape, DType dtype, std::vector<int64_t> strides,
                   int64_t alignBytes, bool output);
  mlir::Value materialize(const Dim &dim);

  mlir::MLIRContext &ctx_;
  mlir::OpBuilder b_;
  mlir::Location loc_;
  SourceLine line_; ///< the innermost DSL call's (AtLine)
  mlir::OwningOpRef<mlir::ModuleOp> module_;
  KernelSignature signature_;
  std::vector<mlir::Type> argTypes_;
  std::vector<std::pair<std::string, std::pair<int, int>>> symbols_; ///< name -> (tensor, dim)
  mlir::Operation *kernel_ = nullptr;
  bool gridBuilt_ = false;
  int64_t maxAccessBytes_ = 0; ///< 0: the target's widest access
  bool rereadThreadIndex_ = false;
  bool readOnlyLoads_ = false;
  bool paddedStores_ = false;
  bool warpsAlongRows_ = false;
  int64_t dependentLaunch_ = 0; ///< #tile.schedule's dependent_launch
  int64_t vectorElements_ = 0; ///< 0: derived from the target's access width
  int64_t transposeRows_ = 0;
  int64_t minBlocksPerSm_ = 0; ///< 0: no launch bounds (a persistent grid's own)
};

mlir::Type toMlirType(mlir::MLIRContext &ctx, DType t);
/// "[4, 64]": a tile's shape in the DSL's messages.
std::string shapeString(const std::vector<int64_t> &shape);

} // namespace tk::dsl
