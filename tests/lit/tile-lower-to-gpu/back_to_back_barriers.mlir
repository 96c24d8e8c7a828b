// RUN: tk-opt %s -tile-assign-layouts -tile-lower-to-gpu | FileCheck %s

// Two barriers with only register arithmetic between them are one: the
// second orders everything the first did (as where tile.dot's barrier after
// reading its staged operand meets the end of a pipeline's iteration).
// CHECK-LABEL: gpu.func @meet
// CHECK: gpu.barrier
// CHECK-NOT: gpu.barrier
// CHECK: vector.store
tile.kernel @meet(%x: memref<?x256xf32>, %y: memref<?x256xf32>) attributes {threads = 64 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.grid (%b) in (%c1) {
    %v = tile.load %x[%c0, %c0] : memref<?x256xf32> -> !tile.frag<1x256xf32>
    tile.barrier
    %w = tile.parallel %v : (!tile.frag<1x256xf32>) -> !tile.frag<1x256xf32> {
    ^bb0(%u: f32):
      %s = arith.mulf %u, %u : f32
      tile.yield %s : f32
    }
    tile.barrier
    tile.store %w, %y[%c0, %c0] : !tile.frag<1x256xf32>, memref<?x256xf32>
  }
  tile.return
}

// A memory access between them keeps both.
// CHECK-LABEL: gpu.func @apart
// CHECK: gpu.barrier
// CHECK: vector.store
// CHECK: gpu.barrier
tile.kernel @apart(%x: memref<?x256xf32>, %y: memref<?x256xf32>) attributes {threads = 64 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.grid (%b) in (%c1) {
    %v = tile.load %x[%c0, %c0] : memref<?x256xf32> -> !tile.frag<1x256xf32>
    tile.barrier
    tile.store %v, %y[%c0, %c0] : !tile.frag<1x256xf32>, memref<?x256xf32>
    tile.barrier
  }
  tile.return
}
