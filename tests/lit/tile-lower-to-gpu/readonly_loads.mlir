// RUN: tk-opt %s -tile-assign-layouts -tile-lower-to-gpu -split-input-file | FileCheck %s

// A schedule's readonly_loads marks the tensors the kernel never writes
// llvm.readonly (tile-noalias-params then makes them noalias); a tensor it
// writes, read too, stays unmarked. Without it nothing is marked.
// CHECK-LABEL: gpu.func @asks(
// CHECK-SAME: %{{.*}}: memref<?x64xf32> {llvm.readonly}, %{{.*}}: memref<?x64xf32>)
// CHECK-LABEL: gpu.func @default(
// CHECK-NOT: llvm.readonly
// CHECK-SAME: kernel
tile.kernel @asks(%x: memref<?x64xf32>, %y: memref<?x64xf32>) attributes {schedule = #tile.schedule<readonly_loads = true>, threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.grid (%b) in (%c1) {
    %a = tile.load %x[%c0, %c0] : memref<?x64xf32> -> !tile.frag<8x64xf32>
    %o = tile.load %y[%c0, %c0] : memref<?x64xf32> -> !tile.frag<8x64xf32>
    %s = tile.parallel %a, %o : (!tile.frag<8x64xf32>, !tile.frag<8x64xf32>) -> !tile.frag<8x64xf32> {
    ^bb0(%u: f32, %v: f32):
      %w = arith.addf %u, %v : f32
      tile.yield %w : f32
    }
    tile.store %s, %y[%c0, %c0] : !tile.frag<8x64xf32>, memref<?x64xf32>
  }
  tile.return
}

// -----

tile.kernel @default(%x: memref<?x64xf32>, %y: memref<?x64xf32>) attributes {threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.grid (%b) in (%c1) {
    %a = tile.load %x[%c0, %c0] : memref<?x64xf32> -> !tile.frag<8x64xf32>
    tile.store %a, %y[%c0, %c0] : !tile.frag<8x64xf32>, memref<?x64xf32>
  }
  tile.return
}
