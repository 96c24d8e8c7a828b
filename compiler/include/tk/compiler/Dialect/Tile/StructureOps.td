//===- StructureOps.td - kernels, grids, loops, block totals -*- tablegen -*-===//
#ifndef TK_TILE_STRUCTURE_OPS_TD
#define TK_TILE_STRUCTURE_OPS_TD

include "tk/compiler/Dialect/Tile/TileOpBase.td"

def Tile_KernelOp : Tile_Op<"kernel", [IsolatedFromAbove, Symbol, FunctionOpInterface,
                                        AutomaticAllocationScope]> {
  let summary = "A GPU kernel: global tensor arguments and a block size";
  let description = [{
    The kernel's arguments are global tensors (`memref`s with dynamic sizes and
    strides) and index scalars. `threads` is the number of threads per block. The
    body holds exactly one `tile.grid` that says how many blocks run.
      tile.kernel @scale(%x: memref<?x128xf32, strided<[?, 1]>>) attributes {threads = 128 : i64} {
        ...
        tile.return
      }
  }];
  let arguments = (ins SymbolNameAttr:$sym_name, TypeAttrOf<FunctionType>:$function_type,
                       I64Attr:$threads, OptionalAttr<Tile_ScheduleAttr>:$schedule,
                       OptionalAttr<DictArrayAttr>:$arg_attrs, OptionalAttr<DictArrayAttr>:$res_attrs);
  let regions = (region SizedRegion<1>:$body);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    ::llvm::ArrayRef<::mlir::Type> getArgumentTypes() { return getFunctionType().getInputs(); }
    ::llvm::ArrayRef<::mlir::Type> getResultTypes() { return getFunctionType().getResults(); }
    ::mlir::Region *getCallableRegion() { return &getBody(); }
    int64_t getNumWarps() { return getThreads() / 32; }
    /// The kernel's schedule, or the default one (every field at its default).
    ScheduleAttr getScheduleOrDefault();
    /// The single grid op of the body, or null.
    class GridOp getGrid();
  }];
}

def Tile_ReturnOp : Tile_Op<"return", [Pure, HasParent<"KernelOp">, Terminator, ReturnLike]> {
  let summary = "Ends a kernel";
  let assemblyFormat = "attr-dict";
}

def Tile_GridOp : Tile_Op<"grid", [HasParent<"KernelOp">, SingleBlockImplicitTerminator<"YieldOp">,
                                    RecursiveMemoryEffects]> {
  let summary = "The grid of blocks: one to three block indices and their extents";
  let description = [{
    Runs the body once per block. The block arguments are the block's indices,
    the operands the grid extents (computed from the kernel's dynamic sizes).
      tile.grid (%bm, %bk) in (%nm, %nk) { ... }
    With `persistent = k`, the launch has at most k blocks per SM (in one
    dimension), and each block runs the body for the tiles t = block,
    block + blocks, ... of the extents' product (grid-stride; dimension 0
    fastest). The body must not assume one block per tile (shared buffers are
    fenced with a barrier between tiles).
      tile.grid (%bm, %bk) in (%nm, %nk) { ... } {persistent = 4 : i64}
    Block totals: with results, the body's `tile.yield` gives one fragment per
    result, and result i is the sum of every element of fragment i over the
    tiles this block ran (each fragment element widened to the result type).
    A persistent block carries its threads' partial sums in registers from
    tile to tile and combines them across its threads once, after its last
    tile, so a per-block counter costs no barrier or atomic per tile. The
    rest of the kernel body runs once per block (on the CPU path, once) and
    uses the totals, e.g. with `tile.atomic_add`:
      %n = tile.grid (%b) in (%nb) -> (i64) {
        ...
        tile.yield %hits : !tile.frag<1x2048xi32>
      } {persistent = 4 : i64}
      tile.atomic_add %n, %counts[%c0, %c0] : i64, memref<1x3xi64>
  }];
  let arguments = (ins Variadic<Index>:$sizes, OptionalAttr<I64Attr>:$persistent);
  let results = (outs Variadic<AnyTypeOf<[AnySignlessInteger, AnyFloat]>>:$totals);
  let regions = (region SizedRegion<1>:$body);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    ::mlir::Block::BlockArgListType getBlockIndices() { return getBody().getArguments(); }
  }];
}

