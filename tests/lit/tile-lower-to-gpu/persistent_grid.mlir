// RUN: tk-opt %s -tile-assign-layouts | FileCheck %s --check-prefix=ROUNDTRIP
// RUN: tk-opt %s -tile-assign-layouts -tile-lower-to-gpu -canonicalize | FileCheck %s

// A persistent grid: each block loops over tiles from its block index in
// steps of the grid's size, and splits the linear tile index into the grid's
// indices (dimension 0 fastest). The row maximum crosses warps through shared
// memory, so a barrier ends every tile.
// ROUNDTRIP: tile.grid
// ROUNDTRIP: } {persistent = 4 : i64}
// CHECK-LABEL: gpu.func @rowmax
// CHECK-DAG: %[[FIRST:.*]] = gpu.block_id x
// CHECK-DAG: %[[STEP:.*]] = gpu.grid_dim x
// CHECK: scf.for %[[T:.*]] = %[[FIRST]] to %{{.*}} step %[[STEP]]
// CHECK: arith.remui %[[T]]
// CHECK: arith.divui %[[T]]
// CHECK: gpu.shuffle
// CHECK: gpu.barrier
// CHECK: gpu.barrier
// CHECK: memref.store {{.*}} : memref<?x2xf32>
// CHECK: gpu.barrier
// CHECK-NEXT: }
tile.kernel @rowmax(%x: memref<?x2048xf32>, %y: memref<?x2xf32>) attributes {threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %m = memref.dim %x, %c0 : memref<?x2048xf32>
  tile.grid (%r, %h) in (%m, %c2) {
    %c1024 = arith.constant 1024 : index
    %col = arith.muli %h, %c1024 : index
    %t = tile.load %x[%r, %col] : memref<?x2048xf32> -> !tile.frag<1x1024xf32>
    %a = tile.reduce max %t {dim = 1 : i64, group = 1024 : i64} : !tile.frag<1x1024xf32> -> !tile.frag<1x1xf32>
    tile.store %a, %y[%r, %h] : !tile.frag<1x1xf32>, memref<?x2xf32>
  } {persistent = 4 : i64}
  tile.return
}
