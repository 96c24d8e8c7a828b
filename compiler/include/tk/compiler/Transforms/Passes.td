//===- Passes.td - passes of the tile compiler -----------------*- tablegen -*-===//
#ifndef TK_TILE_PASSES_TD
#define TK_TILE_PASSES_TD

include "mlir/Pass/PassBase.td"

def TilePipelineCopies : Pass<"tile-pipeline-copies", "::mlir::ModuleOp"> {
  let summary = "Software-pipeline tile.pipeline loops: multi-buffered shared tiles, copies issued stages - 1 iterations ahead";
  let description = [{
    Rewrites each `tile.pipeline` with `stages = S` into:
      - one buffer of S versions (memref<S x shape>) for each buffer its copies
        fill; iteration i uses version (i - lb) mod S, a memref.subview;
      - a prologue that issues the copies of the first S - 1 iterations as
        asynchronous `tile.copy` ops, one `tile.commit_copies` group each;
      - an scf.for over the iterations that issues the copies of iteration
        i + S - 1 (guarded by i + S - 1 < ub) and commits their group, waits
        until at most S - 1 groups are in flight (`tile.wait_copies`, which
        ends with a block barrier: iteration i's tile is in shared memory for
        every thread), runs the rest of the body on version i, and ends with a
        `tile.barrier` (nobody refills a version another thread still reads);
      - a final `tile.wait_copies {pending = 0}`.
    Every iteration commits exactly one group (empty past the end), so the
    group count the wait relies on holds to the last iteration.
    With `bulk`, the versions get one mbarrier each (`tile.init_barriers`,
    one arrival per copy), the copies signal their version's mbarrier and
    nothing is committed; iteration i waits for phase parity
    ((i - lb) / S) mod 2 of version (i - lb) mod S (`tile.wait_barrier`),
    then a block barrier (rows past the tensor are zero-filled by ordinary
    stores). The copies'
    indices are recomputed for the iteration they serve (the verifier
    guarantees they can be). The result has the semantics of the plain loop;
    the CPU lowering runs it sequentially (asynchronous copies are plain ones
    there).
  }];
  let dependentDialects = ["::mlir::scf::SCFDialect", "::mlir::memref::MemRefDialect",
                           "::mlir::arith::ArithDialect"];
  let options = [
    Option<"maxStages", "max-stages", "int64_t", /*default=*/"8",
           "Use at most this many stages (1: every copy waits for itself; the ablation of pipelining)">,
    Option<"bulk", "bulk", "bool", /*default=*/"false",
           "Bulk copy engine (sm_90a+): the copies signal one mbarrier per buffer version "
           "(tile.init_barriers, tile.copy ... barrier, tile.wait_barrier) instead of cp.async groups">,
  ];
}