def Tile_PipelineOp : Tile_Op<"pipeline", [SingleBlockImplicitTerminator<"YieldOp">, RecursiveMemoryEffects]> {
  let summary = "A loop whose shared-memory copies run `stages - 1` iterations ahead";
  let description = [{
    Runs the body for %i = %lb, %lb + 1, ..., %ub - 1, in order, with the
    results of a plain loop. The body's `tile.copy` ops (its loads of global
    tiles into shared buffers) are its producer stage: `tile-pipeline-copies`
    gives each destination buffer `stages` versions and issues the copies of
    iteration i + stages - 1 asynchronously (cp.async) while iteration i
    computes, with the waits and barriers that order them.
      tile.pipeline %i = %c0 to %n {stages = 3 : i64} {
        tile.copy %x[%r, %c], %buf : memref<?x64xbf16>, memref<128x64xbf16, #gpu.address_space<workgroup>>
        %t = tile.load %buf[%c0, %c0] : ... -> !tile.frag<128x64xbf16>
        ...
      }
    Like scf.for, it may carry values from one iteration to the next
    (accumulators: fragments or scalars): `iter_args` names them and their
    initial values, the body's `tile.yield` gives the next ones, and the
    results are the last ones (the initial values when the loop runs no
    iteration).
      %sum = tile.pipeline %i = %c0 to %n iter_args(%acc = %zero)
          -> (!tile.frag<1x256xf32>) {stages = 2 : i64} {
        ...
        tile.yield %next : !tile.frag<1x256xf32>
      }
    The rules (checked): 1 to 8 stages; copies are direct children of the
    body, into distinct buffers allocated outside it that nothing else in the
    pipeline writes and nothing reads before the copy; a copy's source and
    indices are computed from %i and values defined outside the pipeline by
    side-effect-free ops (they are recomputed for the iterations ahead, so
    they cannot depend on carried values).
  }];
  let arguments = (ins Index:$lowerBound, Index:$upperBound, Variadic<AnyType>:$inits, I64Attr:$stages);
  let results = (outs Variadic<AnyType>:$results);
  let regions = (region SizedRegion<1>:$body);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    ::mlir::BlockArgument getInductionVar() { return getBody().getArgument(0); }
    /// The body's arguments for the carried values (after the induction variable).
    ::mlir::Block::BlockArgListType getRegionIterArgs() { return getBody().getArguments().drop_front(); }
  }];
}

def Tile_YieldOp : Tile_Op<"yield", [Pure, Terminator, ReturnLike,
                                      ParentOneOf<["GridOp", "ParallelOp", "PipelineOp"]>]> {
  let summary = "Ends a grid or pipeline body, or yields the scalar result of a parallel region";
  let arguments = (ins Variadic<AnyType>:$values);
  let assemblyFormat = "($values^ `:` qualified(type($values)))? attr-dict";
  let builders = [OpBuilder<(ins), [{ }]>];
}

def Tile_ToScalarOp : Tile_Op<"to_scalar", [Pure,
    Tile_LayoutRules<["requiredOperandLayout", "verifyOperandLayouts"]>]> {
  let summary = "The element of a one-element fragment, as a scalar every thread holds";
  let description = [{
    `result = input[0, ..., 0]` for a fragment of one element: a value that
    decides a branch for the whole block (scf.if), such as whether a token's
    slot names a row. On the GPU each thread reads its own copy, so the
    fragment must be replicated: a reduced layout whose root spreads the
    threads along reduced dimensions only, covers them without padding
    (a thread whose root elements are all padding holds no group) and
    keeps no group inside one thread's vector (what a whole-row reduction
    over a row the threads cover exactly has). Any other layout moves to
    such a one first (tile.relayout, through shared memory).
      %c = tile.to_scalar %flag : !tile.frag<1x1xi32> -> i32
  }];
  let arguments = (ins Tile_AnyFragment:$input);
  let results = (outs AnyTypeOf<[I32, I64, F32]>:$result);
  let assemblyFormat = "$input attr-dict `:` qualified(type($input)) `->` type($result)";
  let hasVerifier = 1;
}

def Tile_ThreadTotalOp : Tile_Op<"thread_total", [Pure]> {
  let summary = "A thread's share of a block total: the sum of the fragment elements it holds";
  let description = [{
    Made by tile-lower-to-gpu from a grid's block totals, right after the
    fragment's definition: the sum, in the result type, of the elements of
    the fragment the thread holds inside the tile (integers summed in their
    own type, then sign-extended; floats widened per element). Only
    distributed fragments have such shares, so no other lowering sees it.
      %s = tile.thread_total %hits : !tile.frag<1x2048xi32, #tile.blocked<...>> -> i64
  }];
  let arguments = (ins Tile_AnyFragment:$input);
  let results = (outs AnyTypeOf<[AnySignlessInteger, AnyFloat]>:$total);
  let assemblyFormat = "$input attr-dict `:` qualified(type($input)) `->` type($total)";
}

def Tile_BlockSumOp : Tile_Op<"block_sum", [MemoryEffects<[MemRead, MemWrite]>, AllTypesMatch<["partial", "total"]>]> {
  let summary = "The sum of a value over the threads of the block, the same on every thread";
  let description = [{
    Made by tile-lower-to-gpu from a grid's block totals, after the block's
    last tile: an xor butterfly over each warp's lanes, then the warps' sums
    through shared memory, added in warp order by every thread (one barrier),
    so the total is the same on every thread and from run to run.
      %n = tile.block_sum %partial : i64
  }];
  let arguments = (ins AnyTypeOf<[I32, I64, F32, F64]>:$partial);
  let results = (outs AnyTypeOf<[I32, I64, F32, F64]>:$total);
  let assemblyFormat = "$partial attr-dict `:` type($partial)";
}

def Tile_AtomicAddOp : Tile_Op<"atomic_add", [HasParent<"KernelOp">, MemoryEffects<[MemWrite]>]> {
  let summary = "Adds a block total to one element of a tensor, once per block";
  let description = [{
    After the grid, where code runs once per block: dest[indices] += value,
    atomically (integer or float), issued by the block's first thread.
      tile.atomic_add %n, %counts[%c0, %c1] : i64, memref<1x3xi64>
  }];
  let arguments = (ins AnyTypeOf<[AnySignlessInteger, AnyFloat]>:$value, AnyMemRef:$dest, Variadic<Index>:$indices);
  let assemblyFormat = "$value `,` $dest `[` $indices `]` attr-dict `:` type($value) `,` qualified(type($dest))";
  let hasVerifier = 1;
}

#endif
