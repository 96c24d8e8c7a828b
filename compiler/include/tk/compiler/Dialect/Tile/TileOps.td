//===- TileOps.td - operations of the tile dialect -------------*- tablegen -*-===//
#ifndef TK_TILE_OPS_TD
#define TK_TILE_OPS_TD

include "tk/compiler/Dialect/Tile/TileBase.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/IR/RegionKindInterface.td"
include "mlir/Interfaces/FunctionInterfaces.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"

class Tile_Op<string mnemonic, list<Trait> traits = []> : Op<Tile_Dialect, mnemonic, traits>;

//===----------------------------------------------------------------------===//
// Kernel structure
//===----------------------------------------------------------------------===//

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
    The rules (checked): 1 to 8 stages; copies are direct children of the
    body, into distinct buffers allocated outside it that nothing else in the
    pipeline writes and nothing reads before the copy; a copy's source and
    indices are computed from %i and values defined outside the pipeline by
    side-effect-free ops (they are recomputed for the iterations ahead).
  }];
  let arguments = (ins Index:$lowerBound, Index:$upperBound, I64Attr:$stages);
  let regions = (region SizedRegion<1>:$body);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    ::mlir::BlockArgument getInductionVar() { return getBody().getArgument(0); }
  }];
}

def Tile_CommitCopiesOp : Tile_Op<"commit_copies", [MemoryEffects<[MemWrite]>]> {
  let summary = "Closes the group of asynchronous copies this thread issued since the last commit";
  let description = [{
    cp.async.commit_group: the asynchronous `tile.copy` ops issued before it
    form one group, which `tile.wait_copies` counts. A commit with no copies
    makes an empty group (complete at once), so every iteration of a
    pipelined loop can commit exactly one group.
  }];
  let assemblyFormat = "attr-dict";
}

def Tile_WaitCopiesOp : Tile_Op<"wait_copies", [MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "Waits until at most `pending` copy groups are in flight, then synchronizes the block";
  let description = [{
    cp.async.wait_group pending, then a block barrier: every group but the
    newest `pending` has landed in shared memory and is visible to all the
    block's threads.
      tile.wait_copies {pending = 2 : i64}
  }];
  let arguments = (ins I64Attr:$pending);
  let assemblyFormat = "attr-dict";
  let hasVerifier = 1;
}

def Tile_InitBarriersOp : Tile_Op<"init_barriers", [MemoryEffects<[MemWrite]>]> {
  let summary = "Initializes a shared buffer of mbarriers, each expecting `count` arrivals";
  let description = [{
    One thread initializes every i64 of `bars` as an mbarrier object with
    arrival count `count` (one per copy that signals it), then the block
    synchronizes. The bulk-engine form of a pipeline's buffer versions.
      tile.init_barriers %bars {count = 1 : i64} : memref<3xi64, #gpu.address_space<workgroup>>
  }];
  let arguments = (ins AnyStaticShapeMemRef:$barriers, I64Attr:$count);
  let assemblyFormat = "$barriers attr-dict `:` qualified(type($barriers))";
  let hasVerifier = 1;
}

def Tile_WaitBarrierOp : Tile_Op<"wait_barrier", [MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "Waits for the phase of parity `parity` of mbarrier `slot` to complete";
  let description = [{
    Every thread waits (mbarrier.try_wait.parity) until the phase completes:
    the bulk copies that signal it have landed in shared memory.
      tile.wait_barrier %bars[%slot], %parity : memref<3xi64, #gpu.address_space<workgroup>>
  }];
  let arguments = (ins AnyStaticShapeMemRef:$barriers, Index:$slot, Index:$parity);
  let assemblyFormat = "$barriers `[` $slot `]` `,` $parity attr-dict `:` qualified(type($barriers))";
}

def Tile_BarrierOp : Tile_Op<"barrier", [MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "A block-wide barrier (every thread's shared-memory accesses before it are done)";
  let assemblyFormat = "attr-dict";
}

def Tile_YieldOp : Tile_Op<"yield", [Pure, Terminator, ReturnLike,
                                      ParentOneOf<["GridOp", "ParallelOp", "PipelineOp"]>]> {
  let summary = "Ends a grid or pipeline body, or yields the scalar result of a parallel region";
  let arguments = (ins Variadic<AnyType>:$values);
  let assemblyFormat = "($values^ `:` qualified(type($values)))? attr-dict";
  let builders = [OpBuilder<(ins), [{ }]>];
}

