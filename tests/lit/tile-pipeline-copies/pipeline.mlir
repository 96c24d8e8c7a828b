// RUN: tk-opt %s | tk-opt | FileCheck %s --check-prefix=ROUNDTRIP
// RUN: tk-opt %s -tile-pipeline-copies | FileCheck %s
// RUN: tk-opt %s -tile-pipeline-copies=max-stages=1 | FileCheck %s --check-prefix=ONE

// A block walks 8 row tiles of a column strip; each tile arrives in shared
// memory through a 3-stage pipeline.
// ROUNDTRIP: tile.pipeline %{{.*}} = %{{.*}} to %{{.*}} {stages = 3 : i64} {
// ROUNDTRIP: tile.copy

// Three versions of the buffer, the old one gone.
// CHECK-LABEL: tile.kernel @strip_amax
// CHECK: %[[BIG:.*]] = tile.alloc : memref<3x32x64xbf16, #gpu.address_space<workgroup>>
// CHECK-NOT: tile.alloc
// Prologue: the copies of iterations 0 and 1 into versions 0 and 1, one group each.
// CHECK: scf.if
// CHECK: memref.subview %[[BIG]]
// CHECK: tile.copy %{{.*}} {async}
// CHECK: }
// CHECK-NEXT: tile.commit_copies
// CHECK: scf.if
// CHECK: tile.copy %{{.*}} {async}
// CHECK: }
// CHECK-NEXT: tile.commit_copies
// The loop: copies of i + 2 (guarded), commit, wait for i's group, compute on
// version i mod 3, barrier.
// CHECK: scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step
// CHECK: %[[AHEAD:.*]] = arith.addi %[[I]], %c2
// CHECK: %[[IN:.*]] = arith.cmpi ult, %[[AHEAD]]
// CHECK: scf.if %[[IN]] {
// CHECK: arith.addi %{{.*}}, %[[AHEAD]]
// CHECK: tile.copy %{{.*}} {async}
// CHECK: }
// CHECK-NEXT: tile.commit_copies
// CHECK-NEXT: tile.wait_copies {pending = 2 : i64}
// CHECK: %[[SLOT:.*]] = arith.remui %{{.*}}, %c3
// CHECK: %[[V:.*]] = memref.subview %[[BIG]][%[[SLOT]], 0, 0] [1, 32, 64] [1, 1, 1]
// CHECK: tile.load %[[V]]
// CHECK: tile.store
// CHECK: tile.barrier
// CHECK: }
// CHECK-NEXT: tile.wait_copies {pending = 0 : i64}
// CHECK-NOT: tile.pipeline

// One stage: no prologue; each iteration waits for its own copy.
// ONE: tile.alloc : memref<1x32x64xbf16
// ONE-NOT: tile.commit_copies
// ONE: scf.for
// ONE: tile.copy
// ONE: tile.commit_copies
// ONE-NEXT: tile.wait_copies {pending = 0 : i64}
tile.kernel @strip_amax(%x: memref<?x256xbf16>, %y: memref<?x256xbf16>) attributes {threads = 128 : i64} {
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
    tile.pipeline %i = %c0i to %c8 {stages = 3 : i64} {
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
