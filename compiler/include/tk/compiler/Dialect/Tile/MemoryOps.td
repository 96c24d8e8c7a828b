//===- MemoryOps.td - global and shared memory, copies, barriers -*- tablegen -*-===//
#ifndef TK_TILE_MEMORY_OPS_TD
#define TK_TILE_MEMORY_OPS_TD

include "tk/compiler/Dialect/Tile/TileOpBase.td"

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

def Tile_LoadOp : Tile_Op<"load", [MemoryEffects<[MemRead]>, Tile_LayoutInferenceOpInterface]> {
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

def Tile_StoreOp : Tile_Op<"store", [MemoryEffects<[MemWrite]>, AttrSizedOperandSegments,
    Tile_LayoutRules<["hintOperandLayouts", "requiredOperandLayout", "verifyOperandLayouts"]>]> {
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
    With `mask %m`, an integer fragment of the value's shape and layout, only
    the elements whose mask is nonzero are written (each by the thread that
    holds it, one scalar store each); the others are left as they are. For
    writes that are rare among the elements a thread holds (MoE's repeated
    ids), where a store of every element would cost more than its branch.
      tile.store %v, %ids[%r, %c] mask %m : !tile.frag<128x1xi64, ...>, memref<?x8xi64>, !tile.frag<128x1xi32, ...>
  }];
  let arguments = (ins Tile_AnyFragment:$value, AnyMemRef:$dest, Variadic<Index>:$indices,
                       OptionalAttr<I64Attr>:$split_last, UnitAttr:$atomic_add, Optional<Tile_AnyFragment>:$mask);
  let assemblyFormat = [{
    $value `,` $dest `[` $indices `]` (`mask` $mask^)? attr-dict `:` qualified(type($value)) `,` qualified(type($dest))
    (`,` qualified(type($mask))^)?
  }];
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
  let description = [{
    With `if_shared_memory`, a barrier only where the kernel uses shared
    memory by then (the fence between the tiles of a persistent grid: no
    thread refills a buffer another still reads), else nothing.
      tile.barrier
      tile.barrier {if_shared_memory}
  }];
  let arguments = (ins UnitAttr:$if_shared_memory);
  let assemblyFormat = "attr-dict";
}

def Tile_GatherOp : Tile_Op<"gather", [MemoryEffects<[MemRead]>, Tile_ElementwiseLayouts]> {
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

def Tile_GatherRowsOp : Tile_Op<"gather_rows", [MemoryEffects<[MemRead]>, Tile_ElementwiseLayouts]> {
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
    A chunk whose row is outside reads a clamped address and selects zero
    (its loads issue back to back); with `skip_outside` it is not read at
    all, behind a branch: for rows that are mostly outside (a token's unused
    MoE slots), whose clamped reads would cost more than the branch.
  }];
  let arguments = (ins AnyMemRef:$source, Tile_AnyFragment:$rows, Index:$col, UnitAttr:$skip_outside);
  let results = (outs Tile_AnyFragment:$result);
  let assemblyFormat = "$source `[` $rows `,` $col `]` attr-dict `:` qualified(type($source)) `,` qualified(type($rows)) `->` qualified(type($result))";
  let hasVerifier = 1;
}

def Tile_ScatterOp : Tile_Op<"scatter", [MemoryEffects<[MemWrite]>,
    Tile_LayoutRules<["hintOperandLayouts", "requiredOperandLayout", "verifyOperandLayouts"]>]> {
  let summary = "Writes (or adds) values at data-dependent positions of a 1-D tensor";
  let description = [{
    dest[index[i...]] = value[i...] for every element of the i32 index
    fragment, which has the value's shape and layout; nothing is written where
    the index is negative (MoE padding) or past the end. Each element is
    written once, by the thread that holds it. A single-element fragment (a
    block's reduced total) is written by the block's first thread.
      tile.scatter %dot, %wgrad[%idx] : !tile.frag<1x1xf32>, memref<?xf32>, !tile.frag<1x1xi32>
    With `add`, each value is added with an integer atomic instead: a
    histogram (counts per expert), exact and the same whatever the order in
    which blocks add. Floats are refused, since their sum would depend on it.
      tile.scatter %ones, %counts[%ids] {add} : !tile.frag<128x8xi32>, memref<?xi32>, !tile.frag<128x8xi32>
    Two elements naming one position without `add` leave one of them (which
    one is unspecified).
  }];
  let arguments = (ins Tile_AnyFragment:$value, AnyMemRef:$dest, Tile_AnyFragment:$index, UnitAttr:$add);
  let assemblyFormat = "$value `,` $dest `[` $index `]` attr-dict `:` qualified(type($value)) `,` qualified(type($dest)) `,` qualified(type($index))";
  let hasVerifier = 1;
}

def Tile_ScatterRowsOp : Tile_Op<"scatter_rows", [MemoryEffects<[MemWrite]>,
    Tile_LayoutRules<["hintOperandLayouts", "requiredOperandLayout", "verifyOperandLayouts"]>]> {
  let summary = "Stores a tile whose rows go to data-dependent rows of a 2-D tensor";
  let description = [{
    dest[rows[i, j], col + j] = value[i, j], the mirror of tile.gather_rows:
    nothing is written where the row is negative or past the end, or past the
    last column. `rows` is an i32 fragment of the value's shape and layout
    whose values are constant along each row (an `expand` of a [m, 1] index
    tile): a thread stores each run of elements it holds along the last
    dimension to the row of the run's first element, with the vector width a
    `tile.store` would use (MoE's expansion of tokens into expert segments).
      tile.scatter_rows %t, %out[%rows, %c] : !tile.frag<128x64xbf16>, memref<?x7168xbf16>, !tile.frag<128x64xi32>
  }];
  let arguments = (ins Tile_AnyFragment:$value, AnyMemRef:$dest, Tile_AnyFragment:$rows, Index:$col);
  let assemblyFormat = "$value `,` $dest `[` $rows `,` $col `]` attr-dict `:` qualified(type($value)) `,` qualified(type($dest)) `,` qualified(type($rows))";
  let hasVerifier = 1;
}

#endif
