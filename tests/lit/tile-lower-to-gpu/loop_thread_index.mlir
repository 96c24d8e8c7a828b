// RUN: tk-opt %s -tile-pipeline-copies -tile-assign-layouts -tile-lower-to-gpu -canonicalize | FileCheck %s
// RUN: tk-opt %s -tile-pipeline-copies -tile-assign-layouts -tile-lower-to-gpu=reread-thread-index=false -canonicalize | FileCheck %s --check-prefix=HOISTED

// In a kernel marked the schedule field reread_thread_index
// (KernelBuilder::rereadThreadIndexInLoops), a loop over tile ops reads the
// thread index again at the top of its body,
// with a volatile instruction LLVM does not hoist, and the body's per-thread
// coordinates derive from that read: LLVM's loop-invariant code motion would
// otherwise compute every per-thread address once, before the loop, and hold
// them all in registers across it (149 -> 118 registers on the
// transposed SwiGLU per-channel kernel). TK_ABLATE=loop-thread-index (the
// pass option reread-thread-index=false) keeps the kernel entry's index.
// CHECK-LABEL: gpu.func @strip
// CHECK: gpu.thread_id x
// CHECK: scf.for
// CHECK: %[[T:.*]] = llvm.inline_asm has_side_effects "mov.u32 $0, %tid.x;", "=r"  : () -> i32
// CHECK: %[[I:.*]] = arith.index_castui %[[T]] : i32 to index
// CHECK: arith.remui %[[I]], %c32
// CHECK: gpu.return
// Unmarked kernels, and every kernel under the ablation, keep the entry's.
// CHECK-LABEL: gpu.func @unmarked
// CHECK-NOT: llvm.inline_asm
// CHECK: gpu.return
// HOISTED-NOT: llvm.inline_asm
tile.kernel @strip(%x: memref<?x256xbf16> {tile.align = 16 : i64}, %y: memref<?x256xbf16> {tile.align = 16 : i64}) attributes {schedule = #tile.schedule<reread_thread_index = true>, threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %m = memref.dim %x, %c0 : memref<?x256xbf16>
  tile.grid (%b, %h) in (%m, %c4) {
    %c0i = arith.constant 0 : index
    %c8 = arith.constant 8 : index
    %c32 = arith.constant 32 : index
    %c64 = arith.constant 64 : index
    %col = arith.muli %h, %c64 : index
    %buf = tile.alloc : memref<32x64xbf16, #gpu.address_space<workgroup>>
    tile.pipeline %i = %c0i to %c8 {stages = 2 : i64} {
      %t8 = arith.muli %b, %c8 : index
      %t = arith.addi %t8, %i : index
      %row = arith.muli %t, %c32 : index
      tile.copy %x[%row, %col], %buf : memref<?x256xbf16>, memref<32x64xbf16, #gpu.address_space<workgroup>>
      %v = tile.load %buf[%c0i, %c0i] : memref<32x64xbf16, #gpu.address_space<workgroup>> -> !tile.frag<32x64xbf16>
      tile.store %v, %y[%row, %col] : !tile.frag<32x64xbf16>, memref<?x256xbf16>
    }
  }
  tile.return
}

tile.kernel @unmarked(%x: memref<?x256xbf16> {tile.align = 16 : i64}, %y: memref<?x256xbf16> {tile.align = 16 : i64}) attributes {threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %m = memref.dim %x, %c0 : memref<?x256xbf16>
  tile.grid (%b, %h) in (%m, %c4) {
    %c0i = arith.constant 0 : index
    %c8 = arith.constant 8 : index
    %c32 = arith.constant 32 : index
    %c64 = arith.constant 64 : index
    %col = arith.muli %h, %c64 : index
    %buf = tile.alloc : memref<32x64xbf16, #gpu.address_space<workgroup>>
    tile.pipeline %i = %c0i to %c8 {stages = 2 : i64} {
      %t8 = arith.muli %b, %c8 : index
      %t = arith.addi %t8, %i : index
      %row = arith.muli %t, %c32 : index
      tile.copy %x[%row, %col], %buf : memref<?x256xbf16>, memref<32x64xbf16, #gpu.address_space<workgroup>>
      %v = tile.load %buf[%c0i, %c0i] : memref<32x64xbf16, #gpu.address_space<workgroup>> -> !tile.frag<32x64xbf16>
      tile.store %v, %y[%row, %col] : !tile.frag<32x64xbf16>, memref<?x256xbf16>
    }
  }
  tile.return
}