def TileAssignLayouts : Pass<"tile-assign-layouts", "::mlir::ModuleOp"> {
  let summary = "Give every fragment without a layout a blocked (or reduced) layout";
  let description = [{
    Every fragment without a layout gets one, from the rules each op states
    through LayoutInferenceOpInterface (TileInterfaces.td): backwards, ops
    hint the layouts they want for their operands (an expansion's input the
    reduced form of its layout, packed bytes the values' layout scaled by
    bytes per value, a transposed fragment rows in runs); forwards, a result
    takes its hint or what its op infers (a reduction the reduced form of
    its input, elementwise ops their operands' layout), else the default
    blocked layout: each thread owns `vector-bytes` worth of the widest
    element type the kernel moves to or from memory, in consecutive
    elements along the last dimension (so each warp-wide access is one
    contiguous span), and lanes then warps tile the last dimension first.
    The kernel's schedule may cap the bytes (max_access_bytes) or set the
    values per thread (vector_elements); ops may require a multiple.
    Layouts already present (author annotations) are kept; an op whose
    operands' layouts conflict with its rules is an error that names the op
    and both layouts.
  }];
  let options = [
    Option<"vectorBytes", "vector-bytes", "int64_t", /*default=*/"16",
           "Bytes per thread per global access: 16 on sm_80/sm_90a, 32 on sm_100a">,
    Option<"infer", "infer", "bool", /*default=*/"true",
           "Infer layouts from annotations, expansions, transposes and packing. false (the ablation of layout "
           "inference): every result gets its annotation or the default layout of its shape, and an operand "
           "laid out otherwise than its op needs moves through shared memory (tile.relayout)">,
  ];
}

def TileMaterializeIntermediates : Pass<"tile-materialize-intermediates", "::mlir::ModuleOp"> {
  let summary = "The ablation of fusion: every computed fragment passes through shared memory before its uses";
  let description = [{
    Kernels are fused by construction: a fragment one op computes stays in
    registers for the ops that use it. This pass undoes that, to measure what
    it is worth (`TK_ABLATE=fusion`): after every op that computes a fragment
    (tile.parallel, tile.convert, tile.reduce, tile.transpose and the
    pack/unpack ops), its result goes through a `tile.relayout` to its own
    layout (written to shared memory, a block barrier, read back, a barrier),
    and the ops that compute with it (every user but tile.store) read that
    copy, as unfused stages would read their input from memory. Runs after
    tile-assign-layouts.
  }];
}

def TileLowerToGPU : Pass<"tile-lower-to-gpu", "::mlir::ModuleOp"> {
  let summary = "Distribute tile ops over threads and lower kernels to gpu.func";
  let description = [{
    Outlines every `tile.kernel` into a `gpu.func` inside a `gpu.module` of
    its own (KernelOutline.cpp): the thread index read at its entry, the
    grid's block indices as `gpu.block_id` (or, for a persistent grid, a
    loop over tiles), block totals as per-thread shares and block sums.
    Then MLIR's dialect conversion converts every tile op with its pattern
    (one file per family of ops): every fragment becomes a per-thread vector
    (its layout says which elements), loads and stores become (masked)
    vector accesses, elementwise regions are cloned on vectors, reductions
    become in-thread combines, warp shuffles and a shared-memory exchange
    between warps. Float8 tensors are stored as i8. `fp8-hardware` selects
    the sm_89+ conversion instructions (f32 -> e4m3 and e4m3 -> f16 pairs);
    without them the conversions are integer arithmetic (bit-exact, used for
    sm_80). `tile.silu` and `tile.sigmoid` stay, on vectors, for
    tile-logistic-quotients; `math.exp` and `math.fma` for tile-device-math.
  }];
  let dependentDialects = ["::mlir::gpu::GPUDialect", "::mlir::scf::SCFDialect",
                           "::mlir::vector::VectorDialect", "::mlir::memref::MemRefDialect",
                           "::mlir::arith::ArithDialect", "::mlir::NVVM::NVVMDialect",
                           "::mlir::math::MathDialect", "::mlir::LLVM::LLVMDialect",
                           "::mlir::nvgpu::NVGPUDialect"];
  let options = [
    Option<"fp8Hardware", "fp8-hardware", "bool", /*default=*/"true",
           "Use cvt.satfinite.e4m3x2 (sm_89+) for f32 -> e4m3">,
    Option<"remarks", "remarks", "bool", /*default=*/"false",
           "Remark on every global or shared access narrower than its layout's chunk, and on every tile.dot "
           "staged through shared memory, and why">,
    Option<"minBlocksPerSm", "min-blocks-per-sm", "int64_t", /*default=*/"0",
           "Ask ptxas for registers enough for this many blocks per SM (nvvm.minctasm, "
           "PTX .minnctapersm); 0: no limit">,
    Option<"rereadThreadIndex", "reread-thread-index", "bool", /*default=*/"true",
           "In kernels whose schedule asks (reread_thread_index), read the thread index again at the top "
           "of each loop over tile ops, so that per-thread addresses are computed in the loop, "
           "not held in registers across it (false: never)">,
    Option<"swizzle", "swizzle", "bool", /*default=*/"true",
           "Lay out transposes' shared buffers with an XOR swizzle where the rows allow "
           "(false: rows padded by 16 bytes)">,
    Option<"swizzleBytes", "swizzle-bytes", "int64_t", /*default=*/"1",
           "The smallest element size in bytes (1, 2 or 4) whose transposes are swizzled; "
           "narrower elements get padded rows">,
    Option<"warpgroupMma", "warpgroup-mma", "bool", /*default=*/"false",
           "The target has wgmma (sm_90a): tile.dot ops marked warpgroup run on it where their layouts "
           "allow">,
    Option<"readonlyLoads", "readonly-loads", "bool", /*default=*/"false",
           "Mark every kernel's tensors that it never writes llvm.readonly, as the schedule's "
           "readonly_loads does for its kernel (then noalias: tile-noalias-params)">,
  ];
}