//===----------------------------------------------------------------------===//
// Memory
//===----------------------------------------------------------------------===//

def Tile_AllocOp : Tile_Op<"alloc", [MemoryEffects<[MemAlloc]>]> {
  let summary = "Allocates a shared-memory tile buffer for the block";
  let description = [{
    The result is a statically shaped `memref` in the GPU workgroup address
    space, alive for the whole block.
      %buf = tile.alloc : memref<32x64xbf16, #gpu.address_space<workgroup>>
  }];
  let results = (outs AnyStaticShapeMemRef:$buffer);
  let assemblyFormat = "attr-dict `:` qualified(type($buffer))";
  let hasVerifier = 1;
}

def Tile_LoadOp : Tile_Op<"load", [MemoryEffects<[MemRead]>]> {
  let summary = "Loads a tile of a tensor or shared buffer into a fragment";
  let description = [{
    Reads the tile whose first element is at `indices`, with the fragment's shape.
    Elements outside the tensor read as zero (the tile may straddle its edge).
      %t = tile.load %x[%r, %c] : memref<?x7168xbf16, strided<[?, 1]>> -> !tile.frag<4x1024xbf16>
    `split_last = n` reads the fragment's last coordinate c at (c / n, c % n) of
    a source with one more dimension (see tile.store; packed UE8M0 inputs).
  }];
  let arguments = (ins AnyMemRef:$source, Variadic<Index>:$indices, OptionalAttr<I64Attr>:$split_last);
  let results = (outs Tile_AnyFragment:$result);
  let assemblyFormat = "$source `[` $indices `]` attr-dict `:` qualified(type($source)) `->` qualified(type($result))";
  let hasVerifier = 1;
}

def Tile_GatherOp : Tile_Op<"gather", [MemoryEffects<[MemRead]>]> {
  let summary = "Reads a 1-D tensor at data-dependent positions";
  let description = [{
    result[i...] = source[index[i...]] for every element of the i32 index
    fragment, and zero where the index is negative (padding rows of MoE
    mappings). Positions at or past the source's size also read zero. The
    result has the index's shape and layout: each thread reads the elements it
    holds, one scalar load each.
      %w = tile.gather %weights[%idx] : memref<?xf32>, !tile.frag<16x1xi32> -> !tile.frag<16x1xf32>
  }];
  let arguments = (ins AnyMemRef:$source, Tile_AnyFragment:$index);
  let results = (outs Tile_AnyFragment:$result);
  let assemblyFormat = "$source `[` $index `]` attr-dict `:` qualified(type($source)) `,` qualified(type($index)) `->` qualified(type($result))";
  let hasVerifier = 1;
}

def Tile_GatherRowsOp : Tile_Op<"gather_rows", [MemoryEffects<[MemRead]>]> {
  let summary = "Loads a tile whose rows come from data-dependent rows of a 2-D tensor";
  let description = [{
    result[i, j] = source[rows[i, j], col + j], zero where the row is negative
    or past the end (MoE padding rows) and past the last column. `rows` is an
    i32 fragment of the result's shape and layout whose values are constant
    along each row (an `expand` of a [m, 1] index tile, as the DSL builds it):
    a thread loads each run of elements it holds along the last dimension
    from the row of the run's first element, with the vector width a
    `tile.load` would use.
      %v = tile.gather_rows %x[%rows, %c] : memref<?x7168xbf16>, !tile.frag<128x64xi32> -> !tile.frag<128x64xbf16>
  }];
  let arguments = (ins AnyMemRef:$source, Tile_AnyFragment:$rows, Index:$col);
  let results = (outs Tile_AnyFragment:$result);
  let assemblyFormat = "$source `[` $rows `,` $col `]` attr-dict `:` qualified(type($source)) `,` qualified(type($rows)) `->` qualified(type($result))";
  let hasVerifier = 1;
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

def Tile_ScatterOp : Tile_Op<"scatter", [MemoryEffects<[MemWrite]>]> {
  let summary = "Writes one value to a data-dependent position of a 1-D tensor";
  let description = [{
    dest[index] = value for single-element fragments (a block's reduced
    total and its destination), written once by the block's first thread;
    nothing is written when the index is negative or past the end.
      tile.scatter %dot, %wgrad[%idx] : !tile.frag<1x1xf32>, memref<?xf32>, !tile.frag<1x1xi32>
  }];
  let arguments = (ins Tile_AnyFragment:$value, AnyMemRef:$dest, Tile_AnyFragment:$index);
  let assemblyFormat = "$value `,` $dest `[` $index `]` attr-dict `:` qualified(type($value)) `,` qualified(type($dest)) `,` qualified(type($index))";
  let hasVerifier = 1;
}

def Tile_StoreOp : Tile_Op<"store", [MemoryEffects<[MemWrite]>]> {
  let summary = "Stores a fragment into a tile of a tensor or shared buffer";
  let description = [{
    Writes the fragment at `indices`; elements outside the tensor are not written.
      tile.store %q, %out[%r, %c] : !tile.frag<4x1024xf8E4M3FN>, memref<?x7168xf8E4M3FN>
    With `split_last = n`, the destination has one more dimension than the
    fragment, and the fragment's last coordinate c is written at (c / n, c % n)
    of the destination's last two dimensions. This addresses layouts that are
    not strided in c, such as packed UE8M0 scale factors: four groups share a
    word, and words of consecutive tokens are adjacent.
      tile.store %b, %sf[%r, %c] {split_last = 4 : i64} : !tile.frag<4x8xi8>, memref<?x?x4xi8, strided<[4, ?, 1]>>
    With `atomic_add`, every element is added atomically to the destination
    (integer or float elements) instead of stored, exactly once however many
    threads hold it: counters that many blocks update (SwiGLU's clamp counts).
    The GPU lowering takes reduced fragments (one thread per group adds).
      tile.store %n, %counts[%c0, %c1] {atomic_add} : !tile.frag<1x1xi64, ...>, memref<1x3xi64>
  }];
  let arguments = (ins Tile_AnyFragment:$value, AnyMemRef:$dest, Variadic<Index>:$indices,
                       OptionalAttr<I64Attr>:$split_last, UnitAttr:$atomic_add);
  let assemblyFormat = "$value `,` $dest `[` $indices `]` attr-dict `:` qualified(type($value)) `,` qualified(type($dest))";
  let hasVerifier = 1;
}

def Tile_CopyOp : Tile_Op<"copy", [MemoryEffects<[MemRead, MemWrite]>, AttrSizedOperandSegments]> {
  let summary = "Copies a tile of a global tensor into a shared buffer";
  let description = [{
    All threads of the block copy the tile at `indices` of `source` (the shape of
    `dest`) into `dest`; elements outside the source read as zero. The copy is
    complete for every thread after the op (it ends with a block barrier).
      tile.copy %x[%r, %c], %buf : memref<?x64xbf16>, memref<32x64xbf16, #gpu.address_space<workgroup>>
    With `async` the copy is only issued (cp.async, 16-byte chunks where the
    layout, alignment and extents allow, zero-filled outside the source) and
    belongs to the thread's next `tile.commit_copies` group; the data is
    there after a `tile.wait_copies` that covers that group.
    `tile-pipeline-copies` makes these from the copies of a `tile.pipeline`.
    With `barrier %bars[%slot]` (bulk engine, sm_90a+), the rows of the tile
    are bulk copies (cp.async.bulk) that complete transactions on mbarrier
    `slot` of `bars` (see tile.init_barriers): one thread arrives on it
    expecting the tile's bytes, rows outside the source are zero-filled by
    the threads, and `tile.wait_barrier` waits for the phase. Where the rows
    cannot be bulk copies, the copy completes before that arrival.
      tile.copy %x[%r, %c], %v barrier %bars[%s] {async} : memref<?x64xbf16>, memref<128x64xbf16, ...>, memref<2xi64, ...>
  }];
  let arguments = (ins AnyMemRef:$source, Variadic<Index>:$indices, AnyStaticShapeMemRef:$dest, UnitAttr:$async,
                       Optional<AnyStaticShapeMemRef>:$barriers, Optional<Index>:$slot);
  let assemblyFormat = [{
    $source `[` $indices `]` `,` $dest (`barrier` $barriers^ `[` $slot `]`)? attr-dict `:` qualified(type($source))
    `,` qualified(type($dest)) (`,` qualified(type($barriers))^)?
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Computation on fragments
//===----------------------------------------------------------------------===//

def Tile_ParallelOp : Tile_Op<"parallel", [Pure, SingleBlockImplicitTerminator<"YieldOp">]> {
  let summary = "An elementwise region over fragments of one shape";
  let description = [{
    The body runs once per element, on the elements of the inputs at that
    position, and yields the result element.
      %y = tile.parallel %a, %b : (!tile.frag<4x1024xf32>, !tile.frag<4x1024xf32>) -> !tile.frag<4x1024xf32> {
      ^bb0(%u: f32, %v: f32):
        %p = arith.mulf %u, %v : f32
        tile.yield %p : f32
      }
  }];
  let arguments = (ins Variadic<Tile_AnyFragment>:$inputs);
  let results = (outs Tile_AnyFragment:$result);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = "$inputs attr-dict `:` functional-type($inputs, $result) $body";
  let hasVerifier = 1;
}

def Tile_ReduceOp : Tile_Op<"reduce", [Pure]> {
  let summary = "Reduces a fragment along one dimension, in groups";
  let description = [{
    Combines the elements along `dim` in consecutive groups of `group` elements
    (the whole dimension when `group` equals its size); the result has
    `size / group` elements along `dim`. `absmax` is the maximum of absolute
    values. The combination order is fixed, so results are deterministic.
      %m = tile.reduce absmax %t {dim = 1 : i64, group = 128 : i64} : !tile.frag<4x1024xf32> -> !tile.frag<4x8xf32>
  }];
  let arguments = (ins Tile_ReduceKind:$kind, Tile_AnyFragment:$input, I64Attr:$dim, I64Attr:$group);
  let results = (outs Tile_AnyFragment:$result);
  let assemblyFormat = "$kind $input attr-dict `:` qualified(type($input)) `->` qualified(type($result))";
  let hasVerifier = 1;
}

def Tile_ExpandOp : Tile_Op<"expand", [Pure]> {
  let summary = "Broadcasts each element over a group along one dimension";
  let description = [{
    The inverse shape change of a grouped `tile.reduce`: element `i` along `dim`
    is repeated `group` times.
      %e = tile.expand %m {dim = 1 : i64, group = 128 : i64} : !tile.frag<4x8xf32> -> !tile.frag<4x1024xf32>
  }];
  let arguments = (ins Tile_AnyFragment:$input, I64Attr:$dim, I64Attr:$group);
  let results = (outs Tile_AnyFragment:$result);
  let assemblyFormat = "$input attr-dict `:` qualified(type($input)) `->` qualified(type($result))";
  let hasVerifier = 1;
}

def Tile_ConvertOp : Tile_Op<"convert", [Pure]> {
  let summary = "Converts the element type of a fragment";
  let description = [{
    Widening float conversions are exact. Narrowing to bf16/f16/f32 rounds to
    nearest even. Narrowing to f8E4M3FN rounds to nearest even on the e4m3 grid
    and saturates: finite values beyond 448 and infinities give +-448, NaN gives
    0x7F.
      %q = tile.convert %t : !tile.frag<4x1024xf32> -> !tile.frag<4x1024xf8E4M3FN>
  }];
  let arguments = (ins Tile_AnyFragment:$input);
  let results = (outs Tile_AnyFragment:$result);
  let assemblyFormat = "$input attr-dict `:` qualified(type($input)) `->` qualified(type($result))";
  let hasVerifier = 1;
}

def Tile_PackE2M1Op : Tile_Op<"pack_e2m1", [Pure]> {
  let summary = "FP4 (E2M1) codes of f32 elements, two per byte";
  let description = [{
    Encodes each element to E2M1 (round to nearest even onto
    {0, 0.5, 1, 1.5, 2, 3, 4, 6}, saturating at 6, sign kept, also for zero)
    and packs pairs along the last dimension: element 2i in the low nibble and
    2i + 1 in the high nibble of byte i. The result's last dimension is half the
    input's; its layout is the input's with half the vector along that
    dimension, so each thread packs pairs it already holds.
      %q = tile.pack_e2m1 %t : !tile.frag<4x1024xf32> -> !tile.frag<4x512xi8>
  }];
  let arguments = (ins Tile_AnyFragment:$input);
  let results = (outs Tile_AnyFragment:$result);
  let assemblyFormat = "$input attr-dict `:` qualified(type($input)) `->` qualified(type($result))";
  let hasVerifier = 1;
}

def Tile_UnpackE2M1Op : Tile_Op<"unpack_e2m1", [Pure]> {
  let summary = "f32 values of FP4 (E2M1) codes packed two per byte";
  let description = [{
    The inverse of `tile.pack_e2m1`: byte i holds element 2i in its low nibble
    and 2i + 1 in its high nibble; each code decodes exactly to f32. The result
    has twice the input's last dimension, and its layout is the input's with
    twice the vector along that dimension.
      %v = tile.unpack_e2m1 %q : !tile.frag<4x512xi8> -> !tile.frag<4x1024xf32>
  }];
  let arguments = (ins Tile_AnyFragment:$input);
  let results = (outs Tile_AnyFragment:$result);
  let assemblyFormat = "$input attr-dict `:` qualified(type($input)) `->` qualified(type($result))";
  let hasVerifier = 1;
}

def Tile_E2M1ToE4M3Op : Tile_Op<"e2m1_to_e4m3", [Pure]> {
  let summary = "E4M3 codes of FP4 (E2M1) codes scaled by powers of two";
  let description = [{
    `result[..., j] = e4m3(decode(code j) * 2^shift[..., j])`: the codes are
    packed two per byte as `tile.unpack_e2m1` reads them, the product is
    encoded like `tile.convert` to f8E4M3FN (nearest even, saturating). Every
    shift in [-5, 6] maps each FP4 value exactly onto an e4m3 value (the
    lossless re-blocking); shifts beyond [-126, 127] act as -126 or 127
    (every result is then 0 or +-448 anyway). The codes' layout is the
    result's with half the vector along the last dimension, the shift's is
    the result's.
    On the GPU each distinct shift a thread holds makes an 8-byte table of
    the magnitudes' codes, and 4 codes at a time are looked up with one byte
    permute (prmt), their signs with another.
      %q = tile.e2m1_to_e4m3 %codes, %shift : !tile.frag<4x512xi8>, !tile.frag<4x1024xi32> -> !tile.frag<4x1024xf8E4M3FN>
  }];
  let arguments = (ins Tile_AnyFragment:$codes, Tile_AnyFragment:$shift);
  let results = (outs Tile_AnyFragment:$result);
  let assemblyFormat = "$codes `,` $shift attr-dict `:` qualified(type($codes)) `,` qualified(type($shift)) `->` qualified(type($result))";
  let hasVerifier = 1;
}

def Tile_PackE5M6Op : Tile_Op<"pack_e5m6", [Pure]> {
  let summary = "E5M6 codes of f32 elements, eight per three little-endian words";
  let description = [{
    Encodes each element to the 12-bit E5M6 code (the top 12 bits of an fp16,
    rounded as quant.md 2.4 prescribes: fp16 rounded toward zero, then a
    carry decided by the low 17 bits of the f32) and packs every 8 consecutive
    codes along the last dimension into 3 uint32 words, stored little-endian
    as 12 bytes. The result is i8 with 3/2 times the last dimension; its
    layout is the input's with the vector along that dimension times 3/2.
      %q = tile.pack_e5m6 %t : !tile.frag<1x1024xf32> -> !tile.frag<1x1536xi8>
  }];
  let arguments = (ins Tile_AnyFragment:$input);
  let results = (outs Tile_AnyFragment:$result);
  let assemblyFormat = "$input attr-dict `:` qualified(type($input)) `->` qualified(type($result))";
  let hasVerifier = 1;
}

def Tile_UnpackE5M6Op : Tile_Op<"unpack_e5m6", [Pure]> {
  let summary = "f32 values of E5M6 codes packed eight per three little-endian words";
  let description = [{
    The inverse of `tile.pack_e5m6`: every 12 bytes along the last dimension
    are 3 little-endian uint32 words holding 8 12-bit codes (the first code in
    the top bits of the first word); each code is the top 12 bits of an fp16
    and decodes exactly to f32. The result has 2/3 of the input's last
    dimension; its layout is the input's with the vector along that dimension
    times 2/3.
      %v = tile.unpack_e5m6 %q : !tile.frag<1x1536xi8> -> !tile.frag<1x1024xf32>
  }];
  let arguments = (ins Tile_AnyFragment:$input);
  let results = (outs Tile_AnyFragment:$result);
  let assemblyFormat = "$input attr-dict `:` qualified(type($input)) `->` qualified(type($result))";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Scalar math inside elementwise regions
//===----------------------------------------------------------------------===//

class Tile_LogisticQuotientOp<string mnemonic, string formula> :
    Tile_Op<mnemonic, [Pure, Elementwise, AllTypesMatch<["x", "result"]>]> {
  let arguments = (ins AnyTypeOf<[F32, VectorOfRankAndType<[1], [F32]>]>:$x,
                       DefaultValuedAttr<Tile_QuotientForm, "::tk::tile::QuotientForm::fast">:$form);
  let results = (outs AnyTypeOf<[F32, VectorOfRankAndType<[1], [F32]>]>:$result);
  let assemblyFormat = "$x (`form` $form^)? attr-dict `:` type($x)";
}

def Tile_SiluOp : Tile_LogisticQuotientOp<"silu", "x / (1 + e^-x)"> {
  let summary = "x / (1 + e^-x) in f32, each step rounded (the SiLU of SwiGLU)";
  let description = [{
    Exactly fl(x / fl(1 + exp(-x))): `exp` is `math.exp` (on the GPU CUDA's
    accurate device `expf`, on the CPU the C library's), the addition and the
    division are correctly rounded. How the division is carried out is the
    lowering's choice where it is proven exact (tile-logistic-quotients: a
    multiply-and-correct sequence on targets where it was checked against
    `div.rn.f32` for every f32 input); `form ieee_div` asks for `div.rn.f32`
    always (the same value, for kernels measured faster with it). Used in
    `tile.parallel` bodies, on scalars; the GPU lowering applies it to
    per-thread vectors.
      %s = tile.silu %x : f32
      %s = tile.silu %x form ieee_div : f32
  }];
}

def Tile_SigmoidOp : Tile_LogisticQuotientOp<"sigmoid", "1 / (1 + e^-x)"> {
  let summary = "1 / (1 + e^-x) in f32, each step rounded (the logistic sigmoid)";
  let description = [{
    Exactly fl(1 / fl(1 + exp(-x))), with `exp` and the division as for
    `tile.silu`. A silu and a sigmoid of the same x share 1 + e^-x and, where
    the multiply-and-correct form is used, its reciprocal.
      %s = tile.sigmoid %x : f32
  }];
}

def Tile_TransposeOp : Tile_Op<"transpose", [Pure]> {
  let summary = "Swaps the last two dimensions of a fragment";
  let description = [{
    `result[..., j, i] = input[..., i, j]`. On the GPU the elements move
    through a padded shared-memory buffer, so input and result may have any
    layouts.
      %t = tile.transpose %x : !tile.frag<1x64x32xbf16> -> !tile.frag<1x32x64xbf16>
  }];
  let arguments = (ins Tile_AnyFragment:$input);
  let results = (outs Tile_AnyFragment:$result);
  let assemblyFormat = "$input attr-dict `:` qualified(type($input)) `->` qualified(type($result))";
  let hasVerifier = 1;
}

def Tile_RelayoutOp : Tile_Op<"relayout", [Pure]> {
  let summary = "Moves a fragment into another layout through shared memory";
  let description = [{
    The same elements, held as the result's layout says. On the GPU every
    thread writes its elements to a shared-memory buffer of the fragment's
    shape, the block synchronizes and every thread reads the elements of the
    result layout (then synchronizes again, so the buffer can be reused). The
    CPU lowering forwards the value. Kernels do not need it: layout inference
    (tile-assign-layouts) gives producers the layouts their users want. Its
    ablations insert it: `infer=false` where an op's operand has another
    layout than the op needs, tile-materialize-intermediates (the ablation of
    fusion) after every computed fragment, to its own layout.
      %r = tile.relayout %s : !tile.frag<4x8xf32, #tile.blocked<...>> -> !tile.frag<4x8xf32, #tile.reduced<...>>
  }];
  let arguments = (ins Tile_AnyFragment:$input);
  let results = (outs Tile_AnyFragment:$result);
  let assemblyFormat = "$input attr-dict `:` qualified(type($input)) `->` qualified(type($result))";
  let hasVerifier = 1;
}

#endif