def TileDynamicSharedMemory : Pass<"tile-dynamic-shared-memory", "::mlir::ModuleOp"> {
  let summary = "Shared buffers past the 48 KB a kernel may declare statically, as views of dynamic shared memory";
  let description = [{
    A kernel declares at most 48 KB of shared memory statically (ptxas
    refuses more); past that, its buffers must live in the block's dynamic
    shared memory, whose size the launch gives once the kernel's limit has
    been raised. For every kernel `gpu.func` this pass adds up its workgroup
    attributions (each at an offset aligned to its `llvm.align`, at least
    16 bytes): a total above `max-bytes` (the target's opt-in limit per
    block) is an error naming the kernel, the total, the limit and each
    buffer with its location; a total within `static-bytes` changes nothing
    (the buffers stay static); anything between becomes a `memref.view`
    per buffer of the module's external zero-length workgroup array
    `__tk_dynamic_shared` (PTX `.extern .shared`; upstream's
    `gpu.dynamic_shared_memory` declares it internal, which NVPTX demotes to
    a one-byte static variable), and
    the module's `tk.dynamic_shared_memory` dictionary records the kernel's
    bytes for the runtime (compileToPtx writes them into the PTX's header).
    Runs after tile-lower-to-gpu.
  }];
  let dependentDialects = ["::mlir::gpu::GPUDialect", "::mlir::memref::MemRefDialect",
                           "::mlir::arith::ArithDialect"];
  let options = [
    Option<"maxBytes", "max-bytes", "int64_t", /*default=*/"0",
           "The most shared memory a block may have on the target (its opt-in limit); 0: no limit">,
    Option<"staticBytes", "static-bytes", "int64_t", /*default=*/"49152",
           "Totals up to this stay static shared memory">,
    Option<"targetName", "target", "std::string", /*default=*/"\"the target\"",
           "The target's name, for the error">,
  ];
}

def TileDependentLaunch : Pass<"tile-dependent-launch", "::mlir::ModuleOp"> {
  let summary = "Kernels that may launch while the kernel before them in the stream still runs (sm_90+)";
  let description = [{
    Programmatic dependent launch: a kernel launched with the driver's
    programmatic stream serialization may be scheduled once every block of
    the kernel before it in the stream has signalled
    `griddepcontrol.launch_dependents` (or exited), and its
    `griddepcontrol.wait` holds it until that kernel has finished and its
    writes are visible. For every kernel `gpu.func` whose schedule asks
    (`dependent_launch` 1 or 2, which tile-lower-to-gpu copies into the
    attribute `tk.dependent_launch`), or every kernel with `every` (as 1),
    this pass puts them at the start (upstream's `nvvm.griddepcontrol`): with
    1 the signal first, so that the next kernel's blocks can take free slots
    while this one's last wave runs (with 2 none: each block's end is its
    signal); the wait before any other work, so that nothing the kernel
    reads or writes can race the kernel before it, whatever that kernel was
    (one that never signals lets the next start only when it ends, as
    without the attribute). The stream's order is kept: what overlaps is the
    launch and the blocks' start, not their memory accesses. The module's
    `tk.dependent_launch` array names the kernels, for the runtime
    (compileToPtx writes them into the PTX's header): a kernel without the
    wait must never be launched with the attribute. Without `supported` (a
    target before compute capability 9.0) it only removes the marks. Runs
    after tile-lower-to-gpu; Pipeline.cpp always runs it.
  }];
  let dependentDialects = ["::mlir::gpu::GPUDialect", "::mlir::NVVM::NVVMDialect"];
  let options = [
    Option<"supported", "supported", "bool", /*default=*/"true",
           "The target has programmatic dependent launch (compute capability 9.0 and newer)">,
    Option<"every", "every", "bool", /*default=*/"false",
           "Every kernel, marked or not (tk-opt's tile-to-ptx{dependent-launch=true})">,
  ];
}

def TileLogisticQuotients : Pass<"tile-logistic-quotients", "::mlir::ModuleOp"> {
  let summary = "Expand tile.silu and tile.sigmoid: 1 + exp(-x), then the division";
  let description = [{
    Every `tile.silu %x` (x / (1 + e^-x)) and `tile.sigmoid %x`
    (1 / (1 + e^-x)), on f32 scalars or per-thread vectors, becomes
    `d = 1 + math.exp(-x)` (one per x, shared by its quotients) and its
    division. Without `multiply-and-correct` the division is `arith.divf`
    (IEEE, div.rn.f32 on the GPU). With it (targets where the sequence was
    checked against div.rn.f32 for every f32 x, Pipeline.cpp), a quotient of
    form `fast` is the multiply-and-correct sequence that div.rn.f32 runs
    without its slow-path branch: branch-free with exact scaling and the
    IEEE result of non-finite operands where a silu and a sigmoid share x
    (and so the reciprocal), and, for a lone quotient, the short sequence
    under one range check per thread (every |x| <= 80, else div.rn.f32 for
    all of the thread's values). Form `ieee_div` is always arith.divf. Runs
    after a lowering (tile-lower-to-gpu or -cpu), before tile-device-math.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect", "::mlir::math::MathDialect",
                           "::mlir::vector::VectorDialect", "::mlir::scf::SCFDialect",
                           "::mlir::LLVM::LLVMDialect"];
  let options = [
    Option<"multiplyAndCorrect", "multiply-and-correct", "bool", /*default=*/"false",
           "Divide quotients of form fast by the multiply-and-correct sequence (false: arith.divf)">,
    Option<"guardValues", "guard-values", "int64_t", /*default=*/"0",
           "Values of a thread under one range check of a lone quotient (0: all)">,
  ];
}

def TileDeviceMath : Pass<"tile-device-math", "::mlir::ModuleOp"> {
  let summary = "math.exp (f32) as CUDA's accurate device expf, math.fma as fma.rn, math.sqrt as sqrt.rn";
  let description = [{
    On the GPU, `math.exp` on f32 (scalars or vectors) becomes the instruction
    sequence nvcc emits for CUDA's accurate `expf` (fma range reduction,
    fma.rm, ex2.approx.ftz and a power-of-two scale), bit-identical to it, not
    libdevice's call or the one-instruction __expf; `math.fma` becomes
    `llvm.intr.fma` (one rounding) and `math.sqrt` `llvm.intr.sqrt` (the
    correctly rounded sqrt.rn). Runs after tile-lower-to-gpu.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect", "::mlir::LLVM::LLVMDialect",
                           "::mlir::vector::VectorDialect"];
}

def TileApproximateMath : Pass<"tile-approximate-math", "::mlir::ModuleOp"> {
  let summary = "math.log and math.log1p (f32) as arithmetic, the same on the GPU and the CPU";
  let description = [{
    Rewrites f32 `math.log` and `math.log1p` (scalars or vectors) into arith
    ops: an exponent split, a degree-8 minimax polynomial with relative
    accuracy (fdlibm's single-precision coefficients) and, for log1p, the
    correction for the rounding of 1 + x. The GPU and the CPU path then
    compute the same operations and get the same bits (CUDA's logf / log1pf
    and the C library's differ); upstream MLIR's approximations bound the
    absolute error only, which loses tiny log1p results. Within 1 ulp of the
    exact value on the tests' inputs (tests/unit/math_ops_test.cpp). Runs in
    both pipelines, before tile-device-math on the GPU.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

def TileNoAliasParams : Pass<"tile-noalias-params", "::mlir::ModuleOp"> {
  let summary = "A kernel's read-only pointer parameters as noalias, so that they load through the non-coherent cache";
  let description = [{
    Marks the pointer parameters of the NVVM kernels (`llvm.func` with
    `nvvm.kernel`) that are `llvm.readonly` (tile-lower-to-gpu marks the
    tensors a kernel never writes) and used `llvm.noalias`. LLVM then knows
    that no store of the kernel changes what they hold: NVPTX loads them with
    `ld.global.nc`, and their loads may move above stores. Outputs stay
    ordinary pointers, so what the threads of a block write and read of an
    output around a barrier keeps its order. The claim holds because the
    runtime refuses a launch whose output shares memory with another of its
    tensors (bindTensors). Each memref parameter is two pointers (allocated,
    aligned) to the same memory; only the aligned one is used, so only it is
    marked. Runs on the LLVM dialect, after convert-gpu-to-nvvm and before
    gpu-module-to-binary.
  }];
}

def TileLowerToCPU : Pass<"tile-lower-to-cpu", "::mlir::ModuleOp"> {
  let summary = "Lower tile kernels to sequential loops for the CPU";
  let description = [{
    Turns every `tile.kernel` into a `func.func` of the same name and
    arguments (float8 tensors as i8) that runs the grid as a loop nest, one
    block after the other; then MLIR's dialect conversion converts every
    tile op with its pattern (CpuPatterns.h): fragments become heap buffers
    of the tile's shape, every op a loop nest over its elements. Loads read
    zero outside the tensor, stores skip those elements, reductions combine
    a group's elements in index order, conversions use the same integer e4m3
    rounding as sm_80. Shared buffers are ordinary buffers and copies are
    plain loops (one block runs at a time, so there are no races to model).
    Layouts are ignored. `math.exp` stays for the CPU pipeline, which calls
    the C library's `expf`.
  }];
  let dependentDialects = ["::mlir::func::FuncDialect", "::mlir::scf::SCFDialect",
                           "::mlir::memref::MemRefDialect", "::mlir::arith::ArithDialect",
                           "::mlir::math::MathDialect"];
}

#endif
